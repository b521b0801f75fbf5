/* The packfile wire and disk format (Documentation/gitformat-pack.adoc):
 * constants and the small encoders/decoders that both the reader, the
 * streaming indexer and the writer use. */
#ifndef WG_PACK_PACK_FORMAT_H
#define WG_PACK_PACK_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "object/object.h"

#define WG_PACK_SIGNATURE 0x5041434bu      /* "PACK" */
#define WG_PACK_HEADER_SIZE 12
#define WG_PACK_IDX_SIGNATURE 0xff744f63u  /* "\377tOc" */
#define WG_PACK_REV_SIGNATURE 0x52494458u  /* "RIDX" */
/* The longest object entry header: 1 byte + ceil((64 - 4) / 7) bytes. */
#define WG_PACK_OBJ_HEADER_MAX 10
/* In idx v2 a 32-bit offset with this bit set indexes the 64-bit table. */
#define WG_PACK_IDX_OFFSET64_FLAG 0x80000000u

/* Parse the 12-byte pack header. Returns 0, or WG_ECORRUPT (bad signature,
 * a version other than 2 or 3). */
int wg_pack_header_parse(const unsigned char *p, uint32_t *version, uint32_t *count);
void wg_pack_header_write(unsigned char out[WG_PACK_HEADER_SIZE], uint32_t count);

/* Decode an object entry header: type (1-4, 6, 7) and inflated size.
 * Returns the bytes consumed (>0), 0 if more input is needed, or
 * WG_ECORRUPT (type 0 or 5, size beyond 64 bits). */
int wg_pack_object_header_decode(const unsigned char *p, size_t avail,
				 enum wg_object_type *type, uint64_t *size);
/* Encode one; returns the length written into out. */
size_t wg_pack_object_header_encode(unsigned char out[WG_PACK_OBJ_HEADER_MAX],
				    enum wg_object_type type, uint64_t size);

#endif
