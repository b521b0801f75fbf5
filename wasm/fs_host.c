/* The file system seam (core/util/fs.h) for the module in Node: lstat,
 * stat and directory listings of a host directory mounted with NODEFS go
 * straight to Node's fs; everything else, and every path of MEMFS or IDBFS,
 * stays with the glue's file system (wg_fs_posix over Emscripten's libc).
 *
 * Why: the glue's lstat of "/host/1/a/b/f.c" resolves the path string,
 * looks up every component in its node table, makes a node for each one it
 * has not met (a host lstat), then builds the host path again for the stat
 * itself; and its readdir makes a node for every entry it lists (a host
 * lstat each). A status of a 50k-file working tree spent most of its time
 * there. Here it is one fs.lstatSync per file and one fs.readdirSync per
 * directory, with the values the glue's stat would have given (seconds
 * only, as its doStat: an index written through either path compares
 * equal).
 *
 * The host decides which paths are its own (Module.wgjsHostFs, set by
 * js/runtime.js in Node: a path below a mounted host directory, with no
 * "." or ".." component); for every other path the hooks say so and the
 * call falls back to wg_fs_posix. Nothing is cached: each call asks the
 * disk, as lstat(2) does. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exports.h"
#include "util/fs.h"

/* Stat the host file behind a module path into v[0..11] (dev, ino, mode,
 * nlink, uid, gid, rdev, size, blocks, atime, mtime, ctime: seconds);
 * 0 done, -errno failed, 1 not a host path. */
EM_JS(int, wgjs_host_stat_js, (const char *path, int follow, double *v), {
	var h = Module['wgjsHostFs'];
	if (!h)
		return 1;
	var s = h.stat(UTF8ToString(path), !!follow);
	if (typeof s === 'number')
		return s;
	var p = v >> 3;
	// as the glue's doStat: whole seconds of the Date (ms, truncated)
	HEAPF64[p] = s.dev;
	HEAPF64[p + 1] = s.ino;
	HEAPF64[p + 2] = s.mode;
	HEAPF64[p + 3] = s.nlink;
	HEAPF64[p + 4] = s.uid;
	HEAPF64[p + 5] = s.gid;
	HEAPF64[p + 6] = s.rdev;
	HEAPF64[p + 7] = s.size;
	HEAPF64[p + 8] = s.blocks;
	HEAPF64[p + 9] = (Math.trunc(s.atimeMs) / 1000) | 0;
	HEAPF64[p + 10] = (Math.trunc(s.mtimeMs) / 1000) | 0;
	HEAPF64[p + 11] = (Math.trunc(s.ctimeMs) / 1000) | 0;
	return 0;
});

/* The names in a host directory (no "." or ".."), each NUL-terminated, in
 * a malloc()ed buffer whose length goes to *len; NULL with *len -errno on
 * failure, NULL with *len 1 for a path that is not the host's. */
EM_JS(char *, wgjs_host_readdir_js, (const char *path, int *len), {
	var h = Module['wgjsHostFs'];
	var names = h ? h.readdir(UTF8ToString(path)) : 1;
	if (typeof names === 'number') {
		HEAP32[len >> 2] = names;
		return 0;
	}
	var n = 0;
	for (var i = 0; i < names.length; i++)
		n += lengthBytesUTF8(names[i]) + 1;
	var buf = _malloc(n || 1);
	if (!buf) {
		HEAP32[len >> 2] = -48;  // ENOMEM
		return 0;
	}
	var at = buf;
	for (var i = 0; i < names.length; i++)
		at += stringToUTF8(names[i], at, n - (at - buf)) + 1;
	HEAP32[len >> 2] = n;
	return buf;
});

static int host_stat_common(const char *path, int follow, struct stat *st)
{
	double v[12];
	int rc = wgjs_host_stat_js(path, follow, v);
	if (rc == 1)
		return follow ? wg_fs_posix.stat(path, st) : wg_fs_posix.lstat(path, st);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->st_dev = (dev_t)(uint32_t)(int64_t)v[0];
	st->st_ino = (ino_t)(int64_t)v[1];
	st->st_mode = (mode_t)v[2];
	st->st_nlink = (nlink_t)v[3];
	st->st_uid = (uid_t)v[4];
	st->st_gid = (gid_t)v[5];
	st->st_rdev = (dev_t)(uint32_t)(int64_t)v[6];
	st->st_size = (off_t)v[7];
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)v[8];
	st->st_atim.tv_sec = (time_t)v[9];
	st->st_mtim.tv_sec = (time_t)v[10];
	st->st_ctim.tv_sec = (time_t)v[11];
	return 0;
}

static int host_lstat(const char *path, struct stat *st)
{
	return host_stat_common(path, 0, st);
}

static int host_stat(const char *path, struct stat *st)
{
	return host_stat_common(path, 1, st);
}

/* A listing: the host's names, or the module file system's DIR. */
struct host_dir {
	char *names;
	size_t len, pos;
	void *posix;
};

static void *host_opendir(const char *path)
{
	struct host_dir *d = calloc(1, sizeof(*d));
	int len = 0;
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->names = wgjs_host_readdir_js(path, &len);
	if (d->names) {
		d->len = (size_t)len;
		return d;
	}
	if (len == 1 && (d->posix = wg_fs_posix.opendir(path)))
		return d;
	if (len < 0)
		errno = -len;
	free(d);
	return NULL;
}

static const char *host_readdir(void *dir)
{
	struct host_dir *d = dir;
	const char *name;
	if (d->posix)
		return wg_fs_posix.readdir(d->posix);
	if (d->pos >= d->len)
		return NULL;
	name = d->names + d->pos;
	d->pos += strlen(name) + 1;
	return name;
}

static int host_closedir(void *dir)
{
	struct host_dir *d = dir;
	int rc = d->posix ? wg_fs_posix.closedir(d->posix) : 0;
	free(d->names);
	free(d);
	return rc;
}

static struct wg_fs_ops host_ops;

/* Use the host's fs for mounted host directories from now on (js/runtime.js
 * calls it once, in Node, before any repository is opened). */
API void wgjs_host_fs_install(void)
{
	host_ops = wg_fs_posix;
	host_ops.lstat = host_lstat;
	host_ops.stat = host_stat;
	host_ops.opendir = host_opendir;
	host_ops.readdir = host_readdir;
	host_ops.closedir = host_closedir;
	wg_fs_set_ops(&host_ops);
}
