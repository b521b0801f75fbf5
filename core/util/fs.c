#include "util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/error.h"

static int io_error(const char *what, const char *path)
{
	int code = (errno == ENOENT || errno == ENOTDIR) ? WG_ENOTFOUND : WG_EIO;
	return wg_error_set(code, "cannot %s '%s': %s", what, path, strerror(errno));
}

int wg_fs_read_file(struct wg_buf *out, const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	int err = 0;
	if (fd < 0)
		return io_error("open", path);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (err = wg_buf_grow(out, (size_t)st.st_size)))
		goto done;
	for (;;) {
		ssize_t n;
		if ((err = wg_buf_grow(out, 65536)))
			break;
		n = read(fd, out->data + out->len, out->cap - out->len - 1);
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
	close(fd);
	return err;
}

bool wg_fs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool wg_fs_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
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
		if (mkdir(copy, 0777) && errno != EEXIST) {
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
	const unsigned char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd < 0) {
		if (errno == EEXIST)
			return wg_error_set(WG_EEXISTS, "'%s' already exists", path);
		return io_error("create", path);
	}
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			io_error("write", path);
			close(fd);
			unlink(path);
			return WG_EIO;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd)) {
		io_error("close", path);
		unlink(path);
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
	DIR *dir;
	struct dirent *de;
	int err = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : wg_error_set(WG_EIO, "cannot stat '%s': %s", path,
							  strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path))
			return wg_error_set(WG_EIO, "cannot remove '%s': %s", path, strerror(errno));
		return 0;
	}
	if (!(dir = opendir(path)))
		return wg_error_set(WG_EIO, "cannot open '%s': %s", path, strerror(errno));
	while (!err && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((err = wg_fs_join(&sub, path, de->d_name)))
			break;
		err = wg_fs_remove_tree(wg_buf_cstr(&sub));
	}
	closedir(dir);
	wg_buf_release(&sub);
	if (!err && rmdir(path))
		err = wg_error_set(WG_EIO, "cannot remove '%s': %s", path, strerror(errno));
	return err;
}

bool wg_fs_dir_is_empty(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!dir)
		return false;
	while (empty && (de = readdir(dir)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(dir);
	return empty;
}
