#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

static const struct wg_fs_ops *current = &wg_fs_posix;

const struct wg_fs_ops *wg_fs_set_ops(const struct wg_fs_ops *ops)
{
	const struct wg_fs_ops *prev = current;
	current = ops ? ops : &wg_fs_posix;
	return prev;
}

const struct wg_fs_ops *wg_fs_ops(void)
{
	return current;
}

int wg_fs_open(const char *path, int flags, int mode) { return current->open(path, flags, mode); }
int wg_fs_close(int fd) { return current->close(fd); }
ssize_t wg_fs_read(int fd, void *buf, size_t len) { return current->read(fd, buf, len); }
ssize_t wg_fs_pread(int fd, void *buf, size_t len, int64_t offset)
{
	return current->pread(fd, buf, len, offset);
}
ssize_t wg_fs_write(int fd, const void *buf, size_t len) { return current->write(fd, buf, len); }
ssize_t wg_fs_pwrite(int fd, const void *buf, size_t len, int64_t offset)
{
	return current->pwrite(fd, buf, len, offset);
}
int wg_fs_fsync(int fd) { return current->fsync(fd); }
int wg_fs_ftruncate(int fd, int64_t len) { return current->ftruncate(fd, len); }
int wg_fs_fstat(int fd, struct stat *st) { return current->fstat(fd, st); }
int wg_fs_fchmod(int fd, int mode) { return current->fchmod(fd, mode); }
int wg_fs_stat(const char *path, struct stat *st) { return current->stat(path, st); }
int wg_fs_lstat(const char *path, struct stat *st) { return current->lstat(path, st); }
int wg_fs_chmod(const char *path, int mode) { return current->chmod(path, mode); }
int wg_fs_rename(const char *from, const char *to) { return current->rename(from, to); }
int wg_fs_link(const char *from, const char *to) { return current->link(from, to); }
int wg_fs_unlink(const char *path) { return current->unlink(path); }
int wg_fs_mkdir(const char *path, int mode) { return current->mkdir(path, mode); }
int wg_fs_rmdir(const char *path) { return current->rmdir(path); }
int wg_fs_mkstemp(char *tmpl) { return current->mkstemp(tmpl); }
void *wg_fs_opendir(const char *path) { return current->opendir(path); }
const char *wg_fs_readdir(void *dir) { return current->readdir(dir); }
int wg_fs_closedir(void *dir) { return current->closedir(dir); }
void *wg_fs_map(int fd, size_t len) { return current->map(fd, len); }
void wg_fs_unmap(void *addr, size_t len) { current->unmap(addr, len); }
char *wg_fs_realpath(const char *path) { return current->realpath(path); }
int wg_fs_symlink(const char *target, const char *path) { return current->symlink(target, path); }
ssize_t wg_fs_readlink(const char *path, char *buf, size_t len)
{
	return current->readlink(path, buf, len);
}

/* Both write_all helpers: at offset, or at the file's position when
 * offset is negative. */
static int write_loop(int fd, const unsigned char *p, size_t len, int64_t offset)
{
	while (len) {
		/* Bound each call: some systems reject writes above INT_MAX. */
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		ssize_t n = offset < 0 ? wg_fs_write(fd, p, chunk) : wg_fs_pwrite(fd, p, chunk, offset);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		if (offset >= 0)
			offset += n;
	}
	return 0;
}

int wg_fs_write_all(int fd, const void *data, size_t len)
{
	return write_loop(fd, data, len, -1);
}

int wg_fs_pwrite_all(int fd, const void *data, size_t len, int64_t offset)
{
	return offset < 0 ? (errno = EINVAL, -1) : write_loop(fd, data, len, offset);
}

int wg_fs_pread_all(int fd, void *buf, size_t len, int64_t offset)
{
	unsigned char *p = buf;
	while (len) {
		ssize_t n = wg_fs_pread(fd, p, len, offset);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = 0;
			return -1;
		}
		p += n;
		offset += n;
		len -= (size_t)n;
	}
	return 0;
}

static int io_error(const char *what, const char *path)
{
	int code = (errno == ENOENT || errno == ENOTDIR) ? WG_ENOTFOUND : WG_EIO;
	return wg_error_set(code, "cannot %s '%s': %s", what, path, strerror(errno));
}

int wg_fs_read_file(struct wg_buf *out, const char *path)
{
	int fd = wg_fs_open(path, O_RDONLY, 0);
	struct stat st;
	int err = 0;
	if (fd < 0)
		return io_error("open", path);
	if (wg_fs_fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (err = wg_buf_grow(out, (size_t)st.st_size)))
		goto done;
	for (;;) {
		ssize_t n;
		if ((err = wg_buf_grow(out, 65536)))
			break;
		n = wg_fs_read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = io_error("read", path);
			break;
		}
		if (n == 0)
			break;
		wg_buf_setlen(out, out->len + (size_t)n);
	}
done:
	wg_fs_close(fd);
	return err;
}

int wg_fs_load_fd(int fd, const char *path, unsigned char **data, size_t *len, bool *mapped)
{
	struct stat st;
	unsigned char *buf;
	size_t got = 0, n;

	*data = NULL;
	*len = 0;
	*mapped = false;
	if (wg_fs_fstat(fd, &st))
		return io_error("stat", path);
	if (st.st_size <= 0)
		return 0;
	if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2)
		return wg_error_set(WG_ELIMIT, "'%s' is too large", path);
	n = (size_t)st.st_size;
	if ((*data = wg_fs_map(fd, n))) {
		*len = n;
		*mapped = true;
		return 0;
	}
	if (!(buf = wg_malloc(n)))
		return wg_error_set(WG_ENOMEM, "out of memory reading '%s'", path);
	while (got < n) {
		ssize_t r = wg_fs_read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			wg_free(buf);
			return r ? io_error("read", path)
				 : wg_error_set(WG_EIO, "cannot read '%s': the file shrank", path);
		}
		got += (size_t)r;
	}
	*data = buf;
	*len = n;
	return 0;
}

void wg_fs_release_bytes(void *data, size_t len, bool mapped)
{
	if (mapped)
		wg_fs_unmap(data, len);
	else
		wg_free(data);
}

bool wg_fs_is_dir(const char *path)
{
	struct stat st;
	return wg_fs_stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool wg_fs_exists(const char *path)
{
	struct stat st;
	return wg_fs_lstat(path, &st) == 0;
}

int wg_fs_mkdir_p(const char *path)
{
	char *copy;
	size_t i, len = strlen(path);
	int err = 0;
	if (wg_fs_is_dir(path))
		return 0;
	if (!(copy = wg_strndup(path, len)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (i = 1; i <= len; i++) {
		if (copy[i] != '/' && copy[i] != '\0')
			continue;
		copy[i] = '\0';
		/* Only the missing components: a mkdir that would find its
		 * directory there is no change worth a cut point. */
		if (!wg_fs_is_dir(copy) && wg_fs_mkdir(copy, 0777) && errno != EEXIST) {
			err = io_error("create directory", copy);
			break;
		}
		if (i < len)
			copy[i] = '/';
	}
	if (!err && !wg_fs_is_dir(path))
		err = wg_error_set(WG_EIO, "'%s' exists and is not a directory", path);
	wg_free(copy);
	return err;
}

int wg_fs_write_new_file(const char *path, const void *data, size_t len, int mode)
{
	int fd = wg_fs_open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd < 0) {
		if (errno == EEXIST)
			return wg_error_set(WG_EEXISTS, "'%s' already exists", path);
		return io_error("create", path);
	}
	if (wg_fs_write_all(fd, data, len)) {
		io_error("write", path);
		wg_fs_close(fd);
		wg_fs_unlink(path);
		return WG_EIO;
	}
	if (wg_fs_close(fd)) {
		io_error("close", path);
		wg_fs_unlink(path);
		return WG_EIO;
	}
	return 0;
}

int wg_fs_join(struct wg_buf *out, const char *a, const char *b)
{
	size_t alen = strlen(a);
	int err;
	wg_buf_reset(out);
	if ((err = wg_buf_add(out, a, alen)))
		return err;
	if (alen && a[alen - 1] != '/' && (err = wg_buf_addch(out, '/')))
		return err;
	return wg_buf_adds(out, b);
}

int wg_fs_remove_tree(const char *path)
{
	struct stat st;
	struct wg_buf sub = WG_BUF_INIT;
	void *dir;
	const char *name;
	int err = 0;

	if (wg_fs_lstat(path, &st))
		return errno == ENOENT ? 0 : wg_error_set(WG_EIO, "cannot stat '%s': %s", path,
							  strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (wg_fs_unlink(path))
			return wg_error_set(WG_EIO, "cannot remove '%s': %s", path, strerror(errno));
		return 0;
	}
	if (!(dir = wg_fs_opendir(path)))
		return wg_error_set(WG_EIO, "cannot open '%s': %s", path, strerror(errno));
	while (!err && (name = wg_fs_readdir(dir))) {
		if ((err = wg_fs_join(&sub, path, name)))
			break;
		err = wg_fs_remove_tree(wg_buf_cstr(&sub));
	}
	wg_fs_closedir(dir);
	wg_buf_release(&sub);
	if (!err && wg_fs_rmdir(path))
		err = wg_error_set(WG_EIO, "cannot remove '%s': %s", path, strerror(errno));
	return err;
}

bool wg_fs_dir_is_empty(const char *path)
{
	void *dir = wg_fs_opendir(path);
	bool empty;

	if (!dir)
		return false;
	empty = !wg_fs_readdir(dir);
	wg_fs_closedir(dir);
	return empty;
}
