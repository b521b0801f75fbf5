#include "history/blame_missing.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "diff/rename.h"
#include "diff/tree_diff.h"
#include "hash/oidmap.h"
#include "object/tree.h"
#include "odb/commit_queue.h"
#include "repo/revparse.h"
#include "repo/shallow.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

/* A (commit, path) the walk reaches: the file's version there is read,
 * and its parents are looked at. */
struct visit {
	struct wg_oid commit;
	char *path;
	size_t next_same;       /* the next visit of this commit + 1, 0: none */
};

struct plan {
	struct wg_repo *repo;
	struct wg_odb *odb;
	struct wg_oidmap shallow;
	struct wg_oidmap first;     /* commit -> its first visit + 1 */
	struct visit *v;            /* also the queue: handled in order */
	size_t nv, av;
	struct wg_oidmap listed;    /* blobs looked at once */
	struct wg_oid *out;
	size_t n, alloc;
	struct wg_buf scratch;
};

/* Visit (commit, path) unless it was. */
static int visit_add(struct plan *p, const struct wg_oid *commit, const char *path)
{
	unsigned at = wg_oidmap_get(&p->first, commit);
	size_t last = 0;
	int err;

	for (size_t i = at; i; i = p->v[i - 1].next_same) {
		if (!strcmp(p->v[i - 1].path, path))
			return 0;
		last = i;
	}
	if (p->nv >= UINT_MAX - 1)
		return wg_error_set(WG_ELIMIT, "blame: too many commits");
	if (p->nv == p->av) {
		size_t alloc = p->av ? 2 * p->av : 64;
		struct visit *nv = wg_realloc(p->v, alloc * sizeof(*nv));
		if (!nv)
			return wg_error_set(WG_ENOMEM, "out of memory");
		p->v = nv;
		p->av = alloc;
	}
	p->v[p->nv] = (struct visit){ *commit, wg_strdup(path), 0 };
	if (!p->v[p->nv].path)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (last)
		p->v[last - 1].next_same = p->nv + 1;
	else if ((err = wg_oidmap_set(&p->first, commit, (unsigned)p->nv + 1, NULL))) {
		wg_free(p->v[p->nv].path);
		return err;
	}
	p->nv++;
	return 0;
}

/* List the blob if the repository lacks it; *absent says whether it does
 * (also when it was listed before). */
static int want(struct plan *p, unsigned mode, const struct wg_oid *oid, bool *absent)
{
	unsigned old;
	int have, err;

	*absent = false;
	if (wg_tree_mode_type(mode) != WG_OBJ_BLOB)
		return 0;
	if ((err = wg_oidmap_set(&p->listed, oid, 1, &old)))
		return err;
	if (old) {
		*absent = old & 2;
		return 0;
	}
	if ((have = wg_odb_exists(p->odb, oid)) != 0)
		return have < 0 ? have : 0;
	if ((err = wg_oidmap_set(&p->listed, oid, 2, NULL)))
		return err;
	if (p->n == p->alloc) {
		size_t alloc = p->alloc ? 2 * p->alloc : 16;
		struct wg_oid *nv = wg_realloc(p->out, alloc * sizeof(*nv));
		if (!nv)
			return wg_error_set(WG_ENOMEM, "out of memory");
		p->out = nv;
		p->alloc = alloc;
	}
	p->out[p->n++] = *oid;
	*absent = true;
	return 0;
}

/* The entry at `path` in `tree`; *found false when there is none (a
 * missing directory on the way reads as none, as blame takes it). */
static int lookup(struct plan *p, const struct wg_oid *tree, const char *path, struct wg_oid *blob,
		  unsigned *mode, bool *found)
{
	int err = wg_tree_lookup_path(blob, mode, p->repo, tree, path);

	*found = !err;
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	return err;
}

static bool same_kind(unsigned a, unsigned b)
{
	return (a & WG_MODE_TYPE_MASK) == (b & WG_MODE_TYPE_MASK);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The source with dst's very blob that rename detection pairs first: one
 * with the same basename, else the first (-1: none). */
static int exact_source(const struct wg_rename_file *src, size_t nsrc,
			const struct wg_rename_file *dst)
{
	int first = -1;

	for (size_t i = 0; i < nsrc; i++) {
		if (!wg_oid_equal(&src[i].oid, &dst->oid) || !same_kind(src[i].mode, dst->mode))
			continue;
		if (!strcmp(base_name(src[i].path), base_name(dst->path)))
			return (int)i;
		if (first < 0)
			first = (int)i;
	}
	return first;
}

/* The parent lacks `path`, which the commit added: the parent's deleted
 * files are the rename candidates. Lists the blobs detection compares;
 * once they are all there, visits the parent at the source's path. */
static int rename_point(struct plan *p, const struct wg_oid *ptree, const struct wg_oid *parent,
			const struct wg_oid *ctree, const char *path)
{
	struct wg_diff_changes changes = { 0 };
	struct wg_tree_diff_options topts = { .renames = false, .rename = WG_RENAME_OPTIONS_INIT };
	struct wg_rename_options ropts = WG_RENAME_OPTIONS_INIT;
	struct wg_rename_file *src = NULL, dst = { 0 };
	size_t nsrc = 0;
	int src_of = -1, score = 0, err;
	bool limited = false, have_dst = false, absent, any_absent = false;

	if ((err = wg_diff_trees(&changes, p->odb, ptree, ctree, &topts)))
		goto out;
	if (changes.n && !(src = wg_calloc(changes.n, sizeof(*src)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < changes.n && !err; i++) {
		struct wg_diff_change *c = &changes.v[i];
		if (c->status == 'D') {
			src[nsrc++] = (struct wg_rename_file){ .path = c->path, .mode = c->old_mode, .oid = c->old_oid };
			err = want(p, c->old_mode, &c->old_oid, &absent);
			any_absent |= absent;
		} else if (c->status == 'A' && !strcmp(c->path, path)) {
			dst = (struct wg_rename_file){ .path = c->path, .mode = c->new_mode, .oid = c->new_oid };
			have_dst = true;
		}
	}
	if (err || !have_dst || !nsrc)
		goto out;
	/* the added file is this visit's version, listed already if absent */
	if ((err = want(p, dst.mode, &dst.oid, &absent)))
		goto out;
	if (any_absent || absent) {
		/* an exact rename needs no contents: follow it now */
		if ((src_of = exact_source(src, nsrc, &dst)) >= 0)
			err = visit_add(p, parent, src[src_of].path);
		goto out;
	}
	if ((err = wg_detect_renames(p->odb, src, nsrc, &dst, 1, &ropts, &src_of, &score,
				     &limited)))
		goto out;
	if (src_of >= 0)
		err = visit_add(p, parent, src[src_of].path);
out:
	wg_free(src);
	wg_diff_changes_release(&changes);
	return err;
}

/* Read the commit; *found false for one the clone does not have. */
static int commit_get(struct plan *p, const struct wg_oid *oid, struct wg_commit *c, bool *found)
{
	return wg_commit_read(p->odb, oid, c, &p->scratch, found);
}

/* One visit: the file's version here, then its parents. */
static int visit_run(struct plan *p, size_t at)
{
	struct wg_oid commit = p->v[at].commit, blob, pblob;
	const char *path = p->v[at].path;
	struct wg_commit c, pc;
	unsigned mode, pmode;
	bool found, absent, *has = NULL;
	size_t i;
	int err;

	wg_commit_init(&pc);
	if ((err = commit_get(p, &commit, &c, &found)) || !found)
		goto out;
	if ((err = lookup(p, &c.tree, path, &blob, &mode, &found)) || !found ||
	    wg_tree_mode_type(mode) != WG_OBJ_BLOB)
		goto out;
	if ((err = want(p, mode, &blob, &absent)) || wg_oidmap_get(&p->shallow, &commit) ||
	    !c.nparents)
		goto out;
	if (!(has = wg_calloc(c.nparents, sizeof(*has)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	/* the same path first; the first parent with the very same blob takes
	 * everything, so only it is followed */
	for (i = 0; i < c.nparents; i++) {
		wg_commit_release(&pc);
		if ((err = commit_get(p, &c.parents[i], &pc, &found)))
			goto out;
		if (!found)
			continue;
		if ((err = lookup(p, &pc.tree, path, &pblob, &pmode, &has[i])))
			goto out;
		if (has[i] && !same_kind(pmode, mode))
			has[i] = false;
		if (has[i] && wg_oid_equal(&pblob, &blob)) {
			err = visit_add(p, &c.parents[i], path);
			goto out;
		}
	}
	for (i = 0; i < c.nparents && !err; i++) {
		wg_commit_release(&pc);
		if ((err = commit_get(p, &c.parents[i], &pc, &found)) || !found)
			continue;
		err = has[i] ? visit_add(p, &c.parents[i], path)
			     : rename_point(p, &pc.tree, &c.parents[i], &c.tree, path);
	}
out:
	wg_free(has);
	wg_commit_release(&pc);
	wg_commit_release(&c);
	return err;
}

int wg_blame_missing(struct wg_oid **out, size_t *n, struct wg_repo *repo,
		     const struct wg_oid *commit, const char *path)
{
	struct plan p;
	int err;

	memset(&p, 0, sizeof(p));
	p.repo = repo;
	p.odb = wg_repo_odb(repo);
	*out = NULL;
	*n = 0;
	if (!(err = wg_repo_shallow_read(repo, &p.shallow)) && !(err = visit_add(&p, commit, path)))
		for (size_t i = 0; i < p.nv && !err; i++)
			err = visit_run(&p, i);
	for (size_t i = 0; i < p.nv; i++)
		wg_free(p.v[i].path);
	wg_free(p.v);
	wg_oidmap_release(&p.shallow);
	wg_oidmap_release(&p.first);
	wg_oidmap_release(&p.listed);
	wg_buf_release(&p.scratch);
	if (err) {
		wg_free(p.out);
		return err;
	}
	*out = p.out;
	*n = p.n;
	return 0;
}
