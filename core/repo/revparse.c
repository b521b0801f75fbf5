#include "repo/revparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "object/commit.h"
#include "object/tag.h"
#include "object/tree.h"
#include "refs/refdb.h"
#include "repo/branch.h"
#include "repo/upstream.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

/* Git's ref lookup order for a short name (refs.c: ref_rev_parse_rules). */
static const char *const dwim_rules[] = {
	"%.*s", "refs/%.*s", "refs/tags/%.*s", "refs/heads/%.*s",
	"refs/remotes/%.*s", "refs/remotes/%.*s/HEAD", NULL,
};

static int read_object(struct wg_repo *repo, const struct wg_oid *oid,
		       enum wg_object_type *type, struct wg_buf *buf)
{
	return wg_odb_read(wg_repo_odb(repo), oid, type, buf);
}

int wg_object_peel(struct wg_oid *out, struct wg_repo *repo, const struct wg_oid *oid,
		   enum wg_object_type want)
{
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_oid cur = *oid;
	enum wg_object_type type;
	int err, depth;
	for (depth = 0; depth < 64; depth++) {
		if ((err = read_object(repo, &cur, &type, &buf)))
			goto done;
		if (type == want || (want == WG_OBJ_NONE && type != WG_OBJ_TAG)) {
			*out = cur;
			goto done;
		}
		if (type == WG_OBJ_TAG) {
			struct wg_tag tag;
			wg_tag_init(&tag);
			err = wg_tag_parse(&tag, wg_repo_algo(repo), buf.data, buf.len);
			if (!err)
				cur = tag.object;
			wg_tag_release(&tag);
		} else if (type == WG_OBJ_COMMIT && want == WG_OBJ_TREE) {
			struct wg_commit commit;
			wg_commit_init(&commit);
			err = wg_commit_parse(&commit, wg_repo_algo(repo), buf.data, buf.len);
			if (!err)
				cur = commit.tree;
			wg_commit_release(&commit);
		} else {
			err = wg_error_set(WG_EINVALID, "object %s is a %s, not a %s",
					   wg_oid_hex(&cur), wg_object_type_name(type),
					   wg_object_type_name(want));
		}
		if (err)
			goto done;
	}
	err = wg_error_set(WG_ECORRUPT, "tag chain from %s is too long", wg_oid_hex(oid));
done:
	wg_buf_release(&buf);
	return err;
}

int wg_tree_lookup_path(struct wg_oid *out, unsigned *mode_out, struct wg_repo *repo,
			const struct wg_oid *tree, const char *path)
{
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_oid cur = *tree;
	unsigned mode = WG_MODE_TREE;
	const char *p = path;
	int err = 0;

	while (*p) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		struct wg_tree_iter it;
		struct wg_tree_entry e;
		enum wg_object_type type;
		if (!len) {  /* "a//b" or a trailing '/' */
			p++;
			continue;
		}
		if (wg_tree_mode_type(mode) != WG_OBJ_TREE) {
			err = wg_error_set(WG_ENOTFOUND, "path '%s' does not exist (a parent is "
					   "not a directory)", path);
			break;
		}
		if ((err = read_object(repo, &cur, &type, &buf)))
			break;
		if (type != WG_OBJ_TREE) {
			err = wg_error_set(WG_EINVALID, "object %s is a %s, not a tree",
					   wg_oid_hex(&cur), wg_object_type_name(type));
			break;
		}
		wg_tree_iter_init(&it, wg_repo_algo(repo), buf.data, buf.len);
		while (!(err = wg_tree_iter_next(&it, &e)))
			if (e.namelen == len && !memcmp(e.name, p, len))
				break;
		if (err == WG_ITEROVER) {
			err = wg_error_set(WG_ENOTFOUND, "path '%s' does not exist in tree %s",
					   path, wg_oid_hex(tree));
			break;
		}
		if (err)
			break;
		cur = e.oid;
		mode = e.mode;
		p += len;
	}
	if (!err) {
		*out = cur;
		if (mode_out)
			*mode_out = mode;
	}
	wg_buf_release(&buf);
	return err;
}

static bool all_hex(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++)
		if (wg_hex_value((unsigned char)s[i]) < 0)
			return false;
	return len > 0;
}

/* Names that are allowed without "refs/": HEAD, FETCH_HEAD, ... */
static bool is_pseudo_ref(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_'))
			return false;
	return len > 0;
}

static int resolve_base(struct wg_oid *out, struct wg_repo *repo, const char *name, size_t len)
{
	const struct wg_hash_algo *algo = wg_repo_algo(repo);
	struct wg_buf full = WG_BUF_INIT;
	int i, err;

	if (len == 1 && name[0] == '@') {
		name = "HEAD";
		len = 4;
	}
	if (len == algo->hexsz && all_hex(name, len))
		return wg_oid_from_hex(out, algo, name);
	for (i = 0; dwim_rules[i]; i++) {
		if (i == 0 && !is_pseudo_ref(name, len) && (len < 5 || memcmp(name, "refs/", 5)))
			continue;
		wg_buf_reset(&full);
		if ((err = wg_buf_printf(&full, dwim_rules[i], (int)len, name)))
			goto done;
		err = wg_refdb_resolve(out, NULL, wg_repo_refdb(repo), (const char *)full.data, 0);
		if (err == WG_EINVALID || err == WG_ENOTFOUND)
			continue;  /* not a ref name, or no such ref: next rule */
		goto done;
	}
	if (len >= 4 && all_hex(name, len)) {
		err = wg_odb_resolve_prefix(wg_repo_odb(repo), name, len, out);
		goto done;
	}
	err = wg_error_set(WG_ENOTFOUND, "unknown revision '%.*s'", (int)len, name);
done:
	wg_buf_release(&full);
	return err;
}

/* --- reflog forms: <ref>@{<n>}, @{<n>}, @{-<n>}, [<branch>]@{upstream} --- */

/* git's dwim_log: the first name of the lookup order whose reflog exists. */
static int dwim_log(struct wg_buf *out, struct wg_repo *repo, const char *name, size_t len)
{
	for (int i = 0; dwim_rules[i]; i++) {
		int err;
		wg_buf_reset(out);
		if ((err = wg_buf_printf(out, dwim_rules[i], (int)len, name)))
			return err;
		if (wg_refdb_name_is_valid(wg_buf_cstr(out)) &&
		    wg_refdb_reflog_exists(wg_repo_refdb(repo), wg_buf_cstr(out)) == 1)
			return 0;
	}
	wg_error_clear();
	return wg_error_set(WG_ENOTFOUND, "unknown revision '%.*s'", (int)len, name);
}

/* Entry n of a reflog, newest first: the value the ref had n updates ago. */
static int reflog_nth(struct wg_oid *out, struct wg_repo *repo, const char *ref, unsigned long n)
{
	struct wg_reflog_iter *it;
	const struct wg_reflog_entry *e;
	struct wg_oid oldest = { 0 };
	unsigned long count = 0;
	int err;

	if ((err = wg_reflog_iter_new(&it, wg_repo_refdb(repo), ref, 0)))
		return err;
	while (!(err = wg_reflog_iter_next(&e, it))) {
		if (count++ == n) {
			*out = e->new_oid;
			break;
		}
		oldest = e->old_oid;
	}
	wg_reflog_iter_free(it);
	if (!err)
		return 0;
	if (err != WG_ITEROVER)
		return err;
	wg_error_clear();
	/* one past the oldest entry: what that entry moved the ref from */
	if (count == n && count && !wg_oid_is_null(&oldest)) {
		*out = oldest;
		return 0;
	}
	return wg_error_set(WG_EINVALID, "log for '%s' only has %lu entries",
			    !strncmp(ref, "refs/heads/", 11) ? ref + 11 : ref, count);
}

/* @{-n}: the n-th branch (or commit) checked out before this one, from
 * HEAD's "checkout: moving from <x> to <y>" entries. */
static int previous_checkout(struct wg_buf *out, struct wg_repo *repo, unsigned long n)
{
	static const char prefix[] = "checkout: moving from ";
	struct wg_reflog_iter *it;
	const struct wg_reflog_entry *e;
	int err;

	if ((err = wg_reflog_iter_new(&it, wg_repo_refdb(repo), "HEAD", 0)))
		return err;
	while (!(err = wg_reflog_iter_next(&e, it))) {
		const char *from = e->message, *to;
		if (strncmp(from, prefix, sizeof(prefix) - 1))
			continue;
		from += sizeof(prefix) - 1;
		if (!(to = strstr(from, " to ")) || --n)
			continue;
		wg_buf_reset(out);
		err = wg_buf_add(out, from, (size_t)(to - from));
		break;
	}
	wg_reflog_iter_free(it);
	if (err == WG_ITEROVER)
		err = WG_ENOTFOUND;
	return err;
}

/* name@{inner}, the whole base of a revision (before ^ and ~). */
static int resolve_reflog_form(struct wg_oid *out, struct wg_repo *repo, const char *name,
			       size_t len, const char *inner, size_t inner_len, const char *spec)
{
	struct wg_buf ref = WG_BUF_INIT, shortname = WG_BUF_INIT;
	char *end;
	unsigned long n;
	int err = 0;

	if (inner_len > 1 && inner[0] == '-' && inner[1] >= '0' && inner[1] <= '9') {
		n = strtoul(inner + 1, &end, 10);
		if (len || end != inner + inner_len || !n) {
			err = wg_error_set(WG_ENOTFOUND, "unknown revision '%s'", spec);
		} else if ((err = previous_checkout(&ref, repo, n))) {
			wg_error_clear();
			err = wg_error_set(WG_ENOTFOUND, "unknown revision '%s'", spec);
		} else {
			err = resolve_base(out, repo, wg_buf_cstr(&ref), ref.len);
		}
	} else if (inner_len && inner[0] >= '0' && inner[0] <= '9') {
		n = strtoul(inner, &end, 10);
		if (end != inner + inner_len)
			err = wg_error_set(WG_EUNSUPPORTED, "reflog dates such as '%s' are not "
					   "supported yet", spec);
		else if (!len) {  /* @{n}: the current branch's reflog (HEAD's when detached) */
			if (!(err = wg_branch_current(&shortname, repo)))
				err = shortname.len ? wg_buf_printf(&ref, "refs/heads/%s",
								   wg_buf_cstr(&shortname))
						    : wg_buf_adds(&ref, "HEAD");
		} else
			err = dwim_log(&ref, repo, name, len);
		if (!err)
			err = reflog_nth(out, repo, wg_buf_cstr(&ref), n);
	} else if ((inner_len == 1 && (inner[0] == 'u' || inner[0] == 'U')) ||
		   (inner_len == 8 && !strncasecmp(inner, "upstream", 8))) {
		const char *branch = NULL;
		if (!len) {
			if (!(err = wg_branch_current(&ref, repo)) && !ref.len)
				err = wg_error_set(WG_EINVALID, "HEAD does not point to a branch");
			branch = wg_buf_cstr(&ref);
		} else if (!(err = wg_buf_add(&ref, name, len))) {
			branch = wg_buf_cstr(&ref);
		}
		if (!err) {
			struct wg_buf full = WG_BUF_INIT;
			if (!(err = wg_branch_upstream(&full, &shortname, repo, branch)) && !full.len)
				err = wg_error_set(WG_EINVALID, "no upstream configured for branch '%s'",
						   branch);
			if (!err)
				err = wg_refdb_resolve(out, NULL, wg_repo_refdb(repo), wg_buf_cstr(&full), 0);
			wg_buf_release(&full);
		}
	} else {
		err = wg_error_set(WG_EUNSUPPORTED, "reflog expressions such as '%s' are not "
				   "supported yet", spec);
	}
	wg_buf_release(&ref);
	wg_buf_release(&shortname);
	return err;
}

static int nth_parent(struct wg_oid *out, struct wg_repo *repo, const struct wg_oid *oid,
		      unsigned long n)
{
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_commit commit;
	struct wg_oid c;
	enum wg_object_type type;
	int err;
	if ((err = wg_object_peel(&c, repo, oid, WG_OBJ_COMMIT)))
		return err;
	if (n == 0) {
		*out = c;
		return 0;
	}
	if ((err = read_object(repo, &c, &type, &buf)))
		return err;
	wg_commit_init(&commit);
	err = wg_commit_parse(&commit, wg_repo_algo(repo), buf.data, buf.len);
	if (!err && n > commit.nparents)
		err = wg_error_set(WG_ENOTFOUND, "commit %s has no parent number %lu",
				   wg_oid_hex(&c), n);
	if (!err)
		*out = commit.parents[n - 1];
	wg_commit_release(&commit);
	wg_buf_release(&buf);
	return err;
}

static unsigned long read_number(const char **p, unsigned long dflt)
{
	char *end;
	unsigned long n;
	if (**p < '0' || **p > '9')
		return dflt;
	n = strtoul(*p, &end, 10);
	*p = end;
	return n;
}

static int apply_suffixes(struct wg_oid *oid, struct wg_repo *repo, const char *p,
			  const char *spec)
{
	int err = 0;
	while (*p && !err) {
		if (*p == '~') {
			unsigned long n;
			p++;
			n = read_number(&p, 1);
			while (n-- && !err)
				err = nth_parent(oid, repo, oid, 1);
		} else if (*p == '^' && p[1] == '{') {
			const char *close = strchr(p, '}');
			size_t len;
			enum wg_object_type want;
			if (!close)
				return wg_error_set(WG_EINVALID, "unterminated ^{ in '%s'", spec);
			len = (size_t)(close - p - 2);
			if (len == 0) {
				err = wg_object_peel(oid, repo, oid, WG_OBJ_NONE);
			} else if (len == 6 && !memcmp(p + 2, "object", 6)) {
				err = wg_odb_exists(wg_repo_odb(repo), oid) == 1 ? 0 :
				      wg_error_set(WG_ENOTFOUND, "object %s not found",
						   wg_oid_hex(oid));
			} else {
				want = wg_object_type_from_name(p + 2, len);
				if (want == WG_OBJ_BAD)
					return wg_error_set(WG_EINVALID, "unknown type in '%s'", spec);
				err = wg_object_peel(oid, repo, oid, want);
			}
			p = close + 1;
		} else if (*p == '^') {
			p++;
			err = nth_parent(oid, repo, oid, read_number(&p, 1));
		} else {
			return wg_error_set(WG_ENOTFOUND, "unknown revision '%s'", spec);
		}
	}
	return err;
}

int wg_revparse(struct wg_oid *out, struct wg_repo *repo, const char *spec)
{
	const char *colon = strchr(spec, ':');
	size_t revlen = colon ? (size_t)(colon - spec) : strlen(spec);
	size_t baselen = strcspn(spec, "^~");
	struct wg_oid oid;
	char *rev;
	int err;

	if (colon && revlen == 0)
		return wg_error_set(WG_EUNSUPPORTED, "index paths and searches such as '%s' are "
				    "not supported yet", spec);
	if (baselen > revlen)
		baselen = revlen;
	if (!(rev = wg_strndup(spec, revlen)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	{
		/* name@{...} ends the base; anything else with "@{" names nothing */
		const char *at = strstr(rev, "@{"), *close = NULL;
		if (at && (size_t)(at - rev) >= baselen)
			at = NULL;  /* in a suffix ("^{...}"): not a reflog form */
		if (at)
			close = memchr(at, '}', baselen - (size_t)(at - rev));
		if (at)
			err = close && (size_t)(close - rev) == baselen - 1 &&
			      !memchr(at + 2, '{', (size_t)(close - at - 2))
			      ? resolve_reflog_form(&oid, repo, rev, (size_t)(at - rev), at + 2,
						    (size_t)(close - at - 2), spec)
			      : wg_error_set(WG_ENOTFOUND, "unknown revision '%s'", spec);
		else
			err = resolve_base(&oid, repo, rev, baselen);
	}
	if (!err)
		err = apply_suffixes(&oid, repo, rev + baselen, spec);
	wg_free(rev);
	if (!err && colon) {
		struct wg_oid tree;
		if (!(err = wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE)))
			err = wg_tree_lookup_path(&oid, NULL, repo, &tree, colon + 1);
	}
	if (!err)
		*out = oid;
	return err;
}
