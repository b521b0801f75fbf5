#include "remote/dumb_refs.h"

#include <stdio.h>
#include <string.h>

#include "refs/refname.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

const struct wg_hash_algo *wg_dumb_algo_by_hexlen(size_t hexlen)
{
	for (int id = WG_HASH_SHA1; id < WG_HASH_COUNT; id++) {
		const struct wg_hash_algo *a = wg_hash_algo_by_id((enum wg_hash_id)id);
		if (a && a->hexsz == hexlen)
			return a;
	}
	return NULL;
}

void wg_dumb_refs_release(struct wg_dumb_refs *refs)
{
	for (size_t i = 0; i < refs->nr; i++)
		wg_free(refs->refs[i].name);
	wg_free(refs->refs);
	memset(refs, 0, sizeof(*refs));
}

static int parse_line(struct wg_dumb_refs *out, const char *line, size_t len, size_t lineno,
		      const struct wg_limits *limits)
{
	const char *tab = memchr(line, '\t', len);
	const struct wg_hash_algo *algo;
	struct wg_oid oid;
	size_t namelen;
	char *name;
	int err;

	if (!tab)
		return wg_error_set(WG_ECORRUPT, "info/refs line %zu is not \"<id> TAB <refname>\"",
				    lineno);
	if (!(algo = wg_dumb_algo_by_hexlen((size_t)(tab - line))))
		return wg_error_set(WG_ECORRUPT, "info/refs line %zu: an id of %zu characters "
				    "(neither SHA-1 nor SHA-256)", lineno, (size_t)(tab - line));
	if (out->algo && out->algo != algo)
		return wg_error_set(WG_ECORRUPT, "info/refs line %zu: a %s id among %s ids",
				    lineno, algo->name, out->algo->name);
	out->algo = algo;
	if (wg_oid_from_hex(&oid, algo, line))
		return wg_error_set(WG_ECORRUPT, "info/refs line %zu: the id is not hex", lineno);
	namelen = len - (size_t)(tab + 1 - line);
	if (namelen > 3 && !memcmp(tab + 1 + namelen - 3, "^{}", 3)) {
		struct wg_dumb_ref *prev = out->nr ? &out->refs[out->nr - 1] : NULL;
		if (!prev || strlen(prev->name) != namelen - 3 ||
		    memcmp(prev->name, tab + 1, namelen - 3) || prev->has_peeled)
			return wg_error_set(WG_ECORRUPT, "info/refs line %zu: a peeled value "
					    "(\"^{}\") that does not follow its ref", lineno);
		prev->peeled = oid;
		prev->has_peeled = true;
		return 0;
	}
	if (limits->max_refs && out->nr >= limits->max_refs)
		return wg_error_set(WG_ELIMIT, "info/refs lists more than %u refs (limit "
				    "max_refs)", (unsigned)limits->max_refs);
	if (!(name = wg_strndup(tab + 1, namelen)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	/* a server's ref name goes into messages and lookups: only valid
	 * ones, as git's dumb client checks them */
	if (strlen(name) != namelen || (err = wg_refname_check(name, 0))) {
		wg_free(name);
		return wg_error_set(WG_ECORRUPT, "info/refs line %zu: not a valid ref name", lineno);
	}
	if (out->nr == out->alloc) {
		size_t n = out->alloc ? out->alloc * 2 : 16;
		struct wg_dumb_ref *r = wg_realloc(out->refs, n * sizeof(*r));
		if (!r) {
			wg_free(name);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		out->refs = r;
		out->alloc = n;
	}
	memset(&out->refs[out->nr], 0, sizeof(out->refs[0]));
	out->refs[out->nr].name = name;
	out->refs[out->nr++].oid = oid;
	return 0;
}

int wg_dumb_refs_parse(struct wg_dumb_refs *out, const char *data, size_t len,
		       const struct wg_limits *limits)
{
	size_t pos = 0, lineno = 0;
	int err;

	limits = wg_limits_or_default(limits);
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;
		lineno++;
		/* a CR before the LF (a host that rewrote line ends) is tolerated */
		if (n && data[pos + n - 1] == '\r')
			n--;
		if (n && (err = parse_line(out, data + pos, n, lineno, limits)))
			return err;
		pos += nl ? (size_t)(nl - (data + pos)) + 1 : len - pos;
	}
	return 0;
}

const struct wg_dumb_ref *wg_dumb_refs_find(const struct wg_dumb_refs *refs, const char *name)
{
	for (size_t i = 0; i < refs->nr; i++)
		if (!strcmp(refs->refs[i].name, name))
			return &refs->refs[i];
	return NULL;
}

const struct wg_dumb_ref *wg_dumb_refs_dwim(const struct wg_dumb_refs *refs, const char *name)
{
	static const char *const rules[] = {
		"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s",
		"refs/remotes/%s/HEAD",
	};
	char full[1024];

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct wg_dumb_ref *r;
		int n = snprintf(full, sizeof(full), rules[i], name);
		if (n < 0 || (size_t)n >= sizeof(full))
			return NULL;
		if ((r = wg_dumb_refs_find(refs, full)))
			return r;
	}
	return NULL;
}

int wg_dumb_head_parse(char **symref, struct wg_oid *oid, const struct wg_hash_algo *algo,
		       const char *data, size_t len)
{
	size_t n = len;

	*symref = NULL;
	while (n && (data[n - 1] == '\n' || data[n - 1] == '\r' || data[n - 1] == ' '))
		n--;
	if (n > 5 && !memcmp(data, "ref: ", 5)) {
		const char *p = data + 5;
		size_t m = n - 5;
		char *name;
		while (m && *p == ' ')
			p++, m--;
		if (!(name = wg_strndup(p, m)))
			return wg_error_set(WG_ENOMEM, "out of memory");
		if (strlen(name) != m || !wg_refname_is_valid(name, WG_REFNAME_ALLOW_ONELEVEL)) {
			wg_free(name);
			return wg_error_set(WG_ECORRUPT, "the HEAD file names an invalid ref");
		}
		*symref = name;
		return 0;
	}
	if (!algo)
		algo = wg_dumb_algo_by_hexlen(n);
	if (!algo || n != algo->hexsz || wg_oid_from_hex(oid, algo, data))
		return wg_error_set(WG_ECORRUPT, "the HEAD file holds neither \"ref: <name>\" "
				    "nor an object id");
	return 0;
}
