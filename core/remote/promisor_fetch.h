/* The promisor client: objects a partial clone lacks, fetched by id from
 * its promisor remote (extensions.partialClone names it), in one request,
 * stored as a ".promisor" pack as git stores them. The object database does
 * not block on the network: a read of a missing object is WG_ENOTFOUND,
 * wg_repo_is_partial() says whether a fetch can help, and the caller runs
 * this operation with its own transport, then reads again. */
#ifndef WG_REMOTE_PROMISOR_FETCH_H
#define WG_REMOTE_PROMISOR_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "remote/operation.h"
#include "repo/repo.h"
#include "util/buf.h"

/* Whether the repository has a promisor remote (is a partial clone), and
 * its name in *name (optional): as git's promisor-remote.c, the remote
 * extensions.partialClone names, else the first remote (in config order)
 * with remote.<name>.promisor true. git 2.53's own partial clones write
 * only the latter. */
bool wg_repo_promisor_remote(struct wg_repo *repo, struct wg_buf *name);

int wg_promisor_fetch_new(struct wg_remote_op **out, struct wg_repo *repo,
			  const struct wg_oid *oids, size_t noids);
const char *wg_promisor_fetch_url(struct wg_remote_op *op);

#endif
