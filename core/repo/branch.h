/* Branches as `git branch` manages them: create (with upstream tracking),
 * delete, rename and copy (reflog and branch.<name>.* config along), and
 * the list. Errors carry git's wording, so a front end prints them after
 * "fatal: " or "error: " as git does. */
#ifndef WG_REPO_BRANCH_H
#define WG_REPO_BRANCH_H

#include <stdbool.h>

#include "repo/repo.h"
#include "util/buf.h"

/* Where a new branch's upstream comes from (git's --track/--no-track). */
enum wg_branch_track {
	WG_BRANCH_TRACK_AUTO = 0,   /* branch.autoSetupMerge: by default only
				     * from a remote-tracking branch */
	WG_BRANCH_TRACK_NEVER = 1,  /* --no-track */
	WG_BRANCH_TRACK_ALWAYS = 2, /* --track: also from a local branch */
};

struct wg_branch_create_options {
	unsigned version;
	bool force;                 /* -f: reset an existing branch */
	enum wg_branch_track track;
};
#define WG_BRANCH_CREATE_OPTIONS_VERSION 1
#define WG_BRANCH_CREATE_OPTIONS_INIT { WG_BRANCH_CREATE_OPTIONS_VERSION, false, \
					WG_BRANCH_TRACK_AUTO }

/* Is `name` acceptable as a new branch name (git's
 * strbuf_check_branch_ref)? WG_EINVALID "'<name>' is not a valid branch
 * name" if not. */
int wg_branch_name_check(const char *name);

/* The branch HEAD names (short, "main"), or empty when HEAD is detached. */
int wg_branch_current(struct wg_buf *out, struct wg_repo *repo);

/* Create refs/heads/<name> at `start` (any revision; NULL: HEAD), with
 * the reflog message "branch: Created from <start>" ("Reset to" when
 * forced over an existing branch). Refuses an existing branch without
 * force, and the branch HEAD names even with it. When an upstream is set
 * (branch.<name>.remote/.merge), `upstream` (may be NULL) gets its short
 * name ("origin/main"), for git's "set up to track" line; else empty. */
int wg_branch_create(struct wg_repo *repo, const char *name, const char *start,
		     const struct wg_branch_create_options *opts, struct wg_buf *upstream);

/* Make `branch` track `start` (a revision naming a branch: "origin/main",
 * "main"), as --set-upstream-to and --track do: remote "." for a local
 * branch, else the remote whose fetch refspec maps to that ref, and the
 * remote ref it maps from. `upstream` (may be NULL) gets the short name. */
int wg_branch_track(struct wg_repo *repo, const char *branch, const char *start,
		    struct wg_buf *upstream);
/* Remove branch.<branch>.remote and .merge. WG_ENOTFOUND "branch 'x' has
 * no upstream information" when there is none. */
int wg_branch_unset_upstream(struct wg_repo *repo, const char *branch);

#define WG_BRANCH_FORCE 1u    /* -D, -M, -C */
#define WG_BRANCH_REMOTE 2u   /* -r: a remote-tracking branch */
#define WG_BRANCH_COPY 4u     /* -c: keep the old branch */

/* Warnings (one line or two, without "warning: "). */
typedef void (*wg_branch_warn_fn)(void *payload, const char *line);

/* Delete a branch (refs/heads/<name>, or refs/remotes/<name> with
 * WG_BRANCH_REMOTE) and its branch.<name> config. Without WG_BRANCH_FORCE
 * a branch not merged into its upstream (when it has one) or HEAD is
 * refused: the return is 1 and the message "the branch 'x' is not fully
 * merged". *was gets its value. The branch HEAD names is never deleted. */
int wg_branch_delete(struct wg_repo *repo, const char *name, unsigned flags,
		     struct wg_oid *was, wg_branch_warn_fn warn, void *payload);

/* Rename (or with WG_BRANCH_COPY copy) branch `old_name` to `new_name`:
 * the ref and its reflog ("Branch: renamed refs/heads/a to refs/heads/b"),
 * HEAD when it names the branch (rename only), and branch.<old>.* config. */
int wg_branch_rename(struct wg_repo *repo, const char *old_name, const char *new_name,
		     unsigned flags);

/* One branch of the list. */
struct wg_branch_info {
	const char *name;         /* short: "main", "origin/main" */
	const char *refname;      /* "refs/heads/main" */
	struct wg_oid oid;        /* null for a symref that dangles */
	const char *symref;       /* a symref's target, short ("origin/main") */
	bool remote;              /* under refs/remotes/ */
	bool head;                /* the branch HEAD names */
};
#define WG_BRANCH_LIST_LOCAL 1u
#define WG_BRANCH_LIST_REMOTE 2u
typedef int (*wg_branch_list_fn)(const struct wg_branch_info *info, void *payload);
/* Local branches, then remote-tracking ones, each in name order; a
 * nonzero return from `cb` stops and is returned. */
int wg_branch_foreach(struct wg_repo *repo, unsigned kinds, wg_branch_list_fn cb, void *payload);

#endif
