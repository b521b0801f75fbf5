/* Line diffs: which lines of one text become which lines of another, as
 * git's xdiff finds them, so that patches, stats and hunks match git's
 * line for line. The algorithm is git's --diff-algorithm: myers (the
 * default), minimal, patience or histogram.
 *
 * Git's steps, in its order: each side is split into lines, compared byte
 * for byte with their newline. For myers and minimal, common leading and
 * trailing lines are set aside; lines with no match on the other side are
 * discarded before the search (and lines with very many matches when they
 * sit among such lines); the divide and conquer Myers search with xdiff's
 * cost heuristics (a good snake past 256 edits, a give-up cost of the
 * square root of the size; --minimal turns both off) marks changed lines.
 * Patience (xdiff_patience.c) and histogram (xdiff_histogram.c) skip that
 * preparation, anchor on lines that are unique (patience) or rare
 * (histogram) on both sides and recurse between the anchors, falling back
 * to Myers on a stretch where they find no anchor. Then, for all of them,
 * each group of changes is slid as far as it goes and placed where git's
 * indent heuristic scores it best (unless turned off), or lined up with a
 * change on the other side. The result is the changed flags on both sides
 * and the list of changes built from them.
 *
 * With a whitespace option, lines are equal when they are equal once the
 * whitespace the option ignores is taken out (git's xdl_recmatch), and
 * the sliding compares them the same way; the lines the changes point to
 * are still the texts' own (a context line printed from the new side
 * shows its whitespace). Not here: --ignore-blank-lines. */
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

enum wg_diff_algorithm {
	WG_DIFF_MYERS = 0,     /* git's default */
	WG_DIFF_MINIMAL,       /* Myers without the cost heuristics */
	WG_DIFF_PATIENCE,
	WG_DIFF_HISTOGRAM,
};

/* git's names for --diff-algorithm and diff.algorithm ("default" is
 * myers), case-insensitively as git takes them. WG_EINVALID for any
 * other name. */
int wg_diff_algorithm_parse(const char *name, enum wg_diff_algorithm *out);
const char *wg_diff_algorithm_name(enum wg_diff_algorithm algo);

/* How lines are compared, git's whitespace options; when several are
 * given the first in this list that is wins, as in git. */
enum {
	WG_DIFF_IGNORE_ALL_SPACE = 1 << 0,     /* -w: no whitespace counts */
	WG_DIFF_IGNORE_SPACE_CHANGE = 1 << 1,  /* -b: runs of it are one space, none at the end */
	WG_DIFF_IGNORE_SPACE_AT_EOL = 1 << 2,  /* none at the end of the line counts */
	WG_DIFF_IGNORE_CR_AT_EOL = 1 << 3,     /* a CR before the newline does not count */
};

struct wg_line_diff_options {
	enum wg_diff_algorithm algorithm;
	bool no_indent_heuristic;   /* --no-indent-heuristic */
	unsigned whitespace;        /* WG_DIFF_IGNORE_* */
};
#define WG_LINE_DIFF_OPTIONS_INIT { WG_DIFF_MYERS, false, 0 }

/* Diff text a against text b (neither is copied; both must outlive the
 * result). opts NULL: git's defaults. */
int wg_line_diff_run_with(struct wg_line_diff *out, const char *a, size_t alen, const char *b,
			  size_t blen, const struct wg_line_diff_options *opts);
/* The same with git's defaults */
int wg_line_diff_run(struct wg_line_diff *out, const char *a, size_t alen, const char *b,
		     size_t blen);
void wg_line_diff_release(struct wg_line_diff *d);

/* What git does before a diff without context lines (-U0, stats): a
 * common tail in whole blocks of 1024 bytes is cut off, short of the line
 * it ends in. Shortens *alen and *blen. */
void wg_line_diff_trim_tail(const char *a, size_t *alen, const char *b, size_t *blen);

#endif
