/* Object types and the object-id computation shared by every object kind. */
#ifndef WG_OBJECT_OBJECT_H
#define WG_OBJECT_OBJECT_H

#include <stddef.h>

#include "hash/oid.h"

/* Values are Git's pack type numbers. */
enum wg_object_type {
	WG_OBJ_BAD = -1,
	WG_OBJ_NONE = 0,
	WG_OBJ_COMMIT = 1,
	WG_OBJ_TREE = 2,
	WG_OBJ_BLOB = 3,
	WG_OBJ_TAG = 4,
	WG_OBJ_OFS_DELTA = 6,
	WG_OBJ_REF_DELTA = 7,
};

/* "commit", "tree", "blob", "tag"; NULL for anything else. */
const char *wg_object_type_name(enum wg_object_type type);
/* Parse a type name of `len` bytes; WG_OBJ_BAD if it is not one of the four. */
enum wg_object_type wg_object_type_from_name(const char *name, size_t len);

/* The "<type> <size>\0" header Git hashes before the content. Writes into
 * out (at least 32 bytes) and returns its length including the NUL. */
size_t wg_object_header(char *out, enum wg_object_type type, size_t size);

/* The id of an object: hash of header + content. WG_ECOLLISION when SHA-1
 * collision detection fires. */
int wg_object_hash(struct wg_oid *out, const struct wg_hash_algo *algo,
		   enum wg_object_type type, const void *data, size_t len);

#endif
