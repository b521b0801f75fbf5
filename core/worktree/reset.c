/* Reset: HEAD, the index and the working tree to a commit (see reset.h). */
#include "worktree/reset.h"

#include <string.h>

#include "repo/revparse.h"
#include "refs/refdb.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/ignore_files.h"
#include "worktree/index_file.h"
#include "worktree/index_tree.h"

struct wg_reset {
	struct wg_repo *repo;
	enum wg_reset_mode mode;
	bool unborn;                     /* HEAD has no commit and none was named */
	struct wg_oid commit, tree;
	struct wg_buf rev, index_path;
	struct wg_index *index;          /* read by begin; the new one after finish */
	struct wg_ignore *ignore;
	struct wg_checkout *checkout;    /* hard */
	struct wg_status_options so;
	struct wg_status *unstaged;      /* mixed, after finish */
};

int wg_index_reset_from_tree(struct wg_index **ixp, struct wg_repo *repo,
			     const struct wg_oid *tree, const struct wg_pathspec *ps)
{
	struct wg_index *old = *ixp, *nx = NULL;
	int err;

	if ((err = wg_index_new(&nx, wg_repo_algo(repo))) ||
	    (err = wg_index_read_tree(nx, wg_repo_odb(repo), tree)))
		goto fail;
	if (ps) {
		/* only matching paths change: the old entries elsewhere stay */
		for (size_t i = nx->nr; i-- > 0;)
			if (!wg_pathspec_match(ps, nx->entries[i]->path, nx->entries[i]->path_len, NULL))
				wg_index_remove_at(nx, i);
		for (size_t i = 0; i < old->nr; i++) {
			const struct wg_index_entry *e = old->entries[i];
			struct wg_index_entry *c;
			if (wg_pathspec_match(ps, e->path, e->path_len, NULL))
				continue;
			if (!(c = wg_index_entry_new(e->path, e->path_len, e->mode, &e->oid, e->stage))) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				goto fail;
			}
			c->st = e->st;
			c->flags = e->flags;
			if ((err = wg_index_add(nx, c)))
				goto fail;
		}
	}
	for (size_t i = 0; i < nx->nr; i++) {
		struct wg_index_entry *e = nx->entries[i];
		long pos = wg_index_find(old, e->path, e->path_len, 0);
		if (pos >= 0 && old->entries[pos]->mode == e->mode &&
		    wg_oid_equal(&old->entries[pos]->oid, &e->oid) &&
		    !(old->entries[pos]->flags & WG_INDEX_INTENT_TO_ADD)) {
			e->st = old->entries[pos]->st;
			e->flags |= old->entries[pos]->flags & (WG_INDEX_ASSUME_VALID |
								 WG_INDEX_SKIP_WORKTREE);
		}
	}
	nx->version = old->version;
	nx->mtime_sec = old->mtime_sec;
	nx->mtime_nsec = old->mtime_nsec;
	wg_index_free(old);
	*ixp = nx;
	return 0;
fail:
	wg_index_free(nx);
	return err;
}

void wg_repo_remove_branch_state(struct wg_repo *repo)
{
	static const char *const files[] = { "MERGE_HEAD", "MERGE_RR", "MERGE_MSG", "MERGE_MODE",
					     "SQUASH_MSG", "CHERRY_PICK_HEAD", "REVERT_HEAD" };
	struct wg_buf p = WG_BUF_INIT;
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		wg_buf_reset(&p);
		if (!wg_fs_join(&p, wg_repo_gitdir(repo), files[i]) && wg_fs_exists(wg_buf_cstr(&p)))
			wg_fs_unlink(wg_buf_cstr(&p));
	}
	wg_error_clear();
	wg_buf_release(&p);
}

/* A soft reset keeps the index, so it must not hide a merge in progress. */
static int refuse_soft_in_merge(struct wg_reset *r)
{
	struct wg_buf mh = WG_BUF_INIT;
	int err = wg_fs_join(&mh, wg_repo_gitdir(r->repo), "MERGE_HEAD");
	bool merging = !err && wg_fs_exists(wg_buf_cstr(&mh));
	wg_buf_release(&mh);
	for (size_t k = 0; !err && k < r->index->nr; k++)
		merging = merging || r->index->entries[k]->stage;
	if (!err && merging)
		err = wg_error_set(WG_EINVALID, "Cannot do a soft reset in the middle of a merge.");
	return err;
}

/* A hard reset is a forced checkout from HEAD's tree to the commit's. */
static int plan_hard(struct wg_reset *r, const struct wg_reset_options *opts, bool have_head,
		     const struct wg_oid *head)
{
	struct wg_checkout_options co = opts->checkout;
	struct wg_oid head_tree;
	bool have_tree = have_head && !wg_object_peel(&head_tree, r->repo, head, WG_OBJ_TREE);
	int err;

	wg_error_clear();
	if ((err = wg_ignore_open(&r->ignore, r->repo, NULL, co.warn, co.payload)))
		return err;
	co.force = true;
	co.command = "reset";
	co.ignore = r->ignore;
	co.initial = !wg_fs_exists(wg_buf_cstr(&r->index_path));
	return wg_checkout_plan(&r->checkout, r->repo, r->index, have_tree ? &head_tree : NULL,
				&r->tree, &co);
}

int wg_reset_begin(struct wg_reset **out, struct wg_repo *repo,
		   const struct wg_reset_options *opts)
{
	struct wg_reset *r;
	struct wg_oid head;
	bool have_head;
	int err;

	*out = NULL;
	if (opts->mode != WG_RESET_SOFT && !wg_repo_workdir(repo))
		return wg_error_set(WG_EINVALID, opts->mode == WG_RESET_MIXED
				    ? "mixed reset is not allowed in a bare repository"
				    : "this operation must be run in a work tree");
	if (!(r = wg_calloc(1, sizeof(*r))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	*out = r;
	r->repo = repo;
	r->mode = opts->mode;
	r->so = (struct wg_status_options)WG_STATUS_OPTIONS_INIT;
	r->so.untracked = WG_UNTRACKED_NO;
	r->so.warn = opts->warn;
	r->so.payload = opts->payload;
	have_head = !wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0);
	wg_error_clear();
	r->unborn = !opts->commit && !have_head;
	if (r->unborn)
		wg_oid_empty_tree(&r->tree, wg_repo_algo(repo));
	else {
		r->commit = opts->commit ? *opts->commit : head;
		if (wg_object_peel(&r->commit, repo, &r->commit, WG_OBJ_COMMIT) ||
		    wg_object_peel(&r->tree, repo, &r->commit, WG_OBJ_TREE))
			return wg_error_set(WG_ENOTFOUND, "Could not parse object '%s'.",
					    opts->rev ? opts->rev : "HEAD");
	}
	if ((err = wg_buf_adds(&r->rev, opts->rev ? opts->rev : "HEAD")))
		return err;
	if ((err = opts->index_path ? wg_buf_adds(&r->index_path, opts->index_path)
				    : wg_repo_index_path(&r->index_path, repo)) ||
	    (err = wg_repo_index_read(&r->index, repo, wg_buf_cstr(&r->index_path))))
		return err;
	if (r->mode == WG_RESET_SOFT)
		return refuse_soft_in_merge(r);
	if (r->mode == WG_RESET_HARD)
		return plan_hard(r, opts, have_head, &head);
	return 0;
}

size_t wg_reset_missing(const struct wg_reset *r, const struct wg_oid **oids)
{
	if (!r->checkout) {
		*oids = NULL;
		return 0;
	}
	return wg_checkout_missing(r->checkout, oids);
}

/* git's reset_refs: ORIG_HEAD takes the old HEAD, HEAD the commit. */
static int move_refs(struct wg_reset *r)
{
	struct wg_refdb *refdb = wg_repo_refdb(r->repo);
	struct wg_oid orig, old_orig;
	struct wg_buf msg = WG_BUF_INIT;
	bool have_old_orig = !wg_refdb_resolve(&old_orig, NULL, refdb, "ORIG_HEAD", 0);
	bool have_orig = !wg_refdb_resolve(&orig, NULL, refdb, "HEAD", 0);
	int err = 0;

	wg_error_clear();
	if (have_orig)
		err = wg_refdb_update(refdb, "ORIG_HEAD", &orig, have_old_orig ? &old_orig : NULL, 0,
				      "reset: updating ORIG_HEAD");
	else if (have_old_orig)
		err = wg_refdb_delete(refdb, "ORIG_HEAD", &old_orig, 0, NULL);
	if (!err && !(err = wg_buf_printf(&msg, "reset: moving to %s", wg_buf_cstr(&r->rev))))
		err = wg_refdb_update(refdb, "HEAD", &r->commit, have_orig ? &orig : NULL, 0,
				      wg_buf_cstr(&msg));
	wg_buf_release(&msg);
	return err;
}

int wg_reset_finish(struct wg_reset *r)
{
	int err = 0;

	if (r->mode == WG_RESET_HARD) {
		struct wg_index *result = NULL;
		if ((err = wg_checkout_run(r->checkout, &result)))
			return err;
		wg_index_free(r->index);
		r->index = result;
	} else if (r->mode == WG_RESET_MIXED) {
		if ((err = wg_index_reset_from_tree(&r->index, r->repo, &r->tree, NULL)) ||
		    (err = wg_status_collect(&r->unstaged, r->repo, r->index, NULL, &r->so)))
			return err;
	}
	if (r->mode != WG_RESET_SOFT &&
	    (err = wg_index_write(r->index, wg_buf_cstr(&r->index_path))))
		return err;
	if (!r->unborn && (err = move_refs(r)))
		return err;
	wg_repo_remove_branch_state(r->repo);
	return 0;
}

const struct wg_status *wg_reset_unstaged(const struct wg_reset *r)
{
	return r->unstaged;
}

void wg_reset_free(struct wg_reset *r)
{
	if (!r)
		return;
	wg_checkout_free(r->checkout);
	wg_ignore_free(r->ignore);
	wg_index_free(r->index);
	wg_status_free(r->unstaged);
	wg_buf_release(&r->rev);
	wg_buf_release(&r->index_path);
	wg_free(r);
}
