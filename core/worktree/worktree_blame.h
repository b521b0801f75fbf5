/* git blame <path> without a revision, in a repository with a working
 * tree: the working tree's version of the file is blamed, its changes
 * not committed yet as a commit of their own (history/blame.h,
 * wg_blame_run_worktree), so that an editor shows who wrote each line of
 * what it has open, edits included. */
#ifndef WG_WORKTREE_WORKTREE_BLAME_H
#define WG_WORKTREE_WORKTREE_BLAME_H

#include <stdbool.h>

#include "history/blame.h"
#include "repo/repo.h"

/* Blame `path` (from the top) as git blame does with no revision: the
 * file as git add would store it (the check-in conversion applied; a
 * symbolic link's target), with HEAD and the commits MERGE_HEAD lists as
 * the parents of its "Not Committed Yet" commit, dated now in the local
 * zone. The path must be in HEAD or in the index (git's rule), else
 * WG_ENOTFOUND "no such path '<path>' in HEAD"; a file missing from the
 * working tree is WG_ENOTFOUND "Cannot lstat" (git 2.53 fails so too).
 * In a bare repository HEAD's version is blamed, as git does:
 * *from_worktree tells which. */
int wg_worktree_blame(struct wg_blame *out, struct wg_repo *repo, const char *path,
		      const struct wg_blame_options *opts, bool *from_worktree);

#endif
