/* clone: a new repository from a smart-HTTP remote, as `git clone` makes it
 * (protocol v2, or v0/v1 when the server has no v2): ref discovery, one
 * fetch of everything wanted, the pack indexed as it streams in, then refs,
 * reflogs and configuration in one step once the pack is safely stored.
 *
 * The repository is created when the remote's object format is known (it
 * is the remote's); until the operation completes it is not a finished
 * clone, and freeing the operation early removes it. The target must not
 * exist or be an empty directory. The operation itself checks nothing
 * out: HEAD, the branch and the remote-tracking refs are set, as with
 * `git clone --no-checkout`; a caller that checks out asks for
 * `defer_publish` and does it in the repository before publishing it
 * (wg_clone_repo, wg_clone_publish), so that a failed checkout leaves
 * nothing either. */
#ifndef WG_REMOTE_CLONE_H
#define WG_REMOTE_CLONE_H

#include <stdbool.h>

#include "remote/operation.h"

struct wg_clone_options {
	unsigned version;
	bool bare;
	bool mirror;                 /* implies bare; every ref, mirrored one to one */
	const char *branch;          /* -b: the branch HEAD names; NULL: the remote's HEAD */
	bool single_branch;
	unsigned depth;              /* 0: full history */
	const char *shallow_since;   /* a date (any form git accepts), or NULL */
	const char *const *shallow_exclude;  /* refs whose history is left out */
	size_t nshallow_exclude;
	const char *filter;          /* partial clone filter spec, or NULL */
	const char *ref_format;      /* NULL: webgit's default (reftable) */
	wg_remote_progress_fn progress;
	void *progress_payload;
	/* `git clone -c`: "key=value" (a bare "key" is true) set in the new
	 * repository's config as soon as it exists, before anything is
	 * fetched, so settings such as transfer.fsckObjects apply to it. */
	const char *const *config;
	size_t nconfig;
	/* Leave the new repository unpublished when the operation completes
	 * (util/staged_dir.h): the caller checks out, then publishes. */
	bool defer_publish;
	/* No progress from the server (git's -q, or no terminal): asks for
	 * no-progress (fetch) or quiet (push), as git does. Without a
	 * progress callback the server is asked for none either way. */
	bool quiet;
	/* git clone --revision=<id>: the history of that one commit (a full
	 * object id) and nothing else: no ref but a detached HEAD, no
	 * branch, no fetch refspec. No ref listing is asked for (a v2
	 * server allows any reachable id; over v0/v1 it must be a ref's
	 * unless the server allows more). Not with branch or mirror. */
	const char *revision;
};
#define WG_CLONE_OPTIONS_INIT { 1, false, false, NULL, false, 0, NULL, NULL, 0, NULL, NULL, \
				NULL, NULL, NULL, 0, false, false, NULL }

int wg_clone_new(struct wg_remote_op **out, const char *url, const char *path,
		 const struct wg_clone_options *opts);
/* After completion: the protocol used, and whether the remote was empty. */
int wg_clone_protocol(struct wg_remote_op *op);
bool wg_clone_was_empty(struct wg_remote_op *op);
/* The new repository (owned by the operation). With defer_publish it is
 * still in its staging place: its working tree is that place's when the
 * target did not exist, else (an existing empty directory, where only
 * .git is staged) the directory itself, which a failed or abandoned clone
 * empties again. */
struct wg_repo *wg_clone_repo(struct wg_remote_op *op);
bool wg_clone_worktree_staged(struct wg_remote_op *op);
/* Move a deferred clone into place (nothing when it is there already).
 * Freeing the operation without it removes the clone. */
int wg_clone_publish(struct wg_remote_op *op);

#endif
