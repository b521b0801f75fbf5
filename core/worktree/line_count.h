/* How many lines a change adds and removes, as git's diffstat counts them
 * (the "+"/"-" lines of a diff between two blobs): the changes of git's
 * own line diff (diff/line_diff.h), heuristics and all, so the counts are
 * git's also where xdiff gives up minimality on large, very different
 * inputs. */
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
