/* A stable merge sort with qsort()'s interface, for the large sorts of
 * packs and indexes (100,000s of entries). WebAssembly's C library (musl)
 * implements qsort() as smoothsort, which took about 6% of a big clone's
 * time there; glibc's qsort() is already a merge sort. */
#ifndef WG_UTIL_SORT_H
#define WG_UTIL_SORT_H

#include <stddef.h>

/* Sort n elements of `size` bytes. Needs n * size bytes of scratch: when
 * that cannot be had, falls back to qsort() (same order for distinct keys;
 * equal keys then lose their relative order). */
void wg_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
