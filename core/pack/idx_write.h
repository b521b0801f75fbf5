/* Writing pack indexes: .idx version 2 (with the 64-bit offset table for
 * packs over 2 GiB) and the .rev reverse index, byte-identical to what
 * `git index-pack` writes for the same pack. Used by the streaming indexer
 * and by the pack writer. */
#ifndef WG_PACK_IDX_WRITE_H
#define WG_PACK_IDX_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "util/buf.h"

struct wg_pack_idx_entry {
	struct wg_oid oid;
	uint64_t offset;  /* of the object's entry header in the pack */
	uint32_t crc32;   /* CRC-32 of the entry's raw bytes in the pack */
	uint32_t tag;     /* the caller's (e.g. its own number of the object):
			   * moves with the entry when sorted, written nowhere */
};

/* Sort entries by object id (Git's idx order). WG_ECORRUPT if two entries
 * have the same id (a pack must not hold an object twice). */
int wg_pack_idx_sort(struct wg_pack_idx_entry *entries, size_t n);

/* Append an idx v2 for `n` entries sorted with wg_pack_idx_sort() to out.
 * pack_hash is the pack's trailing checksum (algo->rawsz bytes). */
int wg_pack_idx_write(struct wg_buf *out, const struct wg_hash_algo *algo,
		      const struct wg_pack_idx_entry *entries, size_t n,
		      const unsigned char *pack_hash);

/* Append a .rev file (RIDX version 1) for the same sorted entries. */
int wg_pack_rev_write(struct wg_buf *out, const struct wg_hash_algo *algo,
		      const struct wg_pack_idx_entry *entries, size_t n,
		      const unsigned char *pack_hash);

/* The same .rev from what it holds, when the caller knows it without a
 * sort: for each object in pack order (ascending offsets), its position
 * in the idx (`positions`, n of them). The indexer's objects are in pack
 * order already, and sorting 175k entries by offset again cost it a tenth
 * of a clone's finish in WebAssembly. */
int wg_pack_rev_write_positions(struct wg_buf *out, const struct wg_hash_algo *algo,
				const uint32_t *positions, size_t n,
				const unsigned char *pack_hash);

#endif
