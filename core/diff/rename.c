/* Rename detection as git's diffcore-rename does it (see rename.h). */
#include "diff/rename.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/sort.h"

#define CANDIDATES_PER_DST 4
#define BINARY_PROBE 8000      /* bytes searched for a NUL: git's FIRST_FEW_BYTES */
#define CHUNK_HASH_BASE 107927 /* the modulus of git's chunk hash */

/* One chunk value of a file and how many bytes carry it. */
struct chunk {
	uint32_t hash;
	uint32_t bytes;
};

/* What similarity needs of a file, computed once. */
struct file_state {
	int uses;             /* a source's pairs, plus one for a file that stays
			       * (git's rename_used) */
	bool skip;            /* no candidate (empty, or stays without copies) */
	bool sized, counted;
	size_t size;
	struct chunk *chunks; /* by hash, each hash once */
	size_t nchunks;
};

static int chunk_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct chunk *)a)->hash, y = ((const struct chunk *)b)->hash;
	return x < y ? -1 : x > y;
}

/* Cut the content into chunks ending at a newline or after 64 bytes, a
 * text file's CR before LF left out, and sum the bytes per chunk value
 * (git's hash_chars: two 32-bit accumulators shifted by 7). */
static int count_chunks(struct file_state *f, const unsigned char *p, size_t n)
{
	bool text = !memchr(p, 0, n < BINARY_PROBE ? n : BINARY_PROBE);
	struct chunk *v = NULL;
	size_t nv = 0, alloc = 0;
	uint32_t a1 = 0, a2 = 0, len = 0;

	for (size_t i = 0; i <= n; i++) {
		bool end = i == n;
		if (!end) {
			uint32_t c = p[i], old1 = a1;
			if (text && c == '\r' && i + 1 < n && p[i + 1] == '\n')
				continue;
			a1 = (a1 << 7) ^ (a2 >> 25);
			a2 = (a2 << 7) ^ (old1 >> 25);
			a1 += c;
			if (++len < 64 && c != '\n')
				continue;
		} else if (!len) {
			break;
		}
		if (nv == alloc) {
			size_t na = alloc ? 2 * alloc : 64;
			struct chunk *nvv = wg_realloc(v, na * sizeof(*v));
			if (!nvv) {
				wg_free(v);
				return WG_ENOMEM;
			}
			v = nvv;
			alloc = na;
		}
		v[nv].hash = (a1 + a2 * 0x61) % CHUNK_HASH_BASE;
		v[nv].bytes = len;
		nv++;
		len = a1 = a2 = 0;
	}
	wg_sort(v, nv, sizeof(*v), chunk_cmp);
	/* one entry per value */
	size_t w = 0;
	for (size_t i = 0; i < nv; i++) {
		if (w && v[w - 1].hash == v[i].hash)
			v[w - 1].bytes += v[i].bytes;
		else
			v[w++] = v[i];
	}
	f->chunks = v;
	f->nchunks = w;
	f->counted = true;
	return 0;
}

static int load(struct wg_odb *odb, const struct wg_rename_file *file, struct file_state *f,
		bool counts)
{
	struct wg_buf data = WG_BUF_INIT;
	enum wg_object_type type;
	int err;

	if (!f->sized && !counts) {
		if ((err = wg_odb_read_header(odb, &file->oid, &type, &f->size)))
			return err;
		f->sized = true;
		return 0;
	}
	if (f->counted)
		return 0;
	if ((err = wg_odb_read(odb, &file->oid, &type, &data)))
		return err;
	f->size = data.len;
	f->sized = true;
	err = count_chunks(f, data.data ? data.data : (const unsigned char *)"", data.len);
	wg_buf_release(&data);
	return err;
}

static bool is_regular(unsigned mode)
{
	return (mode & 0170000) == 0100000;
}

/* git's estimate_similarity: 0..MAX_SCORE, 0 when not worth comparing. */
static int similarity(struct wg_odb *odb, const struct wg_rename_file *s, struct file_state *sf,
		      const struct wg_rename_file *d, struct file_state *df, int min_score,
		      int *out)
{
	size_t max, base, copied = 0;
	int err;

	*out = 0;
	if (!is_regular(s->mode) || !is_regular(d->mode))
		return 0;
	if ((err = load(odb, s, sf, false)) || (err = load(odb, d, df, false)))
		return err;
	max = sf->size > df->size ? sf->size : df->size;
	base = sf->size < df->size ? sf->size : df->size;
	/* a size change this large cannot reach the minimum (base 0 too) */
	if ((uint64_t)max * (uint64_t)(WG_RENAME_MAX_SCORE - min_score) <
	    (uint64_t)(max - base) * WG_RENAME_MAX_SCORE)
		return 0;
	if ((err = load(odb, s, sf, true)) || (err = load(odb, d, df, true)))
		return err;
	/* the bytes of each chunk value the destination has from the source */
	for (size_t i = 0, j = 0; i < sf->nchunks && j < df->nchunks;) {
		if (sf->chunks[i].hash < df->chunks[j].hash) {
			i++;
		} else if (sf->chunks[i].hash > df->chunks[j].hash) {
			j++;
		} else {
			uint32_t a = sf->chunks[i].bytes, b = df->chunks[j].bytes;
			copied += a < b ? a : b;
			i++;
			j++;
		}
	}
	if (df->size)
		*out = (int)((uint64_t)copied * WG_RENAME_MAX_SCORE / max);
	return 0;
}

/* Do the two paths end in the same file name? (git's basename_same) */
static bool same_basename(const char *a, const char *b)
{
	const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
	return !strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b);
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

struct candidate {
	int src, dst;        /* dst -1: an empty slot */
	int score;
	int name_score;
};

/* git's score_compare: empty slots last, then higher scores, then the
 * same basename first. */
static int candidate_cmp(const void *a_, const void *b_)
{
	const struct candidate *a = a_, *b = b_;
	if (a->dst < 0)
		return b->dst >= 0;
	if (b->dst < 0)
		return -1;
	if (a->score == b->score)
		return b->name_score - a->name_score;
	return b->score - a->score;
}

/* Keep a destination's best CANDIDATES_PER_DST (git's record_if_better). */
static void keep_if_better(struct candidate *m, const struct candidate *c)
{
	int worst = 0;
	for (int i = 1; i < CANDIDATES_PER_DST; i++)
		if (candidate_cmp(&m[i], &m[worst]) > 0)
			worst = i;
	if (candidate_cmp(&m[worst], c) > 0)
		m[worst] = *c;
}

struct by_oid {
	const struct wg_rename_file *files;
	size_t index;
};

static int by_oid_cmp(const void *a_, const void *b_)
{
	const struct by_oid *a = a_, *b = b_;
	int c = wg_oid_cmp(&a->files[a->index].oid, &b->files[b->index].oid);
	return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* The same blob: for each destination in order, among the sources with
 * its id (in source order, at most 100 looked at), the best by git's
 * score: one for a source not used yet (renames look at no other), one
 * for the same basename; the first of the best. */
static int exact_pass(const struct wg_rename_file *src, size_t nsrc, struct file_state *ss,
		      const struct wg_rename_file *dst, size_t ndst, int *src_of, int *score,
		      const bool *skip_dst, bool copies, size_t *found)
{
	struct by_oid *idx = wg_calloc(nsrc ? nsrc : 1, sizeof(*idx));
	if (!idx)
		return WG_ENOMEM;
	for (size_t i = 0; i < nsrc; i++)
		idx[i] = (struct by_oid){ src, i };
	wg_sort(idx, nsrc, sizeof(*idx), by_oid_cmp);
	for (size_t d = 0; d < ndst; d++) {
		size_t lo = 0, hi = nsrc;
		int best = -1, best_score = -1, budget = 100;
		if (skip_dst[d])
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (wg_oid_cmp(&src[idx[mid].index].oid, &dst[d].oid) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < nsrc && wg_oid_equal(&src[idx[k].index].oid, &dst[d].oid);
		     k++) {
			size_t s = idx[k].index;
			int sc;
			if ((!is_regular(src[s].mode) || !is_regular(dst[d].mode)) &&
			    src[s].mode != dst[d].mode)
				continue;
			if (ss[s].skip || (ss[s].uses && !copies))
				continue;
			sc = !ss[s].uses + same_basename(src[s].path, dst[d].path);
			if (sc > best_score) {
				best = (int)s;
				best_score = sc;
				if (sc == 2)
					break;
			}
			if (!--budget)
				break;
		}
		if (best >= 0) {
			src_of[d] = best;
			score[d] = WG_RENAME_MAX_SCORE;
			ss[best].uses++;
			(*found)++;
		}
	}
	wg_free(idx);
	return 0;
}

struct name_slot {
	const char *name;
	long index;      /* -1: the name is not unique */
};

static int name_slot_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_slot *)a)->name, ((const struct name_slot *)b)->name);
}

/* Basenames and the one index each belongs to (-1 when several). */
static struct name_slot *unique_names(size_t *n_out, const struct wg_rename_file *files,
				      size_t n, const bool *skip)
{
	struct name_slot *v = wg_calloc(n ? n : 1, sizeof(*v));
	size_t w = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!skip[i])
			v[w++] = (struct name_slot){ basename_of(files[i].path), (long)i };
	wg_sort(v, w, sizeof(*v), name_slot_cmp);
	size_t out = 0;
	for (size_t i = 0; i < w;) {
		size_t j = i + 1;
		while (j < w && !strcmp(v[j].name, v[i].name))
			j++;
		v[out] = v[i];
		if (j - i > 1)
			v[out].index = -1;
		out++;
		i = j;
	}
	*n_out = out;
	return v;
}

static long lookup_name(const struct name_slot *v, size_t n, const char *name, bool *present)
{
	struct name_slot key = { name, 0 };
	const struct name_slot *hit = bsearch(&key, v, n, sizeof(*v), name_slot_cmp);
	*present = hit != NULL;
	return hit ? hit->index : -1;
}

/* A source and a destination whose basenames are unique on both sides
 * pair when their similarity reaches `min` (git's find_basename_matches). */
static int basename_pass(struct wg_odb *odb, const struct wg_rename_file *src, size_t nsrc,
			 struct file_state *ss, const struct wg_rename_file *dst, size_t ndst,
			 struct file_state *ds, int min, int *src_of, int *score, bool *taken,
			 size_t *found)
{
	struct name_slot *sn, *dn;
	size_t nsn, ndn;
	int err = 0;

	bool *used = wg_calloc(nsrc ? nsrc : 1, sizeof(*used));
	if (!used)
		return WG_ENOMEM;
	for (size_t i = 0; i < nsrc; i++)
		used[i] = ss[i].uses || ss[i].skip;
	sn = unique_names(&nsn, src, nsrc, used);
	wg_free(used);
	if (!sn)
		return WG_ENOMEM;
	if (!(dn = unique_names(&ndn, dst, ndst, taken))) {
		wg_free(sn);
		return WG_ENOMEM;
	}
	for (size_t s = 0; s < nsrc && !err; s++) {
		bool present;
		long si, di;
		int sc;
		if (ss[s].uses || ss[s].skip)
			continue;
		si = lookup_name(sn, nsn, basename_of(src[s].path), &present);
		di = lookup_name(dn, ndn, basename_of(src[s].path), &present);
		if (!present || si < 0 || di < 0 || taken[di])
			continue;
		if ((err = similarity(odb, &src[s], &ss[s], &dst[di], &ds[di], min, &sc)))
			break;
		if (sc < min)
			continue;
		src_of[di] = (int)s;
		score[di] = sc;
		taken[di] = true;
		ss[s].uses++;
		(*found)++;
	}
	wg_free(sn);
	wg_free(dn);
	return err;
}

int wg_rename_parse_score(const char *s)
{
	uint64_t num = 0, scale = 1;
	bool dot = false;

	for (;; s++) {
		if (!dot && *s == '.') {
			scale = 1;
			dot = true;
		} else if (*s == '%') {
			scale = dot ? scale * 100 : 100;
			s++;
			break;
		} else if (*s >= '0' && *s <= '9') {
			if (scale < 100000) {
				scale *= 10;
				num = num * 10 + (uint64_t)(*s - '0');
			}
		} else {
			break;
		}
	}
	if (*s)
		return -1;
	return num >= scale ? WG_RENAME_MAX_SCORE : (int)(WG_RENAME_MAX_SCORE * num / scale);
}

int wg_detect_renames(struct wg_odb *odb, const struct wg_rename_file *src, size_t nsrc,
		      const struct wg_rename_file *dst, size_t ndst,
		      const struct wg_rename_options *opts, int *src_of, int *score,
		      bool *limited)
{
	struct wg_rename_options ro = WG_RENAME_OPTIONS_INIT;
	struct wg_rename_result res;
	int err;

	if (opts)
		ro = *opts;
	ro.copies = WG_COPIES_NONE;
	err = wg_detect_copies(odb, src, nsrc, dst, ndst, &ro, src_of, score, NULL, &res);
	if (limited)
		*limited = res.limited;
	return err;
}

/* Can source s still pair in the matrix? Renames take a source once;
 * copies any source, but -C -C degraded for the limit skips the
 * unmodified ones. */
static bool matrix_source(const struct file_state *f, const struct wg_rename_file *s,
			  bool copies, bool skip_unmodified)
{
	if (f->skip || (!copies && f->uses))
		return false;
	return !(skip_unmodified && s->kept == WG_RENAME_UNMODIFIED);
}

int wg_detect_copies(struct wg_odb *odb, const struct wg_rename_file *src, size_t nsrc,
		     const struct wg_rename_file *dst, size_t ndst,
		     const struct wg_rename_options *opts, int *src_of, int *score,
		     bool *is_copy, struct wg_rename_result *res)
{
	struct wg_rename_options defaults = WG_RENAME_OPTIONS_INIT;
	struct file_state *ss = NULL, *ds = NULL;
	struct candidate *mx = NULL;
	bool *taken = NULL, copies, skip_unmodified = false;
	size_t found = 0, live_src = 0, live_dst = 0, rows = 0;
	int min, err = 0;
	struct wg_oid empty;

	if (!opts)
		opts = &defaults;
	copies = opts->copies != WG_COPIES_NONE;
	min = opts->min_score > 0 ? opts->min_score : WG_RENAME_DEFAULT_SCORE;
	memset(res, 0, sizeof(*res));
	for (size_t i = 0; i < ndst; i++) {
		src_of[i] = -1;
		score[i] = 0;
		if (is_copy)
			is_copy[i] = false;
	}
	if (!nsrc || !ndst)
		return 0;
	ss = wg_calloc(nsrc, sizeof(*ss));
	ds = wg_calloc(ndst, sizeof(*ds));
	taken = wg_calloc(ndst, sizeof(*taken));
	if (!ss || !ds || !taken) {
		err = WG_ENOMEM;
		goto out;
	}
	wg_oid_empty_blob(&empty, wg_oid_algo(&dst[0].oid));
	for (size_t i = 0; i < nsrc; i++) {
		/* a file that stays is a source only for copies (and
		 * -C -C's unmodified ones only when asked) */
		if (src[i].kept != WG_RENAME_GONE &&
		    (!copies || (src[i].kept == WG_RENAME_UNMODIFIED &&
				 opts->copies != WG_COPIES_HARDER)))
			ss[i].skip = true;
		else if (opts->skip_empty && wg_oid_equal(&src[i].oid, &empty))
			ss[i].skip = true;   /* empty files are no candidates */
		else if (src[i].kept != WG_RENAME_GONE)
			ss[i].uses = 1;      /* the file itself stays: each use a copy */
	}
	if (opts->skip_empty)
		for (size_t i = 0; i < ndst; i++)
			if (wg_oid_equal(&dst[i].oid, &empty))
				taken[i] = true;

	if ((err = exact_pass(src, nsrc, ss, dst, ndst, src_of, score, taken, copies, &found)))
		goto out;
	for (size_t i = 0; i < ndst; i++)
		if (src_of[i] >= 0)
			taken[i] = true;
	if (min >= WG_RENAME_MAX_SCORE)
		goto done;
	/* git matches unique basenames first for renames only: a copy's
	 * source may serve several destinations */
	if (!copies &&
	    (err = basename_pass(odb, src, nsrc, ss, dst, ndst, ds,
				 min + (WG_RENAME_MAX_SCORE - min) / 2, src_of, score, taken,
				 &found)))
		goto out;

	for (size_t i = 0; i < nsrc; i++)
		live_src += matrix_source(&ss[i], &src[i], copies, false);
	for (size_t i = 0; i < ndst; i++)
		live_dst += !taken[i];
	if (!live_src || !live_dst)
		goto done;
	if (opts->limit > 0 &&
	    (uint64_t)live_src * live_dst > (uint64_t)opts->limit * (uint64_t)opts->limit) {
		size_t modified = 0;
		res->needed = live_src > live_dst ? live_src : live_dst;
		/* -C -C: would -C's sources fit? (git's too_many_rename_candidates) */
		if (opts->copies == WG_COPIES_HARDER) {
			for (size_t i = 0; i < nsrc; i++)
				modified += matrix_source(&ss[i], &src[i], copies, true);
			if ((uint64_t)modified * live_dst <=
			    (uint64_t)opts->limit * (uint64_t)opts->limit) {
				res->degraded = true;
				skip_unmodified = true;
			}
		}
		if (!res->degraded) {
			res->limited = true;
			goto done;
		}
	}

	/* the matrix: each remaining destination's best sources */
	if (!(mx = wg_calloc(live_dst * CANDIDATES_PER_DST, sizeof(*mx)))) {
		err = WG_ENOMEM;
		goto out;
	}
	for (size_t d = 0; d < ndst && !err; d++) {
		struct candidate *m;
		if (taken[d])
			continue;
		m = &mx[rows++ * CANDIDATES_PER_DST];
		for (int k = 0; k < CANDIDATES_PER_DST; k++)
			m[k].dst = -1;
		for (size_t s = 0; s < nsrc; s++) {
			struct candidate c;
			if (!matrix_source(&ss[s], &src[s], copies, skip_unmodified))
				continue;
			if ((err = similarity(odb, &src[s], &ss[s], &dst[d], &ds[d], min, &c.score)))
				break;
			c.name_score = same_basename(src[s].path, dst[d].path);
			c.dst = (int)d;
			c.src = (int)s;
			keep_if_better(m, &c);
		}
	}
	if (err)
		goto out;
	wg_sort(mx, rows * CANDIDATES_PER_DST, sizeof(*mx), candidate_cmp);
	/* renames first, from sources not used yet; then, for copies, what
	 * is left from any source (git's two find_renames rounds) */
	for (int round = 0; round < (copies ? 2 : 1); round++) {
		for (size_t i = 0; i < rows * CANDIDATES_PER_DST; i++) {
			if (mx[i].dst < 0 || mx[i].score < min)
				break;
			if (taken[mx[i].dst] || (!round && ss[mx[i].src].uses))
				continue;
			src_of[mx[i].dst] = mx[i].src;
			score[mx[i].dst] = mx[i].score;
			taken[mx[i].dst] = true;
			ss[mx[i].src].uses++;
			found++;
		}
	}
done:
	/* git's diff_resolve_rename_copy: in destination order each use
	 * counts a source's uses down; while some remain it is a copy, so a
	 * deleted file's last use is its rename and a staying file's all
	 * copies */
	if (is_copy)
		for (size_t d = 0; d < ndst; d++)
			if (src_of[d] >= 0)
				is_copy[d] = --ss[src_of[d]].uses > 0;
out:
	if (ss)
		for (size_t i = 0; i < nsrc; i++)
			wg_free(ss[i].chunks);
	if (ds)
		for (size_t i = 0; i < ndst; i++)
			wg_free(ds[i].chunks);
	wg_free(ss);
	wg_free(ds);
	wg_free(taken);
	wg_free(mx);
	return err;
}

int wg_rename_similarities(struct wg_odb *odb, const struct wg_rename_file *dst,
			   const struct wg_rename_file *src, size_t n, int min_score, int *score)
{
	struct file_state ds = { 0 };
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		struct file_state ss = { 0 };
		err = similarity(odb, &src[i], &ss, dst, &ds, min_score, &score[i]);
		wg_free(ss.chunks);
	}
	wg_free(ds.chunks);
	return err;
}

int wg_rename_label(struct wg_buf *out, const char *a, const char *b)
{
	struct wg_buf qa = WG_BUF_INIT, qb = WG_BUF_INIT;
	ptrdiff_t la = (ptrdiff_t)strlen(a), lb = (ptrdiff_t)strlen(b);
	ptrdiff_t pfx = 0, sfx = 0, adjust, ia, ib, amid, bmid;
	int err;

	if ((err = wg_quote_c_style(&qa, a, (size_t)la)) ||
	    (err = wg_quote_c_style(&qb, b, (size_t)lb)))
		goto out;
	if (qa.data[0] == '"' || qb.data[0] == '"') {
		/* a quoted name is shown whole */
		err = wg_buf_printf(out, "%s => %s", wg_buf_cstr(&qa), wg_buf_cstr(&qb));
		goto out;
	}
	/* the common leading directories */
	for (ia = 0; a[ia] && a[ia] == b[ia]; ia++)
		if (a[ia] == '/')
			pfx = ia + 1;
	/* the common trailing part from a '/' on; with a common prefix it may
	 * end at the prefix's own slash */
	adjust = pfx ? 1 : 0;
	for (ia = la, ib = lb; ia >= pfx - adjust && ib >= pfx - adjust && a[ia] == b[ib];
	     ia--, ib--)
		if (a[ia] == '/')
			sfx = la - ia;
	amid = la - pfx - sfx > 0 ? la - pfx - sfx : 0;
	bmid = lb - pfx - sfx > 0 ? lb - pfx - sfx : 0;
	if (pfx + sfx && ((err = wg_buf_add(out, a, (size_t)pfx)) || (err = wg_buf_addch(out, '{'))))
		goto out;
	if ((err = wg_buf_add(out, a + pfx, (size_t)amid)) || (err = wg_buf_adds(out, " => ")) ||
	    (err = wg_buf_add(out, b + pfx, (size_t)bmid)))
		goto out;
	if (pfx + sfx && !(err = wg_buf_addch(out, '}')))
		err = wg_buf_add(out, a + la - sfx, (size_t)sfx);
out:
	wg_buf_release(&qa);
	wg_buf_release(&qb);
	return err;
}

int wg_rename_run_init(struct wg_rename_run *run, size_t max)
{
	memset(run, 0, sizeof(*run));
	run->src = wg_calloc(max + 1, sizeof(*run->src));
	run->dst = wg_calloc(max + 1, sizeof(*run->dst));
	run->src_at = wg_calloc(max + 1, sizeof(*run->src_at));
	run->dst_at = wg_calloc(max + 1, sizeof(*run->dst_at));
	run->src_of = wg_calloc(max + 1, sizeof(*run->src_of));
	run->score = wg_calloc(max + 1, sizeof(*run->score));
	run->is_copy = wg_calloc(max + 1, sizeof(*run->is_copy));
	if (!run->src || !run->dst || !run->src_at || !run->dst_at || !run->src_of || !run->score ||
	    !run->is_copy) {
		wg_rename_run_release(run);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	return 0;
}

void wg_rename_run_add_src(struct wg_rename_run *run, struct wg_rename_file f, size_t at)
{
	run->src[run->nsrc] = f;
	run->src_at[run->nsrc++] = at;
}

void wg_rename_run_add_dst(struct wg_rename_run *run, struct wg_rename_file f, size_t at)
{
	run->src_of[run->ndst] = -1;
	run->dst[run->ndst] = f;
	run->dst_at[run->ndst++] = at;
}

int wg_rename_run_detect(struct wg_rename_run *run, struct wg_odb *odb,
			 const struct wg_rename_options *opts)
{
	int err;
	if (!run->nsrc || !run->ndst)
		return 0;
	err = wg_detect_copies(odb, run->src, run->nsrc, run->dst, run->ndst, opts, run->src_of,
			       run->score, run->is_copy, &run->result);
	run->limited = run->result.limited;
	return err;
}

void wg_rename_run_release(struct wg_rename_run *run)
{
	wg_free(run->src);
	wg_free(run->dst);
	wg_free(run->src_at);
	wg_free(run->dst_at);
	wg_free(run->src_of);
	wg_free(run->score);
	wg_free(run->is_copy);
	memset(run, 0, sizeof(*run));
}
