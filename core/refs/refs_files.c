/* The files ref backend, with git's semantics (refs/files-backend.c):
 * loose refs under $GIT_DIR (refs/..., HEAD, root refs), packed-refs for
 * the rest, reflogs under logs/, and "<name>.lock" files as locks. */
#include "refs/refs_files.h"

#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "refs/refname.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/fs_journal.h"
#include "util/lockfile.h"
#include "util/strlist.h"

struct files_backend {
	struct wg_refdb_backend base;
	char *gitdir;
	const struct wg_hash_algo *algo;
	const struct wg_refdb_options *opts;   /* owned by the refdb */
	/* packed-refs snapshot, reused while the file's identity is unchanged
	 * (every rewrite renames a new file in, so a new inode). */
	struct wg_packed *packed;
	bool packed_cached;
	dev_t p_dev;
	ino_t p_ino;
	off_t p_size;
	struct timespec p_mtime;
};

#define FB(b) ((struct files_backend *)(b))

static const char lock_advice[] =
	"Another git process seems to be running in this repository, e.g.\n"
	"an editor opened by 'git commit'. Please make sure all processes\n"
	"are terminated then try again. If it still fails, a git process\n"
	"may have crashed in this repository earlier:\n"
	"remove the file manually to continue.";

static int path_of(struct wg_buf *out, const struct files_backend *fb, const char *sub,
		   const char *name, const char *suffix)
{
	wg_buf_reset(out);
	if (wg_buf_printf(out, "%s/%s%s%s%s", fb->gitdir, sub ? sub : "", sub ? "/" : "", name,
			  suffix ? suffix : ""))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}

/* --- packed-refs snapshot ------------------------------------------------- */

static int get_packed(struct wg_packed **out, struct files_backend *fb)
{
	struct wg_buf path = WG_BUF_INIT;
	struct stat st;
	int err;
	if ((err = path_of(&path, fb, NULL, "packed-refs", NULL)))
		return err;
	if (wg_fs_stat((const char *)path.data, &st)) {
		memset(&st, 0, sizeof(st));
		if (errno != ENOENT && errno != ENOTDIR) {
			err = wg_error_set(WG_EIO, "cannot stat '%s': %s",
					   (const char *)path.data, strerror(errno));
			goto done;
		}
	}
	if (fb->packed_cached && st.st_dev == fb->p_dev && st.st_ino == fb->p_ino &&
	    st.st_size == fb->p_size && st.st_mtim.tv_sec == fb->p_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == fb->p_mtime.tv_nsec) {
		*out = fb->packed;
		goto done;
	}
	wg_packed_free(fb->packed);
	fb->packed = NULL;
	fb->packed_cached = false;
	if ((err = wg_packed_load(&fb->packed, (const char *)path.data, fb->algo)))
		goto done;
	fb->packed_cached = true;
	fb->p_dev = st.st_dev;
	fb->p_ino = st.st_ino;
	fb->p_size = st.st_size;
	fb->p_mtime = st.st_mtim;
	*out = fb->packed;
done:
	wg_buf_release(&path);
	return err;
}

static void forget_packed(struct files_backend *fb)
{
	wg_packed_free(fb->packed);
	fb->packed = NULL;
	fb->packed_cached = false;
}

/* --- loose refs ------------------------------------------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* git's parse_loose_ref_contents(). */
static int parse_loose(const struct files_backend *fb, const char *name, const char *data,
		       size_t len, struct wg_ref *out)
{
	if (len >= 4 && !memcmp(data, "ref:", 4)) {
		size_t off = 4;
		while (off < len && is_space(data[off]))
			off++;
		while (len > off && is_space(data[len - 1]))
			len--;
		if (memchr(data + off, '\0', len - off))
			return wg_error_set(WG_ECORRUPT, "symbolic ref %s contains a NUL", name);
		out->symbolic = true;
		if (!(out->target = wg_strndup(data + off, len - off)))
			return wg_error_set(WG_ENOMEM, "out of memory");
		return 0;
	}
	if (len < fb->algo->hexsz || wg_oid_from_hex(&out->oid, fb->algo, data) ||
	    (len > fb->algo->hexsz && !is_space(data[fb->algo->hexsz])))
		return wg_error_set(WG_ECORRUPT, "ref %s has bad content '%.*s' (expected a %s "
				    "object id)", name, (int)(len > 80 ? 80 : len), data,
				    fb->algo->name);
	return 0;
}

/* Read a whole small file; WG_ENOTFOUND if missing or a directory
 * (*is_dir tells which). */
static int read_small_file(struct wg_buf *out, const char *path, bool *is_dir)
{
	struct stat st;
	int fd = wg_fs_open(path, O_RDONLY, 0);
	int err = 0;
	if (is_dir)
		*is_dir = false;
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return WG_ENOTFOUND;
		if (errno == EISDIR) {
			if (is_dir)
				*is_dir = true;
			return WG_ENOTFOUND;
		}
		return wg_error_set(WG_EIO, "cannot open '%s': %s", path, strerror(errno));
	}
	if (wg_fs_fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		wg_fs_close(fd);
		if (is_dir)
			*is_dir = true;
		return WG_ENOTFOUND;
	}
	for (;;) {
		ssize_t n;
		if ((err = wg_buf_grow(out, 256)))
			break;
		n = wg_fs_read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = wg_error_set(WG_EIO, "cannot read '%s': %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		wg_buf_setlen(out, out->len + (size_t)n);
	}
	wg_fs_close(fd);
	return err;
}

static int read_loose(struct files_backend *fb, const char *name, struct wg_ref *out,
		      bool *is_dir)
{
	struct wg_buf path = WG_BUF_INIT, content = WG_BUF_INIT;
	int err;
	if (!(err = path_of(&path, fb, NULL, name, NULL)) &&
	    !(err = read_small_file(&content, (const char *)path.data, is_dir)))
		err = parse_loose(fb, name, (const char *)content.data, content.len, out);
	wg_buf_release(&path);
	wg_buf_release(&content);
	return err;
}

static int fill_from_packed(struct wg_ref *out, const struct wg_packed_rec *rec)
{
	out->oid = rec->oid;
	out->has_peeled = rec->has_peeled;
	if (rec->has_peeled)
		out->peeled = rec->peeled;
	return 0;
}

static int files_read(struct wg_refdb_backend *b, struct wg_ref *out, const char *name)
{
	struct files_backend *fb = FB(b);
	struct wg_packed *packed;
	struct wg_packed_rec rec;
	int err;
	memset(out, 0, sizeof(*out));
	err = read_loose(fb, name, out, NULL);
	if (err == WG_ENOTFOUND && !strncmp(name, "refs/", 5)) {
		if ((err = get_packed(&packed, fb)))
			goto done;
		err = wg_packed_find(&rec, packed, name, strlen(name));
		if (!err)
			fill_from_packed(out, &rec);
	}
done:
	if (!err && !(out->name = wg_strdup(name)))
		err = wg_error_set(WG_ENOMEM, "out of memory");
	if (err) {
		wg_ref_release(out);
		if (err == WG_ENOTFOUND)
			wg_error_set(WG_ENOTFOUND, "ref %s not found", name);
	}
	return err;
}

/* Follow a symref chain with this backend only (used under locks). */
static int resolve_value(struct files_backend *fb, const char *name, struct wg_oid *out)
{
	struct wg_ref ref;
	char *cur = wg_strdup(name);
	int depth, err = 0;
	if (!cur)
		return wg_error_set(WG_ENOMEM, "out of memory");
	wg_oid_null(out, fb->algo);
	for (depth = 0; depth <= WG_SYMREF_MAX_DEPTH; depth++) {
		err = files_read(&fb->base, &ref, cur);
		if (err)
			break;
		if (!ref.symbolic) {
			*out = ref.oid;
			wg_ref_release(&ref);
			break;
		}
		wg_free(cur);
		cur = ref.target;
		ref.target = NULL;
		wg_ref_release(&ref);
	}
	if (depth > WG_SYMREF_MAX_DEPTH)
		err = wg_error_set(WG_ECORRUPT, "too many levels of symbolic refs at %s", name);
	wg_free(cur);
	return err;
}

/* --- listing loose refs ---------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the loose refs under gitdir/<rel> (a directory) whose names start
 * with prefix; rel is a buffer extended and restored while recursing. */
static int walk_loose(struct files_backend *fb, struct wg_buf *rel, const char *prefix,
		      size_t prefixlen, struct wg_strlist *out)
{
	struct wg_buf path = WG_BUF_INIT;
	void *dir;
	const char *name;
	size_t base = rel->len;
	int err = 0;
	if ((err = path_of(&path, fb, NULL, (const char *)rel->data, NULL)))
		return err;
	dir = wg_fs_opendir((const char *)path.data);
	wg_buf_release(&path);
	if (!dir)
		return 0;  /* missing or not a directory: no refs here */
	while (!err && (name = wg_fs_readdir(dir))) {
		struct stat st;
		size_t nlen = strlen(name), cmp;
		if (name[0] == '.')
			continue;  /* names git never writes */
		wg_buf_setlen(rel, base);
		if ((err = wg_buf_addch(rel, '/')) || (err = wg_buf_add(rel, name, nlen)))
			break;
		/* Prune subtrees that cannot match the prefix. */
		cmp = rel->len < prefixlen ? rel->len : prefixlen;
		if (memcmp(rel->data, prefix, cmp))
			continue;
		if ((err = path_of(&path, fb, NULL, (const char *)rel->data, NULL)))
			break;
		if (wg_fs_stat((const char *)path.data, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			err = walk_loose(fb, rel, prefix, prefixlen, out);
		} else if (S_ISREG(st.st_mode) && rel->len >= prefixlen &&
			   !(nlen > 5 && !strcmp(name + nlen - 5, ".lock")) &&
			   wg_refname_is_valid((const char *)rel->data, 0)) {
			err = wg_strlist_add(out, (const char *)rel->data, rel->len);
		}
	}
	wg_buf_setlen(rel, base);
	wg_buf_release(&path);
	wg_fs_closedir(dir);
	return err;
}

/* Sorted loose ref names starting with prefix (under refs/ only). */
static int list_loose(struct files_backend *fb, const char *prefix, struct wg_strlist *out)
{
	struct wg_buf rel = WG_BUF_INIT;
	size_t plen = strlen(prefix), dirlen;
	const char *slash;
	int err;
	memset(out, 0, sizeof(*out));
	if (plen < 5 ? memcmp(prefix, "refs/", plen) : memcmp(prefix, "refs/", 5))
		return 0;
	/* Start at the deepest directory the prefix names completely ("refs"
	 * for "", "r"... "refs/"). */
	slash = plen > 5 ? strrchr(prefix, '/') : NULL;
	dirlen = slash ? (size_t)(slash - prefix) : 0;
	if ((err = dirlen ? wg_buf_add(&rel, prefix, dirlen) : wg_buf_adds(&rel, "refs")))
		return err;
	err = walk_loose(fb, &rel, prefix, plen, out);
	wg_buf_release(&rel);
	if (err) {
		wg_strlist_release(out);
		return err;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return 0;
}

/* --- iteration ---------------------------------------------------------------- */

struct files_iter {
	struct wg_ref_iter base;
	struct files_backend *fb;
	struct wg_strlist loose;
	size_t li;
	struct wg_packed *packed;   /* private snapshot */
	size_t poff;
	char *prefix;
	size_t prefixlen;
	struct wg_packed_rec prec;
	int pstate;                 /* 0 need next, 1 have prec, 2 done */
	struct wg_ref cur;
};

static int iter_packed_peek(struct files_iter *it)
{
	int err;
	if (it->pstate != 0)
		return 0;
	err = wg_packed_next(&it->prec, it->packed, &it->poff);
	if (err == WG_ITEROVER || (!err && (it->prec.namelen < it->prefixlen ||
				     memcmp(it->prec.name, it->prefix, it->prefixlen)))) {
		it->pstate = 2;
		return 0;
	}
	if (err)
		return err;
	it->pstate = 1;
	return 0;
}

static int files_iter_next(const struct wg_ref **out, struct wg_ref_iter *base)
{
	struct files_iter *it = (struct files_iter *)base;
	int err;
	for (;;) {
		const char *lname;
		int c;
		wg_ref_release(&it->cur);
		if ((err = iter_packed_peek(it)))
			return err;
		lname = it->li < it->loose.n ? it->loose.v[it->li] : NULL;
		if (!lname && it->pstate == 2)
			return WG_ITEROVER;
		if (!lname) {
			c = 1;
		} else if (it->pstate == 2) {
			c = -1;
		} else {
			size_t ln = strlen(lname), n = ln < it->prec.namelen ? ln : it->prec.namelen;
			c = memcmp(lname, it->prec.name, n);
			if (!c)
				c = ln < it->prec.namelen ? -1 : ln > it->prec.namelen;
		}
		if (c <= 0) {
			it->li++;
			if (c == 0)
				it->pstate = 0;  /* the loose ref hides the packed one */
			err = read_loose(it->fb, lname, &it->cur, NULL);
			if (err == WG_ENOTFOUND || err == WG_ECORRUPT) {
				/* Vanished, or broken: git skips it ("ignoring broken ref"). */
				wg_error_clear();
				wg_ref_release(&it->cur);
				continue;
			}
			if (err)
				return err;
			if (!(it->cur.name = wg_strdup(lname)))
				return wg_error_set(WG_ENOMEM, "out of memory");
		} else {
			it->pstate = 0;
			fill_from_packed(&it->cur, &it->prec);
			if (!(it->cur.name = wg_strndup(it->prec.name, it->prec.namelen)))
				return wg_error_set(WG_ENOMEM, "out of memory");
		}
		*out = &it->cur;
		return 0;
	}
}

static void files_iter_free(struct wg_ref_iter *base)
{
	struct files_iter *it = (struct files_iter *)base;
	wg_strlist_release(&it->loose);
	wg_packed_free(it->packed);
	wg_ref_release(&it->cur);
	wg_free(it->prefix);
	wg_free(it);
}

static int files_iter_new(struct wg_ref_iter **out, struct wg_refdb_backend *b,
			  const char *prefix)
{
	struct files_backend *fb = FB(b);
	struct wg_buf path = WG_BUF_INIT;
	struct files_iter *it = wg_calloc(1, sizeof(*it));
	int err;
	if (!it || !(it->prefix = wg_strdup(prefix))) {
		wg_free(it);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	it->base.next = files_iter_next;
	it->base.free = files_iter_free;
	it->fb = fb;
	it->prefixlen = strlen(prefix);
	/* Packed first, then loose: a ref moved from loose to packed between
	 * the two reads is then still seen (git orders its reads the same way
	 * for the same reason). */
	if ((err = path_of(&path, fb, NULL, "packed-refs", NULL)) ||
	    (err = wg_packed_load(&it->packed, (const char *)path.data, fb->algo)) ||
	    (err = list_loose(fb, prefix, &it->loose))) {
		wg_buf_release(&path);
		files_iter_free(&it->base);
		return err;
	}
	wg_buf_release(&path);
	it->poff = wg_packed_seek(it->packed, prefix, it->prefixlen);
	*out = &it->base;
	return 0;
}

/* --- reflogs ---------------------------------------------------------------------- */

struct files_reflog_iter {
	struct wg_reflog_iter base;
	const struct wg_hash_algo *algo;
	struct wg_buf content;
	size_t pos;                 /* next line start (forward) or end (backward) */
	bool oldest_first;
	struct wg_reflog_entry cur;
};

static int reflog_iter_next(const struct wg_reflog_entry **out, struct wg_reflog_iter *base)
{
	struct files_reflog_iter *it = (struct files_reflog_iter *)base;
	const char *d = (const char *)it->content.data;
	for (;;) {
		size_t s, e;
		wg_reflog_entry_release(&it->cur);
		if (it->oldest_first) {
			const char *nl;
			if (it->pos >= it->content.len)
				return WG_ITEROVER;
			s = it->pos;
			nl = memchr(d + s, '\n', it->content.len - s);
			e = nl ? (size_t)(nl - d) : it->content.len;
			it->pos = e + 1;
		} else {
			if (it->pos == 0)
				return WG_ITEROVER;
			e = it->pos;
			if (d[e - 1] == '\n')
				e--;
			s = e;
			while (s > 0 && d[s - 1] != '\n')
				s--;
			it->pos = s;
		}
		if (e == s)
			continue;
		/* An unparsable line is skipped, as git's reflog readers do. */
		if (wg_reflog_parse_line(&it->cur, it->algo, d + s, e - s)) {
			wg_error_clear();
			continue;
		}
		*out = &it->cur;
		return 0;
	}
}

static void reflog_iter_free(struct wg_reflog_iter *base)
{
	struct files_reflog_iter *it = (struct files_reflog_iter *)base;
	wg_buf_release(&it->content);
	wg_reflog_entry_release(&it->cur);
	wg_free(it);
}

static int files_reflog_iter(struct wg_reflog_iter **out, struct wg_refdb_backend *b,
			     const char *name, unsigned flags)
{
	struct files_backend *fb = FB(b);
	struct wg_buf path = WG_BUF_INIT;
	struct files_reflog_iter *it = wg_calloc(1, sizeof(*it));
	bool is_dir;
	int err;
	if (!it)
		return wg_error_set(WG_ENOMEM, "out of memory");
	it->base.next = reflog_iter_next;
	it->base.free = reflog_iter_free;
	it->algo = fb->algo;
	it->oldest_first = (flags & WG_REFLOG_OLDEST_FIRST) != 0;
	if (!(err = path_of(&path, fb, "logs", name, NULL)))
		err = read_small_file(&it->content, (const char *)path.data, &is_dir);
	wg_buf_release(&path);
	if (err) {
		reflog_iter_free(&it->base);
		if (err == WG_ENOTFOUND)
			wg_error_set(WG_ENOTFOUND, "reflog for '%s' does not exist", name);
		return err;
	}
	it->pos = it->oldest_first ? 0 : it->content.len;
	*out = &it->base;
	return 0;
}

static int files_reflog_exists(struct wg_refdb_backend *b, const char *name)
{
	struct wg_buf path = WG_BUF_INIT;
	struct stat st;
	int err, r;
	if ((err = path_of(&path, FB(b), "logs", name, NULL)))
		return err;
	r = !wg_fs_stat((const char *)path.data, &st) && S_ISREG(st.st_mode);
	wg_buf_release(&path);
	return r;
}

static int mkdir_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int err;
	if (!slash)
		return 0;
	if (!(dir = wg_strndup(path, (size_t)(slash - path))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	err = wg_fs_mkdir_p(dir);
	wg_free(dir);
	return err;
}

/* Open logs/<name> for appending; create it when `create`. Returns the fd,
 * -1 (with no error set) when it does not exist and create is false, or
 * a negative error code below -1. */
static int open_reflog(struct files_backend *fb, const char *name, bool create, int *fd_out)
{
	struct wg_buf path = WG_BUF_INIT;
	int fd, err = 0, flags = O_WRONLY | O_APPEND | (create ? O_CREAT : 0);
	*fd_out = -1;
	if ((err = path_of(&path, fb, "logs", name, NULL)))
		return err;
	fd = wg_fs_open((const char *)path.data, flags, 0666);
	if (fd < 0 && create && (errno == ENOENT || errno == ENOTDIR)) {
		if (!(err = mkdir_parent((const char *)path.data)))
			fd = wg_fs_open((const char *)path.data, flags, 0666);
	}
	if (fd < 0 && !err && (create || (errno != ENOENT && errno != ENOTDIR)))
		err = wg_error_set(WG_EIO, "unable to append to '%s': %s",
				   (const char *)path.data, strerror(errno));
	wg_buf_release(&path);
	*fd_out = fd;
	return err;
}

static int files_reflog_create(struct wg_refdb_backend *b, const char *name)
{
	int fd, err = open_reflog(FB(b), name, true, &fd);
	if (fd >= 0)
		wg_fs_close(fd);
	return err;
}

/* Remove empty parent directories of `name` below refs/<x>/ (git's
 * try_remove_empty_parents), in refs/ and/or logs/. */
static void remove_empty_parents(struct files_backend *fb, const char *name, bool refs,
				 bool logs)
{
	struct wg_buf buf = WG_BUF_INIT, path = WG_BUF_INIT;
	const char *p = name;
	size_t q, stop;
	int i;
	for (i = 0; i < 2; i++) {  /* keep refs/ and refs/<kind>/ */
		while (*p && *p != '/')
			p++;
		while (*p == '/')
			p++;
	}
	stop = (size_t)(p - name);
	if (wg_buf_adds(&buf, name))
		return;
	q = buf.len;
	while (refs || logs) {
		while (q > stop && buf.data[q] != '/')
			q--;
		if (q <= stop)
			break;
		wg_buf_setlen(&buf, q);
		if (refs && (path_of(&path, fb, NULL, (const char *)buf.data, NULL) ||
			     wg_fs_rmdir((const char *)path.data)))
			refs = false;
		if (logs && (path_of(&path, fb, "logs", (const char *)buf.data, NULL) ||
			     wg_fs_rmdir((const char *)path.data)))
			logs = false;
	}
	wg_buf_release(&buf);
	wg_buf_release(&path);
}

static int files_reflog_delete(struct wg_refdb_backend *b, const char *name)
{
	struct wg_buf path = WG_BUF_INIT;
	int err;
	if ((err = path_of(&path, FB(b), "logs", name, NULL)))
		return err;
	if (wg_fs_unlink((const char *)path.data) && errno != ENOENT)
		err = wg_error_set(WG_EIO, "cannot remove '%s': %s", (const char *)path.data,
				   strerror(errno));
	else
		remove_empty_parents(FB(b), name, false, true);
	wg_buf_release(&path);
	return err;
}

static int write_new_reflog(struct files_backend *fb, const char *name,
			    const struct wg_buf *content)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	struct wg_buf path = WG_BUF_INIT;
	int err;

	if (!(err = path_of(&path, fb, "logs", name, NULL)) &&
	    !(err = mkdir_parent(wg_buf_cstr(&path))) &&
	    !(err = wg_lockfile_acquire(&lk, wg_buf_cstr(&path))) &&
	    !(err = wg_lockfile_write(&lk, content->data, content->len)))
		err = wg_lockfile_commit(&lk);
	wg_lockfile_rollback(&lk);
	wg_buf_release(&path);
	return err;
}

static int append_reflog(struct files_backend *fb, const char *name, unsigned flags,
			 const struct wg_oid *old_oid, const struct wg_oid *new_oid,
			 const char *committer, const char *msg)
{
	struct wg_buf line = WG_BUF_INIT;
	char ohex[WG_MAX_HEXSZ + 1], nhex[WG_MAX_HEXSZ + 1];
	bool create = (flags & WG_REF_FORCE_REFLOG) ||
		      wg_refdb_should_autocreate_reflog(fb->opts, name);
	int fd, err;
	if (wg_buf_printf(&line, "%s %s %s", wg_oid_to_hex(old_oid, ohex),
			  wg_oid_to_hex(new_oid, nhex), committer) ||
	    (*msg && wg_buf_printf(&line, "\t%s", msg)) || wg_buf_addch(&line, '\n')) {
		wg_buf_release(&line);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	if ((err = open_reflog(fb, name, false, &fd)) || (fd < 0 && !create)) {
		wg_buf_release(&line);
		return err;
	}
	if (fd < 0) {
		/* A new reflog appears whole, its first line in it, so a
		 * process killed half-way never leaves an empty one. */
		err = write_new_reflog(fb, name, &line);
		wg_buf_release(&line);
		return err;
	}
	if (wg_fs_write_all(fd, line.data, line.len))
		err = wg_error_set(WG_EIO, "unable to append to reflog of '%s': %s", name,
				   strerror(errno));
	if (wg_fs_close(fd) && !err)
		err = wg_error_set(WG_EIO, "unable to append to reflog of '%s': %s", name,
				   strerror(errno));
	wg_buf_release(&line);
	return err;
}

/* --- transactions ------------------------------------------------------------------ */

struct ref_lock {
	char *lock_path;
	bool locked;
	bool loose_exists;
	bool packed_exists;
};

struct files_tx {
	struct wg_lockfile packed_lock;
	bool packed_locked;
	struct ref_lock *locks;     /* parallel to tx->updates */
};

static void release_locks(struct files_backend *fb, struct wg_ref_transaction *tx)
{
	struct files_tx *ft = tx->backend_data;
	size_t i;
	(void)fb;
	if (!ft)
		return;
	for (i = 0; i < tx->nr; i++) {
		if (ft->locks[i].locked)
			wg_fs_unlink(ft->locks[i].lock_path);
		wg_free(ft->locks[i].lock_path);
	}
	wg_free(ft->locks);
	wg_lockfile_rollback(&ft->packed_lock);
	wg_free(ft);
	tx->backend_data = NULL;
}

/* Is there a ref (loose or packed, not being deleted) named `name` + "/..."?
 * Its name goes to *child. */
static int find_child_ref(struct files_backend *fb, struct wg_ref_transaction *tx,
			  struct wg_packed *packed, const char *name, char **child)
{
	struct wg_buf pre = WG_BUF_INIT;
	struct wg_strlist loose;
	struct wg_packed_rec rec;
	size_t i, off;
	int err;
	*child = NULL;
	if ((err = wg_buf_printf(&pre, "%s/", name)) ||
	    (err = list_loose(fb, (const char *)pre.data, &loose)))
		goto done;
	for (i = 0; i < loose.n && !*child; i++)
		if (!wg_ref_transaction_deletes(tx, loose.v[i], strlen(loose.v[i])) &&
		    !(*child = wg_strdup(loose.v[i])))
			err = wg_error_set(WG_ENOMEM, "out of memory");
	wg_strlist_release(&loose);
	off = wg_packed_seek(packed, (const char *)pre.data, pre.len);
	while (!err && !*child && !wg_packed_next(&rec, packed, &off) &&
	       rec.namelen > pre.len && !memcmp(rec.name, pre.data, pre.len))
		if (!wg_ref_transaction_deletes(tx, rec.name, rec.namelen) &&
		    !(*child = wg_strndup(rec.name, rec.namelen)))
			err = wg_error_set(WG_ENOMEM, "out of memory");
	wg_error_clear();
done:
	wg_buf_release(&pre);
	return err;
}

/* Remove a directory tree holding no files (git's remove_empty_directories). */
static int remove_empty_dirs(const char *path)
{
	void *dir = wg_fs_opendir(path);
	const char *name;
	struct wg_buf sub = WG_BUF_INIT;
	int ok = 0;
	if (!dir)
		return -1;
	while (!ok && (name = wg_fs_readdir(dir))) {
		wg_buf_reset(&sub);
		if (wg_buf_printf(&sub, "%s/%s", path, name) ||
		    remove_empty_dirs((const char *)sub.data))
			ok = -1;
	}
	wg_fs_closedir(dir);
	wg_buf_release(&sub);
	return ok ? ok : wg_fs_rmdir(path);
}

/* Lock, read and check one update (git's lock_ref_for_update). */
static int lock_one(struct files_backend *fb, struct wg_ref_transaction *tx, size_t idx,
		    struct wg_packed *packed)
{
	struct files_tx *ft = tx->backend_data;
	struct wg_ref_update *u = tx->updates[idx];
	struct ref_lock *lk = &ft->locks[idx];
	struct wg_buf path = WG_BUF_INIT, content = WG_BUF_INIT;
	struct wg_ref cur;
	bool is_dir = false, exists;
	int fd = -1, err = 0;
	char hex[WG_MAX_HEXSZ + 1];

	memset(&cur, 0, sizeof(cur));
	if ((err = path_of(&path, fb, NULL, u->name, ".lock")))
		return err;
	if (!(lk->lock_path = wg_strdup((const char *)path.data))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto done;
	}
	fd = wg_fs_open(lk->lock_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		/* A parent directory is missing, or a ref is in its way. */
		const char *p;
		for (p = strchr(u->name, '/'); p; p = strchr(p + 1, '/')) {
			struct stat st;
			if (path_of(&path, fb, NULL, u->name, NULL))
				break;
			wg_buf_setlen(&path, path.len - strlen(p));
			if (!wg_fs_stat((const char *)path.data, &st) && S_ISREG(st.st_mode) &&
			    !wg_ref_transaction_deletes(tx, u->name, (size_t)(p - u->name))) {
				char *conflict = wg_strndup(u->name, (size_t)(p - u->name));
				err = wg_ref_update_error(tx, u, WG_EEXISTS, "'%s' exists; cannot create '%s'",
						 conflict ? conflict : "?", u->name);
				wg_free(conflict);
				goto done;
			}
		}
		if ((err = mkdir_parent(lk->lock_path)))
			goto done;
		fd = wg_fs_open(lk->lock_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
	}
	if (fd < 0) {
		if (errno == EEXIST)
			err = wg_error_set(WG_ELOCKED, "cannot lock ref '%s': Unable to create "
					   "'%s': File exists.\n\n%s", wg_ref_update_original_name(tx, u),
					   lk->lock_path, lock_advice);
		else
			err = wg_error_set(WG_EIO, "cannot lock ref '%s': Unable to create '%s': %s",
					   wg_ref_update_original_name(tx, u), lk->lock_path, strerror(errno));
		goto done;
	}
	lk->locked = true;

	/* Read the current value under the lock. */
	err = read_loose(fb, u->name, &cur, &is_dir);
	if (!err) {
		lk->loose_exists = true;
	} else if (err == WG_ENOTFOUND) {
		struct wg_packed_rec rec;
		err = 0;
		if (!strncmp(u->name, "refs/", 5)) {
			err = wg_packed_find(&rec, packed, u->name, strlen(u->name));
			if (!err) {
				lk->packed_exists = true;
				fill_from_packed(&cur, &rec);
			} else if (err == WG_ENOTFOUND) {
				err = 0;
			}
		}
	} else if (err == WG_ECORRUPT && (u->flags & WG_REF_DELETING)) {
		/* A broken ref can still be deleted (git allows it). */
		wg_error_clear();
		err = 0;
		lk->loose_exists = true;
	}
	if (err)
		goto done;
	exists = lk->loose_exists || lk->packed_exists;
	u->current_symbolic = cur.symbolic;
	if (cur.symbolic) {
		if ((err = resolve_value(fb, cur.target, &u->current))) {
			if (err != WG_ENOTFOUND)
				goto done;
			wg_error_clear();
			err = 0;
			wg_oid_null(&u->current, fb->algo);
		}
	} else if (exists) {
		u->current = cur.oid;
	} else {
		wg_oid_null(&u->current, fb->algo);
	}

	if (u->flags & WG_REF_LOG_ONLY)
		goto close;

	if ((err = wg_ref_update_check(tx, u, &cur, exists)))
		goto done;

	/* Directory/file conflicts with existing refs, for a ref being made. */
	if (!exists && (u->flags & WG_REF_HAVE_NEW) && !(u->flags & WG_REF_DELETING)) {
		const char *p;
		char *child = NULL;
		for (p = strchr(u->name, '/'); p; p = strchr(p + 1, '/')) {
			struct wg_packed_rec rec;
			size_t plen = (size_t)(p - u->name);
			if (!wg_packed_find(&rec, packed, u->name, plen) &&
			    !wg_ref_transaction_deletes(tx, u->name, plen)) {
				char *conflict = wg_strndup(u->name, plen);
				err = wg_ref_update_error(tx, u, WG_EEXISTS, "'%s' exists; cannot create '%s'",
						 conflict ? conflict : "?", u->name);
				wg_free(conflict);
				goto done;
			}
		}
		wg_error_clear();
		if ((err = find_child_ref(fb, tx, packed, u->name, &child)))
			goto done;
		if (child) {
			err = wg_ref_update_error(tx, u, WG_EEXISTS, "'%s' exists; cannot create '%s'", child,
					 u->name);
			wg_free(child);
			goto done;
		}
		if (is_dir) {
			/* Empty directories left behind: git clears them. */
			if (path_of(&path, fb, NULL, u->name, NULL) ||
			    remove_empty_dirs((const char *)path.data)) {
				err = wg_ref_update_error(tx, u, WG_EEXISTS, "there is a non-empty directory "
						 "'%s' blocking reference '%s'", (const char *)path.data,
						 u->name);
				goto done;
			}
		}
	}

	/* Write the new value into the lock file. */
	if (u->new_target) {
		if ((err = wg_buf_printf(&content, "ref: %s\n", u->new_target)))
			goto done;
	} else if ((u->flags & WG_REF_HAVE_NEW) && !(u->flags & WG_REF_DELETING) &&
		   (cur.symbolic || !exists || !wg_oid_equal(&u->current, &u->new_oid))) {
		if ((err = wg_buf_printf(&content, "%s\n", wg_oid_to_hex(&u->new_oid, hex))))
			goto done;
	}
	if (content.len) {
		if (wg_fs_write_all(fd, content.data, content.len) ||
		    (fb->opts->fsync && wg_fs_fsync(fd))) {
			err = wg_error_set(WG_EIO, "cannot update ref '%s': couldn't write '%s': %s",
					   u->name, lk->lock_path, strerror(errno));
			goto done;
		}
		u->flags |= WG_REF_NEEDS_COMMIT;
	}
close:
	if (wg_fs_close(fd)) {
		fd = -1;
		err = wg_error_set(WG_EIO, "couldn't close '%s'", lk->lock_path);
		goto done;
	}
	fd = -1;
done:
	if (fd >= 0)
		wg_fs_close(fd);
	wg_ref_release(&cur);
	wg_buf_release(&path);
	wg_buf_release(&content);
	return err;
}

static int files_prepare(struct wg_refdb_backend *b, struct wg_ref_transaction *tx)
{
	struct files_backend *fb = FB(b);
	struct files_tx *ft = wg_calloc(1, sizeof(*ft));
	struct wg_packed *packed;
	struct wg_buf path = WG_BUF_INIT;
	bool deleting = false;
	size_t i;
	int err = 0;

	if (!ft || !(ft->locks = wg_calloc(tx->nr ? tx->nr : 1, sizeof(*ft->locks)))) {
		wg_free(ft);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	ft->packed_lock.fd = -1;
	tx->backend_data = ft;

	for (i = 0; i < tx->nr; i++)
		if ((tx->updates[i]->flags & WG_REF_DELETING) &&
		    !(tx->updates[i]->flags & WG_REF_LOG_ONLY))
			deleting = true;
	/* Deletions must also remove packed copies: hold packed-refs.lock
	 * from now on, so no one repacks a ref we are deleting. */
	if (deleting) {
		if ((err = path_of(&path, fb, NULL, "packed-refs", NULL)))
			goto fail;
		err = wg_lockfile_acquire(&ft->packed_lock, (const char *)path.data);
		if (err == WG_ELOCKED) {
			err = wg_error_set(WG_ELOCKED, "Unable to create '%s.lock': File exists.\n\n%s",
					   (const char *)path.data, lock_advice);
			goto fail;
		}
		if (err)
			goto fail;
		ft->packed_locked = true;
	}
	if ((err = get_packed(&packed, fb)))
		goto fail;
	for (i = 0; i < tx->nr && !err; i++)
		err = lock_one(fb, tx, i, packed);
	if (err)
		goto fail;
	wg_buf_release(&path);
	return 0;
fail:
	wg_buf_release(&path);
	release_locks(fb, tx);
	return err;
}

static void files_abort(struct wg_refdb_backend *b, struct wg_ref_transaction *tx)
{
	release_locks(FB(b), tx);
}

/* Rewrite packed-refs without the refs this transaction deletes. */
static int rewrite_packed(struct files_backend *fb, struct wg_ref_transaction *tx)
{
	struct files_tx *ft = tx->backend_data;
	struct wg_packed *packed;
	struct wg_packed_rec rec;
	struct wg_buf out = WG_BUF_INIT;
	size_t off;
	int err;
	if ((err = get_packed(&packed, fb)))
		return err;
	off = packed->start;
	if ((err = wg_buf_adds(&out, WG_PACKED_HEADER)))
		goto done;
	while (!(err = wg_packed_next(&rec, packed, &off))) {
		if (wg_ref_transaction_deletes(tx, rec.name, rec.namelen))
			continue;
		if ((err = wg_packed_format_rec(&out, rec.name, rec.namelen, &rec.oid,
						rec.has_peeled ? &rec.peeled : NULL)))
			goto done;
	}
	if (err != WG_ITEROVER)
		goto done;
	if ((err = wg_lockfile_write(&ft->packed_lock, out.data, out.len)) ||
	    (fb->opts->fsync && (err = wg_lockfile_fsync(&ft->packed_lock))) ||
	    (err = wg_lockfile_commit(&ft->packed_lock)))
		goto done;
	forget_packed(fb);
done:
	wg_buf_release(&out);
	return err;
}

/* Journal path_of(fb, dir, name) before changing it (append: a reflog). */
static int journal(struct wg_fs_journal *j, struct files_backend *fb, const char *dir,
		   const char *name, bool append)
{
	struct wg_buf path = WG_BUF_INIT;
	int err = path_of(&path, fb, dir, name, NULL);
	if (!err)
		err = append ? wg_fs_journal_save_append(j, wg_buf_cstr(&path)) :
			       wg_fs_journal_save(j, wg_buf_cstr(&path));
	wg_buf_release(&path);
	return err;
}

/* Each ref is its own file, so the commit changes files one after another;
 * every file is journalled first, and a failure part-way puts back those
 * already changed: the transaction happens entirely or not at all. */
static int files_finish(struct wg_refdb_backend *b, struct wg_ref_transaction *tx)
{
	struct files_backend *fb = FB(b);
	struct files_tx *ft = tx->backend_data;
	struct wg_fs_journal j = WG_FS_JOURNAL_INIT;
	struct wg_buf path = WG_BUF_INIT;
	bool packed_deletes = false;
	size_t i;
	int err = 0;

	/* Updates first, so live commits stay referenced (git's order). */
	for (i = 0; i < tx->nr && !err; i++) {
		struct wg_ref_update *u = tx->updates[i];
		struct ref_lock *lk = &ft->locks[i];
		if ((u->flags & WG_REF_NEEDS_COMMIT) || (u->flags & WG_REF_LOG_ONLY)) {
			struct wg_oid old_oid = u->current, new_oid = u->new_oid;
			bool log = true;
			const struct wg_ref_update *src = u;
			if (u->flags & WG_REF_LOG_ONLY) {
				if (!u->parent) {
					log = false;
				} else {
					src = u->parent;
					old_oid = u->parent->current;
					new_oid = u->parent->new_oid;
					if (!(u->parent->flags & WG_REF_HAVE_NEW))
						log = false;
				}
			}
			if (src->new_target &&
			    resolve_value(fb, src->new_target, &new_oid)) {
				/* git skips logging a symref pointed at nothing. */
				wg_error_clear();
				log = false;
			}
			if (u->flags & WG_REF_SKIP_REFLOG)
				log = false;
			if (log && ((err = journal(&j, fb, "logs", u->name, true)) ||
				    (err = append_reflog(fb, u->name, u->flags, &old_oid, &new_oid,
							 tx->committer, u->msg))))
				break;
		}
		if (u->flags & WG_REF_NEEDS_COMMIT) {
			if ((err = journal(&j, fb, NULL, u->name, false)) ||
			    (err = path_of(&path, fb, NULL, u->name, NULL)))
				break;
			if (wg_fs_rename(lk->lock_path, (const char *)path.data)) {
				err = wg_error_set(WG_EIO, "couldn't set '%s': %s", u->name,
						   strerror(errno));
				break;
			}
			lk->locked = false;
		}
	}
	/* Then deletions: reflogs first, packed copies, then loose files. */
	for (i = 0; i < tx->nr && !err; i++) {
		struct wg_ref_update *u = tx->updates[i];
		if (!(u->flags & WG_REF_DELETING) || (u->flags & WG_REF_LOG_ONLY))
			continue;
		if ((err = journal(&j, fb, "logs", u->name, false)))
			break;
		if (!path_of(&path, fb, "logs", u->name, NULL) &&
		    !wg_fs_unlink((const char *)path.data))
			remove_empty_parents(fb, u->name, false, true);
		else if (errno != ENOENT)
			err = wg_error_set(WG_EIO, "unable to delete the reflog of '%s': %s",
					   u->name, strerror(errno));
		if (ft->locks[i].packed_exists)
			packed_deletes = true;
	}
	if (!err && packed_deletes && !(err = journal(&j, fb, NULL, "packed-refs", false)))
		err = rewrite_packed(fb, tx);
	for (i = 0; i < tx->nr && !err; i++) {
		struct wg_ref_update *u = tx->updates[i];
		if (!(u->flags & WG_REF_DELETING) || (u->flags & WG_REF_LOG_ONLY) ||
		    !ft->locks[i].loose_exists)
			continue;
		if ((err = journal(&j, fb, NULL, u->name, false)) ||
		    (err = path_of(&path, fb, NULL, u->name, NULL)))
			break;
		if (wg_fs_unlink((const char *)path.data) && errno != ENOENT)
			err = wg_error_set(WG_EIO, "unable to unlink '%s': %s",
					   (const char *)path.data, strerror(errno));
	}
	if (err) {
		wg_fs_journal_undo(&j);
		forget_packed(fb);
	}
	wg_fs_journal_release(&j);
	wg_buf_release(&path);
	release_locks(fb, tx);
	for (i = 0; i < tx->nr; i++) {
		struct wg_ref_update *u = tx->updates[i];
		if ((u->flags & WG_REF_DELETING) && !(u->flags & WG_REF_LOG_ONLY))
			remove_empty_parents(fb, u->name, true, false);
	}
	return err;
}

/* --- rename ---------------------------------------------------------------------- */

/* git's files_copy_or_rename_ref, step for step: the reflog goes aside
 * (logs/TMP_RENAMED_LOG, so "a" -> "a/b" works), the old ref is deleted
 * (which logs the deletion to HEAD when HEAD names it), a forced target
 * is deleted, the reflog moves in, the new ref is written and its reflog
 * gets "old old <msg>". A failure puts the old ref and its reflog back. */
static int files_rename(struct wg_refdb_backend *b, struct wg_refdb *db,
			const struct wg_ref_rename *r)
{
	struct files_backend *fb = FB(b);
	struct wg_buf from = WG_BUF_INIT, tmp = WG_BUF_INIT, to = WG_BUF_INIT;
	struct wg_buf content = WG_BUF_INIT;
	bool log = files_reflog_exists(b, r->old_name) == 1, moved = false;
	int err;

	if ((err = path_of(&from, fb, "logs", r->old_name, NULL)) ||
	    (err = path_of(&tmp, fb, "logs", "TMP_RENAMED_LOG", NULL)) ||
	    (err = path_of(&to, fb, "logs", r->new_name, NULL)))
		goto done;
	if (r->copy && log) {
		if ((err = wg_fs_read_file(&content, wg_buf_cstr(&from))) ||
		    (err = write_new_reflog(fb, r->new_name, &content)))
			goto done;
	} else if (log) {
		if (wg_fs_rename(wg_buf_cstr(&from), wg_buf_cstr(&tmp))) {
			err = wg_error_set(WG_EIO, "unable to move logfile logs/%s to "
					   "logs/TMP_RENAMED_LOG: %s", r->old_name, strerror(errno));
			goto done;
		}
		moved = true;
		/* As the deletion would have: no empty directories left. */
		remove_empty_parents(fb, r->old_name, false, true);
	}
	if (!r->copy) {
		if ((err = wg_refdb_delete(db, r->old_name, &r->oid, WG_REF_NO_DEREF, r->msg)))
			goto rollback_log;
		if (r->new_exists &&
		    (err = wg_refdb_delete(db, r->new_name, NULL, WG_REF_NO_DEREF, NULL)))
			goto rollback_ref;
		if (moved) {
			if ((err = mkdir_parent(wg_buf_cstr(&to))))
				goto rollback_ref;
			/* An empty directory in the way ("a/b" -> "a") goes,
			 * as git's rename_tmp_log clears it. */
			if (wg_fs_is_dir(wg_buf_cstr(&to)))
				remove_empty_dirs(wg_buf_cstr(&to));
			if (wg_fs_rename(wg_buf_cstr(&tmp), wg_buf_cstr(&to))) {
				err = wg_error_set(WG_EIO, "unable to move logfile "
						   "logs/TMP_RENAMED_LOG to logs/%s: %s",
						   r->new_name, strerror(errno));
				goto rollback_ref;
			}
			moved = false;
		}
	}
	if ((err = wg_refdb_update(db, r->new_name, &r->oid, NULL,
				   WG_REF_NO_DEREF | WG_REF_SKIP_REFLOG, r->msg)))
		goto rollback_ref;
	err = append_reflog(fb, r->new_name, 0, &r->oid, &r->oid, r->committer, r->msg);
	goto done;

rollback_ref:
	if (!r->copy) {
		struct wg_error_saved saved;
		wg_error_save(&saved);
		if (!moved && log && !wg_fs_rename(wg_buf_cstr(&to), wg_buf_cstr(&tmp)))
			moved = true;
		wg_refdb_update(db, r->old_name, &r->oid, NULL, WG_REF_NO_DEREF |
				WG_REF_SKIP_REFLOG, NULL);
		wg_error_restore(&saved);
	}
rollback_log:
	if (moved && !mkdir_parent(wg_buf_cstr(&from)))
		wg_fs_rename(wg_buf_cstr(&tmp), wg_buf_cstr(&from));
done:
	wg_buf_release(&from);
	wg_buf_release(&tmp);
	wg_buf_release(&to);
	wg_buf_release(&content);
	return err;
}

/* --- pack-refs ------------------------------------------------------------------ */

/* Per-worktree refs git never packs. */
static bool never_packed(const char *name)
{
	return !strncmp(name, "refs/bisect/", 12) || !strncmp(name, "refs/worktree/", 14) ||
	       !strncmp(name, "refs/rewritten/", 15);
}

static int peel_for_pack(struct files_backend *fb, const struct wg_oid *oid,
			 struct wg_oid *peeled, bool *has)
{
	int r;
	*has = false;
	if (!fb->opts->peel)
		return 0;
	r = fb->opts->peel(peeled, oid, fb->opts->peel_payload);
	if (r < 0) {
		/* A missing object: git writes the ref unpeeled and moves on. */
		wg_error_clear();
		return 0;
	}
	*has = r > 0;
	return 0;
}

/* Remove the loose copy of a ref just packed, if it still holds the packed
 * value (journalled first). A ref someone else has locked keeps its loose
 * copy, as in git; a failure to remove one is an error, so that pack-refs
 * is undone as a whole rather than left with some refs pruned. */
static int prune_loose(struct files_backend *fb, struct wg_fs_journal *j, const char *name,
		       const struct wg_oid *oid)
{
	struct wg_buf path = WG_BUF_INIT, lock = WG_BUF_INIT;
	struct wg_ref cur;
	int fd, err;
	if ((err = path_of(&lock, fb, NULL, name, ".lock")) ||
	    (err = path_of(&path, fb, NULL, name, NULL)))
		goto done;
	fd = wg_fs_open((const char *)lock.data, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (fd < 0) {
		/* someone else holds it: leave the loose ref, as git does */
		if (errno != EEXIST)
			err = wg_error_set(WG_EIO, "Unable to create '%s': %s",
					   wg_buf_cstr(&lock), strerror(errno));
		goto done;
	}
	wg_fs_close(fd);
	memset(&cur, 0, sizeof(cur));
	if (!read_loose(fb, name, &cur, NULL) && !cur.symbolic && wg_oid_equal(&cur.oid, oid) &&
	    !(err = wg_fs_journal_save(j, wg_buf_cstr(&path))) &&
	    wg_fs_unlink((const char *)path.data) && errno != ENOENT)
		err = wg_error_set(WG_EIO, "unable to remove '%s': %s", wg_buf_cstr(&path),
				   strerror(errno));
	if (!err)
		wg_error_clear();
	wg_ref_release(&cur);
	wg_fs_unlink((const char *)lock.data);
	if (!err)
		remove_empty_parents(fb, name, true, false);
done:
	wg_buf_release(&path);
	wg_buf_release(&lock);
	return err;
}

static int files_pack(struct wg_refdb_backend *b, unsigned flags)
{
	struct files_backend *fb = FB(b);
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	struct wg_buf path = WG_BUF_INIT, out = WG_BUF_INIT;
	struct wg_strlist loose, prune;
	struct wg_fs_journal j = WG_FS_JOURNAL_INIT;
	struct wg_packed *packed = NULL;
	struct wg_packed_rec rec;
	size_t li = 0, off, i;
	int err, perr = 0;
	bool have_rec = false;

	memset(&loose, 0, sizeof(loose));
	memset(&prune, 0, sizeof(prune));
	if ((err = path_of(&path, fb, NULL, "packed-refs", NULL)))
		return err;
	err = wg_lockfile_acquire(&lk, (const char *)path.data);
	if (err == WG_ELOCKED)
		err = wg_error_set(WG_ELOCKED, "Unable to create '%s.lock': File exists.\n\n%s",
				   (const char *)path.data, lock_advice);
	if (err || (err = wg_packed_load(&packed, (const char *)path.data, fb->algo)) ||
	    (err = list_loose(fb, "refs/", &loose)) || (err = wg_buf_adds(&out, WG_PACKED_HEADER)))
		goto done;
	off = packed->start;
	for (;;) {
		const char *lname = li < loose.n ? loose.v[li] : NULL;
		int c;
		if (!have_rec) {
			perr = wg_packed_next(&rec, packed, &off);
			if (perr && perr != WG_ITEROVER) {
				err = perr;
				goto done;
			}
			have_rec = !perr;
		}
		if (!lname && !have_rec)
			break;
		if (!lname) {
			c = 1;
		} else if (!have_rec) {
			c = -1;
		} else {
			size_t ln = strlen(lname), n = ln < rec.namelen ? ln : rec.namelen;
			c = memcmp(lname, rec.name, n);
			if (!c)
				c = ln < rec.namelen ? -1 : ln > rec.namelen;
		}
		if (c <= 0) {
			struct wg_ref cur;
			bool take;
			li++;
			memset(&cur, 0, sizeof(cur));
			take = ((flags & WG_REFDB_PACK_ALL) || !strncmp(lname, "refs/tags/", 10)) &&
			       !never_packed(lname) && !read_loose(fb, lname, &cur, NULL) &&
			       !cur.symbolic;
			wg_error_clear();
			if (take) {
				struct wg_oid peeled;
				char hex[WG_MAX_HEXSZ + 1];
				bool has;
				wg_buf_reset(&path);
				if ((err = peel_for_pack(fb, &cur.oid, &peeled, &has)) ||
				    (err = wg_packed_format_rec(&out, lname, strlen(lname), &cur.oid,
								has ? &peeled : NULL)) ||
				    (err = wg_buf_printf(&path, "%s %s", wg_oid_to_hex(&cur.oid, hex),
							 lname)) ||
				    (err = wg_strlist_add(&prune, (const char *)path.data, path.len))) {
					wg_ref_release(&cur);
					goto done;
				}
				wg_ref_release(&cur);
				if (c == 0)
					have_rec = false;  /* the loose value replaces it */
				continue;
			}
			wg_ref_release(&cur);
			if (c < 0)
				continue;
			/* Not packing the loose one: keep the packed entry as it is. */
		}
		have_rec = false;
		{
			struct wg_oid peeled = rec.peeled;
			bool has = rec.has_peeled;
			if (!has && !packed->fully_peeled &&
			    (err = peel_for_pack(fb, &rec.oid, &peeled, &has)))
				goto done;
			if ((err = wg_packed_format_rec(&out, rec.name, rec.namelen, &rec.oid,
							has ? &peeled : NULL)))
				goto done;
		}
	}
	if ((err = wg_lockfile_write(&lk, out.data, out.len)) ||
	    (fb->opts->fsync && (err = wg_lockfile_fsync(&lk))) ||
	    (err = journal(&j, fb, NULL, "packed-refs", false)) || (err = wg_lockfile_commit(&lk)))
		goto done;
	forget_packed(fb);
	if (flags & WG_REFDB_PACK_PRUNE) {
		for (i = 0; i < prune.n && !err; i++) {
			struct wg_oid oid;
			const char *sp = strchr(prune.v[i], ' ');
			if (sp && !wg_oid_from_hex(&oid, fb->algo, prune.v[i]))
				err = prune_loose(fb, &j, sp + 1, &oid);
		}
	}
done:
	if (err) {
		/* all or nothing: packed-refs and the pruned refs as they were */
		wg_fs_journal_undo(&j);
		forget_packed(fb);
	}
	wg_fs_journal_release(&j);
	wg_lockfile_rollback(&lk);
	wg_packed_free(packed);
	wg_strlist_release(&loose);
	wg_strlist_release(&prune);
	wg_buf_release(&path);
	wg_buf_release(&out);
	return err;
}

/* --- refs verify ----------------------------------------------------------------- */

struct verify_state {
	wg_refdb_verify_cb cb;
	void *payload;
	int problems;
	bool stop;
};

static void report(struct verify_state *vs, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void report(struct verify_state *vs, const char *name, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vs->problems++;
	if (vs->cb && !vs->stop && vs->cb(name, msg, vs->payload))
		vs->stop = true;
}

static void verify_loose(struct files_backend *fb, struct verify_state *vs, const char *name)
{
	struct wg_buf path = WG_BUF_INIT, content = WG_BUF_INIT;
	struct wg_ref ref;
	memset(&ref, 0, sizeof(ref));
	if (path_of(&path, fb, NULL, name, NULL) ||
	    read_small_file(&content, (const char *)path.data, NULL))
		goto done;
	if (parse_loose(fb, name, (const char *)content.data, content.len, &ref)) {
		report(vs, name, "badRefContent: %.*s", (int)(content.len > 80 ? 80 : content.len),
		       (const char *)content.data);
	} else if (ref.symbolic && !wg_refdb_name_is_valid(ref.target)) {
		report(vs, name, "badReferentName: points to invalid refname '%s'", ref.target);
	}
done:
	wg_error_clear();
	wg_ref_release(&ref);
	wg_buf_release(&path);
	wg_buf_release(&content);
}

static int files_verify(struct wg_refdb_backend *b, wg_refdb_verify_cb cb, void *payload)
{
	struct files_backend *fb = FB(b);
	struct verify_state vs = { cb, payload, 0, false };
	struct wg_strlist loose;
	struct wg_packed *packed = NULL;
	struct wg_packed_rec rec;
	struct wg_buf path = WG_BUF_INIT;
	char *prev = NULL;
	size_t i, off;
	int err;

	if ((err = list_loose(fb, "refs/", &loose)))
		return err;
	verify_loose(fb, &vs, "HEAD");
	for (i = 0; i < loose.n; i++)
		verify_loose(fb, &vs, loose.v[i]);
	wg_strlist_release(&loose);
	if ((err = path_of(&path, fb, NULL, "packed-refs", NULL)))
		return err;
	err = wg_packed_load(&packed, (const char *)path.data, fb->algo);
	wg_buf_release(&path);
	if (err) {
		report(&vs, "packed-refs", "%s", wg_error_message());
		wg_error_clear();
		return vs.problems;
	}
	off = packed->start;
	while (!(err = wg_packed_next(&rec, packed, &off))) {
		char *name = wg_strndup(rec.name, rec.namelen);
		if (!name) {
			wg_free(prev);
			wg_packed_free(packed);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		if (!wg_refname_is_valid(name, 0) || strncmp(name, "refs/", 5))
			report(&vs, "packed-refs", "badRefName: has bad refname '%s'", name);
		if (prev && strcmp(prev, name) >= 0)
			report(&vs, "packed-refs", "packedRefUnsorted: refname '%s' is less than "
			       "the previous refname '%s'", name, prev);
		wg_free(prev);
		prev = name;
	}
	if (err != WG_ITEROVER) {
		report(&vs, "packed-refs", "badPackedRefEntry: %s", wg_error_message());
		wg_error_clear();
	}
	wg_free(prev);
	wg_packed_free(packed);
	return vs.problems;
}

/* --- construction --------------------------------------------------------------- */

static void files_free(struct wg_refdb_backend *b)
{
	struct files_backend *fb = FB(b);
	wg_packed_free(fb->packed);
	wg_free(fb->gitdir);
	wg_free(fb);
}

int wg_refdb_files_new(struct wg_refdb_backend **out, const struct wg_refdb_config *cfg)
{
	struct files_backend *fb = wg_calloc(1, sizeof(*fb));
	if (!fb || !(fb->gitdir = wg_strdup(cfg->gitdir))) {
		wg_free(fb);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	fb->base.version = WG_REFDB_BACKEND_VERSION;
	fb->base.read = files_read;
	fb->base.iter = files_iter_new;
	fb->base.reflog_iter = files_reflog_iter;
	fb->base.reflog_exists = files_reflog_exists;
	fb->base.reflog_create = files_reflog_create;
	fb->base.reflog_delete = files_reflog_delete;
	fb->base.prepare = files_prepare;
	fb->base.finish = files_finish;
	fb->base.abort = files_abort;
	fb->base.pack = files_pack;
	fb->base.verify = files_verify;
	fb->base.rename = files_rename;
	fb->base.free = files_free;
	fb->algo = cfg->algo;
	fb->opts = cfg->opts;
	*out = &fb->base;
	return 0;
}

int wg_refdb_files_init(const char *gitdir, const char *head_target)
{
	struct wg_buf path = WG_BUF_INIT, head = WG_BUF_INIT;
	int err;
	if ((err = wg_fs_join(&path, gitdir, "refs/heads")) ||
	    (err = wg_fs_mkdir_p((const char *)path.data)) ||
	    (err = wg_fs_join(&path, gitdir, "refs/tags")) ||
	    (err = wg_fs_mkdir_p((const char *)path.data)) ||
	    (err = wg_fs_join(&path, gitdir, "HEAD")) ||
	    (err = wg_buf_printf(&head, "ref: %s\n", head_target)))
		goto done;
	err = wg_fs_write_new_file((const char *)path.data, head.data, head.len, 0666);
	if (err == WG_EEXISTS) {
		wg_error_clear();
		err = 0;
	}
done:
	wg_buf_release(&path);
	wg_buf_release(&head);
	return err;
}
