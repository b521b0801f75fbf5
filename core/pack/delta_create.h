/* Creating a Git delta (Documentation/gitformat-pack.adoc, "Deltified
 * representation"): the instructions that rebuild a target from a source
 * by copying ranges of the source and inserting literal bytes.
 *
 * The source is indexed once (fingerprints of fixed 16-byte blocks in a
 * hash table) and the index is reused against many targets, which is how a
 * pack writer tries one base against a window of candidates. Matching is
 * greedy: each target position is looked up, the longest verified match is
 * extended forward, then backward over bytes not yet emitted, and emitted
 * as copy instructions; everything else becomes inserts.
 *
 * The output is exactly the format wg_delta_apply() (delta_apply.h) reads:
 * source and result sizes as little-endian base-128 numbers, then copy
 * instructions (offset and size byte masks; a copy never exceeds 64 KiB so
 * every reader accepts it) and inserts of 1..127 literal bytes. */
#ifndef WG_PACK_DELTA_CREATE_H
#define WG_PACK_DELTA_CREATE_H

#include <stddef.h>

#include "util/buf.h"

/* Sources larger than this cannot be indexed: copy offsets have 32 bits. */
#define WG_DELTA_MAX_SOURCE 0xffffffffu

struct wg_delta_index;

/* Index `len` bytes of `src`. The index points into src, which must stay
 * alive and unchanged until the index is freed. An empty or tiny source
 * gives a valid index that finds nothing (the delta is all inserts).
 * WG_EUNSUPPORTED for a source over WG_DELTA_MAX_SOURCE bytes. */
int wg_delta_index_new(struct wg_delta_index **out, const void *src, size_t len);
void wg_delta_index_free(struct wg_delta_index *index);
/* Bytes of memory the index holds (not counting the source). */
size_t wg_delta_index_memsize(const struct wg_delta_index *index);
size_t wg_delta_index_source_size(const struct wg_delta_index *index);

/* Encode the delta from the indexed source to `target` into out (reset
 * first). With max_delta_size > 0, a delta that would be larger than that
 * is abandoned as soon as it is known to be, and WG_ENOTFOUND is returned
 * ("no delta worth having", not a failure: store the target whole). Other
 * negative codes are real failures (WG_ENOMEM). */
int wg_delta_create(struct wg_buf *out, const struct wg_delta_index *index,
		    const void *target, size_t len, size_t max_delta_size);

#endif
