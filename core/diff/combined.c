/* Combined diffs of a merge (combined.h). */
#include <stdint.h>
#include <string.h>

#include "diff/combined.h"
#include "util/alloc.h"
#include "util/error.h"

/* A parent's line that the result does not have, before a result line;
 * `parents` has the bit of every parent that lost it there. */
struct lost_line {
	const char *text;
	size_t len;            /* without its newline */
	uint64_t parents;
};

/* A line of the result (and one more past the end, for lines lost after
 * the last): `flags` has the bit of each parent that lacks the line,
 * then SHOWN (in a hunk) and NO_LOST (context: its lost lines belong to
 * a hunk that was dropped). */
struct result_line {
	const char *text;
	size_t len;
	uint64_t flags;
	struct lost_line *lost;
	size_t nlost;
};

struct combined {
	struct result_line *l;
	long cnt;              /* lines of the result; l has cnt + 2 */
	size_t np;
	long *lno;             /* (cnt + 2) x np: each parent's line number at l[i] */
	uint64_t all, shown, no_lost;
	const struct wg_combined_options *opts;
};

static long *parent_lno(struct combined *c, long i, size_t n)
{
	return &c->lno[(size_t)i * c->np + n];
}

static bool ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* Whether two lost lines are the same line for the whitespace options,
 * compared as git compares them, from their ends: trailing whitespace
 * counts for none of the options; with -w or -b a run of whitespace in
 * both lines (-b: in both; -w: in either) is skipped, down to the first
 * byte of the line, which is compared as it is. */
static bool same_line(const struct lost_line *a, const struct lost_line *b, unsigned flags)
{
	const char *p = a->text, *q = b->text;
	size_t n = a->len, m = b->len;
	if (!flags)
		return n == m && !memcmp(p, q, n);
	while (n && ws(p[n - 1]))
		n--;
	while (m && ws(q[m - 1]))
		m--;
	if (!(flags & (WG_DIFF_IGNORE_ALL_SPACE | WG_DIFF_IGNORE_SPACE_CHANGE)))
		return n == m && !memcmp(p, q, n);
	while (n && m) {
		bool sp = ws(p[--n]), sq = ws(q[--m]);
		if (sp || sq) {
			if ((flags & WG_DIFF_IGNORE_SPACE_CHANGE) && !(sp && sq))
				return false;
			while (n && ws(p[n]))
				n--;
			while (m && ws(q[m]))
				m--;
		}
		if (p[n] != q[m])
			return false;
	}
	if (flags & WG_DIFF_IGNORE_ALL_SPACE) {
		while (n && ws(p[n - 1]))
			n--;
		while (m && ws(q[m - 1]))
			m--;
	}
	return !n && !m;
}

/* The most cells of the table that merges two lists of lost lines: past
 * it (thousands of lines lost by two parents at one place) the new lines
 * follow the old ones without being merged, which keeps the memory
 * bounded where git's output would merge them. */
#define MAX_MERGE_CELLS ((size_t)16 << 20)

/* Merge the lines parent n lost before l (nl of them, from its text)
 * into those lost there already: along their longest common subsequence
 * a line lost by both takes n's bit, the others are inserted where the
 * subsequence puts them (a tie goes to the new line after the old). */
static int add_lost(struct combined *c, struct result_line *l, const struct wg_line *nl,
		    long nnew, size_t n)
{
	uint64_t bit = (uint64_t)1 << n;
	size_t nb = l->nlost, nn = (size_t)nnew, cols = nn + 1, w;
	struct lost_line *add, *merged;
	unsigned *row = NULL, *prev;
	unsigned char *way = NULL;   /* 0 both, 1 old only, 2 new only */

	if (!(add = wg_calloc(nn, sizeof(*add))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t j = 0; j < nn; j++) {
		add[j].text = nl[j].ptr;
		add[j].len = nl[j].size;
		if (add[j].len && add[j].text[add[j].len - 1] == '\n')
			add[j].len--;
		add[j].parents = bit;
	}
	if (!nb) {
		wg_free(l->lost);
		l->lost = add;
		l->nlost = nn;
		return 0;
	}
	if (!(merged = wg_calloc(nb + nn, sizeof(*merged)))) {
		wg_free(add);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	if ((nb + 1) > MAX_MERGE_CELLS / cols) {
		/* too much to merge: the new lines follow */
		memcpy(merged, l->lost, nb * sizeof(*merged));
		memcpy(merged + nb, add, nn * sizeof(*merged));
		wg_free(add);
		wg_free(l->lost);
		l->lost = merged;
		l->nlost = nb + nn;
		return 0;
	}
	/* the lengths need two rows; the ways the whole table */
	if (!(row = wg_calloc(2 * cols, sizeof(*row))) || !(way = wg_calloc((nb + 1) * cols, 1))) {
		wg_free(row);
		wg_free(merged);
		wg_free(add);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i <= nb; i++)
		way[i * cols] = 1;
	for (size_t j = 1; j <= nn; j++)
		way[j] = 2;
	for (size_t i = 1; i <= nb; i++) {
		unsigned *cur = row + (i & 1) * cols;
		prev = row + ((i - 1) & 1) * cols;
		cur[0] = 0;
		for (size_t j = 1; j <= nn; j++) {
			unsigned char *wy = &way[i * cols + j];
			if (same_line(&l->lost[i - 1], &add[j - 1], c->opts->lines.whitespace)) {
				cur[j] = prev[j - 1] + 1;
				*wy = 0;
			} else if (cur[j - 1] >= prev[j]) {
				cur[j] = cur[j - 1];
				*wy = 2;
			} else {
				cur[j] = prev[j];
				*wy = 1;
			}
		}
	}
	wg_free(row);
	/* walk back from the end, writing the merged list from its end */
	w = nb + nn;
	for (size_t i = nb, j = nn; i || j;) {
		switch (way[i * cols + j]) {
		case 0:
			merged[--w] = l->lost[--i];
			merged[w].parents |= bit;
			j--;
			break;
		case 2:
			merged[--w] = add[--j];
			break;
		default:
			merged[--w] = l->lost[--i];
			break;
		}
	}
	memmove(merged, merged + w, (nb + nn - w) * sizeof(*merged));
	wg_free(l->lost);
	l->lost = merged;
	l->nlost = nb + nn - w;
	wg_free(way);
	wg_free(add);
	return 0;
}

/* Compare the result with parent n. */
static int diff_parent(struct combined *c, const struct wg_combined_blob *result,
		       const struct wg_combined_blob *parent, size_t n)
{
	struct wg_line_diff d;
	uint64_t bit = (uint64_t)1 << n;
	size_t alen = parent->len, blen = result->len;
	long p = 1;
	int err;

	/* as git's diff without context: a long common tail is cut first */
	wg_line_diff_trim_tail(parent->data, &alen, result->data, &blen);
	if ((err = wg_line_diff_run_with(&d, parent->data, alen, result->data, blen,
					 &c->opts->lines)))
		return err;
	for (size_t k = 0; k < d.n && !err; k++) {
		const struct wg_line_change *ch = &d.v[k];
		for (long i = ch->i2; i < ch->i2 + ch->chg2; i++)
			c->l[i].flags |= bit;
		if (ch->chg1)
			err = add_lost(c, &c->l[ch->i2], &d.a.lines[ch->i1], ch->chg1, n);
	}
	wg_line_diff_release(&d);
	if (err)
		return err;
	/* the parent's line number where each result line would start a hunk */
	for (long i = 0; i <= c->cnt; i++) {
		*parent_lno(c, i, n) = p;
		for (size_t k = 0; k < c->l[i].nlost; k++)
			if (c->l[i].lost[k].parents & bit)
				p++;
		if (i < c->cnt && !(c->l[i].flags & bit))
			p++;
	}
	*parent_lno(c, c->cnt + 1, n) = p;
	return 0;
}

/* Parent n has the bytes of parent m: it takes m's columns. */
static void same_as(struct combined *c, size_t n, size_t m)
{
	uint64_t bn = (uint64_t)1 << n, bm = (uint64_t)1 << m;
	for (long i = 0; i <= c->cnt + 1; i++) {
		*parent_lno(c, i, n) = *parent_lno(c, i, m);
		if (i > c->cnt)
			break;
		for (size_t k = 0; k < c->l[i].nlost; k++)
			if (c->l[i].lost[k].parents & bm)
				c->l[i].lost[k].parents |= bn;
		if (c->l[i].flags & bm)
			c->l[i].flags |= bn;
	}
}

static bool shown(const struct combined *c, long i)
{
	return (c->l[i].flags & c->shown) != 0;
}

/* From i on, the first line that is shown (want true) or not; cnt + 1
 * when there is none. */
static long next_line(const struct combined *c, long i, bool want)
{
	while (i <= c->cnt && shown(c, i) != want)
		i++;
	return i;
}

/* The end of a run of shown lines from begin that ends before i: a last
 * line shown only for the lines lost before it already gives a line of
 * context after them, so it counts as context. */
static long run_end(const struct combined *c, long begin, long i)
{
	if (begin + 1 <= i && !(c->l[i - 1].flags & c->all))
		i--;
	return i;
}

/* Show the context around the shown lines (joining runs that it
 * bridges); whether anything is shown. */
static bool add_context(struct combined *c)
{
	long ctx = c->opts->context < 0 ? 0 : c->opts->context;
	long i = next_line(c, 0, true);
	if (i > c->cnt)
		return false;
	while (i <= c->cnt) {
		/* the context before: its own lost lines are not this hunk's */
		for (long j = i > ctx ? i - ctx : 0; j < i; j++) {
			if (!shown(c, j))
				c->l[j].flags |= c->no_lost;
			c->l[j].flags |= c->shown;
		}
		for (;;) {
			long j = next_line(c, i, false), k;
			if (j > c->cnt)
				return true;
			k = next_line(c, j, true);
			j = run_end(c, i, j);
			if (k < j + ctx) {
				/* a short gap: the runs join */
				for (; j < k; j++)
					c->l[j].flags |= c->shown;
				i = k;
				continue;
			}
			long end = j + ctx < c->cnt + 1 ? j + ctx : c->cnt + 1;
			for (; j < end; j++)
				c->l[j].flags |= c->shown;
			i = k;
			break;
		}
	}
	return true;
}

/* --cc: drop each hunk whose changes all concern one same set of
 * parents, unless that is all of them. */
static void drop_dull_hunks(struct combined *c)
{
	long ctx = c->opts->context < 0 ? 0 : c->opts->context;
	long i = 0;
	while (i <= c->cnt) {
		long begin, end;
		uint64_t same = 0;
		bool news = false;
		i = next_line(c, i, true);
		if (i > c->cnt)
			break;
		begin = i;
		/* the hunk goes on over gaps that its context would bridge */
		for (end = i + 1; end <= c->cnt; end++) {
			if (shown(c, end))
				continue;
			long lim = run_end(c, begin, end) + ctx, m;
			if (lim > c->cnt + 1)
				lim = c->cnt + 1;
			for (m = lim - 1; m >= end && !shown(c, m); m--)
				;
			if (m < end)
				break;
			end = m;
		}
		for (long j = begin; j < end && !news; j++) {
			uint64_t d = c->l[j].flags & c->all;
			if (d) {
				if (!same)
					same = d;
				else if (same != d)
					news = true;
			}
			for (size_t k = 0; k < c->l[j].nlost && !news; k++) {
				d = c->l[j].lost[k].parents;
				if (!same)
					same = d;
				else if (same != d)
					news = true;
			}
		}
		if (!news && same != c->all)
			for (long j = begin; j < end; j++)
				c->l[j].flags &= ~c->shown;
		i = end;
	}
}

static bool starts_function(const struct result_line *l)
{
	unsigned char ch = l->len ? (unsigned char)l->text[0] : 0;
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '$';
}

static int add_columns(struct wg_buf *out, const struct combined *c, uint64_t bits, char mark)
{
	int err = 0;
	for (size_t n = 0; n < c->np && !err; n++)
		err = wg_buf_addch(out, bits & ((uint64_t)1 << n) ? mark : ' ');
	return err;
}

static int add_line(struct wg_buf *out, const char *text, size_t len)
{
	int err = wg_buf_add(out, text, len);
	return err ? err : wg_buf_addch(out, '\n');
}

static int add_ats(struct wg_buf *out, size_t n)
{
	int err = 0;
	for (size_t k = 0; k <= n && !err; k++)
		err = wg_buf_addch(out, '@');
	return err;
}

static int print_hunks(struct wg_buf *out, const struct combined *c)
{
	long ctx = c->opts->context < 0 ? 0 : c->opts->context;
	long lno = 0;
	int err = 0;

	while (!err) {
		const struct result_line *func = NULL;
		long end, rlines, blank = 0;
		for (; lno <= c->cnt && !shown(c, lno); lno++)
			if (lno < c->cnt && starts_function(&c->l[lno]))
				func = &c->l[lno];
		if (lno > c->cnt)
			break;
		end = next_line(c, lno + 1, false);
		rlines = end - lno;
		if (end > c->cnt)
			rlines--;   /* the line past the end holds lost lines only */
		if (!ctx) {
			/* without context, lines shown only to hold lost lines
			 * are not printed nor counted */
			for (long j = lno; j < end; j++)
				if (!(c->l[j].flags & c->all))
					blank++;
			rlines -= blank;
		}
		if ((err = add_ats(out, c->np)))
			return err;
		for (size_t n = 0; n < c->np && !err; n++) {
			long a = *parent_lno((struct combined *)c, lno, n);
			long b = *parent_lno((struct combined *)c, end, n);
			/* counts as git prints them, unsigned (without context,
			 * a count can go below zero and wrap) */
			err = wg_buf_printf(out, " -%ld,%llu", a,
					    (unsigned long long)(uint64_t)(int64_t)(b - a - blank));
		}
		if (err || (err = wg_buf_printf(out, " +%ld,%llu ", lno + 1,
						  (unsigned long long)(uint64_t)(int64_t)rlines)) ||
		    (err = add_ats(out, c->np)))
			return err;
		if (func) {
			/* git's: the first 40 bytes up to the last non-space one,
			 * which is left out */
			size_t last = 0;
			for (size_t i = 0; i < 40 && i < func->len && func->text[i]; i++)
				if (!ws(func->text[i]))
					last = i;
			if (last && ((err = wg_buf_addch(out, ' ')) ||
				     (err = wg_buf_add(out, func->text, last))))
				return err;
		}
		if ((err = wg_buf_addch(out, '\n')))
			return err;
		while (lno < end && !err) {
			const struct result_line *l = &c->l[lno++];
			if (!(l->flags & c->no_lost))
				for (size_t k = 0; k < l->nlost && !err; k++)
					if (!(err = add_columns(out, c, l->lost[k].parents, '-')))
						err = add_line(out, l->lost[k].text, l->lost[k].len);
			if (err || lno > c->cnt)
				break;
			if (!(l->flags & c->all) && !ctx)
				continue;
			if (!(err = add_columns(out, c, l->flags, '+')))
				err = add_line(out, l->text, l->len);
		}
	}
	return err;
}

int wg_combined_hunks(struct wg_buf *out, bool *any, const struct wg_combined_blob *result,
		      const struct wg_combined_blob *parents, size_t nparents,
		      const struct wg_combined_options *opts)
{
	struct combined c;
	const char *p = result->data, *end = result->data + result->len;
	long cnt = 0;
	int err = 0;

	*any = false;
	if (!nparents || nparents > WG_COMBINED_MAX_PARENTS)
		return wg_error_set(WG_EINVALID, "a combined diff takes 1 to %d parents, not %zu",
				    WG_COMBINED_MAX_PARENTS, nparents);
	for (const char *q = p; q < end; q++)
		cnt += *q == '\n';
	if (result->len && end[-1] != '\n')
		cnt++;
	memset(&c, 0, sizeof(c));
	c.cnt = cnt;
	c.np = nparents;
	c.opts = opts;
	c.all = ((uint64_t)1 << nparents) - 1;
	c.shown = (uint64_t)1 << nparents;
	c.no_lost = (uint64_t)2 << nparents;
	if (!(c.l = wg_calloc((size_t)cnt + 2, sizeof(*c.l))) ||
	    !(c.lno = wg_calloc(((size_t)cnt + 2), nparents * sizeof(*c.lno)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (long i = 0; i < cnt; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		c.l[i].text = p;
		c.l[i].len = (size_t)((nl ? nl : end) - p);
		p = nl ? nl + 1 : end;
	}
	for (size_t n = 0; n < nparents && !err; n++) {
		size_t m;
		for (m = 0; m < n; m++)
			if (parents[m].len == parents[n].len &&
			    (!parents[n].len || !memcmp(parents[m].data, parents[n].data, parents[n].len)))
				break;
		if (m < n)
			same_as(&c, n, m);
		else
			err = diff_parent(&c, result, &parents[n], n);
	}
	if (err)
		goto out;
	for (long i = 0; i <= cnt; i++) {
		if ((c.l[i].flags & c.all) || c.l[i].nlost)
			c.l[i].flags |= c.shown;
	}
	if (opts->dense)
		drop_dull_hunks(&c);
	if ((*any = add_context(&c)))
		err = print_hunks(out, &c);
out:
	if (c.l)
		for (long i = 0; i < cnt + 2; i++)
			wg_free(c.l[i].lost);
	wg_free(c.l);
	wg_free(c.lno);
	return err;
}
