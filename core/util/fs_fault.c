#include "util/fs_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

/* Descriptors opened for writing, with their paths (for the trace and to
 * count their close). Tests open few files at once. */
#define MAX_TRACKED_FD 1024

static struct {
	bool installed;
	const struct wg_fs_ops *inner;
	struct wg_fs_fault spec;
	unsigned long count;
	bool fired;
	char *fd_path[MAX_TRACKED_FD];
} ff;

/* Number the call; true if it is the one that fails (errno is then set,
 * unless the action stops the process, which happens here). */
static bool cut(const char *op, const char *path)
{
	unsigned long n = ++ff.count;
	if (ff.spec.trace)
		ff.spec.trace(n, op, path ? path : "", ff.spec.payload);
	if (n != ff.spec.fail_at)
		return false;
	ff.fired = true;
	switch (ff.spec.action) {
	case WG_FS_FAULT_EXIT:
		_exit(ff.spec.exit_code);
	case WG_FS_FAULT_ENOSPC:
		errno = ENOSPC;
		return true;
	case WG_FS_FAULT_EIO:
	default:
		errno = EIO;
		return true;
	}
}

static const char *fd_path(int fd)
{
	return fd >= 0 && fd < MAX_TRACKED_FD ? ff.fd_path[fd] : NULL;
}

static void track(int fd, const char *path)
{
	if (fd < 0 || fd >= MAX_TRACKED_FD)
		return;
	wg_free(ff.fd_path[fd]);
	ff.fd_path[fd] = wg_strdup(path);
}

static void untrack(int fd)
{
	if (fd < 0 || fd >= MAX_TRACKED_FD)
		return;
	wg_free(ff.fd_path[fd]);
	ff.fd_path[fd] = NULL;
}

static int f_open(const char *path, int flags, int mode)
{
	int fd;
	if (!(flags & (O_CREAT | O_WRONLY | O_RDWR | O_TRUNC)))
		return ff.inner->open(path, flags, mode);
	if (cut("open", path))
		return -1;
	if ((fd = ff.inner->open(path, flags, mode)) >= 0)
		track(fd, path);
	return fd;
}

static int f_close(int fd)
{
	const char *path = fd_path(fd);
	int r;
	if (!path)
		return ff.inner->close(fd);
	if (cut("close", path)) {
		/* A failed close still releases the descriptor. */
		int saved = errno;
		ff.inner->close(fd);
		untrack(fd);
		errno = saved;
		return -1;
	}
	r = ff.inner->close(fd);
	untrack(fd);
	return r;
}

static ssize_t f_read(int fd, void *buf, size_t len)
{
	return ff.inner->read(fd, buf, len);
}

static ssize_t f_pread(int fd, void *buf, size_t len, int64_t offset)
{
	return ff.inner->pread(fd, buf, len, offset);
}

/* ENOSPC on a write: the first half of the bytes reach the file. */
static void partial_write(int fd, const void *buf, size_t len, int64_t offset, bool at)
{
	int saved = errno;
	if (saved == ENOSPC && len / 2) {
		if (at)
			(void)ff.inner->pwrite(fd, buf, len / 2, offset);
		else
			(void)ff.inner->write(fd, buf, len / 2);
	}
	errno = saved;
}

static ssize_t f_write(int fd, const void *buf, size_t len)
{
	if (cut("write", fd_path(fd))) {
		partial_write(fd, buf, len, 0, false);
		return -1;
	}
	return ff.inner->write(fd, buf, len);
}

static ssize_t f_pwrite(int fd, const void *buf, size_t len, int64_t offset)
{
	if (cut("pwrite", fd_path(fd))) {
		partial_write(fd, buf, len, offset, true);
		return -1;
	}
	return ff.inner->pwrite(fd, buf, len, offset);
}

static int f_fsync(int fd)
{
	return cut("fsync", fd_path(fd)) ? -1 : ff.inner->fsync(fd);
}

static int f_ftruncate(int fd, int64_t len)
{
	return cut("ftruncate", fd_path(fd)) ? -1 : ff.inner->ftruncate(fd, len);
}

static int f_fstat(int fd, struct stat *st)
{
	return ff.inner->fstat(fd, st);
}

static int f_fchmod(int fd, int mode)
{
	return cut("fchmod", fd_path(fd)) ? -1 : ff.inner->fchmod(fd, mode);
}

static int f_stat(const char *path, struct stat *st)
{
	return ff.inner->stat(path, st);
}

static int f_lstat(const char *path, struct stat *st)
{
	return ff.inner->lstat(path, st);
}

static int f_chmod(const char *path, int mode)
{
	return cut("chmod", path) ? -1 : ff.inner->chmod(path, mode);
}

static int f_rename(const char *from, const char *to)
{
	return cut("rename", to) ? -1 : ff.inner->rename(from, to);
}

static int f_link(const char *from, const char *to)
{
	return cut("link", to) ? -1 : ff.inner->link(from, to);
}

static int f_unlink(const char *path)
{
	return cut("unlink", path) ? -1 : ff.inner->unlink(path);
}

static int f_mkdir(const char *path, int mode)
{
	return cut("mkdir", path) ? -1 : ff.inner->mkdir(path, mode);
}

static int f_rmdir(const char *path)
{
	return cut("rmdir", path) ? -1 : ff.inner->rmdir(path);
}

static int f_mkstemp(char *tmpl)
{
	int fd;
	if (cut("mkstemp", tmpl))
		return -1;
	if ((fd = ff.inner->mkstemp(tmpl)) >= 0)
		track(fd, tmpl);
	return fd;
}

static void *f_opendir(const char *path)
{
	return ff.inner->opendir(path);
}

static const char *f_readdir(void *dir)
{
	return ff.inner->readdir(dir);
}

static int f_closedir(void *dir)
{
	return ff.inner->closedir(dir);
}

static void *f_map(int fd, size_t len)
{
	return ff.inner->map(fd, len);
}

static void f_unmap(void *addr, size_t len)
{
	ff.inner->unmap(addr, len);
}

static char *f_realpath(const char *path)
{
	return ff.inner->realpath(path);
}

static int f_symlink(const char *target, const char *path)
{
	return cut("symlink", path) ? -1 : ff.inner->symlink(target, path);
}

static ssize_t f_readlink(const char *path, char *buf, size_t len)
{
	return ff.inner->readlink(path, buf, len);
}

static const struct wg_fs_ops fault_ops = {
	WG_FS_OPS_VERSION,
	f_open,
	f_close,
	f_read,
	f_pread,
	f_write,
	f_pwrite,
	f_fsync,
	f_ftruncate,
	f_fstat,
	f_fchmod,
	f_stat,
	f_lstat,
	f_chmod,
	f_rename,
	f_link,
	f_unlink,
	f_mkdir,
	f_rmdir,
	f_mkstemp,
	f_opendir,
	f_readdir,
	f_closedir,
	f_map,
	f_unmap,
	f_realpath,
	f_symlink,
	f_readlink,
};

int wg_fs_fault_parse(struct wg_fs_fault *out, const char *spec)
{
	char *end;
	unsigned long k;

	memset(out, 0, sizeof(*out));
	out->exit_code = 86;
	if (!strcmp(spec, "count"))
		return 0;
	errno = 0;
	k = strtoul(spec, &end, 10);
	if (errno || end == spec || *end != ':' || !k)
		goto bad;
	out->fail_at = k;
	if (!strcmp(end + 1, "eio"))
		out->action = WG_FS_FAULT_EIO;
	else if (!strcmp(end + 1, "enospc"))
		out->action = WG_FS_FAULT_ENOSPC;
	else if (!strcmp(end + 1, "exit"))
		out->action = WG_FS_FAULT_EXIT;
	else
		goto bad;
	return 0;
bad:
	return wg_error_set(WG_EINVALID, "bad fault spec '%s' (want count or <k>:eio|enospc|exit)",
			    spec);
}

void wg_fs_fault_install(const struct wg_fs_fault *spec)
{
	if (!ff.installed) {
		ff.inner = wg_fs_set_ops(&fault_ops);
		ff.installed = true;
	}
	ff.spec = *spec;
	ff.count = 0;
	ff.fired = false;
}

void wg_fs_fault_remove(void)
{
	int fd;
	if (!ff.installed)
		return;
	wg_fs_set_ops(ff.inner);
	for (fd = 0; fd < MAX_TRACKED_FD; fd++)
		untrack(fd);
	ff.installed = false;
}

unsigned long wg_fs_fault_count(void)
{
	return ff.count;
}

bool wg_fs_fault_fired(void)
{
	return ff.fired;
}
