/* Revision diffs (rev_diff.h), the steps of git diff <from> <to>. */
#include <string.h>

#include "diff/abbrev_len.h"
#include "diff/rev_diff.h"
#include "hash/oidmap.h"
#include "odb/commit_queue.h"
#include "repo/shallow.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

#define GITLINK_MODE 0160000

bool wg_diff_path_in(const char *const *paths, size_t n, const char *path)
{
	if (!n)
		return true;
	for (size_t k = 0; k < n; k++) {
		const char *p = paths[k];
		size_t len = strlen(p);
		while (len && p[len - 1] == '/')
			len--;
		if (!len || (!strncmp(path, p, len) && (path[len] == '\0' || path[len] == '/')))
			return true;
	}
	return false;
}

/* Whether commit is a shallow clone's boundary, listed in the shallow
 * file: git takes its parents as absent then, so git show diffs it
 * against the empty tree. */
static int is_shallow(bool *out, struct wg_repo *repo, const struct wg_oid *commit)
{
	struct wg_oidmap shallow = WG_OIDMAP_INIT;
	int err = wg_repo_shallow_read(repo, &shallow);

	*out = !err && wg_oidmap_get(&shallow, commit);
	wg_oidmap_release(&shallow);
	return err;
}

/* to's tree and, without `from`, its first parent's (none: empty) */
/* a revision's tree; the empty tree's id names it even where no
 * repository stores it, as in git */
static int peel_tree(struct wg_oid *out, bool *empty, struct wg_repo *repo, const struct wg_oid *oid)
{
	struct wg_oid e;
	wg_oid_empty_tree(&e, wg_repo_algo(repo));
	*empty = wg_oid_equal(oid, &e);
	if (*empty) {
		*out = e;
		return 0;
	}
	return wg_object_peel(out, repo, oid, WG_OBJ_TREE);
}

static int resolve(struct wg_rev_diff *d, struct wg_repo *repo, const char *from, const char *to)
{
	struct wg_oid oid, commit;
	int err;

	if ((err = wg_revparse(&oid, repo, to)))
		return err;
	if (from) {
		struct wg_oid f;
		if ((err = wg_revparse(&f, repo, from)) ||
		    (err = peel_tree(&d->from_tree, &d->from_empty, repo, &f)))
			return err;
		return peel_tree(&d->to_tree, &d->to_empty, repo, &oid);
	}
	if (wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT)) {
		wg_error_clear();
		return wg_error_set(WG_EINVALID, "'%s' is not a commit: give the revision to diff it against",
				    to);
	}
	struct wg_commit c;
	struct wg_buf buf = WG_BUF_INIT;
	bool found;
	err = wg_commit_read(wg_repo_odb(repo), &commit, &c, &buf, &found);
	if (!err && !found)
		err = wg_error_set(WG_ENOTFOUND, "commit %s not found", wg_oid_hex(&commit));
	if (!err) {
		bool shallow = false;
		d->to_tree = c.tree;
		if (c.nparents)
			err = is_shallow(&shallow, repo, &commit);
		d->from_empty = c.nparents == 0 || shallow;
		if (!err && !d->from_empty)
			err = wg_object_peel(&d->from_tree, repo, &c.parents[0], WG_OBJ_TREE);
	}
	wg_commit_release(&c);
	wg_buf_release(&buf);
	return err;
}

static void setup(struct wg_rev_diff *d, struct wg_repo *repo, const struct wg_rev_diff_options *opts)
{
	struct wg_patch_options po = WG_PATCH_OPTIONS_INIT;

	memset(d, 0, sizeof(*d));
	d->patch = po;
	d->patch.hunks = opts->hunks;
	d->patch.lines.algorithm = opts->algorithm;
	d->patch.abbrev = wg_default_abbrev_len(repo);
	d->renames = opts->renames;
	d->copies = opts->renames ? opts->copies : WG_COPIES_NONE;
}

void wg_rev_diff_begin_changes(struct wg_rev_diff *d, struct wg_repo *repo,
			       struct wg_diff_changes *changes, const struct wg_rev_diff_options *opts)
{
	setup(d, repo, opts);
	/* the unchanged files are not listed: -C -C looks among the changed */
	if (d->copies == WG_COPIES_HARDER)
		d->copies = WG_COPIES_MODIFIED;
	d->changes = *changes;
	memset(changes, 0, sizeof(*changes));
}

/* the tree diff between the sides d holds, kept to opts' paths */
static int diff_sides(struct wg_rev_diff *d, struct wg_repo *repo,
		      const struct wg_rev_diff_options *opts)
{
	struct wg_tree_diff_options tdo = { 0 };
	size_t w = 0;
	int err;

	/* -C -C: the unchanged files are sources too */
	tdo.unmodified = d->copies == WG_COPIES_HARDER;
	if ((err = wg_diff_trees(&d->changes, wg_repo_odb(repo), d->from_empty ? NULL : &d->from_tree,
				 d->to_empty ? NULL : &d->to_tree, &tdo)))
		return err;
	for (size_t i = 0; i < d->changes.n; i++) {
		struct wg_diff_change *c = &d->changes.v[i];
		if (wg_diff_path_in(opts->paths, opts->npaths, c->path)) {
			d->changes.v[w++] = *c;
		} else {
			wg_free(c->path);
			wg_free(c->from);
		}
	}
	d->changes.n = w;
	return 0;
}

int wg_rev_diff_begin(struct wg_rev_diff *d, struct wg_repo *repo, const char *from,
		      const char *to, const struct wg_rev_diff_options *opts)
{
	int err;

	setup(d, repo, opts);
	if ((err = resolve(d, repo, from, to)))
		return err;
	return diff_sides(d, repo, opts);
}

int wg_rev_diff_begin_trees(struct wg_rev_diff *d, struct wg_repo *repo,
			    const struct wg_oid *from_tree, const struct wg_oid *to_tree,
			    const struct wg_rev_diff_options *opts)
{
	struct wg_oid e;

	setup(d, repo, opts);
	/* the empty tree's id names it even where no repository stores it */
	wg_oid_empty_tree(&e, wg_repo_algo(repo));
	d->from_empty = !from_tree || wg_oid_equal(from_tree, &e);
	d->to_empty = !to_tree || wg_oid_equal(to_tree, &e);
	if (!d->from_empty)
		d->from_tree = *from_tree;
	if (!d->to_empty)
		d->to_tree = *to_tree;
	return diff_sides(d, repo, opts);
}

static int add_missing(struct wg_oidmap *seen, struct wg_oid **v, size_t *n, size_t *alloc,
		       struct wg_odb *odb, unsigned mode, const struct wg_oid *oid)
{
	unsigned old;
	int err, have;
	if (!mode || mode == GITLINK_MODE)
		return 0;
	if ((err = wg_oidmap_set(seen, oid, 1, &old)) || old)
		return err;
	if ((have = wg_odb_exists(odb, oid)) != 0)
		return have < 0 ? have : 0;
	if (*n == *alloc) {
		size_t grow = *alloc ? *alloc * 2 : 16;
		struct wg_oid *nv = wg_realloc(*v, grow * sizeof(**v));
		if (!nv)
			return wg_error_set(WG_ENOMEM, "out of memory");
		*v = nv;
		*alloc = grow;
	}
	(*v)[(*n)++] = *oid;
	return 0;
}

int wg_rev_diff_missing(struct wg_rev_diff *d, struct wg_odb *odb, struct wg_oid **out,
			size_t *n)
{
	struct wg_oidmap seen;
	size_t alloc = 0;
	int err = 0;

	memset(&seen, 0, sizeof(seen));
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < d->changes.n && !err; i++) {
		const struct wg_diff_change *c = &d->changes.v[i];
		if (!(err = add_missing(&seen, out, n, &alloc, odb, c->old_mode, &c->old_oid)))
			err = add_missing(&seen, out, n, &alloc, odb, c->new_mode, &c->new_oid);
	}
	wg_oidmap_release(&seen);
	if (err) {
		wg_free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

int wg_rev_diff_renames(struct wg_rev_diff *d, struct wg_repo *repo)
{
	struct wg_rename_options ro = WG_RENAME_OPTIONS_INIT;
	bool on = true;
	int limit = 1000, err;

	if (d->renames_done || !d->renames)
		return 0;
	if ((err = wg_diff_rename_config(repo, NULL, &on, &limit)))
		return err;
	ro.limit = limit;
	ro.copies = d->copies;
	if ((err = wg_diff_find_renames(&d->changes, 0, wg_repo_odb(repo), &ro)))
		return err;
	d->renames_done = true;
	return 0;
}

static int read_side(struct wg_buf *out, struct wg_odb *odb, unsigned mode,
		     const struct wg_oid *oid)
{
	enum wg_object_type type;

	wg_buf_reset(out);
	if (!mode)
		return 0;
	if (mode == GITLINK_MODE)
		return wg_buf_printf(out, "Subproject commit %s\n", wg_oid_hex(oid));
	int err = wg_odb_read(odb, oid, &type, out);
	if (err)
		return err;
	if (type != WG_OBJ_BLOB)
		return wg_error_set(WG_ECORRUPT, "%s is a %s, not a blob", wg_oid_hex(oid),
				    wg_object_type_name(type));
	return 0;
}

int wg_rev_diff_load(struct wg_diff_file *f, struct wg_buf *a, struct wg_buf *b,
		     struct wg_odb *odb, const struct wg_diff_change *c)
{
	int err;
	memset(f, 0, sizeof(*f));
	if ((err = read_side(a, odb, c->old_mode, &c->old_oid)) ||
	    (err = read_side(b, odb, c->new_mode, &c->new_oid)))
		return err;
	f->status = c->status;
	f->old_path = c->from ? c->from : c->path;
	f->new_path = c->path;
	f->old_mode = c->old_mode;
	f->new_mode = c->new_mode;
	f->old_oid = c->old_oid;
	f->new_oid = c->new_oid;
	f->score = c->score;
	f->old_data = (const char *)a->data;
	f->old_len = a->len;
	f->new_data = (const char *)b->data;
	f->new_len = b->len;
	return 0;
}

void wg_rev_diff_release(struct wg_rev_diff *d)
{
	wg_diff_changes_release(&d->changes);
}
