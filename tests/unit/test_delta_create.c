/* Delta encoder: every delta rebuilds its target, both through a private
 * applier written here from the format description (so the encoder is not
 * only checked against a reader that might share its mistakes) and through
 * core/pack/delta_apply; the instructions it emits stay inside the
 * format's limits; the size limit abandons deltas not worth having. */
#include <stdint.h>

#include "pack/delta_apply.h"
#include "pack/delta_create.h"
#include "test.h"
#include "util/alloc.h"
#include "util/varint.h"

/* Deterministic pseudo-random bytes (xorshift), the same on every host. */
static uint32_t rng_state = 2463534242u;
static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static void fill_random(unsigned char *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)rnd();
}

struct stats {
	size_t copies, inserts, max_copy, max_insert;
};

/* The private applier: strict, and it counts what it sees. Returns 0 and
 * fills out (of out_cap bytes) or -1 on any malformation. */
static int private_apply(const unsigned char *base, size_t base_len, const unsigned char *d,
			 size_t dlen, unsigned char *out, size_t out_cap, size_t *out_len,
			 struct stats *st)
{
	uint64_t bsz, rsz;
	size_t pos = 0, produced = 0;
	int n;
	memset(st, 0, sizeof(*st));
	if ((n = wg_varint_le_decode(d, dlen, &bsz)) <= 0)
		return -1;
	pos += (size_t)n;
	if ((n = wg_varint_le_decode(d + pos, dlen - pos, &rsz)) <= 0)
		return -1;
	pos += (size_t)n;
	if (bsz != base_len || rsz > out_cap)
		return -1;
	while (pos < dlen) {
		unsigned char op = d[pos++];
		if (op & 0x80) {
			size_t off = 0, sz = 0;
			unsigned i;
			for (i = 0; i < 4; i++)
				if (op & (1u << i)) {
					if (pos >= dlen)
						return -1;
					off |= (size_t)d[pos++] << (8 * i);
				}
			for (i = 0; i < 3; i++)
				if (op & (0x10u << i)) {
					if (pos >= dlen)
						return -1;
					sz |= (size_t)d[pos++] << (8 * i);
				}
			if (!sz)
				sz = 0x10000;
			if (off + sz > base_len || produced + sz > rsz)
				return -1;
			memcpy(out + produced, base + off, sz);
			produced += sz;
			st->copies++;
			if (sz > st->max_copy)
				st->max_copy = sz;
		} else {
			if (!op || op > dlen - pos || produced + op > rsz)
				return -1;
			memcpy(out + produced, d + pos, op);
			pos += op;
			produced += op;
			st->inserts++;
			if (op > st->max_insert)
				st->max_insert = op;
		}
	}
	if (produced != rsz)
		return -1;
	*out_len = produced;
	return 0;
}

/* Build a delta from src to dst, check it rebuilds dst both ways, and
 * return its size (or SIZE_MAX after a failed check). */
static size_t round_trip(const unsigned char *src, size_t slen, const unsigned char *dst,
			 size_t dlen, struct stats *st)
{
	struct wg_delta_index *ix = NULL;
	struct wg_buf delta = WG_BUF_INIT, real = WG_BUF_INIT;
	unsigned char *out = wg_malloc(dlen ? dlen : 1);
	size_t out_len = 0, size = SIZE_MAX;
	struct stats local;
	if (!st)
		st = &local;
	CHECK_OK(wg_delta_index_new(&ix, src, slen));
	if (!ix)
		goto done;
	CHECK(wg_delta_index_source_size(ix) == slen);
	CHECK_OK(wg_delta_create(&delta, ix, dst, dlen, 0));
	CHECK(private_apply(src, slen, delta.data, delta.len, out, dlen, &out_len, st) == 0);
	CHECK(out_len == dlen);
	CHECK(dlen == 0 || memcmp(out, dst, dlen) == 0);
	CHECK(st->max_insert <= 127);
	CHECK(st->max_copy <= 0x10000);
	CHECK_OK(wg_delta_apply(&real, src, slen, delta.data, delta.len, 0));
	CHECK(real.len == dlen && (dlen == 0 || memcmp(real.data, dst, dlen) == 0));
	if (out_len == dlen && (dlen == 0 || !memcmp(out, dst, dlen)))
		size = delta.len;
done:
	wg_delta_index_free(ix);
	wg_buf_release(&delta);
	wg_buf_release(&real);
	wg_free(out);
	return size;
}

static void test_empty(void)
{
	unsigned char x[64];
	struct stats st;
	fill_random(x, sizeof(x));
	/* empty to empty: just the two sizes */
	CHECK(round_trip(x, 0, x, 0, &st) == 2);
	/* empty source: all inserts */
	CHECK(round_trip(x, 0, x, sizeof(x), &st) != SIZE_MAX);
	CHECK(st.copies == 0 && st.inserts == 1);
	/* empty target from a real source */
	CHECK(round_trip(x, sizeof(x), x, 0, &st) == 2);
	/* a source shorter than one block */
	CHECK(round_trip(x, 5, x, sizeof(x), &st) != SIZE_MAX);
}

static void test_identical(void)
{
	size_t sizes[] = { 16, 17, 100, 4096, 0xffff, 0x10000, 0x10001, 0x20000, 300000 };
	size_t k;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], d;
		unsigned char *buf = wg_malloc(n);
		struct stats st;
		fill_random(buf, n);
		d = round_trip(buf, n, buf, n, &st);
		CHECK(d != SIZE_MAX);
		/* Copies only, one per 64 KiB. */
		CHECK(st.inserts == 0);
		CHECK(st.copies == (n + 0xffff) / 0x10000);
		CHECK(d < 16 + 8 * st.copies);
		wg_free(buf);
	}
}

static void test_different(void)
{
	unsigned char a[5000], b[5000];
	struct stats st;
	size_t d;
	fill_random(a, sizeof(a));
	fill_random(b, sizeof(b));
	d = round_trip(a, sizeof(a), b, sizeof(b), &st);
	CHECK(d != SIZE_MAX);
	CHECK(st.copies == 0);
	/* inserts of 127 bytes: 5000/127 -> 40 instructions */
	CHECK(st.inserts == (sizeof(b) + 126) / 127);
	CHECK(st.max_insert == 127);
}

static void test_insert_boundaries(void)
{
	/* Target = source with a fresh run of n bytes in the middle, for n
	 * around the 127-byte insert limit. */
	size_t n;
	unsigned char src[2048], dst[2048 + 300], mid[300];
	fill_random(src, sizeof(src));
	fill_random(mid, sizeof(mid));
	for (n = 120; n <= 260; n++) {
		struct stats st;
		size_t d;
		memcpy(dst, src, 1000);
		memcpy(dst + 1000, mid, n);
		memcpy(dst + 1000 + n, src + 1000, 1048);
		d = round_trip(src, sizeof(src), dst, 2048 + n, &st);
		CHECK(d != SIZE_MAX);
		CHECK(st.copies == 2);
		CHECK(st.inserts == (n + 126) / 127);
		CHECK(d <= 2 * 8 + n + (n + 126) / 127 + 6);
	}
}

static void test_copy_boundaries(void)
{
	/* A copy of exactly 0x10000 is the one encoded without size bytes;
	 * around it the copy splits into two. */
	size_t lens[] = { 0xfffe, 0xffff, 0x10000, 0x10001, 0x1ffff, 0x20000, 0x20001 };
	size_t k, total = 0x30000;
	unsigned char *src = wg_malloc(total), *dst = wg_malloc(total + 10);
	fill_random(src, total);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		struct stats st;
		size_t n = lens[k];
		memcpy(dst, "HEADER!!!!", 10);
		memcpy(dst + 10, src + 77, n);
		CHECK(round_trip(src, total, dst, n + 10, &st) != SIZE_MAX);
		CHECK(st.copies == (n + 0xffff) / 0x10000);
		CHECK(st.inserts == 1);
	}
	wg_free(src);
	wg_free(dst);
}

static void test_structured(void)
{
	/* A text file of numbered lines, edited the way source code is:
	 * lines changed, inserted, deleted, a block moved. */
	struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT;
	struct stats st;
	size_t d;
	int i;
	for (i = 0; i < 3000; i++)
		wg_buf_printf(&a, "line %d: the quick brown fox jumps over the lazy dog\n", i);
	for (i = 0; i < 3000; i++) {
		if (i % 97 == 0)
			wg_buf_printf(&b, "changed line %d\n", i);
		else if (i % 211 == 0)
			continue;
		else if (i >= 1000 && i < 1100)
			continue;  /* moved below */
		else
			wg_buf_printf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", i);
		if (i == 2500)
			for (int j = 1000; j < 1100; j++)
				wg_buf_printf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", j);
	}
	d = round_trip(a.data, a.len, b.data, b.len, &st);
	CHECK(d != SIZE_MAX);
	/* ~45 edits: the delta is a small fraction of the 170 KB target. */
	CHECK(d < b.len / 40);
	/* and the reverse direction */
	CHECK(round_trip(b.data, b.len, a.data, a.len, NULL) != SIZE_MAX);
	wg_buf_release(&a);
	wg_buf_release(&b);
}

static void test_repetitive(void)
{
	/* Runs of one byte and short periods stress the bucket limit and
	 * the run deduplication. */
	size_t n = 200000, i;
	unsigned char *a = wg_malloc(n), *b = wg_malloc(n);
	struct stats st;
	memset(a, 0, n);
	memset(b, 0, n);
	b[n / 2] = 1;
	CHECK(round_trip(a, n, b, n, &st) < 64);
	for (i = 0; i < n; i++) {
		a[i] = (unsigned char)(i % 7);
		b[i] = (unsigned char)(i % 7);
	}
	b[1000] = 9;
	b[150000] = 9;
	CHECK(round_trip(a, n, b, n, &st) < 64);
	/* zero source, random target and vice versa */
	fill_random(b, n);
	memset(a, 0, n);
	CHECK(round_trip(a, n, b, n, NULL) != SIZE_MAX);
	CHECK(round_trip(b, n, a, n, NULL) != SIZE_MAX);
	wg_free(a);
	wg_free(b);
}

static void test_random_mutations(void)
{
	/* Random sources with random edits (replace, insert, delete, copy
	 * from elsewhere), many sizes. */
	int round;
	for (round = 0; round < 200; round++) {
		size_t slen = rnd() % (round < 100 ? 2000 : 70000), dlen = 0, cap;
		unsigned char *src = wg_malloc(slen + 1), *dst;
		int edits = (int)(rnd() % 20), e;
		size_t pos = 0;
		fill_random(src, slen);
		cap = slen * 2 + 4096;
		dst = wg_malloc(cap);
		for (e = 0; e <= edits && dlen < cap - 1024; e++) {
			size_t run = slen ? rnd() % (slen / (size_t)(edits + 1) + 1) : 0;
			if (pos + run > slen)
				run = slen - pos;
			memcpy(dst + dlen, src + pos, run);
			dlen += run;
			pos += run;
			switch (rnd() % 4) {
			case 0: {  /* insert fresh bytes */
				size_t k = rnd() % 300;
				fill_random(dst + dlen, k);
				dlen += k;
				break;
			}
			case 1:  /* delete */
				pos += rnd() % 200;
				if (pos > slen)
					pos = slen;
				break;
			case 2: {  /* copy from anywhere in the source */
				size_t from = slen ? rnd() % slen : 0, k = rnd() % 500;
				if (from + k > slen)
					k = slen - from;
				memcpy(dst + dlen, src + from, k);
				dlen += k;
				break;
			}
			default:  /* flip a byte */
				if (dlen)
					dst[dlen - 1] ^= 0x5a;
			}
		}
		CHECK(round_trip(src, slen, dst, dlen, NULL) != SIZE_MAX);
		wg_free(src);
		wg_free(dst);
	}
}

static void test_max_size(void)
{
	unsigned char a[4000], b[4000];
	struct wg_delta_index *ix = NULL;
	struct wg_buf delta = WG_BUF_INIT;
	size_t full;
	fill_random(a, sizeof(a));
	memcpy(b, a, sizeof(b));
	fill_random(b + 1000, 500);
	CHECK_OK(wg_delta_index_new(&ix, a, sizeof(a)));
	CHECK_OK(wg_delta_create(&delta, ix, b, sizeof(b), 0));
	full = delta.len;
	CHECK(full > 500 && full < 600);
	/* exactly at the limit is accepted, one below is not */
	CHECK_OK(wg_delta_create(&delta, ix, b, sizeof(b), full));
	CHECK(delta.len == full);
	CHECK_ERR(wg_delta_create(&delta, ix, b, sizeof(b), full - 1), WG_ENOTFOUND);
	CHECK(delta.len == 0);
	/* a completely different target is abandoned early */
	fill_random(b, sizeof(b));
	CHECK_ERR(wg_delta_create(&delta, ix, b, sizeof(b), 100), WG_ENOTFOUND);
	wg_delta_index_free(ix);
	wg_delta_index_free(NULL);
	wg_buf_release(&delta);
}

static void test_one_index_many_targets(void)
{
	size_t n = 50000, k;
	unsigned char *src = wg_malloc(n), *dst = wg_malloc(n);
	struct wg_delta_index *ix = NULL;
	struct wg_buf delta = WG_BUF_INIT, out = WG_BUF_INIT;
	fill_random(src, n);
	CHECK_OK(wg_delta_index_new(&ix, src, n));
	CHECK(wg_delta_index_memsize(ix) > 0);
	for (k = 0; k < 20; k++) {
		memcpy(dst, src, n);
		fill_random(dst + (k * 2311) % (n - 100), 50);
		CHECK_OK(wg_delta_create(&delta, ix, dst, n - k, 0));
		CHECK(delta.len < 200);
		CHECK_OK(wg_delta_apply(&out, src, n, delta.data, delta.len, 0));
		CHECK(out.len == n - k && !memcmp(out.data, dst, n - k));
	}
	wg_delta_index_free(ix);
	wg_buf_release(&delta);
	wg_buf_release(&out);
	wg_free(src);
	wg_free(dst);
}

static void test_large(void)
{
	/* 8 MiB with scattered edits: correct, and a small delta. */
	size_t n = 8u << 20, i;
	unsigned char *a = wg_malloc(n), *b = wg_malloc(n);
	size_t d;
	fill_random(a, n);
	memcpy(b, a, n);
	for (i = 0; i < 100; i++)
		b[rnd() % n] ^= 0xff;
	d = round_trip(a, n, b, n, NULL);
	CHECK(d != SIZE_MAX);
	CHECK(d < 100 * 40 + 8 * (n / 0x10000) + 64);
	wg_free(a);
	wg_free(b);
}

WG_TEST_MAIN("delta_create",
	WG_TEST(test_empty),
	WG_TEST(test_identical),
	WG_TEST(test_different),
	WG_TEST(test_insert_boundaries),
	WG_TEST(test_copy_boundaries),
	WG_TEST(test_structured),
	WG_TEST(test_repetitive),
	WG_TEST(test_random_mutations),
	WG_TEST(test_max_size),
	WG_TEST(test_one_index_many_targets),
	WG_TEST(test_large))
