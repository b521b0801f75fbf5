/* Unified hunks (unified.h), grouped and headed as xdiff's emitter does. */
#include <ctype.h>
#include <stdio.h>
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

/* "-a,b" or "+c,d": an empty range names the line before it, and a count
 * of 1 is left out */
static int format_range(char *at, size_t room, char sign, long start, long count)
{
	if (count == 1)
		return snprintf(at, room, "%c%ld", sign, start + 1);
	return snprintf(at, room, "%c%ld,%ld", sign, count ? start + 1 : start, count);
}

/* the hunk of lines s1..e1 (old) and s2..e2 (new), headed as xdiff does */
static void hunk_header(struct wg_hunk *h, long s1, long e1, long s2, long e2, const char *func,
			long funclen)
{
	size_t n = 0, room;
	h->old_start = e1 - s1 ? s1 + 1 : s1;
	h->old_count = e1 - s1;
	h->new_start = e2 - s2 ? s2 + 1 : s2;
	h->new_count = e2 - s2;
	n += (size_t)snprintf(h->header, sizeof(h->header), "@@ ");
	n += (size_t)format_range(h->header + n, sizeof(h->header) - n, '-', s1, e1 - s1);
	n += (size_t)snprintf(h->header + n, sizeof(h->header) - n, " ");
	n += (size_t)format_range(h->header + n, sizeof(h->header) - n, '+', s2, e2 - s2);
	n += (size_t)snprintf(h->header + n, sizeof(h->header) - n, " @@");
	h->func_at = n;
	h->func_len = 0;
	if (funclen) {
		/* xdiff cuts the function line to fit its 128-byte header */
		room = WG_HUNK_HEADER_MAX - n - 2;
		h->header[n++] = ' ';
		h->func_at = n;
		h->func_len = (size_t)funclen < room ? (size_t)funclen : room;
		memcpy(h->header + n, func, h->func_len);
		n += h->func_len;
	}
	h->header[n] = '\0';
	h->header_len = n;
}

int wg_unified_walk(const struct wg_line_diff *d, const struct wg_unified_options *opts,
		    const struct wg_hunk_sink *sink)
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
		struct wg_hunk h;
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
		hunk_header(&h, s1, e1, s2, e2, func, funclen);
		if ((err = sink->hunk(sink->payload, &h)))
			return err;

		/* context lines are the new text's, numbered on both sides */
		for (; s2 < xch->i2; s1++, s2++)
			if ((err = sink->line(sink->payload, ' ', &d->b.lines[s2], s1 + 1, s2 + 1)))
				return err;
		l1 = xch->i1;
		l2 = xch->i2;
		for (size_t k = first; k <= last; k++) {
			const struct wg_line_change *c = &d->v[k];
			for (; l1 < c->i1 && l2 < c->i2; l1++, l2++)
				if ((err = sink->line(sink->payload, ' ', &d->b.lines[l2], l1 + 1,
						      l2 + 1)))
					return err;
			for (l1 = c->i1; l1 < c->i1 + c->chg1; l1++)
				if ((err = sink->line(sink->payload, '-', &d->a.lines[l1], l1 + 1, 0)))
					return err;
			for (l2 = c->i2; l2 < c->i2 + c->chg2; l2++)
				if ((err = sink->line(sink->payload, '+', &d->b.lines[l2], 0, l2 + 1)))
					return err;
		}
		for (l1 = xche->i1 + xche->chg1, l2 = xche->i2 + xche->chg2; l2 < e2; l1++, l2++)
			if ((err = sink->line(sink->payload, ' ', &d->b.lines[l2], l1 + 1, l2 + 1)))
				return err;
		at = last + 1;
	}
	return 0;
}

int wg_unified_text_hunk(void *payload, const struct wg_hunk *h)
{
	struct wg_buf *out = payload;
	int err = wg_buf_add(out, h->header, h->header_len);
	return err ? err : wg_buf_addch(out, '\n');
}

int wg_unified_text_line(void *payload, char type, const struct wg_line *l, long old_no,
			 long new_no)
{
	struct wg_buf *out = payload;
	int err;
	(void)old_no;
	(void)new_no;
	if ((err = wg_buf_addch(out, type)) || (err = wg_buf_add(out, l->ptr, l->size)))
		return err;
	if (l->size && l->ptr[l->size - 1] != '\n')
		return wg_buf_adds(out, "\n\\ No newline at end of file\n");
	return 0;
}

int wg_unified_hunks(struct wg_buf *out, const struct wg_line_diff *d,
		     const struct wg_unified_options *opts)
{
	struct wg_hunk_sink text = { wg_unified_text_hunk, wg_unified_text_line, out };
	return wg_unified_walk(d, opts, &text);
}
