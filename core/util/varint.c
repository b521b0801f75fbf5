#include "util/varint.h"

#include <string.h>

#include "util/error.h"

int wg_varint_le_decode(const unsigned char *in, size_t avail, uint64_t *out)
{
	uint64_t value = 0;
	unsigned shift = 0;
	size_t i;
	for (i = 0; i < avail; i++) {
		uint64_t bits = in[i] & 0x7f;
		if (shift >= 64 || (shift > 57 && (bits >> (64 - shift))))
			return wg_error_set(WG_ECORRUPT, "variable-length integer overflows 64 bits");
		value |= bits << shift;
		shift += 7;
		if (!(in[i] & 0x80)) {
			*out = value;
			return (int)(i + 1);
		}
	}
	return 0;
}

size_t wg_varint_le_encode(unsigned char *out, uint64_t value)
{
	size_t n = 0;
	do {
		unsigned char b = value & 0x7f;
		value >>= 7;
		out[n++] = (unsigned char)(b | (value ? 0x80 : 0));
	} while (value);
	return n;
}

int wg_varint_ofs_decode(const unsigned char *in, size_t avail, uint64_t *out)
{
	uint64_t value;
	size_t i = 0;
	if (!avail)
		return 0;
	value = in[0] & 0x7f;
	while (in[i] & 0x80) {
		if (++i >= avail)
			return 0;
		value += 1;
		if (!value || (value >> 57))
			return wg_error_set(WG_ECORRUPT, "offset-encoded integer overflows 64 bits");
		value = (value << 7) | (in[i] & 0x7f);
	}
	*out = value;
	return (int)(i + 1);
}

size_t wg_varint_ofs_encode(unsigned char *out, uint64_t value)
{
	unsigned char tmp[WG_VARINT_MAX];
	size_t pos = sizeof(tmp) - 1;
	tmp[pos] = value & 0x7f;
	while (value >>= 7)
		tmp[--pos] = (unsigned char)(0x80 | (--value & 0x7f));
	memcpy(out, tmp + pos, sizeof(tmp) - pos);
	return sizeof(tmp) - pos;
}
