/* Lower-case hexadecimal encoding, as Git prints object ids. */
#ifndef WG_UTIL_HEX_H
#define WG_UTIL_HEX_H

#include <stddef.h>

/* Write 2*len hex digits and a NUL to out (which holds 2*len+1 bytes). */
void wg_hex_encode(char *out, const unsigned char *in, size_t len);
/* Decode 2*len hex digits (either case) into len bytes. Returns 0, or -1 if
 * any character is not a hex digit (out is then unspecified). */
int wg_hex_decode(unsigned char *out, const char *in, size_t len);
/* The value of one hex digit, or -1. */
int wg_hex_value(int ch);

#endif
