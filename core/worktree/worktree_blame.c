/* git blame <path> with no revision (worktree_blame.h). */
#include "worktree/worktree_blame.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "object/tree.h"
#include "odb/memory_backend.h"
#include "repo/revparse.h"
#include "index/cache_tree.h"
#include "util/alloc.h"
#include "util/date.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/index_file.h"
#include "worktree/index_tree.h"
#include "worktree/workdir.h"

#define MAX_PARENTS 64

/* Does commit's tree have path as a file (git's verify_working_tree_path
 * takes regular files and symbolic links)? */
static bool tree_has_file(struct wg_repo *repo, const struct wg_oid *commit, const char *path)
{
	struct wg_oid tree, blob;
	unsigned mode;
	bool yes = !wg_object_peel(&tree, repo, commit, WG_OBJ_TREE) &&
		   !wg_tree_lookup_path(&blob, &mode, repo, &tree, path) &&
		   (S_ISREG(mode) || S_ISLNK(mode));
	wg_error_clear();
	return yes;
}

/* Any stage of path in the index (a conflicted file has no stage 0). */
static bool index_has(const struct wg_index *ix, const char *path)
{
	size_t len = strlen(path);
	long pos = wg_index_find(ix, path, len, 0);

	if (pos < 0)
		pos = -pos - 1;
	return (size_t)pos < ix->nr && !strcmp(ix->entries[pos]->path, path);
}

/* HEAD, then the commits MERGE_HEAD lists (a merge in progress). */
static int read_parents(struct wg_repo *repo, struct wg_oid *parents, size_t *n)
{
	struct wg_buf mh = WG_BUF_INIT, path = WG_BUF_INIT;
	struct wg_oid head;
	int err = 0;

	*n = 0;
	if (!wg_revparse(&head, repo, "HEAD") &&
	    !wg_object_peel(&parents[0], repo, &head, WG_OBJ_COMMIT))
		(*n)++;
	wg_error_clear();   /* an unborn branch: no parent */
	if ((err = wg_fs_join(&path, wg_repo_gitdir(repo), "MERGE_HEAD")))
		goto out;
	if (wg_fs_read_file(&mh, wg_buf_cstr(&path))) {
		wg_error_clear();
		goto out;
	}
	for (const char *p = wg_buf_cstr(&mh); *p && *n < MAX_PARENTS;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char hex[WG_MAX_HEXSZ + 1];
		if (len == wg_repo_algo(repo)->hexsz) {
			memcpy(hex, p, len);
			hex[len] = '\0';
			if (!wg_oid_from_hex(&parents[*n], wg_repo_algo(repo), hex))
				(*n)++;
			wg_error_clear();
		}
		p += len + (eol ? 1 : 0);
	}
out:
	wg_buf_release(&mh);
	wg_buf_release(&path);
	return err;
}

/* The tree git diffs the parents with: the index, with the file's working
 * tree version staged in it (the index is this call's copy; nothing is
 * written). Conflict stages of other paths are left out; the file's own
 * are replaced. */
static int pretend_tree(struct wg_oid *out, struct wg_index *ix, struct wg_repo *repo,
			struct wg_memory_backend *pretend, const char *path,
			const struct wg_blame_worktree *wt)
{
	struct wg_index_entry *e;
	size_t k = 0;

	for (size_t i = 0; i < ix->nr; i++) {
		if (ix->entries[i]->stage || !strcmp(ix->entries[i]->path, path))
			wg_free(ix->entries[i]);
		else
			ix->entries[k++] = ix->entries[i];
	}
	if (k != ix->nr) {
		/* entries went: the cached trees no longer say what is below */
		ix->nr = k;
		wg_cache_tree_free(ix->cache_tree);
		ix->cache_tree = NULL;
	}
	if (!(e = wg_index_entry_new(path, strlen(path), wt->mode, &wt->blob, 0)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return wg_index_add(ix, e) ? WG_ENOMEM : wg_index_pretend_tree(out, ix, wg_repo_odb(repo), pretend);
}

int wg_worktree_blame(struct wg_blame *out, struct wg_repo *repo, const char *path,
		      const struct wg_blame_options *opts, bool *from_worktree)
{
	struct wg_workdir_options wo = { WG_ATTR_CHECKIN, NULL, NULL, NULL };
	struct wg_oid parents[MAX_PARENTS];
	struct wg_blame_worktree wt = { 0 };
	struct wg_workdir *wd = NULL;
	struct wg_index *ix = NULL;
	struct wg_memory_backend *pretend = NULL;
	struct wg_buf text = WG_BUF_INIT;
	struct stat st;
	const char *full;
	char tz[6];
	int64_t now;
	int tz_minutes, err;
	size_t n;

	memset(out, 0, sizeof(*out));
	*from_worktree = false;
	if ((err = read_parents(repo, parents, &n)))
		return err;
	if (wg_repo_is_bare(repo)) {
		if (!n)
			return wg_error_set(WG_ENOTFOUND, "no such ref: HEAD");
		return wg_blame_run(out, repo, &parents[0], path, opts);
	}
	if ((err = wg_repo_index_read(&ix, repo, NULL)))
		return err;
	{
		bool known = index_has(ix, path);
		for (size_t i = 0; i < n && !known; i++)
			known = tree_has_file(repo, &parents[i], path);
		if (!known) {
			err = wg_error_set(WG_ENOTFOUND, "no such path '%s' in HEAD", path);
			goto out;
		}
	}
	wo.index = ix;
	if ((err = wg_workdir_open(&wd, repo, &wo)))
		goto out;
	if (!(full = wg_workdir_path(wd, path))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	if (wg_workdir_leading_unsafe(wd, path) || wg_fs_lstat(full, &st)) {
		err = wg_error_set(WG_ENOTFOUND, "Cannot lstat '%s': %s", path,
				   strerror(errno ? errno : ENOENT));
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		err = wg_error_set(WG_EINVALID, "'%s' is not a file in the working tree", path);
		goto out;
	}
	if ((err = wg_workdir_read_clean(wd, ix, path, &st, &text)))
		goto out;
	wg_date_now(&now, &tz_minutes);
	wg_date_format_tz(tz, tz_minutes);
	wt.parents = parents;
	wt.nparents = n;
	wt.mode = S_ISLNK(st.st_mode) ? 0120000 : (st.st_mode & 0100) ? 0100755 : 0100644;
	wt.time = now < 0 ? 0 : (uint64_t)now;
	wt.tz = tz;
	/* the version and its tree are seen by this repository's odb only,
	 * as git's pretend_object_file */
	if ((err = wg_memory_backend_attach(&pretend, wg_repo_odb(repo))) ||
	    (err = wg_memory_backend_add(pretend, WG_OBJ_BLOB, text.len ? (const void *)text.data : "",
						 text.len, &wt.blob)) ||
	    (err = pretend_tree(&wt.tree, ix, repo, pretend, path, &wt)))
		goto out;
	if (!(err = wg_blame_run_worktree(out, repo, &wt, path, opts)))
		*from_worktree = true;
out:
	wg_workdir_free(wd);
	wg_index_free(ix);
	wg_buf_release(&text);
	return err;
}
