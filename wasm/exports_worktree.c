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
#include "worktree/ignore_files.h"
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
	struct wgjs_object *list;
	const struct wg_oid *oids;
	size_t n;

	wg_error_clear();
	if (!(list = wgjs_object_alloc(WG_OBJ_NONE)))
		return NULL;
	n = wg_switch_missing(sw, &oids);
	for (size_t i = 0; i < n; i++) {
		const char *hex = wgjs_hex(&oids[i]);
		if (wgjs_record_add(list, &hex, 1)) {
			wgjs_object_free(list);
			return NULL;
		}
	}
	return list;
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

/* git status of the working tree: records of 10 fields, path, the staged
 * and the unstaged change letters (status.h: '.' none, 'M', 'T', 'A',
 * 'D'; '?' untracked, '!' ignored), the modes in HEAD, the index and the
 * working tree (octal, "000000" absent), the ids in HEAD and the index
 * ("" absent), "1" for a conflict, and "" (rename source, not detected
 * yet). `untracked`: 0 no, 1 normal (a new directory as one entry), 2
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
		const char *fields[10];
		fields[0] = e->path;
		fields[1] = x;
		fields[2] = y;
		fields[3] = octal(mh, e->mode_head);
		fields[4] = octal(mi, e->mode_index);
		fields[5] = octal(mw, e->mode_worktree);
		fields[6] = e->mode_head ? wg_oid_to_hex(&e->oid_head, head_hex) : "";
		fields[7] = e->mode_index ? wg_oid_to_hex(&e->oid_index, index_hex) : "";
		fields[8] = e->unmerged ? "1" : "";
		fields[9] = "";
		if (wgjs_record_add(list, fields, 10)) {
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
