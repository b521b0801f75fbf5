/* How many lines a change adds and removes, as git's diffstat counts them
 * (the "+"/"-" lines of a diff between two blobs).
 *
 * A line is its bytes up to and including its newline, so a last line
 * without one differs from the same text with one, as in xdiff. The counts
 * come from a minimal edit script (Myers' O(ND) algorithm: the length of
 * the longest common subsequence of lines), which is what git's xdiff
 * finds for ordinary changes. xdiff gives up minimality on purpose for
 * very large, very different inputs (its cost limit and its discarding of
 * lines that occur more than 1024 times); there its counts can be higher
 * than these. */
#ifndef WG_WORKTREE_LINE_COUNT_H
#define WG_WORKTREE_LINE_COUNT_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/patch.h"   /* wg_diff_is_binary */

/* Lines of b not in a (*added) and lines of a not in b (*removed).
 * WG_ENOMEM only. */
int wg_diff_line_count(const void *a, size_t alen, const void *b, size_t blen,
		       size_t *added, size_t *removed);

#endif
