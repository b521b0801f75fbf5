/* xdl_change_compact (xdiff_internal.h): after any of the algorithms,
 * each group of changed lines is slid up and down as far as equal lines
 * let it, then lined up with a change on the other side or, failing that,
 * put where git's indent heuristic scores the split best. Every step as
 * git takes it: another choice among equal diffs is another patch. */
#include <string.h>

#include "diff/xdiff_internal.h"
#include "util/error.h"

struct side {
	long n;
	const long *cls;
	bool *changed;      /* from index -1 to n */
	const struct wg_line *lines;
};

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
 * line of only whitespace (git's isspace) */
static int get_indent(const struct wg_line *l)
{
	int ret = 0;
	for (size_t i = 0; i < l->size; i++) {
		unsigned char c = (unsigned char)l->ptr[i];
		if (!wg_xdiff_isspace(c))
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

static int change_compact(struct side *s, struct side *o, bool indent_heuristic)
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
		} else if (indent_heuristic) {
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

int wg_xdiff_compact(const struct wg_xdiff_env *env, int s, bool indent_heuristic)
{
	struct side a = { env->n[s], env->cls[s], env->changed[s], env->lines[s] };
	struct side o = { env->n[!s], env->cls[!s], env->changed[!s], env->lines[!s] };
	return change_compact(&a, &o, indent_heuristic);
}
