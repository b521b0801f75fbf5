/* The reftable stack in $GIT_DIR/reftable: tables.list names the tables,
 * oldest first. Readers take one snapshot of it and keep the tables open
 * (an unlinked file stays readable), so a concurrent compaction never shows
 * them half a transaction. Writers serialise on tables.list.lock, the same
 * lock git takes, so webgit and git can share a repository.
 *
 * Compaction differs from git's in one way: it holds tables.list.lock for
 * its whole duration (git releases it while merging and relies on per-table
 * locks). Concurrent writers are then refused with WG_ELOCKED and retry;
 * simpler, and never incorrect. It still takes the per-table "<name>.lock"
 * files, so it stays out of a compaction git is running. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reftable/reftable_internal.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/lockfile.h"

struct wg_reftable_stack {
	char *dir;
	char *list_path;
	struct wg_reftable_stack_options opts;
	const struct wg_hash_algo *algo;
	struct wg_reftable_merged *merged;
	char **names;            /* parallel to merged's tables */
	size_t n;
	uint32_t counter;        /* mixed into random names when no entropy */
	/* tables.list as last loaded: a reload that finds the same file
	 * (tables.list is only ever replaced by rename, so a change means a
	 * new inode or at least a new mtime) keeps the snapshot as is. */
	bool list_known;
	struct stat list_st;
};

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wg_free(names[i]);
	wg_free(names);
}

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory in the reftable stack");
}

/* Read tables.list into a name array; a missing file is an empty stack. */
static int read_list(struct wg_reftable_stack *st, char ***names_out, size_t *n_out)
{
	struct wg_buf buf = WG_BUF_INIT;
	char **names = NULL;
	size_t n = 0, cap = 0;
	char *p, *line;
	int err;

	*names_out = NULL;
	*n_out = 0;
	err = wg_fs_read_file(&buf, st->list_path);
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		err = 0;
	}
	if (err) {
		wg_buf_release(&buf);
		return err;
	}
	for (p = (char *)wg_buf_cstr(&buf); *p; p = line) {
		char *nl = strchr(p, '\n');
		line = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = '\0';
		if (!*p)
			continue;
		/* Names come from a file others write: refuse anything that
		 * could leave the directory. */
		if (strchr(p, '/') || !strcmp(p, ".") || !strcmp(p, "..")) {
			err = wg_error_set(WG_ECORRUPT, "%s: invalid table name '%s'",
					   st->list_path, p);
			break;
		}
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			char **nn = wg_realloc(names, ncap * sizeof(*nn));
			if (!nn) {
				err = nomem();
				break;
			}
			names = nn;
			cap = ncap;
		}
		if (!(names[n] = wg_strdup(p))) {
			err = nomem();
			break;
		}
		n++;
	}
	wg_buf_release(&buf);
	if (err) {
		free_names(names, n);
		return err;
	}
	*names_out = names;
	*n_out = n;
	return 0;
}

static int table_path(struct wg_buf *out, const struct wg_reftable_stack *st, const char *name)
{
	return wg_fs_join(out, st->dir, name);
}

static int open_table(struct wg_reftable_table **out, struct wg_reftable_stack *st,
		      const char *name)
{
	struct wg_buf path = WG_BUF_INIT;
	struct wg_reftable_source *src;
	int err;

	*out = NULL;
	if ((err = table_path(&path, st, name)))
		goto done;
	if ((err = wg_reftable_source_from_file(&src, wg_buf_cstr(&path))))
		goto done;
	if ((err = wg_reftable_table_open(out, src, wg_buf_cstr(&path))))
		goto done;
	if (wg_reftable_table_algo(*out) != st->algo) {
		err = wg_error_set(WG_ECORRUPT, "reftable %s uses %s, the repository uses %s",
				   wg_buf_cstr(&path), wg_reftable_table_algo(*out)->name,
				   st->algo->name);
		wg_reftable_table_free(*out);
		*out = NULL;
	}
done:
	wg_buf_release(&path);
	return err;
}

/* Open the tables of one tables.list snapshot, reusing open ones. */
static int load_snapshot(struct wg_reftable_stack *st, char **names, size_t n,
			 struct wg_reftable_merged **out, char **missing)
{
	struct wg_reftable_table **tables = n ? wg_calloc(n, sizeof(*tables)) : NULL;
	size_t i;
	int err = 0;

	*out = NULL;
	*missing = NULL;
	if (n && !tables)
		return nomem();
	for (i = 0; i < n && !err; i++) {
		for (size_t j = 0; j < st->n; j++) {
			if (!strcmp(st->names[j], names[i])) {
				tables[i] = wg_reftable_merged_table(st->merged, j);
				rt_table_incref(tables[i]);
				break;
			}
		}
		if (!tables[i]) {
			err = open_table(&tables[i], st, names[i]);
			if (err == WG_ENOTFOUND)
				*missing = names[i];
		}
	}
	if (!err)
		err = wg_reftable_merged_new(out, tables, n);
	for (i = 0; i < n; i++)
		wg_reftable_table_free(tables[i]);
	wg_free(tables);
	return err;
}

int wg_reftable_stack_reload(struct wg_reftable_stack *st)
{
	struct wg_reftable_merged *m = NULL;
	char **names = NULL, *missing = NULL;
	size_t n = 0;
	int err = 0;

	struct stat before, after;
	bool have_before = !wg_fs_stat(st->list_path, &before);

	if (have_before && st->list_known && st->merged && same_file(&before, &st->list_st))
		return 0;
	/* A table named by tables.list can vanish when a concurrent
	 * compaction replaces it between our reading the list and opening
	 * the file: read the list again once before calling it corrupt. */
	for (int attempt = 0; attempt < 2; attempt++) {
		free_names(names, n);
		if (attempt)
			have_before = !wg_fs_stat(st->list_path, &before);
		if ((err = read_list(st, &names, &n)))
			return err;
		err = load_snapshot(st, names, n, &m, &missing);
		if (err != WG_ENOTFOUND || !missing)
			break;
	}
	if (err == WG_ENOTFOUND && missing)
		err = wg_error_set(WG_ECORRUPT, "%s names table %s, which does not exist",
				   st->list_path, missing);
	if (err) {
		free_names(names, n);
		return err;
	}
	wg_reftable_merged_free(st->merged);
	free_names(st->names, st->n);
	st->merged = m;
	st->names = names;
	st->n = n;
	/* Remember the file only if it did not change while we read it. */
	st->list_known = have_before && !wg_fs_stat(st->list_path, &after) &&
			 same_file(&before, &after);
	if (st->list_known)
		st->list_st = before;
	return 0;
}

int wg_reftable_stack_open(struct wg_reftable_stack **out, const char *dir,
			   const struct wg_reftable_stack_options *opts)
{
	struct wg_reftable_stack *st;
	struct wg_buf path = WG_BUF_INIT;
	int err;

	*out = NULL;
	if (!wg_fs_is_dir(dir))
		return wg_error_set(WG_ENOTFOUND, "reftable directory %s does not exist", dir);
	st = wg_calloc(1, sizeof(*st));
	if (!st || !(st->dir = wg_strdup(dir)) || wg_fs_join(&path, dir, "tables.list")) {
		if (st)
			wg_free(st->dir);
		wg_free(st);
		wg_buf_release(&path);
		return nomem();
	}
	st->list_path = (char *)wg_buf_detach(&path, NULL);
	if (opts)
		st->opts = *opts;
	st->algo = st->opts.algo ? st->opts.algo : wg_hash_algo_by_id(WG_HASH_SHA1);
	if (!st->list_path)
		err = nomem();
	else if (!(err = wg_reftable_merged_new(&st->merged, NULL, 0)))
		err = wg_reftable_stack_reload(st);
	if (err) {
		wg_reftable_stack_free(st);
		return err;
	}
	*out = st;
	return 0;
}

void wg_reftable_stack_free(struct wg_reftable_stack *st)
{
	if (!st)
		return;
	wg_reftable_merged_free(st->merged);
	free_names(st->names, st->n);
	wg_free(st->dir);
	wg_free(st->list_path);
	wg_free(st);
}

struct wg_reftable_merged *wg_reftable_stack_merged(struct wg_reftable_stack *st)
{
	return st->merged;
}

uint64_t wg_reftable_stack_next_update_index(const struct wg_reftable_stack *st)
{
	if (!st->n)
		return 1;
	return wg_reftable_table_max_update_index(wg_reftable_merged_table(st->merged, st->n - 1)) + 1;
}

/* Whether tables.list still names exactly our snapshot. */
static int stack_uptodate(struct wg_reftable_stack *st, bool *uptodate)
{
	char **names;
	size_t n;
	int err;

	if ((err = read_list(st, &names, &n)))
		return err;
	*uptodate = n == st->n;
	for (size_t i = 0; *uptodate && i < n; i++)
		*uptodate = !strcmp(names[i], st->names[i]);
	free_names(names, n);
	return 0;
}

static int lock_list(struct wg_reftable_stack *st, struct wg_lockfile *lk)
{
	int err = wg_lockfile_acquire(lk, st->list_path);

	if (err == WG_ELOCKED)
		return wg_error_set(WG_ELOCKED, "cannot lock %s.lock: another process is "
				    "updating the refs (remove the file if that process died)",
				    st->list_path);
	return err;
}

static uint32_t random32(struct wg_reftable_stack *st)
{
	uint32_t v = 0;
	int fd = wg_fs_open("/dev/urandom", O_RDONLY, 0);

	if (fd >= 0) {
		ssize_t n = wg_fs_read(fd, &v, sizeof(v));
		wg_fs_close(fd);
		if (n == (ssize_t)sizeof(v))
			return v;
	}
	/* No entropy device: names only need to differ, not be secret. */
	v = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16 ^ ++st->counter * 2654435761u;
	return v ^ (uint32_t)(uintptr_t)st;
}

static int format_name(struct wg_buf *out, struct wg_reftable_stack *st, uint64_t min,
		       uint64_t max)
{
	wg_buf_reset(out);
	return wg_buf_printf(out, "0x%012" PRIx64 "-0x%012" PRIx64 "-%08" PRIx32 ".ref", min, max,
			     random32(st)) ? nomem() : 0;
}

/* Writes a table to a temporary file in the stack's directory. */
struct tmp_table {
	int fd;
	struct wg_buf path;
	unsigned char buf[65536];
	size_t len;
};

static int tmp_flush(struct tmp_table *tt)
{
	if (wg_fs_write_all(tt->fd, tt->buf, tt->len))
		return wg_error_set(WG_EIO, "cannot write %s: %s", wg_buf_cstr(&tt->path),
				    strerror(errno));
	tt->len = 0;
	return 0;
}

static int tmp_write(void *payload, const void *data, size_t len)
{
	struct tmp_table *tt = payload;
	const unsigned char *p = data;
	int err;

	while (len) {
		size_t n = sizeof(tt->buf) - tt->len;
		if (n > len)
			n = len;
		memcpy(tt->buf + tt->len, p, n);
		tt->len += n;
		p += n;
		len -= n;
		if (tt->len == sizeof(tt->buf) && (err = tmp_flush(tt)))
			return err;
	}
	return 0;
}

static int tmp_open(struct tmp_table **out, struct wg_reftable_stack *st)
{
	struct tmp_table *tt = wg_calloc(1, sizeof(*tt));
	int err;

	*out = NULL;
	if (!tt)
		return nomem();
	tt->fd = -1;
	if ((err = wg_fs_join(&tt->path, st->dir, "tmp_table.temp.XXXXXX"))) {
		wg_free(tt);
		return err;
	}
	tt->fd = wg_fs_mkstemp((char *)tt->path.data);
	if (tt->fd < 0) {
		err = wg_error_set(WG_EIO, "cannot create a temporary table in %s: %s", st->dir,
				   strerror(errno));
		wg_buf_release(&tt->path);
		wg_free(tt);
		return err;
	}
	*out = tt;
	return 0;
}

/* Remove the temporary file unless it was renamed (path emptied). */
static void tmp_discard(struct tmp_table *tt)
{
	if (!tt)
		return;
	if (tt->fd >= 0)
		wg_fs_close(tt->fd);
	if (tt->path.len)
		wg_fs_unlink(wg_buf_cstr(&tt->path));
	wg_buf_release(&tt->path);
	wg_free(tt);
}

/* Flush, sync, close, chmod and rename the temporary table to its final
 * name; *name receives that name. */
static int tmp_commit(struct tmp_table *tt, struct wg_reftable_stack *st, uint64_t min,
		      uint64_t max, struct wg_buf *name)
{
	struct wg_buf final = WG_BUF_INIT;
	int err;

	if ((err = tmp_flush(tt)))
		return err;
	if (st->opts.fsync && wg_fs_fsync(tt->fd))
		return wg_error_set(WG_EIO, "cannot fsync %s: %s", wg_buf_cstr(&tt->path),
				    strerror(errno));
	if (wg_fs_close(tt->fd)) {
		tt->fd = -1;
		return wg_error_set(WG_EIO, "cannot close %s: %s", wg_buf_cstr(&tt->path),
				    strerror(errno));
	}
	tt->fd = -1;
	if (!st->opts.file_mode) {
		mode_t mask = umask(0);
		umask(mask);
		/* A mask that takes the owner's own rights away is no real
		 * setting (Emscripten 3.1.6 starts at 0777): a table nobody
		 * can read would lose every ref. */
		if (mask & 0600)
			mask = 022;
		wg_fs_chmod(wg_buf_cstr(&tt->path), 0666 & ~mask);
	} else {
		wg_fs_chmod(wg_buf_cstr(&tt->path), st->opts.file_mode);
	}
	if ((err = format_name(name, st, min, max)) ||
	    (err = table_path(&final, st, wg_buf_cstr(name))))
		goto done;
	if (wg_fs_rename(wg_buf_cstr(&tt->path), wg_buf_cstr(&final))) {
		err = wg_error_set(WG_EIO, "cannot rename %s to %s: %s", wg_buf_cstr(&tt->path),
				   wg_buf_cstr(&final), strerror(errno));
		goto done;
	}
	wg_buf_reset(&tt->path);
done:
	wg_buf_release(&final);
	return err;
}

static void opts_for_writer(const struct wg_reftable_stack *st,
			    struct wg_reftable_write_options *wo)
{
	*wo = (struct wg_reftable_write_options)WG_REFTABLE_WRITE_OPTIONS_INIT;
	wo->algo = st->algo;
	wo->block_size = st->opts.block_size;
	wo->restart_interval = st->opts.restart_interval;
	wo->exact_log_message = st->opts.exact_log_message;
}

/* Write tables.list.lock with names[0..first) + replacement + names(last..n)
 * and commit it. replacement may be NULL. */
static int write_list(struct wg_reftable_stack *st, struct wg_lockfile *lk, size_t first,
		      size_t last_excl, const char *replacement, bool append)
{
	struct wg_buf list = WG_BUF_INIT;
	int err = 0;

	for (size_t i = 0; i < first && !err; i++)
		err = wg_buf_printf(&list, "%s\n", st->names[i]);
	if (!err && replacement && !append)
		err = wg_buf_printf(&list, "%s\n", replacement);
	for (size_t i = last_excl; i < st->n && !err; i++)
		err = wg_buf_printf(&list, "%s\n", st->names[i]);
	if (!err && replacement && append)
		err = wg_buf_printf(&list, "%s\n", replacement);
	if (err)
		err = nomem();
	if (!err)
		err = wg_lockfile_write(lk, list.data ? list.data : (unsigned char *)"", list.len);
	if (!err && st->opts.fsync)
		err = wg_lockfile_fsync(lk);
	if (!err)
		err = wg_lockfile_commit(lk);
	wg_buf_release(&list);
	return err;
}

struct wg_reftable_addition {
	struct wg_reftable_stack *st;
	struct wg_lockfile lk;
	bool done;               /* committed or failed: the lock is gone */
};

int wg_reftable_stack_new_addition(struct wg_reftable_addition **out,
				   struct wg_reftable_stack *st, unsigned flags)
{
	struct wg_reftable_addition *a = wg_calloc(1, sizeof(*a));
	bool uptodate;
	int err;

	*out = NULL;
	if (!a)
		return nomem();
	a->st = st;
	a->lk = (struct wg_lockfile)WG_LOCKFILE_INIT;
	if ((err = lock_list(st, &a->lk))) {
		wg_free(a);
		return err;
	}
	if ((err = stack_uptodate(st, &uptodate)))
		goto fail;
	if (!uptodate) {
		if (!(flags & WG_REFTABLE_ADD_RELOAD)) {
			err = wg_error_set(WG_ELOCKED, "reftable stack %s is outdated: tables.list "
					   "changed since it was read; reload and retry", st->dir);
			goto fail;
		}
		if ((err = wg_reftable_stack_reload(st)))
			goto fail;
	}
	*out = a;
	return 0;
fail:
	wg_lockfile_rollback(&a->lk);
	wg_free(a);
	return err;
}

void wg_reftable_addition_free(struct wg_reftable_addition *a)
{
	if (!a)
		return;
	wg_lockfile_rollback(&a->lk);
	wg_free(a);
}

int wg_reftable_addition_commit(struct wg_reftable_addition *a, wg_reftable_add_fn write_fn,
				void *payload)
{
	struct wg_reftable_stack *st = a->st;
	struct wg_reftable_write_options wo;
	struct wg_reftable_writer *w = NULL;
	struct tmp_table *tt = NULL;
	struct wg_buf name = WG_BUF_INIT;
	uint64_t next, min, max;
	bool added = false;
	int err;

	if (a->done)
		return wg_error_set(WG_EINVALID, "this reftable addition is already finished");
	a->done = true;
	next = wg_reftable_stack_next_update_index(st);
	opts_for_writer(st, &wo);
	if ((err = tmp_open(&tt, st)) ||
	    (err = wg_reftable_writer_new(&w, &wo, tmp_write, tt)) ||
	    (err = wg_reftable_writer_set_limits(w, next, next)))
		goto done;
	if ((err = write_fn(w, payload)))
		goto done;
	if (!wg_reftable_writer_records(w))
		goto done;
	rt_writer_limits(w, &min, &max);
	if (min < next) {
		err = wg_error_set(WG_EINVALID, "reftable addition with update index %llu below "
				   "the stack's next index %llu", (unsigned long long)min,
				   (unsigned long long)next);
		goto done;
	}
	if ((err = wg_reftable_writer_finish(w)) ||
	    (err = tmp_commit(tt, st, min, max, &name)))
		goto done;
	if ((err = write_list(st, &a->lk, st->n, st->n, wg_buf_cstr(&name), true))) {
		struct wg_buf path = WG_BUF_INIT;
		if (!table_path(&path, st, wg_buf_cstr(&name)))
			wg_fs_unlink(wg_buf_cstr(&path));
		wg_buf_release(&path);
		goto done;
	}
	added = true;
done:
	wg_lockfile_rollback(&a->lk);
	wg_reftable_writer_free(w);
	tmp_discard(tt);
	wg_buf_release(&name);
	if (added) {
		if ((err = wg_reftable_stack_reload(st)))
			return err;
		if (!st->opts.disable_auto_compact) {
			/* Someone else compacting or writing is benign:
			 * they leave the stack in order too. */
			err = wg_reftable_stack_auto_compact(st);
			if (err == WG_ELOCKED) {
				wg_error_clear();
				err = 0;
			}
		}
	}
	return err;
}

int wg_reftable_stack_add(struct wg_reftable_stack *st, unsigned flags,
			  wg_reftable_add_fn write_fn, void *payload)
{
	struct wg_reftable_addition *a;
	int err;

	if ((err = wg_reftable_stack_new_addition(&a, st, flags)))
		return err;
	err = wg_reftable_addition_commit(a, write_fn, payload);
	wg_reftable_addition_free(a);
	return err;
}

/* Merge tables [first, last] into one; called with tables.list.lock held
 * and the snapshot current. */
static int compact_locked(struct wg_reftable_stack *st, struct wg_lockfile *lk, size_t first,
			  size_t last)
{
	struct wg_lockfile *tlocks = NULL;
	struct wg_reftable_merged *sub = NULL;
	struct wg_reftable_iter *it = NULL;
	struct wg_reftable_writer *w = NULL;
	struct wg_reftable_write_options wo;
	struct wg_reftable_ref ref = { 0 };
	struct wg_reftable_log log = { 0 };
	struct tmp_table *tt = NULL;
	struct wg_buf name = WG_BUF_INIT, path = WG_BUF_INIT;
	size_t count = last - first + 1, locked = 0;
	bool committed = false;
	int err, r;

	tlocks = wg_calloc(count, sizeof(*tlocks));
	if (!tlocks)
		return nomem();
	/* git's compaction marks the tables it merges with "<name>.lock". */
	for (size_t i = 0; i < count; i++, locked++) {
		tlocks[i] = (struct wg_lockfile)WG_LOCKFILE_INIT;
		if ((err = table_path(&path, st, st->names[first + i])))
			goto done;
		if ((err = wg_lockfile_acquire(&tlocks[i], wg_buf_cstr(&path)))) {
			if (err == WG_ELOCKED)
				err = wg_error_set(WG_ELOCKED, "reftable %s is being compacted by "
						   "another process", wg_buf_cstr(&path));
			locked++;
			goto done;
		}
	}
	{
		struct wg_reftable_table **tabs = wg_calloc(count, sizeof(*tabs));
		if (!tabs) {
			err = nomem();
			goto done;
		}
		for (size_t i = 0; i < count; i++)
			tabs[i] = wg_reftable_merged_table(st->merged, first + i);
		err = wg_reftable_merged_new(&sub, tabs, count);
		wg_free(tabs);
		if (err)
			goto done;
	}
	opts_for_writer(st, &wo);
	/* Messages were normalised when first written; keep them as they are. */
	wo.exact_log_message = true;
	if ((err = tmp_open(&tt, st)) ||
	    (err = wg_reftable_writer_new(&w, &wo, tmp_write, tt)) ||
	    (err = wg_reftable_writer_set_limits(
		     w, wg_reftable_table_min_update_index(wg_reftable_merged_table(sub, 0)),
		     wg_reftable_table_max_update_index(wg_reftable_merged_table(sub, count - 1)))))
		goto done;
	/* Tombstones only matter while an older table could hold the name:
	 * compacting from the base of the stack drops them. */
	if ((err = wg_reftable_merged_iter_refs_raw(&it, sub)))
		goto done;
	while (!(r = wg_reftable_iter_next_ref(&ref, it))) {
		if (first == 0 && ref.type == WG_REFTABLE_REF_DELETION)
			continue;
		if ((err = wg_reftable_writer_add_ref(w, &ref)))
			goto done;
	}
	if (r != WG_ITEROVER) {
		err = r;
		goto done;
	}
	wg_reftable_iter_free(it);
	if ((err = wg_reftable_merged_iter_logs_raw(&it, sub)))
		goto done;
	while (!(r = wg_reftable_iter_next_log(&log, it))) {
		if (first == 0 && log.type == WG_REFTABLE_LOG_DELETION)
			continue;
		if ((err = wg_reftable_writer_add_log(w, &log)))
			goto done;
	}
	if (r != WG_ITEROVER) {
		err = r;
		goto done;
	}
	if (wg_reftable_writer_records(w)) {
		uint64_t min, max;
		rt_writer_limits(w, &min, &max);
		if ((err = wg_reftable_writer_finish(w)) ||
		    (err = tmp_commit(tt, st, min, max, &name)))
			goto done;
	}
	/* Everything cancelled out: the new stack simply omits the tables. */
	if ((err = write_list(st, lk, first, last + 1, name.len ? wg_buf_cstr(&name) : NULL,
			      false))) {
		if (name.len && !table_path(&path, st, wg_buf_cstr(&name)))
			wg_fs_unlink(wg_buf_cstr(&path));
		goto done;
	}
	committed = true;
	/* Readers holding the old tables keep them open; new readers no
	 * longer see them. */
	for (size_t i = first; i <= last; i++)
		if (!table_path(&path, st, st->names[i]))
			wg_fs_unlink(wg_buf_cstr(&path));
done:
	wg_reftable_ref_release(&ref);
	wg_reftable_log_release(&log);
	wg_reftable_iter_free(it);
	wg_reftable_writer_free(w);
	wg_reftable_merged_free(sub);
	tmp_discard(tt);
	for (size_t i = 0; i < locked; i++)
		wg_lockfile_rollback(&tlocks[i]);
	wg_free(tlocks);
	wg_buf_release(&name);
	wg_buf_release(&path);
	if (committed && !err)
		err = wg_reftable_stack_reload(st);
	return err;
}

/* git's suggest_compaction_segment(): the segment [start, end) to merge so
 * that table sizes form a geometric sequence (factor 2) again. */
static void geometric_segment(const uint64_t *sizes, size_t n, size_t *start, size_t *end)
{
	uint64_t bytes = 0;
	size_t i;

	*start = *end = 0;
	if (n <= 1)
		return;
	for (i = n - 1; i > 0; i--) {
		if (sizes[i - 1] < sizes[i] * 2) {
			*end = i + 1;
			bytes = sizes[i];
			break;
		}
	}
	for (; i > 0; i--) {
		uint64_t curr = bytes;
		bytes += sizes[i - 1];
		if (sizes[i - 1] < curr * 2)
			*start = i - 1;
	}
}

static int compact(struct wg_reftable_stack *st, bool all)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	uint64_t *sizes = NULL;
	size_t start = 0, end = 0;
	bool uptodate;
	int err;

	if ((err = lock_list(st, &lk)))
		return err;
	if ((err = stack_uptodate(st, &uptodate)) || (!uptodate && (err = wg_reftable_stack_reload(st))))
		goto done;
	if (all) {
		/* As git: a single table is left alone (nothing to merge). */
		start = 0;
		end = st->n;
	} else {
		sizes = st->n ? wg_calloc(st->n, sizeof(*sizes)) : NULL;
		if (st->n && !sizes) {
			err = nomem();
			goto done;
		}
		for (size_t i = 0; i < st->n; i++)
			sizes[i] = rt_table_compaction_size(wg_reftable_merged_table(st->merged, i));
		geometric_segment(sizes, st->n, &start, &end);
	}
	if (end > start + 1)
		err = compact_locked(st, &lk, start, end - 1);
done:
	wg_free(sizes);
	wg_lockfile_rollback(&lk);
	return err;
}

int wg_reftable_stack_compact_all(struct wg_reftable_stack *st)
{
	return compact(st, true);
}

int wg_reftable_stack_auto_compact(struct wg_reftable_stack *st)
{
	return compact(st, false);
}
