/* The object database backend interface ("sys" header for people who write
 * backends: loose, pack, memory, promisor).
 *
 * A backend embeds `struct wg_odb_backend` as its first member and fills in
 * the function pointers it supports. Contracts:
 * - read MUST return WG_ENOTFOUND (without a message of its own being
 *   important) when the object is absent, so that the odb can ask the next
 *   backend; any other negative code is a real failure (corruption, I/O).
 * - read MUST verify that the content hashes to the requested id, or
 *   document why that is guaranteed (a pack whose index was verified).
 * - write MAY be NULL (read-only backend). It MUST make the object visible
 *   atomically: a reader sees it whole or not at all.
 * - exists returns 1 (present), 0 (absent) or a negative error.
 * - foreach calls cb for every object (order unspecified); a non-zero return
 *   from cb stops the walk and is returned. With a prefix (raw bytes of the
 *   first prefix_hexlen hex digits) it MAY skip objects that do not start
 *   with it (a loose backend reads one fan-out directory, a pack one fanout
 *   range); callers still check every id they are given.
 * - open_stream (version 2) MAY be NULL, and MAY return WG_EUNSUPPORTED
 *   for an object it can only read whole (a pack delta): the odb then
 *   reads it whole with read. It returns WG_ENOTFOUND as read does, and
 *   its stream MUST check what read checks (odb/object_stream.h). */
#ifndef WG_ODB_ODB_BACKEND_H
#define WG_ODB_ODB_BACKEND_H

#include <stddef.h>

#include "hash/oid.h"
#include "object/object.h"
#include "util/buf.h"
#include "util/limits.h"

#define WG_ODB_BACKEND_VERSION 2

struct wg_object_stream;

typedef int (*wg_odb_foreach_cb)(const struct wg_oid *oid, void *payload);

struct wg_odb_backend {
	unsigned version;
	const char *name;  /* "loose", "pack", ...: used in messages */
	int (*read)(struct wg_odb_backend *backend, const struct wg_oid *oid,
		    enum wg_object_type *type_out, struct wg_buf *out);
	int (*read_header)(struct wg_odb_backend *backend, const struct wg_oid *oid,
			   enum wg_object_type *type_out, size_t *size_out);
	int (*exists)(struct wg_odb_backend *backend, const struct wg_oid *oid);
	int (*write)(struct wg_odb_backend *backend, const struct wg_oid *oid,
		     enum wg_object_type type, const void *data, size_t len);
	int (*foreach)(struct wg_odb_backend *backend, const unsigned char *prefix,
		       size_t prefix_hexlen, wg_odb_foreach_cb cb, void *payload);
	void (*free)(struct wg_odb_backend *backend);
	int (*open_stream)(struct wg_odb_backend *backend, const struct wg_oid *oid,
			   struct wg_object_stream **out);
	/* Set by wg_odb_add_backend to the odb's limits (util/limits.h);
	 * NULL (a backend used alone) means the process-wide defaults. A
	 * read MUST refuse with WG_ELIMIT an object larger than
	 * max_object_size or inflating beyond max_inflate_ratio. */
	const struct wg_limits *limits;
};

#endif
