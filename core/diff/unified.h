/* Unified hunks as git prints them: the changes of a line diff grouped
 * with their context (-U<n>, --inter-hunk-context), each hunk under its
 * "@@ -a,b +c,d @@" header with the function line git's default rule
 * finds above it (the nearest earlier line of the old text that starts
 * with a letter, '_' or '$', trailing whitespace cut, at most 80 bytes),
 * lines prefixed ' ', '-', '+', and "\ No newline at end of file" after a
 * last line without one. */
#ifndef WG_DIFF_UNIFIED_H
#define WG_DIFF_UNIFIED_H

#include "diff/line_diff.h"
#include "util/buf.h"

struct wg_unified_options {
	long context;          /* lines of context (git's default 3) */
	long inter_hunk;       /* extra lines between hunks that join them */
};
#define WG_UNIFIED_OPTIONS_INIT { 3, 0 }

/* Append the hunks of d to out (nothing when d has no changes). */
int wg_unified_hunks(struct wg_buf *out, const struct wg_line_diff *d,
		     const struct wg_unified_options *opts);

#endif
