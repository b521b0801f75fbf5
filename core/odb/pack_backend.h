/* Packed objects: a read-only backend over every objects/pack/pack-*.idx
 * (with its .pack) of a repository. Packs that appear later (a fetch, a
 * repack, another process) are picked up when a lookup misses and the
 * directory has changed, as git re-scans its packs. */
#ifndef WG_ODB_PACK_BACKEND_H
#define WG_ODB_PACK_BACKEND_H

#include "odb/odb_backend.h"

/* A backend over `pack_dir` (usually "<gitdir>/objects/pack"; it need not
 * exist yet). */
int wg_odb_pack_new(struct wg_odb_backend **out, const char *pack_dir,
		    const struct wg_hash_algo *algo);

/* Re-scan the directory now (new packs become readable, removed ones are
 * dropped). */
int wg_odb_pack_refresh(struct wg_odb_backend *backend);

#endif
