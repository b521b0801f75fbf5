/* Unified hunks as git prints them: the changes of a line diff grouped
 * with their context (-U<n>, --inter-hunk-context), each hunk under its
 * "@@ -a,b +c,d @@" header with the function line git's default rule
 * finds above it (the nearest earlier line of the old text that starts
 * with a letter, '_' or '$', trailing whitespace cut, at most 80 bytes),
 * lines prefixed ' ', '-', '+', and "\ No newline at end of file" after a
 * last line without one.
 *
 * The grouping is done once, by wg_unified_walk, which hands each hunk and
 * each of its lines to a sink: the patch text is one sink
 * (wg_unified_hunks), structured hunks for JavaScript another, so both
 * describe the same hunks by construction. */
#ifndef WG_DIFF_UNIFIED_H
#define WG_DIFF_UNIFIED_H

#include <stdbool.h>

#include "diff/line_diff.h"
#include "util/buf.h"

struct wg_unified_options {
	long context;          /* lines of context (git's default 3) */
	long inter_hunk;       /* extra lines between hunks that join them */
};
#define WG_UNIFIED_OPTIONS_INIT { 3, 0 }

/* xdiff formats a hunk header in this many bytes, cutting the function
 * line to fit */
#define WG_HUNK_HEADER_MAX 128

/* One hunk, with the numbers its header shows: a start is 1-based, and an
 * empty range names the line before it (0 before the first). */
struct wg_hunk {
	long old_start, old_count, new_start, new_count;
	/* the header line as git prints it, without its newline: "@@ -a,b
	 * +c,d @@" and, if one was found, a space and the function line */
	char header[WG_HUNK_HEADER_MAX];
	size_t header_len;
	size_t func_at, func_len;   /* the function line within header */
};

/* What a walk hands out. `line` gets the type (' ', '-', '+'), the line
 * (with its newline if it has one: no newline means git's "\ No newline
 * at end of file" follows) and its 1-based numbers in the old and the new
 * text (0 on the side that lacks it). A non-zero return stops the walk
 * and is returned. */
struct wg_hunk_sink {
	int (*hunk)(void *payload, const struct wg_hunk *h);
	int (*line)(void *payload, char type, const struct wg_line *l, long old_no, long new_no);
	void *payload;
};

/* Hand the hunks of d, in order, to sink (nothing when d has no changes). */
int wg_unified_walk(const struct wg_line_diff *d, const struct wg_unified_options *opts,
		    const struct wg_hunk_sink *sink);

/* Append the hunks of d to out as patch text. */
int wg_unified_hunks(struct wg_buf *out, const struct wg_line_diff *d,
		     const struct wg_unified_options *opts);

/* The sink wg_unified_hunks walks with, for callers that tee it (payload:
 * the struct wg_buf to append to). */
int wg_unified_text_hunk(void *payload, const struct wg_hunk *h);
int wg_unified_text_line(void *payload, char type, const struct wg_line *l, long old_no,
			 long new_no);

#endif
