/* Checkout: move a working tree and its index from one tree to another,
 * as git's unpack_trees with its two-way merge does for `git checkout
 * <branch>`, `git switch` and `git read-tree -m -u` (and, with `force`,
 * `git checkout -f` and `git reset --hard`).
 *
 * In two steps, so that nothing is written before everything is known:
 *
 *  1. wg_checkout_plan decides every path from the index, the old tree
 *     (what HEAD has; NULL for a first checkout) and the new tree, and
 *     checks every path of the new tree (object/path.h: no ".git" in any
 *     disguise, no "..", nothing absolute) and every file it would
 *     overwrite or remove. Local changes in the way, and untracked files
 *     that are not ignored, refuse the whole checkout with git's message
 *     (WG_EEXISTS). wg_checkout_missing then lists the blobs to write that
 *     the object database lacks (a blob-less partial clone), so that the
 *     caller fetches them in one batch.
 *  2. wg_checkout_run removes the files that leave, then writes the others
 *     in index order: each blob streamed from the object database through
 *     the line-ending conversion its attributes ask for (never whole in
 *     memory), executable bit, symbolic links (as files when core.symlinks
 *     is false), submodules as empty directories. No file is ever written
 *     through a symbolic link: a directory on the way that is a link (or
 *     a file) is refused, unless the checkout itself removes it. The new
 *     index (stat data of every file written) comes back to the caller,
 *     who writes it and moves HEAD: if anything fails on the way, the
 *     index and HEAD stay as they were and a `checkout --force` repairs
 *     the working tree; no file holds a half-written blob.
 */
#ifndef WG_WORKTREE_CHECKOUT_H
#define WG_WORKTREE_CHECKOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "index/index.h"
#include "repo/repo.h"
#include "worktree/ignore.h"

struct wg_checkout_options {
	/* Overwrite local changes and untracked files in the way, and take
	 * the new tree even where the index had staged changes (git's
	 * one-way merge: the old tree plays no part). */
	bool force;
	/* The index file did not exist (an unborn repository, a clone): a
	 * path of the old tree missing from the index is not a staged
	 * deletion then. */
	bool initial;
	/* The verb in messages: "checkout" (the default: git's own wording
	 * then ends "...before you switch branches."), "merge", "reset". */
	const char *command;
	/* Decides whether an untracked file in the way may go (git's
	 * --overwrite-ignore, on by default); NULL: none may. */
	struct wg_ignore *ignore;
	/* Called after each file written or removed. */
	void (*progress)(void *payload, size_t done, size_t total);
	void *payload;
	/* The attributes' warnings (git's stderr lines). */
	void (*warn)(void *payload, const char *line);
};
#define WG_CHECKOUT_OPTIONS_INIT { false, false, NULL, NULL, NULL, NULL, NULL }

/* What a refused checkout lists, by git's categories. */
enum wg_checkout_reject {
	WG_CHECKOUT_WOULD_OVERWRITE,   /* a staged change the new tree differs from */
	WG_CHECKOUT_NOT_UPTODATE,      /* a file with local changes */
	WG_CHECKOUT_NOT_UPTODATE_DIR,  /* a directory with untracked files in it */
	WG_CHECKOUT_UNTRACKED_OVERWRITTEN,  /* an untracked file where one goes */
	WG_CHECKOUT_UNTRACKED_REMOVED,      /* an untracked file where one leaves */
	WG_CHECKOUT_REJECT_KINDS
};

struct wg_checkout;

/* Plan moving `ix` (the repository's index; not changed) and the working
 * tree from old_tree to new_tree. On WG_EEXISTS the plan is still made
 * (*out set) so that the rejected paths can be listed; the error message
 * is git's, every category with its paths. */
int wg_checkout_plan(struct wg_checkout **out, struct wg_repo *repo, const struct wg_index *ix,
		     const struct wg_oid *old_tree, const struct wg_oid *new_tree,
		     const struct wg_checkout_options *opts);
/* The same with the new entries given as an index (its stage-0 entries,
 * every path checked as a tree's are) instead of a tree, and no old tree:
 * restore's target, whose blobs a partial clone may not have yet, so
 * that no tree object can be written of it. */
int wg_checkout_plan_index(struct wg_checkout **out, struct wg_repo *repo,
			   const struct wg_index *ix, const struct wg_index *target,
			   const struct wg_checkout_options *opts);
/* The paths refused for one reason (sorted). */
size_t wg_checkout_rejected(const struct wg_checkout *co, enum wg_checkout_reject kind,
			    const char *const **paths);
/* git's message for one reason, paths included ("Your local changes to
 * the following files would be overwritten by checkout:\n\ta\nPlease
 * commit..."), into out; empty when none. */
int wg_checkout_reject_message(const struct wg_checkout *co, enum wg_checkout_reject kind,
			       struct wg_buf *out);
/* Blobs to be written that the object database does not have. */
size_t wg_checkout_missing(const struct wg_checkout *co, const struct wg_oid **oids);
/* How many files the run writes and removes. */
size_t wg_checkout_updates(const struct wg_checkout *co);
size_t wg_checkout_removals(const struct wg_checkout *co);

/* Carry the plan out; the new index goes to *result (the caller's). */
int wg_checkout_run(struct wg_checkout *co, struct wg_index **result);
void wg_checkout_free(struct wg_checkout *co);

#endif
