/* SHA-256 with x86's SHA extensions (sha256_hw.h). The round constants
 * and initial values are FIPS 180-4's; the instructions do two rounds
 * each (sha256rnds2) on the state split as ABEF and CDGH, and the message
 * schedule four words at a time (sha256msg1 and sha256msg2). */
#include "hash/sha256_hw.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__EMSCRIPTEN__)
#define WG_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

#ifdef WG_SHA256_X86

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* n blocks of 64 bytes into h */
__attribute__((target("sha,sse4.1,ssse3")))
static void blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i t, abef, cdgh;

	/* h as the instructions hold it: ABEF and CDGH, A in the top lane */
	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);     /* B A D C */
	cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);  /* H G F E */
	abef = _mm_alignr_epi8(t, cdgh, 8);
	cdgh = _mm_blend_epi16(cdgh, t, 0xF0);
	for (; n; n--, p += 64) {
		__m128i w[4], save_abef = abef, save_cdgh = cdgh;
		for (int g = 0; g < 16; g++) {
			__m128i k;
			if (g < 4) {
				w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
			} else {
				/* W[t..t+3] from the sixteen words before them */
				__m128i w7 = _mm_alignr_epi8(w[(g - 1) & 3], w[(g - 2) & 3], 4);
				__m128i x = _mm_add_epi32(_mm_sha256msg1_epu32(w[g & 3], w[(g - 3) & 3]), w7);
				w[g & 3] = _mm_sha256msg2_epu32(x, w[(g - 1) & 3]);
			}
			k = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)&K[4 * g]));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k, 0x0E));
		}
		abef = _mm_add_epi32(abef, save_abef);
		cdgh = _mm_add_epi32(cdgh, save_cdgh);
	}
	/* back to A B C D, E F G H */
	t = _mm_shuffle_epi32(abef, 0x1B);          /* F E B A */
	cdgh = _mm_shuffle_epi32(cdgh, 0xB1);       /* D C H G */
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, cdgh, 0xF0));
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(cdgh, t, 8));
}

static bool cpu_has_sha(void)
{
	unsigned a, b, c, d;
	/* leaf 1: SSSE3 (ecx 9) and SSE4.1 (ecx 19); leaf 7: SHA (ebx 29) */
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
		return false;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (b >> 29) & 1;
}

#else

static void blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
	(void)h;
	(void)p;
	(void)n;
	abort();   /* never: wg_sha256_hw_available() said no */
}

static bool cpu_has_sha(void)
{
	return false;
}

#endif

bool wg_sha256_hw_available(void)
{
	static int known = -1;   /* a race here only asks the CPU twice */
	if (known < 0) {
		const char *env = getenv("WG_SHA256_HW");
		known = (env && !strcmp(env, "0")) ? 0 : cpu_has_sha();
	}
	return known == 1;
}

void wg_sha256_hw_init(struct wg_sha256_hw *c)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(c->h, iv, sizeof(iv));
	c->bytes = 0;
}

void wg_sha256_hw_update(struct wg_sha256_hw *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t have = (size_t)(c->bytes & 63);

	if (!len)
		return;   /* data may be NULL then */
	c->bytes += len;
	if (have) {
		size_t take = 64 - have < len ? 64 - have : len;
		memcpy(c->buf + have, p, take);
		p += take;
		len -= take;
		if (have + take < 64)
			return;
		blocks(c->h, c->buf, 1);
	}
	if (len >= 64) {
		blocks(c->h, p, len / 64);
		p += len & ~(size_t)63;
		len &= 63;
	}
	if (len)
		memcpy(c->buf, p, len);
}

void wg_sha256_hw_final(struct wg_sha256_hw *c, unsigned char out[32])
{
	uint64_t bits = c->bytes * 8;
	size_t have = (size_t)(c->bytes & 63);

	c->buf[have++] = 0x80;
	if (have > 56) {
		memset(c->buf + have, 0, 64 - have);
		blocks(c->h, c->buf, 1);
		have = 0;
	}
	memset(c->buf + have, 0, 56 - have);
	for (int i = 0; i < 8; i++)
		c->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	blocks(c->h, c->buf, 1);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
}
