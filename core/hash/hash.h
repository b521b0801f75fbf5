/* Object-format abstraction: SHA-1 (with collision detection) and SHA-256.
 *
 * A `struct wg_hash_algo` describes one object format (Git's
 * `extensions.objectFormat`). Only this layer knows the sizes: other code
 * asks the descriptor, never writes 20 or 40. */
#ifndef WG_HASH_HASH_H
#define WG_HASH_HASH_H

#include <stddef.h>
#include <stdint.h>

#define WG_MAX_RAWSZ 32
#define WG_MAX_HEXSZ 64

enum wg_hash_id {
	WG_HASH_UNKNOWN = 0,
	WG_HASH_SHA1 = 1,
	WG_HASH_SHA256 = 2,
};
#define WG_HASH_COUNT 3

struct wg_hash_algo {
	const char *name;          /* "sha1", "sha256": objectFormat values */
	enum wg_hash_id id;
	uint32_t format_id;        /* 'sha1' / 's256' in pack, idx, reftable */
	size_t rawsz;              /* bytes of a binary id */
	size_t hexsz;              /* hex digits of an id */
	size_t blksz;              /* block size of the compression function */
	const unsigned char *empty_tree;  /* raw id of the empty tree */
	const unsigned char *empty_blob;  /* raw id of the empty blob */
};

const struct wg_hash_algo *wg_hash_algo_by_id(enum wg_hash_id id);
/* By objectFormat name ("sha1", "sha256"); NULL if unknown. */
const struct wg_hash_algo *wg_hash_algo_by_name(const char *name);
/* By 32-bit format id; NULL if unknown. */
const struct wg_hash_algo *wg_hash_algo_by_format_id(uint32_t format_id);

/* Streaming hash state. Treat as opaque; sized to hold either algorithm
 * without allocation, so hashing many small objects costs no malloc. */
struct wg_hash_ctx {
	const struct wg_hash_algo *algo;
	int impl;                  /* which code hashes: hash.c's choice */
	_Alignas(16) unsigned char state[2560];
};

void wg_hash_init(struct wg_hash_ctx *ctx, const struct wg_hash_algo *algo);
void wg_hash_update(struct wg_hash_ctx *ctx, const void *data, size_t len);
/* Write algo->rawsz bytes to out. For SHA-1 returns WG_ECOLLISION (with a
 * message) when the input carries a collision attack; the digest is then
 * the plain SHA-1 value but must not be trusted. Otherwise 0. */
int wg_hash_final(struct wg_hash_ctx *ctx, unsigned char *out);

/* One-shot convenience. */
int wg_hash_buffer(const struct wg_hash_algo *algo, const void *data, size_t len,
		   unsigned char *out);

#endif
