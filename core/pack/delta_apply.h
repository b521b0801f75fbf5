/* Applying a Git delta (Documentation/gitformat-pack.adoc, "Deltified
 * representation"): a base size and a result size as little-endian
 * base-128 numbers, then copy (from the base) and insert (literal)
 * instructions.
 *
 * Deltas come from the network, so nothing they say is believed before it
 * is checked: the declared base size must equal the base given, every copy
 * must lie inside the base, and the instructions are walked once without
 * writing to prove they produce exactly the declared result size before
 * the result is allocated. A delta that claims a 4 GiB result but carries
 * instructions for a few bytes therefore fails without allocating. */
#ifndef WG_PACK_DELTA_APPLY_H
#define WG_PACK_DELTA_APPLY_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Decode the two sizes at the start of a delta. *hdrlen receives the
 * bytes they take. WG_ECORRUPT if the delta is too short or a size
 * overflows 64 bits. */
int wg_delta_sizes(const unsigned char *delta, size_t len, uint64_t *base_size,
		   uint64_t *result_size, size_t *hdrlen);

/* Check a delta against a base of base_len bytes without producing
 * anything; *result_size receives the size it produces. */
int wg_delta_check(const unsigned char *delta, size_t delta_len, size_t base_len,
		   size_t *result_size);

/* Apply: out is reset and receives the result. max_result (0 = no limit
 * other than the address space; callers pass limits.max_object_size)
 * refuses a larger declared result with WG_ELIMIT before allocating. */
int wg_delta_apply(struct wg_buf *out, const unsigned char *base, size_t base_len,
		   const unsigned char *delta, size_t delta_len, size_t max_result);

#endif
