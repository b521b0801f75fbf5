/* Where a pack's entry bytes are read from: its file, optionally through a
 * few cached windows, as git reads packs through mmap windows. The object
 * walks (connectivity checks, fetch negotiation, log) read many small
 * entries close to one another, and one read call per entry is costly
 * where calls are: WebAssembly's host file systems (NODEFS) pay about 10
 * microseconds for each. */
#ifndef WG_PACK_PACK_SOURCE_H
#define WG_PACK_PACK_SOURCE_H

#include <stddef.h>
#include <stdint.h>

struct wg_pack_windows;

struct wg_pack_source {
	int fd;
	struct wg_pack_windows *windows;   /* NULL: read the file directly */
};

/* Windows over the first `size` bytes of fd (a file that no longer
 * changes). NULL when out of memory: reads then go to the file. */
struct wg_pack_windows *wg_pack_windows_new(int fd, uint64_t size);
void wg_pack_windows_free(struct wg_pack_windows *w);

/* All of len bytes at offset, or WG_EIO / WG_ECORRUPT (short file). */
int wg_pack_source_read(const struct wg_pack_source *src, void *buf, size_t len,
			uint64_t offset);

/* pread() all of len bytes or fail with WG_EIO / WG_ECORRUPT (short). */
int wg_pack_pread(int fd, void *buf, size_t len, uint64_t offset);

#endif
