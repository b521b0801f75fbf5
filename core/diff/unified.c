/* Unified hunks (unified.h), grouped and headed as xdiff's emitter does. */
#include <ctype.h>
#include <string.h>

#include "diff/unified.h"
#include "util/error.h"

#define FUNC_MAX 80   /* git keeps this much of a function line */

/* git's default function line rule; the length kept, or -1 */
static long func_line(const struct wg_line *l, char *buf)
{
	long len = (long)l->size;
	unsigned char c = l->size ? (unsigned char)l->ptr[0] : 0;
	if (len <= 0 || !(isalpha(c) || c == '_' || c == '$'))
		return -1;
	if (len > FUNC_MAX)
		len = FUNC_MAX;
	while (len > 0 && isspace((unsigned char)l->ptr[len - 1]))
		len--;
	memcpy(buf, l->ptr, (size_t)len);
	return len;
}

static int add_line(struct wg_buf *out, char prefix, const struct wg_line *l)
{
	int err;
	if ((err = wg_buf_addch(out, prefix)) || (err = wg_buf_add(out, l->ptr, l->size)))
		return err;
	if (l->size && l->ptr[l->size - 1] != '\n')
		return wg_buf_adds(out, "\n\\ No newline at end of file\n");
	return 0;
}

static int add_range(struct wg_buf *out, long start, long count)
{
	/* an empty range names the line before it */
	int err = wg_buf_printf(out, "%ld", count ? start + 1 : start);
	if (!err && count != 1)
		err = wg_buf_printf(out, ",%ld", count);
	return err;
}

int wg_unified_hunks(struct wg_buf *out, const struct wg_line_diff *d,
		     const struct wg_unified_options *opts)
{
	long ctx = opts->context < 0 ? 0 : opts->context;
	long max_common = 2 * ctx + (opts->inter_hunk < 0 ? 0 : opts->inter_hunk);
	long funclineprev = -1, funclen = 0;
	char func[FUNC_MAX];
	size_t at = 0;
	int err;

	while (at < d->n) {
		size_t first = at, last = at;
		long s1, s2, e1, e2, lctx, l1, l2;
		/* changes closer than twice the context join one hunk */
		while (last + 1 < d->n &&
		       d->v[last + 1].i1 - (d->v[last].i1 + d->v[last].chg1) <= max_common)
			last++;
		const struct wg_line_change *xch = &d->v[first], *xche = &d->v[last];
		s1 = xch->i1 - ctx > 0 ? xch->i1 - ctx : 0;
		s2 = xch->i2 - ctx > 0 ? xch->i2 - ctx : 0;
		lctx = ctx;
		if (lctx > d->a.n - (xche->i1 + xche->chg1))
			lctx = d->a.n - (xche->i1 + xche->chg1);
		if (lctx > d->b.n - (xche->i2 + xche->chg2))
			lctx = d->b.n - (xche->i2 + xche->chg2);
		e1 = xche->i1 + xche->chg1 + lctx;
		e2 = xche->i2 + xche->chg2 + lctx;

		/* the function line: searched from above the hunk up to the
		 * previous hunk's search start; found nothing, the last one stays */
		for (long l = s1 - 1; l != funclineprev && l >= 0 && l < d->a.n; l--) {
			long len = func_line(&d->a.lines[l], func);
			if (len >= 0) {
				funclen = len;
				break;
			}
		}
		funclineprev = s1 - 1;

		if ((err = wg_buf_adds(out, "@@ -")) || (err = add_range(out, s1, e1 - s1)) ||
		    (err = wg_buf_adds(out, " +")) || (err = add_range(out, s2, e2 - s2)) ||
		    (err = wg_buf_adds(out, " @@")))
			return err;
		if (funclen) {
			/* xdiff formats the header in 128 bytes */
			size_t hdr = 0, room;
			for (size_t i = out->len; i > 0 && out->data[i - 1] != '\n'; i--)
				hdr++;
			room = 128 - hdr - 2;
			if ((err = wg_buf_addch(out, ' ')) ||
			    (err = wg_buf_add(out, func, (size_t)funclen < room ? (size_t)funclen : room)))
				return err;
		}
		if ((err = wg_buf_addch(out, '\n')))
			return err;

		for (; s2 < xch->i2; s2++)
			if ((err = add_line(out, ' ', &d->b.lines[s2])))
				return err;
		l1 = xch->i1;
		l2 = xch->i2;
		for (size_t k = first; k <= last; k++) {
			const struct wg_line_change *c = &d->v[k];
			for (; l1 < c->i1 && l2 < c->i2; l1++, l2++)
				if ((err = add_line(out, ' ', &d->b.lines[l2])))
					return err;
			for (l1 = c->i1; l1 < c->i1 + c->chg1; l1++)
				if ((err = add_line(out, '-', &d->a.lines[l1])))
					return err;
			for (l2 = c->i2; l2 < c->i2 + c->chg2; l2++)
				if ((err = add_line(out, '+', &d->b.lines[l2])))
					return err;
		}
		for (l2 = xche->i2 + xche->chg2; l2 < e2; l2++)
			if ((err = add_line(out, ' ', &d->b.lines[l2])))
				return err;
		at = last + 1;
	}
	return 0;
}
