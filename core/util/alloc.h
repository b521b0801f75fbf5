/* Allocation through a replaceable allocator, so tests can inject failures
 * (zlib's zalloc style). All core code allocates through these; a NULL
 * return is reported as WG_ENOMEM by the caller. */
#ifndef WG_UTIL_ALLOC_H
#define WG_UTIL_ALLOC_H

#include <stddef.h>

struct wg_allocator {
	void *(*malloc)(size_t size, void *payload);
	void *(*realloc)(void *ptr, size_t size, void *payload);
	void (*free)(void *ptr, void *payload);
	void *payload;
};

/* Install an allocator (NULL restores the C library's). Not thread-safe:
 * meant for process start-up and tests. */
void wg_allocator_set(const struct wg_allocator *allocator);

void *wg_malloc(size_t size);
void *wg_calloc(size_t count, size_t size);  /* checks count*size overflow */
void *wg_realloc(void *ptr, size_t size);
void wg_free(void *ptr);
char *wg_strndup(const char *s, size_t len);
char *wg_strdup(const char *s);
/* Replace the string *slot owns with a copy of value (NULL clears it);
 * WG_ENOMEM (no message set) leaves *slot as it was. */
int wg_str_replace(char **slot, const char *value);

/* Checked arithmetic for sizes that come from untrusted input. Return 0 on
 * success, -1 on overflow. */
int wg_size_add(size_t *out, size_t a, size_t b);
int wg_size_mul(size_t *out, size_t a, size_t b);

#endif
