/* Switching: HEAD moves to a branch or a commit and the index and working
 * tree follow, as `git switch` and `git checkout <branch>` do, so that the
 * CLI and the JavaScript API run the same steps and only print
 * differently.
 *
 * Three steps, because a blob-less partial clone may lack blobs that the
 * new tree needs and fetching them is the caller's network I/O (sans-IO):
 *
 *  1. wg_switch_begin resolves the target (a branch; with `new_branch` a
 *     branch to create; else any commit, detached; a name only one remote
 *     has becomes a new branch tracking it, git's "guess") and plans the
 *     checkout (worktree/checkout.h). Nothing is written. A refused
 *     checkout (local changes in the way) is WG_EEXISTS with the switch
 *     still returned, so that wg_switch_checkout() can list the paths.
 *  2. wg_switch_missing lists the blobs to fetch first.
 *  3. wg_switch_finish writes the working tree, then the index, then the
 *     refs: a new branch (reflog "branch: Created from <start>"), its
 *     upstream, and HEAD ("checkout: moving from <old> to <new>"). A
 *     failure before the index is written leaves index and HEAD as they
 *     were.
 *
 * A clone's first checkout is the same with no target: HEAD stays, the
 * working tree and index are made from its tree. */
#ifndef WG_WORKTREE_SWITCH_H
#define WG_WORKTREE_SWITCH_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "index/index.h"
#include "repo/repo.h"
#include "worktree/checkout.h"

struct wg_switch_options {
	/* A branch name, or any revision; NULL: HEAD (with new_branch: a new
	 * branch at HEAD; without: check out HEAD's tree, as a clone does). */
	const char *target;
	/* Create this branch at the target and switch to it (-c / -b);
	 * force_create resets it if it exists (-C / -B). */
	const char *new_branch;
	bool force_create;
	/* Detach HEAD at the target even when it names a branch. */
	bool detach;
	/* A target that is not a branch is refused unless detach is set (git
	 * switch); checkout detaches without being asked. */
	bool require_branch;
	/* Overwrite local changes (checkout -f, switch --discard-changes). */
	bool force;
	/* The index file; NULL: <gitdir>/index. */
	const char *index_path;
	/* The checkout's callbacks (progress, warnings); `command`, `force`,
	 * `initial` and `ignore` are set by the switch. */
	struct wg_checkout_options checkout;
	/* Warnings while reading the ignore rules (checkout.payload). */
	void (*warn_ignore)(void *payload, const char *line);
};

struct wg_switch;

/* What the switch did or will do, for messages. */
struct wg_switch_info {
	bool has_old;                /* HEAD had a commit */
	struct wg_oid old_commit;
	const char *old_branch;      /* "refs/heads/x" HEAD was on, or NULL */
	struct wg_oid new_commit;
	const char *new_branch_ref;  /* "refs/heads/x" HEAD goes to, or NULL: detached */
	bool created;                /* new_branch_ref is created (or reset) */
	bool existed;                /* ... and existed before (reset) */
	const char *tracking;        /* the remote-tracking ref it will track, or NULL */
};

/* Resolve and plan. Errors have git's messages: WG_ENOTFOUND for a target
 * that names nothing ("invalid reference: x"), WG_EINVALID for an invalid
 * branch name or a non-branch refused by require_branch ("a branch is
 * expected, got tag 'v1'"), WG_EEXISTS for an existing new_branch without
 * force_create ("a branch named 'x' already exists") and for a refused
 * checkout (*out set then: wg_switch_checkout() has the paths). */
int wg_switch_begin(struct wg_switch **out, struct wg_repo *repo,
		    const struct wg_switch_options *opts);
const struct wg_switch_info *wg_switch_info(const struct wg_switch *sw);
/* The checkout plan (its rejected paths after WG_EEXISTS). */
const struct wg_checkout *wg_switch_checkout(const struct wg_switch *sw);
/* Blobs the new tree needs that the object database lacks. */
size_t wg_switch_missing(const struct wg_switch *sw, const struct wg_oid **oids);
/* Write the working tree, the index and the refs. */
int wg_switch_finish(struct wg_switch *sw);
/* After wg_switch_finish: the index written (for a carried-changes list). */
struct wg_index *wg_switch_index(struct wg_switch *sw);
void wg_switch_free(struct wg_switch *sw);

#endif
