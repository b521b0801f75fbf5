/* git's default line diff, Myers (xdiff_internal.h): xdiff's preparation
 * (common head and tail, lines without matches discarded) and its search
 * with the cost heuristics, or without them for --minimal, step for step
 * as git runs them, since any other choice among equally short diffs
 * shows up as a different patch. Also what patience and histogram fall
 * back to on a stretch where they find no anchor. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "diff/xdiff_internal.h"
#include "util/alloc.h"
#include "util/error.h"

/* xdiff's constants */
#define MAX_EQLIMIT 1024       /* a line with this many matches may be discarded */
#define SIMSCAN_WINDOW 100     /* how far such a line's neighbours are looked at */
#define KPDIS_RUN 4
#define MAX_COST_MIN 256       /* the give-up cost is at least this */
#define HEUR_MIN_COST 256      /* good snakes are looked for past this cost */
#define SNAKE_CNT 20           /* a snake this long is a good one */
#define K_HEUR 4
#define LINE_MAX_POS ((long)(((unsigned long)-1) >> 1))

enum { DISCARD = 0, KEEP = 1, INVESTIGATE = 2 };

struct side {
	long n;
	const long *cls;    /* each line's class (equal lines, equal class) */
	long *ref;          /* the lines kept for the search, by position */
	long nref;
	long dstart, dend;  /* the lines between the common head and tail */
	bool *changed;
};

/* xdl_bogosqrt: a power of two near the square root */
static long bogosqrt(long n)
{
	long i;
	for (i = 1; n > 0; n >>= 2)
		i <<= 1;
	return i;
}

/* --- preparation: xdl_trim_ends and xdl_cleanup_records ---------------- */

static void trim_ends(struct side *a, struct side *b)
{
	long i, lim = a->n < b->n ? a->n : b->n;
	for (i = 0; i < lim; i++)
		if (a->cls[i] != b->cls[i])
			break;
	a->dstart = b->dstart = i;
	lim -= i;
	for (i = 0; i < lim; i++)
		if (a->cls[a->n - 1 - i] != b->cls[b->n - 1 - i])
			break;
	a->dend = a->n - i - 1;
	b->dend = b->n - i - 1;
}

/* xdl_clean_mmatch: a line with many matches is discarded when it sits in
 * a run of lines that mostly have none */
static bool clean_mmatch(const unsigned char *action, long i, long s, long e)
{
	long r, rdis0, rpdis0, rdis1, rpdis1;
	if (i - s > SIMSCAN_WINDOW)
		s = i - SIMSCAN_WINDOW;
	if (e - i > SIMSCAN_WINDOW)
		e = i + SIMSCAN_WINDOW;
	for (r = 1, rdis0 = 0, rpdis0 = 1; i - r >= s; r++) {
		if (action[i - r] == DISCARD)
			rdis0++;
		else if (action[i - r] == INVESTIGATE)
			rpdis0++;
		else
			break;
	}
	if (rdis0 == 0)
		return false;
	for (r = 1, rdis1 = 0, rpdis1 = 1; i + r <= e; r++) {
		if (action[i + r] == DISCARD)
			rdis1++;
		else if (action[i + r] == INVESTIGATE)
			rpdis1++;
		else
			break;
	}
	if (rdis1 == 0)
		return false;
	rdis1 += rdis0;
	rpdis1 += rpdis0;
	return rpdis1 * KPDIS_RUN < rpdis1 + rdis1;
}

/* --minimal keeps every line that has a match: only the search's
 * heuristics could make up for the ones discarded */
static int cleanup_side(struct side *s, const long *other_count, bool minimal)
{
	long mlim = bogosqrt(s->n);
	unsigned char *action = wg_calloc((size_t)s->n + 1, 1);
	if (!action)
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	if (mlim > MAX_EQLIMIT)
		mlim = MAX_EQLIMIT;
	for (long i = s->dstart; i <= s->dend; i++) {
		long nm = other_count[s->cls[i]];
		action[i] = nm == 0 ? DISCARD : nm >= mlim && !minimal ? INVESTIGATE : KEEP;
	}
	s->nref = 0;
	for (long i = s->dstart; i <= s->dend; i++) {
		if (action[i] == KEEP ||
		    (action[i] == INVESTIGATE && !clean_mmatch(action, i, s->dstart, s->dend)))
			s->ref[s->nref++] = i;
		else
			s->changed[i] = true;
	}
	wg_free(action);
	return 0;
}

/* --- the search: xdl_split and xdl_recs_cmp ---------------------------- */

struct search {
	struct side *a, *b;
	long *kvdf, *kvdb;
	long mxcost;
};

static inline long H(const struct side *s, long i)
{
	return s->cls[s->ref[i]];
}

struct split {
	long i1, i2;
	int min_lo, min_hi;
};

static void split_box(struct search *x, long off1, long lim1, long off2, long lim2,
		      int need_min, struct split *spl)
{
	const struct side *a = x->a, *b = x->b;
	long *kvdf = x->kvdf, *kvdb = x->kvdb;
	long dmin = off1 - lim2, dmax = lim1 - off2;
	long fmid = off1 - off2, bmid = lim1 - lim2;
	long odd = (fmid - bmid) & 1;
	long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
	long ec, d, i1, i2, prev1, best, dd, v, k;

	kvdf[fmid] = off1;
	kvdb[bmid] = lim1;
	for (ec = 1;; ec++) {
		int got_snake = 0;

		if (fmin > dmin)
			kvdf[--fmin - 1] = -1;
		else
			++fmin;
		if (fmax < dmax)
			kvdf[++fmax + 1] = -1;
		else
			--fmax;
		for (d = fmax; d >= fmin; d -= 2) {
			if (kvdf[d - 1] >= kvdf[d + 1])
				i1 = kvdf[d - 1] + 1;
			else
				i1 = kvdf[d + 1];
			prev1 = i1;
			i2 = i1 - d;
			for (; i1 < lim1 && i2 < lim2 && H(a, i1) == H(b, i2); i1++, i2++)
				;
			if (i1 - prev1 > SNAKE_CNT)
				got_snake = 1;
			kvdf[d] = i1;
			if (odd && bmin <= d && d <= bmax && kvdb[d] <= i1) {
				spl->i1 = i1;
				spl->i2 = i2;
				spl->min_lo = spl->min_hi = 1;
				return;
			}
		}

		if (bmin > dmin)
			kvdb[--bmin - 1] = LINE_MAX_POS;
		else
			++bmin;
		if (bmax < dmax)
			kvdb[++bmax + 1] = LINE_MAX_POS;
		else
			--bmax;
		for (d = bmax; d >= bmin; d -= 2) {
			if (kvdb[d - 1] < kvdb[d + 1])
				i1 = kvdb[d - 1];
			else
				i1 = kvdb[d + 1] - 1;
			prev1 = i1;
			i2 = i1 - d;
			for (; i1 > off1 && i2 > off2 && H(a, i1 - 1) == H(b, i2 - 1); i1--, i2--)
				;
			if (prev1 - i1 > SNAKE_CNT)
				got_snake = 1;
			kvdb[d] = i1;
			if (!odd && fmin <= d && d <= fmax && i1 <= kvdf[d]) {
				spl->i1 = i1;
				spl->i2 = i2;
				spl->min_lo = spl->min_hi = 1;
				return;
			}
		}

		if (need_min)
			continue;

		/* past the trigger cost, a diagonal far along and ending in a
		 * good snake is taken as the split */
		if (got_snake && ec > HEUR_MIN_COST) {
			for (best = 0, d = fmax; d >= fmin; d -= 2) {
				dd = d > fmid ? d - fmid : fmid - d;
				i1 = kvdf[d];
				i2 = i1 - d;
				v = (i1 - off1) + (i2 - off2) - dd;
				if (v > K_HEUR * ec && v > best && off1 + SNAKE_CNT <= i1 &&
				    i1 < lim1 && off2 + SNAKE_CNT <= i2 && i2 < lim2) {
					for (k = 1; H(a, i1 - k) == H(b, i2 - k); k++)
						if (k == SNAKE_CNT) {
							best = v;
							spl->i1 = i1;
							spl->i2 = i2;
							break;
						}
				}
			}
			if (best > 0) {
				spl->min_lo = 1;
				spl->min_hi = 0;
				return;
			}
			for (best = 0, d = bmax; d >= bmin; d -= 2) {
				dd = d > bmid ? d - bmid : bmid - d;
				i1 = kvdb[d];
				i2 = i1 - d;
				v = (lim1 - i1) + (lim2 - i2) - dd;
				if (v > K_HEUR * ec && v > best && off1 < i1 &&
				    i1 <= lim1 - SNAKE_CNT && off2 < i2 && i2 <= lim2 - SNAKE_CNT) {
					for (k = 0; H(a, i1 + k) == H(b, i2 + k); k++)
						if (k == SNAKE_CNT - 1) {
							best = v;
							spl->i1 = i1;
							spl->i2 = i2;
							break;
						}
				}
			}
			if (best > 0) {
				spl->min_lo = 0;
				spl->min_hi = 1;
				return;
			}
		}

		/* too expensive: the furthest reaching path of either side */
		if (ec >= x->mxcost) {
			long fbest = -1, fbest1 = -1, bbest = LINE_MAX_POS, bbest1 = LINE_MAX_POS;
			for (d = fmax; d >= fmin; d -= 2) {
				i1 = kvdf[d] < lim1 ? kvdf[d] : lim1;
				i2 = i1 - d;
				if (lim2 < i2) {
					i1 = lim2 + d;
					i2 = lim2;
				}
				if (fbest < i1 + i2) {
					fbest = i1 + i2;
					fbest1 = i1;
				}
			}
			for (d = bmax; d >= bmin; d -= 2) {
				i1 = kvdb[d] > off1 ? kvdb[d] : off1;
				i2 = i1 - d;
				if (i2 < off2) {
					i1 = off2 + d;
					i2 = off2;
				}
				if (i1 + i2 < bbest) {
					bbest = i1 + i2;
					bbest1 = i1;
				}
			}
			if ((lim1 + lim2) - bbest < fbest - (off1 + off2)) {
				spl->i1 = fbest1;
				spl->i2 = fbest - fbest1;
				spl->min_lo = 1;
				spl->min_hi = 0;
			} else {
				spl->i1 = bbest1;
				spl->i2 = bbest - bbest1;
				spl->min_lo = 0;
				spl->min_hi = 1;
			}
			return;
		}
	}
}

/* Divide and conquer over the box; an explicit stack keeps deep inputs
 * off the C stack (the order of the work does not change the result). */
struct box {
	long off1, lim1, off2, lim2;
	int need_min;
};

static int compare_boxes(struct search *x, long n1, long n2, bool minimal)
{
	size_t cap = 64, top = 0;
	struct box *stack = wg_malloc(cap * sizeof(*stack));
	if (!stack)
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	stack[top++] = (struct box){ 0, n1, 0, n2, minimal };
	while (top) {
		struct box bx = stack[--top];
		long off1 = bx.off1, lim1 = bx.lim1, off2 = bx.off2, lim2 = bx.lim2;
		struct side *a = x->a, *b = x->b;
		for (; off1 < lim1 && off2 < lim2 && H(a, off1) == H(b, off2); off1++, off2++)
			;
		for (; off1 < lim1 && off2 < lim2 && H(a, lim1 - 1) == H(b, lim2 - 1); lim1--, lim2--)
			;
		if (off1 == lim1) {
			for (; off2 < lim2; off2++)
				b->changed[b->ref[off2]] = true;
		} else if (off2 == lim2) {
			for (; off1 < lim1; off1++)
				a->changed[a->ref[off1]] = true;
		} else {
			struct split spl = { 0, 0, 0, 0 };
			split_box(x, off1, lim1, off2, lim2, bx.need_min, &spl);
			if (top + 2 > cap) {
				struct box *ns = wg_realloc(stack, cap * 2 * sizeof(*stack));
				if (!ns) {
					wg_free(stack);
					return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
				}
				stack = ns;
				cap *= 2;
			}
			stack[top++] = (struct box){ spl.i1, lim1, spl.i2, lim2, spl.min_hi };
			stack[top++] = (struct box){ off1, spl.i1, off2, spl.i2, spl.min_lo };
		}
	}
	wg_free(stack);
	return 0;
}

/* --- the run on a stretch --------------------------------------------- */

static void count_classes(const long *cls, long n, long *count, long delta)
{
	for (long i = 0; i < n; i++)
		count[cls[i]] += delta;
}

int wg_xdiff_myers(const struct wg_xdiff_env *env, long off1, long n1, long off2, long n2,
		   bool minimal)
{
	struct side sa = { 0 }, sb = { 0 };
	long *kvd = NULL;
	int err;

	sa.n = n1;
	sa.cls = env->cls[0] + off1;
	sa.changed = env->changed[0] + off1;
	sb.n = n2;
	sb.cls = env->cls[1] + off2;
	sb.changed = env->changed[1] + off2;
	sa.ref = wg_calloc((size_t)n1 + 1, sizeof(long));
	sb.ref = wg_calloc((size_t)n2 + 1, sizeof(long));
	if (!sa.ref || !sb.ref) {
		err = wg_error_set(WG_ENOMEM, "out of memory diffing lines");
		goto out;
	}
	/* how often each class occurs within the stretch, as git counts
	 * them when it prepares the stretch as two files */
	count_classes(sa.cls, n1, env->scratch[0], 1);
	count_classes(sb.cls, n2, env->scratch[1], 1);
	trim_ends(&sa, &sb);
	err = cleanup_side(&sa, env->scratch[1], minimal);
	if (!err)
		err = cleanup_side(&sb, env->scratch[0], minimal);
	count_classes(sa.cls, n1, env->scratch[0], -1);
	count_classes(sb.cls, n2, env->scratch[1], -1);
	if (err)
		goto out;
	{
		long ndiags = sa.nref + sb.nref + 3;
		struct search x = { &sa, &sb, NULL, NULL, 0 };
		kvd = wg_calloc((size_t)(2 * ndiags + 2), sizeof(long));
		if (!kvd) {
			err = wg_error_set(WG_ENOMEM, "out of memory diffing lines");
			goto out;
		}
		x.kvdf = kvd + sb.nref + 1;
		x.kvdb = kvd + ndiags + sb.nref + 1;
		x.mxcost = bogosqrt(ndiags);
		if (x.mxcost < MAX_COST_MIN)
			x.mxcost = MAX_COST_MIN;
		err = compare_boxes(&x, sa.nref, sb.nref, minimal);
	}
out:
	wg_free(kvd);
	wg_free(sa.ref);
	wg_free(sb.ref);
	return err;
}
