/* The WebAssembly module's C ABI: reset and restore, the core's
 * worktree/reset.h and restore.h in their three steps (begin, the blobs to
 * fetch, finish), so that JavaScript fetches what a blob-less partial
 * clone lacks in between (conventions: wasm/exports.c). */
#include <stdlib.h>
#include <string.h>

#include "exports.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "worktree/index_file.h"
#include "util/pathspec.h"
#include "worktree/reset.h"
#include "worktree/restore.h"

/* A commit named by `rev`, with git reset's message when it names none. */
static int resolve_commit(struct wg_oid *out, struct wg_repo *repo, const char *rev)
{
	if (wg_revparse(out, repo, rev) || wg_object_peel(out, repo, out, WG_OBJ_COMMIT))
		return wg_error_set(WG_ENOTFOUND, "Failed to resolve '%s' as a valid revision.",
				    rev);
	return 0;
}

/* --- reset ---------------------------------------------------------------------------------- */

/* git reset --soft (mode 1) | --mixed (0) | --hard (2) <rev> (NULL:
 * HEAD; an unborn HEAD then empties the index). NULL on error. */
API struct wg_reset *wgjs_reset_begin(struct wg_repo *repo, const char *rev, int mode)
{
	struct wg_reset_options ro = { 0 };
	struct wg_reset *r = NULL;
	struct wg_oid commit;

	wg_error_clear();
	if (mode < WG_RESET_MIXED || mode > WG_RESET_HARD) {
		wg_error_set(WG_EINVALID, "unknown reset mode %d", mode);
		return NULL;
	}
	ro.mode = (enum wg_reset_mode)mode;
	if (rev) {
		if (resolve_commit(&commit, repo, rev))
			return NULL;
		ro.commit = &commit;
		ro.rev = rev;
	}
	if (wg_reset_begin(&r, repo, &ro)) {
		wg_reset_free(r);
		return NULL;
	}
	return r;
}

API struct wgjs_object *wgjs_reset_missing(struct wg_reset *r)
{
	const struct wg_oid *oids;
	size_t n = wg_reset_missing(r, &oids);

	wg_error_clear();
	return wgjs_oid_list(oids, n);
}

/* Carry the reset out. A mixed reset's paths left differing from the
 * working tree come back as records (status letter, path), as git's
 * "Unstaged changes after reset"; the other modes give an empty list.
 * NULL on error. */
API struct wgjs_object *wgjs_reset_finish(struct wg_reset *r)
{
	struct wgjs_object *list;
	const struct wg_status *st;

	wg_error_clear();
	if (wg_reset_finish(r) || !(list = wgjs_object_alloc(WG_OBJ_NONE)))
		return NULL;
	st = wg_reset_unstaged(r);
	for (size_t i = 0; st && i < st->n; i++) {
		const struct wg_status_entry *e = &st->v[i];
		char c[2] = { e->unmerged ? 'U' : e->y, 0 };
		const char *fields[2] = { c, e->path };
		if (c[0] != '.' && wgjs_record_add(list, fields, 2)) {
			wgjs_object_free(list);
			return NULL;
		}
	}
	return list;
}

API void wgjs_reset_free(struct wg_reset *r)
{
	wg_reset_free(r);
}

/* git reset <rev> -- <paths>: only the index entries the pathspecs match
 * take the tree's (rev NULL: HEAD). No ref moves, no file is written. */
API int wgjs_reset_paths(struct wg_repo *repo, const char *rev, const char *const *paths, int n)
{
	struct wg_pathspec ps = { 0 };
	struct wg_buf path = WG_BUF_INIT;
	struct wg_index *ix = NULL;
	struct wg_oid oid, tree;
	int err;

	wg_error_clear();
	if (n <= 0)
		return wg_error_set(WG_EINVALID, "paths are required");
	if (!wg_repo_workdir(repo))
		return wg_error_set(WG_EINVALID, "mixed reset is not allowed in a bare repository");
	if (!rev && wg_revparse(&oid, repo, "HEAD"))
		wg_oid_empty_tree(&tree, wg_repo_algo(repo));  /* unborn: the paths leave */
	else if (wg_revparse(&oid, repo, rev ? rev : "HEAD") ||
		 wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE))
		return wg_error_set(WG_ENOTFOUND, "Failed to resolve '%s' as a valid tree.",
				    rev ? rev : "HEAD");
	wg_error_clear();
	if (!(err = wg_pathspec_init(&ps, "", paths, (size_t)n)) &&
	    !(err = wg_repo_index_path(&path, repo)) &&
	    !(err = wg_repo_index_read(&ix, repo, wg_buf_cstr(&path))) &&
	    !(err = wg_index_reset_from_tree(&ix, repo, &tree, &ps)))
		err = wg_index_write(ix, wg_buf_cstr(&path));
	wg_index_free(ix);
	wg_buf_release(&path);
	wg_pathspec_release(&ps);
	return err;
}

/* --- restore -------------------------------------------------------------------------------- */

/* The plan keeps the pathspec it was made with. */
struct wgjs_restore {
	struct wg_pathspec ps;
	struct wg_restore *restore;
};

API void wgjs_restore_free(struct wgjs_restore *w)
{
	if (!w)
		return;
	wg_restore_free(w->restore);
	wg_pathspec_release(&w->ps);
	wg_free(w);
}

/* git restore [--staged] [--worktree] [--source=<rev>] -- <paths>. NULL
 * on error; a pathspec matching nothing or an unmerged path is
 * WG_ENOTFOUND with git's message. */
API struct wgjs_restore *wgjs_restore_begin(struct wg_repo *repo, const char *const *paths, int n,
					    int staged, int worktree, const char *source)
{
	struct wg_restore_options ro = { 0 };
	struct wgjs_restore *w;
	struct wg_oid oid, tree;

	wg_error_clear();
	if (n <= 0) {
		wg_error_set(WG_EINVALID, "you must specify path(s) to restore");
		return NULL;
	}
	if (source) {
		if (wg_revparse(&oid, repo, source) || wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE)) {
			wg_error_set(WG_ENOTFOUND, "could not resolve '%s'", source);
			return NULL;
		}
		ro.source = &tree;
	}
	ro.staged = staged != 0;
	ro.worktree = worktree != 0;
	if (!(w = wg_calloc(1, sizeof(*w)))) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	if (wg_pathspec_init(&w->ps, "", paths, (size_t)n) ||
	    wg_restore_begin(&w->restore, repo, &w->ps, &ro)) {
		wgjs_restore_free(w);
		return NULL;
	}
	return w;
}

API struct wgjs_object *wgjs_restore_missing(struct wgjs_restore *w)
{
	const struct wg_oid *oids;
	size_t n = wg_restore_missing(w->restore, &oids);

	wg_error_clear();
	return wgjs_oid_list(oids, n);
}

API int wgjs_restore_finish(struct wgjs_restore *w)
{
	wg_error_clear();
	return wg_restore_finish(w->restore);
}
