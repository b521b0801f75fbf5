#include "worktree/status.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "diff/rename.h"
#include "diff/tree_diff.h"
#include "index/cache_tree.h"
#include "repo/config.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/sort.h"
#include "worktree/index_tree.h"
#include "worktree/workdir.h"

#define MODE_TYPE(m) ((m) & 0170000u)

struct walker {
	struct wg_repo *repo;
	struct wg_index *ix;
	struct wg_workdir *wd;
	const struct wg_status_options *opts;
	struct wg_status *st;
	struct wg_buf path;
};

static struct wg_status_entry *add(struct wg_status *st, const char *path, size_t len, int *err)
{
	struct wg_status_entry *e;
	if (st->n == st->alloc) {
		size_t na = st->alloc ? 2 * st->alloc : 32;
		struct wg_status_entry *v = wg_realloc(st->v, na * sizeof(*v));
		if (!v) {
			*err = wg_error_set(WG_ENOMEM, "out of memory");
			return NULL;
		}
		st->v = v;
		st->alloc = na;
	}
	e = &st->v[st->n];
	memset(e, 0, sizeof(*e));
	if (!(e->path = wg_strndup(path, len))) {
		*err = wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	st->n++;
	return e;
}

static int path_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c = memcmp(a, b, n);
	return c ? c : (alen > blen) - (alen < blen);
}

/* --- tracked paths -------------------------------------------------------- */

static int worktree_state(struct walker *w, struct wg_index_entry *e, struct wg_status_entry *out)
{
	struct stat s;
	const char *full = wg_workdir_path(w->wd, e->path);
	bool modified;
	int err;
	if (!full)
		return wg_error_set(WG_ENOMEM, "out of memory");
	/* missing, below a link or a file, or a directory where a file was:
	 * deleted (git's check_removed) */
	if (wg_workdir_leading_unsafe(w->wd, e->path) ||
	    !(full = wg_workdir_path(w->wd, e->path)) || wg_fs_lstat(full, &s) ||
	    (S_ISDIR(s.st_mode) && MODE_TYPE(e->mode) != 0160000)) {
		out->y = 'D';
		return 0;
	}
	out->mode_worktree = wg_workdir_mode_from_stat(w->wd, &s, e->mode);
	if (MODE_TYPE(out->mode_worktree) != MODE_TYPE(e->mode)) {
		out->y = 'T';
		return 0;
	}
	if ((err = wg_workdir_entry_modified(w->wd, w->ix, e, &s, &modified)))
		return err;
	if (modified) {
		out->y = 'M';
		return 0;
	}
	out->y = '.';
	/* unchanged by content: bring its stat data up to date */
	{
		struct wg_index_stat now;
		wg_index_stat_from(&now, &s);
		if (memcmp(&now, &e->st, sizeof(now)) || wg_index_entry_is_racy(w->ix, e)) {
			e->st = now;
			w->st->refreshed = true;
		}
	}
	return 0;
}

static int intent_to_add_state(struct walker *w, const struct wg_index_entry *e,
			       struct wg_status_entry *out, const struct wg_index_entry *h)
{
	struct stat s;
	const char *full;

	out->x = h ? 'D' : '.';
	if (!wg_workdir_leading_unsafe(w->wd, e->path) &&
	    (full = wg_workdir_path(w->wd, e->path)) && !wg_fs_lstat(full, &s) &&
	    !S_ISDIR(s.st_mode)) {
		out->y = 'A';
		out->mode_worktree = wg_workdir_mode_from_stat(w->wd, &s, e->mode);
		return 0;
	}
	/* the file is gone: a deletion of what the entry holds */
	out->y = 'D';
	out->mode_index = e->mode;
	out->oid_index = e->oid;
	if (!h) {
		out->mode_head = e->mode;
		out->oid_head = e->oid;
	}
	return 0;
}

static int tracked(struct walker *w, const struct wg_index *head)
{
	struct wg_index *ix = w->ix;
	size_t i = 0, j = 0;
	int err = 0;

	while (!err && (i < ix->nr || (head && j < head->nr))) {
		struct wg_index_entry *e = i < ix->nr ? ix->entries[i] : NULL;
		const struct wg_index_entry *h = head && j < head->nr ? head->entries[j] : NULL;
		int c = !e ? 1 : !h ? -1 : path_cmp(e->path, e->path_len, h->path, h->path_len);
		struct wg_status_entry *out;

		if (c > 0) {  /* in HEAD only: deleted from the index */
			if (!(out = add(w->st, h->path, h->path_len, &err)))
				break;
			out->x = 'D';
			out->y = '.';
			out->mode_head = h->mode;
			out->oid_head = h->oid;
			wg_oid_null(&out->oid_index, ix->algo);
			j++;
			continue;
		}
		if (!(out = add(w->st, e->path, e->path_len, &err)))
			break;
		wg_oid_null(&out->oid_head, ix->algo);
		wg_oid_null(&out->oid_index, ix->algo);
		if (!c) {
			out->mode_head = h->mode;
			out->oid_head = h->oid;
			j++;
		}
		if (e->stage) {
			static const char *const how[8] = { NULL, "DD", "AU", "UD", "UA", "DU", "AA", "UU" };
			unsigned mask = 0;
			struct stat s;
			const char *full = wg_workdir_path(w->wd, e->path);
			while (i < ix->nr && !path_cmp(ix->entries[i]->path, ix->entries[i]->path_len,
						       e->path, e->path_len)) {
				const struct wg_index_entry *se = ix->entries[i++];
				if (se->stage >= 1 && se->stage <= 3) {
					mask |= 1u << (se->stage - 1);
					out->stage_mode[se->stage - 1] = se->mode;
					out->stage_oid[se->stage - 1] = se->oid;
				}
			}
			for (int k = 0; k < 3; k++)
				if (!out->stage_mode[k])
					wg_oid_null(&out->stage_oid[k], ix->algo);
			out->unmerged = true;
			out->x = how[mask][0];
			out->y = how[mask][1];
			if (full && !wg_fs_lstat(full, &s))
				out->mode_worktree = wg_workdir_mode_from_stat(w->wd, &s, 0100644);
			continue;
		}
		i++;
		if (e->flags & WG_INDEX_INTENT_TO_ADD) {
			/* intent to add (add -N): invisible as a staged change,
			 * a new file in the working tree (git's
			 * ita_invisible_in_index) */
			if ((err = intent_to_add_state(w, e, out, c ? NULL : h)))
				break;
			continue;
		}
		out->mode_index = e->mode;
		out->oid_index = e->oid;
		if (c)
			out->x = 'A';
		else if (MODE_TYPE(e->mode) != MODE_TYPE(h->mode))
			out->x = 'T';
		else if (e->mode != h->mode || !wg_oid_equal(&e->oid, &h->oid))
			out->x = 'M';
		else
			out->x = '.';
		if ((err = worktree_state(w, e, out)))
			break;
		if (out->x == '.' && out->y == '.') {
			wg_free(out->path);
			w->st->n--;
		}
	}
	return err;
}

/* --- untracked and ignored paths ---------------------------------------------------- */

/* Does the index track anything at or below dir ("a/b", no '/')? */
static bool tracks_below(const struct wg_index *ix, const char *dir, size_t len)
{
	size_t lo = 0, hi = ix->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct wg_index_entry *m = ix->entries[mid];
		size_t n = m->path_len < len ? m->path_len : len;
		int c = memcmp(m->path, dir, n);
		bool below = c ? c < 0 : m->path_len <= len || (unsigned char)m->path[len] < '/';
		if (below)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->nr && ix->entries[lo]->path_len > len &&
	       !memcmp(ix->entries[lo]->path, dir, len) && ix->entries[lo]->path[len] == '/';
}

static bool tracked_path(const struct wg_index *ix, const char *path, size_t len)
{
	long pos = wg_index_find(ix, path, len, 0);
	if (pos >= 0)
		return true;
	pos = -pos - 1;
	return (size_t)pos < ix->nr && ix->entries[pos]->path_len == len &&
	       !memcmp(ix->entries[pos]->path, path, len);
}

static int excluded(struct walker *w, bool dir, bool *out)
{
	*out = false;
	if (!w->opts->ignore)
		return 0;
	return wg_ignore_is_excluded(out, w->opts->ignore, wg_buf_cstr(&w->path),
				     dir ? WG_IGNORE_TYPE_DIR : WG_IGNORE_TYPE_OTHER);
}

static int add_other(struct walker *w, char kind, bool dir)
{
	int err = 0;
	struct wg_status_entry *e;
	if (dir && (err = wg_buf_addch(&w->path, '/')))
		return err;
	if ((e = add(w->st, (const char *)w->path.data, w->path.len, &err))) {
		e->x = e->y = kind;
		wg_oid_null(&e->oid_head, w->ix->algo);
		wg_oid_null(&e->oid_index, w->ix->algo);
	}
	if (dir)
		wg_buf_setlen(&w->path, w->path.len - 1);
	return err;
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the directory at w->path, sorted. */
static int list_dir(struct walker *w, char ***out, size_t *n)
{
	const char *full = w->path.len ? wg_workdir_path(w->wd, wg_buf_cstr(&w->path)) : w->wd->root;
	size_t alloc = 0;
	const char *name;
	void *d;
	*out = NULL;
	*n = 0;
	if (!full)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (!(d = wg_fs_opendir(full)))
		return 0;  /* gone or unreadable: nothing to list, as git */
	while ((name = wg_fs_readdir(d))) {
		if (*n + 1 >= alloc) {
			size_t na = alloc ? 2 * alloc : 16;
			char **v = wg_realloc(*out, na * sizeof(*v));
			if (!v)
				goto nomem;
			*out = v;
			alloc = na;
		}
		if (!((*out)[(*n)++] = wg_strdup(name)))
			goto nomem;
	}
	wg_fs_closedir(d);
	if (*n)
		qsort(*out, *n, sizeof(**out), strcmp_ptr);
	return 0;
nomem:
	wg_fs_closedir(d);
	return wg_error_set(WG_ENOMEM, "out of memory");
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wg_free(v[i]);
	wg_free(v);
}

/* Every file below the (ignored) directory at w->path, as ignored. */
static int list_all(struct walker *w)
{
	char **names;
	size_t n, base = w->path.len;
	int err;
	if ((err = list_dir(w, &names, &n)))
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		struct stat s;
		const char *full;
		wg_buf_setlen(&w->path, base);
		if ((err = wg_buf_addch(&w->path, '/')) || (err = wg_buf_adds(&w->path, names[i])))
			break;
		if (!(full = wg_workdir_path(w->wd, wg_buf_cstr(&w->path)))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		if (wg_fs_lstat(full, &s))
			continue;
		err = S_ISDIR(s.st_mode) ? list_all(w) : add_other(w, '!', false);
	}
	wg_buf_setlen(&w->path, base);
	free_list(names, n);
	return err;
}

static int walk_dir(struct walker *w, bool list_untracked, bool list_ignored, bool *found,
		    bool *found_ignored)
{
	char **names;
	size_t n, base = w->path.len;
	int err;

	if ((err = list_dir(w, &names, &n)))
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		struct stat s;
		const char *full;
		bool ign, is_dir;
		if (!strcmp(names[i], ".git"))
			continue;
		wg_buf_setlen(&w->path, base);
		if ((base && (err = wg_buf_addch(&w->path, '/'))) ||
		    (err = wg_buf_adds(&w->path, names[i])))
			break;
		/* a tracked name is the other walk's business: no lstat */
		if (tracked_path(w->ix, (const char *)w->path.data, w->path.len))
			continue;
		if (!(full = wg_workdir_path(w->wd, wg_buf_cstr(&w->path)))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		if (wg_fs_lstat(full, &s))
			continue;
		is_dir = S_ISDIR(s.st_mode);
		if (is_dir && tracks_below(w->ix, (const char *)w->path.data, w->path.len)) {
			err = walk_dir(w, list_untracked, list_ignored, found, found_ignored);
			continue;
		}
		if ((err = excluded(w, is_dir, &ign)))
			break;
		if (ign) {
			if (found_ignored)
				*found_ignored = true;
			if (!list_ignored)
				continue;
			/* with -uall, git lists each file of an ignored directory */
			if (is_dir && w->opts->untracked == WG_UNTRACKED_ALL && list_untracked)
				err = list_all(w);
			else
				err = add_other(w, '!', is_dir);
			continue;
		}
		if (!is_dir) {
			if (found)
				*found = true;
			if (list_untracked)
				err = add_other(w, '?', false);
			continue;
		}
		/* an untracked directory: a nested repository is one unit */
		{
			struct wg_buf dotgit = WG_BUF_INIT;
			bool nested = !wg_buf_printf(&dotgit, "%s/.git", full) &&
				      wg_fs_exists(wg_buf_cstr(&dotgit));
			wg_buf_release(&dotgit);
			if (nested) {
				if (found)
					*found = true;
				if (list_untracked)
					err = add_other(w, '?', true);
				continue;
			}
		}
		if (list_untracked && w->opts->untracked == WG_UNTRACKED_ALL) {
			err = walk_dir(w, true, list_ignored, found, found_ignored);
		} else {
			/* one line for the directory: untracked when anything in
			 * it is, else ignored when anything in it is */
			bool any = false, any_ignored = false;
			err = walk_dir(w, false, false, &any, &any_ignored);
			if (!err && any) {
				if (found)
					*found = true;
				if (list_untracked)
					err = add_other(w, '?', true);
			} else if (!err && any_ignored) {
				if (found_ignored)
					*found_ignored = true;
				if (list_ignored)
					err = add_other(w, '!', true);
			}
		}
	}
	wg_buf_setlen(&w->path, base);
	free_list(names, n);
	return err;
}

/* --- renames --------------------------------------------------------------------------- */

/* Fold each staged deletion that git pairs with a staged addition into
 * the addition: x 'R', the source's path, HEAD mode and id, the score. */
static int find_renames(struct walker *w, size_t ntracked)
{
	struct wg_status *st = w->st;
	struct wg_rename_options ro = WG_RENAME_OPTIONS_INIT;
	struct wg_rename_run run;
	bool on, *drop = NULL;
	int err;

	if (w->opts->renames == 0)
		return 0;
	if ((err = wg_diff_rename_config(w->repo, "status", &on, &ro.limit)))
		return err;
	if (w->opts->renames < 0 && !on)
		return 0;
	if (w->opts->rename_score > 0)
		ro.min_score = w->opts->rename_score;
	if ((err = wg_rename_run_init(&run, ntracked)))
		return err;
	if (!(drop = wg_calloc(ntracked + 1, sizeof(*drop)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ntracked; i++) {
		const struct wg_status_entry *e = &st->v[i];
		if (e->unmerged)
			continue;
		if (e->x == 'D')
			wg_rename_run_add_src(&run, (struct wg_rename_file){ e->path, e->mode_head,
									     e->oid_head, WG_RENAME_GONE }, i);
		else if (e->x == 'A')
			wg_rename_run_add_dst(&run, (struct wg_rename_file){ e->path, e->mode_index,
									     e->oid_index,
										     WG_RENAME_GONE }, i);
	}
	if ((err = wg_rename_run_detect(&run, wg_repo_odb(w->repo), &ro)))
		goto out;
	if (run.limited)
		st->rename_limit_needed = run.nsrc > run.ndst ? run.nsrc : run.ndst;
	for (size_t d = 0; d < run.ndst; d++) {
		struct wg_status_entry *e = &st->v[run.dst_at[d]];
		const struct wg_status_entry *from;
		if (run.src_of[d] < 0)
			continue;
		from = &st->v[run.src_at[run.src_of[d]]];
		if (!(e->from = wg_strdup(from->path))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		}
		e->x = 'R';
		e->mode_head = from->mode_head;
		e->oid_head = from->oid_head;
		e->score = (int)((int64_t)run.score[d] * 100 / WG_RENAME_MAX_SCORE);
		drop[run.src_at[run.src_of[d]]] = true;
	}
	/* the sources go; the entries after the tracked ones move up */
	{
		size_t wpos = 0;
		for (size_t i = 0; i < st->n; i++) {
			if (i < ntracked && drop[i]) {
				wg_free(st->v[i].path);
				continue;
			}
			st->v[wpos++] = st->v[i];
		}
		st->n = wpos;
	}
out:
	wg_rename_run_release(&run);
	wg_free(drop);
	return err;
}

/* Is the index's whole tree HEAD's? Then every entry is what HEAD has,
 * and the index itself stands for HEAD's tree: no tree is read (git's
 * diff-index does the same per directory, unpack-trees.c's
 * traverse_by_cache_tree). Only a cache tree that covers every entry
 * counts, and only without conflicts or intent-to-add entries (which
 * compare with HEAD in their own ways). */
static bool index_is_head(const struct wg_index *ix, const struct wg_oid *head_tree)
{
	const struct wg_cache_tree *ct = ix->cache_tree;
	if (!ct || ct->entry_count < 0 || (size_t)ct->entry_count != ix->nr ||
	    !wg_oid_equal(&ct->oid, head_tree))
		return false;
	for (size_t i = 0; i < ix->nr; i++)
		if (ix->entries[i]->stage || (ix->entries[i]->flags & WG_INDEX_INTENT_TO_ADD))
			return false;
	return true;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct wg_status_entry *x = a, *y = b;
	return strcmp(x->path, y->path);
}

int wg_status_collect(struct wg_status **out, struct wg_repo *repo, struct wg_index *ix,
		      const struct wg_oid *head_tree, const struct wg_status_options *opts)
{
	static const struct wg_status_options defaults = WG_STATUS_OPTIONS_INIT;
	struct wg_workdir_options wo = { WG_ATTR_CHECKIN, NULL, NULL, NULL };
	struct walker w = { repo, ix, NULL, opts ? opts : &defaults, NULL, WG_BUF_INIT };
	struct wg_index *head = NULL;
	size_t ntracked, nuntracked;
	int err;

	*out = NULL;
	wo.index = ix;
	wo.warn = w.opts->warn;
	wo.payload = w.opts->payload;
	if (!(w.st = wg_calloc(1, sizeof(*w.st))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if ((err = wg_workdir_open(&w.wd, repo, &wo)))
		goto out;
	if (head_tree && !index_is_head(ix, head_tree) &&
	    ((err = wg_index_new(&head, ix->algo)) ||
	     (err = wg_index_read_tree(head, wg_repo_odb(repo), head_tree))))
		goto out;
	if ((err = tracked(&w, head_tree && !head ? ix : head)) ||
	    (err = find_renames(&w, w.st->n)))
		goto out;
	ntracked = w.st->n;
	if (w.opts->untracked != WG_UNTRACKED_NO || w.opts->ignored) {
		if ((err = walk_dir(&w, w.opts->untracked != WG_UNTRACKED_NO, w.opts->ignored, NULL,
				    NULL)))
			goto out;
	}
	/* untracked first, then ignored, each by path */
	nuntracked = 0;
	for (size_t i = ntracked; i < w.st->n; i++)
		if (w.st->v[i].x == '?') {
			struct wg_status_entry t = w.st->v[ntracked + nuntracked];
			w.st->v[ntracked + nuntracked] = w.st->v[i];
			w.st->v[i] = t;
			nuntracked++;
		}
	if (w.st->n) {   /* an empty status has no array to point into */
		wg_sort(w.st->v + ntracked, nuntracked, sizeof(*w.st->v), entry_cmp);
		wg_sort(w.st->v + ntracked + nuntracked, w.st->n - ntracked - nuntracked,
			sizeof(*w.st->v), entry_cmp);
	}
out:
	wg_buf_release(&w.path);
	wg_index_free(head);
	wg_workdir_free(w.wd);
	if (err) {
		wg_status_free(w.st);
		return err;
	}
	*out = w.st;
	return 0;
}

void wg_status_free(struct wg_status *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++) {
		wg_free(st->v[i].path);
		wg_free(st->v[i].from);
	}
	wg_free(st->v);
	wg_free(st);
}
