/* SHA-256 on the CPU's own instructions where it has them (x86's SHA
 * extensions), for SHA-256 repositories: git hashes every object it
 * receives, and the portable code runs at about 200 MB/s where these
 * instructions give several times that. A context of its own, the same
 * digest as any SHA-256 (tests/unit/test_hash.c compares it with the
 * portable one on every length across several blocks). */
#ifndef WG_HASH_SHA256_HW_H
#define WG_HASH_SHA256_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wg_sha256_hw {
	uint32_t h[8];
	uint64_t bytes;            /* hashed so far */
	unsigned char buf[64];     /* a block not yet full */
};

/* Whether this CPU has the instructions (and this build the code for
 * them); asked once, then remembered. WG_SHA256_HW=0 in the environment
 * says no (to measure or test the portable code). */
bool wg_sha256_hw_available(void);
void wg_sha256_hw_init(struct wg_sha256_hw *c);
void wg_sha256_hw_update(struct wg_sha256_hw *c, const void *data, size_t len);
void wg_sha256_hw_final(struct wg_sha256_hw *c, unsigned char out[32]);

#endif
