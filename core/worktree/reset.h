/* Reset: HEAD (and the branch it is on) moves to a commit, and the index
 * follows (mixed, git's default) and the working tree too (hard), as
 * `git reset [--soft | --mixed | --hard] <commit>` does; or only the index
 * entries a pathspec matches take a tree's (`git reset <tree-ish> --
 * <paths>`). The CLI and the JavaScript API run the same steps and only
 * print differently.
 *
 * Three steps, as a switch (worktree/switch.h), because a hard reset in a
 * blob-less partial clone may need blobs that fetching is the caller's
 * network I/O:
 *
 *  1. wg_reset_begin reads the index and, for a hard reset, plans a forced
 *     checkout from HEAD's tree to the commit's. Nothing is written.
 *  2. wg_reset_missing lists the blobs to fetch first.
 *  3. wg_reset_finish writes the working tree (hard), the index (mixed,
 *     hard), then ORIG_HEAD (the old HEAD, "reset: updating ORIG_HEAD")
 *     and HEAD ("reset: moving to <rev>"), and removes what an unfinished
 *     merge or pick left (MERGE_HEAD, CHERRY_PICK_HEAD, ...). A mixed
 *     reset then compares the index with the working tree, refreshing
 *     stat data before the index is written, for git's "Unstaged changes
 *     after reset" list (wg_reset_unstaged). A failure before the index is
 *     written leaves index and HEAD as they were. */
#ifndef WG_WORKTREE_RESET_H
#define WG_WORKTREE_RESET_H

#include "hash/oid.h"
#include "index/index.h"
#include "repo/repo.h"
#include "worktree/checkout.h"
#include "util/pathspec.h"
#include "worktree/status.h"

enum wg_reset_mode { WG_RESET_MIXED, WG_RESET_SOFT, WG_RESET_HARD };

struct wg_reset_options {
	enum wg_reset_mode mode;
	/* The commit; NULL: HEAD's (unborn: the empty tree, and no ref moves). */
	const struct wg_oid *commit;
	/* How the reflog names it ("reset: moving to <rev>"); NULL: "HEAD". */
	const char *rev;
	/* The index file; NULL: <gitdir>/index. */
	const char *index_path;
	/* A hard reset's checkout callbacks (progress, warnings); `force` and
	 * `command` are set by the reset. */
	struct wg_checkout_options checkout;
	/* Warnings of the mixed reset's comparison (status.warn). */
	void (*warn)(void *payload, const char *line);
	void *payload;
};

struct wg_reset;

/* Plan. Refusals have git's messages: WG_EINVALID for a soft reset in the
 * middle of a merge and for a mixed or hard one without a working tree,
 * WG_ENOTFOUND for a commit the repository lacks. */
int wg_reset_begin(struct wg_reset **out, struct wg_repo *repo,
		   const struct wg_reset_options *opts);
/* Blobs a hard reset writes that the object database lacks. */
size_t wg_reset_missing(const struct wg_reset *r, const struct wg_oid **oids);
int wg_reset_finish(struct wg_reset *r);
/* After a mixed wg_reset_finish: the index against the working tree (only
 * tracked paths; NULL for the other modes). */
const struct wg_status *wg_reset_unstaged(const struct wg_reset *r);
void wg_reset_free(struct wg_reset *r);

/* The entries of `tree` replace those of *ixp: all of them, or those
 * `ps` matches (NULL: all). An unchanged entry keeps its stat data, so
 * the next status reads nothing (git's one-way merge keeps them too).
 * *ixp is replaced; on error it is left as it was. */
int wg_index_reset_from_tree(struct wg_index **ixp, struct wg_repo *repo,
			     const struct wg_oid *tree, const struct wg_pathspec *ps);

/* git's remove_branch_state: the files an unfinished merge, cherry-pick
 * or revert left in the git directory go. */
void wg_repo_remove_branch_state(struct wg_repo *repo);

#endif
