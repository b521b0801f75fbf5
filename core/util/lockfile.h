/* Lock files with Git's semantics: to replace `path`, create "<path>.lock"
 * exclusively, write the new contents into it, then rename it over `path`
 * (commit) or unlink it (rollback). Readers never see a half-written file,
 * and two writers cannot both hold the lock, because O_EXCL creation is the
 * lock. Git uses the same protocol, so a lock taken here also keeps a real
 * git process out, and the other way round.
 *
 * Plain POSIX calls only (open, write, fsync, rename, unlink), so the same
 * code works natively and on Emscripten's MEMFS/IDBFS.
 *
 *	struct wg_lockfile lk = WG_LOCKFILE_INIT;
 *	if ((err = wg_lockfile_acquire(&lk, path)))
 *		return err;
 *	if ((err = wg_lockfile_write(&lk, data, len)) ||
 *	    (err = wg_lockfile_commit(&lk))) {
 *		wg_lockfile_rollback(&lk);
 *		return err;
 *	}
 *
 * wg_lockfile_rollback() after a successful commit, or on a lock that was
 * never acquired (WG_LOCKFILE_INIT, or all-zero memory), does nothing, so it
 * can sit unconditionally on a cleanup path. */
#ifndef WG_UTIL_LOCKFILE_H
#define WG_UTIL_LOCKFILE_H

#include <stddef.h>

/* The fields are visible only so a lock can live on the stack; treat them
 * as private. */
struct wg_lockfile {
	int fd;           /* -1 when not open */
	char *path;       /* the file being replaced */
	char *lock_path;  /* path + ".lock"; NULL when no lock is held */
};

#define WG_LOCKFILE_INIT { -1, NULL, NULL }

/* Create "<path>.lock" with O_CREAT|O_EXCL. WG_ELOCKED if it already
 * exists (another process holds it, or one crashed and left it behind);
 * WG_EIO for other failures (missing directory, permissions). `lk` is
 * (re)initialised whatever happens, so rolling back after a failed acquire
 * is safe; do not acquire again while `lk` still holds a lock (that lock
 * would leak). */
int wg_lockfile_acquire(struct wg_lockfile *lk, const char *path);

/* Append bytes to the lock file, retrying short writes. */
int wg_lockfile_write(struct wg_lockfile *lk, const void *data, size_t len);

/* Flush the lock file's contents to stable storage before commit. Optional:
 * callers that need durability (refs, the index under core.fsync) call it,
 * others skip the cost. */
int wg_lockfile_fsync(struct wg_lockfile *lk);

/* Close the lock file and rename it over the target. On failure the lock
 * file is removed and the target is left untouched. Either way the lock is
 * released. */
int wg_lockfile_commit(struct wg_lockfile *lk);

/* Close and remove the lock file, leaving the target untouched. */
void wg_lockfile_rollback(struct wg_lockfile *lk);

/* The lock file's path ("<path>.lock"), or NULL when no lock is held. */
const char *wg_lockfile_lock_path(const struct wg_lockfile *lk);

#endif
