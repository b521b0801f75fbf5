/* Tree diffs (see tree_diff.h). */
#include "diff/tree_diff.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "object/object.h"
#include "object/tree.h"
#include "repo/config.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/limits.h"
#include "util/pathspec.h"

struct walker {
	struct wg_odb *odb;
	struct wg_diff_changes *out;
	struct wg_buf path;
	uint32_t max_depth;
	const struct wg_pathspec *paths;
	bool quick;
	bool unmodified;     /* list unchanged files too ('=') */
	size_t first;        /* out->n when the walk began */
};

/* What a quick walk returns internally once it has found its change. */
#define FOUND_ONE 1

static bool is_tree(unsigned mode)
{
	return wg_tree_mode_type(mode) == WG_OBJ_TREE;
}

int wg_diff_changes_add(struct wg_diff_changes *c, char status, const char *path,
			unsigned old_mode, const struct wg_oid *old_oid, unsigned new_mode,
			const struct wg_oid *new_oid)
{
	struct wg_diff_change *ch;

	if (c->n == c->alloc) {
		size_t alloc = c->alloc ? c->alloc * 2 : 16;
		struct wg_diff_change *v = wg_realloc(c->v, alloc * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		c->v = v;
		c->alloc = alloc;
	}
	ch = &c->v[c->n];
	memset(ch, 0, sizeof(*ch));
	if (!(ch->path = wg_strdup(path)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	c->n++;
	ch->status = status;
	ch->old_mode = old_mode;
	ch->new_mode = new_mode;
	if (old_oid)
		ch->old_oid = *old_oid;
	if (new_oid)
		ch->new_oid = *new_oid;
	return 0;
}

static int add_change(struct walker *w, char status, const struct wg_tree_entry *old,
		      const struct wg_tree_entry *nw)
{
	return wg_diff_changes_add(w->out, status, wg_buf_cstr(&w->path), old ? old->mode : 0,
				   old ? &old->oid : NULL, nw ? nw->mode : 0,
				   nw ? &nw->oid : NULL);
}

/* One tree's bytes, or none for an absent side. */
static int read_tree(struct wg_buf *out, struct wg_odb *odb, const struct wg_oid *oid)
{
	enum wg_object_type type;
	int err;

	if (!oid)
		return 0;
	if ((err = wg_odb_read(odb, oid, &type, out)))
		return err;
	if (type != WG_OBJ_TREE)
		return wg_error_set(WG_ECORRUPT, "object %s is not a tree", wg_oid_hex(oid));
	return 0;
}

/* git's base_name_compare: tree order, a tree's name compared as if it
 * ended in '/'. */
static int entry_cmp(const struct wg_tree_entry *a, const struct wg_tree_entry *b)
{
	size_t len = a->namelen < b->namelen ? a->namelen : b->namelen;
	int c = memcmp(a->name, b->name, len);
	unsigned char ca, cb;

	if (c)
		return c;
	ca = len < a->namelen ? (unsigned char)a->name[len] : is_tree(a->mode) ? '/' : 0;
	cb = len < b->namelen ? (unsigned char)b->name[len] : is_tree(b->mode) ? '/' : 0;
	return ca < cb ? -1 : ca > cb;
}

static int walk(struct walker *w, const struct wg_oid *old, const struct wg_oid *nw,
		unsigned depth);

/* One side's entry alone (the other NULL), or both under one name. */
static int one(struct walker *w, const struct wg_tree_entry *a, const struct wg_tree_entry *b,
	       unsigned depth)
{
	const struct wg_tree_entry *e = a ? a : b;
	size_t base = w->path.len;
	int err;

	if ((err = wg_buf_add(&w->path, e->name, e->namelen)))
		return err;
	if (w->paths && w->paths->nr) {
		/* (a and b are both trees or both not: tree order sorts a
		 * tree as its name with '/') */
		if (!(is_tree(e->mode) ? wg_pathspec_may_match_below(w->paths, (const char *)w->path.data, w->path.len)
				       : wg_pathspec_match(w->paths, (const char *)w->path.data, w->path.len, NULL))) {
			wg_buf_setlen(&w->path, base);
			return 0;
		}
	}
	if (is_tree(e->mode)) {
		if ((!a || !b || !wg_oid_equal(&a->oid, &b->oid) || w->unmodified) &&
		    !(err = wg_buf_addch(&w->path, '/')))
			err = walk(w, a ? &a->oid : NULL, b ? &b->oid : NULL, depth + 1);
	} else if (!a) {
		err = add_change(w, 'A', NULL, b);
	} else if (!b) {
		err = add_change(w, 'D', a, NULL);
	} else if (a->mode != b->mode || !wg_oid_equal(&a->oid, &b->oid)) {
		bool type = (a->mode ^ b->mode) & WG_MODE_TYPE_MASK;
		err = add_change(w, type ? 'T' : 'M', a, b);
	} else if (w->unmodified) {
		err = add_change(w, '=', a, b);
	}
	if (!err && w->quick && w->out->n > w->first)
		err = FOUND_ONE;
	wg_buf_setlen(&w->path, base);
	return err;
}

static int walk(struct walker *w, const struct wg_oid *old, const struct wg_oid *nw,
		unsigned depth)
{
	struct wg_buf da = WG_BUF_INIT, db = WG_BUF_INIT;
	struct wg_tree_iter ia, ib;
	struct wg_tree_entry ea, eb;
	bool have_a, have_b;
	int err, ra = WG_ITEROVER, rb = WG_ITEROVER;

	if (w->max_depth && depth > w->max_depth)
		return wg_error_set(WG_ELIMIT, "tree %s is nested deeper than %u trees",
				    wg_oid_hex(old ? old : nw), w->max_depth);
	if ((err = read_tree(&da, w->odb, old)) || (err = read_tree(&db, w->odb, nw)))
		goto out;
	if (old) {
		wg_tree_iter_init(&ia, wg_oid_algo(old), da.data, da.len);
		ra = wg_tree_iter_next(&ia, &ea);
	}
	if (nw) {
		wg_tree_iter_init(&ib, wg_oid_algo(nw), db.data, db.len);
		rb = wg_tree_iter_next(&ib, &eb);
	}
	for (;;) {
		if ((ra && ra != WG_ITEROVER) || (rb && rb != WG_ITEROVER)) {
			err = ra && ra != WG_ITEROVER ? ra : rb;
			break;
		}
		have_a = !ra;
		have_b = !rb;
		if (!have_a && !have_b)
			break;
		if (have_a && have_b) {
			int c = entry_cmp(&ea, &eb);
			if ((err = one(w, c <= 0 ? &ea : NULL, c >= 0 ? &eb : NULL, depth)))
				break;
			if (c <= 0)
				ra = wg_tree_iter_next(&ia, &ea);
			if (c >= 0)
				rb = wg_tree_iter_next(&ib, &eb);
		} else if (have_a) {
			if ((err = one(w, &ea, NULL, depth)))
				break;
			ra = wg_tree_iter_next(&ia, &ea);
		} else {
			if ((err = one(w, NULL, &eb, depth)))
				break;
			rb = wg_tree_iter_next(&ib, &eb);
		}
	}
out:
	wg_buf_release(&da);
	wg_buf_release(&db);
	return err;
}

/* Fold each deletion paired with an addition into the addition: 'R' or
 * 'C', the old path, mode and id; a deletion renamed goes, and so do the
 * unchanged files (-C -C's extra sources). */
int wg_diff_find_renames(struct wg_diff_changes *c, size_t first, struct wg_odb *odb,
			 const struct wg_rename_options *ro)
{
	struct wg_rename_run run;
	enum wg_copies copies = ro ? ro->copies : WG_COPIES_NONE;
	int err;

	if ((err = wg_rename_run_init(&run, c->n - first)))
		return err;
	for (size_t i = first; i < c->n; i++) {
		const struct wg_diff_change *ch = &c->v[i];
		enum wg_rename_kept kept;
		if (ch->status == 'A') {
			wg_rename_run_add_dst(&run, (struct wg_rename_file){ ch->path, ch->new_mode,
									     ch->new_oid, WG_RENAME_GONE }, i);
			continue;
		}
		if (ch->status == 'D')
			kept = WG_RENAME_GONE;
		else if ((ch->status == 'M' || ch->status == 'T') && copies)
			kept = WG_RENAME_MODIFIED;
		else if (ch->status == '=' && copies == WG_COPIES_HARDER)
			kept = WG_RENAME_UNMODIFIED;
		else
			continue;
		wg_rename_run_add_src(&run, (struct wg_rename_file){ ch->path, ch->old_mode,
								     ch->old_oid, kept }, i);
	}
	if ((err = wg_rename_run_detect(&run, odb, ro)))
		goto out;
	c->rename_limit_needed = run.result.needed;
	c->copies_degraded = run.result.degraded;
	for (size_t d = 0; d < run.ndst; d++) {
		struct wg_diff_change *to = &c->v[run.dst_at[d]], *from;
		if (run.src_of[d] < 0)
			continue;
		from = &c->v[run.src_at[run.src_of[d]]];
		if (!(to->from = wg_strdup(from->path))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		}
		to->status = run.is_copy[d] ? 'C' : 'R';
		to->old_mode = from->old_mode;
		to->old_oid = from->old_oid;
		to->score = run.score[d];
	}
	/* a renamed deletion goes: its last use was the rename */
	for (size_t d = 0; d < run.ndst; d++)
		if (run.src_of[d] >= 0 && !run.is_copy[d])
			c->v[run.src_at[run.src_of[d]]].status = 0;
out:
	{
		size_t wpos = first;
		for (size_t i = first; i < c->n; i++) {
			if (c->v[i].status && c->v[i].status != '=') {
				c->v[wpos++] = c->v[i];
			} else {
				wg_free(c->v[i].path);
				wg_free(c->v[i].from);
			}
		}
		c->n = wpos;
	}
	wg_rename_run_release(&run);
	return err;
}

int wg_diff_trees(struct wg_diff_changes *out, struct wg_odb *odb, const struct wg_oid *old_tree,
		  const struct wg_oid *new_tree, const struct wg_tree_diff_options *opts)
{
	const struct wg_limits *lim = wg_odb_limits(odb);
	struct walker w = { odb, out, WG_BUF_INIT, lim ? lim->max_tree_depth : 0,
			    opts ? opts->paths : NULL, opts && opts->quick, false, out->n };
	size_t first = out->n;
	int err;

	if (old_tree && new_tree && wg_oid_equal(old_tree, new_tree))
		return 0;
	w.unmodified = opts && !opts->quick &&
		       (opts->unmodified ||
			(opts->renames && opts->rename.copies == WG_COPIES_HARDER));
	err = walk(&w, old_tree, new_tree, 1);
	wg_buf_release(&w.path);
	if (err == FOUND_ONE)
		return 0;
	if (!err && opts && opts->renames)
		err = wg_diff_find_renames(out, first, odb, &opts->rename);
	return err;
}

void wg_diff_changes_release(struct wg_diff_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		wg_free(c->v[i].path);
		wg_free(c->v[i].from);
	}
	wg_free(c->v);
	memset(c, 0, sizeof(*c));
}

int wg_diff_rename_config(struct wg_repo *repo, const char *section, bool *on, int *limit)
{
	bool copies;
	return wg_diff_copies_config(repo, section, on, &copies, limit);
}

int wg_diff_copies_config(struct wg_repo *repo, const char *section, bool *on, bool *copies,
			  int *limit)
{
	struct wg_config *cfg = wg_repo_config(repo);
	struct wg_buf key = WG_BUF_INIT;
	const char *v = NULL;
	int64_t n;
	bool found = false;
	int err = 0;

	*on = true;
	*copies = false;
	*limit = 1000;
	if (section && !wg_buf_printf(&key, "%s.renames", section) &&
	    !wg_config_get_string(cfg, wg_buf_cstr(&key), &v) && v)
		found = true;
	if (!found) {
		v = NULL;
		wg_config_get_string(cfg, "diff.renames", &v);
	}
	if (v) {
		if (!strcasecmp(v, "copies") || !strcasecmp(v, "copy"))
			*on = *copies = true;
		else
			err = wg_config_bool_value("diff.renames", v, on);
	}
	wg_error_clear();
	wg_buf_reset(&key);
	if (!err && ((section && !wg_buf_printf(&key, "%s.renamelimit", section) &&
		      !wg_config_get_int64(cfg, wg_buf_cstr(&key), &n)) ||
		     !wg_config_get_int64(cfg, "diff.renamelimit", &n)))
		*limit = n > INT32_MAX ? INT32_MAX : (int)n;
	if (!err)
		wg_error_clear();
	wg_buf_release(&key);
	return err;
}
