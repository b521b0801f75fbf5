#include "worktree/attr_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "util/fs.h"

#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif

static void warn(const struct wg_attr_source *src, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void warn(const struct wg_attr_source *src, const char *fmt, ...)
{
	struct wg_buf msg = WG_BUF_INIT;
	va_list ap;

	if (!src->warn)
		return;
	va_start(ap, fmt);
	if (!wg_buf_vprintf(&msg, fmt, ap))
		src->warn(src->payload, wg_buf_cstr(&msg));
	va_end(ap);
	wg_buf_release(&msg);
}

/* git's read_attr_from_file: a missing file is silent, another failure
 * a warning; both are "no file". */
static int read_file(const struct wg_attr_source *src, const char *path, const char *name,
		     bool nofollow, struct wg_attr_file *out)
{
	struct stat st;
	int fd = wg_fs_open(path, O_RDONLY | (nofollow ? O_NOFOLLOW : 0), 0);
	int err = 0;

	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			warn(src, "warning: unable to access '%s': %s", name, strerror(errno));
		return WG_ENOTFOUND;
	}
	if (wg_fs_fstat(fd, &st)) {
		warn(src, "warning: cannot fstat gitattributes file '%s': %s", name,
		     strerror(errno));
		err = WG_ENOTFOUND;
	} else if ((uint64_t)st.st_size >= WG_ATTR_MAX_FILE_SIZE) {
		warn(src, "warning: ignoring overly large gitattributes file '%s'", name);
		err = WG_ENOTFOUND;
	} else if (!S_ISDIR(st.st_mode)) {
		/* (a directory reads as an empty file, as with git's stdio) */
		for (;;) {
			ssize_t n;
			if (wg_buf_grow(&out->data, 8192)) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				break;
			}
			n = wg_fs_read(fd, out->data.data + out->data.len, 8192);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (out->data.len + (size_t)n >= WG_ATTR_MAX_FILE_SIZE) {
				/* it grew since fstat: as git, stop at the limit */
				warn(src, "warning: ignoring overly large gitattributes file '%s'",
				     name);
				err = WG_ENOTFOUND;
				break;
			}
			wg_buf_setlen(&out->data, out->data.len + (size_t)n);
		}
	}
	wg_fs_close(fd);
	if (!err)
		err = wg_buf_adds(&out->name, name) ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
	if (err)
		wg_buf_reset(&out->data);
	return err;
}

/* git's read_blob_data_from_index: stage 0, or "ours" in a conflict. */
static int read_index(const struct wg_attr_source *src, const char *path,
		      struct wg_attr_file *out)
{
	enum wg_object_type type;
	size_t size;
	long pos;
	int err;

	if (!src->index || !src->odb)
		return WG_ENOTFOUND;
	pos = wg_index_find(src->index, path, strlen(path), 0);
	if (pos < 0)
		pos = wg_index_find(src->index, path, strlen(path), 2);
	if (pos < 0)
		return WG_ENOTFOUND;
	err = wg_odb_read_header(src->odb, &src->index->entries[pos]->oid, &type, &size);
	if (!err && type == WG_OBJ_BLOB && size >= WG_ATTR_MAX_FILE_SIZE) {
		warn(src, "warning: ignoring overly large gitattributes blob '%s'", path);
		return WG_ENOTFOUND;
	}
	if (!err)
		err = wg_odb_read(src->odb, &src->index->entries[pos]->oid, &type, &out->data);
	if (err == WG_ENOMEM)
		return err;
	if (err || type != WG_OBJ_BLOB) {
		/* git: a missing or odd object is no attributes file */
		wg_buf_reset(&out->data);
		wg_error_clear();
		return WG_ENOTFOUND;
	}
	out->blob = true;
	return wg_buf_adds(&out->name, path) ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

int wg_attr_source_read(void *payload, enum wg_attr_file_kind kind, const char *dir,
			struct wg_attr_file *out)
{
	const struct wg_attr_source *src = payload;
	struct wg_buf rel = WG_BUF_INIT, full = WG_BUF_INIT;
	int err;

	if (kind == WG_ATTR_FILE_GLOBAL)
		return src->global_file ? read_file(src, src->global_file, src->global_file, false, out)
					: WG_ENOTFOUND;
	if (kind == WG_ATTR_FILE_INFO)
		return src->info_file ? read_file(src, src->info_file,
						  src->info_name ? src->info_name : src->info_file, false, out)
				      : WG_ENOTFOUND;
	if ((*dir && (wg_buf_adds(&rel, dir) || wg_buf_addch(&rel, '/'))) ||
	    wg_buf_adds(&rel, ".gitattributes") ||
	    (src->workdir && wg_fs_join(&full, src->workdir, wg_buf_cstr(&rel)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
	} else if (src->direction == WG_ATTR_INDEX) {
		err = read_index(src, wg_buf_cstr(&rel), out);
	} else if (!src->workdir) {
		/* git: a bare repository has no in-tree attributes unless
		 * asked for the index's */
		err = WG_ENOTFOUND;
	} else if (src->direction == WG_ATTR_CHECKOUT) {
		err = read_index(src, wg_buf_cstr(&rel), out);
		if (err == WG_ENOTFOUND)
			err = read_file(src, wg_buf_cstr(&full), wg_buf_cstr(&rel), true, out);
	} else {
		err = read_file(src, wg_buf_cstr(&full), wg_buf_cstr(&rel), true, out);
		if (err == WG_ENOTFOUND)
			err = read_index(src, wg_buf_cstr(&rel), out);
	}
	wg_buf_release(&rel);
	wg_buf_release(&full);
	return err;
}

int wg_attr_global_path(struct wg_buf *out, const char *configured, const char *home,
			const char *xdg)
{
	int err = 0;

	wg_buf_reset(out);
	if (configured) {
		if (!strncmp(configured, "~/", 2) && home)
			err = wg_fs_join(out, home, configured + 2);
		else
			err = wg_buf_adds(out, configured);
	} else if (xdg && *xdg) {
		err = wg_fs_join(out, xdg, "git/attributes");
	} else if (home) {
		err = wg_fs_join(out, home, ".config/git/attributes");
	}
	return err ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}
