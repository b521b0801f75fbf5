/* Some of a diff's hunks applied (see hunk_select.h). */
#include "diff/hunk_select.h"

#include <string.h>

int wg_hunk_select_init(struct wg_hunk_select *hs, const char *old, size_t old_len,
			const char *new, size_t new_len)
{
	size_t new_diffed = new_len;
	int err;

	memset(hs, 0, sizeof(*hs));
	hs->old = old;
	hs->old_len = old_len;
	hs->old_diffed = old_len;
	wg_line_diff_trim_tail(old, &hs->old_diffed, new, &new_diffed);
	if ((err = wg_line_diff_run(&hs->diff, old, hs->old_diffed, new, new_diffed)))
		return err;
	hs->n = hs->diff.n;
	return 0;
}

/* Append lines [from, to) of one side. */
static int add_lines(struct wg_buf *out, const struct wg_line_side *side, long from, long to)
{
	int err = 0;
	for (long i = from; i < to && !err; i++)
		err = wg_buf_add(out, side->lines[i].ptr, side->lines[i].size);
	return err;
}

int wg_hunk_select_apply(struct wg_buf *out, const struct wg_hunk_select *hs, const bool *take)
{
	const struct wg_line_diff *d = &hs->diff;
	size_t tail;
	long pos = 0;
	int err = 0;

	for (size_t k = 0; k < d->n && !err; k++) {
		const struct wg_line_change *c = &d->v[k];
		if (!(err = add_lines(out, &d->a, pos, c->i1)))
			err = take[k] ? add_lines(out, &d->b, c->i2, c->i2 + c->chg2)
				: add_lines(out, &d->a, c->i1, c->i1 + c->chg1);
		pos = c->i1 + c->chg1;
	}
	/* the rest of old, with the tail the diff did not see */
	tail = pos < d->a.n ? (size_t)(d->a.lines[pos].ptr - hs->old) : hs->old_diffed;
	return err ? err : wg_buf_add(out, hs->old + tail, hs->old_len - tail);
}

void wg_hunk_select_release(struct wg_hunk_select *hs)
{
	wg_line_diff_release(&hs->diff);
	memset(hs, 0, sizeof(*hs));
}
