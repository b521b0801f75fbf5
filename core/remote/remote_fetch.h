/* fetch: bring a repository up to date with a remote, as `git fetch
 * <remote>` does: ref discovery, negotiation (the server learns which
 * commits we have, so it sends only what is new, as a thin pack), the pack
 * indexed as it streams in, then every ref update in one transaction,
 * FETCH_HEAD, and tag following. Nothing changes until the pack is safely
 * stored; freeing the operation early leaves the repository as it was. */
#ifndef WG_REMOTE_REMOTE_FETCH_H
#define WG_REMOTE_REMOTE_FETCH_H

#include <stdbool.h>

#include "remote/operation.h"
#include "repo/repo.h"

struct wg_remote_fetch_options {
	unsigned version;
	/* Refspecs to use instead of remote.<name>.fetch (NULL: the config's). */
	const char *const *refspecs;
	size_t nrefspecs;
	bool prune;              /* delete remote-tracking refs the remote lost */
	bool no_tags;            /* no tag following */
	/* Reflog messages are "<reflog_action>: fast-forward" etc.; git uses
	 * its command line ("fetch --prune"). NULL: "fetch". */
	const char *reflog_action;
	wg_remote_progress_fn progress;
	void *progress_payload;
	/* No progress from the server (git's -q, or no terminal): asks for
	 * no-progress (fetch) or quiet (push), as git does. Without a
	 * progress callback the server is asked for none either way. */
	bool quiet;
};
#define WG_REMOTE_FETCH_OPTIONS_INIT { 1, NULL, 0, false, false, NULL, NULL, NULL, false }

/* `remote` is a configured remote's name ("origin"); the repository must
 * stay open while the operation lives. */
int wg_remote_fetch_new(struct wg_remote_op **out, struct wg_repo *repo, const char *remote,
			const struct wg_remote_fetch_options *opts);

/* The remote's URL (from remote.<name>.url). */
const char *wg_remote_fetch_url(struct wg_remote_op *op);

/* After completion, one line per ref change, git fetch's summary style:
 * " <flag> <old>..<new> <remote ref> -> <local ref>". */
struct wg_remote_fetch_update {
	char *remote_name;
	char *local_name;           /* NULL for a ref not stored */
	struct wg_oid old_oid, new_oid;
	char flag;                  /* ' ' fast-forward, '+' forced, '*' new, '-' pruned, '=' unchanged */
};
size_t wg_remote_fetch_updates(struct wg_remote_op *op,
			       const struct wg_remote_fetch_update **out);
/* Bytes of pack data received, and the number of negotiation rounds. */
uint64_t wg_remote_fetch_pack_bytes(struct wg_remote_op *op);
unsigned wg_remote_fetch_rounds(struct wg_remote_op *op);

#endif
