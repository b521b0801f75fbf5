/* The two variable-length integer encodings Git uses.
 *
 * "le" is little-endian base-128 (7 bits a byte, high bit = more): the
 * source and result sizes at the start of a delta.
 * "ofs" is Git's big-endian offset encoding, where each continuation also
 * adds one so that every value has exactly one encoding: OFS_DELTA base
 * offsets in packs and path prefix lengths in index v4.
 *
 * Decoders return the number of bytes consumed (>0), 0 if the input ended
 * before the number did (feed more), or WG_ECORRUPT if the value does not
 * fit in 64 bits. Encoders return the number of bytes written into `out`,
 * which must hold WG_VARINT_MAX bytes. */
#ifndef WG_UTIL_VARINT_H
#define WG_UTIL_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define WG_VARINT_MAX 10

int wg_varint_le_decode(const unsigned char *in, size_t avail, uint64_t *out);
size_t wg_varint_le_encode(unsigned char *out, uint64_t value);

int wg_varint_ofs_decode(const unsigned char *in, size_t avail, uint64_t *out);
size_t wg_varint_ofs_encode(unsigned char *out, uint64_t value);

#endif
