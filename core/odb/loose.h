/* Loose objects: one zlib-deflated "<type> <size>\0<content>" file per
 * object under objects/xx/yyyy..., exactly as Git stores them. */
#ifndef WG_ODB_LOOSE_H
#define WG_ODB_LOOSE_H

#include <stdbool.h>

#include "odb/odb_backend.h"

struct wg_odb_loose_options {
	unsigned version;
	int compression_level;  /* zlib level; Git's default for loose is 1 */
	bool fsync;             /* fsync each object before it becomes visible */
};
#define WG_ODB_LOOSE_OPTIONS_INIT { 1, 1, false }

/* A backend over `objects_dir` (which need not exist until the first
 * write). opts may be NULL for the defaults. */
int wg_odb_loose_new(struct wg_odb_backend **out, const char *objects_dir,
		     const struct wg_hash_algo *algo, const struct wg_odb_loose_options *opts);

/* Parse a loose-object header "<type> <size>" (without its NUL) of hdrlen
 * bytes. Exposed for tests and for tools that inspect objects. */
int wg_loose_parse_header(const char *hdr, size_t hdrlen, enum wg_object_type *type_out,
			  size_t *size_out);

/* Inflate a whole loose object file of len bytes held in memory: out is
 * reset and receives the content, *type_out its type. Checks the header,
 * that the content has exactly the size it declares and that nothing
 * follows the zlib stream; does not hash (the caller knows which id it
 * expects). `limits` (NULL: the defaults) bound the declared size and the
 * inflate ratio (WG_ELIMIT). WG_ECORRUPT with a message otherwise. */
int wg_loose_inflate(const void *data, size_t len, const struct wg_limits *limits,
		     enum wg_object_type *type_out, struct wg_buf *out);

#endif
