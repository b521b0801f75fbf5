/* The WebAssembly module's C ABI, part four: the working tree. Switching
 * branches, status and the files an editor reads and writes are the
 * core's (worktree/switch.h, status.h, workfile.h); JavaScript only drives
 * the network in between (conventions: wasm/exports.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exports.h"
#include "index/index.h"
#include "refs/refdb.h"
#include "remote/clone.h"
#include "repo/revparse.h"
#include "util/error.h"
#include "worktree/commit_index.h"
#include "worktree/ignore_files.h"
#include "worktree/index_update.h"
#include "worktree/index_file.h"
#include "worktree/status.h"
#include "worktree/switch.h"
#include "worktree/workfile.h"

/* --- switching ----------------------------------------------------------------------------- */

/* Plan moving HEAD to `target` (a branch, or any commit: detached), or
 * with `new_branch` to a new branch at `target` (NULL: HEAD); with
 * neither, check out HEAD's tree as a clone does. A refusal because of
 * local changes is WG_EEXISTS with git's message. NULL on error. */
API struct wg_switch *wgjs_switch_begin(struct wg_repo *repo, const char *target,
					const char *new_branch, int force_create, int detach,
					int force)
{
	struct wg_switch_options so = { 0 };
	struct wg_switch *sw = NULL;
	int err;

	wg_error_clear();
	so.target = target;
	so.new_branch = new_branch;
	so.force_create = force_create != 0;
	so.detach = detach != 0;
	so.require_branch = false;
	so.force = force != 0;
	err = wg_switch_begin(&sw, repo, &so);
	if (err) {
		wg_switch_free(sw);
		return NULL;
	}
	return sw;
}

/* The blobs to fetch before wgjs_switch_finish: records of one field,
 * the hex id. */
API struct wgjs_object *wgjs_switch_missing(struct wg_switch *sw)
{
	const struct wg_oid *oids;
	size_t n = wg_switch_missing(sw, &oids);

	wg_error_clear();
	return wgjs_oid_list(oids, n);
}

API int wgjs_switch_finish(struct wg_switch *sw)
{
	wg_error_clear();
	return wg_switch_finish(sw);
}

API void wgjs_switch_free(struct wg_switch *sw)
{
	wg_switch_free(sw);
}

/* --- a clone's checkout -------------------------------------------------------------------- */

/* After a clone made with `checkout` completed: the new repository, still
 * unpublished, when there is a working tree to fill (not bare, not an
 * empty remote, HEAD on a commit); NULL otherwise (nothing to check out;
 * not an error). */
API struct wg_repo *wgjs_clone_checkout_repo(struct wg_remote_op *op)
{
	struct wg_oid head;
	struct wg_repo *repo;

	wg_error_clear();
	if (!wg_clone_worktree_staged(op) || wg_clone_was_empty(op))
		return NULL;
	repo = wg_clone_repo(op);
	if (wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0)) {
		/* HEAD names a branch the remote lacks: git checks out nothing */
		wg_error_clear();
		return NULL;
	}
	return repo;
}

API int wgjs_clone_publish(struct wg_remote_op *op)
{
	wg_error_clear();
	return wg_clone_publish(op);
}

/* --- status -------------------------------------------------------------------------------- */

static int status_refreshed;

static const char *octal(char *buf, unsigned mode)
{
	snprintf(buf, 8, "%06o", mode);
	return buf;
}

/* git status of the working tree: records of 11 fields, path, the staged
 * and the unstaged change letters (status.h: '.' none, 'M', 'T', 'A',
 * 'D', 'R'; '?' untracked, '!' ignored), the modes in HEAD, the index and
 * the working tree (octal, "000000" absent), the ids in HEAD and the
 * index ("" absent), "1" for a conflict, a rename's source path and its
 * similarity in percent ("" when not renamed). `untracked`: 0 no, 1 normal (a new directory as one entry), 2
 * all files. Refreshed stat data is written back as git status does
 * (wgjs_status_refreshed says so). NULL on error. */
API struct wgjs_object *wgjs_status(struct wg_repo *repo, int untracked, int ignored)
{
	struct wg_status_options so = WG_STATUS_OPTIONS_INIT;
	struct wg_status *st = NULL;
	struct wg_index *ix = NULL;
	struct wg_ignore *ig = NULL;
	struct wgjs_object *list = NULL;
	struct wg_oid head_tree;
	bool has_head;
	int err;

	wg_error_clear();
	status_refreshed = 0;
	has_head = !wg_revparse(&head_tree, repo, "HEAD^{tree}");
	wg_error_clear();
	so.untracked = untracked == 0 ? WG_UNTRACKED_NO
		       : untracked == 2 ? WG_UNTRACKED_ALL : WG_UNTRACKED_NORMAL;
	so.ignored = ignored != 0;
	if ((err = wg_repo_index_read(&ix, repo, NULL)) ||
	    (err = wg_ignore_open(&ig, repo, NULL, NULL, NULL)))
		goto out;
	so.ignore = ig;
	if ((err = wg_status_collect(&st, repo, ix, has_head ? &head_tree : NULL, &so)))
		goto out;
	if (st->refreshed) {
		/* as git status: written back when the lock can be had */
		struct wg_buf path = WG_BUF_INIT;
		if (wg_repo_index_path(&path, repo) || wg_index_write(ix, wg_buf_cstr(&path)))
			wg_error_clear();
		else
			status_refreshed = 1;
		wg_buf_release(&path);
	}
	if (!(list = wgjs_object_alloc(WG_OBJ_NONE)))
		goto out;
	for (size_t i = 0; i < st->n; i++) {
		const struct wg_status_entry *e = &st->v[i];
		char x[2] = { e->x, 0 }, y[2] = { e->y, 0 };
		char mh[8], mi[8], mw[8], head_hex[WG_MAX_HEXSZ + 1], index_hex[WG_MAX_HEXSZ + 1];
		const char *fields[11];
		char score[8];
		fields[0] = e->path;
		fields[1] = x;
		fields[2] = y;
		fields[3] = octal(mh, e->mode_head);
		fields[4] = octal(mi, e->mode_index);
		fields[5] = octal(mw, e->mode_worktree);
		fields[6] = e->mode_head ? wg_oid_to_hex(&e->oid_head, head_hex) : "";
		fields[7] = e->mode_index ? wg_oid_to_hex(&e->oid_index, index_hex) : "";
		fields[8] = e->unmerged ? "1" : "";
		fields[9] = e->from ? e->from : "";
		snprintf(score, sizeof(score), "%d", e->from ? e->score : 0);
		fields[10] = e->from ? score : "";
		if (wgjs_record_add(list, fields, 11)) {
			wgjs_object_free(list);
			list = NULL;
			goto out;
		}
	}
out:
	wg_status_free(st);
	wg_ignore_free(ig);
	wg_index_free(ix);
	return list;
}

API int wgjs_status_refreshed(void)
{
	return status_refreshed;
}

/* --- working-tree files -------------------------------------------------------------------- */

/* The bytes of a working-tree file (a link: its target); the object's
 * type says nothing. NULL on error. */
API struct wgjs_object *wgjs_workfile_read(struct wg_repo *repo, const char *path)
{
	struct wgjs_object *obj;

	wg_error_clear();
	if (!(obj = wgjs_object_alloc(WG_OBJ_BLOB)))
		return NULL;
	if (wg_workfile_read(&obj->data, NULL, repo, path)) {
		wgjs_object_free(obj);
		return NULL;
	}
	return obj;
}

/* mode: 0 keep (new: 100644), 0100644 or 0100755. */
API int wgjs_workfile_write(struct wg_repo *repo, const char *path, const void *data,
			    size_t len, unsigned mode)
{
	wg_error_clear();
	return wg_workfile_write(repo, path, data, len, mode);
}

API int wgjs_workfile_remove(struct wg_repo *repo, const char *path)
{
	wg_error_clear();
	return wg_workfile_remove(repo, path);
}

/* The entries of a working-tree directory: records of 3 fields, name,
 * kind ('f', 'x', 'l', 'd') and size. NULL on error. */
API struct wgjs_object *wgjs_workfile_list(struct wg_repo *repo, const char *dir)
{
	struct wg_workfile_entry *v;
	struct wgjs_object *list;
	size_t n;

	wg_error_clear();
	if (wg_workfile_list(&v, &n, repo, dir ? dir : ""))
		return NULL;
	if (!(list = wgjs_object_alloc(WG_OBJ_NONE))) {
		wg_workfile_list_free(v, n);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		char kind[2] = { v[i].kind, 0 }, size[24];
		const char *fields[3] = { v[i].name, kind, size };
		snprintf(size, sizeof(size), "%llu", (unsigned long long)v[i].size);
		if (wgjs_record_add(list, fields, 3)) {
			wgjs_object_free(list);
			list = NULL;
			break;
		}
	}
	wg_workfile_list_free(v, n);
	return list;
}

/* --- staging and committing ---------------------------------------------------------------- */

struct ignored_list {
	struct wg_buf names;
	size_t n;
};

static void on_update_report(void *payload, char action, const char *path)
{
	struct ignored_list *l = payload;
	if (action != 'i')
		return;
	if (!wg_buf_addch(&l->names, '\n') && !wg_buf_adds(&l->names, path))
		l->n++;
}

/* Read the index, let fn change it, write it back. */
static int with_index(struct wg_repo *repo, int (*fn)(struct wg_repo *, struct wg_index *, void *),
		      void *arg)
{
	struct wg_buf path = WG_BUF_INIT;
	struct wg_index *ix = NULL;
	int err;

	if (!(err = wg_repo_index_path(&path, repo)) &&
	    !(err = wg_repo_index_read(&ix, repo, wg_buf_cstr(&path))) &&
	    !(err = fn(repo, ix, arg)))
		err = wg_index_write(ix, wg_buf_cstr(&path));
	wg_index_free(ix);
	wg_buf_release(&path);
	return err;
}

struct add_args {
	const char *const *paths;
	size_t n;
	struct wg_index_update_options *opts;
};

static int add_in(struct wg_repo *repo, struct wg_index *ix, void *arg)
{
	struct add_args *a = arg;
	struct wg_ignore *ig = NULL;
	int err = wg_ignore_open(&ig, repo, NULL, NULL, NULL);
	if (!err) {
		a->opts->ignore = ig;
		err = wg_index_add_paths(repo, ix, a->paths, a->n, a->opts);
	}
	wg_ignore_free(ig);
	return err;
}

/* git add [-f] [-u] [--] <pathspec>... (n 0: everything, as git add -A):
 * the index is written back. Ignored paths a pathspec named are left out
 * and, as git's exit code 1, make the call fail (WG_EINVALID, git's list)
 * after the rest was staged. */
API int wgjs_add(struct wg_repo *repo, const char *const *paths, int n, int force,
		 int update_only)
{
	struct wg_index_update_options opts = { 0 };
	struct ignored_list ignored = { WG_BUF_INIT, 0 };
	struct add_args a = { paths, n > 0 ? (size_t)n : 0, &opts };
	int err;

	wg_error_clear();
	opts.all = true;
	opts.force = force != 0;
	opts.update_only = update_only != 0;
	opts.report = on_update_report;
	opts.payload = &ignored;
	err = with_index(repo, add_in, &a);
	if (!err && ignored.n)
		err = wg_error_set(WG_EINVALID, "The following paths are ignored by one of your "
				   ".gitignore files:%s\nUse force: true if you really want to add "
				   "them.", wg_buf_cstr(&ignored.names));
	wg_buf_release(&ignored.names);
	return err;
}

struct remove_args {
	const char *const *paths;
	size_t n;
	bool cached, recursive, force;
	struct wg_index_update_options *opts;
};

static int remove_in(struct wg_repo *repo, struct wg_index *ix, void *arg)
{
	struct remove_args *a = arg;
	return wg_index_remove_paths(repo, ix, a->paths, a->n, a->cached, a->recursive, a->force,
				     a->opts);
}

static void on_remove_warn(void *payload, const char *line)
{
	struct wg_buf *b = payload;
	if (b->len)
		wg_buf_addch(b, '\n');
	wg_buf_adds(b, line);
}

/* git rm [--cached] [-r] [-f] [--] <pathspec>...: refusals have git's
 * messages (local changes: WG_EEXISTS). */
API int wgjs_remove(struct wg_repo *repo, const char *const *paths, int n, int cached,
		    int recursive, int force)
{
	struct wg_index_update_options opts = { 0 };
	struct wg_buf refused = WG_BUF_INIT;
	struct remove_args a = { paths, n > 0 ? (size_t)n : 0, cached != 0, recursive != 0,
				 force != 0, &opts };
	int err;

	wg_error_clear();
	opts.warn = on_remove_warn;
	opts.payload = &refused;
	err = with_index(repo, remove_in, &a);
	if (err == WG_EEXISTS && refused.len)
		wg_error_set(WG_EEXISTS, "%s", wg_buf_cstr(&refused));
	wg_buf_release(&refused);
	return err;
}

struct commit_args {
	struct wg_commit_index_options *opts;
	struct wg_oid oid;
};

static int commit_in(struct wg_repo *repo, struct wg_index *ix, void *arg)
{
	struct commit_args *a = arg;
	return wg_commit_index(&a->oid, repo, ix, a->opts);
}

/* git commit from the index: the message (len bytes; NULL with amend:
 * the amended commit's), idents as wgjs_ident_format gives them (author
 * NULL: the committer, or the amended commit's author). The index is
 * written back (its cache tree filled). The new commit's hex id, or NULL
 * (refusals as worktree/commit_index.h: nothing to commit is WG_EEXISTS). */
API const char *wgjs_commit_index(struct wg_repo *repo, const char *message, size_t len,
				  const char *author, const char *committer, int amend,
				  int allow_empty)
{
	struct wg_commit_index_options opts = { 0 };
	struct commit_args a;
	int err;

	wg_error_clear();
	memset(&a, 0, sizeof(a));
	a.opts = &opts;
	opts.message = message;
	opts.message_len = message ? len : 0;
	opts.author = author;
	opts.committer = committer;
	opts.amend = amend != 0;
	opts.allow_empty = allow_empty != 0;
	err = with_index(repo, commit_in, &a);
	return err ? NULL : wgjs_hex(&a.oid);
}
