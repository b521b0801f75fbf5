/* Combined diffs of a merge, one file at a time: the hunks git prints
 * under "diff --cc" (dense) and "diff --combined" (-c), byte for byte.
 *
 * The merge result is compared with each parent by the line diff
 * (diff/line_diff.h, without context, after git's trim of a common
 * tail). A result line that a parent lacks gets that parent's '+' column;
 * a parent's line that the result lacks is "lost" and hangs before the
 * result line it disappeared in front of. Lost lines of several parents
 * at one place are merged along their longest common subsequence, so that
 * a line every parent lost shows once with a '-' in each column. A parent
 * with the same bytes as an earlier one takes that one's columns.
 *
 * Hunks are the interesting lines (a '+' in some column, or lost lines
 * before them) with their context. Dense (--cc) first drops a hunk whose
 * changes all concern the same set of parents unless that set is all of
 * them: there the result took one parent's version (or the changes of
 * all but one), which is no news. Each hunk is headed
 * "@@@ -a,b -c,d +e,f @@@" (one '@' per parent and one more, every
 * count given, even 1 or 0), with git's function line for combined
 * diffs: the last line before the hunk (and after the previous one)
 * that starts with a letter, '_' or '$', its first 40 bytes up to their
 * last non-space byte, that byte left out (git prints it so). Lines are
 * printed without "\ No newline at end of file", and a CR before a
 * newline stays at the end of its line, as git's. */
#ifndef WG_DIFF_COMBINED_H
#define WG_DIFF_COMBINED_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/line_diff.h"
#include "util/buf.h"

/* The most parents a combined diff takes (each has a bit of a 64-bit
 * mask, and git's two marks take two more). */
#define WG_COMBINED_MAX_PARENTS 62

struct wg_combined_blob {
	const char *data;
	size_t len;
};

struct wg_combined_options {
	long context;                     /* lines of context (3) */
	bool dense;                       /* --cc rather than -c */
	struct wg_line_diff_options lines;
};
#define WG_COMBINED_OPTIONS_INIT { 3, true, WG_LINE_DIFF_OPTIONS_INIT }

/* Append the hunks of result against the parents to out; *shown tells
 * whether there was any (a dense diff may have none left). The texts are
 * not copied and need only live through the call. More parents than
 * WG_COMBINED_MAX_PARENTS, or none, is WG_EINVALID. */
int wg_combined_hunks(struct wg_buf *out, bool *shown, const struct wg_combined_blob *result,
		      const struct wg_combined_blob *parents, size_t nparents,
		      const struct wg_combined_options *opts);

#endif
