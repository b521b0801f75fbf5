/* ls-remote: the refs of a remote repository, in one or two requests
 * (info/refs, and ls-refs when the server speaks protocol v2). */
#ifndef WG_REMOTE_LS_REMOTE_H
#define WG_REMOTE_LS_REMOTE_H

#include "hash/hash.h"
#include "protocol/advertisement.h"
#include "remote/operation.h"

struct wg_ls_remote_options {
	unsigned version;
	/* Only refs starting with one of these (sent to a v2 server as
	 * ref-prefix, and filtered here in any case). NULL: all. */
	const char *const *prefixes;
	size_t nprefixes;
	/* Notices (a redirect of the repository), as for the other
	 * operations; NULL: none. */
	wg_remote_progress_fn progress;
	void *progress_payload;
};
#define WG_LS_REMOTE_OPTIONS_INIT { 1, NULL, 0, NULL, NULL }

int wg_ls_remote_new(struct wg_remote_op **out, const char *url,
		     const struct wg_ls_remote_options *opts);
/* Once complete: the refs in the server's order (HEAD first when it has
 * one), with symref targets and peeled values as the server gave them. */
const struct wg_remote_ref_list *wg_ls_remote_refs(struct wg_remote_op *op);
/* The remote's object format and protocol version (0, 1 or 2). */
const struct wg_hash_algo *wg_ls_remote_algo(struct wg_remote_op *op);
int wg_ls_remote_protocol(struct wg_remote_op *op);

#endif
