#include "pack/writer.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "pack/delta_create.h"
#include "pack/idx_write.h"
#include "pack/pack_format.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/error.h"
#include "util/sort.h"
#include "util/varint.h"

/* Git does not try to delta objects this small: the delta header and a
 * base reference would eat whatever could be saved. */
#define MIN_DELTA_SIZE 50
/* Deltas under this size are always kept from search to write. */
#define SMALL_DELTA 1000
#define OUT_BUF 65536
#define NONE UINT32_MAX

struct obj {
	struct wg_oid oid;
	size_t size;
	size_t delta_size;
	unsigned char *delta;   /* kept delta, or NULL: compute again */
	uint64_t offset;        /* in the pack; 0 until written */
	uint32_t name_hash;
	uint32_t base;          /* index of the delta base, or NONE */
	uint32_t crc;
	uint8_t type;           /* enum wg_object_type */
	bool have;              /* the receiver's: a base only, never sent */
};

struct wg_pack_writer {
	struct wg_object_source src;  /* a copy: the caller's may go */
	const struct wg_hash_algo *algo;
	struct wg_pack_writer_options opts;
	struct obj *objs;
	uint32_t nr, alloc;
	uint32_t *table;        /* open addressing on the id: index + 1 */
	size_t table_size;      /* a power of two */
	uint32_t nsend;
	size_t delta_cache;     /* bytes held by obj.delta */
	bool written;
	unsigned char checksum[WG_MAX_RAWSZ];
	struct wg_pack_writer_stats stats;
};

uint32_t wg_pack_name_hash(const char *path)
{
	uint32_t h = 0;
	unsigned char c;
	if (!path)
		return 0;
	/* Each character shifts the earlier ones two bits down, so the last
	 * sixteen non-blank characters decide the value, the last one most:
	 * files with the same ending sort next to each other. */
	while ((c = (unsigned char)*path++)) {
		if (isspace(c))
			continue;
		h = (h >> 2) + ((uint32_t)c << 24);
	}
	return h;
}

/* --- object table -------------------------------------------------------- */

static size_t oid_slot(const struct wg_oid *oid, size_t mask)
{
	const unsigned char *h = oid->hash;
	return ((size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3]) & mask;
}

static uint32_t lookup(const struct wg_pack_writer *w, const struct wg_oid *oid)
{
	size_t mask = w->table_size - 1, i;
	if (!w->table)
		return NONE;
	for (i = oid_slot(oid, mask); w->table[i]; i = (i + 1) & mask)
		if (wg_oid_equal(&w->objs[w->table[i] - 1].oid, oid))
			return w->table[i] - 1;
	return NONE;
}

static int grow(struct wg_pack_writer *w)
{
	if (w->nr == UINT32_MAX - 1)
		return wg_error_set(WG_EUNSUPPORTED, "a pack holds at most 2^32 - 2 objects");
	if (w->nr == w->alloc) {
		uint32_t na = w->alloc ? (w->alloc > UINT32_MAX / 2 ? UINT32_MAX - 1 : w->alloc * 2) : 64;
		struct obj *o;
		size_t bytes;
		/* 32-bit size_t (WebAssembly) overflows long before 2^32 objects. */
		if (wg_size_mul(&bytes, na, sizeof(*o)) || !(o = wg_realloc(w->objs, bytes)))
			return wg_error_set(WG_ENOMEM, "out of memory listing objects to pack");
		w->objs = o;
		w->alloc = na;
	}
	/* Keep the id table at most half full. */
	if ((size_t)(w->nr + 1) * 2 > w->table_size) {
		size_t ns = w->table_size ? w->table_size * 2 : 256, i;
		uint32_t *t = wg_calloc(ns, sizeof(*t));
		if (!t)
			return wg_error_set(WG_ENOMEM, "out of memory listing objects to pack");
		for (i = 0; i < w->nr; i++) {
			size_t s = oid_slot(&w->objs[i].oid, ns - 1);
			while (t[s])
				s = (s + 1) & (ns - 1);
			t[s] = (uint32_t)i + 1;
		}
		wg_free(w->table);
		w->table = t;
		w->table_size = ns;
	}
	return 0;
}

static int add_object(struct wg_pack_writer *w, const struct wg_oid *oid, const char *path,
		      bool have)
{
	enum wg_object_type type;
	size_t size, s;
	uint32_t i = lookup(w, oid);
	struct obj *o;
	int err;

	if (w->written)
		return wg_error_set(WG_EINVALID, "objects added to a pack writer after writing");
	if (oid->algo != w->algo->id)
		return wg_error_set(WG_EINVALID, "object %s is not a %s id", wg_oid_hex(oid),
				    w->algo->name);
	if (i != NONE) {
		if (!have && w->objs[i].have) {
			w->objs[i].have = false;
			w->nsend++;
		}
		return 0;
	}
	if ((err = w->src.read_header(w->src.payload, oid, &type, &size))) {
		if (have && err == WG_ENOTFOUND) {
			wg_error_clear();
			return 0;
		}
		return wg_error_prefix("cannot pack object %s", wg_oid_hex(oid));
	}
	if ((err = grow(w)))
		return err;
	o = &w->objs[w->nr];
	memset(o, 0, sizeof(*o));
	o->oid = *oid;
	o->size = size;
	o->type = (uint8_t)type;
	o->name_hash = wg_pack_name_hash(path);
	o->base = NONE;
	o->have = have;
	for (s = oid_slot(oid, w->table_size - 1); w->table[s]; s = (s + 1) & (w->table_size - 1))
		;
	w->table[s] = ++w->nr;
	if (!have)
		w->nsend++;
	return 0;
}

int wg_pack_writer_new(struct wg_pack_writer **out, const struct wg_object_source *src,
		       const struct wg_pack_writer_options *opts)
{
	static const struct wg_pack_writer_options defaults = WG_PACK_WRITER_OPTIONS_INIT;
	struct wg_pack_writer *w;
	*out = NULL;
	if (opts && opts->version != 1)
		return wg_error_set(WG_EINVALID, "pack writer options version %u is unknown",
				    opts->version);
	if (opts && (opts->compression < -1 || opts->compression > 9))
		return wg_error_set(WG_EINVALID, "compression level %d is not in -1..9",
				    opts->compression);
	if (!(w = wg_calloc(1, sizeof(*w))))
		return wg_error_set(WG_ENOMEM, "out of memory creating a pack writer");
	w->src = *src;
	w->algo = src->algo;
	w->opts = opts ? *opts : defaults;
	*out = w;
	return 0;
}

void wg_pack_writer_free(struct wg_pack_writer *w)
{
	uint32_t i;
	if (!w)
		return;
	for (i = 0; i < w->nr; i++)
		wg_free(w->objs[i].delta);
	wg_free(w->objs);
	wg_free(w->table);
	wg_free(w);
}

int wg_pack_writer_add(struct wg_pack_writer *w, const struct wg_oid *oid, const char *path)
{
	return add_object(w, oid, path, false);
}

int wg_pack_writer_add_have(struct wg_pack_writer *w, const struct wg_oid *oid,
			    const char *path)
{
	if (!w->opts.thin)
		return 0;
	return add_object(w, oid, path, true);
}

uint32_t wg_pack_writer_count(const struct wg_pack_writer *w)
{
	return w->nsend;
}

/* --- delta search --------------------------------------------------------- */

struct slot {
	uint32_t obj;           /* NONE when empty */
	unsigned depth;
	bool loaded;
	struct wg_buf data;
	struct wg_delta_index *index;
};

struct search {
	struct wg_pack_writer *w;
	struct slot *slots;
	unsigned nslots;
	size_t mem;             /* bytes of data and indexes in the window */
	struct wg_buf delta;    /* scratch */
};

static void slot_clear(struct search *s, struct slot *sl)
{
	if (sl->loaded)
		s->mem -= sl->data.len;
	s->mem -= wg_delta_index_memsize(sl->index);
	wg_delta_index_free(sl->index);
	sl->index = NULL;
	wg_buf_release(&sl->data);
	sl->loaded = false;
	sl->obj = NONE;
	sl->depth = 0;
}

static int slot_load(struct search *s, struct slot *sl)
{
	struct obj *o = &s->w->objs[sl->obj];
	enum wg_object_type type;
	int err;
	if (sl->loaded)
		return 0;
	if ((err = s->w->src.read(s->w->src.payload, &o->oid, &type, &sl->data)))
		return wg_error_prefix("cannot read object %s", wg_oid_hex(&o->oid));
	if ((int)type != o->type || sl->data.len != o->size)
		return wg_error_set(WG_ECORRUPT, "object %s changed type or size while packing",
				    wg_oid_hex(&o->oid));
	sl->loaded = true;
	s->mem += sl->data.len;
	return 0;
}

static bool delta_cacheable(const struct wg_pack_writer *w, size_t src_size, size_t trg_size,
			    size_t delta_size)
{
	if (w->opts.delta_cache_size && w->delta_cache + delta_size > w->opts.delta_cache_size)
		return false;
	if (delta_size < SMALL_DELTA)
		return true;
	/* Big objects with a comparatively small delta: computing it again
	 * would cost far more than keeping it. */
	return (src_size >> 20) + (trg_size >> 21) > (delta_size >> 10);
}

/* Try `src` as a base for `trg`. *better is set when it beats what trg
 * had; a positive return means "different type: stop looking" (the list
 * is sorted by type). */
static int try_delta(struct search *s, struct slot *trg, struct slot *src, unsigned max_depth,
		     bool *better)
{
	struct wg_pack_writer *w = s->w;
	struct obj *t = &w->objs[trg->obj], *b = &w->objs[src->obj];
	size_t max_size, sizediff;
	unsigned ref_depth;
	int err;

	*better = false;
	if (t->type != b->type)
		return 1;
	if (src->depth >= max_depth)
		return 0;
	if (t->base == NONE) {
		if (t->size / 2 <= w->algo->rawsz)
			return 0;
		max_size = t->size / 2 - w->algo->rawsz;
		ref_depth = 1;
	} else {
		max_size = t->delta_size;
		ref_depth = trg->depth;
	}
	/* A base deep in a chain must do better to be chosen: long chains
	 * cost every reader of the object. */
	max_size = (size_t)((uint64_t)max_size * (max_depth - src->depth) /
			    (max_depth - ref_depth + 1));
	if (!max_size)
		return 0;
	sizediff = b->size < t->size ? t->size - b->size : 0;
	if (sizediff >= max_size)
		return 0;
	if (t->size < b->size / 32)
		return 0;

	if ((err = slot_load(s, trg)))
		return err;
	if (!src->loaded && (err = slot_load(s, src))) {
		if (b->have) {
			/* Only an opportunity: go without it. */
			wg_error_clear();
			return 0;
		}
		return err;
	}
	if (!src->index) {
		if ((err = wg_delta_index_new(&src->index, src->data.data, src->data.len)))
			return err;
		s->mem += wg_delta_index_memsize(src->index);
	}
	err = wg_delta_create(&s->delta, src->index, trg->data.data, trg->data.len, max_size);
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	if (err)
		return err;
	/* Of two equally small deltas keep the shallower. */
	if (t->base != NONE && s->delta.len == t->delta_size && src->depth + 1 >= trg->depth)
		return 0;

	if (t->delta) {
		w->delta_cache -= t->delta_size;
		wg_free(t->delta);
		t->delta = NULL;
	}
	t->delta_size = s->delta.len;
	if (delta_cacheable(w, b->size, t->size, s->delta.len)) {
		size_t n;
		/* NULL only if allocation failed: then it is computed again. */
		if ((t->delta = wg_buf_detach(&s->delta, &n)))
			w->delta_cache += n;
	}
	t->base = src->obj;
	trg->depth = src->depth + 1;
	*better = true;
	return 0;
}

/* qsort has no context argument: sort keys that carry everything the
 * comparison needs rather than reaching the objects through a global. */
struct sort_key {
	uint32_t obj;
	uint32_t name_hash;
	size_t size;
	uint8_t type;
	bool have;
};

static int cmp_keys(const void *pa, const void *pb)
{
	const struct sort_key *a = pa, *b = pb;
	if (a->type != b->type)
		return a->type > b->type ? -1 : 1;
	if (a->name_hash != b->name_hash)
		return a->name_hash > b->name_hash ? -1 : 1;
	if (a->have != b->have)
		return a->have ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	/* Earlier in the input (more recent, with rev-list) first. */
	return a->obj < b->obj ? -1 : a->obj > b->obj;
}

static int find_deltas(struct wg_pack_writer *w)
{
	struct search s;
	struct sort_key *keys;
	uint32_t i, n = 0, idx = 0, count = 0;
	unsigned window = w->opts.window + 1, depth = w->opts.depth;
	int err = 0;

	if (!w->opts.window || !depth || !w->nsend)
		return 0;
	if (!(keys = wg_calloc(w->nr, sizeof(*keys))))
		return wg_error_set(WG_ENOMEM, "out of memory sorting objects for deltas");
	for (i = 0; i < w->nr; i++) {
		const struct obj *o = &w->objs[i];
		if (o->size < MIN_DELTA_SIZE || o->size > w->opts.big_file_threshold ||
		    o->size > WG_DELTA_MAX_SOURCE)
			continue;
		keys[n].obj = i;
		keys[n].name_hash = o->name_hash;
		keys[n].size = o->size;
		keys[n].type = o->type;
		keys[n].have = o->have;
		n++;
	}
	if (n < 2) {
		wg_free(keys);
		return 0;
	}
	wg_sort(keys, n, sizeof(*keys), cmp_keys);

	memset(&s, 0, sizeof(s));
	s.w = w;
	s.nslots = window;
	if (!(s.slots = wg_calloc(window, sizeof(*s.slots)))) {
		wg_free(keys);
		return wg_error_set(WG_ENOMEM, "out of memory for the delta window");
	}
	for (i = 0; i < window; i++)
		s.slots[i].obj = NONE;

	/* The window is a ring: slots idx-1, idx-2, ... hold the objects
	 * seen last, most recent first; slot idx takes the new one. */
	for (i = 0; i < n && !err; i++) {
		struct slot *cur = &s.slots[idx];
		uint32_t j, best = NONE;
		slot_clear(&s, cur);
		cur->obj = keys[i].obj;

		while (w->opts.window_memory && s.mem > w->opts.window_memory && count > 1) {
			slot_clear(&s, &s.slots[(idx + window - count) % window]);
			count--;
		}
		if (!w->objs[cur->obj].have) {
			for (j = window - 1; j > 0; j--) {
				struct slot *m = &s.slots[(idx + j) % window];
				bool better;
				int r;
				if (m->obj == NONE)
					break;
				r = try_delta(&s, cur, m, depth, &better);
				if (r < 0) {
					err = r;
					break;
				}
				if (r > 0)
					break;
				if (better)
					best = (idx + j) % window;
			}
			if (err)
				break;
			/* Nothing can be built on an object at full depth:
			 * let the next one take its slot. */
			if (best != NONE && depth <= cur->depth)
				continue;
			/* Move the chosen base next to its new delta, so it
			 * stays in the window longest and is tried first. */
			if (best != NONE) {
				struct slot keep = s.slots[best];
				unsigned dist = (window + idx - best) % window, dst = best;
				while (dist--) {
					unsigned from = (dst + 1) % window;
					s.slots[dst] = s.slots[from];
					dst = from;
				}
				s.slots[dst] = keep;
			}
		}
		idx = (idx + 1) % window;
		if (count + 1 < window)
			count++;
	}
	for (i = 0; i < window; i++)
		slot_clear(&s, &s.slots[i]);
	wg_free(s.slots);
	wg_buf_release(&s.delta);
	wg_free(keys);
	return err;
}

/* --- writing ----------------------------------------------------------------- */

struct output {
	wg_pack_sink_fn sink;
	void *payload;
	struct wg_hash_ctx hash;
	unsigned char *buf;     /* OUT_BUF bytes waiting for the sink */
	size_t len;
	uint64_t offset;        /* bytes of pack produced so far */
	uint32_t crc;           /* of the current entry */
	z_stream zs;
	bool zinit;
	unsigned char *zbuf;    /* OUT_BUF bytes of deflate output */
	struct wg_buf data;     /* the object or delta being written */
	struct wg_buf scratch;
};

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
	size_t n;
	(void)opaque;
	if (wg_size_mul(&n, items, size))
		return Z_NULL;
	return wg_malloc(n);
}

static void z_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	wg_free(p);
}

static int out_flush(struct output *out)
{
	int err;
	if (!out->len)
		return 0;
	err = out->sink(out->buf, out->len, out->payload);
	out->len = 0;
	if (err)
		return err < 0 ? err : wg_error_set(WG_EIO, "the pack sink failed (%d)", err);
	return 0;
}

static int out_emit(struct output *out, const void *data, size_t len)
{
	const unsigned char *p = data;
	int err;
	wg_hash_update(&out->hash, data, len);
	out->offset += len;
	while (len) {
		size_t room = OUT_BUF - out->len, n = len < room ? len : room;
		uInt c = (uInt)n;
		out->crc = (uint32_t)crc32(out->crc, p, c);
		memcpy(out->buf + out->len, p, n);
		out->len += n;
		p += n;
		len -= n;
		if (out->len == OUT_BUF && (err = out_flush(out)))
			return err;
	}
	return 0;
}

static int out_deflate(struct output *out, int level, const unsigned char *data, size_t len)
{
	int zret, err;
	if (!out->zinit) {
		memset(&out->zs, 0, sizeof(out->zs));
		out->zs.zalloc = z_alloc;
		out->zs.zfree = z_free;
		if (deflateInit(&out->zs, level) != Z_OK)
			return wg_error_set(WG_ENOMEM, "cannot initialise zlib");
		out->zinit = true;
	} else if (deflateReset(&out->zs) != Z_OK) {
		return wg_error_set(WG_ERROR, "cannot reset zlib");
	}
	do {
		uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
		int flush;
		out->zs.next_in = (unsigned char *)data;
		out->zs.avail_in = n;
		data += n;
		len -= n;
		flush = len ? Z_NO_FLUSH : Z_FINISH;
		do {
			out->zs.next_out = out->zbuf;
			out->zs.avail_out = OUT_BUF;
			zret = deflate(&out->zs, flush);
			if (zret == Z_STREAM_ERROR)
				return wg_error_set(WG_ERROR, "zlib deflate failed");
			if ((err = out_emit(out, out->zbuf, OUT_BUF - out->zs.avail_out)))
				return err;
		} while (out->zs.avail_out == 0 || (flush == Z_FINISH && zret != Z_STREAM_END));
	} while (len);
	return 0;
}

static int read_whole(struct wg_pack_writer *w, const struct obj *o, struct wg_buf *buf)
{
	enum wg_object_type type;
	if (w->src.read(w->src.payload, &o->oid, &type, buf))
		return wg_error_prefix("cannot read object %s", wg_oid_hex(&o->oid));
	if ((int)type != o->type || buf->len != o->size)
		return wg_error_set(WG_ECORRUPT, "object %s changed type or size while packing",
				    wg_oid_hex(&o->oid));
	return 0;
}

/* The delta of o against its base: the one kept from the search, or the
 * same one computed again (the encoder is deterministic). */
static int get_delta(struct wg_pack_writer *w, struct output *out, struct obj *o)
{
	struct wg_delta_index *ix = NULL;
	int err;
	if (o->delta) {
		wg_buf_reset(&out->data);
		err = wg_buf_add(&out->data, o->delta, o->delta_size);
		w->delta_cache -= o->delta_size;
		wg_free(o->delta);
		o->delta = NULL;
		return err;
	}
	if ((err = read_whole(w, &w->objs[o->base], &out->scratch)) ||
	    (err = wg_delta_index_new(&ix, out->scratch.data, out->scratch.len)))
		return err;
	/* The target goes to data first, then the delta replaces it. */
	{
		struct wg_buf target = WG_BUF_INIT;
		if (!(err = read_whole(w, o, &target)))
			err = wg_delta_create(&out->data, ix, target.data, target.len, 0);
		wg_buf_release(&target);
	}
	wg_delta_index_free(ix);
	w->stats.recomputed++;
	return err;
}

static int write_one(struct wg_pack_writer *w, struct output *out, uint32_t i)
{
	struct obj *o = &w->objs[i];
	unsigned char hdr[WG_PACK_OBJ_HEADER_MAX + WG_VARINT_MAX + WG_MAX_RAWSZ];
	size_t hlen;
	int err;

	if (o->base != NONE) {
		const struct obj *b = &w->objs[o->base];
		if ((err = get_delta(w, out, o)))
			return err;
		if (b->have) {
			hlen = wg_pack_object_header_encode(hdr, WG_OBJ_REF_DELTA, out->data.len);
			memcpy(hdr + hlen, b->oid.hash, w->algo->rawsz);
			hlen += w->algo->rawsz;
			w->stats.thin_deltas++;
		} else {
			hlen = wg_pack_object_header_encode(hdr, WG_OBJ_OFS_DELTA, out->data.len);
			hlen += wg_varint_ofs_encode(hdr + hlen, out->offset - b->offset);
		}
		w->stats.deltas++;
	} else {
		if ((err = read_whole(w, o, &out->data)))
			return err;
		hlen = wg_pack_object_header_encode(hdr, (enum wg_object_type)o->type,
						    out->data.len);
	}
	o->offset = out->offset;
	out->crc = (uint32_t)crc32(0L, Z_NULL, 0);
	if ((err = out_emit(out, hdr, hlen)) ||
	    (err = out_deflate(out, w->opts.compression, out->data.data, out->data.len)))
		return err;
	o->crc = out->crc;
	w->stats.objects++;
	/* Do not hold on to the largest object seen for the rest of the run. */
	if (out->data.cap > (1u << 20))
		wg_buf_release(&out->data);
	if (out->scratch.cap > (1u << 20))
		wg_buf_release(&out->scratch);
	return 0;
}

/* Write i after whatever part of its delta chain is not written yet. */
static int write_with_bases(struct wg_pack_writer *w, struct output *out, uint32_t i)
{
	while (!w->objs[i].offset) {
		uint32_t j = i;
		int err;
		while (w->objs[j].base != NONE && !w->objs[w->objs[j].base].have &&
		       !w->objs[w->objs[j].base].offset)
			j = w->objs[j].base;
		if ((err = write_one(w, out, j)))
			return err;
	}
	return 0;
}

/* Recency order, as git writes it: commits and tags, then trees, in the
 * order given; then the rest by delta family (a base, then everything
 * built on it), so that reading one file's history touches one region. */
static int compute_order(struct wg_pack_writer *w, uint32_t **order_out)
{
	uint32_t *order, *child, *sibling, i, n = 0;
	bool *placed;
	int pass;

	*order_out = NULL;
	order = wg_calloc(w->nsend ? w->nsend : 1, sizeof(*order));
	child = wg_calloc(w->nr ? w->nr : 1, sizeof(*child));
	sibling = wg_calloc(w->nr ? w->nr : 1, sizeof(*sibling));
	placed = wg_calloc(w->nr ? w->nr : 1, sizeof(*placed));
	if (!order || !child || !sibling || !placed) {
		wg_free(order);
		wg_free(child);
		wg_free(sibling);
		wg_free(placed);
		return wg_error_set(WG_ENOMEM, "out of memory ordering the pack");
	}
	for (i = 0; i < w->nr; i++)
		child[i] = sibling[i] = NONE;
	/* Children lists in input order: built from the end. */
	for (i = w->nr; i-- > 0;) {
		uint32_t b = w->objs[i].base;
		if (b == NONE || w->objs[b].have)
			continue;
		sibling[i] = child[b];
		child[b] = i;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < w->nr; i++) {
			const struct obj *o = &w->objs[i];
			bool want = pass ? o->type == WG_OBJ_TREE :
				    (o->type == WG_OBJ_COMMIT || o->type == WG_OBJ_TAG);
			if (!o->have && want) {
				order[n++] = i;
				placed[i] = true;
			}
		}
	for (i = 0; i < w->nr; i++) {
		uint32_t root = i, e;
		if (placed[i] || w->objs[i].have)
			continue;
		while (w->objs[root].base != NONE && !w->objs[w->objs[root].base].have)
			root = w->objs[root].base;
		/* Depth-first walk of the family without a stack: down to
		 * the first child, else on to the next sibling, else up. */
		e = root;
		for (;;) {
			if (!placed[e]) {
				order[n++] = e;
				placed[e] = true;
			}
			if (child[e] != NONE) {
				e = child[e];
				continue;
			}
			while (e != root && sibling[e] == NONE)
				e = w->objs[e].base;
			if (e == root)
				break;
			e = sibling[e];
		}
	}
	wg_free(child);
	wg_free(sibling);
	wg_free(placed);
	if (n != w->nsend) {
		wg_free(order);
		return wg_error_set(WG_ERROR, "pack order has %u objects, expected %u", n, w->nsend);
	}
	*order_out = order;
	return 0;
}

int wg_pack_writer_write(struct wg_pack_writer *w, wg_pack_sink_fn sink, void *payload)
{
	struct output *out;
	unsigned char hdr[WG_PACK_HEADER_SIZE];
	uint32_t *order = NULL, i;
	int err;

	if (w->written)
		return wg_error_set(WG_EINVALID, "a pack writer writes one pack");
	w->written = true;
	if ((err = find_deltas(w)))
		return err;
	if ((err = compute_order(w, &order)))
		return err;
	if (!(out = wg_calloc(1, sizeof(*out))) || !(out->buf = wg_malloc(OUT_BUF)) ||
	    !(out->zbuf = wg_malloc(OUT_BUF))) {
		err = wg_error_set(WG_ENOMEM, "out of memory writing a pack");
		goto done;
	}
	out->sink = sink;
	out->payload = payload;
	wg_hash_init(&out->hash, w->algo);
	wg_pack_header_write(hdr, w->nsend);
	if ((err = out_emit(out, hdr, sizeof(hdr))))
		goto done;
	for (i = 0; i < w->nsend; i++)
		if ((err = write_with_bases(w, out, order[i])))
			goto done;
	if ((err = out_flush(out)))
		goto done;
	/* The trailer: a hash of everything before it, itself not hashed. It
	 * is a checksum, not an object id: a collision pattern inside some
	 * blob must not stop the pack (each object was checked when stored). */
	err = wg_hash_final(&out->hash, w->checksum);
	if (err == WG_ECOLLISION) {
		wg_error_clear();
		err = 0;
	}
	if (err)
		goto done;
	err = sink(w->checksum, w->algo->rawsz, payload);
	if (err) {
		err = err < 0 ? err : wg_error_set(WG_EIO, "the pack sink failed (%d)", err);
		goto done;
	}
	w->stats.pack_size = out->offset + w->algo->rawsz;
done:
	if (out) {
		if (out->zinit)
			deflateEnd(&out->zs);
		wg_free(out->buf);
		wg_free(out->zbuf);
		wg_buf_release(&out->data);
		wg_buf_release(&out->scratch);
		wg_free(out);
	}
	wg_free(order);
	if (err)
		w->stats.pack_size = 0;
	return err;
}

int wg_pack_writer_checksum(const struct wg_pack_writer *w, struct wg_oid *out)
{
	if (!w->written || !w->stats.pack_size)
		return wg_error_set(WG_EINVALID, "no pack has been written yet");
	wg_oid_from_raw(out, w->algo, w->checksum);
	return 0;
}

int wg_pack_writer_write_idx(struct wg_pack_writer *w, struct wg_buf *idx, struct wg_buf *rev)
{
	struct wg_pack_idx_entry *e;
	uint32_t i, n = 0;
	int err = 0;
	if (!w->written || !w->stats.pack_size)
		return wg_error_set(WG_EINVALID, "no pack has been written yet");
	if (!(e = wg_calloc(w->nsend ? w->nsend : 1, sizeof(*e))))
		return wg_error_set(WG_ENOMEM, "out of memory writing a pack index");
	for (i = 0; i < w->nr; i++) {
		if (w->objs[i].have)
			continue;
		e[n].oid = w->objs[i].oid;
		e[n].offset = w->objs[i].offset;
		e[n].crc32 = w->objs[i].crc;
		n++;
	}
	if (!(err = wg_pack_idx_sort(e, n))) {
		if (idx)
			err = wg_pack_idx_write(idx, w->algo, e, n, w->checksum);
		if (!err && rev)
			err = wg_pack_rev_write(rev, w->algo, e, n, w->checksum);
	}
	wg_free(e);
	return err;
}

void wg_pack_writer_get_stats(const struct wg_pack_writer *w, struct wg_pack_writer_stats *out)
{
	*out = w->stats;
}

/* --- sinks and files ----------------------------------------------------------- */

struct wg_pack_fd_sink {
	int fd;
	size_t len;
	unsigned char buf[OUT_BUF];
};

int wg_pack_fd_sink_new(struct wg_pack_fd_sink **out, int fd)
{
	if (!(*out = wg_malloc(sizeof(**out))))
		return wg_error_set(WG_ENOMEM, "out of memory for a file sink");
	(*out)->fd = fd;
	(*out)->len = 0;
	return 0;
}

void wg_pack_fd_sink_free(struct wg_pack_fd_sink *sink)
{
	wg_free(sink);
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
	if (wg_fs_write_all(fd, p, len))
		return wg_error_set(WG_EIO, "cannot write the pack: %s", strerror(errno));
	return 0;
}

int wg_pack_fd_sink_flush(struct wg_pack_fd_sink *sink)
{
	int err = write_all(sink->fd, sink->buf, sink->len);
	sink->len = 0;
	return err;
}

int wg_pack_fd_sink_write(const void *data, size_t len, void *payload)
{
	struct wg_pack_fd_sink *sink = payload;
	int err;
	if (sink->len + len > sizeof(sink->buf)) {
		if ((err = wg_pack_fd_sink_flush(sink)))
			return err;
		if (len >= sizeof(sink->buf))
			return write_all(sink->fd, data, len);
	}
	memcpy(sink->buf + sink->len, data, len);
	sink->len += len;
	return 0;
}

int wg_pack_buf_sink_write(const void *data, size_t len, void *payload)
{
	return wg_buf_add(payload, data, len);
}

/* A new file "<dir of base>/tmp_<what>_XXXXXX" open for writing. */
static int make_temp(struct wg_buf *path, const char *base, const char *what, int *fd)
{
	const char *slash = strrchr(base, '/');
	int err;
	wg_buf_reset(path);
	if (slash)
		err = wg_buf_add(path, base, (size_t)(slash - base + 1));
	else
		err = 0;
	if (err || (err = wg_buf_printf(path, "tmp_%s_XXXXXX", what)))
		return err;
	if ((*fd = wg_fs_mkstemp((char *)path->data)) < 0)
		return wg_error_set(WG_EIO, "cannot create '%s': %s", wg_buf_cstr(path),
				    strerror(errno));
	return 0;
}

static int finish_file(int fd, const char *tmp, const char *final)
{
	/* Packs and indexes are never modified in place: read-only, as git
	 * makes them. */
	if (wg_fs_fchmod(fd, 0444) < 0 || wg_fs_close(fd) < 0) {
		int e = errno;
		wg_fs_unlink(tmp);
		return wg_error_set(WG_EIO, "cannot finish '%s': %s", tmp, strerror(e));
	}
	if (wg_fs_rename(tmp, final) < 0) {
		int e = errno;
		wg_fs_unlink(tmp);
		return wg_error_set(WG_EIO, "cannot rename '%s' to '%s': %s", tmp, final,
				    strerror(e));
	}
	return 0;
}

static int write_small_file(const char *base, const char *what, const struct wg_buf *data,
			    const char *final)
{
	struct wg_buf tmp = WG_BUF_INIT;
	int fd = -1, err;
	if (!(err = make_temp(&tmp, base, what, &fd))) {
		if ((err = write_all(fd, data->data, data->len))) {
			wg_fs_close(fd);
			wg_fs_unlink(wg_buf_cstr(&tmp));
		} else {
			err = finish_file(fd, wg_buf_cstr(&tmp), final);
		}
	}
	wg_buf_release(&tmp);
	return err;
}

int wg_pack_writer_write_files(struct wg_pack_writer *w, const char *base, bool write_rev,
			       struct wg_oid *checksum_out)
{
	struct wg_buf tmp = WG_BUF_INIT, name = WG_BUF_INIT, idx = WG_BUF_INIT,
		      rev = WG_BUF_INIT;
	struct wg_pack_fd_sink *sink = NULL;
	struct wg_oid sum;
	char hex[WG_MAX_HEXSZ + 1];
	int fd = -1, err;
	size_t stem;

	if ((err = make_temp(&tmp, base, "pack", &fd)))
		goto done;
	if ((err = wg_pack_fd_sink_new(&sink, fd)) ||
	    (err = wg_pack_writer_write(w, wg_pack_fd_sink_write, sink)) ||
	    (err = wg_pack_fd_sink_flush(sink))) {
		wg_fs_close(fd);
		wg_fs_unlink(wg_buf_cstr(&tmp));
		goto done;
	}
	wg_pack_writer_checksum(w, &sum);
	wg_oid_to_hex(&sum, hex);
	if ((err = wg_buf_printf(&name, "%s-%s", base, hex)))
		goto done;
	stem = name.len;
	if ((err = wg_buf_adds(&name, ".pack")) ||
	    (err = finish_file(fd, wg_buf_cstr(&tmp), wg_buf_cstr(&name))))
		goto done;
	if ((err = wg_pack_writer_write_idx(w, &idx, write_rev ? &rev : NULL)))
		goto done;
	if (write_rev) {
		wg_buf_setlen(&name, stem);
		if ((err = wg_buf_adds(&name, ".rev")) ||
		    (err = write_small_file(base, "rev", &rev, wg_buf_cstr(&name))))
			goto done;
	}
	/* The index last: a pack becomes visible to readers with its .idx. */
	wg_buf_setlen(&name, stem);
	if ((err = wg_buf_adds(&name, ".idx")) ||
	    (err = write_small_file(base, "idx", &idx, wg_buf_cstr(&name))))
		goto done;
	if (checksum_out)
		*checksum_out = sum;
done:
	wg_pack_fd_sink_free(sink);
	wg_buf_release(&tmp);
	wg_buf_release(&name);
	wg_buf_release(&idx);
	wg_buf_release(&rev);
	return err;
}
