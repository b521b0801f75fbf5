/* git diff's change lists with the index or the working tree as a side
 * (worktree_diff.h): diff-files, diff-index --cached and diff-index. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/index_tree.h"
#include "worktree/workdir.h"
#include "worktree/worktree_diff.h"

#define TYPE_MASK 0170000u
#define GITLINK 0160000u

struct side {
	unsigned mode;           /* 0: absent */
	struct wg_oid oid;
	bool dirty;              /* a working-tree file's, not its index entry */
};

struct differ {
	struct wg_diff_changes *out;
	struct wg_repo *repo;
	const struct wg_index *ix;
	struct wg_workdir *wd;
	const struct wg_worktree_diff_options *opts;
	struct wg_oid null;
	struct wg_buf scratch;
};

static bool wanted(const struct differ *d, const char *path)
{
	return !d->opts->match || d->opts->match(d->opts->payload, path);
}

static bool intent_to_add(const struct wg_index_entry *e)
{
	return (e->flags & WG_INDEX_INTENT_TO_ADD) != 0;
}

/* The working tree's side of index entry e: the entry itself while the
 * file still holds it, absent when it is gone, else what git add would
 * store. */
static int worktree_side(struct differ *d, struct side *out, const struct wg_index_entry *e)
{
	const char *full;
	struct stat st;
	bool modified = true;
	int err;

	out->mode = e->mode;
	out->oid = e->oid;
	if ((e->mode & TYPE_MASK) == GITLINK)
		return 0;
	if (wg_workdir_leading_unsafe(d->wd, e->path)) {
		out->mode = 0;
		return 0;
	}
	if (!(full = wg_workdir_path(d->wd, e->path)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (wg_fs_lstat(full, &st)) {
		if (errno != ENOENT && errno != ENOTDIR)
			return wg_error_set(WG_EIO, "cannot lstat '%s': %s", full, strerror(errno));
		out->mode = 0;
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		/* a directory where a file was: the file is gone */
		out->mode = 0;
		return 0;
	}
	if (!intent_to_add(e)) {
		if ((err = wg_workdir_entry_modified(d->wd, d->ix, e, &st, &modified)))
			return err;
		if (!modified)
			return 0;
	}
	out->mode = wg_workdir_mode_from_stat(d->wd, &st, e->mode);
	/* git's --raw names an intent-to-add file by its content's id */
	out->dirty = !intent_to_add(e);
	if (!d->opts->pretend)
		return wg_workdir_hash_file(d->wd, d->ix, e->path, &st, &out->oid);
	if ((err = wg_workdir_read_clean(d->wd, d->ix, e->path, &st, &d->scratch)))
		return err;
	return wg_memory_backend_add(d->opts->pretend, WG_OBJ_BLOB, d->scratch.data, d->scratch.len,
				     &out->oid);
}

/* One path's change from old to new (nothing when they are the same). */
static int add_change(struct differ *d, const char *path, const struct side *old,
		      const struct side *new)
{
	char status;
	int err;
	if (!old->mode && !new->mode)
		return 0;
	if (!new->mode)
		return wg_diff_changes_add(d->out, 'D', path, old->mode, &old->oid, 0, &d->null);
	if (old->mode && old->mode == new->mode && wg_oid_equal(&old->oid, &new->oid))
		return 0;
	status = !old->mode ? 'A' : ((old->mode ^ new->mode) & TYPE_MASK) ? 'T' : 'M';
	if ((err = wg_diff_changes_add(d->out, status, path, old->mode, old->mode ? &old->oid : &d->null,
				       new->mode, &new->oid)))
		return err;
	d->out->v[d->out->n - 1].new_in_worktree = new->dirty;
	return 0;
}

/* git diff: each index entry against its file */
static int diff_files(struct differ *d)
{
	int err = 0;
	for (size_t i = 0; i < d->ix->nr && !err; i++) {
		const struct wg_index_entry *e = d->ix->entries[i];
		struct side old = { e->mode, e->oid, false }, new;
		if (e->stage || !wanted(d, e->path))
			continue;
		if (intent_to_add(e))
			old.mode = 0;   /* not staged yet: the file is new */
		if (!(err = worktree_side(d, &new, e)))
			err = add_change(d, e->path, &old, &new);
	}
	return err;
}

/* git diff --cached <tree> and git diff <tree>: the tree's entries (in
 * tx) against the index's, or the working tree's files behind them */
static int diff_index(struct differ *d, const struct wg_index *tx, bool worktree)
{
	size_t i = 0, j = 0;
	int err = 0;
	while (!err && (i < tx->nr || j < d->ix->nr)) {
		const struct wg_index_entry *a = i < tx->nr ? tx->entries[i] : NULL;
		const struct wg_index_entry *b = j < d->ix->nr ? d->ix->entries[j] : NULL;
		struct side old = { 0 }, new = { 0 };
		int cmp = !a ? 1 : !b ? -1 : strcmp(a->path, b->path);
		const char *path = cmp <= 0 ? a->path : b->path;
		if (b && cmp >= 0 && b->stage) {
			/* unmerged: left out, the tree's entry too */
			if (!cmp)
				i++;
			while (j < d->ix->nr && !strcmp(d->ix->entries[j]->path, b->path))
				j++;
			continue;
		}
		if (cmp <= 0) {
			old.mode = a->mode;
			old.oid = a->oid;
			i++;
		}
		if (cmp >= 0) {
			j++;
			if (!wanted(d, path))
				continue;
			if (worktree)
				err = worktree_side(d, &new, b);
			else if (!intent_to_add(b))
				new = (struct side){ b->mode, b->oid, false };
		} else if (!wanted(d, path)) {
			continue;
		}
		if (!err)
			err = add_change(d, path, &old, &new);
	}
	return err;
}

int wg_worktree_diff_changes(struct wg_diff_changes *out, struct wg_repo *repo,
			     const struct wg_index *ix, enum wg_worktree_diff_kind kind,
			     const struct wg_oid *tree, const struct wg_worktree_diff_options *opts)
{
	static const struct wg_worktree_diff_options none = { NULL, NULL, NULL };
	struct wg_workdir_options wo = { WG_ATTR_CHECKIN, NULL, NULL, NULL };
	struct differ d = { .out = out, .repo = repo, .ix = ix, .opts = opts ? opts : &none,
			    .scratch = WG_BUF_INIT };
	struct wg_index *tx = NULL;
	int err = 0;

	wg_oid_null(&d.null, wg_repo_algo(repo));
	wo.index = ix;
	if (kind != WG_WORKTREE_DIFF_CACHED && (err = wg_workdir_open(&d.wd, repo, &wo)))
		return err;
	if (kind == WG_WORKTREE_DIFF_FILES) {
		err = diff_files(&d);
	} else if (!(err = wg_index_new(&tx, wg_repo_algo(repo))) &&
		   !(tree && (err = wg_index_read_tree(tx, wg_repo_odb(repo), tree)))) {
		err = diff_index(&d, tx, kind == WG_WORKTREE_DIFF_TREE);
	}
	wg_index_free(tx);
	wg_workdir_free(d.wd);
	wg_buf_release(&d.scratch);
	return err;
}
