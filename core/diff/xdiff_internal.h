/* What the line diff algorithms (line_diff.h) share: both sides split and
 * classified once (equal lines, equal class), the changed flags they set,
 * and the steps more than one of them runs. Private to core/diff. */
#ifndef WG_DIFF_XDIFF_INTERNAL_H
#define WG_DIFF_XDIFF_INTERNAL_H

#include <stdbool.h>

#include "diff/line_diff.h"

/* git's isspace (its own ctype, any locale): no \v or \f */
static inline bool wg_xdiff_isspace(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct wg_xdiff_env {
	const struct wg_line *lines[2];
	const long *cls[2];       /* each line's class */
	bool *changed[2];         /* with a false guard before and after */
	long n[2];
	long nclasses;
	/* nclasses zeroed entries per side for a search to count in; it
	 * leaves them zeroed (so a fallback costs its stretch, not the file) */
	long *scratch[2];
};

/* Git's Myers (xdiff_myers.c) over lines off1..off1+n1-1 of a and
 * off2..off2+n2-1 of b, as git runs it on such a stretch taken as two
 * whole files: common head and tail set aside, lines without matches
 * discarded, then the search, with the cost heuristics unless minimal.
 * Marks changed lines. */
int wg_xdiff_myers(const struct wg_xdiff_env *env, long off1, long n1, long off2, long n2,
		   bool minimal);

/* git's --patience (xdiff_patience.c) and --histogram (xdiff_histogram.c)
 * over the whole files; they mark changed lines */
int wg_xdiff_patience(const struct wg_xdiff_env *env);
int wg_xdiff_histogram(const struct wg_xdiff_env *env);

/* xdl_change_compact (xdiff_compact.c): slide the groups of changed
 * lines of side s (the other side o) as git does. */
int wg_xdiff_compact(const struct wg_xdiff_env *env, int s, bool indent_heuristic);

#endif
