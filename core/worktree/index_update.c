#include "worktree/index_update.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index/cache_tree.h"
#include "odb/odb.h"
#include "repo/config.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strlist.h"
#include "util/pathspec.h"
#include "worktree/workdir.h"
#include "worktree/workfile.h"

#define MODE_TYPE(m) ((m) & 0170000u)

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct update {
	struct wg_repo *repo;
	struct wg_index *ix;
	struct wg_workdir *wd;
	const struct wg_index_update_options *opts;
	struct wg_pathspec ps;
	unsigned char *seen;      /* ps.nr bytes: the best match of each item */
	struct wg_buf path;
	struct wg_strlist found;  /* untracked paths to add ("sub/": a nested repository) */
	struct wg_strlist ignored;/* ignored paths a pathspec names */
};

static void report(const struct update *u, char action, const char *path)
{
	if (u->opts->report)
		u->opts->report(u->opts->payload, action, path);
}

static int open_update(struct update *u, struct wg_repo *repo, struct wg_index *ix,
		       const char *const *pathspecs, size_t n,
		       const struct wg_index_update_options *opts)
{
	struct wg_workdir_options wo = { WG_ATTR_CHECKIN, NULL, NULL, NULL };
	int err;

	memset(u, 0, sizeof(*u));
	u->repo = repo;
	u->ix = ix;
	u->opts = opts;
	wo.index = ix;
	wo.warn = opts->warn;
	wo.payload = opts->payload;
	if ((err = wg_pathspec_init(&u->ps, opts->prefix, pathspecs, n)))
		return err;
	if (n && !(u->seen = wg_calloc(n, 1)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return wg_workdir_open(&u->wd, repo, &wo);
}

static void close_update(struct update *u)
{
	wg_pathspec_release(&u->ps);
	wg_free(u->seen);
	wg_buf_release(&u->path);
	wg_strlist_release(&u->found);
	wg_strlist_release(&u->ignored);
	wg_workdir_free(u->wd);
}

/* --- what a file becomes ------------------------------------------------------ */

/* Is the directory at full (an absolute path) a repository of its own? */
static bool is_nested_repo(const char *full)
{
	struct wg_buf dotgit = WG_BUF_INIT;
	bool nested = !wg_buf_printf(&dotgit, "%s/.git", full) && wg_fs_exists(wg_buf_cstr(&dotgit));
	wg_buf_release(&dotgit);
	return nested;
}

/* The commit a nested repository has checked out. */
static int gitlink_oid(struct update *u, const char *path, struct wg_oid *out)
{
	struct wg_repo *sub = NULL;
	const char *full = wg_workdir_path(u->wd, path);
	int err;
	if (!full)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if ((err = wg_repo_open(&sub, full)) || (err = wg_revparse(out, sub, "HEAD")))
		err = wg_error_set(WG_EINVALID, "'%s/' does not have a commit checked out", path);
	wg_repo_free(sub);
	return err;
}

/* git's core.safecrlf=warn (the default): say when the file's line
 * endings would not survive a check-in and a checkout (convert.c's
 * check_global_conv_flags_eol). `converted`: CRLF became LF. */
static int warn_round_trip(struct update *u, const char *path, const struct wg_buf *raw,
			   bool converted)
{
	struct wg_conv_attrs ca;
	struct wg_text_stat old, now;
	const char *v;
	bool on = true;
	int err;

	if (!u->opts->warn || !raw->len)
		return 0;
	if (!wg_repo_config_get(u->repo, "core.safecrlf", &v) && v &&
	    wg_config_bool_value("core.safecrlf", v, &on))
		on = true;
	wg_error_clear();
	if (!on)
		return 0;
	if ((err = wg_workdir_conv_attrs(u->wd, path, &ca)))
		return err;
	if (ca.crlf_action == WG_CRLF_BINARY)
		return 0;
	wg_text_stat_gather(&old, raw->data, raw->len);
	if ((ca.crlf_action == WG_CRLF_AUTO || ca.crlf_action == WG_CRLF_AUTO_INPUT ||
	     ca.crlf_action == WG_CRLF_AUTO_CRLF) && wg_text_stat_is_binary(&old))
		return 0;
	now = old;
	if (converted) {
		now.lonelf += now.crlf;
		now.crlf = 0;
	}
	if (wg_convert_checkout(&ca, &u->wd->eol, &now) == WG_EOL_CONV_LF_TO_CRLF) {
		now.crlf += now.lonelf;
		now.lonelf = 0;
	}
	if ((old.crlf && !now.crlf) || (old.lonelf && !now.lonelf)) {
		struct wg_buf line = WG_BUF_INIT;
		if ((err = wg_buf_printf(&line,
					 "in the working copy of '%s', %s will be replaced by %s the "
					 "next time Git touches it",
					 path, old.crlf && !now.crlf ? "CRLF" : "LF",
					 old.crlf && !now.crlf ? "LF" : "CRLF")))
			return err;
		u->opts->warn(u->opts->payload, wg_buf_cstr(&line));
		wg_buf_release(&line);
	}
	return 0;
}

/* Write the blob a file (lstat'ed into st) becomes, as git add does. The
 * id from wg_workdir_hash_file says which check-in conversion applies
 * (it knows text=auto's rule about the index's blob); the bytes are the
 * file's, converted when the plain bytes do not give that id. */
static int store_file(struct update *u, const char *path, const struct stat *st,
		      struct wg_oid *out)
{
	struct wg_buf raw = WG_BUF_INIT, conv = WG_BUF_INIT;
	struct wg_oid plain, stored;
	unsigned mode;
	int err;

	if ((err = wg_workdir_hash_file(u->wd, u->ix, path, st, out)) || u->opts->dry_run)
		return err;
	if ((err = wg_workfile_read(&raw, &mode, u->repo, path)))
		goto out;
	if ((err = wg_object_hash(&plain, u->wd->algo, WG_OBJ_BLOB, raw.data ? (void *)raw.data : "",
				  raw.len)))
		goto out;
	if (wg_oid_equal(&plain, out)) {
		err = wg_odb_write(wg_repo_odb(u->repo), WG_OBJ_BLOB, raw.data ? (void *)raw.data : "",
				   raw.len, &stored);
	} else {
		if ((err = wg_convert_buffer(&conv, WG_EOL_CONV_CRLF_TO_LF, raw.data ? (void *)raw.data : "",
					     raw.len)))
			goto out;
		err = wg_odb_write(wg_repo_odb(u->repo), WG_OBJ_BLOB, conv.data ? (void *)conv.data : "",
				   conv.len, &stored);
	}
	if (!err && !wg_oid_equal(&stored, out))
		err = wg_error_set(WG_EIO, "'%s' changed while it was added", path);
	if (!err && S_ISREG(st->st_mode))
		err = warn_round_trip(u, path, &raw, !wg_oid_equal(&plain, out));
out:
	wg_buf_release(&raw);
	wg_buf_release(&conv);
	return err;
}

/* Entries that cannot stay beside `path`: a file where path has a
 * directory, entries below path when it becomes a file, and its
 * conflict stages (git's add_index_entry with OK_TO_REPLACE). */
static void remove_conflicting(struct wg_index *ix, const char *path, size_t len)
{
	long pos;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/' && (pos = wg_index_find(ix, path, i, 0)) >= 0)
			wg_index_remove_at(ix, (size_t)pos);
	for (unsigned stage = 1; stage <= 3; stage++)
		if ((pos = wg_index_find(ix, path, len, stage)) >= 0)
			wg_index_remove_at(ix, (size_t)pos);
	pos = wg_index_find(ix, path, len, 0);
	pos = pos >= 0 ? pos + 1 : -pos - 1;
	while ((size_t)pos < ix->nr && ix->entries[pos]->path_len > len &&
	       !memcmp(ix->entries[pos]->path, path, len) && ix->entries[pos]->path[len] == '/')
		wg_index_remove_at(ix, (size_t)pos);
}

/* git's add_to_index: stage the file at path (lstat'ed into st). `name`
 * is what a report says ("sub/" for a new nested repository). */
static int add_one(struct update *u, const char *path, const char *name, const struct stat *st)
{
	size_t len = strlen(path);
	long pos = wg_index_find(u->ix, path, len, 0);
	struct wg_index_entry *old = pos >= 0 ? u->ix->entries[pos] : NULL, *e;
	unsigned mode = wg_workdir_mode_from_stat(u->wd, st, old ? old->mode : 0);
	struct wg_oid oid;
	bool same;
	int err;

	if (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode) && !S_ISDIR(st->st_mode))
		return wg_error_set(WG_EINVALID,
				    "%s: can only add regular files, symbolic links or git-directories",
				    path);
	if (u->opts->intent_to_add) {
		/* git adds new paths only: a tracked one stays as it is */
		if (old) {
			report(u, 'a', name);
			return 0;
		}
		/* git writes the empty blob the entry names */
		if ((err = u->opts->dry_run ? wg_object_hash(&oid, u->wd->algo, WG_OBJ_BLOB, "", 0)
					    : wg_odb_write(wg_repo_odb(u->repo), WG_OBJ_BLOB, "", 0,
							   &oid)))
			return err;
	} else if (MODE_TYPE(mode) == 0160000) {
		if ((err = gitlink_oid(u, path, &oid)))
			return err;
	} else if ((err = store_file(u, path, st, &oid))) {
		return err;
	}
	same = old && old->mode == mode && wg_oid_equal(&old->oid, &oid) &&
	       !(old->flags & WG_INDEX_INTENT_TO_ADD);
	if (!u->opts->dry_run) {
		if (!(e = wg_index_entry_new(path, len, mode, &oid, 0)))
			return wg_error_set(WG_ENOMEM, "out of memory");
		if (u->opts->intent_to_add)
			e->flags |= WG_INDEX_INTENT_TO_ADD;
		else
			wg_index_stat_from(&e->st, st);
		if (old)
			e->flags |= old->flags & (WG_INDEX_SKIP_WORKTREE);
		remove_conflicting(u->ix, path, len);
		if (same && old) {
			/* the same content: only the stat data is new (the
			 * cache tree stays valid) */
			pos = wg_index_find(u->ix, path, len, 0);
			if (pos >= 0) {
				u->ix->entries[pos]->st = e->st;
				wg_free(e);
				return 0;
			}
		}
		if ((err = wg_index_add(u->ix, e))) {
			wg_free(e);
			return err;
		}
	}
	if (!same)
		report(u, 'a', name);
	return 0;
}

/* --- the tracked paths (git's add_files_to_cache: diff-files) ---------------- */

struct change {
	char *path;
	bool deleted;
};

static int tracked_changes(struct update *u, struct change **out, size_t *nout)
{
	struct change *v = NULL;
	size_t n = 0, alloc = 0;
	int err = 0;

	for (size_t i = 0; i < u->ix->nr && !err; i++) {
		struct wg_index_entry *e = u->ix->entries[i];
		const char *full;
		struct stat st;
		bool deleted = false, modified = true;

		/* a conflict's stages are one path: look at its first */
		if (i && !strcmp(u->ix->entries[i - 1]->path, e->path))
			continue;
		if (e->flags & WG_INDEX_SKIP_WORKTREE)
			continue;
		if (!wg_pathspec_match(&u->ps, e->path, e->path_len, u->seen))
			continue;
		if (wg_workdir_leading_unsafe(u->wd, e->path) ||
		    !(full = wg_workdir_path(u->wd, e->path)) || wg_fs_lstat(full, &st) ||
		    (S_ISDIR(st.st_mode) && MODE_TYPE(e->mode) != 0160000)) {
			deleted = true;
		} else if (e->stage || (e->flags & WG_INDEX_INTENT_TO_ADD) ||
			   wg_workdir_mode_from_stat(u->wd, &st, e->mode) != e->mode) {
			modified = true;
		} else if (MODE_TYPE(e->mode) == 0160000) {
			struct wg_oid head;
			if (gitlink_oid(u, e->path, &head)) {
				wg_error_clear();
				modified = false;
			} else {
				modified = !wg_oid_equal(&head, &e->oid);
			}
		} else {
			struct wg_index_stat now;
			if ((err = wg_workdir_entry_modified(u->wd, u->ix, e, &st, &modified)))
				break;
			wg_index_stat_from(&now, &st);
			/* unchanged content with new stat data: git adds it again
			 * (the same blob) and the stat data is refreshed */
			/* Stat data that says "changed" (git's ie_match_stat),
			 * or a racily clean entry (DIFF_RACY_IS_MODIFIED): git's
			 * diff-files reports the path and add hashes it again
			 * (warnings included); the same blob then only gets
			 * its stat data refreshed. */
			if (!modified &&
			    (e->st.mtime_sec != now.mtime_sec || e->st.size != now.size ||
			     (u->wd->trustctime && u->wd->check_stat &&
			      e->st.ctime_sec != now.ctime_sec) ||
			     (u->wd->check_stat && (e->st.ino != now.ino || e->st.uid != now.uid ||
						    e->st.gid != now.gid)) ||
			     wg_index_entry_is_racy(u->ix, e)))
				modified = true;
		}
		if (!deleted && !modified)
			continue;
		if (n == alloc) {
			size_t na = alloc ? 2 * alloc : 16;
			struct change *nv = wg_realloc(v, na * sizeof(*v));
			if (!nv) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				break;
			}
			v = nv;
			alloc = na;
		}
		if (!(v[n].path = wg_strndup(e->path, e->path_len))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		v[n++].deleted = deleted;
	}
	*out = v;
	*nout = n;
	return err;
}

static void free_changes(struct change *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wg_free(v[i].path);
	wg_free(v);
}

static int remove_path(struct update *u, const char *path)
{
	size_t len = strlen(path);
	for (unsigned stage = 0; stage <= 3; stage++) {
		long pos = wg_index_find(u->ix, path, len, stage);
		if (pos >= 0 && !u->opts->dry_run)
			wg_index_remove_at(u->ix, (size_t)pos);
	}
	return 0;
}

static int apply_changes(struct update *u, const struct change *v, size_t n)
{
	int err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		struct stat st;
		const char *full;
		if (v[i].deleted) {
			if (!u->opts->all && !u->opts->update_only)
				continue;  /* add --no-all leaves deletions alone */
			remove_path(u, v[i].path);
			report(u, 'r', v[i].path);
			continue;
		}
		if (!(full = wg_workdir_path(u->wd, v[i].path)))
			return wg_error_set(WG_ENOMEM, "out of memory");
		if (wg_fs_lstat(full, &st))
			continue;
		err = add_one(u, v[i].path, v[i].path, &st);
	}
	return err;
}

/* --- the untracked paths (git's fill_directory) ------------------------------ */

/* Is an index entry at path (any stage)? */
static bool tracked_path(const struct wg_index *ix, const char *path, size_t len)
{
	long pos = wg_index_find(ix, path, len, 0);
	if (pos >= 0)
		return true;
	pos = -pos - 1;
	return (size_t)pos < ix->nr && ix->entries[pos]->path_len == len &&
	       !memcmp(ix->entries[pos]->path, path, len);
}

/* Is the entry at path (stage 0) a gitlink? */
static bool tracked_gitlink(const struct wg_index *ix, const char *path, size_t len)
{
	long pos = wg_index_find(ix, path, len, 0);
	return pos >= 0 && MODE_TYPE(ix->entries[pos]->mode) == 0160000;
}

/* Does the index track anything below dir? */
static bool tracks_below(const struct wg_index *ix, const char *dir, size_t len)
{
	long pos = wg_index_find(ix, dir, len, 0);
	pos = pos >= 0 ? pos + 1 : -pos - 1;
	/* entries "dir<byte below '/'>..." sort between dir and dir/ */
	while ((size_t)pos < ix->nr && ix->entries[pos]->path_len > len &&
	       !memcmp(ix->entries[pos]->path, dir, len) &&
	       (unsigned char)ix->entries[pos]->path[len] < '/')
		pos++;
	return (size_t)pos < ix->nr && ix->entries[pos]->path_len > len &&
	       !memcmp(ix->entries[pos]->path, dir, len) && ix->entries[pos]->path[len] == '/';
}

/* git's exclude_matches_pathspec: an ignored path is worth a complaint
 * when a pathspec's literal part names it or a path below it. */
static bool names_ignored(const struct update *u, const char *path, size_t len)
{
	for (size_t i = 0; i < u->ps.nr; i++) {
		const struct wg_pathspec_item *it = &u->ps.items[i];
		if (it->nowildcard == len && !memcmp(it->match, path, len))
			return true;
		if (it->nowildcard > len && it->match[len] == '/' && !memcmp(it->match, path, len))
			return true;
	}
	return false;
}

static int walk(struct update *u)
{
	struct wg_workfile_entry *v;
	size_t n, base = u->path.len;
	int err;

	if ((err = wg_workfile_list(&v, &n, u->repo, wg_buf_cstr(&u->path)))) {
		/* a directory that went away, or a name git would not check out */
		wg_error_clear();
		return 0;
	}
	for (size_t i = 0; i < n && !err; i++) {
		const char *path;
		bool dir = v[i].kind == 'd', excluded = false;
		if (!strcmp(v[i].name, ".git"))
			continue;
		wg_buf_setlen(&u->path, base);
		if ((base && (err = wg_buf_addch(&u->path, '/'))) ||
		    (err = wg_buf_adds(&u->path, v[i].name)))
			break;
		path = wg_buf_cstr(&u->path);
		/* a tracked name is the tracked pass's business, unless a
		 * directory now stands where a file was */
		if (tracked_path(u->ix, path, u->path.len) &&
		    (!dir || tracked_gitlink(u->ix, path, u->path.len)))
			continue;
		if (dir && tracks_below(u->ix, path, u->path.len)) {
			if (wg_pathspec_may_match_below(&u->ps, path, u->path.len))
				err = walk(u);
			continue;
		}
		if (!u->opts->force && u->opts->ignore &&
		    (err = wg_ignore_is_excluded(&excluded, u->opts->ignore, path,
						 dir ? WG_IGNORE_TYPE_DIR : WG_IGNORE_TYPE_OTHER)))
			break;
		if (excluded) {
			if (names_ignored(u, path, u->path.len))
				err = wg_strlist_add(&u->ignored, path, u->path.len);
			continue;
		}
		if (dir) {
			const char *full = wg_workdir_path(u->wd, path);
			if (!full) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				break;
			}
			if (is_nested_repo(full)) {
				/* one unit, named "sub/" as git names it */
				if (wg_pathspec_match(&u->ps, path, u->path.len, u->seen) &&
				    !(err = wg_buf_addch(&u->path, '/')))
					err = wg_strlist_add(&u->found, wg_buf_cstr(&u->path), u->path.len);
			} else if (wg_pathspec_may_match_below(&u->ps, path, u->path.len)) {
				err = walk(u);
			}
			continue;
		}
		if (wg_pathspec_match(&u->ps, path, u->path.len, u->seen))
			err = wg_strlist_add(&u->found, path, u->path.len);
	}
	wg_buf_setlen(&u->path, base);
	wg_workfile_list_free(v, n);
	return err;
}

/* Is a leading directory of path a symbolic link (git's
 * PATHSPEC_SYMLINK_LEADING_PATH)? */
static bool beyond_symlink(struct update *u, const char *path)
{
	struct wg_buf dir = WG_BUF_INIT;
	bool link = false;
	for (const char *s = strchr(path, '/'); s && !link; s = strchr(s + 1, '/')) {
		struct stat st;
		const char *full;
		wg_buf_reset(&dir);
		if (wg_buf_add(&dir, path, (size_t)(s - path)) || wg_buf_grow(&dir, 1) ||
		    !(full = wg_workdir_path(u->wd, wg_buf_cstr(&dir))) || wg_fs_lstat(full, &st))
			break;
		link = S_ISLNK(st.st_mode);
		if (!S_ISDIR(st.st_mode))
			break;
	}
	wg_buf_release(&dir);
	return link;
}

/* Does the item's path exist in the working tree (git's file_exists)? */
static bool item_exists(struct update *u, const struct wg_pathspec_item *it)
{
	struct stat st;
	const char *full = wg_workdir_path(u->wd, it->match);
	return full && !wg_fs_lstat(full, &st);
}

int wg_index_add_paths(struct wg_repo *repo, struct wg_index *ix, const char *const *pathspecs,
		       size_t n, const struct wg_index_update_options *opts)
{
	static const struct wg_index_update_options defaults = { .all = true };
	struct update u;
	struct change *changes = NULL;
	size_t nchanges = 0;
	int err;

	if (!opts)
		opts = &defaults;
	if ((err = open_update(&u, repo, ix, pathspecs, n, opts)))
		goto out;
	for (size_t i = 0; i < u.ps.nr; i++)
		if (beyond_symlink(&u, u.ps.items[i].match)) {
			err = wg_error_set(WG_EINVALID, "pathspec '%s' is beyond a symbolic link",
					   u.ps.items[i].original);
			goto out;
		}
	/* git's die_path_inside_submodule */
	for (size_t i = 0; i < ix->nr; i++) {
		const struct wg_index_entry *e = ix->entries[i];
		if (e->stage || MODE_TYPE(e->mode) != 0160000)
			continue;
		for (size_t j = 0; j < u.ps.nr; j++) {
			const struct wg_pathspec_item *it = &u.ps.items[j];
			if (it->len > e->path_len + 1 && it->match[e->path_len] == '/' &&
			    !memcmp(it->match, e->path, e->path_len)) {
				err = wg_error_set(WG_EINVALID, "Pathspec '%s' is in submodule '%s'",
						   it->original, e->path);
				goto out;
			}
		}
	}
	if (!opts->update_only && (err = walk(&u)))
		goto out;
	/* every index entry a pathspec matches counts as seen */
	if ((err = tracked_changes(&u, &changes, &nchanges)))
		goto out;
	for (size_t i = 0; i < u.ps.nr; i++) {
		const struct wg_pathspec_item *it = &u.ps.items[i];
		if (u.seen[i] || !it->len)
			continue;
		if (it->nowildcard < it->len || !item_exists(&u, it)) {
			err = wg_error_set(WG_ENOTFOUND, "pathspec '%s' did not match any files",
					   it->original);
			goto out;
		}
		if (opts->update_only) {
			err = wg_error_set(WG_ENOTFOUND,
					   "pathspec '%s' did not match any file(s) known to git",
					   it->original);
			goto out;
		}
	}
	if ((err = apply_changes(&u, changes, nchanges)))
		goto out;
	if (u.ignored.n)
		qsort(u.ignored.v, u.ignored.n, sizeof(*u.ignored.v), strcmp_ptr);
	for (size_t i = 0; i < u.ignored.n; i++)
		report(&u, 'i', u.ignored.v[i]);
	if (u.found.n)
		qsort(u.found.v, u.found.n, sizeof(*u.found.v), strcmp_ptr);
	for (size_t i = 0; i < u.found.n && !err; i++) {
		char *name = u.found.v[i];
		size_t len = strlen(name);
		const char *full;
		struct stat st;
		bool nested = len && name[len - 1] == '/';
		if (nested)
			name[len - 1] = '\0';
		if (!(full = wg_workdir_path(u.wd, name))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		if (wg_fs_lstat(full, &st))
			continue;  /* gone meanwhile */
		if (nested)
			name[len - 1] = '/';
		{
			char *copy = wg_strndup(name, nested ? len - 1 : len);
			if (!copy) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				break;
			}
			err = add_one(&u, copy, name, &st);
			if (!err && nested)
				report(&u, 'e', copy);
			wg_free(copy);
		}
	}
out:
	free_changes(changes, nchanges);
	close_update(&u);
	return err;
}

/* --- git rm ------------------------------------------------------------------ */

/* One of git rm's refusals: the message, the paths, the hint. */
static int refusal(struct update *u, const struct wg_strlist *l, const char *one, const char *many,
		   const char *hint)
{
	struct wg_buf b = WG_BUF_INIT;
	int err;
	if (!l->n)
		return 0;
	err = wg_buf_adds(&b, l->n == 1 ? one : many);
	for (size_t i = 0; i < l->n && !err; i++)
		err = wg_buf_printf(&b, "\n    %s", l->v[i]);
	if (!err)
		err = wg_buf_adds(&b, hint);
	if (!err && u->opts->warn)
		u->opts->warn(u->opts->payload, wg_buf_cstr(&b));
	wg_buf_release(&b);
	return err ? err : 1;
}

/* git rm's check_local_mod: 0, 1 when refused (blocks sent to warn). */
static int check_local_mod(struct update *u, const struct wg_strlist *paths, bool cached)
{
	struct wg_strlist staged = { 0 }, in_index = { 0 }, local = { 0 };
	struct wg_oid head;
	bool no_head = wg_revparse(&head, u->repo, "HEAD^{tree}") != 0;
	int err = 0, refused = 0;

	wg_error_clear();
	for (size_t i = 0; i < paths->n && !err; i++) {
		const char *name = paths->v[i], *full;
		size_t len = strlen(name);
		long pos = wg_index_find(u->ix, name, len, 0);
		const struct wg_index_entry *e;
		struct stat st;
		struct wg_oid oid;
		unsigned mode;
		bool local_changes = false, staged_changes;

		if (pos < 0) {
			/* a conflict: "ours", and only a gitlink's is checked */
			if ((pos = wg_index_find(u->ix, name, len, 2)) < 0 ||
			    MODE_TYPE(u->ix->entries[pos]->mode) != 0160000)
				continue;
		}
		e = u->ix->entries[pos];
		if (!(full = wg_workdir_path(u->wd, name))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		if (wg_workdir_leading_unsafe(u->wd, name) || wg_fs_lstat(full, &st))
			continue;
		if (S_ISDIR(st.st_mode) && MODE_TYPE(e->mode) != 0160000)
			continue;
		if (MODE_TYPE(e->mode) == 0160000) {
			struct wg_oid sub;
			if (!S_ISDIR(st.st_mode))
				local_changes = true;
			else if (is_nested_repo(full) && !gitlink_oid(u, name, &sub))
				local_changes = !wg_oid_equal(&sub, &e->oid);
			wg_error_clear();
		} else if (MODE_TYPE(wg_workdir_mode_from_stat(u->wd, &st, e->mode)) != MODE_TYPE(e->mode)) {
			local_changes = true;
		} else if ((err = wg_workdir_entry_modified(u->wd, u->ix, e, &st, &local_changes))) {
			break;
		}
		staged_changes = no_head || wg_tree_lookup_path(&oid, &mode, u->repo, &head, name) ||
				 mode != e->mode || !wg_oid_equal(&oid, &e->oid);
		wg_error_clear();
		if (local_changes && staged_changes) {
			if (!cached || !(e->flags & WG_INDEX_INTENT_TO_ADD))
				err = wg_strlist_add(&staged, name, len);
		} else if (!cached) {
			if (staged_changes)
				err = wg_strlist_add(&in_index, name, len);
			if (!err && local_changes)
				err = wg_strlist_add(&local, name, len);
		}
	}
	if (!err) {
		int r1, r2, r3;
		r1 = refusal(u, &staged,
			     "the following file has staged content different from both the\n"
			     "file and the HEAD:",
			     "the following files have staged content different from both the\n"
			     "file and the HEAD:",
			     "\n(use -f to force removal)");
		r2 = r1 < 0 ? r1
			    : refusal(u, &in_index, "the following file has changes staged in the index:",
				      "the following files have changes staged in the index:",
				      "\n(use --cached to keep the file, or -f to force removal)");
		r3 = r2 < 0 ? r2
			    : refusal(u, &local, "the following file has local modifications:",
				      "the following files have local modifications:",
				      "\n(use --cached to keep the file, or -f to force removal)");
		if (r1 < 0 || r2 < 0 || r3 < 0)
			err = r1 < 0 ? r1 : r2 < 0 ? r2 : r3;
		else
			refused = r1 || r2 || r3;
	}
	wg_strlist_release(&staged);
	wg_strlist_release(&in_index);
	wg_strlist_release(&local);
	return err ? err : refused;
}

int wg_index_remove_paths(struct wg_repo *repo, struct wg_index *ix, const char *const *pathspecs,
			  size_t n, bool cached, bool recursive, bool force,
			  const struct wg_index_update_options *opts)
{
	static const struct wg_index_update_options defaults = { .all = false };
	struct update u;
	struct wg_strlist paths = { 0 };
	struct wg_strlist gitlinks = { 0 };
	int err, rc;

	if (!opts)
		opts = &defaults;
	if ((err = open_update(&u, repo, ix, pathspecs, n, opts)))
		goto out;
	for (size_t i = 0; i < ix->nr && !err; i++) {
		const struct wg_index_entry *e = ix->entries[i];
		if (!wg_pathspec_match(&u.ps, e->path, e->path_len, u.seen))
			continue;
		if (paths.n && !strcmp(paths.v[paths.n - 1], e->path))
			continue;  /* another stage of the same path */
		err = wg_strlist_add(&paths, e->path, e->path_len);
		if (!err && MODE_TYPE(e->mode) == 0160000)
			err = wg_strlist_add(&gitlinks, e->path, e->path_len);
	}
	if (err)
		goto out;
	for (size_t i = 0; i < u.ps.nr; i++) {
		const char *orig = u.ps.items[i].original;
		if (!u.seen[i]) {
			err = wg_error_set(WG_ENOTFOUND, "pathspec '%s' did not match any files", orig);
			goto out;
		}
		if (!recursive && u.seen[i] == WG_PATHSPEC_RECURSIVELY) {
			err = wg_error_set(WG_EINVALID, "not removing '%s' recursively without -r",
					   *orig ? orig : ".");
			goto out;
		}
	}
	if (!force && (rc = check_local_mod(&u, &paths, cached))) {
		err = rc < 0 ? rc : wg_error_set(WG_EEXISTS, "local changes would be lost");
		goto out;
	}
	for (size_t i = 0; i < paths.n; i++) {
		report(&u, 'r', paths.v[i]);
		if (!opts->dry_run)
			remove_path(&u, paths.v[i]);
	}
	if (cached || opts->dry_run)
		goto out;
	/* the index is decided; a file that cannot go is an error only when
	 * it is the first (git's rule: then nothing has been removed yet) */
	{
		bool removed = false;
		size_t g = 0;
		for (size_t i = 0; i < paths.n; i++) {
			const char *full;
			bool sub = g < gitlinks.n && !strcmp(gitlinks.v[g], paths.v[i]);
			if (sub)
				g++;
			if (wg_workdir_leading_unsafe(u.wd, paths.v[i]))
				continue;
			if (sub) {
				if (!(full = wg_workdir_path(u.wd, paths.v[i]))) {
					err = wg_error_set(WG_ENOMEM, "out of memory");
					goto out;
				}
				if ((err = wg_fs_remove_tree(full)))
					goto out;
				removed = true;
				continue;
			}
			err = wg_workfile_remove(repo, paths.v[i]);
			if (!err || err == WG_ENOTFOUND) {
				wg_error_clear();
				removed = removed || !err;
				err = 0;
				continue;
			}
			if (!removed) {
				wg_error_prefix("git rm: '%s'", paths.v[i]);
				goto out;
			}
			wg_error_clear();
			err = 0;
		}
	}
out:
	wg_strlist_release(&paths);
	wg_strlist_release(&gitlinks);
	close_update(&u);
	return err;
}
