#include "pack/pack_format.h"

#include "util/endian.h"
#include "util/error.h"

int wg_pack_header_parse(const unsigned char *p, uint32_t *version, uint32_t *count)
{
	if (wg_get_be32(p) != WG_PACK_SIGNATURE)
		return wg_error_set(WG_ECORRUPT, "not a pack: bad signature");
	*version = wg_get_be32(p + 4);
	if (*version != 2 && *version != 3)
		return wg_error_set(WG_ECORRUPT, "pack version %u is not supported", *version);
	*count = wg_get_be32(p + 8);
	return 0;
}

void wg_pack_header_write(unsigned char out[WG_PACK_HEADER_SIZE], uint32_t count)
{
	wg_put_be32(out, WG_PACK_SIGNATURE);
	wg_put_be32(out + 4, 2);
	wg_put_be32(out + 8, count);
}

int wg_pack_object_header_decode(const unsigned char *p, size_t avail,
				 enum wg_object_type *type, uint64_t *size)
{
	uint64_t value;
	unsigned shift = 4;
	size_t i = 0;
	int t;
	if (!avail)
		return 0;
	t = (p[0] >> 4) & 7;
	if (t == 0 || t == 5)
		return wg_error_set(WG_ECORRUPT, "pack object has invalid type %d", t);
	value = p[0] & 15;
	while (p[i] & 0x80) {
		uint64_t bits;
		if (++i >= avail)
			return 0;
		bits = p[i] & 0x7f;
		if (shift >= 64 || (shift > 57 && (bits >> (64 - shift))))
			return wg_error_set(WG_ECORRUPT, "pack object size overflows 64 bits");
		value |= bits << shift;
		shift += 7;
	}
	*type = (enum wg_object_type)t;
	*size = value;
	return (int)(i + 1);
}

size_t wg_pack_object_header_encode(unsigned char out[WG_PACK_OBJ_HEADER_MAX],
				    enum wg_object_type type, uint64_t size)
{
	size_t n = 0;
	unsigned char c = (unsigned char)(((unsigned)type & 7) << 4 | (size & 15));
	size >>= 4;
	while (size) {
		out[n++] = c | 0x80;
		c = size & 0x7f;
		size >>= 7;
	}
	out[n++] = c;
	return n;
}
