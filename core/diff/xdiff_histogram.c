/* git's --histogram (xdiff_internal.h): on a stretch of both files, the
 * lines of the first side are counted; each line of the second side that
 * occurs on the first is grown into the longest run of equal lines around
 * each of its occurrences, and the run kept is the longest one among those
 * with the fewest occurrences of their rarest line. The stretches before
 * and after it are diffed the same way. Lines occurring more than 64
 * times are no anchor: a stretch whose common lines are all that frequent
 * goes to Myers, one with no common line at all is changed throughout. As
 * git, with no preparation of the files first. */
#include <string.h>

#include "diff/xdiff_internal.h"
#include "diff/xdiff_region.h"
#include "util/alloc.h"
#include "util/error.h"

#define MAX_CHAIN 64     /* a class this frequent is not an anchor */
#define NONE (-1)

/* one class of a's stretch */
struct record {
	long ptr;            /* its first line */
	long cnt;            /* how often it occurs */
};

struct lcs {
	long begin1, end1, begin2, end2;   /* inclusive */
	bool set;
};

struct index {
	const struct wg_xdiff_env *env;
	struct record *records;
	long nrec;
	long *slot;          /* class -> record + 1 (the env's scratch) */
	long *next;          /* per line of a's stretch: the class's next line */
	long *line_rec;      /* per line of a's stretch: its record */
	long line1, end1, line2, end2;
	long cnt;            /* the fewest occurrences of the run kept so far */
	bool has_common;
};

static long cnt_at(const struct index *x, long line)
{
	return x->records[x->line_rec[line - x->line1]].cnt;
}

/* Count a's stretch from its end back, so each record ends at the class's
 * first line and each line points at the next one of its class. */
static void scan_a(struct index *x)
{
	const long *cls = x->env->cls[0];
	for (long p = x->end1; p >= x->line1; p--) {
		long c = cls[p], k = x->slot[c];
		if (k) {
			struct record *r = &x->records[k - 1];
			x->next[p - x->line1] = r->ptr;
			r->ptr = p;
			r->cnt++;
			x->line_rec[p - x->line1] = k - 1;
			continue;
		}
		x->records[x->nrec] = (struct record){ p, 1 };
		x->next[p - x->line1] = NONE;
		x->line_rec[p - x->line1] = x->nrec;
		x->slot[c] = ++x->nrec;
	}
}

static bool same(const struct wg_xdiff_env *env, long i1, long i2)
{
	return env->cls[0][i1] == env->cls[1][i2];
}

/* Grow a run around each occurrence in a of b's line b_ptr; returns the
 * next line of b to look at (past the runs found). */
static long try_lcs(struct index *x, struct lcs *lcs, long b_ptr)
{
	long b_next = b_ptr + 1;
	long k = x->slot[x->env->cls[1][b_ptr]];
	struct record *rec;
	long as, ae, bs, be, np, rc;

	if (!k)
		return b_next;
	rec = &x->records[k - 1];
	x->has_common = true;
	if (rec->cnt > x->cnt)
		return b_next;
	for (as = rec->ptr;;) {
		np = x->next[as - x->line1];
		bs = b_ptr;
		ae = as;
		be = bs;
		rc = rec->cnt;
		while (x->line1 < as && x->line2 < bs && same(x->env, as - 1, bs - 1)) {
			as--;
			bs--;
			if (1 < rc && cnt_at(x, as) < rc)
				rc = cnt_at(x, as);
		}
		while (ae < x->end1 && be < x->end2 && same(x->env, ae + 1, be + 1)) {
			ae++;
			be++;
			if (1 < rc && cnt_at(x, ae) < rc)
				rc = cnt_at(x, ae);
		}
		if (b_next <= be)
			b_next = be + 1;
		if (lcs->end1 - lcs->begin1 < ae - as || rc < x->cnt) {
			*lcs = (struct lcs){ as, ae, bs, be, true };
			x->cnt = rc;
		}
		/* the next occurrence past this run */
		while (np != NONE && np <= ae)
			np = x->next[np - x->line1];
		if (np == NONE)
			break;
		as = np;
	}
	return b_next;
}

/* *to_myers, or *lcs is the run to keep (or, unset, none exists) */
static int find_lcs(const struct wg_xdiff_env *env, const struct wg_xdiff_region *r,
		    struct lcs *lcs, bool *to_myers)
{
	struct index x = { 0 };
	int ret = 0;
	x.env = env;
	x.line1 = r->line1;
	x.end1 = r->line1 + r->count1 - 1;
	x.line2 = r->line2;
	x.end2 = r->line2 + r->count2 - 1;
	x.slot = env->scratch[0];
	x.records = wg_malloc((size_t)r->count1 * sizeof(*x.records));
	x.next = wg_malloc((size_t)r->count1 * sizeof(long));
	x.line_rec = wg_malloc((size_t)r->count1 * sizeof(long));
	if (!x.records || !x.next || !x.line_rec) {
		ret = wg_error_set(WG_ENOMEM, "out of memory diffing lines");
		goto out;
	}
	scan_a(&x);
	x.cnt = MAX_CHAIN + 1;
	memset(lcs, 0, sizeof(*lcs));
	for (long b = x.line2; b <= x.end2;)
		b = try_lcs(&x, lcs, b);
	*to_myers = x.has_common && MAX_CHAIN < x.cnt;
	for (long k = 0; k < x.nrec; k++)
		x.slot[env->cls[0][x.records[k].ptr]] = 0;
out:
	wg_free(x.records);
	wg_free(x.next);
	wg_free(x.line_rec);
	return ret;
}

static void mark(bool *changed, long line, long count)
{
	while (count-- > 0)
		changed[line++] = true;
}

static int one_region(const struct wg_xdiff_env *env, struct wg_xdiff_regions *todo,
		      const struct wg_xdiff_region *r)
{
	struct lcs lcs;
	bool to_myers = false;
	int err;
	long end1 = r->line1 + r->count1, end2 = r->line2 + r->count2;
	if (r->count1 <= 0 && r->count2 <= 0)
		return 0;
	if (!r->count1) {
		mark(env->changed[1], r->line2, r->count2);
		return 0;
	}
	if (!r->count2) {
		mark(env->changed[0], r->line1, r->count1);
		return 0;
	}
	if ((err = find_lcs(env, r, &lcs, &to_myers)))
		return err;
	if (to_myers)
		return wg_xdiff_myers(env, r->line1, r->count1, r->line2, r->count2, false);
	if (!lcs.set) {
		mark(env->changed[0], r->line1, r->count1);
		mark(env->changed[1], r->line2, r->count2);
		return 0;
	}
	err = wg_xdiff_regions_push(todo, r->line1, lcs.begin1 - r->line1, r->line2,
					lcs.begin2 - r->line2);
	if (!err)
		err = wg_xdiff_regions_push(todo, lcs.end1 + 1, end1 - lcs.end1 - 1, lcs.end2 + 1,
					    end2 - lcs.end2 - 1);
	return err;
}

int wg_xdiff_histogram(const struct wg_xdiff_env *env)
{
	return wg_xdiff_regions_run(env, env->n[0], env->n[1], one_region);
}
