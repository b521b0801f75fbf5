/* The WebAssembly module's C ABI: history queries. log is git's revision
 * walk (core/history/revwalk.h: orders, ranges, paths with history
 * simplification, first parents, --follow), merge bases and ancestry come from
 * core/history/merge_base.h, ahead/behind counts from core/odb; the JS
 * layer only asks and decodes (conventions: wasm/exports.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exports.h"
#include "diff/rev_diff.h"
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
#include "util/alloc.h"
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
#define LOG_PATCH 256u         /* git log -p: each commit with its patch (wgjs_log_patch) */

/* A walk that holds ids and parsed commit nodes, not the repository:
 * each step is given the repository open at that moment, so JavaScript
 * can walk in batches, one repository call each. */
struct wgjs_log {
	struct wg_revwalk *walk;
	struct wg_pathspec paths;
	struct wg_oidmap shallow;
	struct wg_buf buf;
	bool first_parent;
	/* git log -p: each commit's patch, with these options (the paths
	 * are the walk's: git log -p limits the diff to them too) */
	bool patch;
	struct wg_rev_diff_options diff;
	char **diff_paths;
	/* the commit yielded next: set once the walk gave it, cleared once
	 * it was handed out, so that a commit whose patch lacked blobs is
	 * tried again after they are fetched */
	struct wg_commit_node *pending;
	struct wg_oid *missing;   /* the blobs that patch lacked */
	size_t nmissing;
};

API void wgjs_log_free(struct wgjs_log *w)
{
	if (!w)
		return;
	wg_revwalk_free(w->walk);
	wg_pathspec_release(&w->paths);
	wg_oidmap_release(&w->shallow);
	wg_buf_release(&w->buf);
	for (size_t i = 0; i < w->diff.npaths; i++)
		free(w->diff_paths[i]);
	free(w->diff_paths);
	wg_free(w->missing);
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
	w->first_parent = o.first_parent;
	w->patch = flags & LOG_PATCH;
	w->diff = (struct wg_rev_diff_options)WG_REV_DIFF_OPTIONS_INIT;
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
		if (w->patch) {
			if (!(w->diff_paths = calloc(npaths, sizeof(*w->diff_paths))))
				goto oom;
			for (uint32_t i = 0; i < npaths; i++, w->diff.npaths++)
				if (!(w->diff_paths[i] = strdup(paths[i])))
					goto oom;
			w->diff.paths = (const char *const *)w->diff_paths;
		}
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
oom:
	wg_error_set(WG_ENOMEM, "out of memory");
fail:
	wgjs_log_free(w);
	return NULL;
}

/* With LOG_PATCH: how each commit's patch is made (renames: 1 detect
 * them, 0 not; context and inter_hunk lines; algorithm NULL: git's
 * default), as wgjs_diff_new takes them. 0 or an error code. */
API int wgjs_log_patch(struct wgjs_log *w, int renames, int context, int inter_hunk,
		       const char *algorithm)
{
	wg_error_clear();
	if (context < 0 || inter_hunk < 0)
		return wg_error_set(WG_EINVALID, "context lines cannot be negative");
	if (algorithm && wg_diff_algorithm_parse(algorithm, &w->diff.algorithm))
		return WG_EINVALID;
	w->diff.renames = renames != 0;
	w->diff.hunks.context = context;
	w->diff.hunks.inter_hunk = inter_hunk;
	return 0;
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

/* After wgjs_log_next failed for want of blobs (a blob-less clone's):
 * those the commit's patch reads (LOG_PATCH) or, with LOG_FOLLOW, those
 * the source search reads, to fetch at once before calling
 * wgjs_log_next again, which tries the same commit again. NULL on
 * error. */
API struct wgjs_object *wgjs_log_missing(struct wgjs_log *w)
{
	size_t n = w->nmissing;
	const struct wg_oid *v = n ? w->missing : wg_revwalk_follow_missing(w->walk, &n);

	wg_error_clear();
	return wgjs_oid_list(v, n);
}

/* git log -p's patch of commit c (against its first parent; a root or
 * a shallow clone's boundary against the empty tree) appended to out:
 * every file's patch as git diff prints it. The blobs it lacks are
 * WG_ENOTFOUND, listed in w->missing. */
static int add_patch(struct wg_buf *out, struct wgjs_log *w, struct wg_repo *repo,
		     const struct wg_oid *oid, const struct wg_commit *c)
{
	struct wg_rev_diff d;
	struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT;
	struct wg_patch_options po;
	struct wg_oid parent_tree;
	bool root = !c->nparents || wg_oidmap_get(&w->shallow, oid);
	int err;

	wg_free(w->missing);
	w->missing = NULL;
	w->nmissing = 0;
	if (!root && (err = wg_object_peel(&parent_tree, repo, &c->parents[0], WG_OBJ_TREE)))
		return err;
	if ((err = wg_rev_diff_begin_trees(&d, repo, root ? NULL : &parent_tree, &c->tree, &w->diff)) ||
	    (err = wg_rev_diff_missing(&d, wg_repo_odb(repo), &w->missing, &w->nmissing)))
		goto out;
	if (w->nmissing) {
		err = wg_error_set(WG_ENOTFOUND, "the patch of %s reads %zu blobs this clone lacks",
				   wgjs_hex(oid), w->nmissing);
		goto out;
	}
	if ((err = wg_rev_diff_renames(&d, repo)))
		goto out;
	po = d.patch;
	po.odb = wg_repo_odb(repo);
	for (size_t i = 0; i < d.changes.n && !err; i++) {
		struct wg_diff_file f;
		if (!(err = wg_rev_diff_load(&f, &a, &b, po.odb, &d.changes.v[i])))
			err = wg_diff_patch(out, &f, &po);
		wg_buf_reset(&a);
		wg_buf_reset(&b);
	}
out:
	wg_rev_diff_release(&d);
	wg_buf_release(&a);
	wg_buf_release(&b);
	return err;
}

/* The next commit of the walk, read from `repo`: a wgjs_object whose data
 * is 12 NUL-terminated fields (id, tree, the parents' ids separated by
 * spaces, then name, email, timestamp and zone of the author and of the
 * committer, then the message's length in bytes) followed by the
 * message's bytes and, with LOG_PATCH, the commit's patch (none for a
 * merge, as git log -p, unless the walk follows first parents). The
 * parents are the commit's own, not those a path-limited walk kept. NULL
 * at the end (the last error code is then 0) or on error. */
API struct wgjs_object *wgjs_log_next(struct wgjs_log *w, struct wg_repo *repo)
{
	char hex[WG_MAX_HEXSZ + 1];
	struct wgjs_object *out = NULL;
	struct wg_commit_node *n;
	struct wg_commit c;
	const struct wg_buf *kept;
	enum wg_object_type type;
	int err, r;

	wg_error_clear();
	wg_commit_init(&c);
	wg_revwalk_rebind(w->walk, wg_repo_odb(repo));
	if (!w->pending) {
		if ((r = wg_revwalk_next(w->walk, &n)) < 0)
			return NULL;
		/* the end, whatever a lookup on the way left in the error state
		 * (JavaScript tells the end from a failure by the code) */
		if (!r) {
			wg_error_clear();
			return NULL;
		}
		w->pending = n;
	}
	n = w->pending;
	if ((kept = wg_revwalk_commit_bytes(w->walk, &n->oid))) {
		/* the walk read it a moment ago */
		err = wg_commit_parse(&c, wg_oid_algo(&n->oid), kept->data, kept->len);
	} else if (!(err = wg_odb_read(wg_repo_odb(repo), &n->oid, &type, &w->buf))) {
		err = wg_commit_parse(&c, wg_oid_algo(&n->oid), w->buf.data, w->buf.len);
	}
	if (err)
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
		    (err = add_ident(d, c.committer)) ||
		    (err = wg_buf_printf(d, "%zu", c.message_len)) || (err = wg_buf_addch(d, '\0')) ||
		    (err = wg_buf_add(d, c.message, c.message_len)))
			goto fail;
		if (w->patch && (c.nparents <= 1 || w->first_parent) &&
		    (err = add_patch(d, w, repo, &n->oid, &c)))
			goto fail;
	}
	w->pending = NULL;
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
