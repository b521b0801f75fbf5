#include "pack/pack_source.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/error.h"

/* 8 windows of 256 KiB: 2 MiB per open pack. Reads of half a window or
 * more go to the file: a big object gains nothing from the copy. */
#define WINDOW_SIZE (256u * 1024)
#define WINDOW_COUNT 8
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
	struct window w[WINDOW_COUNT];
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

struct wg_pack_windows *wg_pack_windows_new(int fd, uint64_t size)
{
	struct wg_pack_windows *w = wg_calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = fd;
	w->size = size;
	return w;
}

void wg_pack_windows_free(struct wg_pack_windows *w)
{
	if (!w)
		return;
	for (unsigned i = 0; i < WINDOW_COUNT; i++)
		wg_free(w->w[i].data);
	wg_free(w);
}

/* The window holding [offset, offset + len), loaded if needed; NULL when
 * none can (out of memory): the caller reads the file. */
static struct window *window_for(struct wg_pack_windows *w, size_t len, uint64_t offset,
				 int *err)
{
	struct window *lru = &w->w[0];
	uint64_t start;

	for (unsigned i = 0; i < WINDOW_COUNT; i++) {
		struct window *x = &w->w[i];
		if (x->data && offset >= x->start && offset + len <= x->start + x->len) {
			x->used = ++w->clock;
			return x;
		}
		if (!x->data || x->used < lru->used)
			lru = x;
	}
	if (!lru->data && !(lru->data = wg_malloc(WINDOW_SIZE)))
		return NULL;
	start = offset & ~(uint64_t)(WINDOW_ALIGN - 1);
	lru->start = start;
	lru->len = w->size - start < WINDOW_SIZE ? (size_t)(w->size - start) : WINDOW_SIZE;
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

	if (!src->windows || len >= WINDOW_SIZE / 2)
		return wg_pack_pread(src->fd, buf, len, offset);
	if (!(x = window_for(src->windows, len, offset, &err)))
		return err ? err : wg_pack_pread(src->fd, buf, len, offset);
	memcpy(buf, x->data + (offset - x->start), len);
	return 0;
}
