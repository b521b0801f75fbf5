/* Line counts of a change: the changes of git's line diff (diff/line_diff.h)
 * summed, as git's diffstat sums its "+" and "-" lines. */
#include "worktree/line_count.h"

#include "diff/line_diff.h"

int wg_diff_line_count(const void *a, size_t alen, const void *b, size_t blen,
		       size_t *added, size_t *removed)
{
	struct wg_line_diff d;
	int err = wg_line_diff_run(&d, a ? a : "", alen, b ? b : "", blen);
	*added = *removed = 0;
	if (err)
		return err;
	for (size_t i = 0; i < d.n; i++) {
		*added += (size_t)d.v[i].chg2;
		*removed += (size_t)d.v[i].chg1;
	}
	wg_line_diff_release(&d);
	return 0;
}
