/* Line counts of a change: Myers' greedy forward search for the length of
 * the shortest edit script, after trimming the common ends. Only the
 * distance is needed, so one diagonal array suffices (no trace). */
#include "worktree/line_count.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

struct line {
	const unsigned char *p;
	size_t len;      /* the newline included, when there is one */
	uint64_t hash;
};

static int split(struct line **out, size_t *n, const unsigned char *s, size_t len)
{
	size_t count = 0, i = 0;
	for (size_t j = 0; j < len; j++)
		if (s[j] == '\n')
			count++;
	if (len && s[len - 1] != '\n')
		count++;
	*n = count;
	*out = NULL;
	if (!count)
		return 0;
	if (!(*out = wg_calloc(count, sizeof(**out))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t k = 0; k < count; k++) {
		const unsigned char *nl = memchr(s + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (s + i)) + 1 : len - i;
		uint64_t h = 1469598103934665603ull;  /* FNV-1a */
		for (size_t j = 0; j < l; j++)
			h = (h ^ s[i + j]) * 1099511628211ull;
		(*out)[k].p = s + i;
		(*out)[k].len = l;
		(*out)[k].hash = h;
		i += l;
	}
	return 0;
}

static bool same(const struct line *a, const struct line *b)
{
	return a->hash == b->hash && a->len == b->len && !memcmp(a->p, b->p, a->len);
}

int wg_diff_line_count(const void *a, size_t alen, const void *b, size_t blen,
		       size_t *added, size_t *removed)
{
	struct line *la = NULL, *lb = NULL;
	size_t n, m, lo = 0, d_found = 0;
	size_t *v = NULL;
	int err;

	if ((err = split(&la, &n, a, alen)) || (err = split(&lb, &m, b, blen)))
		goto out;
	/* the common ends cost nothing; what is left is searched */
	while (lo < n && lo < m && same(&la[lo], &lb[lo]))
		lo++;
	while (n > lo && m > lo && same(&la[n - 1], &lb[m - 1]))
		n--, m--;
	{
		const struct line *x0 = la + lo, *y0 = lb + lo;
		size_t N = n - lo, M = m - lo, max = N + M, cells;
		if (!N || !M) {
			d_found = max;
		} else if (wg_size_add(&cells, max, max) || wg_size_add(&cells, cells, 2) ||
			   !(v = wg_calloc(cells, sizeof(*v)))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		} else {
			/* v[max + k] is the furthest x reached on diagonal k = x - y */
			bool done = false;
			for (size_t d = 0; d <= max && !done; d++) {
				for (size_t j = 0; j <= d; j++) {
					long k = (long)(2 * j) - (long)d;
					size_t x, y;
					if (k == -(long)d || (k != (long)d && v[max + k - 1] < v[max + k + 1]))
						x = v[max + k + 1];
					else
						x = v[max + k - 1] + 1;
					y = (size_t)((long)x - k);
					while (x < N && y < M && same(&x0[x], &y0[y]))
						x++, y++;
					v[max + k] = x;
					if (x >= N && y >= M) {
						d_found = d;
						done = true;
						break;
					}
				}
			}
		}
		/* d = (N - common) + (M - common) */
		{
			size_t common = (N + M - d_found) / 2;
			*added = M - common;
			*removed = N - common;
		}
	}
out:
	wg_free(v);
	wg_free(la);
	wg_free(lb);
	return err;
}
