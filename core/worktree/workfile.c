/* Working-tree files for editors (see workfile.h). */
#include "worktree/workfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "object/path.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/sort.h"

/* "<workdir>/<path>" into out, after checking the path; `is_dir` when
 * it names a directory (the last component is then a directory too). */
static int full_path(struct wg_buf *out, struct wg_repo *repo, const char *path, bool is_dir)
{
	const char *root = wg_repo_workdir(repo);
	int err;

	if (!root)
		return wg_error_set(WG_EINVALID, "a bare repository has no working tree");
	if (!*path && !is_dir)
		return wg_error_set(WG_EINVALID, "a path is required");
	if (*path && (err = wg_path_check(path, strlen(path), is_dir ? 040000 : 0100644)))
		return wg_error_prefix("invalid path '%s'", path);
	return wg_fs_join(out, root, path);
}

/* Every directory between the top and the last component of `full` (whose
 * top part, `rootlen` bytes, is trusted) is a real directory: not a link,
 * not a file. With `create`, missing ones are made. */
static int leading_dirs(char *full, size_t rootlen, bool create, const char *path)
{
	struct stat st;
	int err = 0;

	for (char *p = full + rootlen + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (!wg_fs_lstat(full, &st)) {
			if (!S_ISDIR(st.st_mode))
				err = wg_error_set(S_ISLNK(st.st_mode) ? WG_EINVALID : WG_EEXISTS,
						   "'%s' is beyond a %s", path,
						   S_ISLNK(st.st_mode) ? "symbolic link" : "file");
		} else if (errno != ENOENT) {
			err = wg_error_set(WG_EIO, "cannot stat '%s': %s", full, strerror(errno));
		} else if (!create) {
			err = wg_error_set(WG_ENOTFOUND, "'%s' does not exist", path);
		} else if (wg_fs_mkdir(full, 0777) && errno != EEXIST) {
			err = wg_error_set(WG_EIO, "cannot create directory '%s': %s", full,
					   strerror(errno));
		}
		*p = '/';
		if (err)
			return err;
	}
	return 0;
}

static size_t root_len(struct wg_repo *repo)
{
	size_t n = strlen(wg_repo_workdir(repo));
	while (n > 1 && wg_repo_workdir(repo)[n - 1] == '/')
		n--;
	return n;
}

static unsigned mode_of(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return 0120000;
	return st->st_mode & 0100 ? 0100755 : 0100644;
}

int wg_workfile_read(struct wg_buf *out, unsigned *mode, struct wg_repo *repo, const char *path)
{
	struct wg_buf full = WG_BUF_INIT;
	struct stat st;
	int err;

	if ((err = full_path(&full, repo, path, false)) ||
	    (err = leading_dirs((char *)full.data, root_len(repo), false, path)))
		goto out;
	if (wg_fs_lstat(wg_buf_cstr(&full), &st)) {
		err = errno == ENOENT ? wg_error_set(WG_ENOTFOUND, "'%s' does not exist", path)
				      : wg_error_set(WG_EIO, "cannot stat '%s': %s", path,
						     strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		err = wg_error_set(WG_EINVALID, "'%s' is a directory", path);
		goto out;
	}
	wg_buf_reset(out);
	if (S_ISLNK(st.st_mode)) {
		size_t cap = (size_t)st.st_size + 1;
		ssize_t n;
		if ((err = wg_buf_grow(out, cap)))
			goto out;
		n = wg_fs_readlink(wg_buf_cstr(&full), (char *)out->data, cap);
		if (n < 0 || (size_t)n >= cap) {
			err = wg_error_set(WG_EIO, "cannot read link '%s': %s", path,
					   n < 0 ? strerror(errno) : "it changed while read");
			goto out;
		}
		out->len = (size_t)n;
	} else if (!S_ISREG(st.st_mode)) {
		err = wg_error_set(WG_EINVALID, "'%s' is not a file", path);
		goto out;
	} else if ((err = wg_fs_read_file(out, wg_buf_cstr(&full)))) {
		goto out;
	}
	if (mode)
		*mode = mode_of(&st);
out:
	wg_buf_release(&full);
	return err;
}

int wg_workfile_write(struct wg_repo *repo, const char *path, const void *data, size_t len,
		      unsigned mode)
{
	struct wg_buf full = WG_BUF_INIT, tmp = WG_BUF_INIT;
	struct stat st;
	int fd = -1, err;

	if (mode && mode != 0100644 && mode != 0100755)
		return wg_error_set(WG_EINVALID, "mode %o is not a file's mode", mode);
	if ((err = full_path(&full, repo, path, false)) ||
	    (err = leading_dirs((char *)full.data, root_len(repo), true, path)) ||
	    (err = wg_buf_printf(&tmp, "%s.webgit-tmp-w", wg_buf_cstr(&full))))
		goto out;
	if (!wg_fs_lstat(wg_buf_cstr(&full), &st)) {
		if (S_ISDIR(st.st_mode)) {
			err = wg_error_set(WG_EEXISTS, "'%s' is a directory", path);
			goto out;
		}
		if (!mode)
			mode = S_ISREG(st.st_mode) ? mode_of(&st) : 0100644;
	}
	if (!mode)
		mode = 0100644;
	/* a temporary file a crash left behind goes first */
	if (wg_fs_unlink(wg_buf_cstr(&tmp)) && errno != ENOENT) {
		err = wg_error_set(WG_EIO, "cannot remove '%s': %s", wg_buf_cstr(&tmp),
				   strerror(errno));
		goto out;
	}
	fd = wg_fs_open(wg_buf_cstr(&tmp), O_WRONLY | O_CREAT | O_EXCL,
			mode == 0100755 ? 0777 : 0666);
	if (fd < 0) {
		err = wg_error_set(WG_EIO, "cannot create '%s': %s", wg_buf_cstr(&tmp),
				   strerror(errno));
		goto out;
	}
	errno = 0;
	if (wg_fs_write_all(fd, data, len) | wg_fs_close(fd)) {
		err = wg_error_set(WG_EIO, "cannot write '%s': %s", path,
				   errno ? strerror(errno) : "short write");
		wg_fs_unlink(wg_buf_cstr(&tmp));
		goto out;
	}
	if (wg_fs_rename(wg_buf_cstr(&tmp), wg_buf_cstr(&full))) {
		err = wg_error_set(WG_EIO, "cannot write '%s': %s", path, strerror(errno));
		wg_fs_unlink(wg_buf_cstr(&tmp));
	}
out:
	wg_buf_release(&full);
	wg_buf_release(&tmp);
	return err;
}

int wg_workfile_remove(struct wg_repo *repo, const char *path)
{
	struct wg_buf full = WG_BUF_INIT;
	size_t rootlen;
	struct stat st;
	char *slash;
	int err;

	if ((err = full_path(&full, repo, path, false)) ||
	    (err = leading_dirs((char *)full.data, rootlen = root_len(repo), false, path)))
		goto out;
	if (wg_fs_lstat(wg_buf_cstr(&full), &st)) {
		err = errno == ENOENT ? wg_error_set(WG_ENOTFOUND, "'%s' does not exist", path)
				      : wg_error_set(WG_EIO, "cannot stat '%s': %s", path,
						     strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		err = wg_error_set(WG_EINVALID, "'%s' is a directory", path);
		goto out;
	}
	if (wg_fs_unlink(wg_buf_cstr(&full))) {
		err = wg_error_set(WG_EIO, "cannot remove '%s': %s", path, strerror(errno));
		goto out;
	}
	/* the directories it leaves empty go too (rmdir fails on the others) */
	while ((slash = strrchr((char *)full.data, '/')) && (size_t)(slash - (char *)full.data) > rootlen) {
		*slash = '\0';
		if (wg_fs_rmdir((char *)full.data))
			break;
	}
out:
	wg_buf_release(&full);
	return err;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wg_workfile_entry *)a)->name,
		      ((const struct wg_workfile_entry *)b)->name);
}

int wg_workfile_list(struct wg_workfile_entry **out, size_t *n, struct wg_repo *repo,
		     const char *dir)
{
	struct wg_buf full = WG_BUF_INIT, child = WG_BUF_INIT;
	struct wg_workfile_entry *v = NULL;
	size_t count = 0, alloc = 0;
	const char *name;
	struct stat st;
	void *d = NULL;
	int err;

	*out = NULL;
	*n = 0;
	if ((err = full_path(&full, repo, dir, true)) ||
	    (*dir && (err = wg_buf_addch(&full, '/'))) ||
	    (err = leading_dirs((char *)full.data, root_len(repo), false, dir)))
		goto out;
	if (*dir)
		wg_buf_setlen(&full, full.len - 1);
	if (wg_fs_lstat(wg_buf_cstr(&full), &st) || !S_ISDIR(st.st_mode)) {
		err = wg_error_set(WG_ENOTFOUND, "'%s' is not a directory", dir);
		goto out;
	}
	if (!(d = wg_fs_opendir(wg_buf_cstr(&full)))) {
		err = wg_error_set(WG_EIO, "cannot read directory '%s': %s", dir, strerror(errno));
		goto out;
	}
	while ((name = wg_fs_readdir(d))) {
		struct wg_workfile_entry *e;
		if (!*dir && !strcmp(name, ".git"))
			continue;
		if ((err = wg_fs_join(&child, wg_buf_cstr(&full), name)))
			goto out;
		if (wg_fs_lstat(wg_buf_cstr(&child), &st))
			continue;   /* gone meanwhile */
		if (count == alloc) {
			size_t na = alloc ? 2 * alloc : 16;
			struct wg_workfile_entry *nv = wg_realloc(v, na * sizeof(*v));
			if (!nv) {
				err = WG_ENOMEM;
				goto out;
			}
			v = nv;
			alloc = na;
		}
		e = &v[count];
		if (!(e->name = wg_strdup(name))) {
			err = WG_ENOMEM;
			goto out;
		}
		count++;
		e->kind = S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l'
			  : st.st_mode & 0100 ? 'x' : 'f';
		e->size = S_ISDIR(st.st_mode) ? 0 : (uint64_t)st.st_size;
	}
	wg_sort(v, count, sizeof(*v), entry_cmp);
	*out = v;
	*n = count;
	v = NULL;
	count = 0;
out:
	if (d)
		wg_fs_closedir(d);
	wg_workfile_list_free(v, count);
	wg_buf_release(&full);
	wg_buf_release(&child);
	return err;
}

void wg_workfile_list_free(struct wg_workfile_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wg_free(v[i].name);
	wg_free(v);
}
