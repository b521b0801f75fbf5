/* The line diff's run (line_diff.h): both sides split into lines and
 * classified once, the chosen algorithm marks changed lines, the groups
 * are slid (xdiff_compact.c) and the list of changes built. */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "diff/line_diff.h"
#include "diff/xdiff_internal.h"
#include "util/alloc.h"
#include "util/error.h"

static int split_lines(struct wg_line_side *s, const char *p, size_t len)
{
	size_t n = 0, cap = 0;
	const char *end = p + len;
	s->lines = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct wg_line *v = wg_realloc(s->lines, ncap * sizeof(*v));
			if (!v)
				return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
			s->lines = v;
			cap = ncap;
		}
		s->lines[n].ptr = p;
		s->lines[n].size = (size_t)(next - p);
		n++;
		p = next;
	}
	s->n = (long)n;
	return 0;
}

struct classes {
	long *slot;          /* hash table of class ids + 1, 0 empty */
	size_t mask;
	const struct wg_line **first;   /* a line of each class */
	uint32_t *hash;
	long *count[2];      /* lines of each class in a, in b */
	long n;
};

static uint32_t line_hash(const struct wg_line *l)
{
	uint32_t h = 5381;
	for (size_t i = 0; i < l->size; i++)
		h = (h * 33) ^ (unsigned char)l->ptr[i];
	return h;
}

static int classify(struct classes *c, const struct wg_line_side *a,
		    const struct wg_line_side *b, long *cls_a, long *cls_b)
{
	size_t total = (size_t)a->n + (size_t)b->n, size = 16;
	while (size < total * 2)
		size <<= 1;
	c->mask = size - 1;
	c->slot = wg_calloc(size, sizeof(long));
	c->first = wg_calloc(total + 1, sizeof(*c->first));
	c->hash = wg_calloc(total + 1, sizeof(*c->hash));
	c->count[0] = wg_calloc(total + 1, sizeof(long));
	c->count[1] = wg_calloc(total + 1, sizeof(long));
	if (!c->slot || !c->first || !c->hash || !c->count[0] || !c->count[1])
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	c->n = 0;
	for (int side = 0; side < 2; side++) {
		const struct wg_line_side *s = side ? b : a;
		long *cls = side ? cls_b : cls_a;
		for (long i = 0; i < s->n; i++) {
			const struct wg_line *l = &s->lines[i];
			uint32_t h = line_hash(l);
			size_t at = h & c->mask;
			long id;
			for (;;) {
				long e = c->slot[at];
				if (!e) {
					id = c->n++;
					c->slot[at] = id + 1;
					c->first[id] = l;
					c->hash[id] = h;
					break;
				}
				if (c->hash[e - 1] == h && c->first[e - 1]->size == l->size &&
				    !memcmp(c->first[e - 1]->ptr, l->ptr, l->size)) {
					id = e - 1;
					break;
				}
				at = (at + 1) & c->mask;
			}
			cls[i] = id;
			c->count[side][id]++;
		}
	}
	return 0;
}

static void classes_release(struct classes *c)
{
	wg_free(c->slot);
	wg_free(c->first);
	wg_free(c->hash);
	wg_free(c->count[0]);
	wg_free(c->count[1]);
}

static int build_script(struct wg_line_diff *d)
{
	const bool *c1 = d->a.changed, *c2 = d->b.changed;
	long i1 = 0, i2 = 0;
	size_t cap = 0;
	while (i1 < d->a.n || i2 < d->b.n) {
		if (c1[i1] || c2[i2]) {
			struct wg_line_change ch = { i1, i2, 0, 0 };
			while (c1[i1])
				i1++;
			while (c2[i2])
				i2++;
			ch.chg1 = i1 - ch.i1;
			ch.chg2 = i2 - ch.i2;
			if (d->n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct wg_line_change *v = wg_realloc(d->v, ncap * sizeof(*v));
				if (!v)
					return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
				d->v = v;
				cap = ncap;
			}
			d->v[d->n++] = ch;
		} else {
			i1++;
			i2++;
		}
	}
	return 0;
}

void wg_line_diff_trim_tail(const char *a, size_t *alen, const char *b, size_t *blen)
{
	const size_t blk = 1024;
	size_t trimmed = 0, recovered = 0;
	size_t smaller = *alen < *blen ? *alen : *blen;
	const char *ap = a + *alen, *bp = b + *blen;
	while (blk + trimmed <= smaller && !memcmp(ap - blk, bp - blk, blk)) {
		trimmed += blk;
		ap -= blk;
		bp -= blk;
	}
	while (recovered < trimmed)
		if (ap[recovered++] == '\n')
			break;
	*alen -= trimmed - recovered;
	*blen -= trimmed - recovered;
}

static const char *const algorithm_names[] = {
	[WG_DIFF_MYERS] = "myers",
	[WG_DIFF_MINIMAL] = "minimal",
	[WG_DIFF_PATIENCE] = "patience",
	[WG_DIFF_HISTOGRAM] = "histogram",
};

int wg_diff_algorithm_parse(const char *name, enum wg_diff_algorithm *out)
{
	if (!name)
		return wg_error_set(WG_EINVALID, "no diff algorithm given");
	if (!strcasecmp(name, "default")) {
		*out = WG_DIFF_MYERS;
		return 0;
	}
	for (size_t i = 0; i < sizeof(algorithm_names) / sizeof(*algorithm_names); i++)
		if (!strcasecmp(name, algorithm_names[i])) {
			*out = (enum wg_diff_algorithm)i;
			return 0;
		}
	return wg_error_set(WG_EINVALID, "unknown diff algorithm '%s'", name);
}

const char *wg_diff_algorithm_name(enum wg_diff_algorithm algo)
{
	if ((size_t)algo >= sizeof(algorithm_names) / sizeof(*algorithm_names))
		return NULL;
	return algorithm_names[algo];
}

/* The part of line l that the whitespace options compare, written at
 * *at: what git's xdl_recmatch compares and its hash hashes (the newline
 * never counts with any of them). */
static struct wg_line canonical(const struct wg_line *l, unsigned ws, char **at)
{
	const unsigned char *p = (const unsigned char *)l->ptr;
	size_t n = l->size, o = 0;
	char *out = *at;
	if (ws & WG_DIFF_IGNORE_ALL_SPACE) {
		for (size_t i = 0; i < n; i++)
			if (!wg_xdiff_isspace(p[i]))
				out[o++] = (char)p[i];
	} else if (ws & (WG_DIFF_IGNORE_SPACE_CHANGE | WG_DIFF_IGNORE_SPACE_AT_EOL)) {
		while (n && wg_xdiff_isspace(p[n - 1]))
			n--;
		for (size_t i = 0; i < n; i++) {
			if ((ws & WG_DIFF_IGNORE_SPACE_CHANGE) && wg_xdiff_isspace(p[i])) {
				while (i + 1 < n && wg_xdiff_isspace(p[i + 1]))
					i++;
				out[o++] = ' ';
			} else {
				out[o++] = (char)p[i];
			}
		}
	} else {
		/* --ignore-cr-at-eol: the newline, and a CR before it */
		if (n && p[n - 1] == '\n') {
			n--;
			if (n && p[n - 1] == '\r')
				n--;
		}
		memcpy(out, p, n);
		o = n;
	}
	*at += o;
	return (struct wg_line){ out, o };
}

/* The lines as the options compare them: the sides themselves, or their
 * canonical forms written at *at. */
static int compared_lines(const struct wg_line_side *s, unsigned ws, char **at,
			  struct wg_line_side *out)
{
	*out = *s;
	if (!ws)
		return 0;
	out->lines = wg_malloc(((size_t)s->n + 1) * sizeof(*out->lines));
	if (!out->lines)
		return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
	for (long i = 0; i < s->n; i++)
		out->lines[i] = canonical(&s->lines[i], ws, at);
	return 0;
}

static bool *changed_alloc(long n)
{
	bool *c = wg_calloc((size_t)n + 2, sizeof(bool));
	return c ? c + 1 : NULL;
}

int wg_line_diff_run_with(struct wg_line_diff *out, const char *a, size_t alen, const char *b,
			  size_t blen, const struct wg_line_diff_options *opts)
{
	static const struct wg_line_diff_options defaults = WG_LINE_DIFF_OPTIONS_INIT;
	struct classes cl = { 0 };
	struct wg_xdiff_env env = { 0 };
	long *cls[2] = { NULL, NULL };
	struct wg_line_side cmp_a = { 0 }, cmp_b = { 0 };
	char *store = NULL, *at;
	unsigned ws = 0;
	int err;

	if (!opts)
		opts = &defaults;
	ws = opts->whitespace & (WG_DIFF_IGNORE_ALL_SPACE | WG_DIFF_IGNORE_SPACE_CHANGE |
				 WG_DIFF_IGNORE_SPACE_AT_EOL | WG_DIFF_IGNORE_CR_AT_EOL);
	memset(out, 0, sizeof(*out));
	if ((err = split_lines(&out->a, a, alen)) || (err = split_lines(&out->b, b, blen)))
		goto fail;
	out->a.changed = changed_alloc(out->a.n);
	out->b.changed = changed_alloc(out->b.n);
	cls[0] = wg_calloc((size_t)out->a.n + 1, sizeof(long));
	cls[1] = wg_calloc((size_t)out->b.n + 1, sizeof(long));
	if (!out->a.changed || !out->b.changed || !cls[0] || !cls[1]) {
		err = wg_error_set(WG_ENOMEM, "out of memory diffing lines");
		goto fail;
	}
	/* a canonical line is never longer than the line */
	if (ws && !(store = wg_malloc(alen + blen + 1))) {
		err = wg_error_set(WG_ENOMEM, "out of memory diffing lines");
		goto fail;
	}
	at = store;
	if ((err = compared_lines(&out->a, ws, &at, &cmp_a)) ||
	    (err = compared_lines(&out->b, ws, &at, &cmp_b)) ||
	    (err = classify(&cl, &cmp_a, &cmp_b, cls[0], cls[1])))
		goto fail;
	env.lines[0] = out->a.lines;
	env.lines[1] = out->b.lines;
	env.cls[0] = cls[0];
	env.cls[1] = cls[1];
	env.changed[0] = out->a.changed;
	env.changed[1] = out->b.changed;
	env.n[0] = out->a.n;
	env.n[1] = out->b.n;
	env.nclasses = cl.n;
	/* the classifier's counts are no longer needed: zeroed, they are the
	 * searches' scratch */
	memset(cl.count[0], 0, ((size_t)cl.n + 1) * sizeof(long));
	memset(cl.count[1], 0, ((size_t)cl.n + 1) * sizeof(long));
	env.scratch[0] = cl.count[0];
	env.scratch[1] = cl.count[1];
	switch (opts->algorithm) {
	case WG_DIFF_PATIENCE:
		err = wg_xdiff_patience(&env);
		break;
	case WG_DIFF_HISTOGRAM:
		err = wg_xdiff_histogram(&env);
		break;
	case WG_DIFF_MINIMAL:
	case WG_DIFF_MYERS:
		err = wg_xdiff_myers(&env, 0, env.n[0], 0, env.n[1],
				     opts->algorithm == WG_DIFF_MINIMAL);
		break;
	default:
		err = wg_error_set(WG_EINVALID, "unknown diff algorithm %d", (int)opts->algorithm);
	}
	if (err || (err = wg_xdiff_compact(&env, 0, !opts->no_indent_heuristic)) ||
	    (err = wg_xdiff_compact(&env, 1, !opts->no_indent_heuristic)) ||
	    (err = build_script(out)))
		goto fail;
	goto done;
fail:
	wg_line_diff_release(out);
done:
	if (ws) {
		wg_free(cmp_a.lines);
		wg_free(cmp_b.lines);
	}
	wg_free(store);
	wg_free(cls[0]);
	wg_free(cls[1]);
	classes_release(&cl);
	return err;
}

int wg_line_diff_run(struct wg_line_diff *out, const char *a, size_t alen, const char *b,
		     size_t blen)
{
	return wg_line_diff_run_with(out, a, alen, b, blen, NULL);
}

void wg_line_diff_release(struct wg_line_diff *d)
{
	if (!d)
		return;
	wg_free(d->a.lines);
	wg_free(d->b.lines);
	if (d->a.changed)
		wg_free(d->a.changed - 1);
	if (d->b.changed)
		wg_free(d->b.changed - 1);
	wg_free(d->v);
	memset(d, 0, sizeof(*d));
}
