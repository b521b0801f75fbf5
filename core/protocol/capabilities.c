#include "protocol/capabilities.h"

#include <string.h>

#include "protocol/pktline.h"
#include "util/alloc.h"
#include "util/error.h"

struct cap_entry {
	char *name;
	char *value;  /* NULL for a bare key */
};

struct wg_caps {
	int version;
	struct cap_entry *entries;
	size_t nr, alloc;
};

int wg_caps_new(struct wg_caps **out, int version)
{
	struct wg_caps *caps;
	*out = NULL;
	if (version < 0 || version > 2)
		return wg_error_set(WG_EINVALID, "unknown protocol version %d", version);
	if (!(caps = wg_calloc(1, sizeof(*caps))))
		return wg_error_set(WG_ENOMEM, "out of memory allocating a capability list");
	caps->version = version;
	*out = caps;
	return 0;
}

void wg_caps_free(struct wg_caps *caps)
{
	size_t i;
	if (!caps)
		return;
	for (i = 0; i < caps->nr; i++) {
		wg_free(caps->entries[i].name);
		wg_free(caps->entries[i].value);
	}
	wg_free(caps->entries);
	wg_free(caps);
}

static int oom(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory storing a capability");
}

/* Append name[=value]; the token [p, p+len) has been validated. */
static int add_token(struct wg_caps *caps, const char *p, size_t len)
{
	const char *eq = memchr(p, '=', len);
	struct cap_entry *e;
	if (caps->nr == caps->alloc) {
		size_t n = caps->alloc ? caps->alloc * 2 : 16;
		struct cap_entry *grown = wg_realloc(caps->entries, n * sizeof(*grown));
		if (!grown)
			return oom();
		caps->entries = grown;
		caps->alloc = n;
	}
	e = &caps->entries[caps->nr];
	e->name = wg_strndup(p, eq ? (size_t)(eq - p) : len);
	e->value = eq ? wg_strndup(eq + 1, len - (size_t)(eq + 1 - p)) : NULL;
	if (!e->name || (eq && !e->value)) {
		wg_free(e->name);
		wg_free(e->value);
		return oom();
	}
	caps->nr++;
	return 0;
}

static int bad_caps(const char *what, const void *p, size_t len)
{
	char q[WG_PKT_QUOTE_MAX];
	return wg_error_set(WG_ECORRUPT, "protocol error: %s: '%s'", what,
			    wg_pkt_quote(q, sizeof(q), p, len, false));
}

int wg_caps_parse_v1(struct wg_caps **out, const char *list, size_t len)
{
	struct wg_caps *caps;
	size_t i, start;
	int err;
	*out = NULL;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)list[i];
		if (c < 0x20 || c == 0x7f)
			return bad_caps("control character in the capability list", list, len);
	}
	if ((err = wg_caps_new(&caps, 1)))
		return err;
	for (start = 0; start < len; start = i + 1) {
		for (i = start; i < len && list[i] != ' '; i++)
			;
		if (i == start)
			continue;
		if (list[start] == '=') {
			wg_caps_free(caps);
			return bad_caps("capability without a name", list + start, i - start);
		}
		if ((err = add_token(caps, list + start, i - start))) {
			wg_caps_free(caps);
			return err;
		}
	}
	*out = caps;
	return 0;
}

static bool is_key_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

int wg_caps_add_v2_line(struct wg_caps *caps, const void *line, size_t len)
{
	const unsigned char *p = line;
	size_t i, keylen;
	if (len && p[len - 1] == '\n')
		len--;
	for (keylen = 0; keylen < len && p[keylen] != '='; keylen++)
		if (!is_key_char(p[keylen]))
			return bad_caps("invalid capability name in the v2 advertisement", p, len);
	if (!keylen)
		return bad_caps("empty capability name in the v2 advertisement", p, len);
	for (i = keylen; i < len; i++)
		if (p[i] < 0x20 || p[i] == 0x7f)
			return bad_caps("control character in a v2 capability", p, len);
	return add_token(caps, (const char *)p, len);
}

int wg_caps_version(const struct wg_caps *caps) { return caps->version; }
size_t wg_caps_count(const struct wg_caps *caps) { return caps->nr; }

const char *wg_caps_name_at(const struct wg_caps *caps, size_t i)
{
	return i < caps->nr ? caps->entries[i].name : NULL;
}

const char *wg_caps_value_at(const struct wg_caps *caps, size_t i)
{
	return i < caps->nr ? caps->entries[i].value : NULL;
}

bool wg_caps_has(const struct wg_caps *caps, const char *name)
{
	size_t i;
	for (i = 0; i < caps->nr; i++)
		if (!strcmp(caps->entries[i].name, name))
			return true;
	return false;
}

const char *wg_caps_get(const struct wg_caps *caps, const char *name, size_t nth)
{
	size_t i;
	for (i = 0; i < caps->nr; i++) {
		const struct cap_entry *e = &caps->entries[i];
		if (e->value && !strcmp(e->name, name) && nth-- == 0)
			return e->value;
	}
	return NULL;
}

bool wg_caps_has_feature(const struct wg_caps *caps, const char *command, const char *feature)
{
	size_t flen = strlen(feature), i;
	if (!flen)
		return false;
	for (i = 0; i < caps->nr; i++) {
		const char *p = caps->entries[i].value;
		if (!p || strcmp(caps->entries[i].name, command))
			continue;
		while (*p) {
			size_t n = strcspn(p, " ");
			if (n == flen && !memcmp(p, feature, n))
				return true;
			p += n;
			p += strspn(p, " ");
		}
	}
	return false;
}

int wg_caps_hash_algo(const struct wg_caps *caps, const struct wg_hash_algo **out)
{
	const char *name = wg_caps_get(caps, "object-format", 0);
	const struct wg_hash_algo *algo;
	char q[WG_PKT_QUOTE_MAX];
	*out = NULL;
	algo = wg_hash_algo_by_name(name ? name : "sha1");
	if (!algo)
		return wg_error_set(WG_EUNSUPPORTED,
				    "the server uses object format '%s', which this build does not support",
				    wg_pkt_quote(q, sizeof(q), name, strlen(name), false));
	*out = algo;
	return 0;
}
