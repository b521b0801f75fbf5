/* Line diffs: which lines of one text become which lines of another, as
 * git's default algorithm finds them (xdiff's Myers), so that patches,
 * stats and hunks match git's line for line.
 *
 * Git's steps, in its order: lines are compared byte for byte with their
 * newline; common leading and trailing lines are set aside; lines with no
 * match on the other side are discarded before the search (and lines with
 * very many matches when they sit among such lines); the divide and
 * conquer Myers search with xdiff's cost heuristics (a good snake past 256
 * edits, a give-up cost of the square root of the size) marks changed
 * lines; then each group of changes is slid as far as it goes and placed
 * where git's indent heuristic scores it best, or lined up with a change
 * on the other side. The result is the changed flags on both sides and the
 * list of changes built from them. Not here: histogram, patience,
 * --minimal and the whitespace options. */
#ifndef WG_DIFF_LINE_DIFF_H
#define WG_DIFF_LINE_DIFF_H

#include <stdbool.h>
#include <stddef.h>

struct wg_line {
	const char *ptr;     /* into the caller's text */
	size_t size;         /* with its newline, if it has one */
};

struct wg_line_side {
	struct wg_line *lines;
	long n;
	bool *changed;       /* n entries, with a false guard before and after */
};

/* Lines i1..i1+chg1-1 of a became lines i2..i2+chg2-1 of b. */
struct wg_line_change {
	long i1, i2, chg1, chg2;
};

struct wg_line_diff {
	struct wg_line_side a, b;
	struct wg_line_change *v;   /* in order */
	size_t n;
};

/* Diff text a against text b (neither is copied; both must outlive the
 * result). */
int wg_line_diff_run(struct wg_line_diff *out, const char *a, size_t alen, const char *b,
		     size_t blen);
void wg_line_diff_release(struct wg_line_diff *d);

/* What git does before a diff without context lines (-U0, stats): a
 * common tail in whole blocks of 1024 bytes is cut off, short of the line
 * it ends in. Shortens *alen and *blen. */
void wg_line_diff_trim_tail(const char *a, size_t *alen, const char *b, size_t *blen);

#endif
