/* Restore: files and index entries of some paths (see restore.h). */
#include "worktree/restore.h"

#include <string.h>

#include "index/index.h"
#include "repo/revparse.h"
#include "refs/refdb.h"
#include "util/alloc.h"
#include "util/error.h"
#include "worktree/index_file.h"
#include "worktree/index_tree.h"

struct wg_restore {
	struct wg_repo *repo;
	bool staged, worktree, from_index;
	const struct wg_pathspec *ps;
	struct wg_buf index_path;
	struct wg_index *index;   /* the repository's */
	struct wg_index *have;    /* its entries for the restored paths (stage 0) */
	struct wg_index *want;    /* what those paths become */
	struct wg_checkout *checkout;
};

/* A copy of e for another index (stat data and flags too). */
static int copy_into(struct wg_index *to, const struct wg_index_entry *e)
{
	struct wg_index_entry *c = wg_index_entry_new(e->path, e->path_len, e->mode, &e->oid,
						      e->stage);
	if (!c)
		return wg_error_set(WG_ENOMEM, "out of memory");
	c->st = e->st;
	c->flags = e->flags;
	return wg_index_add(to, c);
}

/* One refusal: to the caller's warn, the first one kept as the error. */
static void refuse(struct wg_buf *first, const struct wg_restore_options *opts, const char *fmt,
		   const char *path)
{
	struct wg_buf line = WG_BUF_INIT;
	if (wg_buf_printf(&line, fmt, path))
		return;
	if (opts->warn)
		opts->warn(opts->payload, wg_buf_cstr(&line));
	if (!first->len)
		wg_buf_add(first, line.data, line.len);
	wg_buf_release(&line);
}

/* have/want from the index and the source, for the matching paths. */
static int collect(struct wg_restore *r, const struct wg_index *src,
		   const struct wg_restore_options *opts)
{
	const struct wg_pathspec *ps = r->ps;
	struct wg_buf first = WG_BUF_INIT;
	unsigned char *seen = wg_calloc(ps->nr ? ps->nr : 1, 1);
	int err = seen ? 0 : wg_error_set(WG_ENOMEM, "out of memory");

	for (size_t k = 0; !err && k < r->index->nr; k++) {
		const struct wg_index_entry *e = r->index->entries[k];
		if (!wg_pathspec_match(ps, e->path, e->path_len, seen))
			continue;
		if (e->stage) {
			if (r->worktree && r->from_index)
				refuse(&first, opts, "path '%s' is unmerged", e->path);
			continue;
		}
		if (!(err = copy_into(r->have, e)) && r->from_index)
			err = copy_into(r->want, e);
	}
	for (size_t k = 0; !err && src && k < src->nr; k++) {
		const struct wg_index_entry *e = src->entries[k];
		if (wg_pathspec_match(ps, e->path, e->path_len, seen))
			err = copy_into(r->want, e);
	}
	for (size_t k = 0; !err && k < ps->nr; k++)
		if (!seen[k])
			refuse(&first, opts, "pathspec '%s' did not match any file(s) known to git",
			       ps->items[k].original);
	if (!err && first.len)
		err = wg_error_set(WG_ENOTFOUND, "%s", wg_buf_cstr(&first));
	wg_buf_release(&first);
	wg_free(seen);
	return err;
}

/* The files of `want` over those of `have`: a forced checkout of these
 * paths alone. */
static int plan_worktree(struct wg_restore *r, const struct wg_restore_options *opts)
{
	struct wg_checkout_options co = opts->checkout;

	co.force = true;
	co.command = "checkout";
	return wg_checkout_plan_index(&r->checkout, r->repo, r->have, r->want, &co);
}

int wg_restore_begin(struct wg_restore **out, struct wg_repo *repo, const struct wg_pathspec *ps,
		     const struct wg_restore_options *opts)
{
	struct wg_restore *r;
	struct wg_index *src = NULL;
	struct wg_oid tree;
	const struct wg_oid *source = opts->source;
	int err;

	*out = NULL;
	if ((err = wg_repo_require_workdir(repo)))
		return err;
	if (!(r = wg_calloc(1, sizeof(*r))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	*out = r;
	r->repo = repo;
	r->ps = ps;
	r->staged = opts->staged;
	r->worktree = opts->worktree || !opts->staged;
	if (!source && r->staged) {
		struct wg_oid head;
		if (wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0) ||
		    wg_object_peel(&tree, repo, &head, WG_OBJ_TREE))
			return wg_error_set(WG_ENOTFOUND, "could not resolve 'HEAD'");
		source = &tree;
	}
	r->from_index = !source;
	if ((err = opts->index_path ? wg_buf_adds(&r->index_path, opts->index_path)
				    : wg_repo_index_path(&r->index_path, repo)) ||
	    (err = wg_repo_index_read(&r->index, repo, wg_buf_cstr(&r->index_path))) ||
	    (err = wg_index_new(&r->have, wg_repo_algo(repo))) ||
	    (err = wg_index_new(&r->want, wg_repo_algo(repo))))
		return err;
	if (source && ((err = wg_index_new(&src, wg_repo_algo(repo))) ||
		       (err = wg_index_read_tree(src, wg_repo_odb(repo), source)))) {
		wg_index_free(src);
		return err;
	}
	err = collect(r, src, opts);
	wg_index_free(src);
	if (!err && r->worktree)
		err = plan_worktree(r, opts);
	return err;
}

size_t wg_restore_missing(const struct wg_restore *r, const struct wg_oid **oids)
{
	if (!r->checkout) {
		*oids = NULL;
		return 0;
	}
	return wg_checkout_missing(r->checkout, oids);
}

/* --staged: the matching entries (every stage) give way to the source's,
 * with the stat data of a file just written, or of an unchanged entry. */
static int restore_entries(struct wg_restore *r, const struct wg_index *written)
{
	struct wg_index *ix = r->index;
	int err = 0;

	for (size_t k = ix->nr; k-- > 0;)
		if (wg_pathspec_match(r->ps, ix->entries[k]->path, ix->entries[k]->path_len, NULL))
			wg_index_remove_at(ix, k);
	for (size_t k = 0; !err && k < r->want->nr; k++) {
		struct wg_index_entry *e = r->want->entries[k];
		long pos = written ? wg_index_find(written, e->path, e->path_len, 0) : -1;
		long old = wg_index_find(r->have, e->path, e->path_len, 0);
		memset(&e->st, 0, sizeof(e->st));
		if (pos >= 0)
			e->st = written->entries[pos]->st;
		else if (old >= 0 && r->have->entries[old]->mode == e->mode &&
			 wg_oid_equal(&r->have->entries[old]->oid, &e->oid))
			e->st = r->have->entries[old]->st;
		err = copy_into(ix, e);
	}
	return err;
}

int wg_restore_finish(struct wg_restore *r)
{
	struct wg_index *written = NULL;
	int err = 0;

	if (r->worktree && (err = wg_checkout_run(r->checkout, &written)))
		return err;
	if (r->staged) {
		err = restore_entries(r, written);
	} else if (r->from_index && written) {
		/* files written from the index: their entries get the new stat data */
		for (size_t k = 0; k < written->nr; k++) {
			const struct wg_index_entry *w = written->entries[k];
			long pos = wg_index_find(r->index, w->path, w->path_len, 0);
			if (pos >= 0 && r->index->entries[pos]->mode == w->mode &&
			    wg_oid_equal(&r->index->entries[pos]->oid, &w->oid))
				r->index->entries[pos]->st = w->st;
		}
	}
	if (!err && (r->staged || r->from_index))
		err = wg_index_write(r->index, wg_buf_cstr(&r->index_path));
	wg_index_free(written);
	return err;
}

void wg_restore_free(struct wg_restore *r)
{
	if (!r)
		return;
	wg_checkout_free(r->checkout);
	wg_index_free(r->index);
	wg_index_free(r->have);
	wg_index_free(r->want);
	wg_buf_release(&r->index_path);
	wg_free(r);
}
