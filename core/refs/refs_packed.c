/* packed-refs: reading by binary search over the mapped file, and the
 * record format shared with the writer (refs_files.c). */
#include "refs/refs_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

static int corrupt(const struct wg_packed *p, size_t off, const char *why)
{
	const char *line = p->data + off, *eol = memchr(line, '\n', p->len - off);
	size_t n = eol ? (size_t)(eol - line) : p->len - off;
	return wg_error_set(WG_ECORRUPT, "packed-refs: %s: '%.*s'", why, (int)(n > 100 ? 100 : n),
			    line);
}

/* End of the line starting at off (the offset of its '\n'). The load
 * checks the file ends with '\n', so there always is one. */
static size_t eol_at(const struct wg_packed *p, size_t off)
{
	const char *e = memchr(p->data + off, '\n', p->len - off);
	return e ? (size_t)(e - p->data) : p->len;
}

int wg_packed_next(struct wg_packed_rec *out, const struct wg_packed *p, size_t *off)
{
	size_t o = *off, e, hexsz = p->algo->hexsz;
	if (!p->data || o >= p->len)
		return WG_ITEROVER;
	e = eol_at(p, o);
	if (e - o < hexsz + 2 || p->data[o + hexsz] != ' ' ||
	    wg_oid_from_hex(&out->oid, p->algo, p->data + o))
		return corrupt(p, o, "unexpected line");
	out->name = p->data + o + hexsz + 1;
	out->namelen = e - o - hexsz - 1;
	out->has_peeled = false;
	o = e + 1;
	if (o < p->len && p->data[o] == '^') {
		e = eol_at(p, o);
		if (e - o != hexsz + 1 || wg_oid_from_hex(&out->peeled, p->algo, p->data + o + 1))
			return corrupt(p, o, "unexpected peeled line");
		out->has_peeled = true;
		o = e + 1;
	}
	*off = o;
	return 0;
}

/* Start of the record containing offset pos (lo is a record start). */
static size_t record_start(const struct wg_packed *p, size_t lo, size_t pos)
{
	while (pos > lo && p->data[pos - 1] != '\n')
		pos--;
	if (pos > lo && p->data[pos] == '^') {
		pos--;  /* onto the '\n' ending the ref line */
		while (pos > lo && p->data[pos - 1] != '\n')
			pos--;
	}
	return pos;
}

/* Compare the name of the record at off with key. */
static int cmp_at(const struct wg_packed *p, size_t off, const char *key, size_t keylen)
{
	size_t hexsz = p->algo->hexsz, e = eol_at(p, off), n;
	const char *name;
	int c;
	if (e - off < hexsz + 2)
		return 0;  /* malformed: let the caller's parse report it */
	name = p->data + off + hexsz + 1;
	n = e - off - hexsz - 1;
	c = memcmp(name, key, n < keylen ? n : keylen);
	if (c)
		return c;
	return n < keylen ? -1 : n > keylen ? 1 : 0;
}

size_t wg_packed_seek(const struct wg_packed *p, const char *key, size_t keylen)
{
	size_t lo, hi;
	if (!p->data)
		return 0;
	lo = p->start;
	hi = p->len;
	while (lo < hi) {
		size_t mid = record_start(p, lo, lo + (hi - lo) / 2);
		if (cmp_at(p, mid, key, keylen) < 0) {
			struct wg_packed_rec rec;
			size_t next = mid;
			if (wg_packed_next(&rec, p, &next)) {
				wg_error_clear();
				next = eol_at(p, mid) + 1;  /* step over a bad line */
			}
			lo = next;
		} else {
			hi = mid;
		}
	}
	return lo;
}

int wg_packed_find(struct wg_packed_rec *out, const struct wg_packed *p, const char *name,
		   size_t namelen)
{
	size_t off = wg_packed_seek(p, name, namelen);
	int err;
	if (!p->data || off >= p->len)
		return WG_ENOTFOUND;
	if ((err = wg_packed_next(out, p, &off)))
		return err == WG_ITEROVER ? WG_ENOTFOUND : err;
	if (out->namelen != namelen || memcmp(out->name, name, namelen))
		return WG_ENOTFOUND;
	return 0;
}

/* --- loading ------------------------------------------------------------------ */

struct span {
	size_t off, len, namelen;
	const char *name;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	size_t n = x->namelen < y->namelen ? x->namelen : y->namelen;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->namelen < y->namelen ? -1 : x->namelen > y->namelen);
}

/* git accepts packed-refs without the "sorted" trait (old writers) and
 * sorts it; do the same, once, into a private copy. */
static int sort_records(struct wg_packed *p)
{
	struct span *spans = NULL;
	size_t n = 0, alloc = 0, off = p->start, i, pos, rec_start = p->start;
	struct wg_packed_rec rec;
	char *copy;
	int err = 0;
	while (!(err = wg_packed_next(&rec, p, &off))) {
		if (n == alloc) {
			size_t na = alloc ? alloc * 2 : 256;
			struct span *s = wg_realloc(spans, na * sizeof(*s));
			if (!s) {
				wg_free(spans);
				return wg_error_set(WG_ENOMEM, "out of memory sorting packed-refs");
			}
			spans = s;
			alloc = na;
		}
		spans[n].name = rec.name;
		spans[n].namelen = rec.namelen;
		spans[n].off = rec_start;
		spans[n].len = off - rec_start;
		rec_start = off;
		n++;
	}
	if (err != WG_ITEROVER) {
		wg_free(spans);
		return err;
	}
	if (n > 1)
		qsort(spans, n, sizeof(*spans), cmp_span);
	if (!(copy = wg_malloc(p->len ? p->len : 1))) {
		wg_free(spans);
		return wg_error_set(WG_ENOMEM, "out of memory sorting packed-refs");
	}
	memcpy(copy, p->data, p->start);
	for (pos = p->start, i = 0; i < n; i++) {
		memcpy(copy + pos, p->data + spans[i].off, spans[i].len);
		pos += spans[i].len;
	}
	wg_free(spans);
	if (p->storage == 1)
		wg_fs_unmap((void *)p->data, p->len);
	else
		wg_free((void *)p->data);
	p->data = copy;
	p->storage = 2;
	return 0;
}

static bool has_trait(const char *traits, size_t len, const char *trait)
{
	size_t n = strlen(trait), i;
	/* Traits are space-separated words after "# pack-refs with:". */
	for (i = 0; i + n <= len; i++)
		if ((i == 0 || traits[i - 1] == ' ') && !memcmp(traits + i, trait, n) &&
		    (i + n == len || traits[i + n] == ' '))
			return true;
	return false;
}

/* The checks and set-up of a file whose p->data (p->len > 0 bytes) is in
 * place: the final newline, the header's traits, sorting. */
static int parse_loaded(struct wg_packed *p, const char *path)
{
	static const char prefix[] = "# pack-refs with:";
	bool sorted = false;
	if (p->data[p->len - 1] != '\n')
		return wg_error_set(WG_ECORRUPT, "unterminated line in %s", path);
	if (p->len >= sizeof(prefix) - 1 && !memcmp(p->data, prefix, sizeof(prefix) - 1)) {
		size_t e = eol_at(p, 0);
		const char *t = p->data + sizeof(prefix) - 1;
		size_t tl = e - (sizeof(prefix) - 1);
		p->peeled = has_trait(t, tl, "peeled");
		p->fully_peeled = has_trait(t, tl, "fully-peeled");
		sorted = has_trait(t, tl, "sorted");
		p->start = e + 1;
	} else if (p->data[0] == '#') {
		/* Some other comment line: skip it as git's reader does. */
		p->start = eol_at(p, 0) + 1;
	}
	return sorted ? 0 : sort_records(p);
}

int wg_packed_parse(struct wg_packed **out, const char *data, size_t len,
		    const struct wg_hash_algo *algo, const char *name)
{
	struct wg_packed *p = wg_calloc(1, sizeof(*p));
	char *copy;
	int err;

	if (!p)
		return wg_error_set(WG_ENOMEM, "out of memory");
	p->algo = algo;
	if (len) {
		if (!(copy = wg_malloc(len))) {
			wg_free(p);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		memcpy(copy, data, len);
		p->data = copy;
		p->len = len;
		p->storage = 2;
		if ((err = parse_loaded(p, name ? name : "packed-refs"))) {
			wg_packed_free(p);
			return err;
		}
	}
	*out = p;
	return 0;
}

int wg_packed_load(struct wg_packed **out, const char *path, const struct wg_hash_algo *algo)
{
	struct wg_packed *p = wg_calloc(1, sizeof(*p));
	int fd, err = 0;

	if (!p)
		return wg_error_set(WG_ENOMEM, "out of memory");
	p->algo = algo;
	fd = wg_fs_open(path, O_RDONLY, 0);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			*out = p;
			return 0;
		}
		wg_free(p);
		return wg_error_set(WG_EIO, "cannot open '%s': %s", path, strerror(errno));
	}
	{
		unsigned char *data;
		bool mapped;
		if ((err = wg_fs_load_fd(fd, path, &data, &p->len, &mapped)))
			goto done;
		p->data = (const char *)data;
		p->storage = !data ? 0 : mapped ? 1 : 2;
		if (!data)
			goto done;
	}
	err = parse_loaded(p, path);
done:
	wg_fs_close(fd);
	if (err) {
		wg_packed_free(p);
		return err;
	}
	*out = p;
	return 0;
}

void wg_packed_free(struct wg_packed *p)
{
	if (!p)
		return;
	if (p->storage == 1)
		wg_fs_unmap((void *)p->data, p->len);
	if (p->storage == 2)
		wg_free((void *)p->data);
	wg_free(p);
}

int wg_packed_format_rec(struct wg_buf *out, const char *name, size_t namelen,
			 const struct wg_oid *oid, const struct wg_oid *peeled)
{
	char hex[WG_MAX_HEXSZ + 1];
	int err;
	if ((err = wg_buf_adds(out, wg_oid_to_hex(oid, hex))) ||
	    (err = wg_buf_addch(out, ' ')) || (err = wg_buf_add(out, name, namelen)) ||
	    (err = wg_buf_addch(out, '\n')))
		return err;
	if (peeled && ((err = wg_buf_addch(out, '^')) ||
		       (err = wg_buf_adds(out, wg_oid_to_hex(peeled, hex))) ||
		       (err = wg_buf_addch(out, '\n'))))
		return err;
	return 0;
}
