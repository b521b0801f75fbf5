#include "util/hex.h"

void wg_hex_encode(char *out, const unsigned char *in, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;
	for (i = 0; i < len; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * len] = '\0';
}

int wg_hex_value(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int wg_hex_decode(unsigned char *out, const char *in, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++) {
		int hi = wg_hex_value((unsigned char)in[2 * i]);
		int lo = hi < 0 ? -1 : wg_hex_value((unsigned char)in[2 * i + 1]);
		if (lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}
