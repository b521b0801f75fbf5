/* Unit tests for wg_sort (util/sort.h): the same order as qsort for every
 * size from 0 to a few thousand and for several element sizes, equal keys
 * kept in their input order (stable), presorted and reversed input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/sort.h"

struct item {
	uint32_t key;
	uint32_t seq;       /* input position: checks stability */
	unsigned char pad[24];
};

static int cmp_key(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint32_t rng = 12345;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void check_items(size_t n, uint32_t range, int shape)
{
	struct item *v = calloc(n ? n : 1, sizeof(*v));
	size_t i;
	int ok = 1;

	for (i = 0; i < n; i++) {
		v[i].key = shape == 1 ? (uint32_t)i : shape == 2 ? (uint32_t)(n - i) : next() % range;
		v[i].seq = (uint32_t)i;
		memset(v[i].pad, (int)(i & 0xff), sizeof(v[i].pad));
	}
	wg_sort(v, n, sizeof(*v), cmp_key);
	for (i = 1; i < n; i++) {
		if (v[i - 1].key > v[i].key ||
		    (v[i - 1].key == v[i].key && v[i - 1].seq > v[i].seq))
			ok = 0;
	}
	for (i = 0; i < n; i++)
		if (v[i].pad[0] != (unsigned char)(v[i].seq & 0xff))
			ok = 0;   /* an element was torn apart */
	CHECK(ok);
	free(v);
}

static void test_items(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 1000, 4097 };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
		check_items(sizes[s], 7, 0);          /* many equal keys */
		check_items(sizes[s], 1u << 30, 0);   /* mostly distinct */
		check_items(sizes[s], 0, 1);          /* sorted */
		check_items(sizes[s], 0, 2);          /* reversed */
	}
}

static void test_same_as_qsort(void)
{
	size_t n = 50000;
	uint64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] = ((uint64_t)next() << 32) | next();
	wg_sort(a, n, sizeof(*a), cmp_u64);
	qsort(b, n, sizeof(*b), cmp_u64);
	CHECK(memcmp(a, b, n * sizeof(*a)) == 0);
	free(a);
	free(b);
}

WG_TEST_MAIN("sort",
	WG_TEST(test_items),
	WG_TEST(test_same_as_qsort))
