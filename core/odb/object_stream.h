/* An object read as a stream: its content in pieces of the caller's size,
 * so that a checkout writes a blob to disk without holding it whole (git's
 * streaming.c does the same for loose objects and undeltified pack
 * entries).
 *
 * Where an object can only be had whole (a pack delta needs its base and
 * the delta applied in memory, as in git; a promisor backend), the odb
 * reads it whole once and serves the stream from that buffer: the caller's
 * code is the same either way, and memory is bounded by max_object_size,
 * as every read is.
 *
 * The content is checked as it is read: the zlib stream must produce
 * exactly the declared size and end there, and a loose object's bytes
 * must hash to its id. A read returns 0 bytes only at the end and only
 * after those checks passed; a mismatch found at the end is an error from
 * that last read, so a caller that writes as it reads must treat what it
 * wrote as garbage until the end is reached. */
#ifndef WG_ODB_OBJECT_STREAM_H
#define WG_ODB_OBJECT_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "object/object.h"
#include "util/limits.h"

struct wg_odb;

struct wg_object_stream {
	enum wg_object_type type;
	uint64_t size;
	/* Up to cap (> 0) bytes into buf; *got is 0 only at the end. */
	int (*read)(struct wg_object_stream *s, void *buf, size_t cap, size_t *got);
	void (*free)(struct wg_object_stream *s);
};

/* Open the object `oid` for reading: WG_ENOTFOUND (after the missing-object
 * handler, as wg_odb_read) when no backend has it. */
int wg_odb_open_stream(struct wg_object_stream **out, struct wg_odb *odb,
		       const struct wg_oid *oid);
int wg_object_stream_read(struct wg_object_stream *s, void *buf, size_t cap, size_t *got);
void wg_object_stream_free(struct wg_object_stream *s);

/* For backends. A stream over a buffer the stream now owns (wg_malloc'ed;
 * freed with the stream, even when this fails). */
int wg_object_stream_from_buffer(struct wg_object_stream **out, enum wg_object_type type,
				 void *data, size_t len);

/* A stream that inflates a zlib stream whose compressed bytes `fill`
 * provides (*got 0: no more input). With `loose_header`, the inflated
 * bytes start with a loose object's "<type> <size>\0" header, which sets
 * the type and size; else they are `type` and `size` as a pack entry
 * declares them. With `verify` (not NULL), the header and content must
 * hash to it. `fill_free` releases the payload with the stream. */
struct wg_zstream_source {
	int (*fill)(void *payload, unsigned char *buf, size_t cap, size_t *got);
	void (*fill_free)(void *payload);
	void *payload;
};
int wg_object_stream_inflate(struct wg_object_stream **out, const struct wg_zstream_source *src,
			     int loose_header, enum wg_object_type type, uint64_t size,
			     const struct wg_oid *verify, const struct wg_hash_algo *algo,
			     const struct wg_limits *limits, const char *what);

#endif
