/* Hash layer: known answers for both algorithms, streaming in every split,
 * object ids, and SHA-1 collision detection on SHAttered. */
#include "test.h"

#include <bearssl_hash.h>

#include "hash/hash.h"
#include "hash/sha256_hw.h"
#include "hash/oid.h"
#include "object/object.h"
#include "util/hex.h"

static void hex_of(const struct wg_hash_algo *algo, const void *data, size_t len, char *out)
{
	unsigned char raw[WG_MAX_RAWSZ];
	CHECK_OK(wg_hash_buffer(algo, data, len, raw));
	wg_hex_encode(out, raw, algo->rawsz);
}

static void test_known_answers(void)
{
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_name("sha1");
	const struct wg_hash_algo *sha256 = wg_hash_algo_by_name("sha256");
	char hex[WG_MAX_HEXSZ + 1];
	CHECK(sha1 && sha1->rawsz == 20 && sha1->hexsz == 40);
	CHECK(sha256 && sha256->rawsz == 32 && sha256->hexsz == 64);
	hex_of(sha1, "abc", 3, hex);
	CHECK_STR(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
	hex_of(sha1, "", 0, hex);
	CHECK_STR(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	hex_of(sha256, "abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	hex_of(sha1, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	CHECK_STR(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
	CHECK(wg_hash_algo_by_name("md5") == NULL);
	CHECK(wg_hash_algo_by_format_id(0x73686131u) == sha1);
	CHECK(wg_hash_algo_by_format_id(0x73323536u) == sha256);
	CHECK(wg_hash_algo_by_id(WG_HASH_UNKNOWN) == NULL);
}

static void test_streaming_splits(void)
{
	/* Every split point of a multi-block input gives the one-shot digest. */
	unsigned char data[300], one[WG_MAX_RAWSZ], two[WG_MAX_RAWSZ];
	size_t i, split;
	int a;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(a);
		CHECK_OK(wg_hash_buffer(algo, data, sizeof(data), one));
		for (split = 0; split <= sizeof(data); split++) {
			struct wg_hash_ctx ctx;
			wg_hash_init(&ctx, algo);
			wg_hash_update(&ctx, data, split);
			wg_hash_update(&ctx, data + split, sizeof(data) - split);
			CHECK_OK(wg_hash_final(&ctx, two));
			CHECK_MEM(one, two, algo->rawsz);
		}
	}
}

static void test_empty_object_ids(void)
{
	struct wg_oid oid, expect;
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_id(WG_HASH_SHA1);
	const struct wg_hash_algo *sha256 = wg_hash_algo_by_id(WG_HASH_SHA256);
	CHECK_OK(wg_object_hash(&oid, sha1, WG_OBJ_BLOB, "", 0));
	CHECK_STR(wg_oid_hex(&oid), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	wg_oid_empty_blob(&expect, sha1);
	CHECK(wg_oid_equal(&oid, &expect));
	CHECK_OK(wg_object_hash(&oid, sha1, WG_OBJ_TREE, "", 0));
	CHECK_STR(wg_oid_hex(&oid), "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	wg_oid_empty_tree(&expect, sha1);
	CHECK(wg_oid_equal(&oid, &expect));
	CHECK_OK(wg_object_hash(&oid, sha256, WG_OBJ_BLOB, "", 0));
	CHECK_STR(wg_oid_hex(&oid), "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813");
	wg_oid_empty_blob(&expect, sha256);
	CHECK(wg_oid_equal(&oid, &expect));
	CHECK_OK(wg_object_hash(&oid, sha256, WG_OBJ_TREE, "", 0));
	CHECK_STR(wg_oid_hex(&oid), "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321");
	wg_oid_empty_tree(&expect, sha256);
	CHECK(wg_oid_equal(&oid, &expect));
	/* "hello world\n" as git hash-object prints it. */
	CHECK_OK(wg_object_hash(&oid, sha1, WG_OBJ_BLOB, "hello world\n", 12));
	CHECK_STR(wg_oid_hex(&oid), "3b18e512dba79e4c8300dd08aeb37f8e728b8dad");
}

static void test_oid_parse(void)
{
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_id(WG_HASH_SHA1);
	const struct wg_hash_algo *sha256 = wg_hash_algo_by_id(WG_HASH_SHA256);
	struct wg_oid a, b;
	CHECK_OK(wg_oid_from_hex_str(&a, sha1, "E69DE29BB2D1D6434B8B29AE775AD8C2E48C5391"));
	CHECK_STR(wg_oid_hex(&a), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	CHECK_ERR(wg_oid_from_hex_str(&b, sha1, "e69de29"), WG_EINVALID);
	CHECK_ERR(wg_oid_from_hex_str(&b, sha1, "e69de29bb2d1d6434b8b29ae775ad8c2e48c539g"), WG_EINVALID);
	CHECK_ERR(wg_oid_from_hex_str(&b, sha256, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"), WG_EINVALID);
	/* A short string is rejected without reading past its end. */
	CHECK_ERR(wg_oid_from_hex(&b, sha256, "abc"), WG_EINVALID);
	wg_oid_null(&b, sha1);
	CHECK(wg_oid_is_null(&b));
	CHECK(!wg_oid_equal(&a, &b));
	CHECK(wg_oid_cmp(&b, &a) < 0);
	/* Same bytes, different algorithm: not equal. */
	wg_oid_null(&a, sha256);
	CHECK(!wg_oid_equal(&a, &b));
}

static void test_shattered_detected(void)
{
	size_t len = 0;
	unsigned char *pdf = wg_test_read_data("shattered-1.pdf", &len);
	unsigned char raw[WG_MAX_RAWSZ];
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct wg_oid oid;
	CHECK(pdf != NULL);
	if (!pdf)
		return;
	CHECK(len == 422435);
	/* Raw bytes, as Git's t0013 hashes them. */
	CHECK_ERR(wg_hash_buffer(sha1, pdf, len, raw), WG_ECOLLISION);
	CHECK(strstr(wg_error_message(), "collision") != NULL);
	/* As a blob the "blob <size>\0" header shifts the colliding blocks
	 * out of alignment: no collision, and the id is git's (the reference
	 * git's `hash-object shattered-1.pdf`). */
	CHECK_OK(wg_object_hash(&oid, sha1, WG_OBJ_BLOB, pdf, len));
	CHECK_STR(wg_oid_hex(&oid), "ba9aaa145ccd24ef760cf31c74d8f7ca1a2e47b0");
	/* SHA-256 has no such notion. */
	CHECK_OK(wg_hash_buffer(wg_hash_algo_by_id(WG_HASH_SHA256), pdf, len, raw));
	free(pdf);
}

/* The CPU's SHA-256 against the portable code (BearSSL's): every length
 * over several blocks, fed whole and in uneven pieces. Where the CPU has
 * no SHA instructions (and in WebAssembly) there is nothing to compare,
 * and wg_hash_* must be the portable code. */
static void test_sha256_hardware(void)
{
	unsigned char data[700], a[32], b[32];
	uint32_t x = 12345;
	size_t len;

	/* FIPS 180-4's two-block example, through the public interface
	 * (whichever code it takes here) */
	{
		static const char msg[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
		CHECK_OK(wg_hash_buffer(wg_hash_algo_by_id(WG_HASH_SHA256), msg, strlen(msg), a));
		wg_hex_encode((char *)data, a, 32);
		data[64] = 0;
		CHECK_STR((const char *)data, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	}
	for (size_t i = 0; i < sizeof(data); i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		data[i] = (unsigned char)x;
	}
	if (!wg_sha256_hw_available()) {
		fprintf(stderr, "# no SHA instructions here: the portable code is the only one\n");
		return;
	}
	for (len = 0; len <= sizeof(data); len++) {
		struct wg_sha256_hw hw;
		br_sha256_context br;
		size_t at = 0, step = 1 + len % 67;

		br_sha256_init(&br);
		br_sha256_update(&br, data, len);
		br_sha256_out(&br, a);
		wg_sha256_hw_init(&hw);
		wg_sha256_hw_update(&hw, NULL, 0);   /* nothing, from nowhere */
		while (at < len) {
			size_t n = len - at < step ? len - at : step;
			wg_sha256_hw_update(&hw, data + at, n);
			at += n;
			step = step * 7 % 131 + 1;
		}
		wg_sha256_hw_final(&hw, b);
		if (memcmp(a, b, 32)) {
			CHECK(!"the SHA instructions' digest differs from the portable one");
			fprintf(stderr, "  at length %zu\n", len);
			break;
		}
	}
}

WG_TEST_MAIN("hash",
	WG_TEST(test_known_answers),
	WG_TEST(test_streaming_splits),
	WG_TEST(test_empty_object_ids),
	WG_TEST(test_oid_parse),
	WG_TEST(test_shattered_detected),
	WG_TEST(test_sha256_hardware))
