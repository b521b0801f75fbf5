#include "util/lockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/error.h"

#define LOCK_SUFFIX ".lock"

static void lockfile_clear(struct wg_lockfile *lk)
{
	wg_free(lk->path);
	wg_free(lk->lock_path);
	lk->fd = -1;
	lk->path = NULL;
	lk->lock_path = NULL;
}

int wg_lockfile_acquire(struct wg_lockfile *lk, const char *path)
{
	size_t len, lock_len;
	int fd;

	lk->fd = -1;
	lk->path = NULL;
	lk->lock_path = NULL;
	if (!path || !*path)
		return wg_error_set(WG_EINVALID, "cannot lock an empty path");
	len = strlen(path);
	if (wg_size_add(&lock_len, len, sizeof(LOCK_SUFFIX)))
		return wg_error_set(WG_EINVALID, "path too long to lock");
	lk->path = wg_strndup(path, len);
	lk->lock_path = wg_malloc(lock_len);
	if (!lk->path || !lk->lock_path) {
		lockfile_clear(lk);
		return wg_error_set(WG_ENOMEM, "out of memory locking '%s'", path);
	}
	memcpy(lk->lock_path, path, len);
	memcpy(lk->lock_path + len, LOCK_SUFFIX, sizeof(LOCK_SUFFIX));

	/* O_EXCL is the whole locking protocol: exactly one creator wins,
	 * on every filesystem git itself supports and in Emscripten's. */
	do {
		fd = wg_fs_open(lk->lock_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		int saved = errno;
		int code = saved == EEXIST ? WG_ELOCKED : WG_EIO;
		if (saved == EEXIST)
			wg_error_set(code, "Unable to create '%s': File exists. "
				     "Another git process seems to be running in this "
				     "repository; if none is, a git process may have "
				     "crashed here earlier: remove the file manually "
				     "to continue.", lk->lock_path);
		else
			wg_error_set(code, "Unable to create '%s': %s", lk->lock_path,
				     strerror(saved));
		lockfile_clear(lk);
		return code;
	}
	lk->fd = fd;
	return 0;
}

int wg_lockfile_write(struct wg_lockfile *lk, const void *data, size_t len)
{
	if (!lk->lock_path || lk->fd < 0)
		return wg_error_set(WG_EINVALID, "writing to a lock file that is not held");
	if (wg_fs_write_all(lk->fd, data, len))
		return wg_error_set(WG_EIO, "could not write to '%s': %s", lk->lock_path,
				    strerror(errno));
	return 0;
}

int wg_lockfile_fsync(struct wg_lockfile *lk)
{
	if (!lk->lock_path || lk->fd < 0)
		return wg_error_set(WG_EINVALID, "syncing a lock file that is not held");
	if (wg_fs_fsync(lk->fd) < 0 && errno != EINVAL && errno != ENOSYS)
		/* EINVAL/ENOSYS: the filesystem (e.g. an in-memory one) has
		 * nothing to flush, which is not a failure. */
		return wg_error_set(WG_EIO, "could not fsync '%s': %s", lk->lock_path,
				    strerror(errno));
	return 0;
}

int wg_lockfile_commit(struct wg_lockfile *lk)
{
	int fd = lk->fd;
	if (!lk->lock_path)
		return wg_error_set(WG_EINVALID, "committing a lock file that is not held");
	lk->fd = -1;
	/* close() can be where a deferred write error (NFS, quota) shows up:
	 * never rename a file whose contents may be incomplete. */
	if (fd >= 0 && wg_fs_close(fd) < 0 && errno != EINTR) {
		int saved = errno;
		wg_error_set(WG_EIO, "could not close '%s': %s", lk->lock_path,
			     strerror(saved));
		wg_lockfile_rollback(lk);
		return WG_EIO;
	}
	if (wg_fs_rename(lk->lock_path, lk->path) < 0) {
		int saved = errno;
		wg_error_set(WG_EIO, "could not rename '%s' to '%s': %s", lk->lock_path,
			     lk->path, strerror(saved));
		wg_lockfile_rollback(lk);
		return WG_EIO;
	}
	lockfile_clear(lk);
	return 0;
}

void wg_lockfile_rollback(struct wg_lockfile *lk)
{
	/* Only a held lock (lock_path set) owns a descriptor: a zeroed
	 * struct, whose fd reads as 0, must not close stdin. */
	if (!lk || !lk->lock_path)
		return;
	if (lk->fd >= 0)
		wg_fs_close(lk->fd);
	wg_fs_unlink(lk->lock_path);
	lockfile_clear(lk);
}

const char *wg_lockfile_lock_path(const struct wg_lockfile *lk)
{
	return lk ? lk->lock_path : NULL;
}
