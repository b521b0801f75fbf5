/* The object database: an ordered list of backends behind one interface.
 * Reads try each backend in priority order; writes go to the first backend
 * that can write. */
#ifndef WG_ODB_ODB_H
#define WG_ODB_ODB_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "object/object.h"
#include "odb/odb_backend.h"
#include "pack/object_source.h"
#include "util/buf.h"

struct wg_odb;

int wg_odb_new(struct wg_odb **out, const struct wg_hash_algo *algo);
void wg_odb_free(struct wg_odb *odb);
const struct wg_hash_algo *wg_odb_algo(const struct wg_odb *odb);
/* The limits reads and walks of this odb honour (util/limits.h): a copy of
 * the process-wide defaults when the odb is made; a repository applies its
 * config (core.maxTreeDepth). set(NULL) restores the defaults. */
const struct wg_limits *wg_odb_limits(const struct wg_odb *odb);
void wg_odb_set_limits(struct wg_odb *odb, const struct wg_limits *limits);

/* Add a backend; the odb owns it from now on (even when this fails).
 * Higher priority is asked first; equal priorities keep insertion order. */
int wg_odb_add_backend(struct wg_odb *odb, struct wg_odb_backend *backend, int priority);

/* Called when a read (wg_odb_read, wg_odb_read_header) finds an object in
 * no backend: a partial clone's driver may fetch it from the promisor
 * remote; return 0 to have the read tried once more, or an error code to
 * return. A native driver can fetch right away; one that cannot block
 * (JavaScript) leaves no handler, lets the read fail with WG_ENOTFOUND,
 * fetches wg_odb_last_missing() and calls again. Not called from inside
 * itself, nor by wg_odb_exists(). */
typedef int (*wg_odb_missing_fn)(struct wg_odb *odb, const struct wg_oid *oid, void *payload);
void wg_odb_set_missing_handler(struct wg_odb *odb, wg_odb_missing_fn fn, void *payload);
/* The id the last failed read was looking for. */
const struct wg_oid *wg_odb_last_missing(const struct wg_odb *odb);

/* Read a whole object into out (which is reset first). WG_ENOTFOUND if no
 * backend has it. */
int wg_odb_read(struct wg_odb *odb, const struct wg_oid *oid,
		enum wg_object_type *type_out, struct wg_buf *out);
/* Type and size without the content where the backend allows it. */
int wg_odb_read_header(struct wg_odb *odb, const struct wg_oid *oid,
		       enum wg_object_type *type_out, size_t *size_out);
/* The database as the pack layer reads it (thin-pack bases, the objects a
 * pack writer packs); valid while odb is. */
struct wg_object_source wg_odb_object_source(struct wg_odb *odb);
/* 1 if present, 0 if absent, negative on error. */
int wg_odb_exists(struct wg_odb *odb, const struct wg_oid *oid);

/* Hash and store an object; the id goes to out (may be NULL). Storing an
 * object that exists already is a no-op. No validation: callers that take
 * objects from outside run wg_fsck_object first. */
int wg_odb_write(struct wg_odb *odb, enum wg_object_type type, const void *data,
		 size_t len, struct wg_oid *out);

/* Every object of every backend (duplicates possible across backends). */
int wg_odb_foreach(struct wg_odb *odb, wg_odb_foreach_cb cb, void *payload);

/* Expand a hex prefix (at least 4 digits) to the one object it names:
 * WG_ENOTFOUND if none, WG_EAMBIGUOUS if several. */
int wg_odb_resolve_prefix(struct wg_odb *odb, const char *hex, size_t len, struct wg_oid *out);

#endif
