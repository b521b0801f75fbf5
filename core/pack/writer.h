/* Writing packs (what `git pack-objects` does, for push and repacking).
 *
 * The caller names the objects (with the path they were reached by, as
 * `git rev-list --objects` prints it, when known); the writer reads them
 * from an object database, chooses delta bases with Git's sliding window
 * (objects sorted by type, a hash of the path's last characters, then size
 * descending, so that versions of one file meet in the window) and streams
 * a version 2 pack to a sink callback: a file (wg_pack_file_sink), a
 * network connection, a buffer. Deltas are OFS_DELTA against an object
 * written earlier in the same pack, or, in a thin pack, REF_DELTA against
 * an object the receiver already has ("have" objects, never sent).
 *
 * Memory stays bounded: the delta search holds only the objects of the
 * window inflated; deltas are kept between search and write only when they
 * are small (up to a configurable total), the others are computed again
 * while writing. The pack is written in "recency" order: commits and tags,
 * then trees, then the rest grouped by delta family, every base before its
 * deltas.
 *
 * Use: wg_pack_writer_new, wg_pack_writer_add (and _add_have) for every
 * object, wg_pack_writer_write once, then wg_pack_writer_checksum and
 * wg_pack_writer_write_idx for the .idx and .rev; or wg_pack_writer_write_files
 * to do all of that into "<base>-<checksum>.pack/.idx/.rev" files. */
#ifndef WG_PACK_WRITER_H
#define WG_PACK_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "pack/object_source.h"
#include "util/buf.h"

/* Receives the pack bytes in order. A non-zero return stops the writer and
 * is returned by wg_pack_writer_write (set a message with wg_error_set). */
typedef int (*wg_pack_sink_fn)(const void *data, size_t len, void *payload);

struct wg_pack_writer_options {
	unsigned version;
	unsigned window;          /* candidates tried per object; 0 = no deltas */
	unsigned depth;           /* longest delta chain; 0 = no deltas */
	int compression;          /* zlib level 0-9, or -1 for zlib's default */
	bool thin;                /* allow REF_DELTA against "have" objects */
	size_t delta_cache_size;  /* bytes of deltas kept from search to write */
	size_t big_file_threshold;/* larger objects are stored whole */
	size_t window_memory;     /* 0 = no limit; else shrink the window */
};
#define WG_PACK_WRITER_OPTIONS_INIT \
	{ 1, 10, 50, -1, false, 64u << 20, 512u << 20, 0 }

struct wg_pack_writer_stats {
	uint32_t objects;       /* written into the pack */
	uint32_t deltas;        /* of which as deltas */
	uint32_t thin_deltas;   /* of which against "have" objects (REF_DELTA) */
	uint64_t pack_size;     /* bytes, trailer included */
	uint32_t recomputed;    /* deltas computed again while writing */
};

struct wg_pack_writer;

/* The odb is borrowed and must outlive the writer. opts may be NULL. */
int wg_pack_writer_new(struct wg_pack_writer **out, const struct wg_object_source *src,
		       const struct wg_pack_writer_options *opts);
void wg_pack_writer_free(struct wg_pack_writer *w);

/* Add an object to send; `path` (may be NULL) is the name it was reached
 * by, used only to group similar objects for delta search. Adding the same
 * object twice keeps the first. Its type and size are read now:
 * WG_ENOTFOUND if the odb does not have it. */
int wg_pack_writer_add(struct wg_pack_writer *w, const struct wg_oid *oid, const char *path);

/* Declare an object the receiver has: with opts.thin it may serve as a
 * delta base without being sent. Ignored if it is also added to be sent;
 * silently skipped if the odb does not have it (it is only an
 * opportunity). Without opts.thin this does nothing. */
int wg_pack_writer_add_have(struct wg_pack_writer *w, const struct wg_oid *oid,
			    const char *path);

/* Number of objects that will be written. */
uint32_t wg_pack_writer_count(const struct wg_pack_writer *w);

/* Choose deltas and stream the whole pack to sink. Call once. */
int wg_pack_writer_write(struct wg_pack_writer *w, wg_pack_sink_fn sink, void *payload);

/* After a successful write: the pack's trailing checksum (its name). */
int wg_pack_writer_checksum(const struct wg_pack_writer *w, struct wg_oid *out);
/* After a successful write: append the .idx v2 and the .rev (either may be
 * NULL) for the written pack, as `git index-pack` would write them. */
int wg_pack_writer_write_idx(struct wg_pack_writer *w, struct wg_buf *idx, struct wg_buf *rev);
void wg_pack_writer_get_stats(const struct wg_pack_writer *w, struct wg_pack_writer_stats *out);

/* Write "<base>-<hex>.pack", ".idx" and (with write_rev) ".rev", where hex
 * is the pack checksum, each made under a temporary name and renamed into
 * place, the .idx last, so a reader never sees a pack without its index.
 * The checksum goes to checksum_out (may be NULL). */
int wg_pack_writer_write_files(struct wg_pack_writer *w, const char *base, bool write_rev,
			       struct wg_oid *checksum_out);

/* A sink writing to a file descriptor through a 64 KiB buffer (on the
 * heap: WebAssembly stacks are small). The descriptor stays the caller's. */
struct wg_pack_fd_sink;
int wg_pack_fd_sink_new(struct wg_pack_fd_sink **out, int fd);
/* The wg_pack_sink_fn; payload is a struct wg_pack_fd_sink. */
int wg_pack_fd_sink_write(const void *data, size_t len, void *payload);
/* Write out what is buffered. */
int wg_pack_fd_sink_flush(struct wg_pack_fd_sink *sink);
/* Frees without flushing. */
void wg_pack_fd_sink_free(struct wg_pack_fd_sink *sink);

/* A sink appending to a struct wg_buf (payload), for tests and small packs. */
int wg_pack_buf_sink_write(const void *data, size_t len, void *payload);

/* Git's pack name hash: a number that sorts paths by their last sixteen
 * non-blank characters, so "a/x.c" and "b/x.c" and other ".c" files meet. */
uint32_t wg_pack_name_hash(const char *path);

#endif
