/* The index (.git/index, gitformat-index(5)): the staging area between
 * the working tree and the next commit, as git reads and writes it.
 *
 * This layer is the file format and the sorted entry list, nothing more:
 * it reads versions 2, 3 and 4 (path prefix compression), with a SHA-1 or
 * SHA-256 trailer, and writes them back byte for byte as git would. The
 * extensions that matter for correctness are kept: the cache tree (TREE,
 * index/cache_tree.h) and resolve-undo (REUC, index/resolve_undo.h), and
 * conflict stages 1-3 in the entries. Caches git can rebuild (the
 * untracked cache, the fsmonitor bitmap, EOIE/IEOT offsets) are dropped
 * when read, as git drops an optional extension it does not know. What
 * would change the meaning of the entries and webgit does not implement
 * (a split index "link", a sparse index "sdir" or sparse directory
 * entries, any other required extension) is refused with a clear error.
 *
 * Stat data is kept as the file holds it; comparing it with the working
 * tree, and git's racy-git rule, belong to the working-tree layer, which
 * this header gives what it needs (wg_index_entry_is_racy). */
#ifndef WG_INDEX_INDEX_H
#define WG_INDEX_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "util/buf.h"

struct wg_cache_tree;
struct wg_resolve_undo;

/* stat(2) data as the index stores it: 32 bits each, truncated. */
struct wg_index_stat {
	uint32_t ctime_sec, ctime_nsec;
	uint32_t mtime_sec, mtime_nsec;
	uint32_t dev, ino;
	uint32_t uid, gid;
	uint32_t size;
};

/* Entry flags, as in the file (the 16-bit flags, then version 3's
 * extended ones). */
#define WG_INDEX_ASSUME_VALID  0x8000u
#define WG_INDEX_SKIP_WORKTREE 0x4000u  /* extended */
#define WG_INDEX_INTENT_TO_ADD 0x2000u  /* extended */

struct wg_index_entry {
	struct wg_index_stat st;
	uint32_t mode;          /* 0100644, 0100755, 0120000 or 0160000 */
	struct wg_oid oid;
	unsigned stage;         /* 0, or 1-3 for a conflict */
	unsigned flags;         /* WG_INDEX_* */
	size_t path_len;
	char path[];            /* NUL-terminated, relative to the top */
};

struct wg_index {
	const struct wg_hash_algo *algo;
	unsigned version;       /* 2, 3 or 4; 0 = git's default (2, or 3) */
	struct wg_index_entry **entries;  /* sorted: path (bytes), then stage */
	size_t nr, alloc;
	struct wg_cache_tree *cache_tree; /* NULL: none */
	struct wg_resolve_undo *resolve_undo; /* NULL: none */
	/* The index file's mtime when read (0 for a new index): an entry
	 * whose mtime is not older is racily clean. */
	int64_t mtime_sec;
	uint32_t mtime_nsec;
};

/* A new, empty index. */
int wg_index_new(struct wg_index **out, const struct wg_hash_algo *algo);
/* Parse an index file's bytes (the checksum is checked unless it is all
 * zeros, git's index.skipHash). WG_ECORRUPT with git's wording for what
 * is malformed, WG_EUNSUPPORTED for what is refused (see above). */
int wg_index_parse(struct wg_index **out, const struct wg_hash_algo *algo,
		   const unsigned char *data, size_t len);
/* Read the index at path; a missing file is an empty index. */
int wg_index_read(struct wg_index **out, const struct wg_hash_algo *algo, const char *path);
/* The file's bytes, as git writes them: version 3 only when an entry has
 * extended flags (2 otherwise, unless 4 was asked), then TREE and REUC. */
int wg_index_serialize(struct wg_buf *out, const struct wg_index *ix);
/* Write the index to path through a lock file (path.lock, renamed). */
int wg_index_write(const struct wg_index *ix, const char *path);
void wg_index_free(struct wg_index *ix);

/* A new entry (stat data zero, flags 0); NULL when out of memory. */
struct wg_index_entry *wg_index_entry_new(const char *path, size_t len, uint32_t mode,
					  const struct wg_oid *oid, unsigned stage);
/* git's order: path bytes, then stage. */
int wg_index_entry_cmp(const char *a, size_t alen, unsigned astage, const char *b, size_t blen,
		       unsigned bstage);
/* The position of (path, stage), or -(insertion point)-1. */
long wg_index_find(const struct wg_index *ix, const char *path, size_t len, unsigned stage);
/* Insert e (the index takes it), replacing the entry at the same path and
 * stage; the cache tree's nodes along its path are invalidated. */
int wg_index_add(struct wg_index *ix, struct wg_index_entry *e);
/* Remove the entry at pos (invalidating the cache tree along it). */
void wg_index_remove_at(struct wg_index *ix, size_t pos);
/* A path that is both a file and a directory ("a" and "a/b"), which no
 * working tree can hold: WG_EINVALID naming it, else 0. Stages do not
 * matter (a conflict's stages share one path). */
int wg_index_check_df(const struct wg_index *ix);
/* Is the entry racily clean: changed in the same second (or nanosecond)
 * the index was written, so stat data cannot tell? */
bool wg_index_entry_is_racy(const struct wg_index *ix, const struct wg_index_entry *e);

#endif
