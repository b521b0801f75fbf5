/* Delta application: every size and bound checked before allocation. */
#include "pack/delta_apply.h"
#include "test.h"
#include "util/alloc.h"
#include "util/varint.h"

static size_t put_sizes(unsigned char *d, uint64_t base, uint64_t result)
{
	size_t n = wg_varint_le_encode(d, base);
	return n + wg_varint_le_encode(d + n, result);
}

static void test_copy_and_insert(void)
{
	const char *base = "hello, world";
	unsigned char d[64];
	struct wg_buf out = WG_BUF_INIT;
	size_t n = put_sizes(d, 12, 12), rs;
	d[n++] = 0x90; d[n++] = 7;           /* copy offset 0, size 7: "hello, " */
	d[n++] = 5; memcpy(d + n, "there", 5); n += 5;
	CHECK_OK(wg_delta_apply(&out, (const unsigned char *)base, 12, d, n, 0));
	CHECK(out.len == 12 && !memcmp(out.data, "hello, there", 12));
	CHECK_OK(wg_delta_check(d, n, 12, &rs));
	CHECK(rs == 12);
	/* copy with an offset: bytes 7..11 "world" */
	n = put_sizes(d, 12, 5);
	d[n++] = 0x91; d[n++] = 7; d[n++] = 5;
	CHECK_OK(wg_delta_apply(&out, (const unsigned char *)base, 12, d, n, 0));
	CHECK(out.len == 5 && !memcmp(out.data, "world", 5));
	wg_buf_release(&out);
}

static void test_size_zero_means_64k(void)
{
	unsigned char *base = wg_malloc(0x10000);
	unsigned char d[16];
	struct wg_buf out = WG_BUF_INIT;
	size_t n = put_sizes(d, 0x10000, 0x10000);
	memset(base, 'x', 0x10000);
	d[n++] = 0x80;  /* copy, no offset bytes, no size bytes: 64 KiB from 0 */
	CHECK_OK(wg_delta_apply(&out, base, 0x10000, d, n, 0));
	CHECK(out.len == 0x10000);
	wg_buf_release(&out);
	wg_free(base);
}

static void test_rejects(void)
{
	const unsigned char base[8] = "abcdefgh";
	unsigned char d[64];
	struct wg_buf out = WG_BUF_INIT;
	size_t n;

	/* base size mismatch */
	n = put_sizes(d, 9, 1);
	d[n++] = 1; d[n++] = 'z';
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 0), WG_ECORRUPT);
	/* copy past the end of the base */
	n = put_sizes(d, 8, 4);
	d[n++] = 0x91; d[n++] = 6; d[n++] = 4;
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 0), WG_ECORRUPT);
	/* reserved opcode 0 */
	n = put_sizes(d, 8, 1);
	d[n++] = 0;
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 0), WG_ECORRUPT);
	/* truncated insert */
	n = put_sizes(d, 8, 5);
	d[n++] = 5; d[n++] = 'a';
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 0), WG_ECORRUPT);
	/* truncated copy */
	n = put_sizes(d, 8, 5);
	d[n++] = 0x93; d[n++] = 0;
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 0), WG_ECORRUPT);
	/* produces less than declared */
	n = put_sizes(d, 8, 3);
	d[n++] = 1; d[n++] = 'a';
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 0), WG_ECORRUPT);
	/* produces more than declared */
	n = put_sizes(d, 8, 1);
	d[n++] = 2; d[n++] = 'a'; d[n++] = 'b';
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 0), WG_ECORRUPT);
	/* a 4 GiB result declared by a 10-byte delta: refused before any
	 * allocation (the allocator would fail a 4 GiB request under WASM) */
	n = put_sizes(d, 8, (uint64_t)4 << 30);
	d[n++] = 0x90; d[n++] = 8;
	/* With a 32-bit size_t (WASM) such a result cannot even be named. */
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 0),
		  sizeof(size_t) > 4 ? WG_ECORRUPT : WG_EUNSUPPORTED);
	CHECK(out.cap < 4096);
	/* over the caller's limit */
	n = put_sizes(d, 8, 8);
	d[n++] = 0x90; d[n++] = 8;
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, n, 4), WG_ELIMIT);
	/* size overflowing 64 bits / truncated header */
	memset(d, 0xff, 12);
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, 12, 0), WG_ECORRUPT);
	CHECK_ERR(wg_delta_apply(&out, base, 8, d, 0, 0), WG_ECORRUPT);
	wg_buf_release(&out);
}

/* Every truncation of a valid delta fails cleanly or (for a prefix that is
 * itself complete) succeeds; never reads past the end. */
static void test_every_truncation(void)
{
	const unsigned char base[16] = "0123456789abcdef";
	unsigned char d[64], *copy;
	struct wg_buf out = WG_BUF_INIT;
	size_t n = put_sizes(d, 16, 13), k;
	d[n++] = 0x91; d[n++] = 2; d[n++] = 6;
	d[n++] = 3; d[n++] = 'x'; d[n++] = 'y'; d[n++] = 'z';
	d[n++] = 0x90; d[n++] = 4;
	CHECK_OK(wg_delta_apply(&out, base, 16, d, n, 0));
	CHECK(out.len == 13 && !memcmp(out.data, "234567xyz0123", 13));
	for (k = 0; k < n; k++) {
		copy = wg_malloc(k ? k : 1);
		memcpy(copy, d, k);
		CHECK(wg_delta_apply(&out, base, 16, copy, k, 0) == WG_ECORRUPT);
		wg_free(copy);
	}
	wg_buf_release(&out);
}

WG_TEST_MAIN("pack_delta",
	WG_TEST(test_copy_and_insert),
	WG_TEST(test_size_zero_means_64k),
	WG_TEST(test_rejects),
	WG_TEST(test_every_truncation))
