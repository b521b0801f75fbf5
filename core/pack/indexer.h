/* The streaming pack indexer: what `git index-pack --stdin [--fix-thin]`
 * does, fed in chunks of any size (a byte at a time works) so the network
 * code can hand it fetch() chunks as they arrive.
 *
 *	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
 *	o.algo = algo; o.pack_dir = ".git/objects/pack"; o.bases = &src; o.fix_thin = true;
 *	wg_indexer_new(&ix, &o);
 *	while (more) wg_indexer_feed(ix, chunk, n);
 *	wg_indexer_finish(ix, pack_hash);
 *	wg_indexer_free(ix);
 *
 * Memory stays bounded whatever the pack size: the bytes go to a temporary
 * file as they stream in and are read back from it (pread) to resolve
 * deltas; only per-object metadata (offset, type, size, CRC-32, id, base)
 * is kept in memory. Objects are inflated and hashed as they arrive, so a
 * blob larger than the window is never held whole unless it is a delta
 * base. Deltas are resolved iteratively, children of each base in turn,
 * with inflated bases kept only while the total stays under `window`
 * (evicted bases are rebuilt from the file when needed again).
 *
 * Natively, finish() resolves on a pool of threads (`threads`, as git's
 * index-pack --threads and pack.threads): each takes whole delta trees,
 * one whole object and everything built on it, with a bound of `window`
 * of its own. The outputs are the same bytes whatever the count; what
 * differs is only the order the callbacks see the objects in (they are
 * called one at a time, never concurrently). Builds without threads
 * (WebAssembly) resolve on the calling thread.
 *
 * finish() checks the pack checksum and that every delta resolves (with
 * fix_thin, missing REF_DELTA bases are read from `odb` and appended to the
 * pack, whose header count and trailer are then rewritten, as git does),
 * then writes the .pack, .idx (v2) and .rev under temporary names and
 * renames them into place, the .idx last, so a reader sees all or nothing.
 * On any failure, and on abort/free before a successful finish, nothing is
 * left behind: no pack, no index, no temporary file. */
#ifndef WG_PACK_INDEXER_H
#define WG_PACK_INDEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "object/fsck.h"
#include "object/object.h"
#include "pack/object_source.h"
#include "util/buf.h"
#include "util/limits.h"

struct wg_indexer;

struct wg_indexer_progress {
	uint32_t total_objects;     /* from the pack header */
	uint32_t received_objects;  /* entries parsed so far */
	uint32_t total_deltas;      /* known once all are received */
	uint32_t resolved_deltas;
	uint32_t local_objects;     /* bases appended by fix_thin */
	uint64_t received_bytes;
};

/* Return non-zero to cancel (the indexer then fails with WG_ERROR). Called
 * from finish()'s worker threads too, one call at a time. */
typedef int (*wg_indexer_progress_cb)(const struct wg_indexer_progress *progress, void *payload);

#define WG_INDEXER_WINDOW_DEFAULT ((size_t)32 << 20)

struct wg_indexer_options {
	unsigned version;
	const struct wg_hash_algo *algo;  /* the repository's object format */
	/* Where the results go. pack_dir: "<pack_dir>/pack-<hash>.{pack,idx,rev}".
	 * pack_path / idx_path override those names; with neither pack_dir
	 * nor pack_path the pack is not kept (only the index, if idx_path),
	 * and with no output at all the indexer only verifies. */
	const char *pack_dir;
	const char *pack_path;
	const char *idx_path;
	/* Temporary files: default the directory of the first output above;
	 * required when there is no output. */
	const char *tmp_dir;
	const struct wg_object_source *bases; /* thin-pack bases; may be NULL */
	bool fix_thin;
	bool write_rev;             /* also write the .rev (git's default) */
	const char *keep_msg;       /* non-NULL: write a .keep with it */
	size_t window;              /* bound of cached bases (per thread); 0 = default */
	int compression_level;      /* zlib level of appended bases (git: 1) */
	/* NULL: no fsck. Its callbacks, like progress, may run on finish()'s
	 * worker threads, one call at a time. */
	const struct wg_fsck_options *fsck;
	wg_indexer_progress_cb progress;
	void *payload;
	/* Called with every commit, tree and tag whole, once its id is known
	 * (a clone's connectivity check); nonzero stops the indexing.
	 * `worker` (< WG_INDEXER_THREADS_MAX) is which of finish()'s workers
	 * resolved it, 0 while feeding and without threads. Calls of one
	 * worker never overlap; calls of different workers may run at the
	 * same time, so a callback keeps what it records per worker (a lock
	 * around every object kept the threaded WebAssembly build from going
	 * any faster than one thread). The order depends on the thread
	 * count. */
	int (*on_object)(unsigned worker, const struct wg_oid *oid, enum wg_object_type type,
			 const void *data, size_t len, void *payload);
	void *object_payload;
	/* Called in finish() once every object is resolved and the index is
	 * built in memory, before anything is installed: wg_indexer_find()
	 * and wg_indexer_read() work. Nonzero fails the indexing, and then
	 * nothing is left behind (the checks of received objects that need
	 * other objects: .gitmodules contents, connectivity). */
	int (*before_install)(struct wg_indexer *ix, void *payload);
	void *install_payload;
	/* Limits on what the pack may declare (util/limits.h): its object
	 * count (max_pack_objects), each object's and delta result's size
	 * (max_object_size), inflate ratio (max_inflate_ratio); all refused
	 * with WG_ELIMIT as soon as the entry header or delta header says
	 * so. NULL: the process-wide defaults. Copied by wg_indexer_new. */
	const struct wg_limits *limits;
	/* Threads resolving deltas in finish(): 0 picks as git does (one
	 * per core up to 3, then half the cores, at most 20), 1 resolves on
	 * the calling thread only; at most WG_INDEXER_THREADS_MAX. Ignored
	 * (always 1) in builds without threads. */
	unsigned threads;
};
#define WG_INDEXER_THREADS_MAX 64
#define WG_INDEXER_OPTIONS_INIT { 1, NULL, NULL, NULL, NULL, NULL, NULL, false, true, \
				  NULL, 0, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
				  0 }

int wg_indexer_new(struct wg_indexer **out, const struct wg_indexer_options *opts);
/* Consume len bytes. Errors are sticky: after one, every call fails. */
int wg_indexer_feed(struct wg_indexer *ix, const void *data, size_t len);
/* Complete the pack (see above). pack_hash receives algo->rawsz bytes. */
int wg_indexer_finish(struct wg_indexer *ix, unsigned char *pack_hash);
/* Give up: remove every temporary file. free() does it too. */
void wg_indexer_abort(struct wg_indexer *ix);
void wg_indexer_free(struct wg_indexer *ix);
/* After a successful finish: remove the final files this indexer put in
 * place (those already there before stay), the index first. For a caller
 * whose next step failed and that wants nothing left of the pack. */
void wg_indexer_uninstall(struct wg_indexer *ix);

const struct wg_indexer_progress *wg_indexer_progress(const struct wg_indexer *ix);

/* After a successful finish: the objects in pack order, for verify-pack. */
struct wg_indexer_object {
	struct wg_oid oid;
	enum wg_object_type type;   /* resolved type */
	enum wg_object_type pack_type; /* as stored: may be a delta type */
	uint64_t size;              /* the entry's inflated size (delta size for deltas) */
	uint64_t offset;
	uint64_t packed_size;       /* bytes of the entry in the pack */
	uint32_t depth;             /* delta chain length, 0 for non-deltas */
	uint32_t base;              /* index of the base object (deltas) */
};
uint32_t wg_indexer_object_count(const struct wg_indexer *ix);
void wg_indexer_object(const struct wg_indexer *ix, uint32_t i, struct wg_indexer_object *out);
/* From before_install on: the type of `oid` if the pack holds it, else
 * WG_OBJ_NONE (a binary search of the index; nothing is read). */
enum wg_object_type wg_indexer_find(const struct wg_indexer *ix, const struct wg_oid *oid);
/* From before_install on: an object's content by id, rebuilt from the
 * pack (deltas applied). WG_ENOTFOUND if the pack does not hold it;
 * max_size (0: none) refuses larger objects with WG_ELIMIT. */
int wg_indexer_read(struct wg_indexer *ix, const struct wg_oid *oid, enum wg_object_type *type,
		    struct wg_buf *out, size_t max_size);
/* The .idx bytes that were (or would have been) written. */
const struct wg_buf *wg_indexer_idx_data(const struct wg_indexer *ix);
/* Final paths (NULL when not written). */
const char *wg_indexer_pack_path(const struct wg_indexer *ix);
const char *wg_indexer_idx_path(const struct wg_indexer *ix);

#endif
