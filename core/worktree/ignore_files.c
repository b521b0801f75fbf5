/* A repository's ignore rules from its files (see ignore_files.h): the
 * disk's wg_ignore_source, and the whole-repository files git adds. */
#include "worktree/ignore_files.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

struct disk {
	char *workdir;
	struct wg_buf full;
	void (*warn)(void *payload, const char *message);
	void *payload;
};

static void disk_warn(void *payload, const char *message)
{
	struct disk *d = payload;
	if (d->warn)
		d->warn(d->payload, message);
}

static void warnf(struct disk *d, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void warnf(struct disk *d, const char *fmt, ...)
{
	char msg[WG_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	disk_warn(d, msg);
}

/* A path of the working tree (absolute ones are kept). */
static const char *full_path(struct disk *d, const char *path)
{
	wg_buf_reset(&d->full);
	if (path[0] == '/' ? wg_buf_adds(&d->full, path) : wg_fs_join(&d->full, d->workdir, path))
		return NULL;
	return wg_buf_cstr(&d->full);
}

/* Read one pattern file into out, as git's add_patterns() does: a missing
 * file, a directory, or one git could not open (with its warning) is
 * WG_ENOTFOUND; `nofollow` refuses a symbolic link, as git does for the
 * .gitignore files inside the tree. `name` is what warnings call it. */
static int read_pattern_file(struct disk *d, const char *path, const char *name, bool nofollow,
			     struct wg_buf *out)
{
	struct stat st;
	int err;

	if ((nofollow ? wg_fs_lstat(path, &st) : wg_fs_stat(path, &st)) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			warnf(d, "unable to access '%s': %s", name, strerror(errno));
		return WG_ENOTFOUND;
	}
	if (S_ISLNK(st.st_mode)) {
		warnf(d, "unable to access '%s': %s", name, strerror(ELOOP));
		return WG_ENOTFOUND;
	}
	if (!S_ISREG(st.st_mode))
		return WG_ENOTFOUND;
	/* refused before it is read: memory stays bounded */
	if ((uint64_t)st.st_size >= WG_IGNORE_MAX_FILE_SIZE) {
		warnf(d, "ignoring excessively large pattern file: %s", name);
		return WG_ENOTFOUND;
	}
	err = wg_fs_read_file(out, path);
	if (err == WG_EIO) {
		disk_warn(d, wg_error_message());
		err = WG_ENOTFOUND;
	}
	return err;
}

static int disk_read(void *payload, const char *path, struct wg_buf *out)
{
	struct disk *d = payload;
	const char *full = full_path(d, path);
	if (!full)
		return WG_ENOMEM;
	return read_pattern_file(d, full, path, true, out);
}

static enum wg_ignore_type disk_type(void *payload, const char *path)
{
	struct disk *d = payload;
	const char *full = full_path(d, path);
	struct stat st;
	/* git's lstat: a symbolic link to a directory is not a directory
	 * (unless the path ends in '/', which the system then follows) */
	if (!full || wg_fs_lstat(full, &st) < 0)
		return WG_IGNORE_TYPE_OTHER;
	return S_ISDIR(st.st_mode) ? WG_IGNORE_TYPE_DIR : WG_IGNORE_TYPE_OTHER;
}

static void disk_release(void *payload)
{
	struct disk *d = payload;
	wg_free(d->workdir);
	wg_buf_release(&d->full);
	wg_free(d);
}

/* Add a whole-repository file: `path` to open, `name` as sources show it. */
static int add_global(struct wg_ignore *ig, struct disk *d, const char *path, const char *name)
{
	struct wg_buf data = WG_BUF_INIT;
	int err = read_pattern_file(d, path, name, false, &data);
	if (!err)
		err = wg_ignore_add_file(ig, name, data.data, data.len);
	else if (err == WG_ENOTFOUND) {
		wg_error_clear();
		err = 0;
	}
	wg_buf_release(&data);
	return err;
}

/* core.excludesFile as git's git_config_pathname() reads it ("~/" is the
 * home directory), or the XDG default; NULL in *out when there is none. */
static int excludes_file(struct wg_buf *out, struct wg_repo *repo)
{
	const char *v, *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	int err = wg_repo_config_get(repo, "core.excludesfile", &v);

	if (err && err != WG_ENOTFOUND)
		return err;
	wg_error_clear();
	if (!err && v) {
		if (v[0] == '~' && v[1] == '/') {
			if (!home || !*home)
				return wg_error_set(WG_EINVALID, "failed to expand user dir in: '%s'",
						    v);
			return wg_buf_printf(out, "%s%s", home, v + 1);
		}
		return wg_buf_adds(out, v);
	}
	if (xdg && *xdg)
		return wg_buf_printf(out, "%s/git/ignore", xdg);
	if (home && *home)
		return wg_buf_printf(out, "%s/.config/git/ignore", home);
	return 0;
}

int wg_ignore_open(struct wg_ignore **out, struct wg_repo *repo, const char *gitdir_name,
		   void (*warn)(void *payload, const char *message), void *payload)
{
	struct wg_ignore_options opts = WG_IGNORE_OPTIONS_INIT;
	struct wg_ignore_source src = { disk_read, disk_type, disk_warn, disk_release, NULL };
	const char *workdir = wg_repo_workdir(repo), *gitdir = wg_repo_gitdir(repo), *v;
	struct wg_buf path = WG_BUF_INIT, name = WG_BUF_INIT;
	struct disk *d;
	size_t wlen;
	int err;

	*out = NULL;
	if (!workdir)
		return wg_error_set(WG_EINVALID, "this operation must be run in a work tree");
	if (!(d = wg_calloc(1, sizeof(*d))) || !(d->workdir = wg_strdup(workdir))) {
		wg_free(d);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	d->warn = warn;
	d->payload = payload;
	src.payload = d;
	err = wg_repo_config_get(repo, "core.ignorecase", &v);
	if (!err)
		err = wg_config_bool_value("core.ignorecase", v, &opts.ignore_case);
	else if (err == WG_ENOTFOUND) {
		wg_error_clear();
		err = 0;
	}
	if (err || (err = wg_ignore_new(out, &src, &opts))) {
		disk_release(d);
		return err;
	}
	/* the excludes file first: info/exclude, added after it, wins */
	if (!(err = excludes_file(&name, repo)) && name.len) {
		v = wg_buf_cstr(&name);
		if (v[0] != '/')
			err = wg_fs_join(&path, workdir, v);
		else
			err = wg_buf_adds(&path, v);
		if (!err)
			err = add_global(*out, d, wg_buf_cstr(&path), v);
	}
	wg_buf_reset(&path);
	wg_buf_reset(&name);
	wlen = strlen(workdir);
	if (!err && !gitdir_name && !strncmp(gitdir, workdir, wlen) && gitdir[wlen] == '/' &&
	    !strcmp(gitdir + wlen + 1, ".git"))
		gitdir_name = ".git";
	if (!err && !(err = wg_fs_join(&path, gitdir, "info/exclude")) &&
	    !(err = wg_fs_join(&name, gitdir_name ? gitdir_name : gitdir, "info/exclude")))
		err = add_global(*out, d, wg_buf_cstr(&path), wg_buf_cstr(&name));
	wg_buf_release(&path);
	wg_buf_release(&name);
	if (err) {
		wg_ignore_free(*out);
		*out = NULL;
	}
	return err;
}
