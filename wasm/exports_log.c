/* The WebAssembly module's C ABI: history queries. log is git's revision
 * walk (core/history/revwalk.h: orders, ranges, paths with history
 * simplification, first parents, --follow), merge bases and ancestry come from
 * core/history/merge_base.h, ahead/behind counts from core/odb; the JS
 * layer only asks and decodes (conventions: wasm/exports.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exports.h"
#include "diff/tree_diff.h"
#include "history/last_modified.h"
#include "history/merge_base.h"
#include "history/revwalk.h"
#include "object/commit.h"
#include "object/ident.h"
#include "odb/ahead_behind.h"
#include "odb/odb.h"
#include "repo/revparse.h"
#include "repo/shallow.h"
#include "util/error.h"
#include "util/pathspec.h"

/* wgjs_log_new's flags */
#define LOG_FIRST_PARENT 1u
#define LOG_REVERSE 2u
#define LOG_TOPO 4u
#define LOG_DATE 8u
#define LOG_NO_MERGES 16u
#define LOG_MERGES 32u
#define LOG_FULL_HISTORY 64u
#define LOG_FOLLOW 128u        /* git log --follow: paths holds the one path */

/* A walk that holds ids and parsed commit nodes, not the repository:
 * each step is given the repository open at that moment, so JavaScript
 * can walk in batches, one repository call each. */
struct wgjs_log {
	struct wg_revwalk *walk;
	struct wg_pathspec paths;
	struct wg_oidmap shallow;
	struct wg_buf buf;
};

API void wgjs_log_free(struct wgjs_log *w)
{
	if (!w)
		return;
	wg_revwalk_free(w->walk);
	wg_pathspec_release(&w->paths);
	wg_oidmap_release(&w->shallow);
	wg_buf_release(&w->buf);
	free(w);
}

/* A walk over the revision arguments revs (git log's: "rev", "^rev",
 * "a..b", "a...b"; none: HEAD), limited to the pathspec `paths` (from
 * the top), skipping `skip` and yielding at most max_count (negative:
 * all). NULL on error. */
API struct wgjs_log *wgjs_log_new(struct wg_repo *repo, const char **revs, uint32_t nrevs,
				  const char **paths, uint32_t npaths, uint32_t flags, uint32_t skip,
				  int32_t max_count)
{
	struct wg_revwalk_options o = { 0 };
	struct wgjs_log *w;

	wg_error_clear();
	if (!(w = calloc(1, sizeof(*w)))) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	w->buf = (struct wg_buf)WG_BUF_INIT;
	o.first_parent = flags & LOG_FIRST_PARENT;
	o.reverse = flags & LOG_REVERSE;
	o.full_history = flags & LOG_FULL_HISTORY;
	o.order = flags & LOG_TOPO ? WG_REVWALK_ORDER_TOPO
		: flags & LOG_DATE ? WG_REVWALK_ORDER_DATE : WG_REVWALK_ORDER_DEFAULT;
	o.max_parents = flags & LOG_NO_MERGES ? 1 : -1;
	o.min_parents = flags & LOG_MERGES ? 2 : 0;
	o.skip = skip;
	if (flags & LOG_FOLLOW) {
		/* the source search takes diff.renameLimit, as git's */
		bool renames = true;
		int limit = 1000;
		if (wg_diff_rename_config(repo, NULL, &renames, &limit))
			goto fail;
		o.follow = true;
		o.follow_limit = limit;
	}
	o.max_count = max_count < 0 ? SIZE_MAX : (size_t)max_count;
	if (npaths) {
		if (wg_pathspec_init(&w->paths, "", paths, npaths))
			goto fail;
		o.paths = &w->paths;
	}
	if (wg_repo_shallow_read(repo, &w->shallow))
		goto fail;
	o.shallow = &w->shallow;
	if (wg_revwalk_new(&w->walk, wg_repo_odb(repo), &o))
		goto fail;
	if (!nrevs && wg_revwalk_push_arg(w->walk, repo, "HEAD", false))
		goto fail;
	for (uint32_t i = 0; i < nrevs; i++)
		if (wg_revwalk_push_arg(w->walk, repo, revs[i], false))
			goto fail;
	return w;
fail:
	wgjs_log_free(w);
	return NULL;
}

static int add_field(struct wg_buf *out, const char *s, size_t len)
{
	int err = wg_buf_add(out, s, len);
	return err ? err : wg_buf_addch(out, '\0');
}

/* name, email, timestamp, zone; four empty fields when there is no such
 * header (or it has no email). */
static int add_ident(struct wg_buf *out, const char *value)
{
	struct wg_ident id;
	int err;

	if (!value || wg_ident_parse(&id, value, strlen(value))) {
		wg_error_clear();
		return wg_buf_add(out, "\0\0\0\0", 4);
	}
	if ((err = add_field(out, id.name, id.name_len)) ||
	    (err = add_field(out, id.email, id.email_len)))
		return err;
	if (!id.has_date)
		return wg_buf_add(out, "0\0+0000\0", 8);
	if ((err = wg_buf_printf(out, "%llu", (unsigned long long)id.timestamp)) ||
	    (err = wg_buf_addch(out, '\0')))
		return err;
	return add_field(out, id.tz, id.tz_len);
}

/* With LOG_FOLLOW, after wgjs_log_next failed for want of a blob: the
 * blobs the source search reads that the repository lacks (a blob-less
 * clone's), to fetch at once before calling wgjs_log_next again, which
 * tries the same commit again. NULL on error. */
API struct wgjs_object *wgjs_log_missing(struct wgjs_log *w)
{
	size_t n;
	const struct wg_oid *v = wg_revwalk_follow_missing(w->walk, &n);

	wg_error_clear();
	return wgjs_oid_list(v, n);
}

/* The next commit of the walk, read from `repo`: a wgjs_object whose data
 * is 11 NUL-terminated fields (id, tree, the parents' ids separated by
 * spaces, then name, email, timestamp and zone of the author and of the
 * committer) followed by the message's bytes. The parents are the
 * commit's own, not those a path-limited walk kept. NULL at the end (the
 * last error code is then 0) or on error. */
API struct wgjs_object *wgjs_log_next(struct wgjs_log *w, struct wg_repo *repo)
{
	char hex[WG_MAX_HEXSZ + 1];
	struct wgjs_object *out = NULL;
	struct wg_commit_node *n;
	struct wg_commit c;
	enum wg_object_type type;
	int err, r;

	wg_error_clear();
	wg_commit_init(&c);
	wg_revwalk_rebind(w->walk, wg_repo_odb(repo));
	if ((r = wg_revwalk_next(w->walk, &n)) <= 0)
		return NULL;
	if ((err = wg_odb_read(wg_repo_odb(repo), &n->oid, &type, &w->buf)) ||
	    (err = wg_commit_parse(&c, wg_oid_algo(&n->oid), w->buf.data, w->buf.len)))
		goto fail;
	if (!(out = wgjs_object_alloc(WG_OBJ_COMMIT)))
		goto fail;
	{
		struct wg_buf *d = &out->data;
		if ((err = wg_buf_adds(d, wg_oid_to_hex(&n->oid, hex))) || (err = wg_buf_addch(d, '\0')) ||
		    (err = wg_buf_adds(d, wg_oid_to_hex(&c.tree, hex))) || (err = wg_buf_addch(d, '\0')))
			goto fail;
		for (size_t i = 0; i < c.nparents && !err; i++) {
			if (i)
				err = wg_buf_addch(d, ' ');
			if (!err)
				err = wg_buf_adds(d, wg_oid_to_hex(&c.parents[i], hex));
		}
		if (err || (err = wg_buf_addch(d, '\0')) || (err = add_ident(d, c.author)) ||
		    (err = add_ident(d, c.committer)) || (err = wg_buf_add(d, c.message, c.message_len)))
			goto fail;
	}
	wg_commit_release(&c);
	return out;
fail:
	wgjs_object_free(out);
	wg_commit_release(&c);
	if (!wg_error_code())
		wg_error_set(WG_ENOMEM, "out of memory");
	return NULL;
}

static int commit_of(struct wg_oid *out, struct wg_repo *repo, const char *spec)
{
	struct wg_oid oid;
	if (wg_revparse(&oid, repo, spec) || wg_object_peel(out, repo, &oid, WG_OBJ_COMMIT))
		return wg_error_set(WG_ENOTFOUND, "not a commit: %s", spec);
	return 0;
}

/* The merge bases of revs[0] and the others (all: every one, else the
 * best), as hex ids separated by '\n'; "" when there is none. With
 * octopus, the bases of all of them at once. NULL on error. */
API char *wgjs_merge_base(struct wg_repo *repo, const char **revs, uint32_t n, uint32_t all,
			  uint32_t octopus)
{
	struct wg_oid *ids = calloc(n + 1, sizeof(*ids));
	struct wg_oid_list res = { 0 };
	struct wg_buf out = WG_BUF_INIT;
	char *s = NULL;
	int err = 0;

	wg_error_clear();
	if (!ids) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	if (n < (octopus ? 1u : 2u)) {
		wg_error_set(WG_EINVALID, "merge-base needs %s commits", octopus ? "one or more" : "two or more");
		goto out;
	}
	for (uint32_t i = 0; i < n && !err; i++)
		err = commit_of(&ids[i], repo, revs[i]);
	if (err || (octopus ? wg_merge_bases_octopus(&res, wg_repo_odb(repo), ids, n)
			    : wg_merge_bases(&res, wg_repo_odb(repo), &ids[0], ids + 1, n - 1)))
		goto out;
	for (size_t i = 0; i < res.n && !err; i++) {
		if (i && !all)
			break;
		err = wg_buf_printf(&out, "%s%s", i ? "\n" : "", wg_oid_hex(&res.v[i]));
	}
	if (!err && !(s = strdup(wg_buf_cstr(&out))))
		wg_error_set(WG_ENOMEM, "out of memory");
out:
	wg_oid_list_release(&res);
	wg_buf_release(&out);
	free(ids);
	return s;
}

/* 1 if `ancestor` is reachable from `tip`, 0 if not, -1 on error. */
API int wgjs_is_ancestor(struct wg_repo *repo, const char *ancestor, const char *tip)
{
	struct wg_oid a, b;
	bool yes;

	wg_error_clear();
	if (commit_of(&a, repo, ancestor) || commit_of(&b, repo, tip) ||
	    wg_is_ancestor(wg_repo_odb(repo), &a, &b, &yes))
		return -1;
	return yes;
}

/* The commits reachable from a and not b (counts[0]) and from b and not
 * a (counts[1]), as `git rev-list --left-right --count a...b`. 0 or -1. */
API int wgjs_ahead_behind(struct wg_repo *repo, const char *a, const char *b, uint32_t *counts)
{
	struct wg_oid x, y;
	size_t ahead, behind;

	wg_error_clear();
	if (commit_of(&x, repo, a) || commit_of(&y, repo, b) ||
	    wg_ahead_behind(wg_repo_odb(repo), &x, &y, &ahead, &behind))
		return -1;
	counts[0] = (uint32_t)ahead;
	counts[1] = (uint32_t)behind;
	return 0;
}

struct lm_out {
	struct wg_buf buf;
};

static int lm_emit(void *payload, const char *path, const struct wg_oid *commit)
{
	struct lm_out *o = payload;
	int err;
	if ((err = wg_buf_adds(&o->buf, wg_oid_hex(commit))) || (err = wg_buf_addch(&o->buf, '\0')) ||
	    (err = wg_buf_adds(&o->buf, path)))
		return err;
	return wg_buf_addch(&o->buf, '\0');
}

/* git last-modified of `rev` (NULL: HEAD): a wgjs_object whose data is
 * pairs of NUL-terminated fields, commit id then path, in git's order;
 * `paths` limit it (pathspecs from the top); recursive and show_trees
 * are -r and -t. NULL on error. */
API struct wgjs_object *wgjs_last_modified(struct wg_repo *repo, const char *rev,
					   const char **paths, uint32_t npaths, uint32_t recursive,
					   uint32_t show_trees)
{
	struct wg_last_modified_options lo = { 0 };
	struct wg_pathspec ps = { 0 };
	struct wg_oidmap shallow = WG_OIDMAP_INIT;
	struct lm_out o = { WG_BUF_INIT };
	struct wgjs_object *out = NULL;
	struct wg_oid commit;

	wg_error_clear();
	lo.recursive = recursive;
	lo.show_trees = show_trees;
	if (commit_of(&commit, repo, rev ? rev : "HEAD") || wg_repo_shallow_read(repo, &shallow))
		goto out;
	lo.shallow = &shallow;
	if (npaths) {
		if (wg_pathspec_init(&ps, "", paths, npaths))
			goto out;
		lo.paths = &ps;
	}
	if (wg_last_modified(wg_repo_odb(repo), &commit, &lo, lm_emit, &o))
		goto out;
	if (!(out = wgjs_object_alloc(WG_OBJ_BLOB))) {
		wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	wg_buf_release(&out->data);
	out->data = o.buf;
	o.buf = (struct wg_buf)WG_BUF_INIT;
out:
	wg_pathspec_release(&ps);
	wg_oidmap_release(&shallow);
	wg_buf_release(&o.buf);
	return out;
}
