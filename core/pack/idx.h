/* Reading pack indexes (.idx), versions 1 and 2 (gitformat-pack.adoc,
 * "pack-*.idx files"): a 256-entry fanout, sorted object ids, CRC-32s
 * (v2), 32-bit offsets with an optional 64-bit table (v2), the pack's
 * checksum and the index's own checksum.
 *
 * The whole file is read into memory and its layout is validated when it
 * is opened: the size must match the object count exactly, the fanout must
 * not decrease, and every 64-bit offset reference must point into the
 * table. The trailing checksums are checked only by
 * wg_pack_idx_verify() (git likewise trusts an index until verify-pack). */
#ifndef WG_PACK_IDX_H
#define WG_PACK_IDX_H

#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"

struct wg_pack_idx;

/* Open and validate the index at `path`. WG_ENOTFOUND if it is missing,
 * WG_ECORRUPT if it is malformed. */
int wg_pack_idx_open(struct wg_pack_idx **out, const char *path, const struct wg_hash_algo *algo);
/* The same from bytes in memory (copied). `name` is used in messages. */
int wg_pack_idx_parse(struct wg_pack_idx **out, const unsigned char *data, size_t len,
		      const struct wg_hash_algo *algo, const char *name);
void wg_pack_idx_free(struct wg_pack_idx *idx);

const struct wg_hash_algo *wg_pack_idx_algo(const struct wg_pack_idx *idx);
unsigned wg_pack_idx_version(const struct wg_pack_idx *idx);
uint32_t wg_pack_idx_count(const struct wg_pack_idx *idx);
/* The pack's trailing checksum as recorded in the index (rawsz bytes). */
const unsigned char *wg_pack_idx_pack_hash(const struct wg_pack_idx *idx);

/* Position (0..count-1, in id order) of an object: 0, or WG_ENOTFOUND. */
int wg_pack_idx_find(const struct wg_pack_idx *idx, const struct wg_oid *oid, uint32_t *pos);
void wg_pack_idx_oid_at(const struct wg_pack_idx *idx, uint32_t pos, struct wg_oid *out);
uint64_t wg_pack_idx_offset_at(const struct wg_pack_idx *idx, uint32_t pos);
/* CRC-32 of the entry (v2 only; WG_EUNSUPPORTED for v1). */
int wg_pack_idx_crc_at(const struct wg_pack_idx *idx, uint32_t pos, uint32_t *crc);

/* The positions [*first, *end) of the ids that start with the first
 * hexlen hex digits of `prefix` (raw bytes; an odd last digit is in the
 * high nibble). Binary search, no scan. */
void wg_pack_idx_prefix_range(const struct wg_pack_idx *idx, const unsigned char *prefix,
			      size_t hexlen, uint32_t *first, uint32_t *end);

/* Check the index's own trailing checksum and that ids are strictly
 * increasing. */
int wg_pack_idx_verify(const struct wg_pack_idx *idx);

#endif
