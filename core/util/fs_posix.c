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

static int posix_open(const char *path, int flags, int mode)
{
	return open(path, flags | O_CLOEXEC, mode);
}

static int posix_close(int fd)
{
	return close(fd);
}

static ssize_t posix_read(int fd, void *buf, size_t len)
{
	return read(fd, buf, len);
}

static ssize_t posix_pread(int fd, void *buf, size_t len, int64_t offset)
{
	return pread(fd, buf, len, (off_t)offset);
}

static ssize_t posix_write(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len);
}

static ssize_t posix_pwrite(int fd, const void *buf, size_t len, int64_t offset)
{
	return pwrite(fd, buf, len, (off_t)offset);
}

static int posix_fsync(int fd)
{
	return fsync(fd);
}

static int posix_ftruncate(int fd, int64_t len)
{
	return ftruncate(fd, (off_t)len);
}

static int posix_fstat(int fd, struct stat *st)
{
	return fstat(fd, st);
}

static int posix_fchmod(int fd, int mode)
{
	return fchmod(fd, (mode_t)mode);
}

static int posix_stat(const char *path, struct stat *st)
{
	return stat(path, st);
}

static int posix_lstat(const char *path, struct stat *st)
{
	return lstat(path, st);
}

static int posix_chmod(const char *path, int mode)
{
	return chmod(path, (mode_t)mode);
}

static int posix_rename(const char *from, const char *to)
{
	return rename(from, to);
}

static int posix_link(const char *from, const char *to)
{
	return link(from, to);
}

static int posix_unlink(const char *path)
{
	return unlink(path);
}

static int posix_mkdir(const char *path, int mode)
{
	return mkdir(path, (mode_t)mode);
}

static int posix_rmdir(const char *path)
{
	return rmdir(path);
}

static int posix_mkstemp(char *tmpl)
{
	return mkstemp(tmpl);
}

static void *posix_opendir(const char *path)
{
	return opendir(path);
}

static const char *posix_readdir(void *dir)
{
	struct dirent *de;
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			return de->d_name;
	return NULL;
}

static int posix_closedir(void *dir)
{
	return closedir(dir);
}

/* Emscripten's mmap copies the file into the heap anyway: there, let the
 * caller read it into memory it owns. */
static void *posix_map(int fd, size_t len)
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

static void posix_unmap(void *addr, size_t len)
{
#if defined(__EMSCRIPTEN__)
	(void)addr;
	(void)len;
#else
	if (addr)
		munmap(addr, len);
#endif
}

static char *posix_realpath(const char *path)
{
	return realpath(path, NULL);
}

const struct wg_fs_ops wg_fs_posix = {
	WG_FS_OPS_VERSION,
	posix_open,
	posix_close,
	posix_read,
	posix_pread,
	posix_write,
	posix_pwrite,
	posix_fsync,
	posix_ftruncate,
	posix_fstat,
	posix_fchmod,
	posix_stat,
	posix_lstat,
	posix_chmod,
	posix_rename,
	posix_link,
	posix_unlink,
	posix_mkdir,
	posix_rmdir,
	posix_mkstemp,
	posix_opendir,
	posix_readdir,
	posix_closedir,
	posix_map,
	posix_unmap,
	posix_realpath,
};
