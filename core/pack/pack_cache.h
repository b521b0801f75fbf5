/* What an open pack keeps between repository opens: its index and its
 * read windows.
 *
 * A host that opens the repository for every call (the JS API does: each
 * call mounts the directory, opens, answers and closes) would otherwise
 * read every .idx whole on every call (5 MB for a 100k-object history,
 * hundreds of MB for a large one, to look up a few ids) and load its
 * pack windows again (a diff reads a few objects from each of a dozen
 * places in the pack: a 256 KiB window each). With a budget set, the
 * index and the windows of a pack nobody holds any more are kept (up to
 * the budget, least recently used out first), and the next open of the
 * same pack takes them instead of reading the files again.
 *
 * "The same pack" is the index file's name (pack-<checksum>.idx), size,
 * device, inode and modification time as stat() reports them before and
 * after it is read: an index is written once and renamed into place,
 * never changed where it is, and the mount point in its path may differ
 * from call to call (the JS API mounts a host directory at a fresh path
 * each time). Windows are bytes of the .pack, whose trailing checksum
 * wg_pack_open has matched with the one the index records: the same
 * index, the same pack bytes.
 *
 * The budget is 0 unless a host sets it: then every index is read at
 * open and freed at close, as without the cache (the CLI opens once per
 * process). Not thread-safe: set and used by single-threaded hosts. */
#ifndef WG_PACK_PACK_CACHE_H
#define WG_PACK_PACK_CACHE_H

#include <stddef.h>

#include "pack/idx.h"
#include "pack/pack_source.h"

/* Bytes of indexes and windows nobody holds that may stay in memory (0:
 * none; what is kept beyond it is freed now). */
void wg_pack_cache_set_budget(size_t bytes);

/* wg_pack_idx_open, or the index already read from the same file. */
int wg_pack_cache_open_idx(struct wg_pack_idx **out, const char *path,
			   const struct wg_hash_algo *algo);
/* The windows kept for idx's pack, now the caller's (rebind them to its
 * descriptor); NULL when none are kept. */
struct wg_pack_windows *wg_pack_cache_take_windows(const struct wg_pack_idx *idx);
/* Done with an index from wg_pack_cache_open_idx and with the pack's
 * windows (either may be NULL): both are kept if there is room, else
 * freed. */
void wg_pack_cache_release(struct wg_pack_idx *idx, struct wg_pack_windows *windows);

#endif
