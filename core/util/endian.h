/* Big-endian integers as Git's binary formats store them (pack, idx, rev,
 * reftable, index). Byte-wise, so alignment and host order never matter. */
#ifndef WG_UTIL_ENDIAN_H
#define WG_UTIL_ENDIAN_H

#include <stdint.h>

static inline uint16_t wg_get_be16(const unsigned char *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t wg_get_be24(const unsigned char *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t wg_get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t wg_get_be64(const unsigned char *p)
{
	return (uint64_t)wg_get_be32(p) << 32 | wg_get_be32(p + 4);
}

static inline void wg_put_be16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static inline void wg_put_be24(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 16);
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)v;
}

static inline void wg_put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static inline void wg_put_be64(unsigned char *p, uint64_t v)
{
	wg_put_be32(p, (uint32_t)(v >> 32));
	wg_put_be32(p + 4, (uint32_t)v);
}

#endif
