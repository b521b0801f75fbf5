/* The host's file system: the only file in core/ that calls POSIX file
 * functions (tests/tools/check-fs-seam.sh holds the build to that). */
#include "util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

static int host_open(const char *path, int flags, int mode)
{
	return open(path, flags | O_CLOEXEC, mode);
}

static int host_close(int fd)
{
	return close(fd);
}

static ssize_t host_read(int fd, void *buf, size_t len)
{
	return read(fd, buf, len);
}

static ssize_t host_pread(int fd, void *buf, size_t len, int64_t offset)
{
	return pread(fd, buf, len, (off_t)offset);
}

static ssize_t host_write(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len);
}

static ssize_t host_pwrite(int fd, const void *buf, size_t len, int64_t offset)
{
	return pwrite(fd, buf, len, (off_t)offset);
}

static int host_fsync(int fd)
{
	return fsync(fd);
}

static int host_ftruncate(int fd, int64_t len)
{
	return ftruncate(fd, (off_t)len);
}

static int host_fstat(int fd, struct stat *st)
{
	return fstat(fd, st);
}

static int host_fchmod(int fd, int mode)
{
	return fchmod(fd, (mode_t)mode);
}

static int host_stat(const char *path, struct stat *st)
{
	return stat(path, st);
}

static int host_lstat(const char *path, struct stat *st)
{
	return lstat(path, st);
}

static int host_chmod(const char *path, int mode)
{
	return chmod(path, (mode_t)mode);
}

static int host_rename(const char *from, const char *to)
{
	return rename(from, to);
}

static int host_link(const char *from, const char *to)
{
	return link(from, to);
}

static int host_unlink(const char *path)
{
	return unlink(path);
}

static int host_mkdir(const char *path, int mode)
{
	return mkdir(path, (mode_t)mode);
}

static int host_rmdir(const char *path)
{
	return rmdir(path);
}

static int host_mkstemp(char *tmpl)
{
	return mkstemp(tmpl);
}

static void *host_opendir(const char *path)
{
	return opendir(path);
}

static const char *host_readdir(void *dir)
{
	struct dirent *de;
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			return de->d_name;
	return NULL;
}

static int host_closedir(void *dir)
{
	return closedir(dir);
}

/* Emscripten's mmap copies the file into the heap anyway: there, let the
 * caller read it into memory it owns. */
static void *host_map(int fd, size_t len)
{
#if defined(__EMSCRIPTEN__)
	(void)fd;
	(void)len;
	return NULL;
#else
	void *m;
	if (!len)
		return NULL;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	return m == MAP_FAILED ? NULL : m;
#endif
}

static void host_unmap(void *addr, size_t len)
{
#if defined(__EMSCRIPTEN__)
	(void)addr;
	(void)len;
#else
	if (addr)
		munmap(addr, len);
#endif
}

static char *host_realpath(const char *path)
{
	return realpath(path, NULL);
}

static int host_symlink(const char *target, const char *path)
{
	return symlink(target, path);
}

static ssize_t host_readlink(const char *path, char *buf, size_t len)
{
	return readlink(path, buf, len);
}

const struct wg_fs_ops wg_fs_posix = {
	WG_FS_OPS_VERSION,
	host_open,
	host_close,
	host_read,
	host_pread,
	host_write,
	host_pwrite,
	host_fsync,
	host_ftruncate,
	host_fstat,
	host_fchmod,
	host_stat,
	host_lstat,
	host_chmod,
	host_rename,
	host_link,
	host_unlink,
	host_mkdir,
	host_rmdir,
	host_mkstemp,
	host_opendir,
	host_readdir,
	host_closedir,
	host_map,
	host_unmap,
	host_realpath,
	host_symlink,
	host_readlink,
};
