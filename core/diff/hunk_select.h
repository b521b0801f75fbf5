/* A text with some of the hunks of a diff applied, for a split that
 * takes part of a file's change (worktree/history_edit.h) as git add -p
 * takes part of a file.
 *
 * The hunks are those git diff -U0 shows between the two versions: one
 * per change of the line diff (git's default algorithm), after dropping a
 * common tail of whole 1024-byte blocks, as git does before a diff
 * without context, so that numbers given by a front end from diff()'s
 * contextLines: 0 name the same hunks. The result is `old` with each
 * hunk whose take[] is set replaced by its lines of `new`: taking every
 * hunk gives `new`, taking none gives `old`. Binary texts are the
 * caller's to refuse. */
#ifndef WG_DIFF_HUNK_SELECT_H
#define WG_DIFF_HUNK_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/line_diff.h"
#include "util/buf.h"

struct wg_hunk_select {
	const char *old;
	size_t old_len, old_diffed;   /* old_diffed: without the common tail */
	struct wg_line_diff diff;
	size_t n;                     /* the hunks */
};

/* Diff old against new (neither copied: both must outlive `hs`). */
int wg_hunk_select_init(struct wg_hunk_select *hs, const char *old, size_t old_len,
			const char *new, size_t new_len);
/* Append to out the text with the hunks i for which take[i] (hs->n
 * entries) is set taken from new. */
int wg_hunk_select_apply(struct wg_buf *out, const struct wg_hunk_select *hs, const bool *take);
void wg_hunk_select_release(struct wg_hunk_select *hs);

#endif
