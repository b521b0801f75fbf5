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

/* How the reader will move through the file: in runs of neighbouring
 * entries (the indexer resolving deltas in pack order: 256 KiB windows)
 * or a few entries here and there (objects looked up by id: a diff or a
 * blame touches a dozen places in the pack for a few hundred bytes each,
 * so 64 KiB windows, and more of them, read less for the same hits). */
enum wg_pack_access {
	WG_PACK_ACCESS_SEQUENTIAL,
	WG_PACK_ACCESS_SCATTERED,
};

/* Windows over the first `size` bytes of fd (a file that no longer
 * changes). NULL when out of memory: reads then go to the file. */
struct wg_pack_windows *wg_pack_windows_new(int fd, uint64_t size, enum wg_pack_access access);
void wg_pack_windows_free(struct wg_pack_windows *w);
/* The file windows kept from another descriptor of the same pack
 * (pack/pack_cache.h) read from now on: 0, or -1 when w covers a
 * different size (then it must not be used for fd). */
int wg_pack_windows_rebind(struct wg_pack_windows *w, int fd, uint64_t size);
/* Bytes the loaded windows hold. */
size_t wg_pack_windows_bytes(const struct wg_pack_windows *w);

/* All of len bytes at offset, or WG_EIO / WG_ECORRUPT (short file). */
int wg_pack_source_read(const struct wg_pack_source *src, void *buf, size_t len,
			uint64_t offset);

/* pread() all of len bytes or fail with WG_EIO / WG_ECORRUPT (short). */
int wg_pack_pread(int fd, void *buf, size_t len, uint64_t offset);

#endif
