/* webgit for-each-ref: list refs with a format (git for-each-ref, the
 * commonly scripted atoms). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "refs/refname.h"
#include "object/commit.h"
#include "object/ident.h"
#include "object/tag.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"

struct item {
	char *name;
	char *symref;            /* target, for a symbolic ref */
	struct wg_oid oid;       /* resolved value */
	bool resolved;
	/* Parsed object, filled on demand. */
	bool loaded;
	enum wg_object_type type;
	struct wg_buf raw;
	struct wg_commit commit;
	struct wg_tag tag;
	bool is_commit, is_tag;
};

struct ctx {
	struct wg_repo *repo;
	char *head_ref;          /* what HEAD points at */
	/* Many refs name the same object: remember the last type looked up. */
	struct wg_oid last_oid;
	enum wg_object_type last_type;
	bool have_last;
};

static void item_release(struct item *it)
{
	wg_free(it->name);
	wg_free(it->symref);
	wg_buf_release(&it->raw);
	if (it->is_commit)
		wg_commit_release(&it->commit);
	if (it->is_tag)
		wg_tag_release(&it->tag);
}

static void load(struct ctx *c, struct item *it)
{
	if (it->loaded || !it->resolved)
		return;
	it->loaded = true;
	if (wg_odb_read(wg_repo_odb(c->repo), &it->oid, &it->type, &it->raw)) {
		wg_error_clear();
		it->type = WG_OBJ_NONE;
		return;
	}
	if (it->type == WG_OBJ_COMMIT) {
		wg_commit_init(&it->commit);
		it->is_commit = true;
		if (wg_commit_parse(&it->commit, wg_repo_algo(c->repo), it->raw.data, it->raw.len))
			wg_error_clear();
	} else if (it->type == WG_OBJ_TAG) {
		wg_tag_init(&it->tag);
		it->is_tag = true;
		if (wg_tag_parse(&it->tag, wg_repo_algo(c->repo), it->raw.data, it->raw.len))
			wg_error_clear();
	}
}

/* The first line(s) of a message up to a blank line, joined with spaces
 * (git's subject). */
static void add_subject(struct wg_buf *out, const char *msg, size_t len)
{
	size_t i = 0, s;
	while (i < len && msg[i] == '\n')
		i++;
	s = i;
	for (; i < len; i++) {
		if (msg[i] == '\n') {
			if (i + 1 >= len || msg[i + 1] == '\n')
				break;
			wg_buf_add(out, msg + s, i - s);
			wg_buf_addch(out, ' ');
			s = i + 1;
		}
	}
	wg_buf_add(out, msg + s, i - s);
}

static void add_body(struct wg_buf *out, const char *msg, size_t len)
{
	const char *p = msg, *end = msg + len;
	while (p < end && *p == '\n')
		p++;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return;
		if (nl + 1 < end && nl[1] == '\n') {
			p = nl + 2;
			while (p < end && *p == '\n')
				p++;
			wg_buf_add(out, p, (size_t)(end - p));
			return;
		}
		p = nl + 1;
	}
}

static void add_ident(struct wg_buf *out, const char *ident, const char *part)
{
	struct wg_ident id;
	if (!ident || wg_ident_parse(&id, ident, strlen(ident))) {
		wg_error_clear();
		return;
	}
	if (!*part) {
		wg_buf_adds(out, ident);
	} else if (!strcmp(part, "name")) {
		wg_buf_add(out, id.name, id.name_len);
	} else if (!strcmp(part, "email")) {
		wg_buf_addch(out, '<');
		wg_buf_add(out, id.email, id.email_len);
		wg_buf_addch(out, '>');
	} else if (!strcmp(part, "date:unix")) {
		if (id.has_date)
			wg_buf_printf(out, "%llu", (unsigned long long)id.timestamp);
	} else if (!strncmp(part, "date", 4) && id.has_date) {
		/* default: "Tue Nov 14 22:13:20 2023 +0000"; iso: "2023-11-14 22:13:20 +0000" */
		time_t t = (time_t)id.timestamp + (time_t)id.tz_offset * 60;
		struct tm tm;
		char buf[64];
		gmtime_r(&t, &tm);
		if (!strcmp(part, "date:iso") || !strcmp(part, "date:iso8601"))
			strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
		else if (!strcmp(part, "date:iso-strict") || !strcmp(part, "date:iso8601-strict"))
			strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
		else if (!strcmp(part, "date:short"))
			strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
		else
			strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm);
		if (!strcmp(part, "date") || !strcmp(part, "date:default")) {
			/* git pads the day with no space: "Nov 4", not "Nov  4". */
			char *dbl = strstr(buf, "  ");
			if (dbl)
				memmove(dbl, dbl + 1, strlen(dbl));
		}
		wg_buf_adds(out, buf);
		if (strcmp(part, "date:short")) {
			if (!strcmp(part, "date:iso-strict") || !strcmp(part, "date:iso8601-strict")) {
				if (id.tz_offset == 0)
					wg_buf_addch(out, 'Z');
				else
					wg_buf_printf(out, "%c%02d:%02d", id.tz_offset < 0 ? '-' : '+',
						      abs(id.tz_offset) / 60, abs(id.tz_offset) % 60);
			} else {
				wg_buf_printf(out, " %.*s", (int)id.tz_len, id.tz);
			}
		}
	}
}

static const char *ident_of(struct item *it, const char *who)
{
	if (!strcmp(who, "author"))
		return it->is_commit ? it->commit.author : NULL;
	if (!strcmp(who, "committer"))
		return it->is_commit ? it->commit.committer : NULL;
	if (!strcmp(who, "tagger"))
		return it->is_tag ? it->tag.tagger : NULL;
	/* creator: committer of a commit, tagger of a tag */
	return it->is_commit ? it->commit.committer : it->is_tag ? it->tag.tagger : NULL;
}

static int atom(struct ctx *c, struct item *it, const char *a, size_t len, struct wg_buf *out)
{
	char name[128];
	bool deref = false;
	if (len >= sizeof(name))
		return -1;
	memcpy(name, a, len);
	name[len] = '\0';
	if (name[0] == '*') {
		deref = true;
		memmove(name, name + 1, len);
	}
	if (deref) {
		/* The object an annotated tag points at (one level, as git). */
		struct item peeled;
		int r;
		load(c, it);
		if (!it->is_tag)
			return 0;
		memset(&peeled, 0, sizeof(peeled));
		peeled.oid = it->tag.object;
		peeled.resolved = true;
		r = atom(c, &peeled, name, strlen(name), out);
		item_release(&peeled);
		return r;
	}
	if (!strcmp(name, "refname")) {
		wg_buf_adds(out, it->name);
	} else if (!strcmp(name, "refname:short")) {
		wg_refname_shorten(out, it->name);
	} else if (!strcmp(name, "objectname")) {
		if (it->resolved)
			wg_buf_adds(out, wg_oid_hex(&it->oid));
	} else if (!strncmp(name, "objectname:short", 16)) {
		int n = name[16] == '=' ? atoi(name + 17) : 7;
		if (it->resolved)
			wg_buf_printf(out, "%.*s", n < 4 ? 4 : n, wg_oid_hex(&it->oid));
	} else if (!strcmp(name, "objecttype")) {
		enum wg_object_type type = WG_OBJ_NONE;
		size_t size;
		if (it->loaded) {
			type = it->type;
		} else if (it->resolved && c->have_last && wg_oid_equal(&c->last_oid, &it->oid)) {
			type = c->last_type;
		} else if (it->resolved &&
			   !wg_odb_read_header(wg_repo_odb(c->repo), &it->oid, &type, &size)) {
			c->last_oid = it->oid;
			c->last_type = type;
			c->have_last = true;
		}
		wg_error_clear();
		if (type > 0)
			wg_buf_adds(out, wg_object_type_name(type));
	} else if (!strcmp(name, "objectsize")) {
		load(c, it);
		if (it->type > 0)
			wg_buf_printf(out, "%zu", it->raw.len);
	} else if (!strcmp(name, "object") || !strcmp(name, "type")) {
		load(c, it);
		if (it->is_tag)
			wg_buf_adds(out, name[0] == 'o' ? wg_oid_hex(&it->tag.object) :
				    wg_object_type_name(it->tag.type));
	} else if (!strcmp(name, "tree")) {
		load(c, it);
		if (it->is_commit)
			wg_buf_adds(out, wg_oid_hex(&it->commit.tree));
	} else if (!strcmp(name, "parent")) {
		size_t i;
		load(c, it);
		for (i = 0; it->is_commit && i < it->commit.nparents; i++) {
			if (i)
				wg_buf_addch(out, ' ');
			wg_buf_adds(out, wg_oid_hex(&it->commit.parents[i]));
		}
	} else if (!strcmp(name, "symref")) {
		if (it->symref)
			wg_buf_adds(out, it->symref);
	} else if (!strcmp(name, "symref:short")) {
		if (it->symref)
			wg_refname_shorten(out, it->symref);
	} else if (!strcmp(name, "HEAD")) {
		wg_buf_adds(out, c->head_ref && !strcmp(c->head_ref, it->name) ? "*" : " ");
	} else if (!strncmp(name, "upstream", 8) || !strncmp(name, "push", 4)) {
		/* No remote tracking configuration is read yet: empty, as git
		 * prints for a branch without an upstream. */
	} else if (!strcmp(name, "subject") || !strcmp(name, "contents:subject")) {
		load(c, it);
		if (it->is_commit)
			add_subject(out, it->commit.message, it->commit.message_len);
		else if (it->is_tag)
			add_subject(out, it->tag.message, it->tag.message_len);
	} else if (!strcmp(name, "body") || !strcmp(name, "contents:body")) {
		load(c, it);
		if (it->is_commit)
			add_body(out, it->commit.message, it->commit.message_len);
		else if (it->is_tag)
			add_body(out, it->tag.message, it->tag.message_len);
	} else if (!strcmp(name, "contents")) {
		load(c, it);
		if (it->is_commit)
			wg_buf_add(out, it->commit.message, it->commit.message_len);
		else if (it->is_tag)
			wg_buf_add(out, it->tag.message, it->tag.message_len);
	} else if (!strncmp(name, "author", 6) || !strncmp(name, "committer", 9) ||
		   !strncmp(name, "tagger", 6) || !strncmp(name, "creator", 7)) {
		const char *who = name[0] == 'a' ? "author" : name[1] == 'o' ? "committer" :
				  name[0] == 't' ? "tagger" : "creator";
		const char *part = name + strlen(who);
		load(c, it);
		if (!strncmp(part, "date", 4) || !*part || !strcmp(part, "name") ||
		    !strcmp(part, "email"))
			add_ident(out, ident_of(it, who), part);
		else
			return -1;
	} else {
		return -1;
	}
	return 0;
}

static int hexval(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
	       ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

static int format_item(struct ctx *c, struct item *it, const char *fmt, struct wg_buf *out)
{
	const char *p = fmt;
	while (*p) {
		if (p[0] == '%' && p[1] == '%') {
			wg_buf_addch(out, '%');
			p += 2;
		} else if (p[0] == '%' && p[1] == '(') {
			const char *close = strchr(p, ')');
			if (!close)
				return cli_fatal("malformed format string %s", p);
			if (atom(c, it, p + 2, (size_t)(close - p - 2), out))
				return cli_fatal("unknown field name: %.*s", (int)(close - p - 2), p + 2);
			p = close + 1;
		} else if (p[0] == '%' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
			wg_buf_addch(out, hexval(p[1]) * 16 + hexval(p[2]));
			p += 3;
		} else {
			wg_buf_addch(out, *p++);
		}
	}
	return 0;
}

/* git's for-each-ref pattern: a glob (wildmatch with pathname rules), or
 * a prefix ending at a '/' boundary. */
static bool glob_match(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (*pat == '*') {
			bool dbl = pat[1] == '*';
			const char *rest = pat + (dbl ? 2 : 1);
			for (;; s++) {
				if (glob_match(rest, s))
					return true;
				if (!*s || (!dbl && *s == '/'))
					return false;
			}
		}
		if (!*s)
			return false;
		if (*pat == '?') {
			if (*s == '/')
				return false;
			continue;
		}
		if (*pat != *s)
			return false;
	}
	return !*s;
}

static bool matches(char **pats, int n, const char *name)
{
	int i;
	if (!n)
		return true;
	for (i = 0; i < n; i++) {
		const char *p = pats[i];
		size_t pl = strlen(p);
		if (strpbrk(p, "*?[")) {
			if (glob_match(p, name))
				return true;
		} else if (!strncmp(name, p, pl) &&
			   (pl == 0 || p[pl - 1] == '/' || name[pl] == '\0' || name[pl] == '/')) {
			return true;
		}
	}
	return false;
}

struct sort_key {
	const char *atom;
	bool reverse;
};

static struct ctx *sort_ctx;
static struct sort_key *sort_keys;
static int nsort_keys;

static bool numeric_key(const char *a)
{
	return strstr(a, "date") != NULL || !strcmp(a, "objectsize");
}

static int cmp_items(const void *x, const void *y)
{
	struct item *a = *(struct item *const *)x, *b = *(struct item *const *)y;
	int i, c = 0;
	for (i = nsort_keys - 1; i >= 0 && !c; i--) {
		struct wg_buf va = WG_BUF_INIT, vb = WG_BUF_INIT;
		const char *k = sort_keys[i].atom;
		if (numeric_key(k)) {
			char ku[64];
			unsigned long long na, nb;
			snprintf(ku, sizeof(ku), "%s%s", k, strchr(k, ':') ? "" : ":unix");
			if (strstr(ku, "date:") && strcmp(strstr(ku, "date:"), "date:unix"))
				snprintf(ku, sizeof(ku), "%.*sdate:unix",
					 (int)(strstr(k, "date") - k), k);
			atom(sort_ctx, a, ku, strlen(ku), &va);
			atom(sort_ctx, b, ku, strlen(ku), &vb);
			na = strtoull(wg_buf_cstr(&va), NULL, 10);
			nb = strtoull(wg_buf_cstr(&vb), NULL, 10);
			c = na < nb ? -1 : na > nb;
		} else {
			atom(sort_ctx, a, k, strlen(k), &va);
			atom(sort_ctx, b, k, strlen(k), &vb);
			c = strcmp(wg_buf_cstr(&va), wg_buf_cstr(&vb));
		}
		wg_buf_release(&va);
		wg_buf_release(&vb);
		if (sort_keys[i].reverse)
			c = -c;
	}
	if (!c)
		c = strcmp(a->name, b->name);
	return c;
}

int cmd_for_each_ref(int argc, char **argv)
{
	static const char usage[] = "webgit for-each-ref [--count=<count>] [--shell|--perl|--python|"
		"--tcl] [(--sort=<key>)...] [--format=<format>] [<pattern>...]";
	const char *format = "%(objectname) %(objecttype)\t%(refname)";
	struct sort_key keys[16];
	struct ctx c;
	struct wg_ref_iter *iter = NULL;
	const struct wg_ref *ref;
	struct item **items = NULL;
	size_t n = 0, alloc = 0, i, count = (size_t)-1;
	struct wg_buf line = WG_BUF_INIT;
	int nkeys = 0, a, rc = 0, err, npat;
	char **pats, *prefix = NULL;

	memset(&c, 0, sizeof(c));
	for (a = 1; a < argc; a++) {
		const char *v;
		if ((v = cli_option_value(argc, argv, &a, "--format"))) {
			format = v;
		} else if ((v = cli_option_value(argc, argv, &a, "--sort"))) {
			if (nkeys == 16)
				return cli_fatal("too many sort keys");
			keys[nkeys].reverse = v[0] == '-';
			keys[nkeys++].atom = v + (v[0] == '-');
		} else if ((v = cli_option_value(argc, argv, &a, "--count"))) {
			count = (size_t)strtoul(v, NULL, 10);
		} else if (!strcmp(argv[a], "--")) {
			a++;
			break;
		} else if (argv[a][0] == '-') {
			return cli_usage(usage);
		} else {
			break;
		}
	}
	pats = argv + a;
	npat = argc - a;
	if ((rc = cli_open_repo(&c.repo)))
		return rc;
	{
		struct wg_oid head;
		if (wg_refdb_resolve(&head, &c.head_ref, wg_repo_refdb(c.repo), "HEAD",
				     WG_RESOLVE_ALLOW_MISSING))
			c.head_ref = NULL;
		wg_error_clear();
	}
	{
		/* Iterate only what the patterns can match: their common prefix
		 * up to any glob character (a seek, not a scan, on packed-refs). */
		size_t lcp = 0;
		int k;
		if (npat) {
			lcp = strcspn(pats[0], "*?[\\");
			for (k = 1; k < npat; k++) {
				size_t j = 0;
				while (j < lcp && pats[k][j] == pats[0][j] && !strchr("*?[\\", pats[k][j]))
					j++;
				lcp = j;
			}
		}
		if (!(prefix = wg_strndup(npat && lcp >= 5 && !strncmp(pats[0], "refs/", 5) ?
					  pats[0] : "refs/", npat && lcp >= 5 &&
					  !strncmp(pats[0], "refs/", 5) ? lcp : 5))) {
			rc = cli_fatal("out of memory");
			goto done;
		}
	}
	if ((err = wg_refdb_iter_new(&iter, wg_repo_refdb(c.repo), prefix))) {
		rc = cli_fatal_core();
		goto done;
	}
	while (!(err = wg_ref_iter_next(&ref, iter))) {
		struct item *it;
		if (!matches(pats, npat, ref->name))
			continue;
		if (n == alloc) {
			struct item **ni;
			alloc = alloc ? alloc * 2 : 64;
			if (!(ni = wg_realloc(items, alloc * sizeof(*ni)))) {
				rc = cli_fatal("out of memory");
				goto done;
			}
			items = ni;
		}
		if (!(it = wg_calloc(1, sizeof(*it))) || !(it->name = wg_strdup(ref->name))) {
			wg_free(it);
			rc = cli_fatal("out of memory");
			goto done;
		}
		items[n++] = it;
		if (ref->symbolic) {
			it->symref = wg_strdup(ref->target);
			it->resolved = !wg_refdb_resolve(&it->oid, NULL, wg_repo_refdb(c.repo),
							 ref->target, 0);
			wg_error_clear();
		} else {
			it->oid = ref->oid;
			it->resolved = true;
		}
	}
	if (err != WG_ITEROVER) {
		rc = cli_fatal_core();
		goto done;
	}
	if (nkeys && n > 1) {
		sort_ctx = &c;
		sort_keys = keys;
		nsort_keys = nkeys;
		qsort(items, n, sizeof(*items), cmp_items);
	}
	for (i = 0; i < n && i < count && !rc; i++) {
		wg_buf_reset(&line);
		if ((rc = format_item(&c, items[i], format, &line)))
			break;
		wg_buf_addch(&line, '\n');
		rc = cli_write_stdout(line.data, line.len);
	}
done:
	for (i = 0; i < n; i++) {
		item_release(items[i]);
		wg_free(items[i]);
	}
	wg_free(items);
	wg_buf_release(&line);
	wg_ref_iter_free(iter);
	wg_free(c.head_ref);
	wg_free(prefix);
	wg_repo_free(c.repo);
	return rc;
}
