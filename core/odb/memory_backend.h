/* Objects held in memory for one operation, seen through the odb like any
 * other: the working tree's versions of the files a diff compares (git's
 * pretend_object_file), so that rename detection, the binary check and the
 * patch read them by id without a special case, and nothing is written to
 * the repository.
 *
 * The backend is read-only through the odb (no write: wg_odb_write never
 * stores here); its owner adds objects with wg_memory_backend_add, which
 * hashes them, so a read returns what hashes to the id asked for (the
 * backend contract's MUST). */
#ifndef WG_ODB_MEMORY_BACKEND_H
#define WG_ODB_MEMORY_BACKEND_H

#include <stddef.h>

#include "hash/oid.h"
#include "odb/odb.h"
#include "odb/odb_backend.h"

struct wg_memory_backend;

int wg_memory_backend_new(struct wg_memory_backend **out, const struct wg_hash_algo *algo);
/* The backend to hand to wg_odb_add_backend (which then owns both). */
struct wg_odb_backend *wg_memory_backend_base(struct wg_memory_backend *m);
/* A new one added to `odb`, asked after its other backends; the odb owns
 * it, *out stays usable while the odb lives. */
int wg_memory_backend_attach(struct wg_memory_backend **out, struct wg_odb *odb);
/* Hash `data` as an object of `type` and keep a copy (an object already
 * held is kept once); its id to *out (may be NULL). */
int wg_memory_backend_add(struct wg_memory_backend *m, enum wg_object_type type, const void *data,
			  size_t len, struct wg_oid *out);
/* How many objects and bytes it holds. */
size_t wg_memory_backend_count(const struct wg_memory_backend *m);
size_t wg_memory_backend_bytes(const struct wg_memory_backend *m);

#endif
