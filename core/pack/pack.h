/* Random access to the objects of a pack (.pack) through its index (.idx).
 *
 * Reads use pread() on a file descriptor (no mmap), which behaves the same
 * natively, on Emscripten's MEMFS/IDBFS and under Node.
 *
 * Delta chains are walked iteratively: the chain of entries is collected
 * from the object down to its non-delta base (a chain longer than the
 * pack's object count is a cycle and is refused), then deltas are applied
 * upwards. Inflated bases are kept in a small per-pack cache bounded in
 * bytes (wg_pack_set_cache_limit), so siblings of one chain do not
 * re-inflate it.
 *
 * Hash verification policy: reads do NOT rehash objects. A pack is trusted
 * once its index has been accepted, as git does: packs that webgit
 * receives are indexed by wg_indexer, which hashes every object and checks
 * the pack checksum before the pack becomes visible, and packs written by
 * git were verified the same way by git. Every size, offset and delta is
 * still checked on each read, so a damaged file gives WG_ECORRUPT, never
 * a crash. `webgit verify-pack` (the indexer over the pack) rehashes all. */
#ifndef WG_PACK_PACK_H
#define WG_PACK_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "object/object.h"
#include "pack/idx.h"
#include "pack/pack_source.h"
#include "util/buf.h"
#include "util/limits.h"

struct wg_pack;

/* The default bound of the inflated-base cache, per pack. */
#define WG_PACK_CACHE_DEFAULT ((size_t)16 << 20)

/* Open the pack whose index is `idx_path` ("<name>.idx"; the pack is
 * "<name>.pack"). Checks the pack header, that its object count matches
 * the index, and that its trailing checksum is the one the index records. */
int wg_pack_open(struct wg_pack **out, const char *idx_path, const struct wg_hash_algo *algo);
void wg_pack_free(struct wg_pack *pack);

const struct wg_pack_idx *wg_pack_index(const struct wg_pack *pack);
const char *wg_pack_path(const struct wg_pack *pack);
/* Size of the .pack file in bytes. */
uint64_t wg_pack_size(const struct wg_pack *pack);
void wg_pack_set_cache_limit(struct wg_pack *pack, size_t bytes);
/* The limits reads honour (max_object_size, max_inflate_ratio); the
 * pointer is kept. NULL: the process-wide defaults. */
void wg_pack_set_limits(struct wg_pack *pack, const struct wg_limits *limits);

/* Read an object: WG_ENOTFOUND if this pack does not hold it. */
int wg_pack_read(struct wg_pack *pack, const struct wg_oid *oid,
		 enum wg_object_type *type_out, struct wg_buf *out);
/* The entry that holds oid as it is stored: its type (a delta type for
 * a delta), the size its header declares, where its zlib stream starts and
 * where the pack's object data ends (a stream reader must stop there).
 * WG_ENOTFOUND if this pack does not hold it. */
int wg_pack_entry_of(struct wg_pack *pack, const struct wg_oid *oid,
		     enum wg_object_type *type_out, uint64_t *size_out,
		     uint64_t *data_offset_out, uint64_t *data_end_out);
/* Type and size, inflating at most a delta's first bytes (never a whole
 * object). */
int wg_pack_read_header(struct wg_pack *pack, const struct wg_oid *oid,
			enum wg_object_type *type_out, size_t *size_out);
/* Read the object whose entry starts at `offset`. */
int wg_pack_read_at(struct wg_pack *pack, uint64_t offset,
		    enum wg_object_type *type_out, struct wg_buf *out);

/* Shared with the indexer: inflate the zlib stream that starts at
 * `offset` in src (which must end before `limit`) and must produce exactly
 * `size` bytes, into out (reset first). With `prefix` non-zero, stop after
 * min(prefix, size) bytes instead and do not check the stream's end.
 * WG_ECORRUPT if the stream is shorter, longer, or broken. Memory grows
 * with what the stream produces, never straight to the declared size. */
int wg_pack_inflate_at(struct wg_buf *out, const struct wg_pack_source *src, uint64_t offset,
		       uint64_t limit, uint64_t size, size_t prefix);

/* The same, refusing with WG_ELIMIT a size over limits->max_object_size
 * (unless `prefix`) and output beyond limits->max_inflate_ratio. */
int wg_pack_inflate_limited(struct wg_buf *out, const struct wg_pack_source *src,
			    uint64_t offset, uint64_t limit, uint64_t size, size_t prefix,
			    const struct wg_limits *limits);

#endif
