#include "hash/hash.h"

#include <string.h>

#include <bearssl_hash.h>

#include "hash/sha256_hw.h"
#include "sha1.h"  /* sha1collisiondetection, from Git's sha1dc/ */
#include "util/error.h"

/* the code behind a context */
enum { IMPL_SHA1DC, IMPL_SHA256_PORTABLE, IMPL_SHA256_HW };

_Static_assert(sizeof(SHA1_CTX) <= sizeof(((struct wg_hash_ctx *)0)->state),
	       "wg_hash_ctx too small for SHA1_CTX");
_Static_assert(sizeof(br_sha256_context) <= sizeof(((struct wg_hash_ctx *)0)->state),
	       "wg_hash_ctx too small for br_sha256_context");
_Static_assert(sizeof(struct wg_sha256_hw) <= sizeof(((struct wg_hash_ctx *)0)->state),
	       "wg_hash_ctx too small for wg_sha256_hw");

static const unsigned char sha1_empty_tree[20] = {
	0x4b, 0x82, 0x5d, 0xc6, 0x42, 0xcb, 0x6e, 0xb9, 0xa0, 0x60,
	0xe5, 0x4b, 0xf8, 0xd6, 0x92, 0x88, 0xfb, 0xee, 0x49, 0x04 };
static const unsigned char sha1_empty_blob[20] = {
	0xe6, 0x9d, 0xe2, 0x9b, 0xb2, 0xd1, 0xd6, 0x43, 0x4b, 0x8b,
	0x29, 0xae, 0x77, 0x5a, 0xd8, 0xc2, 0xe4, 0x8c, 0x53, 0x91 };
static const unsigned char sha256_empty_tree[32] = {
	0x6e, 0xf1, 0x9b, 0x41, 0x22, 0x5c, 0x53, 0x69, 0xf1, 0xc1, 0x04,
	0xd4, 0x5d, 0x8d, 0x85, 0xef, 0xa9, 0xb0, 0x57, 0xb5, 0x3b, 0x14,
	0xb4, 0xb9, 0xb9, 0x39, 0xdd, 0x74, 0xde, 0xcc, 0x53, 0x21 };
static const unsigned char sha256_empty_blob[32] = {
	0x47, 0x3a, 0x0f, 0x4c, 0x3b, 0xe8, 0xa9, 0x36, 0x81, 0xa2, 0x67,
	0xe3, 0xb1, 0xe9, 0xa7, 0xdc, 0xda, 0x11, 0x85, 0x43, 0x6f, 0xe1,
	0x41, 0xf7, 0x74, 0x91, 0x20, 0xa3, 0x03, 0x72, 0x18, 0x13 };

static const struct wg_hash_algo algos[WG_HASH_COUNT] = {
	[WG_HASH_SHA1] = { "sha1", WG_HASH_SHA1, 0x73686131u, 20, 40, 64,
			   sha1_empty_tree, sha1_empty_blob },
	[WG_HASH_SHA256] = { "sha256", WG_HASH_SHA256, 0x73323536u, 32, 64, 64,
			     sha256_empty_tree, sha256_empty_blob },
};

const struct wg_hash_algo *wg_hash_algo_by_id(enum wg_hash_id id)
{
	if (id == WG_HASH_SHA1 || id == WG_HASH_SHA256)
		return &algos[id];
	return NULL;
}

const struct wg_hash_algo *wg_hash_algo_by_name(const char *name)
{
	int i;
	for (i = 1; i < WG_HASH_COUNT; i++)
		if (!strcmp(algos[i].name, name))
			return &algos[i];
	return NULL;
}

const struct wg_hash_algo *wg_hash_algo_by_format_id(uint32_t format_id)
{
	int i;
	for (i = 1; i < WG_HASH_COUNT; i++)
		if (algos[i].format_id == format_id)
			return &algos[i];
	return NULL;
}

void wg_hash_init(struct wg_hash_ctx *ctx, const struct wg_hash_algo *algo)
{
	ctx->algo = algo;
	if (algo->id == WG_HASH_SHA1) {
		SHA1_CTX *c = (SHA1_CTX *)ctx->state;
		SHA1DCInit(c);
		/* Report the attack but keep plain SHA-1 output, as Git does
		 * (SHA1DC_INIT_SAFE_HASH_DEFAULT=0): ids stay comparable. */
		SHA1DCSetSafeHash(c, 0);
		ctx->impl = IMPL_SHA1DC;
	} else if (wg_sha256_hw_available()) {
		wg_sha256_hw_init((struct wg_sha256_hw *)ctx->state);
		ctx->impl = IMPL_SHA256_HW;
	} else {
		br_sha256_init((br_sha256_context *)ctx->state);
		ctx->impl = IMPL_SHA256_PORTABLE;
	}
}

void wg_hash_update(struct wg_hash_ctx *ctx, const void *data, size_t len)
{
	if (ctx->algo->id == WG_HASH_SHA1) {
		/* sha1dc takes a size_t; feed in pieces anyway so a huge
		 * update never depends on that. */
		const char *p = data;
		while (len) {
			size_t n = len > (1u << 30) ? (1u << 30) : len;
			SHA1DCUpdate((SHA1_CTX *)ctx->state, p, n);
			p += n;
			len -= n;
		}
	} else if (ctx->impl == IMPL_SHA256_HW) {
		wg_sha256_hw_update((struct wg_sha256_hw *)ctx->state, data, len);
	} else {
		br_sha256_update((br_sha256_context *)ctx->state, data, len);
	}
}

int wg_hash_final(struct wg_hash_ctx *ctx, unsigned char *out)
{
	if (ctx->algo->id == WG_HASH_SHA1) {
		if (SHA1DCFinal(out, (SHA1_CTX *)ctx->state))
			return wg_error_set(WG_ECOLLISION,
				"SHA-1 collision attack detected in the hashed data; refusing it");
		return 0;
	}
	if (ctx->impl == IMPL_SHA256_HW)
		wg_sha256_hw_final((struct wg_sha256_hw *)ctx->state, out);
	else
		br_sha256_out((br_sha256_context *)ctx->state, out);
	return 0;
}

int wg_hash_buffer(const struct wg_hash_algo *algo, const void *data, size_t len,
		   unsigned char *out)
{
	struct wg_hash_ctx ctx;
	wg_hash_init(&ctx, algo);
	wg_hash_update(&ctx, data, len);
	return wg_hash_final(&ctx, out);
}
