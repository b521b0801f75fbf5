#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static void *libc_malloc(size_t n, void *p) { (void)p; return malloc(n ? n : 1); }
static void *libc_realloc(void *ptr, size_t n, void *p) { (void)p; return realloc(ptr, n ? n : 1); }
static void libc_free(void *ptr, void *p) { (void)p; free(ptr); }

static const struct wg_allocator libc_allocator = { libc_malloc, libc_realloc, libc_free, NULL };
static struct wg_allocator current = { libc_malloc, libc_realloc, libc_free, NULL };

void wg_allocator_set(const struct wg_allocator *allocator)
{
	current = allocator ? *allocator : libc_allocator;
}

void *wg_malloc(size_t size) { return current.malloc(size, current.payload); }

void *wg_calloc(size_t count, size_t size)
{
	size_t total;
	void *p;
	if (wg_size_mul(&total, count, size))
		return NULL;
	p = wg_malloc(total);
	if (p)
		memset(p, 0, total);
	return p;
}

void *wg_realloc(void *ptr, size_t size) { return current.realloc(ptr, size, current.payload); }

void wg_free(void *ptr)
{
	if (ptr)
		current.free(ptr, current.payload);
}

char *wg_strndup(const char *s, size_t len)
{
	char *p = wg_malloc(len + 1);
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

char *wg_strdup(const char *s) { return wg_strndup(s, strlen(s)); }

int wg_str_replace(char **slot, const char *value)
{
	char *copy = NULL;
	if (value && !(copy = wg_strdup(value)))
		return WG_ENOMEM;
	wg_free(*slot);
	*slot = copy;
	return 0;
}

int wg_size_add(size_t *out, size_t a, size_t b)
{
	if (a > SIZE_MAX - b)
		return -1;
	*out = a + b;
	return 0;
}

int wg_size_mul(size_t *out, size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		return -1;
	*out = a * b;
	return 0;
}
