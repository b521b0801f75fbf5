/* The file system, as core/ sees it: one host seam, then small helpers.
 *
 * Every file operation in core/ goes through the functions below, which
 * call the current `struct wg_fs_ops` (the POSIX one unless a test or an
 * embedder installed another). That is what lets a test make the k-th
 * write, rename or fsync of an operation fail, or stop the process there
 * (util/fs_fault.h), and prove that nothing is left half-written.
 *
 * The seam keeps POSIX's shape (file descriptors, flags, `struct stat`,
 * -1 with errno) on purpose: the callers' error handling (EEXIST is a held
 * lock, ENOENT a missing ref, EINTR a retry) stays as it was, and every
 * host we run on (a native disk, Emscripten's MEMFS/IDBFS, Node's file
 * system through NODEFS) already speaks it. The helpers further down turn
 * errno into WG_ENOTFOUND / WG_EIO with the path and the system's reason. */
#ifndef WG_UTIL_FS_H
#define WG_UTIL_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/buf.h"

#define WG_FS_OPS_VERSION 2

/* A file-system implementation. Each function behaves as its POSIX
 * namesake: it returns -1 (NULL for the pointer ones) and sets errno on
 * failure.
 *
 * MUST rules for an implementation:
 *   - rename() replaces its target atomically: a reader sees the old file
 *     or the new one, never neither and never a mix (lock files and packs
 *     are installed this way);
 *   - open() with O_CREAT|O_EXCL fails with EEXIST when the path exists,
 *     and exactly one of two racing creators wins (that is the lock);
 *   - link() fails with EEXIST when the target exists; an implementation
 *     without hard links fails with EPERM or ENOSYS, and callers fall back
 *     to rename();
 *   - map() may return NULL for any reason (callers then read the file);
 *     a mapping stays valid until unmap(), whatever happens to the file;
 *   - readdir() returns entry names without "." and "..", NULL at the end;
 *   - nothing here may call back into core/. */
struct wg_fs_ops {
	unsigned version; /* WG_FS_OPS_VERSION */
	int (*open)(const char *path, int flags, int mode);
	int (*close)(int fd);
	ssize_t (*read)(int fd, void *buf, size_t len);
	ssize_t (*pread)(int fd, void *buf, size_t len, int64_t offset);
	ssize_t (*write)(int fd, const void *buf, size_t len);
	ssize_t (*pwrite)(int fd, const void *buf, size_t len, int64_t offset);
	int (*fsync)(int fd);
	int (*ftruncate)(int fd, int64_t len);
	int (*fstat)(int fd, struct stat *st);
	int (*fchmod)(int fd, int mode);
	int (*stat)(const char *path, struct stat *st);
	int (*lstat)(const char *path, struct stat *st);
	int (*chmod)(const char *path, int mode);
	int (*rename)(const char *from, const char *to);
	int (*link)(const char *from, const char *to);
	int (*unlink)(const char *path);
	int (*mkdir)(const char *path, int mode);
	int (*rmdir)(const char *path);
	/* Create and open (O_RDWR) a new file from `tmpl`, whose last six
	 * characters are "XXXXXX" and are replaced in place. */
	int (*mkstemp)(char *tmpl);
	void *(*opendir)(const char *path);
	const char *(*readdir)(void *dir);
	int (*closedir)(void *dir);
	void *(*map)(int fd, size_t len);
	void (*unmap)(void *addr, size_t len);
	/* Canonical absolute path, malloc()ed (free with free()). */
	char *(*realpath)(const char *path);
	/* Version 2: symbolic links (a checkout writes them where the
	 * repository's core.symlinks is true). A host without them fails
	 * with EPERM or ENOSYS; readlink() returns the target's length and
	 * does not terminate it, as POSIX. */
	int (*symlink)(const char *target, const char *path);
	ssize_t (*readlink)(const char *path, char *buf, size_t len);
};

/* The host's own file system. */
extern const struct wg_fs_ops wg_fs_posix;

/* The implementation core/ uses from now on; returns the previous one.
 * NULL restores wg_fs_posix. Set it before any repository is opened (an
 * open pack or reftable keeps descriptors from the old one). */
const struct wg_fs_ops *wg_fs_set_ops(const struct wg_fs_ops *ops);
const struct wg_fs_ops *wg_fs_ops(void);

/* The seam's calls, through the current implementation. */
int wg_fs_open(const char *path, int flags, int mode);
int wg_fs_close(int fd);
ssize_t wg_fs_read(int fd, void *buf, size_t len);
ssize_t wg_fs_pread(int fd, void *buf, size_t len, int64_t offset);
ssize_t wg_fs_write(int fd, const void *buf, size_t len);
ssize_t wg_fs_pwrite(int fd, const void *buf, size_t len, int64_t offset);
int wg_fs_fsync(int fd);
int wg_fs_ftruncate(int fd, int64_t len);
int wg_fs_fstat(int fd, struct stat *st);
int wg_fs_fchmod(int fd, int mode);
int wg_fs_stat(const char *path, struct stat *st);
int wg_fs_lstat(const char *path, struct stat *st);
int wg_fs_chmod(const char *path, int mode);
int wg_fs_rename(const char *from, const char *to);
int wg_fs_link(const char *from, const char *to);
int wg_fs_unlink(const char *path);
int wg_fs_mkdir(const char *path, int mode);
int wg_fs_rmdir(const char *path);
int wg_fs_mkstemp(char *tmpl);
void *wg_fs_opendir(const char *path);
const char *wg_fs_readdir(void *dir);
int wg_fs_closedir(void *dir);
void *wg_fs_map(int fd, size_t len);
void wg_fs_unmap(void *addr, size_t len);
char *wg_fs_realpath(const char *path);
int wg_fs_symlink(const char *target, const char *path);
ssize_t wg_fs_readlink(const char *path, char *buf, size_t len);

/* Helpers over the seam. */

/* Write all of data to fd, retrying short writes and EINTR; -1 with errno
 * set on failure (the file then holds a prefix of data). */
int wg_fs_write_all(int fd, const void *data, size_t len);
/* Write all of data at offset, the same way. */
int wg_fs_pwrite_all(int fd, const void *data, size_t len, int64_t offset);
/* Read exactly len bytes at offset; -1 with errno set on failure, or with
 * errno 0 at end of file. */
int wg_fs_pread_all(int fd, void *buf, size_t len, int64_t offset);
/* Append the whole file to out. */
int wg_fs_read_file(struct wg_buf *out, const char *path);
/* The whole of the open file fd (named path in messages): mapped where the
 * host maps (the seam's map(): git mmaps its pack indexes and
 * packed-refs, so a command that looks up a few objects does not read a
 * large index whole), else read into memory. *mapped says which, for
 * wg_fs_release_bytes; an empty file gives NULL and 0. fd may be closed
 * afterwards. */
int wg_fs_load_fd(int fd, const char *path, unsigned char **data, size_t *len, bool *mapped);
void wg_fs_release_bytes(void *data, size_t len, bool mapped);
/* Create a directory and its missing parents (mode 0777 & ~umask). */
int wg_fs_mkdir_p(const char *path);
bool wg_fs_is_dir(const char *path);
bool wg_fs_exists(const char *path);
/* Write a new file that must not exist yet (O_EXCL); WG_EEXISTS if it does. */
int wg_fs_write_new_file(const char *path, const void *data, size_t len, int mode);
/* An existing directory with no entries. */
bool wg_fs_dir_is_empty(const char *path);
/* Remove a file, or a directory and everything in it (symlinks are
 * removed, not followed). A missing path is fine. */
int wg_fs_remove_tree(const char *path);
/* Join two path parts with one '/' into out (reset first). */
int wg_fs_join(struct wg_buf *out, const char *a, const char *b);

#endif
