/* Resolve-undo (the REUC extension, gitformat-index(5)): the conflict
 * stages 1-3 of paths whose conflict was resolved, kept so that the
 * conflict can be recreated. Read and written back unchanged. */
#ifndef WG_INDEX_RESOLVE_UNDO_H
#define WG_INDEX_RESOLVE_UNDO_H

#include <stddef.h>
#include <stdint.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "util/buf.h"

struct wg_resolve_undo_entry {
	char *path;
	uint32_t mode[3];          /* stages 1-3; 0: the stage is missing */
	struct wg_oid oid[3];
};

struct wg_resolve_undo {
	struct wg_resolve_undo_entry *v;
	size_t nr, alloc;
};

int wg_resolve_undo_parse(struct wg_resolve_undo **out, const struct wg_hash_algo *algo,
			  const unsigned char *data, size_t len);
int wg_resolve_undo_serialize(struct wg_buf *out, const struct wg_resolve_undo *ru);
void wg_resolve_undo_free(struct wg_resolve_undo *ru);

#endif
