/* push: update a remote's refs, as `git push <remote> <refspec>...` does:
 * the receive-pack advertisement, ref update commands checked here first
 * (fast-forward unless forced), a thin pack of exactly the objects the
 * remote lacks (built by the pack writer), then the server's per-ref
 * report. Pushed branches move their remote-tracking refs here too. */
#ifndef WG_REMOTE_REMOTE_PUSH_H
#define WG_REMOTE_REMOTE_PUSH_H

#include <stdbool.h>

#include "hash/oid.h"
#include "remote/operation.h"
#include "repo/repo.h"

struct wg_remote_push_options {
	unsigned version;
	bool force;                  /* as if every refspec had a '+' */
	bool atomic;                 /* all refs or none (server's "atomic") */
	const char *const *push_options;
	size_t npush_options;
	wg_remote_progress_fn progress;
	void *progress_payload;
	/* No progress from the server (git's -q, or no terminal): asks for
	 * no-progress (fetch) or quiet (push), as git does. Without a
	 * progress callback the server is asked for none either way. */
	bool quiet;
};
#define WG_REMOTE_PUSH_OPTIONS_INIT { 1, false, false, NULL, 0, NULL, NULL, false }

/* `remote`: a configured remote's name; refspecs "[+]<src>[:<dst>]" where
 * <src> is a ref or branch name (or empty, to delete <dst>). */
int wg_remote_push_new(struct wg_remote_op **out, struct wg_repo *repo, const char *remote,
		const char *const *refspecs, size_t nrefspecs, const struct wg_remote_push_options *opts);
const char *wg_remote_push_url(struct wg_remote_op *op);

/* After completion: one result per refspec. */
enum wg_remote_push_state {
	WG_REMOTE_PUSH_UP_TO_DATE = 0,
	WG_REMOTE_PUSH_OK,                  /* the server took it */
	WG_REMOTE_PUSH_REJECTED_NONFF,      /* refused here: not a fast-forward */
	WG_REMOTE_PUSH_REJECTED_FETCH_FIRST,/* refused here: the remote has unknown work */
	WG_REMOTE_PUSH_REMOTE_REJECTED,     /* refused by the server (reason) */
	WG_REMOTE_PUSH_ATOMIC_FAILED,       /* not applied because another ref failed */
};
struct wg_remote_push_result {
	char *src, *dst;
	struct wg_oid old_oid, new_oid;
	bool deleted, created, forced;
	enum wg_remote_push_state state;
	char *reason;                /* the server's reason, or NULL */
};
size_t wg_remote_push_results(struct wg_remote_op *op, const struct wg_remote_push_result **out);
/* Whether every ref was pushed or was already up to date. */
bool wg_remote_push_all_ok(struct wg_remote_op *op);

#endif
