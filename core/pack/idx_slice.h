/* Reading a pack index a few bytes at a time, for a reader that cannot
 * afford the whole file (core/remote/static_read.c fetches just these
 * slices with HTTP Range requests). The layout is gitformat-pack.adoc's
 * "pack-*.idx files":
 *
 *   v1: fanout[256] | count x (4-byte offset, id) | pack hash | idx hash
 *   v2: "\377tOc" 2 | fanout[256] | count ids | count CRC-32s |
 *       count 4-byte offsets | 8-byte offsets | pack hash | idx hash
 *
 * A lookup reads the head (WG_IDX_HEAD_SIZE bytes: enough for the fanout
 * of either version), then the "records" of one fanout bucket (ids in v2,
 * offset-and-id entries in v1), then in v2 the object's 4-byte offset and,
 * when its high bit is set, its 8-byte one. Every number that comes from
 * the file is checked before it becomes a position to read; what the
 * index does not say about itself (its size) is checked by the reads
 * coming back short. idx.h reads a whole index from memory instead. */
#ifndef WG_PACK_IDX_SLICE_H
#define WG_PACK_IDX_SLICE_H

#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"

#define WG_IDX_HEAD_SIZE (8 + 256 * 4)

struct wg_idx_head {
	unsigned version;           /* 1 or 2 */
	uint32_t count;
	uint32_t fanout[256];
	size_t rawsz;
};

/* Parse the first `len` (>= WG_IDX_HEAD_SIZE, or the whole file if it is
 * shorter) bytes. WG_ECORRUPT for a short file or a fanout that
 * decreases, WG_EUNSUPPORTED for a version other than 1 and 2. `name`
 * goes into messages. */
int wg_idx_head_parse(struct wg_idx_head *out, const unsigned char *p, size_t len,
		      const struct wg_hash_algo *algo, const char *name);
/* The positions [*lo, *hi) of the ids that start with byte `first`. */
void wg_idx_bucket(const struct wg_idx_head *h, unsigned first, uint32_t *lo, uint32_t *hi);
/* The file offset of position pos's record, and the size of one. */
uint64_t wg_idx_record_at(const struct wg_idx_head *h, uint32_t pos);
size_t wg_idx_record_size(const struct wg_idx_head *h);
/* The raw id in a record. */
const unsigned char *wg_idx_record_id(const struct wg_idx_head *h, const unsigned char *record);
/* Binary search records [lo, hi) (records points at lo's) for oid:
 * 0 with *pos, or WG_ENOTFOUND. */
int wg_idx_records_find(const struct wg_idx_head *h, const unsigned char *records, uint32_t lo,
			uint32_t hi, const struct wg_oid *oid, uint32_t *pos);
/* v1: the pack offset in a record. v2: the file offset of position pos's
 * 4-byte offset (4 bytes to read). */
uint32_t wg_idx_record_offset_v1(const unsigned char *record);
uint64_t wg_idx_offset32_at(const struct wg_idx_head *h, uint32_t pos);
/* A v2 4-byte offset: 0 with the pack offset in *offset, or 1 when it
 * refers to the 8-byte table, whose entry (8 bytes) is at file offset
 * *large_at. WG_ECORRUPT for a reference past any possible table. */
int wg_idx_offset32_decode(const struct wg_idx_head *h, uint32_t value, uint64_t *offset,
			   uint64_t *large_at);

#endif
