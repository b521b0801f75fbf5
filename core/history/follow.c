/* log --follow's diff and source search (see follow.h), the steps of
 * git's diff_tree_oid, try_to_follow_renames and diffcore_rename with
 * -C -C and a single destination. */
#include "history/follow.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff/rename.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/sort.h"

#define EXACT_CANDIDATES 100   /* git's find_identical_files gives up after these */
#define INEXACT_CANDIDATES 4   /* git's NUM_CANDIDATE_PER_DST */

static bool is_regular(unsigned mode)
{
	return (mode & 0170000) == 0100000;
}

int wg_follow_init(struct wg_follow *f, const char *path, int min_score, int limit)
{
	memset(f, 0, sizeof(*f));
	f->min_score = min_score > 0 ? min_score : WG_RENAME_DEFAULT_SCORE;
	f->limit = limit;
	return wg_pathspec_init(&f->path, "", &path, 1);
}

void wg_follow_release(struct wg_follow *f)
{
	wg_pathspec_release(&f->path);
	wg_free(f->missing);
	f->missing = NULL;
	f->nmissing = 0;
}

const struct wg_oid *wg_follow_missing(const struct wg_follow *f, size_t *n)
{
	*n = f->nmissing;
	return f->missing;
}

/* Which of the files the search will read does odb lack? */
static int note_missing(struct wg_follow *f, struct wg_odb *odb, const struct wg_rename_file *dst,
			const struct wg_rename_file *files, size_t n)
{
	struct wg_oid *v = wg_calloc(n + 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t i = 0; i <= n; i++) {
		const struct wg_rename_file *file = i < n ? &files[i] : dst;
		int r;
		if (!is_regular(file->mode))
			continue;
		if ((r = wg_odb_exists(odb, &file->oid)) < 0) {
			wg_free(v);
			return r;
		}
		if (!r) {
			bool seen = false;
			for (size_t j = 0; j < k && !seen; j++)
				seen = wg_oid_equal(&v[j], &file->oid);
			if (!seen)
				v[k++] = file->oid;
		}
	}
	wg_free(f->missing);
	f->missing = v;
	f->nmissing = k;
	return 0;
}

const char *wg_follow_path(const struct wg_follow *f)
{
	return f->path.nr ? f->path.items[0].match : "";
}

/* From now on, follow `path` taken literally (no glob). */
static int switch_path(struct wg_follow *f, const char *path)
{
	struct wg_pathspec_item *it = wg_calloc(1, sizeof(*it));
	char *m = wg_strdup(path);

	if (!it || !m) {
		wg_free(it);
		wg_free(m);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	wg_pathspec_release(&f->path);
	it->match = m;
	it->len = strlen(m);
	it->nowildcard = it->len;
	it->original = m;
	f->path.items = it;
	f->path.nr = 1;
	return 0;
}

static bool same_basename(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	return !strcmp(sa ? sa + 1 : a, sb ? sb + 1 : b);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One source: a file of the parent's tree. */
struct source {
	struct wg_rename_file file;
	bool deleted;          /* not in the commit's tree: a rename, not a copy */
	bool unchanged;        /* the same in the commit's tree */
};

struct candidate {
	int src;               /* -1: an empty slot */
	int score, name_score;
};

/* git's score_compare: empty slots last, higher scores, then the same
 * basename first. */
static int candidate_cmp(const struct candidate *a, const struct candidate *b)
{
	if (a->src < 0)
		return b->src >= 0;
	if (b->src < 0)
		return -1;
	if (a->score == b->score)
		return b->name_score - a->name_score;
	return b->score - a->score;
}

/* git's find_identical_files for one destination. */
static int exact_source(const struct source *s, size_t n, const struct wg_rename_file *dst)
{
	int best = -1, best_score = -1, left = EXACT_CANDIDATES;

	for (size_t i = 0; i < n; i++) {
		int score;
		if (!wg_oid_equal(&s[i].file.oid, &dst->oid))
			continue;
		if ((!is_regular(s[i].file.mode) || !is_regular(dst->mode)) &&
		    s[i].file.mode != dst->mode)
			continue;
		/* a source not used yet (deleted) scores higher */
		score = s[i].deleted + same_basename(s[i].file.path, dst->path);
		if (score > best_score) {
			best = (int)i;
			best_score = score;
			if (score == 2)
				break;
		}
		if (!--left)
			break;
	}
	return best;
}

/* The inexact matrix for one destination (git's record_if_better over
 * every source, the stable sort, then find_renames without and with
 * copies). skip_unchanged: git's degraded_cc_to_c. */
static int inexact_source(struct wg_follow *f, struct wg_odb *odb, const struct source *s, size_t n,
			  const struct wg_rename_file *dst, int min_score, bool skip_unchanged,
			  int *best_out, int *score_out)
{
	struct candidate m[INEXACT_CANDIDATES];
	struct wg_rename_file *files = wg_calloc(n ? n : 1, sizeof(*files));
	size_t *at = wg_calloc(n ? n : 1, sizeof(*at));
	int *scores = wg_calloc(n ? n : 1, sizeof(*scores));
	size_t nf = 0;
	int err, best = -1;

	if (!files || !at || !scores) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (skip_unchanged && s[i].unchanged)
			continue;
		at[nf] = i;
		files[nf++] = s[i].file;
	}
	if ((err = note_missing(f, odb, dst, files, nf)) ||
	    (err = wg_rename_similarities(odb, dst, files, nf, min_score, scores)))
		goto out;
	for (int k = 0; k < INEXACT_CANDIDATES; k++)
		m[k].src = -1;
	for (size_t j = 0; j < nf; j++) {
		struct candidate c = { (int)at[j], scores[j],
				       same_basename(files[j].path, dst->path) };
		int worst = 0;
		for (int k = 1; k < INEXACT_CANDIDATES; k++)
			if (candidate_cmp(&m[k], &m[worst]) > 0)
				worst = k;
		if (candidate_cmp(&m[worst], &c) > 0)
			m[worst] = c;
	}
	/* a stable sort of the four */
	for (int k = 1; k < INEXACT_CANDIDATES; k++) {
		struct candidate c = m[k];
		int j = k;
		for (; j && candidate_cmp(&m[j - 1], &c) > 0; j--)
			m[j] = m[j - 1];
		m[j] = c;
	}
	for (int pass = 0; pass < 2 && best < 0; pass++) {
		for (int k = 0; k < INEXACT_CANDIDATES; k++) {
			if (m[k].src < 0 || m[k].score < min_score)
				break;
			/* the first pass takes only unused (deleted) sources */
			if (!pass && !s[m[k].src].deleted)
				continue;
			best = m[k].src;
			*score_out = m[k].score;
			break;
		}
	}
out:
	wg_free(files);
	wg_free(at);
	wg_free(scores);
	*best_out = best;
	return err;
}

/* git's try_to_follow_renames: where did `added` come from in the
 * parent's tree? On a find, *added becomes that 'R' or 'C' pair. */
static int find_source(struct wg_follow *f, struct wg_odb *odb, const struct wg_oid *parent_tree,
		       const struct wg_oid *tree, struct wg_diff_change *added, bool *found)
{
	struct wg_tree_diff_options all = { 0 };
	struct wg_diff_changes old_files = { 0 }, changed = { 0 };
	struct source *s = NULL;
	char **deleted = NULL, **modified = NULL;
	size_t nd = 0, nm = 0, nunchanged = 0;
	struct wg_rename_file dst = { .path = added->path, .mode = added->new_mode, .oid = added->new_oid };
	int err, best = -1, score = WG_RENAME_MAX_SCORE;

	/* every file of the parent (git diffs with find_copies_harder), and
	 * which of them the commit deleted or changed */
	if ((err = wg_diff_trees(&old_files, odb, NULL, parent_tree, &all)) ||
	    (err = wg_diff_trees(&changed, odb, parent_tree, tree, &all)))
		goto out;
	if (!old_files.n)
		goto out;
	s = wg_calloc(old_files.n, sizeof(*s));
	deleted = wg_calloc(changed.n + 1, sizeof(*deleted));
	modified = wg_calloc(changed.n + 1, sizeof(*modified));
	if (!s || !deleted || !modified) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < changed.n; i++) {
		if (changed.v[i].status == 'D')
			deleted[nd++] = changed.v[i].path;
		else if (changed.v[i].status != 'A')
			modified[nm++] = changed.v[i].path;
	}
	wg_sort(deleted, nd, sizeof(*deleted), str_cmp);
	wg_sort(modified, nm, sizeof(*modified), str_cmp);
	for (size_t i = 0; i < old_files.n; i++) {
		const struct wg_diff_change *c = &old_files.v[i];
		s[i].file = (struct wg_rename_file){ .path = c->path, .mode = c->new_mode, .oid = c->new_oid };
		s[i].deleted = bsearch(&c->path, deleted, nd, sizeof(*deleted), str_cmp) != NULL;
		s[i].unchanged = !s[i].deleted &&
				 !bsearch(&c->path, modified, nm, sizeof(*modified), str_cmp);
		nunchanged += s[i].unchanged;
	}
	best = exact_source(s, old_files.n, &dst);
	if (best < 0 && f->min_score < WG_RENAME_MAX_SCORE) {
		/* git's too_many_rename_candidates with one destination */
		size_t lim2 = f->limit > 0 ? (size_t)f->limit * (size_t)f->limit : SIZE_MAX;
		bool skip_unchanged = old_files.n > lim2;
		if (!skip_unchanged || old_files.n - nunchanged <= lim2) {
			if ((err = inexact_source(f, odb, s, old_files.n, &dst, f->min_score,
						  skip_unchanged, &best, &score)))
				goto out;
		}
	}
	if (best >= 0) {
		char *from = wg_strdup(s[best].file.path);
		if (!from) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		}
		added->status = s[best].deleted ? 'R' : 'C';
		added->from = from;
		added->old_mode = s[best].file.mode;
		added->old_oid = s[best].file.oid;
		added->score = score;
		*found = true;
		err = switch_path(f, from);
	}
out:
	wg_free(s);
	wg_free(deleted);
	wg_free(modified);
	wg_diff_changes_release(&old_files);
	wg_diff_changes_release(&changed);
	return err;
}

int wg_follow_diff(struct wg_follow *f, struct wg_odb *odb, const struct wg_oid *parent_tree,
		   const struct wg_oid *tree, struct wg_diff_changes *out, bool *found)
{
	struct wg_tree_diff_options o = { 0 };
	size_t first = out->n;
	int err;

	*found = false;
	o.paths = &f->path;
	if ((err = wg_diff_trees(out, odb, parent_tree, tree, &o)))
		return err;
	/* git's diff_might_be_rename: the path's addition alone; and only a
	 * file named by the item itself has a source (diffcore_rename's
	 * single_follow: a file below a directory followed, or one a glob
	 * matched, has none) */
	if (out->n - first != 1 || out->v[first].status != 'A' || !parent_tree ||
	    strcmp(out->v[first].path, wg_follow_path(f)))
		return 0;
	return find_source(f, odb, parent_tree, tree, &out->v[first], found);
}
