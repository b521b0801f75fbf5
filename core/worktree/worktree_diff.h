/* The changes git diff lists when a side is the index or the working tree,
 * as a change list the rest of the diff machinery takes (diff/tree_diff.h:
 * renames, patches, stats):
 *
 *   WG_WORKTREE_DIFF_FILES   the index -> the working tree   (git diff)
 *   WG_WORKTREE_DIFF_CACHED  a tree -> the index             (git diff --cached [<commit>])
 *   WG_WORKTREE_DIFF_TREE    a tree -> the working tree      (git diff <commit>)
 *
 * A working-tree file is looked at only where its stat data (or, when
 * racy, its content) says it no longer holds its index entry; its side is
 * then what git add would store (the check-in conversions of
 * .gitattributes and core.autocrlf applied), hashed, and kept in
 * `pretend` when given so that later steps read it by id from the odb.
 * A file whose leading directory is gone or a symbolic link counts as
 * deleted, as in git. Unmerged paths are left out (git prints "Unmerged
 * path"); intent-to-add entries are new files in the working tree's
 * diffs and absent from the index's, as in git. Submodules are compared
 * by their index entry only (webgit does not look into them). Renames are
 * not paired here: the caller does that (wg_diff_find_renames). */
#ifndef WG_WORKTREE_WORKTREE_DIFF_H
#define WG_WORKTREE_WORKTREE_DIFF_H

#include <stdbool.h>

#include "diff/tree_diff.h"
#include "index/index.h"
#include "odb/memory_backend.h"
#include "repo/repo.h"

enum wg_worktree_diff_kind {
	WG_WORKTREE_DIFF_FILES,
	WG_WORKTREE_DIFF_CACHED,
	WG_WORKTREE_DIFF_TREE,
};

struct wg_worktree_diff_options {
	/* only paths this accepts (NULL: all) */
	bool (*match)(void *payload, const char *path);
	void *payload;
	/* where working-tree versions go (NULL: hashed only) */
	struct wg_memory_backend *pretend;
};

/* Append the changes to *out in path order. `tree` is the old side for
 * CACHED and TREE (NULL: the empty tree, as for a repository without
 * commits); FILES ignores it. `ix` is the repository's index. A bare
 * repository is WG_EINVALID for FILES and TREE. */
int wg_worktree_diff_changes(struct wg_diff_changes *out, struct wg_repo *repo,
			     const struct wg_index *ix, enum wg_worktree_diff_kind kind,
			     const struct wg_oid *tree, const struct wg_worktree_diff_options *opts);

#endif
