#include "pack/pack_source.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/error.h"

/* 2 MiB of windows per open pack, in windows of the size the reader
 * asks for (see pack_source.h). Reads of half a window or more go to the
 * file: a big object gains nothing from the copy. */
#define WINDOW_BYTES ((size_t)2 << 20)
#define WINDOW_MAX_COUNT 32
#define WINDOW_ALIGN 4096u

struct window {
	unsigned char *data;    /* NULL: not loaded yet */
	uint64_t start;
	size_t len;
	uint64_t used;          /* when last read: for LRU */
};

struct wg_pack_windows {
	int fd;
	uint64_t size;
	uint64_t clock;
	size_t window_size;
	unsigned count;
	struct window w[WINDOW_MAX_COUNT];
};

int wg_pack_pread(int fd, void *buf, size_t len, uint64_t offset)
{
	unsigned char *p = buf;
	while (len) {
		ssize_t n = wg_fs_pread(fd, p, len, (off_t)offset);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return wg_error_set(WG_EIO, "cannot read pack: %s", strerror(errno));
		}
		if (!n)
			return wg_error_set(WG_ECORRUPT, "pack is truncated at offset %llu",
					    (unsigned long long)offset);
		p += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

struct wg_pack_windows *wg_pack_windows_new(int fd, uint64_t size, enum wg_pack_access access)
{
	struct wg_pack_windows *w = wg_calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = fd;
	w->size = size;
	w->window_size = access == WG_PACK_ACCESS_SCATTERED ? (size_t)64 << 10 : (size_t)256 << 10;
	w->count = (unsigned)(WINDOW_BYTES / w->window_size);
	if (w->count > WINDOW_MAX_COUNT)
		w->count = WINDOW_MAX_COUNT;
	return w;
}

void wg_pack_windows_free(struct wg_pack_windows *w)
{
	if (!w)
		return;
	for (unsigned i = 0; i < w->count; i++)
		wg_free(w->w[i].data);
	wg_free(w);
}

int wg_pack_windows_rebind(struct wg_pack_windows *w, int fd, uint64_t size)
{
	if (w->size != size)
		return -1;
	w->fd = fd;
	return 0;
}

size_t wg_pack_windows_bytes(const struct wg_pack_windows *w)
{
	size_t n = 0;
	for (unsigned i = 0; i < w->count; i++)
		if (w->w[i].data)
			n += w->window_size;
	return n;
}

/* The window holding [offset, offset + len), loaded if needed; NULL when
 * none can (out of memory): the caller reads the file. */
static struct window *window_for(struct wg_pack_windows *w, size_t len, uint64_t offset,
				 int *err)
{
	struct window *lru = &w->w[0];
	uint64_t start;

	for (unsigned i = 0; i < w->count; i++) {
		struct window *x = &w->w[i];
		if (x->data && offset >= x->start && offset + len <= x->start + x->len) {
			x->used = ++w->clock;
			return x;
		}
		if (!x->data || x->used < lru->used)
			lru = x;
	}
	if (!lru->data && !(lru->data = wg_malloc(w->window_size)))
		return NULL;
	start = offset & ~(uint64_t)(WINDOW_ALIGN - 1);
	lru->start = start;
	lru->len = w->size - start < w->window_size ? (size_t)(w->size - start) : w->window_size;
	lru->used = ++w->clock;
	if (offset + len > start + lru->len) {
		/* Past the end of the file: the plain read reports it. */
		lru->len = 0;
		return NULL;
	}
	if ((*err = wg_pack_pread(w->fd, lru->data, lru->len, start))) {
		lru->len = 0;
		return NULL;
	}
	return lru;
}

int wg_pack_source_read(const struct wg_pack_source *src, void *buf, size_t len,
			uint64_t offset)
{
	struct window *x;
	int err = 0;

	if (!src->windows || len >= src->windows->window_size / 2)
		return wg_pack_pread(src->fd, buf, len, offset);
	if (!(x = window_for(src->windows, len, offset, &err)))
		return err ? err : wg_pack_pread(src->fd, buf, len, offset);
	memcpy(buf, x->data + (offset - x->start), len);
	return 0;
}
