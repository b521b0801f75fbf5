#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* Below this many elements insertion sort wins. */
#define RUN 16

static void insertion(unsigned char *a, size_t n, size_t size,
		      int (*cmp)(const void *, const void *), unsigned char *tmp)
{
	for (size_t i = 1; i < n; i++) {
		size_t j = i;
		if (cmp(a + (j - 1) * size, a + j * size) <= 0)
			continue;
		memcpy(tmp, a + i * size, size);
		while (j > 0 && cmp(a + (j - 1) * size, tmp) > 0) {
			memcpy(a + j * size, a + (j - 1) * size, size);
			j--;
		}
		memcpy(a + j * size, tmp, size);
	}
}

/* Bottom-up: sorted runs of RUN elements, then merges of doubling width
 * between `a` and `b`, ending in `a`. */
void wg_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	unsigned char *a = base, *b, *src, *dst;

	if (n < 2)
		return;
	if (n <= RUN || !(b = wg_malloc(n * size + size))) {
		if (n <= RUN) {
			unsigned char tmp[256];
			if (size <= sizeof(tmp)) {
				insertion(a, n, size, cmp, tmp);
				return;
			}
		}
		qsort(base, n, size, cmp);
		return;
	}
	for (size_t i = 0; i < n; i += RUN)
		insertion(a + i * size, n - i < RUN ? n - i : RUN, size, cmp, b + n * size);
	src = a;
	dst = b;
	for (size_t width = RUN; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;
			/* Already in order: one copy. */
			if (mid == hi || cmp(src + (mid - 1) * size, src + mid * size) <= 0) {
				memcpy(dst + lo * size, src + lo * size, (hi - lo) * size);
				continue;
			}
			while (i < mid && j < hi) {
				if (cmp(src + j * size, src + i * size) < 0)
					memcpy(dst + k++ * size, src + j++ * size, size);
				else
					memcpy(dst + k++ * size, src + i++ * size, size);
			}
			memcpy(dst + k * size, src + i * size, (mid - i) * size);
			k += mid - i;
			memcpy(dst + k * size, src + j * size, (hi - j) * size);
		}
		unsigned char *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * size);
	wg_free(b);
}
