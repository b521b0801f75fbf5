/* The file system seam (core/util/fs.h) for the module in Node: every call
 * on a path below a host directory mounted with NODEFS, and every call on a
 * descriptor opened that way, goes straight to Node's fs; every other path
 * (MEMFS, IDBFS, a path with a "." or ".." component) stays with the glue's
 * file system (wg_fs_posix over Emscripten's libc).
 *
 * Why: the glue's call on "/host/1/a/b/f.c" resolves the path string,
 * looks up every component in its node table, makes a node for each one it
 * has not met (a host lstat; a missing one costs a thrown error), then
 * builds the host path again for the call itself; creating a file is a
 * lookup, a create, then an open, and its readdir makes a node for every
 * entry it lists. A status of a 50k-file working tree spent most of its
 * time there, and a checkout of it made nine host lstat()s per file. Here a
 * call is one Node fs call.
 *
 * The host decides which paths are its own (Module.wgjsHostFs, set by
 * js/runtime.js in Node: the mounted directories, and the "/host/N/..."
 * paths below them with no "." or ".." component); for every other path
 * each hook says so (WGJS_NOT_HOST) and the call falls back to wg_fs_posix.
 * Host descriptors are Node's, numbered from WGJS_HOST_FD up so that they
 * never meet the glue's. Stat values are the glue's (whole seconds, as its
 * doStat): an index written through either path compares equal. Nothing is
 * cached: each call asks the disk. The glue's node table may hold nodes of
 * files changed this way; js/storage.js mounts a host directory afresh for
 * every API call, so none outlives the call that could have made it
 * stale. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exports.h"
#include "util/fs.h"

/* Must match js/runtime.js. */
#define WGJS_NOT_HOST (-1000)
#define WGJS_HOST_FD (1 << 28)

/* Open flags as the host's hook takes them (js/runtime.js maps each to
 * Node's fs.constants: the module's O_* values are Linux's, not
 * necessarily the host's). */
enum {
	HF_WRONLY = 1,
	HF_RDWR = 2,
	HF_CREAT = 4,
	HF_EXCL = 8,
	HF_TRUNC = 16,
	HF_APPEND = 32,
	HF_DIRECTORY = 64,
	HF_NOFOLLOW = 128,
};

/* The calls, by number (js/runtime.js's hostFs.ops lists them in this
 * order). */
enum host_op {
	OP_OPEN,      /* (path, flags, mode) -> Node fd */
	OP_CHMOD,     /* (path, mode) */
	OP_UNLINK,    /* (path) */
	OP_MKDIR,     /* (path, mode) */
	OP_RMDIR,     /* (path) */
	OP_RENAME,    /* (path, path2) */
	OP_LINK,      /* (path, path2) */
	OP_SYMLINK,   /* (path, target in path2) */
	OP_CLOSE,     /* (fd) */
	OP_READ,      /* (fd, heap address, length, position or -1) -> bytes */
	OP_WRITE,     /* (fd, heap address, length, position or -1) -> bytes */
	OP_FSYNC,     /* (fd) */
	OP_FTRUNCATE, /* (fd, length) */
	OP_FCHMOD,    /* (fd, mode) */
	OP_OWNS,      /* (path) -> 0: the host's */
};

/* One call of the host's: its result (>= 0), -errno, or WGJS_NOT_HOST for
 * a path that is not the host's. */
EM_JS(double, host_call_js, (int op, const char *path, const char *path2, int fd,
				   double a, double b, double c), {
	var h = Module['wgjsHostFs'];
	if (!h) {
		// a thread's Worker in Node (the threaded build): a read of a
		// host descriptor is Node's, whichever thread makes it
		var req = globalThis['require'];
		if (op !== 9 /* OP_READ */ || path || typeof req !== 'function')
			return -1000;
		try {
			return req('fs').readSync(fd, new Uint8Array(wasmMemory.buffer), a >>> 0, b, c < 0 ? null : c);
		} catch (e) {
			return -29;  // EIO
		}
	}
	return h.call(op, path ? UTF8ToString(path) : null, path2 ? UTF8ToString(path2) : null,
		      fd, a, b, c);
});

/* Stat the host file behind a module path (or the host descriptor fd when
 * path is NULL) into v[0..11] (dev, ino, mode, nlink, uid, gid, rdev, size,
 * blocks, atime, mtime, ctime: seconds); 0 done, -errno failed,
 * WGJS_NOT_HOST. */
EM_JS(int, host_stat_js, (const char *path, int fd, int follow, double *v), {
	var h = Module['wgjsHostFs'];
	if (!h)
		return -1000;
	var s = path ? h.stat(UTF8ToString(path), !!follow) : h.fstat(fd);
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
 * failure, NULL with *len WGJS_NOT_HOST for a path that is not the
 * host's. readlink() uses it too: one name, the link's target. */
EM_JS(char *, host_names_js, (const char *path, int link, int *len), {
	var h = Module['wgjsHostFs'];
	var names = h ? (link ? h.readlink : h.readdir)(UTF8ToString(path)) : -1000;
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

/* The three calls as the rest of this file makes them, from any thread:
 * the host's JavaScript is on the main thread (wgjs_on_main_thread). */
struct host_args {
	int op, fd, follow, link;
	const char *path, *path2;
	double a, b, c, *v, result;
	int *len;
	char *names;
};

static void host_call_main(void *arg)
{
	struct host_args *h = arg;
	h->result = host_call_js(h->op, h->path, h->path2, h->fd, h->a, h->b, h->c);
}

static double host_call(int op, const char *path, const char *path2, int fd, double a,
			double b, double c)
{
	struct host_args h = { .op = op, .path = path, .path2 = path2, .fd = fd, .a = a, .b = b, .c = c };
	if (op == OP_READ) {
		/* on a Node Worker, at once (host_call_js) */
		h.result = host_call_js(op, path, path2, fd, a, b, c);
		if (h.result != WGJS_NOT_HOST)
			return h.result;
	}
	wgjs_on_main_thread(host_call_main, &h);
	return h.result;
}

static void host_stat_main(void *arg)
{
	struct host_args *h = arg;
	h->result = host_stat_js(h->path, h->fd, h->follow, h->v);
}

static int host_stat_values(const char *path, int fd, int follow, double *v)
{
	struct host_args h = { .path = path, .fd = fd, .follow = follow, .v = v };
	wgjs_on_main_thread(host_stat_main, &h);
	return (int)h.result;
}

static void host_names_main(void *arg)
{
	struct host_args *h = arg;
	h->names = host_names_js(h->path, h->link, h->len);
}

static char *host_names(const char *path, int link, int *len)
{
	struct host_args h = { .path = path, .link = link, .len = len };
	wgjs_on_main_thread(host_names_main, &h);
	return h.names;
}

static bool is_host_fd(int fd)
{
	return fd >= WGJS_HOST_FD;
}

/* A host call's result as POSIX gives it: the value, or -1 with errno. */
static double host_result(double r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static double path_call(enum host_op op, const char *path, const char *path2, double a,
			double b)
{
	return host_call(op, path, path2, -1, a, b, 0);
}

static double fd_call(enum host_op op, int fd, double a, double b, double c)
{
	return host_result(host_call(op, NULL, NULL, fd - WGJS_HOST_FD, a, b, c));
}

/* A stat from the values host_stat_values gives. */
static void fill_stat(struct stat *st, const double v[12])
{
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
}

static int host_stat_common(const char *path, int fd, int follow, struct stat *st)
{
	double v[12];
	int rc = host_stat_values(path, fd, follow, v);
	if (rc == WGJS_NOT_HOST)
		return follow ? wg_fs_posix.stat(path, st) : wg_fs_posix.lstat(path, st);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	fill_stat(st, v);
	return 0;
}

static int host_lstat(const char *path, struct stat *st)
{
	return host_stat_common(path, -1, 0, st);
}

static int host_stat(const char *path, struct stat *st)
{
	return host_stat_common(path, -1, 1, st);
}

static int host_fstat(int fd, struct stat *st)
{
	if (!is_host_fd(fd))
		return wg_fs_posix.fstat(fd, st);
	return host_stat_common(NULL, fd - WGJS_HOST_FD, 0, st);
}

static int host_open(const char *path, int flags, int mode)
{
	int hf = 0;
	double r;
	if ((flags & O_ACCMODE) == O_WRONLY)
		hf |= HF_WRONLY;
	else if ((flags & O_ACCMODE) == O_RDWR)
		hf |= HF_RDWR;
	hf |= flags & O_CREAT ? HF_CREAT : 0;
	hf |= flags & O_EXCL ? HF_EXCL : 0;
	hf |= flags & O_TRUNC ? HF_TRUNC : 0;
	hf |= flags & O_APPEND ? HF_APPEND : 0;
	hf |= flags & O_DIRECTORY ? HF_DIRECTORY : 0;
	hf |= flags & O_NOFOLLOW ? HF_NOFOLLOW : 0;
	r = path_call(OP_OPEN, path, NULL, hf, mode);
	if (r == WGJS_NOT_HOST)
		return wg_fs_posix.open(path, flags, mode);
	if (host_result(r) < 0)
		return -1;
	if (r >= WGJS_HOST_FD) { /* a descriptor we cannot number */
		host_call(OP_CLOSE, NULL, NULL, (int)r, 0, 0, 0);
		errno = EMFILE;
		return -1;
	}
	return WGJS_HOST_FD + (int)r;
}

static int host_close(int fd)
{
	return is_host_fd(fd) ? (int)fd_call(OP_CLOSE, fd, 0, 0, 0) : wg_fs_posix.close(fd);
}

static ssize_t host_read(int fd, void *buf, size_t len)
{
	if (!is_host_fd(fd))
		return wg_fs_posix.read(fd, buf, len);
	return (ssize_t)fd_call(OP_READ, fd, (double)(uintptr_t)buf, (double)len, -1);
}

static ssize_t host_pread(int fd, void *buf, size_t len, int64_t offset)
{
	if (!is_host_fd(fd))
		return wg_fs_posix.pread(fd, buf, len, offset);
	return (ssize_t)fd_call(OP_READ, fd, (double)(uintptr_t)buf, (double)len, (double)offset);
}

static ssize_t host_write(int fd, const void *buf, size_t len)
{
	if (!is_host_fd(fd))
		return wg_fs_posix.write(fd, buf, len);
	return (ssize_t)fd_call(OP_WRITE, fd, (double)(uintptr_t)buf, (double)len, -1);
}

static ssize_t host_pwrite(int fd, const void *buf, size_t len, int64_t offset)
{
	if (!is_host_fd(fd))
		return wg_fs_posix.pwrite(fd, buf, len, offset);
	return (ssize_t)fd_call(OP_WRITE, fd, (double)(uintptr_t)buf, (double)len, (double)offset);
}

static int host_fsync(int fd)
{
	return is_host_fd(fd) ? (int)fd_call(OP_FSYNC, fd, 0, 0, 0) : wg_fs_posix.fsync(fd);
}

static int host_ftruncate(int fd, int64_t len)
{
	if (!is_host_fd(fd))
		return wg_fs_posix.ftruncate(fd, len);
	return (int)fd_call(OP_FTRUNCATE, fd, (double)len, 0, 0);
}

static int host_fchmod(int fd, int mode)
{
	return is_host_fd(fd) ? (int)fd_call(OP_FCHMOD, fd, mode, 0, 0) : wg_fs_posix.fchmod(fd, mode);
}

/* The path calls: the host's, or the glue's for a path that is not. */
#define PATH_CALL(op, fallback, path, path2, a)                                   \
	do {                                                                      \
		double r_ = path_call(op, path, path2, a, 0);                     \
		return r_ == WGJS_NOT_HOST ? (fallback) : (int)host_result(r_);   \
	} while (0)

static int host_chmod(const char *path, int mode)
{
	PATH_CALL(OP_CHMOD, wg_fs_posix.chmod(path, mode), path, NULL, mode);
}

static int host_unlink(const char *path)
{
	PATH_CALL(OP_UNLINK, wg_fs_posix.unlink(path), path, NULL, 0);
}

static int host_mkdir(const char *path, int mode)
{
	PATH_CALL(OP_MKDIR, wg_fs_posix.mkdir(path, mode), path, NULL, mode);
}

static int host_rmdir(const char *path)
{
	PATH_CALL(OP_RMDIR, wg_fs_posix.rmdir(path), path, NULL, 0);
}

/* Both paths must be the host's (of one mount, the host checks); else the
 * glue's, which refuses a rename across its mounts with EXDEV. */
static int host_rename(const char *from, const char *to)
{
	PATH_CALL(OP_RENAME, wg_fs_posix.rename(from, to), from, to, 0);
}

static int host_link(const char *from, const char *to)
{
	PATH_CALL(OP_LINK, wg_fs_posix.link(from, to), from, to, 0);
}

static int host_symlink(const char *target, const char *path)
{
	PATH_CALL(OP_SYMLINK, wg_fs_posix.symlink(target, path), path, target, 0);
}

static ssize_t host_readlink(const char *path, char *buf, size_t len)
{
	int n = 0;
	char *target = host_names(path, 1, &n);
	size_t tlen;
	if (!target) {
		if (n == WGJS_NOT_HOST)
			return wg_fs_posix.readlink(path, buf, len);
		errno = -n;
		return -1;
	}
	tlen = strlen(target);
	if (tlen > len)
		tlen = len; /* truncated, as readlink(2) */
	memcpy(buf, target, tlen);
	free(target);
	return (ssize_t)tlen;
}

/* mkstemp(3) over host_open: the last six characters of tmpl become a name
 * no file has. */
static int host_mkstemp(char *tmpl)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static uint32_t seed;
	size_t len = strlen(tmpl);
	char *x = tmpl + len - 6;
	int tries, fd;
	if (len < 6 || strcmp(x, "XXXXXX")) {
		errno = EINVAL;
		return -1;
	}
	if (path_call(OP_OWNS, tmpl, NULL, 0, 0) == WGJS_NOT_HOST)
		return wg_fs_posix.mkstemp(tmpl);
	if (!seed)
		seed = (uint32_t)(uintptr_t)tmpl ^ (uint32_t)emscripten_get_now();
	for (tries = 0; tries < 100; tries++) {
		for (int i = 0; i < 6; i++) {
			seed = seed * 1664525u + 1013904223u; /* any sequence: O_EXCL decides */
			x[i] = chars[(seed >> 24) % (sizeof(chars) - 1)];
		}
		fd = host_open(tmpl, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
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
	d->names = host_names(path, 0, &len);
	if (d->names) {
		d->len = (size_t)len;
		return d;
	}
	if (len == WGJS_NOT_HOST && (d->posix = wg_fs_posix.opendir(path)))
		return d;
	if (len < 0 && len != WGJS_NOT_HOST)
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
 * calls it once, in Node, before any repository is opened). map() stays the
 * glue's (none: callers read), realpath() too (rare, and its answer is a
 * module path). */
API void wgjs_host_fs_install(void)
{
	host_ops = wg_fs_posix;
	host_ops.open = host_open;
	host_ops.close = host_close;
	host_ops.read = host_read;
	host_ops.pread = host_pread;
	host_ops.write = host_write;
	host_ops.pwrite = host_pwrite;
	host_ops.fsync = host_fsync;
	host_ops.ftruncate = host_ftruncate;
	host_ops.fstat = host_fstat;
	host_ops.fchmod = host_fchmod;
	host_ops.stat = host_stat;
	host_ops.lstat = host_lstat;
	host_ops.chmod = host_chmod;
	host_ops.rename = host_rename;
	host_ops.link = host_link;
	host_ops.unlink = host_unlink;
	host_ops.mkdir = host_mkdir;
	host_ops.rmdir = host_rmdir;
	host_ops.mkstemp = host_mkstemp;
	host_ops.opendir = host_opendir;
	host_ops.readdir = host_readdir;
	host_ops.closedir = host_closedir;
	host_ops.symlink = host_symlink;
	host_ops.readlink = host_readlink;
	wg_fs_set_ops(&host_ops);
}
