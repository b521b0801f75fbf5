/* A growable list of owned strings: the paths and names a walk collects
 * before it sorts or acts on them. Zero-initialised is empty. */
#ifndef WG_UTIL_STRLIST_H
#define WG_UTIL_STRLIST_H

#include <stddef.h>

struct wg_strlist {
	char **v;
	size_t n, alloc;
};

/* Append a copy of s (len bytes, NUL-terminated in the copy). The array
 * grows to 16 and then doubles, so a caller keeping a parallel array can
 * grow it by the same rule. WG_ENOMEM. */
int wg_strlist_add(struct wg_strlist *l, const char *s, size_t len);
/* Free the strings and the array; the list is empty again. */
void wg_strlist_release(struct wg_strlist *l);

#endif
