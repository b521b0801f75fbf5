/* git's default line diff (line_diff.h): xdiff's preparation, its Myers
 * search with the cost heuristics, and the sliding of change groups with
 * the indent heuristic, step for step as git runs them, since any other
 * choice among equally short diffs shows up as a different patch. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "diff/line_diff.h"
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
	long *cls;          /* each line's class (equal lines, equal class) */
	long *ref;          /* the lines kept for the search, by position */
	long nref;
	long dstart, dend;  /* the lines between the common head and tail */
	bool *changed;      /* n + 2, from index -1 */
	const struct wg_line *lines;
};

/* xdl_bogosqrt: a power of two near the square root */
static long bogosqrt(long n)
{
	long i;
	for (i = 1; n > 0; n >>= 2)
		i <<= 1;
	return i;
}

static int split_lines(struct wg_line_side *s, const char *p, size_t len)
{
	size_t n = 0, cap = 0;
	const char *end = p + len;
	s->lines = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct wg_line *v = wg_realloc(s->lines, ncap * sizeof(*v));
			if (!v)
				return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
			s->lines = v;
			cap = ncap;
		}
		s->lines[n].ptr = p;
		s->lines[n].size = (size_t)(next - p);
		n++;
		p = next;
	}
	s->n = (long)n;
	return 0;
}

/* --- equivalence classes ----------------------------------------------- */

struct classes {
	long *slot;          /* hash table of class ids + 1, 0 empty */
	size_t mask;
	const struct wg_line **first;   /* a line of each class */
	uint32_t *hash;
	long *count[2];      /* lines of each class in a, in b */
	long n;
};

static uint32_t line_hash(const struct wg_line *l)
{
	uint32_t h = 5381;
	for (size_t i = 0; i < l->size; i++)
		h = (h * 33) ^ (unsigned char)l->ptr[i];
	return h;
}

static int classify(struct classes *c, const struct wg_line_side *a,
		    const struct wg_line_side *b, long *cls_a, long *cls_b)
{
	size_t total = (size_t)a->n + (size_t)b->n, size = 16;
	while (size < total * 2)
		size <<= 1;
	c->mask = size - 1;
	c->slot = wg_calloc(size, sizeof(long));
	c->first = wg_calloc(total + 1, sizeof(*c->first));
	c->hash = wg_calloc(total + 1, sizeof(*c->hash));
	c->count[0] = wg_calloc(total + 1, sizeof(long));
	c->count[1] = wg_calloc(total + 1, sizeof(long));
	if (!c->slot || !c->first || !c->hash || !c->count[0] || !c->count[1])
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	c->n = 0;
	for (int side = 0; side < 2; side++) {
		const struct wg_line_side *s = side ? b : a;
		long *cls = side ? cls_b : cls_a;
		for (long i = 0; i < s->n; i++) {
			const struct wg_line *l = &s->lines[i];
			uint32_t h = line_hash(l);
			size_t at = h & c->mask;
			long id;
			for (;;) {
				long e = c->slot[at];
				if (!e) {
					id = c->n++;
					c->slot[at] = id + 1;
					c->first[id] = l;
					c->hash[id] = h;
					break;
				}
				if (c->hash[e - 1] == h && c->first[e - 1]->size == l->size &&
				    !memcmp(c->first[e - 1]->ptr, l->ptr, l->size)) {
					id = e - 1;
					break;
				}
				at = (at + 1) & c->mask;
			}
			cls[i] = id;
			c->count[side][id]++;
		}
	}
	return 0;
}

static void classes_release(struct classes *c)
{
	wg_free(c->slot);
	wg_free(c->first);
	wg_free(c->hash);
	wg_free(c->count[0]);
	wg_free(c->count[1]);
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

static int cleanup_side(struct side *s, const long *other_count)
{
	long mlim = bogosqrt(s->n);
	unsigned char *action = wg_calloc((size_t)s->n + 1, 1);
	if (!action)
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	if (mlim > MAX_EQLIMIT)
		mlim = MAX_EQLIMIT;
	for (long i = s->dstart; i <= s->dend; i++) {
		long nm = other_count[s->cls[i]];
		action[i] = nm == 0 ? DISCARD : nm >= mlim ? INVESTIGATE : KEEP;
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

static int compare_boxes(struct search *x, long n1, long n2)
{
	size_t cap = 64, top = 0;
	struct box *stack = wg_malloc(cap * sizeof(*stack));
	if (!stack)
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	stack[top++] = (struct box){ 0, n1, 0, n2, 0 };
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

/* --- sliding groups: xdl_change_compact with the indent heuristic ------ */

#define MAX_INDENT 200
#define MAX_BLANKS 20
#define START_OF_FILE_PENALTY 1
#define END_OF_FILE_PENALTY 21
#define TOTAL_BLANK_WEIGHT (-30)
#define POST_BLANK_WEIGHT 6
#define RELATIVE_INDENT_PENALTY (-4)
#define RELATIVE_INDENT_WITH_BLANK_PENALTY 10
#define RELATIVE_OUTDENT_PENALTY 24
#define RELATIVE_OUTDENT_WITH_BLANK_PENALTY 17
#define RELATIVE_DEDENT_PENALTY 23
#define RELATIVE_DEDENT_WITH_BLANK_PENALTY 17
#define INDENT_WEIGHT 60
#define INDENT_HEURISTIC_MAX_SLIDING 100

/* columns of indentation (a tab to the next multiple of 8), -1 for a
 * line of only whitespace; isspace as git's (C locale) */
static int get_indent(const struct wg_line *l)
{
	int ret = 0;
	for (size_t i = 0; i < l->size; i++) {
		unsigned char c = (unsigned char)l->ptr[i];
		if (!(c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'))
			return ret;
		if (c == ' ')
			ret += 1;
		else if (c == '\t')
			ret += 8 - ret % 8;
		if (ret >= MAX_INDENT)
			return MAX_INDENT;
	}
	return -1;
}

struct split_measurement {
	int end_of_file, indent, pre_blank, pre_indent, post_blank, post_indent;
};

struct split_score {
	int effective_indent, penalty;
};

static void measure_split(const struct side *s, long split, struct split_measurement *m)
{
	long i;
	if (split >= s->n) {
		m->end_of_file = 1;
		m->indent = -1;
	} else {
		m->end_of_file = 0;
		m->indent = get_indent(&s->lines[split]);
	}
	m->pre_blank = 0;
	m->pre_indent = -1;
	for (i = split - 1; i >= 0; i--) {
		m->pre_indent = get_indent(&s->lines[i]);
		if (m->pre_indent != -1)
			break;
		m->pre_blank += 1;
		if (m->pre_blank == MAX_BLANKS) {
			m->pre_indent = 0;
			break;
		}
	}
	m->post_blank = 0;
	m->post_indent = -1;
	for (i = split + 1; i < s->n; i++) {
		m->post_indent = get_indent(&s->lines[i]);
		if (m->post_indent != -1)
			break;
		m->post_blank += 1;
		if (m->post_blank == MAX_BLANKS) {
			m->post_indent = 0;
			break;
		}
	}
}

static void score_add_split(const struct split_measurement *m, struct split_score *s)
{
	int post_blank, total_blank, indent, any_blanks;
	if (m->pre_indent == -1 && m->pre_blank == 0)
		s->penalty += START_OF_FILE_PENALTY;
	if (m->end_of_file)
		s->penalty += END_OF_FILE_PENALTY;
	post_blank = m->indent == -1 ? 1 + m->post_blank : 0;
	total_blank = m->pre_blank + post_blank;
	s->penalty += TOTAL_BLANK_WEIGHT * total_blank;
	s->penalty += POST_BLANK_WEIGHT * post_blank;
	indent = m->indent != -1 ? m->indent : m->post_indent;
	any_blanks = total_blank != 0;
	s->effective_indent += indent;
	if (indent == -1 || m->pre_indent == -1) {
		/* nothing more */
	} else if (indent > m->pre_indent) {
		s->penalty += any_blanks ? RELATIVE_INDENT_WITH_BLANK_PENALTY
					 : RELATIVE_INDENT_PENALTY;
	} else if (indent == m->pre_indent) {
		/* nothing more */
	} else if (m->post_indent != -1 && m->post_indent > indent) {
		s->penalty += any_blanks ? RELATIVE_OUTDENT_WITH_BLANK_PENALTY
					 : RELATIVE_OUTDENT_PENALTY;
	} else {
		s->penalty += any_blanks ? RELATIVE_DEDENT_WITH_BLANK_PENALTY
					 : RELATIVE_DEDENT_PENALTY;
	}
}

static int score_cmp(const struct split_score *s1, const struct split_score *s2)
{
	int cmp_indents = (s1->effective_indent > s2->effective_indent) -
			  (s1->effective_indent < s2->effective_indent);
	return INDENT_WEIGHT * cmp_indents + (s1->penalty - s2->penalty);
}

struct group {
	long start, end;
};

static void group_init(const struct side *s, struct group *g)
{
	g->start = g->end = 0;
	while (s->changed[g->end])
		g->end++;
}

static int group_next(const struct side *s, struct group *g)
{
	if (g->end == s->n)
		return -1;
	g->start = g->end + 1;
	for (g->end = g->start; s->changed[g->end]; g->end++)
		;
	return 0;
}

static int group_previous(const struct side *s, struct group *g)
{
	if (g->start == 0)
		return -1;
	g->end = g->start - 1;
	for (g->start = g->end; s->changed[g->start - 1]; g->start--)
		;
	return 0;
}

static int group_slide_down(struct side *s, struct group *g)
{
	if (g->end < s->n && s->cls[g->start] == s->cls[g->end]) {
		s->changed[g->start++] = false;
		s->changed[g->end++] = true;
		while (s->changed[g->end])
			g->end++;
		return 0;
	}
	return -1;
}

static int group_slide_up(struct side *s, struct group *g)
{
	if (g->start > 0 && s->cls[g->start - 1] == s->cls[g->end - 1]) {
		s->changed[--g->start] = true;
		s->changed[--g->end] = false;
		while (s->changed[g->start - 1])
			g->start--;
		return 0;
	}
	return -1;
}

static int out_of_sync(void)
{
	return wg_error_set(WG_ERROR, "line diff: change groups out of step");
}

static int change_compact(struct side *s, struct side *o)
{
	struct group g, go;
	long earliest_end, end_matching_other, groupsize;

	group_init(s, &g);
	group_init(o, &go);
	for (;;) {
		if (g.end == g.start)
			goto next;
		do {
			groupsize = g.end - g.start;
			end_matching_other = -1;
			while (!group_slide_up(s, &g))
				if (group_previous(o, &go))
					return out_of_sync();
			earliest_end = g.end;
			if (go.end > go.start)
				end_matching_other = g.end;
			for (;;) {
				if (group_slide_down(s, &g))
					break;
				if (group_next(o, &go))
					return out_of_sync();
				if (go.end > go.start)
					end_matching_other = g.end;
			}
		} while (groupsize != g.end - g.start);

		if (g.end == earliest_end) {
			/* it cannot move */
		} else if (end_matching_other != -1) {
			/* line up with the last change on the other side it met */
			while (go.end == go.start) {
				if (group_slide_up(s, &g) || group_previous(o, &go))
					return out_of_sync();
			}
		} else {
			long shift, best_shift = -1;
			struct split_score best = { 0, 0 };
			shift = earliest_end;
			if (g.end - groupsize - 1 > shift)
				shift = g.end - groupsize - 1;
			if (g.end - INDENT_HEURISTIC_MAX_SLIDING > shift)
				shift = g.end - INDENT_HEURISTIC_MAX_SLIDING;
			for (; shift <= g.end; shift++) {
				struct split_measurement m;
				struct split_score score = { 0, 0 };
				measure_split(s, shift, &m);
				score_add_split(&m, &score);
				measure_split(s, shift - groupsize, &m);
				score_add_split(&m, &score);
				if (best_shift == -1 || score_cmp(&score, &best) <= 0) {
					best = score;
					best_shift = shift;
				}
			}
			while (g.end > best_shift) {
				if (group_slide_up(s, &g) || group_previous(o, &go))
					return out_of_sync();
			}
		}
	next:
		if (group_next(s, &g))
			break;
		if (group_next(o, &go))
			return out_of_sync();
	}
	return 0;
}

/* --- the whole run ----------------------------------------------------- */

static int build_script(struct wg_line_diff *d)
{
	const bool *c1 = d->a.changed, *c2 = d->b.changed;
	long i1 = 0, i2 = 0;
	size_t cap = 0;
	while (i1 < d->a.n || i2 < d->b.n) {
		if (c1[i1] || c2[i2]) {
			struct wg_line_change ch = { i1, i2, 0, 0 };
			while (c1[i1])
				i1++;
			while (c2[i2])
				i2++;
			ch.chg1 = i1 - ch.i1;
			ch.chg2 = i2 - ch.i2;
			if (d->n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct wg_line_change *v = wg_realloc(d->v, ncap * sizeof(*v));
				if (!v)
					return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
				d->v = v;
				cap = ncap;
			}
			d->v[d->n++] = ch;
		} else {
			i1++;
			i2++;
		}
	}
	return 0;
}

void wg_line_diff_trim_tail(const char *a, size_t *alen, const char *b, size_t *blen)
{
	const size_t blk = 1024;
	size_t trimmed = 0, recovered = 0;
	size_t smaller = *alen < *blen ? *alen : *blen;
	const char *ap = a + *alen, *bp = b + *blen;
	while (blk + trimmed <= smaller && !memcmp(ap - blk, bp - blk, blk)) {
		trimmed += blk;
		ap -= blk;
		bp -= blk;
	}
	while (recovered < trimmed)
		if (ap[recovered++] == '\n')
			break;
	*alen -= trimmed - recovered;
	*blen -= trimmed - recovered;
}

static int side_init(struct side *s, struct wg_line_side *ls)
{
	s->n = ls->n;
	s->lines = ls->lines;
	s->cls = wg_calloc((size_t)ls->n + 1, sizeof(long));
	s->ref = wg_calloc((size_t)ls->n + 1, sizeof(long));
	ls->changed = wg_calloc((size_t)ls->n + 2, sizeof(bool));
	if (!s->cls || !s->ref || !ls->changed)
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	ls->changed += 1;
	s->changed = ls->changed;
	return 0;
}

int wg_line_diff_run(struct wg_line_diff *out, const char *a, size_t alen, const char *b,
		     size_t blen)
{
	struct side sa = { 0 }, sb = { 0 };
	struct classes cl = { 0 };
	long *kvd = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = split_lines(&out->a, a, alen)) || (err = split_lines(&out->b, b, blen)) ||
	    (err = side_init(&sa, &out->a)) || (err = side_init(&sb, &out->b)) ||
	    (err = classify(&cl, &out->a, &out->b, sa.cls, sb.cls)))
		goto fail;
	trim_ends(&sa, &sb);
	if ((err = cleanup_side(&sa, cl.count[1])) || (err = cleanup_side(&sb, cl.count[0])))
		goto fail;
	{
		long ndiags = sa.nref + sb.nref + 3;
		struct search x = { &sa, &sb, NULL, NULL, 0 };
		kvd = wg_calloc((size_t)(2 * ndiags + 2), sizeof(long));
		if (!kvd) {
			err = wg_error_set(WG_ENOMEM, "out of memory diffing lines");
			goto fail;
		}
		x.kvdf = kvd + sb.nref + 1;
		x.kvdb = kvd + ndiags + sb.nref + 1;
		x.mxcost = bogosqrt(ndiags);
		if (x.mxcost < MAX_COST_MIN)
			x.mxcost = MAX_COST_MIN;
		if ((err = compare_boxes(&x, sa.nref, sb.nref)))
			goto fail;
	}
	if ((err = change_compact(&sa, &sb)) || (err = change_compact(&sb, &sa)) ||
	    (err = build_script(out)))
		goto fail;
	err = 0;
	goto done;
fail:
	wg_line_diff_release(out);
done:
	wg_free(kvd);
	wg_free(sa.cls);
	wg_free(sa.ref);
	wg_free(sb.cls);
	wg_free(sb.ref);
	classes_release(&cl);
	return err;
}

void wg_line_diff_release(struct wg_line_diff *d)
{
	if (!d)
		return;
	wg_free(d->a.lines);
	wg_free(d->b.lines);
	if (d->a.changed)
		wg_free(d->a.changed - 1);
	if (d->b.changed)
		wg_free(d->b.changed - 1);
	wg_free(d->v);
	memset(d, 0, sizeof(*d));
}
