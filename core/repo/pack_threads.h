/* pack.threads: how many threads pack work may use (git reads it for
 * index-pack and pack-objects). */
#ifndef WG_REPO_PACK_THREADS_H
#define WG_REPO_PACK_THREADS_H

#include "repo/repo.h"

/* The configured count (repository, then user config), 0 when unset or 0:
 * "as many as the machine has", the indexer's 0. A negative or malformed
 * value is WG_EINVALID, as git dies on it. */
int wg_repo_pack_threads(struct wg_repo *repo, unsigned *out);

#endif
