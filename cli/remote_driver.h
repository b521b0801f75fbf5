/* Running a remote operation (core/remote) over the native HTTP client. */
#ifndef WG_CLI_REMOTE_DRIVER_H
#define WG_CLI_REMOTE_DRIVER_H

#include <stdbool.h>

#include "remote/operation.h"
#include "repo/repo.h"

/* Drive op to completion against `url`'s origin (`url` without
 * credentials: the operation sends those of the URL it was made with);
 * 0 or the first error. On a 401 the credential.* settings choose git's
 * credential helpers (cli/credential/helper.h): those of `repo` (its
 * config and the user's files), or without a repository the user's files
 * alone, with `extra` (clone's -c; NULL: none) over either. Credentials
 * refused fail with git's "Authentication failed for '<url>/'". */
int cli_remote_run_in(struct wg_remote_op *op, const char *url, struct wg_repo *repo,
		      const struct wg_config *extra);
/* The same without a repository or extra settings. */
int cli_remote_run(struct wg_remote_op *op, const char *url);

/* The signal (SIGINT, SIGTERM) that stopped the last run, or 0. A command
 * then exits with 128 + it, after freeing its operation. */
int cli_remote_interrupted(void);

/* Catch SIGINT and SIGTERM (cli_remote_interrupted tells which came)
 * until the matching release; nested pairs are one. A command that must
 * not die half way between its network part and its own cleanup (clone:
 * the checkout and the publishing rename) catches around the whole. After
 * a signal the handler stays until the process exits. */
void cli_interrupt_catch(void);
void cli_interrupt_release(void);

struct cli_progress {
	bool quiet;    /* no progress meter (-q, or stderr is not a terminal) */
	bool silent;   /* -q: no notices either */
};
/* A wg_remote_progress_fn printing git-style progress to stderr. */
void cli_remote_progress(const struct wg_remote_progress *p, void *payload);
/* Show progress unless told otherwise: when stderr is a terminal. */
bool cli_progress_default(void);

/* In a partial clone, make object reads that miss fetch the object from
 * the promisor remote (one request) and try again. */
void cli_install_lazy_fetch(struct wg_repo *repo);
/* Fetch the objects a partial clone lacks in one request (a checkout's
 * blobs), rather than one request each when they are read. 0 when the
 * repository is not a partial clone. */
int cli_prefetch(struct wg_repo *repo, const struct wg_oid *oids, size_t n);

#endif
