/* git's --patience (xdiff_internal.h): on a stretch of both files, the
 * lines that occur exactly once on each side are paired; the longest run
 * of such pairs in the same order on both sides (patience sorting) is
 * kept as anchors; the equal lines next to each anchor are taken along,
 * and the stretches between anchors are diffed the same way. A stretch
 * with matching lines but no unique pair goes to Myers, one with no
 * matching line at all is changed throughout. As git, with no
 * preparation of the files first. */
#include <string.h>

#include "diff/xdiff_internal.h"
#include "diff/xdiff_region.h"
#include "util/alloc.h"
#include "util/error.h"

#define UNSET (-1)
#define NON_UNIQUE (-2)

/* one class of the first side's stretch, in the order it first occurs */
struct entry {
	long line1, line2;            /* line2: UNSET, NON_UNIQUE or b's line */
	long cls;
	struct entry *next, *previous;
};

struct map {
	struct entry *entries;
	long nr;
	bool has_matches;
};

static void mark(bool *changed, long line, long count)
{
	while (count-- > 0)
		changed[line++] = true;
}

/* The classes of a's stretch with where they occur once; slot (the
 * scratch, zero outside) maps a class to its entry + 1 while filling and
 * is zeroed again before returning. */
static int fill_map(const struct wg_xdiff_env *env, struct map *m, const struct wg_xdiff_region *r)
{
	long *slot = env->scratch[0];
	m->entries = wg_calloc((size_t)r->count1, sizeof(*m->entries));
	if (!m->entries)
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	m->nr = 0;
	m->has_matches = false;
	for (long i = r->line1; i < r->line1 + r->count1; i++) {
		long c = env->cls[0][i];
		if (slot[c]) {
			m->entries[slot[c] - 1].line2 = NON_UNIQUE;
			continue;
		}
		m->entries[m->nr] = (struct entry){ i, UNSET, c, NULL, NULL };
		slot[c] = ++m->nr;
	}
	for (long i = r->line2; i < r->line2 + r->count2; i++) {
		long c = env->cls[1][i];
		struct entry *e;
		if (!slot[c])
			continue;
		m->has_matches = true;
		e = &m->entries[slot[c] - 1];
		e->line2 = e->line2 == UNSET ? i : NON_UNIQUE;
	}
	for (long k = 0; k < m->nr; k++)
		slot[m->entries[k].cls] = 0;
	return 0;
}

/* the longest sequence whose last line2 is smaller than e's */
static long bsearch_before(struct entry **seq, long longest, const struct entry *e)
{
	long left = -1, right = longest;
	while (left + 1 < right) {
		long middle = left + (right - left) / 2;
		if (seq[middle]->line2 > e->line2)
			right = middle;
		else
			left = middle;
	}
	return left;
}

/* Patience sorting of the unique pairs in the order of a; the first of
 * the longest sequence, linked by next, or NULL when there is none. */
static int longest_sequence(struct map *m, struct entry **first)
{
	struct entry **seq = wg_malloc(((size_t)m->nr + 1) * sizeof(*seq));
	struct entry *e;
	long longest = 0;
	if (!seq)
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	for (long k = 0; k < m->nr; k++) {
		long i;
		e = &m->entries[k];
		if (e->line2 < 0)
			continue;
		if (longest == 0 || e->line2 > seq[longest - 1]->line2)
			i = longest - 1;
		else
			i = bsearch_before(seq, longest, e);
		e->previous = i < 0 ? NULL : seq[i];
		seq[++i] = e;
		if (i == longest)
			longest++;
	}
	*first = NULL;
	if (longest) {
		e = seq[longest - 1];
		e->next = NULL;
		while (e->previous) {
			e->previous->next = e;
			e = e->previous;
		}
		*first = e;
	}
	wg_free(seq);
	return 0;
}

static bool same(const struct wg_xdiff_env *env, long i1, long i2)
{
	return env->cls[0][i1] == env->cls[1][i2];
}

/* Take the equal lines around each anchor along and queue the stretches
 * between them. */
static int walk_sequence(const struct wg_xdiff_env *env, struct wg_xdiff_regions *todo,
			 const struct entry *first, const struct wg_xdiff_region *r)
{
	long line1 = r->line1, line2 = r->line2;
	long end1 = r->line1 + r->count1, end2 = r->line2 + r->count2;
	long next1, next2;
	int err;
	for (;;) {
		if (first) {
			next1 = first->line1;
			next2 = first->line2;
			while (next1 > line1 && next2 > line2 && same(env, next1 - 1, next2 - 1)) {
				next1--;
				next2--;
			}
		} else {
			next1 = end1;
			next2 = end2;
		}
		while (line1 < next1 && line2 < next2 && same(env, line1, line2)) {
			line1++;
			line2++;
		}
		if ((next1 > line1 || next2 > line2) &&
		    (err = wg_xdiff_regions_push(todo, line1, next1 - line1, line2, next2 - line2)))
			return err;
		if (!first)
			return 0;
		while (first->next && first->next->line1 == first->line1 + 1 &&
		       first->next->line2 == first->line2 + 1)
			first = first->next;
		line1 = first->line1 + 1;
		line2 = first->line2 + 1;
		first = first->next;
	}
}

static int one_region(const struct wg_xdiff_env *env, struct wg_xdiff_regions *todo,
		      const struct wg_xdiff_region *r)
{
	struct map m = { 0 };
	struct entry *first = NULL;
	int err;
	if (!r->count1) {
		mark(env->changed[1], r->line2, r->count2);
		return 0;
	}
	if (!r->count2) {
		mark(env->changed[0], r->line1, r->count1);
		return 0;
	}
	if ((err = fill_map(env, &m, r)))
		return err;
	if (!m.has_matches) {
		mark(env->changed[0], r->line1, r->count1);
		mark(env->changed[1], r->line2, r->count2);
	} else if (!(err = longest_sequence(&m, &first))) {
		if (first)
			err = walk_sequence(env, todo, first, r);
		else
			err = wg_xdiff_myers(env, r->line1, r->count1, r->line2, r->count2, false);
	}
	wg_free(m.entries);
	return err;
}

int wg_xdiff_patience(const struct wg_xdiff_env *env)
{
	return wg_xdiff_regions_run(env, env->n[0], env->n[1], one_region);
}
