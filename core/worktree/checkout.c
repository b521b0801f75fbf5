#include "worktree/checkout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index/cache_tree.h"
#include "object/path.h"
#include "odb/object_stream.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strlist.h"
#include "worktree/convert.h"
#include "worktree/index_tree.h"
#include "worktree/workdir.h"

#define CHUNK 65536
#define MODE_TYPE(m) ((m) & 0170000u)
#define IS_REG(m) (MODE_TYPE(m) == 0100000u)
#define IS_LINK(m) (MODE_TYPE(m) == 0120000u)
#define IS_GITLINK(m) (MODE_TYPE(m) == 0160000u)

struct wg_checkout {
	struct wg_repo *repo;
	struct wg_checkout_options opts;
	const struct wg_index *ix;      /* the caller's index */
	struct wg_index *oix, *nix;     /* the old and new trees */
	struct wg_index *result;        /* the index after the checkout */
	struct wg_workdir *wd_in;       /* check-in view: is a file still its entry? */
	struct wg_strlist rejects[WG_CHECKOUT_REJECT_KINDS];
	struct wg_strlist removals;     /* files that leave (index order) */
	bool *removal_gitlink;          /* ...and which of them are submodules */
	/* positions in result of the entries to write */
	size_t *updates;
	size_t nupdates, updates_alloc;
	struct wg_oid *missing;
	size_t nmissing;
	bool refused;
	bool refused_here;              /* the path being decided was refused */
	bool ran;
	struct wg_buf path;             /* scratch */
};

static int reject(struct wg_checkout *co, enum wg_checkout_reject kind, const char *path,
		  size_t len)
{
	co->refused = true;
	co->refused_here = true;
	return wg_strlist_add(&co->rejects[kind], path, len);
}

static bool same(const struct wg_index_entry *a, const struct wg_index_entry *b)
{
	if (!a || !b)
		return !a && !b;
	return a->mode == b->mode && wg_oid_equal(&a->oid, &b->oid);
}

static const char *full_path(struct wg_checkout *co, const char *path, size_t len)
{
	wg_buf_reset(&co->path);
	if (wg_buf_printf(&co->path, "%s/%.*s", wg_repo_workdir(co->repo), (int)len, path))
		return NULL;
	return wg_buf_cstr(&co->path);
}

/* --- the plan ------------------------------------------------------------------------ */

/* git's verify_uptodate: does the file of entry e (of the caller's index)
 * still hold it? A missing file does (a deletion loses nothing). */
static int verify_uptodate(struct wg_checkout *co, const struct wg_index_entry *e,
			   enum wg_checkout_reject kind)
{
	struct stat st;
	const char *full;
	bool modified;
	int err;
	if (co->opts.force || IS_GITLINK(e->mode))
		return 0;
	/* below a link or a file: not in the working tree, so not changed */
	if (wg_workdir_leading_unsafe(co->wd_in, e->path))
		return 0;
	if (!(full = full_path(co, e->path, e->path_len)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (wg_fs_lstat(full, &st)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return wg_error_set(WG_EIO, "cannot stat '%s': %s", e->path, strerror(errno));
	}
	if ((err = wg_workdir_entry_modified(co->wd_in, co->ix, e, &st, &modified)))
		return err;
	return modified ? reject(co, kind, e->path, e->path_len) : 0;
}

static int is_ignored(struct wg_checkout *co, const char *path, bool dir, bool *out)
{
	*out = false;
	if (!co->opts.ignore)
		return 0;
	return wg_ignore_is_excluded(out, co->opts.ignore, path,
				     dir ? WG_IGNORE_TYPE_DIR : WG_IGNORE_TYPE_OTHER);
}

/* Is anything under dir (a directory of the working tree, "a/b") neither
 * tracked by the caller's index nor ignored? */
static int has_untracked(struct wg_checkout *co, struct wg_buf *dir, bool *out)
{
	void *d;
	const char *name;
	size_t base = dir->len;
	int err = 0;
	const char *full = full_path(co, (const char *)dir->data, dir->len);
	if (!full)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (!(d = wg_fs_opendir(full)))
		return errno == ENOENT || errno == ENOTDIR
			       ? 0 : wg_error_set(WG_EIO, "cannot open the directory '%s': %s",
						  (const char *)dir->data, strerror(errno));
	while (!*out && !err && (name = wg_fs_readdir(d))) {
		struct stat st;
		bool ignored;
		if (!strcmp(name, ".git"))
			continue;
		wg_buf_setlen(dir, base);
		if ((err = wg_buf_addch(dir, '/')) || (err = wg_buf_adds(dir, name)))
			break;
		if (!(full = full_path(co, (const char *)dir->data, dir->len))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		if (wg_fs_lstat(full, &st))
			continue;
		if ((err = is_ignored(co, (const char *)dir->data, S_ISDIR(st.st_mode), &ignored)) ||
		    ignored)
			continue;
		if (S_ISDIR(st.st_mode)) {
			/* a submodule's directory belongs to its gitlink */
			if (wg_index_find(co->ix, (const char *)dir->data, dir->len, 0) < 0)
				err = has_untracked(co, dir, out);
		} else if (wg_index_find(co->ix, (const char *)dir->data, dir->len, 0) < 0) {
			long pos = wg_index_find(co->ix, (const char *)dir->data, dir->len, 1);
			/* a conflicted path is tracked too */
			if (pos < 0 && (size_t)(-pos - 1) < co->ix->nr) {
				const struct wg_index_entry *c = co->ix->entries[-pos - 1];
				if (c->path_len == dir->len && !memcmp(c->path, dir->data, dir->len))
					continue;
			}
			*out = true;
		}
	}
	wg_fs_closedir(d);
	wg_buf_setlen(dir, base);
	return err;
}

/* Refuse the checkout (git's "would lose untracked files in them") when
 * the directory at path holds a file neither tracked nor ignored. */
static int reject_untracked_inside(struct wg_checkout *co, const char *path, size_t len)
{
	struct wg_buf sub = WG_BUF_INIT;
	bool untracked = false;
	int err;
	if (!(err = wg_buf_add(&sub, path, len)))
		err = has_untracked(co, &sub, &untracked);
	wg_buf_release(&sub);
	if (!err && untracked)
		err = reject(co, WG_CHECKOUT_NOT_UPTODATE_DIR, path, len);
	return err;
}

/* git's verify_absent: may the checkout put something at path, where the
 * caller's index has nothing? Not over an untracked file that is not
 * ignored, nor over a directory with such files in it. */
static int verify_absent(struct wg_checkout *co, const char *path, size_t len,
			 enum wg_checkout_reject kind)
{
	struct stat st;
	const char *full;
	bool ignored;
	int err = 0;

	if (co->opts.force)
		return 0;
	/* a leading directory that is a file (or a link): that is in the way */
	for (size_t i = 0; i < len; i++) {
		if (path[i] != '/')
			continue;
		if (!(full = full_path(co, path, i)))
			return wg_error_set(WG_ENOMEM, "out of memory");
		if (wg_fs_lstat(full, &st))
			return 0;  /* missing: nothing below it either */
		if (S_ISDIR(st.st_mode))
			continue;
		if (S_ISLNK(st.st_mode))
			return 0;  /* git: nothing is "in" a link; it is replaced */
		/* tracked and leaving: that is no loss */
		if (wg_index_find(co->ix, path, i, 0) >= 0 &&
		    wg_index_find(co->result, path, i, 0) < 0)
			return 0;
		{
			char *lead = wg_strndup(path, i);
			if (!lead)
				return wg_error_set(WG_ENOMEM, "out of memory");
			err = is_ignored(co, lead, false, &ignored);
			if (!err && !ignored)
				err = reject(co, kind, lead, i);
			wg_free(lead);
		}
		return err;
	}
	if (!(full = full_path(co, path, len)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (wg_fs_lstat(full, &st)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return wg_error_set(WG_EIO, "cannot stat '%s': %s", path, strerror(errno));
	}
	{
		char *p = wg_strndup(path, len);
		if (!p)
			return wg_error_set(WG_ENOMEM, "out of memory");
		err = is_ignored(co, p, S_ISDIR(st.st_mode), &ignored);
		wg_free(p);
	}
	if (err || ignored)
		return err;
	if (S_ISDIR(st.st_mode))
		/* its tracked files are checked where the walk meets them;
		 * what else is in it must not be lost */
		return reject_untracked_inside(co, path, len);
	return reject(co, kind, path, len);
}

/* git's verify_absent_if_directory: a directory where an entry is (and
 * goes, or leaves) must hold nothing untracked that is not ignored. */
static int verify_absent_if_directory(struct wg_checkout *co, const char *path, size_t len)
{
	struct stat st;
	const char *full;
	bool ignored;
	int err;
	/* a leading directory that is not one: nothing is below it */
	if (co->opts.force || wg_workdir_leading_unsafe(co->wd_in, path))
		return 0;
	if (!(full = full_path(co, path, len)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (wg_fs_lstat(full, &st) || !S_ISDIR(st.st_mode))
		return 0;
	if ((err = is_ignored(co, path, true, &ignored)) || ignored)
		return err;
	return reject_untracked_inside(co, path, len);
}

static int add_result(struct wg_checkout *co, const struct wg_index_entry *e, bool update)
{
	struct wg_index_entry *copy = wg_index_entry_new(e->path, e->path_len, e->mode, &e->oid,
							 e->stage);
	int err;
	if (!copy)
		return wg_error_set(WG_ENOMEM, "out of memory");
	copy->st = e->st;
	copy->flags = e->flags;
	if ((err = wg_index_add(co->result, copy)))
		return err;
	if (update) {
		if (co->nupdates == co->updates_alloc) {
			size_t na = co->updates_alloc ? 2 * co->updates_alloc : 64;
			size_t *v = wg_realloc(co->updates, na * sizeof(*v));
			if (!v)
				return wg_error_set(WG_ENOMEM, "out of memory");
			co->updates = v;
			co->updates_alloc = na;
		}
		/* positions are final: entries are added in index order */
		co->updates[co->nupdates++] = co->result->nr - 1;
		copy->st = (struct wg_index_stat){ 0 };
	}
	return 0;
}

static int add_removal(struct wg_checkout *co, const struct wg_index_entry *e)
{
	int err;
	if (co->removals.n == co->removals.alloc) {
		size_t na = co->removals.alloc ? 2 * co->removals.alloc : 16;
		bool *v = wg_realloc(co->removal_gitlink, na * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		co->removal_gitlink = v;
	}
	/* wg_strlist_add grows by the same rule */
	if ((err = wg_strlist_add(&co->removals, e->path, e->path_len)))
		return err;
	co->removal_gitlink[co->removals.n - 1] = IS_GITLINK(e->mode);
	return 0;
}

/* git's merged_entry: the new tree's entry takes the path. */
static int merged_entry(struct wg_checkout *co, const struct wg_index_entry *nw,
			const struct wg_index_entry *cur)
{
	int err;
	if (!cur) {
		if ((err = verify_absent(co, nw->path, nw->path_len,
					 WG_CHECKOUT_UNTRACKED_OVERWRITTEN)))
			return err;
		return add_result(co, nw, true);
	}
	if (same(cur, nw) && !cur->stage) {
		/* the same content: keep the entry's stat data, but a forced
		 * checkout still repairs a modified file */
		if (co->opts.force && !IS_GITLINK(cur->mode)) {
			struct stat st;
			bool modified = true;
			const char *full = full_path(co, cur->path, cur->path_len);
			if (!full)
				return wg_error_set(WG_ENOMEM, "out of memory");
			if (!wg_fs_lstat(full, &st) &&
			    (err = wg_workdir_entry_modified(co->wd_in, co->ix, cur, &st, &modified)))
				return err;
			return add_result(co, modified ? nw : cur, modified);
		}
		return add_result(co, cur, false);
	}
	if (cur->stage)
		err = verify_absent_if_directory(co, nw->path, nw->path_len);
	else
		err = verify_uptodate(co, cur, WG_CHECKOUT_NOT_UPTODATE);
	if (err || co->refused_here)
		return err;
	return add_result(co, nw, true);
}

/* git's deleted_entry: the path leaves. */
static int deleted_entry(struct wg_checkout *co, const struct wg_index_entry *gone,
			 const struct wg_index_entry *cur)
{
	int err;
	if (!cur)
		return verify_absent(co, gone->path, gone->path_len, WG_CHECKOUT_UNTRACKED_REMOVED);
	if ((err = verify_absent_if_directory(co, gone->path, gone->path_len)) || co->refused_here)
		return err;
	if (!cur->stage && (err = verify_uptodate(co, cur, WG_CHECKOUT_NOT_UPTODATE)))
		return err;
	return add_removal(co, cur);
}

static int keep_entry(struct wg_checkout *co, const struct wg_index_entry *const *stages,
		      size_t n)
{
	int err = 0;
	for (size_t i = 0; i < n && !err; i++)
		err = add_result(co, stages[i], false);
	return err;
}

/* One path: cur are the caller's entries for it (all stages, n of them),
 * old and nw the trees' (or NULL). */
static int decide(struct wg_checkout *co, const struct wg_index_entry *const *cur, size_t n,
		  const struct wg_index_entry *old, const struct wg_index_entry *nw)
{
	const struct wg_index_entry *c = n ? cur[0] : NULL;
	bool conflicted = c && c->stage;

	if (co->opts.force) {
		/* one-way: the new tree, whatever the index says */
		if (nw)
			return merged_entry(co, nw, conflicted ? NULL : c);
		if (!c)
			return 0;
		return add_removal(co, c);
	}
	if (c) {
		if (conflicted) {
			if (same(old, nw))
				return nw ? merged_entry(co, nw, c) : deleted_entry(co, c, c);
			return reject(co, WG_CHECKOUT_WOULD_OVERWRITE, c->path, c->path_len);
		}
		if ((!old && !nw) || (!old && nw && same(c, nw)) || (old && nw && same(old, nw)) ||
		    (old && nw && !same(old, nw) && same(c, nw)))
			return keep_entry(co, cur, n);
		if (old && !nw && same(c, old))
			return deleted_entry(co, old, c);
		if (old && nw && same(c, old) && !same(c, nw))
			return merged_entry(co, nw, c);
		return reject(co, WG_CHECKOUT_WOULD_OVERWRITE, c->path, c->path_len);
	}
	if (nw) {
		if (old && !co->opts.initial)
			/* its deletion is staged */
			return same(old, nw) ? 0 : reject(co, WG_CHECKOUT_WOULD_OVERWRITE,
							   old->path, old->path_len);
		return merged_entry(co, nw, NULL);
	}
	return old ? deleted_entry(co, old, NULL) : 0;
}

static int path_cmp(const struct wg_index_entry *a, const struct wg_index_entry *b)
{
	size_t n = a->path_len < b->path_len ? a->path_len : b->path_len;
	int c = memcmp(a->path, b->path, n);
	if (c)
		return c;
	return a->path_len < b->path_len ? -1 : a->path_len > b->path_len;
}

static int walk(struct wg_checkout *co)
{
	const struct wg_index *ix = co->ix, *o = co->oix, *m = co->nix;
	size_t i = 0, j = 0, k = 0, skip_len = 0;
	const char *skip = NULL;
	int err = 0;

	while (!err && (i < ix->nr || (o && j < o->nr) || k < m->nr)) {
		const struct wg_index_entry *first = NULL, *old = NULL, *nw = NULL;
		const struct wg_index_entry *cand[3] = {
			i < ix->nr ? ix->entries[i] : NULL,
			o && j < o->nr ? o->entries[j] : NULL,
			k < m->nr ? m->entries[k] : NULL,
		};
		size_t n = 0;
		for (int c = 0; c < 3; c++)
			if (cand[c] && (!first || path_cmp(cand[c], first) < 0))
				first = cand[c];
		if (cand[1] && !path_cmp(cand[1], first)) {
			old = cand[1];
			j++;
		}
		if (cand[2] && !path_cmp(cand[2], first)) {
			nw = cand[2];
			k++;
		}
		while (i + n < ix->nr && !path_cmp(ix->entries[i + n], first))
			n++;
		/* as git's traversal, which does not go into a directory
		 * whose name was refused as a file */
		if (!(skip_len && first->path_len > skip_len && first->path[skip_len] == '/' &&
		      !memcmp(first->path, skip, skip_len))) {
			co->refused_here = false;
			err = decide(co, (const struct wg_index_entry *const *)ix->entries + i, n,
				     old, nw);
			if (co->refused_here) {
				skip = first->path;
				skip_len = first->path_len;
			}
		}
		i += n;
	}
	return err;
}

static int oid_cmp(const void *a, const void *b)
{
	return wg_oid_cmp(a, b);
}

/* The blobs to write that the object database lacks, each once. */
static int find_missing(struct wg_checkout *co)
{
	struct wg_odb *odb = wg_repo_odb(co->repo);
	size_t n = 0;
	if (!co->nupdates)
		return 0;
	if (!(co->missing = wg_calloc(co->nupdates, sizeof(*co->missing))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t i = 0; i < co->nupdates; i++) {
		const struct wg_index_entry *e = co->result->entries[co->updates[i]];
		int have;
		if (IS_GITLINK(e->mode))
			continue;
		if ((have = wg_odb_exists(odb, &e->oid)) < 0)
			return have;
		if (!have)
			co->missing[n++] = e->oid;
	}
	qsort(co->missing, n, sizeof(*co->missing), oid_cmp);
	co->nmissing = 0;
	for (size_t i = 0; i < n; i++)
		if (!co->nmissing || !wg_oid_equal(&co->missing[co->nmissing - 1], &co->missing[i]))
			co->missing[co->nmissing++] = co->missing[i];
	return 0;
}

/* The target's entries into co->nix: a tree's (paths checked as it is
 * read, cache tree primed) or a copy of an index's stage-0 entries, each
 * path checked as git's verify_path does: an index may come from anywhere. */
static int load_target(struct wg_checkout *co, const struct wg_oid *tree,
		       const struct wg_index *target)
{
	int err;

	if ((err = wg_index_new(&co->nix, co->ix->algo)))
		return err;
	if (tree)
		return wg_index_read_tree(co->nix, wg_repo_odb(co->repo), tree);
	for (size_t i = 0; i < target->nr; i++) {
		const struct wg_index_entry *e = target->entries[i];
		struct wg_index_entry *c;
		if (e->stage)
			continue;
		if ((err = wg_path_check(e->path, e->path_len, e->mode)))
			return err;
		if (!(c = wg_index_entry_new(e->path, e->path_len, e->mode, &e->oid, 0)))
			return wg_error_set(WG_ENOMEM, "out of memory");
		if ((err = wg_index_add(co->nix, c)))
			return err;
	}
	return 0;
}

static int plan(struct wg_checkout **out, struct wg_repo *repo, const struct wg_index *ix,
		const struct wg_oid *old_tree, const struct wg_oid *new_tree,
		const struct wg_index *target, const struct wg_checkout_options *opts)
{
	static const struct wg_checkout_options defaults = WG_CHECKOUT_OPTIONS_INIT;
	struct wg_workdir_options wo = { WG_ATTR_CHECKIN, NULL, NULL, NULL };
	struct wg_odb *odb = wg_repo_odb(repo);
	struct wg_checkout *co;
	int err;

	*out = NULL;
	if ((err = wg_repo_require_workdir(repo)))
		return err;
	if (!(co = wg_calloc(1, sizeof(*co))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	co->repo = repo;
	co->opts = opts ? *opts : defaults;
	if (!co->opts.command)
		co->opts.command = "checkout";
	co->ix = ix;
	wo.index = ix;
	wo.warn = co->opts.warn;
	wo.payload = co->opts.payload;
	if ((err = load_target(co, new_tree, target)) ||
	    (err = wg_index_new(&co->result, ix->algo)) ||
	    (err = wg_workdir_open(&co->wd_in, repo, &wo)))
		goto fail;
	co->result->version = ix->version;
	if (old_tree && !co->opts.force &&
	    ((err = wg_index_new(&co->oix, ix->algo)) ||
	     (err = wg_index_read_tree(co->oix, odb, old_tree))))
		goto fail;
	if ((err = walk(co)))
		goto fail;
	if ((err = wg_index_check_df(co->result)))
		goto fail;
	/* The cache tree: the new tree's, less the paths that differ. */
	co->result->cache_tree = co->nix->cache_tree;
	co->nix->cache_tree = NULL;
	for (size_t i = 0; i < co->result->nr; i++) {
		const struct wg_index_entry *e = co->result->entries[i];
		long pos = wg_index_find(co->nix, e->path, e->path_len, e->stage);
		if (pos < 0 || !same(e, co->nix->entries[pos]))
			wg_cache_tree_invalidate(co->result->cache_tree, e->path, e->path_len);
	}
	for (size_t i = 0; i < co->nix->nr; i++) {
		const struct wg_index_entry *e = co->nix->entries[i];
		if (wg_index_find(co->result, e->path, e->path_len, 0) < 0)
			wg_cache_tree_invalidate(co->result->cache_tree, e->path, e->path_len);
	}
	if (co->refused) {
		struct wg_buf msg = WG_BUF_INIT;
		for (int k = 0; k < WG_CHECKOUT_REJECT_KINDS; k++) {
			if (!co->rejects[k].n)
				continue;
			if (msg.len)
				wg_buf_addch(&msg, '\n');
			wg_checkout_reject_message(co, (enum wg_checkout_reject)k, &msg);
		}
		err = wg_error_set(WG_EEXISTS, "%s", wg_buf_cstr(&msg));
		wg_buf_release(&msg);
		*out = co;
		return err;
	}
	if ((err = find_missing(co)))
		goto fail;
	*out = co;
	return 0;
fail:
	wg_checkout_free(co);
	return err;
}

int wg_checkout_plan(struct wg_checkout **out, struct wg_repo *repo, const struct wg_index *ix,
		     const struct wg_oid *old_tree, const struct wg_oid *new_tree,
		     const struct wg_checkout_options *opts)
{
	return plan(out, repo, ix, old_tree, new_tree, NULL, opts);
}

int wg_checkout_plan_index(struct wg_checkout **out, struct wg_repo *repo,
			   const struct wg_index *ix, const struct wg_index *target,
			   const struct wg_checkout_options *opts)
{
	return plan(out, repo, ix, NULL, NULL, target, opts);
}

size_t wg_checkout_rejected(const struct wg_checkout *co, enum wg_checkout_reject kind,
			    const char *const **paths)
{
	*paths = (const char *const *)co->rejects[kind].v;
	return co->rejects[kind].n;
}

int wg_checkout_reject_message(const struct wg_checkout *co, enum wg_checkout_reject kind,
			       struct wg_buf *out)
{
	const struct wg_strlist *l = &co->rejects[kind];
	const char *cmd = co->opts.command;
	bool checkout = !strcmp(cmd, "checkout"), merge = !strcmp(cmd, "merge");
	const char *before = checkout ? "switch branches" : merge ? "merge" : cmd;
	int err;
	if (!l->n)
		return 0;
	switch (kind) {
	case WG_CHECKOUT_WOULD_OVERWRITE:
	case WG_CHECKOUT_NOT_UPTODATE:
		err = wg_buf_printf(out, "Your local changes to the following files would be "
				    "overwritten by %s:\n", cmd);
		break;
	case WG_CHECKOUT_NOT_UPTODATE_DIR:
		err = wg_buf_adds(out, "Updating the following directories would lose untracked "
				  "files in them:\n");
		break;
	case WG_CHECKOUT_UNTRACKED_OVERWRITTEN:
		err = wg_buf_printf(out, "The following untracked working tree files would be "
				    "overwritten by %s:\n", cmd);
		break;
	default:
		err = wg_buf_printf(out, "The following untracked working tree files would be "
				    "removed by %s:\n", cmd);
		break;
	}
	for (size_t i = 0; i < l->n && !err; i++)
		err = wg_buf_printf(out, "\t%s\n", l->v[i]);
	if (err)
		return err;
	switch (kind) {
	case WG_CHECKOUT_WOULD_OVERWRITE:
	case WG_CHECKOUT_NOT_UPTODATE:
		return wg_buf_printf(out, "Please commit your changes or stash them before you %s.",
				     before);
	case WG_CHECKOUT_NOT_UPTODATE_DIR:
		return 0;  /* git's message ends with the list */
	default:
		return wg_buf_printf(out, "Please move or remove them before you %s.", before);
	}
}

size_t wg_checkout_missing(const struct wg_checkout *co, const struct wg_oid **oids)
{
	*oids = co->missing;
	return co->nmissing;
}

size_t wg_checkout_updates(const struct wg_checkout *co) { return co->nupdates; }
size_t wg_checkout_removals(const struct wg_checkout *co) { return co->removals.n; }

/* --- the run ------------------------------------------------------------------------- */

struct runner {
	struct wg_checkout *co;
	struct wg_workdir *wd;      /* checkout view: the new index's attributes */
	struct wg_odb *odb;
	struct wg_buf full, data, tmp;
	/* The last directory (relative, no trailing '/') this run made or
	 * found to be a real directory: the entries come in index order, so
	 * most share it and need no lstat() of their leading path (git's
	 * lstat cache does this too). Forgotten whenever the run removes
	 * anything. */
	struct wg_buf dir_ok;
	unsigned char *chunk;
	size_t done, total;
};

static void progress(struct runner *r)
{
	r->done++;
	if (r->co->opts.progress)
		r->co->opts.progress(r->co->opts.payload, r->done, r->total);
}

static int io_error(const char *what, const char *path)
{
	return wg_error_set(WG_EIO, "cannot %s '%s': %s", what, path, strerror(errno));
}

static const char *run_path(struct runner *r, const char *path, size_t len)
{
	wg_buf_reset(&r->full);
	if (wg_buf_printf(&r->full, "%s/%.*s", wg_repo_workdir(r->co->repo), (int)len, path))
		return NULL;
	return wg_buf_cstr(&r->full);
}

/* Remove the files that leave, then the directories they leave empty. */
static int remove_files(struct runner *r)
{
	struct wg_strlist *l = &r->co->removals;
	struct wg_strlist dirs = { 0 };
	int err = 0;

	for (size_t i = 0; i < l->n && !err; i++) {
		const char *full = run_path(r, l->v[i], strlen(l->v[i]));
		struct stat st;
		if (!full)
			return wg_error_set(WG_ENOMEM, "out of memory");
		/* never through a link (or a file) on the way: what is behind
		 * it is not ours to remove */
		if (wg_workdir_leading_unsafe(r->wd, l->v[i])) {
			progress(r);
			continue;
		}
		full = run_path(r, l->v[i], strlen(l->v[i]));
		if (wg_fs_lstat(full, &st)) {
			if (errno != ENOENT && errno != ENOTDIR)
				err = io_error("stat", l->v[i]);
		} else if (S_ISDIR(st.st_mode)) {
			/* a submodule: its directory goes only if empty; a file
			 * that has become a directory stays, as git warns */
			if (!r->co->removal_gitlink[i] && r->co->opts.warn) {
				struct wg_buf w = WG_BUF_INIT;
				if (!wg_buf_printf(&w, "warning: unable to unlink '%s': Is a directory",
						   l->v[i]))
					r->co->opts.warn(r->co->opts.payload, wg_buf_cstr(&w));
				wg_buf_release(&w);
			} else {
				wg_fs_rmdir(full);
			}
		} else if (wg_fs_unlink(full) && errno != ENOENT) {
			err = io_error("remove", l->v[i]);
		}
		/* its directories, deepest last */
		for (size_t n = 0; !err && l->v[i][n]; n++)
			if (l->v[i][n] == '/')
				err = wg_strlist_add(&dirs, l->v[i], n);
		progress(r);
	}
	/* deepest first (each file's list ends with its deepest, and a
	 * later file's are not above an earlier one's: index order); a
	 * directory that is not empty stays */
	for (size_t i = dirs.n; !err && i-- > 0;) {
		const char *full = run_path(r, dirs.v[i], strlen(dirs.v[i]));
		if (!full)
			err = wg_error_set(WG_ENOMEM, "out of memory");
		else
			wg_fs_rmdir(full);
	}
	wg_strlist_release(&dirs);
	return err;
}

/* Make the directories that lead to path, never going through a link:
 * a link or a file on the way (the plan found it may go) is removed
 * first. */
static int make_leading_dirs(struct runner *r, const char *path, size_t len)
{
	const char *known = wg_buf_cstr(&r->dir_ok);
	size_t dir_len = len, start = 0;
	int err;

	while (dir_len > 0 && path[dir_len - 1] != '/')
		dir_len--;
	if (dir_len)
		dir_len--; /* the directory, without its '/' */
	/* start below the longest leading directory already known */
	for (size_t i = 0; i <= dir_len && i <= r->dir_ok.len; i++) {
		if (i > 0 && path[i - 1] != known[i - 1])
			break;
		if ((i == dir_len || path[i] == '/') && (i == r->dir_ok.len || known[i] == '/'))
			start = i;
	}
	for (size_t i = start ? start + 1 : 0; i < len; i++) {
		const char *full;
		struct stat st;
		if (path[i] != '/')
			continue;
		if (!(full = run_path(r, path, i)))
			return wg_error_set(WG_ENOMEM, "out of memory");
		if (!wg_fs_lstat(full, &st)) {
			if (S_ISDIR(st.st_mode))
				continue;
			if (wg_fs_unlink(full))
				return io_error("remove", full);
		} else if (errno != ENOENT) {
			return io_error("stat", full);
		}
		if (wg_fs_mkdir(full, 0777) && errno != EEXIST)
			return io_error("create the directory", full);
	}
	wg_buf_reset(&r->dir_ok);
	if ((err = wg_buf_add(&r->dir_ok, path, dir_len)))
		return err;
	return 0;
}

/* Clear the way for the entry: a directory where a file or link goes is
 * removed with what is in it (the plan found nothing there to lose); a
 * file where a submodule's directory goes is removed. A file or link
 * where a file or link goes stays: the new one is renamed over it. */
static int clear_path(struct runner *r, const char *full, unsigned mode)
{
	struct stat st;
	if (wg_fs_lstat(full, &st))
		return errno == ENOENT ? 0 : io_error("stat", full);
	if (S_ISDIR(st.st_mode) || IS_GITLINK(mode))
		wg_buf_reset(&r->dir_ok);
	if (S_ISDIR(st.st_mode))
		return IS_GITLINK(mode) ? 0 : wg_fs_remove_tree(full);
	if (IS_GITLINK(mode) && wg_fs_unlink(full))
		return io_error("remove", full);
	return 0;
}

/* Where a file is written before it is renamed into place: beside it, so
 * that the rename is atomic and a failure or a kill never leaves a file
 * half-written (one left by a kill is taken over by the next run). */
static int temp_path(struct runner *r, const char *full)
{
	wg_buf_reset(&r->tmp);
	return wg_buf_printf(&r->tmp, "%s.webgit-tmp-w", full);
}

static int install(struct runner *r, const char *full)
{
	if (!wg_fs_rename(wg_buf_cstr(&r->tmp), full))
		return 0;
	{
		int err = io_error("rename into", full);
		struct wg_error_saved saved;
		wg_error_save(&saved);
		wg_fs_unlink(wg_buf_cstr(&r->tmp));
		wg_error_restore(&saved);
		return err;
	}
}

static int write_all(int fd, const void *data, size_t len, const char *full)
{
	if (wg_fs_write_all(fd, data, len))
		return io_error("write", full);
	return 0;
}

/* Stream blob oid into fd, converting line endings. */
static int write_blob(struct runner *r, int fd, const char *full, const struct wg_oid *oid,
		      enum wg_eol_conv conv)
{
	struct wg_object_stream *s = NULL;
	struct wg_eol_stream eol;
	int err;

	if ((err = wg_odb_open_stream(&s, r->odb, oid)))
		return err;
	if (s->type != WG_OBJ_BLOB) {
		wg_object_stream_free(s);
		return wg_error_set(WG_ECORRUPT, "object %s is not a blob", wg_oid_hex(oid));
	}
	wg_eol_stream_init(&eol, conv);
	for (;;) {
		size_t got;
		if ((err = wg_object_stream_read(s, r->chunk, CHUNK, &got)) || !got)
			break;
		if (conv == WG_EOL_CONV_NONE) {
			err = write_all(fd, r->chunk, got, full);
		} else {
			wg_buf_reset(&r->data);
			if (!(err = wg_eol_stream_feed(&eol, &r->data, r->chunk, got)))
				err = write_all(fd, r->data.data, r->data.len, full);
		}
		if (err)
			break;
	}
	if (!err && conv != WG_EOL_CONV_NONE) {
		wg_buf_reset(&r->data);
		if (!(err = wg_eol_stream_finish(&eol, &r->data)))
			err = write_all(fd, r->data.data, r->data.len, full);
	}
	wg_object_stream_free(s);
	return err;
}

/* The conversion a blob needs; text=auto reads it once for its stats. */
static int checkout_conv(struct runner *r, const struct wg_index_entry *e, enum wg_eol_conv *out)
{
	struct wg_conv_attrs ca;
	struct wg_object_stream *s;
	struct wg_text_stat st;
	int err;

	if ((err = wg_workdir_conv_attrs(r->wd, e->path, &ca)))
		return err;
	*out = wg_convert_checkout(&ca, &r->wd->eol, NULL);
	if (*out != WG_EOL_CONV_NEED_STATS)
		return 0;
	if ((err = wg_odb_open_stream(&s, r->odb, &e->oid)))
		return err;
	wg_text_stat_init(&st);
	for (;;) {
		size_t got;
		if ((err = wg_object_stream_read(s, r->chunk, CHUNK, &got)) || !got)
			break;
		wg_text_stat_update(&st, r->chunk, got);
	}
	wg_object_stream_free(s);
	if (err)
		return err;
	wg_text_stat_finish(&st);
	*out = wg_convert_checkout(&ca, &r->wd->eol, &st);
	return 0;
}

static int write_file(struct runner *r, const struct wg_index_entry *e, const char *full,
		      bool as_link_text)
{
	enum wg_eol_conv conv = WG_EOL_CONV_NONE;
	int fd, err, mode = (e->mode & 0100) ? 0777 : 0666;
	const char *tmp;
	/* a link written as a file holds its target as it is */
	if (!as_link_text && (err = checkout_conv(r, e, &conv)))
		return err;
	if ((err = temp_path(r, full)))
		return err;
	tmp = wg_buf_cstr(&r->tmp);
	if ((fd = wg_fs_open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode)) < 0 && errno == EEXIST &&
	    !wg_fs_unlink(tmp))
		fd = wg_fs_open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd < 0)
		return io_error("create", tmp);
	err = write_blob(r, fd, tmp, &e->oid, conv);
	if (wg_fs_close(fd) && !err)
		err = io_error("close", tmp);
	if (err) {
		struct wg_error_saved saved;
		wg_error_save(&saved);
		wg_fs_unlink(tmp);  /* never a half-written blob */
		wg_error_restore(&saved);
		return err;
	}
	return install(r, full);
}

static int write_link(struct runner *r, const struct wg_index_entry *e, const char *full)
{
	enum wg_object_type type;
	const char *tmp;
	int err, rc;
	if ((err = wg_odb_read(r->odb, &e->oid, &type, &r->data)))
		return err;
	if (type != WG_OBJ_BLOB)
		return wg_error_set(WG_ECORRUPT, "object %s is not a blob", wg_oid_hex(&e->oid));
	if (memchr(r->data.data, 0, r->data.len))
		return wg_error_set(WG_EINVALID, "the symbolic link '%s' has a NUL in its target",
				    e->path);
	if ((err = temp_path(r, full)))
		return err;
	tmp = wg_buf_cstr(&r->tmp);
	if ((rc = wg_fs_symlink(wg_buf_cstr(&r->data), tmp)) && errno == EEXIST && !wg_fs_unlink(tmp))
		rc = wg_fs_symlink(wg_buf_cstr(&r->data), tmp);
	if (!rc)
		return install(r, full);
	if (errno != EPERM && errno != ENOSYS && errno != EOPNOTSUPP)
		return io_error("create the symbolic link", tmp);
	/* no links here: a file holding the target, as core.symlinks=false */
	return write_file(r, e, full, true);
}

static int write_entry(struct runner *r, struct wg_index_entry *e)
{
	struct stat st;
	const char *full;
	char *copy;
	int err;

	if ((err = make_leading_dirs(r, e->path, e->path_len)))
		return err;
	if (!(full = run_path(r, e->path, e->path_len)) || !(copy = wg_strdup(full)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (!(err = clear_path(r, copy, e->mode))) {
		if (IS_GITLINK(e->mode)) {
			if (wg_fs_mkdir(copy, 0777) && errno != EEXIST)
				err = io_error("create the directory", copy);
		} else if (IS_LINK(e->mode)) {
			err = r->wd->symlinks ? write_link(r, e, copy) : write_file(r, e, copy, true);
		} else {
			err = write_file(r, e, copy, false);
		}
	}
	if (!err) {
		if (wg_fs_lstat(copy, &st))
			err = io_error("stat", copy);
		else if (!IS_GITLINK(e->mode))
			wg_index_stat_from(&e->st, &st);
	}
	wg_free(copy);
	if (err)
		wg_error_prefix("cannot check out '%s'", e->path);
	return err;
}

int wg_checkout_run(struct wg_checkout *co, struct wg_index **result)
{
	struct wg_workdir_options wo = { WG_ATTR_CHECKOUT, NULL, NULL, NULL };
	struct runner r = { co, NULL, wg_repo_odb(co->repo), WG_BUF_INIT, WG_BUF_INIT, WG_BUF_INIT,
			    WG_BUF_INIT,
			    NULL, 0, co->nupdates + co->removals.n };
	int err;

	*result = NULL;
	if (co->refused || co->ran)
		return wg_error_set(WG_EINVALID, "this checkout was refused or has run");
	co->ran = true;
	wo.index = co->result;
	wo.warn = co->opts.warn;
	wo.payload = co->opts.payload;
	if ((err = wg_workdir_open(&r.wd, co->repo, &wo)))
		return err;
	if (!(r.chunk = wg_malloc(CHUNK))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto done;
	}
	if ((err = remove_files(&r)))
		goto done;
	for (size_t i = 0; i < co->nupdates && !err; i++) {
		err = write_entry(&r, co->result->entries[co->updates[i]]);
		progress(&r);
	}
	if (!err) {
		*result = co->result;
		co->result = NULL;
	}
done:
	wg_free(r.chunk);
	wg_buf_release(&r.full);
	wg_buf_release(&r.data);
	wg_buf_release(&r.tmp);
	wg_buf_release(&r.dir_ok);
	wg_workdir_free(r.wd);
	return err;
}

void wg_checkout_free(struct wg_checkout *co)
{
	if (!co)
		return;
	wg_index_free(co->oix);
	wg_index_free(co->nix);
	wg_index_free(co->result);
	wg_workdir_free(co->wd_in);
	for (int k = 0; k < WG_CHECKOUT_REJECT_KINDS; k++)
		wg_strlist_release(&co->rejects[k]);
	wg_strlist_release(&co->removals);
	wg_free(co->removal_gitlink);
	wg_free(co->updates);
	wg_free(co->missing);
	wg_buf_release(&co->path);
	wg_free(co);
}
