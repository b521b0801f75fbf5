/* Reading one reftable: header and footer validation, loading blocks on
 * demand (inflating log blocks), seeking through the multi-level indexes or
 * by a linear walk over the few blocks of a small table, and iterators over
 * refs, logs and object ids. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "reftable/reftable_internal.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

struct wg_reftable_table {
	struct wg_reftable_source *src;
	char *name;
	int refcount;
	const struct wg_hash_algo *algo;
	int version;
	uint32_t hsize;
	uint32_t block_size;
	uint64_t min_ui, max_ui;
	uint64_t file_size, data_end;    /* data_end: where the footer starts */
	uint64_t ref_index_pos, obj_pos, obj_index_pos, log_pos, log_index_pos;
	uint8_t obj_id_len;
	bool has_refs, has_logs, has_objs;
	struct rt_ctx ctx;
};

static int tcorrupt(const struct wg_reftable_table *t, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static int tcorrupt(const struct wg_reftable_table *t, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wg_error_set(WG_ECORRUPT, "reftable %s: %s", t->name, msg);
}

/* --- opening ------------------------------------------------------------------- */

static void table_destroy(struct wg_reftable_table *t)
{
	wg_reftable_source_free(t->src);
	wg_free(t->name);
	wg_free(t);
}

void rt_table_incref(struct wg_reftable_table *t)
{
	t->refcount++;
}

void wg_reftable_table_free(struct wg_reftable_table *t)
{
	if (t && --t->refcount == 0)
		table_destroy(t);
}

const char *wg_reftable_table_name(const struct wg_reftable_table *t)
{
	return t->name;
}

const struct wg_hash_algo *wg_reftable_table_algo(const struct wg_reftable_table *t)
{
	return t->algo;
}

uint64_t wg_reftable_table_min_update_index(const struct wg_reftable_table *t)
{
	return t->min_ui;
}

uint64_t wg_reftable_table_max_update_index(const struct wg_reftable_table *t)
{
	return t->max_ui;
}

uint64_t wg_reftable_table_size(const struct wg_reftable_table *t)
{
	return t->file_size;
}

uint64_t rt_table_compaction_size(const struct wg_reftable_table *t)
{
	return t->data_end - (t->hsize - 1);
}

static int parse_header(struct wg_reftable_table *t, const unsigned char *h, uint64_t size)
{
	if (memcmp(h, "REFT", 4))
		return wg_error_set(WG_ECORRUPT, "reftable %s: bad magic (not a reftable file)",
				    t->name);
	t->version = h[4];
	if (t->version != 1 && t->version != 2)
		return wg_error_set(WG_ECORRUPT, "reftable %s: unsupported format version %d",
				    t->name, t->version);
	t->hsize = RT_HEADER_SIZE(t->version);
	if (size < (uint64_t)t->hsize + RT_FOOTER_SIZE(t->version))
		return tcorrupt(t, "truncated: %llu bytes, too small for header and footer",
				(unsigned long long)size);
	t->block_size = wg_get_be24(h + 5);
	t->min_ui = wg_get_be64(h + 8);
	t->max_ui = wg_get_be64(h + 16);
	if (t->version == 1) {
		t->algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	} else {
		uint32_t id = wg_get_be32(h + 24);
		t->algo = wg_hash_algo_by_format_id(id);
		if (!t->algo)
			return wg_error_set(WG_ECORRUPT, "reftable %s: unknown hash id 0x%08x",
					    t->name, (unsigned)id);
	}
	return 0;
}

int wg_reftable_table_open(struct wg_reftable_table **out, struct wg_reftable_source *src,
			   const char *name)
{
	unsigned char head[RT_MAX_HEADER_SIZE + 1], foot[RT_MAX_FOOTER_SIZE];
	struct wg_reftable_table *t;
	uint64_t size = rt_source_size(src), o;
	uint32_t fsize;
	int err;

	*out = NULL;
	t = wg_calloc(1, sizeof(*t));
	if (!t || !(t->name = wg_strdup(name ? name : "(memory)"))) {
		wg_free(t);
		wg_reftable_source_free(src);
		return wg_error_set(WG_ENOMEM, "out of memory opening reftable %s", name);
	}
	t->src = src;
	t->refcount = 1;
	if (size < 24 + 68) {
		err = tcorrupt(t, "truncated: %llu bytes, too small for header and footer",
			       (unsigned long long)size);
		goto fail;
	}
	/* Both header sizes plus the first block's type byte fit in the
	 * smallest valid file, so one read serves either version. */
	if ((err = rt_source_read(src, head, 0, sizeof(head))) ||
	    (err = parse_header(t, head, size)))
		goto fail;
	fsize = RT_FOOTER_SIZE(t->version);
	t->file_size = size;
	t->data_end = size - fsize;
	t->ctx.name = t->name;
	t->ctx.rawsz = t->algo->rawsz;
	if ((err = rt_source_read(src, foot, t->data_end, fsize)))
		goto fail;
	if (wg_get_be32(foot + fsize - 4) != (uint32_t)crc32(0, foot, fsize - 4)) {
		err = wg_error_set(WG_ECORRUPT, "reftable %s: footer CRC-32 mismatch "
				   "(the file is damaged or truncated)", t->name);
		goto fail;
	}
	/* The footer repeats the header; a mismatch means the "footer" read
	 * is somewhere in the middle of a longer, truncated file. */
	if (memcmp(foot, head, t->hsize)) {
		err = wg_error_set(WG_ECORRUPT, "reftable %s: footer does not match the header",
				   t->name);
		goto fail;
	}
	o = t->hsize;
	t->ref_index_pos = wg_get_be64(foot + o);
	t->obj_pos = wg_get_be64(foot + o + 8) >> 5;
	t->obj_id_len = (uint8_t)(wg_get_be64(foot + o + 8) & 0x1f);
	t->obj_index_pos = wg_get_be64(foot + o + 16);
	t->log_pos = wg_get_be64(foot + o + 24);
	t->log_index_pos = wg_get_be64(foot + o + 32);
	if (t->ref_index_pos >= t->data_end || t->obj_pos >= t->data_end ||
	    t->obj_index_pos >= t->data_end || t->log_pos >= t->data_end ||
	    t->log_index_pos >= t->data_end) {
		err = tcorrupt(t, "footer section position past the end of the data (%llu bytes)",
			       (unsigned long long)t->data_end);
		goto fail;
	}
	if (t->data_end > t->hsize) {
		uint8_t first = head[t->hsize];
		t->has_refs = first == RT_BLOCK_REF;
		t->has_logs = first == RT_BLOCK_LOG || t->log_pos > 0;
		if (first != RT_BLOCK_REF && first != RT_BLOCK_LOG) {
			err = tcorrupt(t, "first block has type 0x%02x, expected a ref or log block",
				       first);
			goto fail;
		}
	}
	t->has_objs = t->obj_pos > 0;
	if (t->has_objs && (t->obj_id_len < 2 || t->obj_id_len > t->algo->rawsz)) {
		err = tcorrupt(t, "object id abbreviation length %u out of range",
			       t->obj_id_len);
		goto fail;
	}
	*out = t;
	return 0;
fail:
	table_destroy(t);
	return err;
}

/* --- blocks ------------------------------------------------------------------------ */

static bool valid_block_type(uint8_t c)
{
	return c == RT_BLOCK_REF || c == RT_BLOCK_LOG || c == RT_BLOCK_OBJ || c == RT_BLOCK_INDEX;
}

static int block_reserve(struct rt_block *b, size_t n)
{
	unsigned char *d;

	if (n <= b->cap)
		return 0;
	d = wg_realloc(b->data, n);
	if (!d)
		return wg_error_set(WG_ENOMEM, "out of memory reading a reftable block");
	b->data = d;
	b->cap = n;
	return 0;
}

static int inflate_log_block(struct wg_reftable_table *t, struct rt_block *b, uint64_t avail)
{
	uint32_t skip = b->header_off + 4;
	uLong body = b->len - skip;
	uint64_t in_len = (uint64_t)skip + compressBound(body) + 64;
	unsigned char *in;
	z_stream zs;
	int zr, err;

	if (in_len > avail)
		in_len = avail;
	in = wg_malloc((size_t)in_len);
	if (!in)
		return wg_error_set(WG_ENOMEM, "out of memory reading a reftable log block");
	if ((err = rt_source_read(t->src, in, b->offset, (size_t)in_len)) ||
	    (err = block_reserve(b, b->len))) {
		wg_free(in);
		return err;
	}
	memcpy(b->data, in, skip);
	memset(&zs, 0, sizeof(zs));
	zs.zalloc = rt_zalloc;
	zs.zfree = rt_zfree;
	if (inflateInit(&zs) != Z_OK) {
		wg_free(in);
		return wg_error_set(WG_ENOMEM, "cannot initialise zlib");
	}
	zs.next_in = in + skip;
	zs.avail_in = (uInt)(in_len - skip);
	zs.next_out = b->data + skip;
	zs.avail_out = (uInt)body;
	zr = inflate(&zs, Z_FINISH);
	if (zr != Z_STREAM_END || zs.total_out != body) {
		err = tcorrupt(t, "log block at offset %llu does not inflate to its "
			       "declared %lu bytes", (unsigned long long)b->offset, (unsigned long)body);
	} else {
		b->full_size = skip + zs.total_in;
		err = 0;
	}
	inflateEnd(&zs);
	wg_free(in);
	return err;
}

/* Load the block at off. Returns 0, 1 when it exists but is not of type
 * `want` (0: any), WG_ITEROVER when off is at or past `end`, <0 on error. */
static int load_block(struct wg_reftable_table *t, struct rt_block *b, uint64_t off,
		      uint8_t want, uint64_t end)
{
	uint32_t hoff = off == 0 ? t->hsize : 0;
	uint64_t avail, readlen;
	uint32_t len, count, i, prev;
	int err;

	if (end > t->data_end)
		end = t->data_end;
	if (off >= end)
		return WG_ITEROVER;
	avail = t->data_end - off;
	readlen = t->block_size ? t->block_size : RT_DEFAULT_BLOCK_SIZE;
	if (readlen > avail)
		readlen = avail;
	if (readlen < hoff + 4)
		return tcorrupt(t, "truncated block header at offset %llu",
				(unsigned long long)off);
	if ((err = block_reserve(b, (size_t)readlen)) ||
	    (err = rt_source_read(t->src, b->data, off, (size_t)readlen)))
		return err;
	b->offset = off;
	b->header_off = hoff;
	b->type = b->data[hoff];
	if (!valid_block_type(b->type))
		return tcorrupt(t, "unknown block type 0x%02x at offset %llu", b->type,
				(unsigned long long)off);
	if (want && b->type != want)
		return 1;
	len = wg_get_be24(b->data + hoff + 1);
	b->len = len;
	if (len < hoff + 4 + 2)
		return tcorrupt(t, "block at offset %llu has impossible length %u",
				(unsigned long long)off, len);
	if (b->type == RT_BLOCK_LOG) {
		if ((err = inflate_log_block(t, b, avail)))
			return err;
	} else {
		if (len > readlen) {
			if (len > avail)
				return tcorrupt(t, "block at offset %llu claims %u bytes, past the "
						"end of the table", (unsigned long long)off, len);
			if ((err = block_reserve(b, len)) ||
			    (err = rt_source_read(t->src, b->data, off, len)))
				return err;
			readlen = len;
		}
		b->full_size = t->block_size ? t->block_size : len;
		/* A shorter block followed by non-NUL data is not padded
		 * (the last block before the log section, or an unpadded
		 * table): the next block starts right after it. */
		if (len < b->full_size && len < readlen && b->data[len] != 0)
			b->full_size = len;
		if (b->full_size < len)
			b->full_size = len;
	}
	count = wg_get_be16(b->data + len - 2);
	if (count == 0)
		return tcorrupt(t, "block at offset %llu has no restart points",
				(unsigned long long)off);
	if (3ull * count + 2 > len - (hoff + 4))
		return tcorrupt(t, "block at offset %llu: restart table of %u entries "
				"does not fit in the block", (unsigned long long)off, count);
	b->restart_count = (uint16_t)count;
	b->restart_off = len - 2 - 3 * count;
	for (i = 0, prev = 0; i < count; i++) {
		uint32_t r = wg_get_be24(b->data + b->restart_off + 3 * i);
		if (r < hoff + 4 || r >= b->restart_off || (i && r <= prev))
			return tcorrupt(t, "block at offset %llu: restart offset %u points "
					"outside the block's records", (unsigned long long)off, r);
		prev = r;
	}
	return 0;
}

/* The end of the section that starts at `start`: the next section's
 * position, or the footer. */
static uint64_t section_end(const struct wg_reftable_table *t, uint64_t start)
{
	uint64_t pos[5] = { t->ref_index_pos, t->obj_pos, t->obj_index_pos, t->log_pos,
			    t->log_index_pos };
	uint64_t end = t->data_end;

	for (int i = 0; i < 5; i++)
		if (pos[i] > start && pos[i] < end)
			end = pos[i];
	return end;
}

/* --- table iterator: records of one section, in order ---------------------------- */

struct rt_titer {
	struct wg_reftable_table *t;
	uint8_t type;
	uint64_t end;
	struct rt_block b;
	struct rt_block_iter bi;
	struct rt_rec rec;
	bool done;
};

static void titer_release(struct rt_titer *ti)
{
	rt_block_release(&ti->b);
	rt_rec_release(&ti->rec);
}

static int titer_next(struct rt_titer *ti)
{
	int r;

	while (!ti->done) {
		r = rt_block_iter_next(&ti->bi, &ti->rec, &ti->t->ctx);
		if (r != WG_ITEROVER)
			return r;
		r = load_block(ti->t, &ti->b, ti->b.offset + ti->b.full_size, ti->type, ti->end);
		if (r == 1 || r == WG_ITEROVER)
			break;
		if (r < 0)
			return r;
		rt_block_iter_start(&ti->bi, &ti->b, &ti->rec);
	}
	ti->done = true;
	return WG_ITEROVER;
}

static void section_bounds(const struct wg_reftable_table *t, uint8_t type, bool *present,
			   uint64_t *start, uint64_t *index)
{
	switch (type) {
	case RT_BLOCK_REF:
		*present = t->has_refs;
		*start = 0;
		*index = t->ref_index_pos;
		break;
	case RT_BLOCK_LOG:
		*present = t->has_logs;
		*start = t->log_pos;
		*index = t->log_index_pos;
		break;
	default:
		*present = t->has_objs;
		*start = t->obj_pos;
		*index = t->obj_index_pos;
		break;
	}
}

/* Walk down the index from its root to the leaf block that holds the
 * first key >= want. *found is false when every key is smaller. */
static int index_find(struct wg_reftable_table *t, uint64_t root, uint8_t want_type,
		      const unsigned char *key, size_t len, struct rt_block *b, bool *found)
{
	struct rt_block_iter bi;
	struct rt_rec rec = { 0 };
	uint64_t off = root, top_end = section_end(t, root);
	bool top = true;
	int r;

	*found = false;
	for (;;) {
		r = load_block(t, b, off, top && off != root ? RT_BLOCK_INDEX : 0,
			       top ? top_end : t->data_end);
		if (r == 1 || r == WG_ITEROVER) {
			r = 0;
			break;
		}
		if (r < 0)
			break;
		if (b->type == want_type && !top) {
			*found = true;
			break;
		}
		if (b->type != RT_BLOCK_INDEX) {
			r = tcorrupt(t, "index entry points to a '%c' block at offset %llu",
				     b->type, (unsigned long long)off);
			break;
		}
		rt_block_iter_start(&bi, b, &rec);
		r = rt_block_iter_seek(&bi, &rec, &t->ctx, key, len);
		if (r == WG_ITEROVER) {
			/* The top level may span several blocks; lower
			 * levels were chosen to contain the key. */
			r = 0;
			if (!top)
				break;
			off = b->offset + b->full_size;
			continue;
		}
		if (r < 0 || (r = rt_block_iter_next(&bi, &rec, &t->ctx)) < 0)
			break;
		/* Index levels are written after what they index, so a
		 * valid entry always points backwards: this also rules out
		 * cycles. */
		if (rec.u64 >= b->offset) {
			r = tcorrupt(t, "index block at offset %llu points forward to %llu",
				     (unsigned long long)b->offset, (unsigned long long)rec.u64);
			break;
		}
		off = rec.u64;
		top = false;
	}
	rt_rec_release(&rec);
	return r;
}

/* Position ti on the first record >= key in the section of `type`. */
static int titer_seek(struct rt_titer *ti, struct wg_reftable_table *t, uint8_t type,
		      const unsigned char *key, size_t len)
{
	uint64_t start, index;
	bool present, found;
	int r;

	ti->t = t;
	ti->type = type;
	ti->done = true;
	section_bounds(t, type, &present, &start, &index);
	if (!present)
		return 0;
	ti->end = section_end(t, start);
	if (index) {
		if ((r = index_find(t, index, type, key, len, &ti->b, &found)))
			return r;
		if (!found)
			return 0;
	} else {
		struct rt_block next = { 0 };
		struct rt_block_iter bi;
		struct rt_rec rec = { 0 };

		r = load_block(t, &ti->b, start, type, ti->end);
		if (r == 1 || r == WG_ITEROVER)
			return r == 1 ? tcorrupt(t, "section at offset %llu does not start with a "
						 "'%c' block", (unsigned long long)start, type) : 0;
		if (r < 0)
			return r;
		/* No index: few blocks. Step while the next block's first
		 * key is still <= key. */
		for (;;) {
			r = load_block(t, &next, ti->b.offset + ti->b.full_size, type, ti->end);
			if (r == 1 || r == WG_ITEROVER) {
				r = 0;
				break;
			}
			if (r < 0)
				break;
			rt_block_iter_start(&bi, &next, &rec);
			if ((r = rt_block_iter_next(&bi, &rec, &t->ctx)) < 0)
				break;
			if (r == WG_ITEROVER) {
				r = tcorrupt(t, "empty block at offset %llu",
					     (unsigned long long)next.offset);
				break;
			}
			if (rt_key_cmp(rec.key.data, rec.key.len, key, len) > 0)
				break;
			{
				struct rt_block tmp = ti->b;
				ti->b = next;
				next = tmp;
			}
		}
		rt_block_release(&next);
		rt_rec_release(&rec);
		if (r)
			return r;
	}
	ti->done = false;
	rt_block_iter_start(&ti->bi, &ti->b, &ti->rec);
	r = rt_block_iter_seek(&ti->bi, &ti->rec, &t->ctx, key, len);
	if (r == WG_ITEROVER) {
		/* Every key here is smaller: the next block starts after. */
		ti->bi.next_off = ti->b.restart_off;
		ti->bi.pending = false;
		return 0;
	}
	return r;
}

/* --- records to the public structs ------------------------------------------------- */

static char *dupmem(const void *p, size_t n)
{
	return wg_strndup(p ? p : "", n);
}

static int rec_to_ref(struct wg_reftable_ref *out, const struct wg_reftable_table *t,
		      const struct rt_rec *rec)
{
	wg_reftable_ref_release(out);
	out->refname = dupmem(rec->key.data, rec->key.len);
	if (!out->refname)
		return wg_error_set(WG_ENOMEM, "out of memory reading reftable %s", t->name);
	if (rec->u64 > UINT64_MAX - t->min_ui)
		return tcorrupt(t, "ref update index overflows (delta %llu)",
				(unsigned long long)rec->u64);
	out->update_index = t->min_ui + rec->u64;
	out->type = (enum wg_reftable_ref_type)rec->val_type;
	if (rec->id1)
		wg_oid_from_raw(&out->value, t->algo, rec->id1);
	if (rec->id2)
		wg_oid_from_raw(&out->peeled, t->algo, rec->id2);
	if (rec->val_type == WG_REFTABLE_REF_SYMREF) {
		out->target = dupmem(rec->str, rec->str_len);
		if (!out->target)
			return wg_error_set(WG_ENOMEM, "out of memory reading reftable %s", t->name);
	}
	return 0;
}

static int rec_to_log(struct wg_reftable_log *out, const struct wg_reftable_table *t,
		      const struct rt_rec *rec)
{
	size_t nlen = rec->key.len - 9;

	wg_reftable_log_release(out);
	out->refname = dupmem(rec->key.data, nlen);
	out->update_index = ~wg_get_be64(rec->key.data + nlen + 1);
	out->type = (enum wg_reftable_log_type)rec->val_type;
	if (rec->val_type == WG_REFTABLE_LOG_UPDATE) {
		wg_oid_from_raw(&out->old_id, t->algo, rec->id1);
		wg_oid_from_raw(&out->new_id, t->algo, rec->id2);
		out->name = dupmem(rec->str, rec->str_len);
		out->email = dupmem(rec->email, rec->email_len);
		out->message = dupmem(rec->msg, rec->msg_len);
		out->time = rec->time;
		out->tz_offset = rec->tz;
		if (!out->name || !out->email || !out->message)
			return wg_error_set(WG_ENOMEM, "out of memory reading reftable %s", t->name);
	}
	if (!out->refname)
		return wg_error_set(WG_ENOMEM, "out of memory reading reftable %s", t->name);
	return 0;
}

/* --- public table iterators -------------------------------------------------------------- */

struct table_iter {
	struct wg_reftable_iter base;
	struct wg_reftable_table *t;
	struct rt_titer ti;
	char *filter;         /* refs: prefix; logs: exact ref name (NULL: all) */
	size_t filter_len;
};

static int wrong_kind(const char *what)
{
	return wg_error_set(WG_EINVALID, "reftable iterator does not yield %s", what);
}

static int titer_next_ref(struct wg_reftable_iter *it, struct wg_reftable_ref *out)
{
	struct table_iter *ti = (struct table_iter *)it;
	int r;

	if (ti->ti.type != RT_BLOCK_REF)
		return wrong_kind("refs");
	if ((r = titer_next(&ti->ti)))
		return r;
	if (ti->filter_len && (ti->ti.rec.key.len < ti->filter_len ||
			       memcmp(ti->ti.rec.key.data, ti->filter, ti->filter_len))) {
		ti->ti.done = true;
		return WG_ITEROVER;
	}
	return rec_to_ref(out, ti->t, &ti->ti.rec);
}

static int titer_next_log(struct wg_reftable_iter *it, struct wg_reftable_log *out)
{
	struct table_iter *ti = (struct table_iter *)it;
	int r;

	if (ti->ti.type != RT_BLOCK_LOG)
		return wrong_kind("reflog entries");
	if ((r = titer_next(&ti->ti)))
		return r;
	/* The key is name '\0' index: an exact name matches a prefix that
	 * includes the NUL. */
	if (ti->filter && (ti->ti.rec.key.len < ti->filter_len + 1 ||
			   memcmp(ti->ti.rec.key.data, ti->filter, ti->filter_len + 1))) {
		ti->ti.done = true;
		return WG_ITEROVER;
	}
	return rec_to_log(out, ti->t, &ti->ti.rec);
}

static void titer_free(struct wg_reftable_iter *it)
{
	struct table_iter *ti = (struct table_iter *)it;

	titer_release(&ti->ti);
	wg_free(ti->filter);
	wg_reftable_table_free(ti->t);
	wg_free(ti);
}

static int table_iter_new(struct table_iter **out, struct wg_reftable_table *t,
			  const char *filter)
{
	struct table_iter *ti = wg_calloc(1, sizeof(*ti));

	*out = NULL;
	if (!ti || (filter && !(ti->filter = wg_strdup(filter)))) {
		wg_free(ti);
		return wg_error_set(WG_ENOMEM, "out of memory creating a reftable iterator");
	}
	ti->filter_len = filter ? strlen(filter) : 0;
	ti->base.next_ref = titer_next_ref;
	ti->base.next_log = titer_next_log;
	ti->base.free = titer_free;
	ti->t = t;
	ti->ti.done = true;
	rt_table_incref(t);
	*out = ti;
	return 0;
}

int wg_reftable_table_iter_refs(struct wg_reftable_iter **out, struct wg_reftable_table *t,
				const char *prefix)
{
	struct table_iter *ti;
	int err;

	*out = NULL;
	if (prefix && !*prefix)
		prefix = NULL;
	if ((err = table_iter_new(&ti, t, prefix)))
		return err;
	err = titer_seek(&ti->ti, t, RT_BLOCK_REF, (const unsigned char *)(prefix ? prefix : ""),
			 prefix ? strlen(prefix) : 0);
	if (err) {
		titer_free(&ti->base);
		return err;
	}
	*out = &ti->base;
	return 0;
}

int wg_reftable_table_iter_logs(struct wg_reftable_iter **out, struct wg_reftable_table *t,
				const char *refname)
{
	struct wg_buf key = WG_BUF_INIT;
	struct table_iter *ti;
	int err;

	*out = NULL;
	if ((err = table_iter_new(&ti, t, refname)))
		return err;
	ti->ti.type = RT_BLOCK_LOG;
	/* The newest entry of a ref has the smallest key. */
	if (refname)
		err = rt_log_key(&key, refname, UINT64_MAX);
	if (!err)
		err = titer_seek(&ti->ti, t, RT_BLOCK_LOG, key.data ? key.data :
				 (const unsigned char *)"", key.len);
	wg_buf_release(&key);
	if (err) {
		titer_free(&ti->base);
		return err;
	}
	*out = &ti->base;
	return 0;
}

int wg_reftable_table_read_ref(struct wg_reftable_ref *out, struct wg_reftable_table *t,
			       const char *refname)
{
	struct rt_titer ti = { 0 };
	size_t len = strlen(refname);
	int r;

	r = titer_seek(&ti, t, RT_BLOCK_REF, (const unsigned char *)refname, len);
	if (!r)
		r = titer_next(&ti);
	if (!r) {
		if (ti.rec.key.len == len && !memcmp(ti.rec.key.data, refname, len))
			r = rec_to_ref(out, t, &ti.rec);
		else
			r = WG_ITEROVER;
	}
	titer_release(&ti);
	if (r == WG_ITEROVER)
		return wg_error_set(WG_ENOTFOUND, "ref %s not found in reftable %s", refname,
				    t->name);
	return r;
}

/* --- refs by object id -------------------------------------------------------------------- */

struct list_iter {
	struct wg_reftable_iter base;
	struct wg_reftable_ref *refs;
	size_t n, i;
};

static int list_next_ref(struct wg_reftable_iter *it, struct wg_reftable_ref *out)
{
	struct list_iter *li = (struct list_iter *)it;

	if (li->i >= li->n)
		return WG_ITEROVER;
	wg_reftable_ref_release(out);
	*out = li->refs[li->i];
	memset(&li->refs[li->i], 0, sizeof(li->refs[li->i]));
	li->i++;
	return 0;
}

static int list_next_log(struct wg_reftable_iter *it, struct wg_reftable_log *out)
{
	return wrong_kind("reflog entries");
}

static void list_free(struct wg_reftable_iter *it)
{
	struct list_iter *li = (struct list_iter *)it;

	for (size_t i = 0; i < li->n; i++)
		wg_reftable_ref_release(&li->refs[i]);
	wg_free(li->refs);
	wg_free(li);
}

static int list_push(struct list_iter *li, size_t *cap, const struct wg_reftable_table *t,
		     const struct rt_rec *rec)
{
	if (li->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		struct wg_reftable_ref *n = wg_realloc(li->refs, ncap * sizeof(*n));
		if (!n)
			return wg_error_set(WG_ENOMEM, "out of memory listing refs by object");
		li->refs = n;
		*cap = ncap;
	}
	memset(&li->refs[li->n], 0, sizeof(li->refs[li->n]));
	li->n++;
	return rec_to_ref(&li->refs[li->n - 1], t, rec);
}

static bool rec_points_at(const struct rt_rec *rec, const struct wg_oid *oid, size_t rawsz)
{
	return (rec->id1 && !memcmp(rec->id1, oid->hash, rawsz)) ||
	       (rec->id2 && !memcmp(rec->id2, oid->hash, rawsz));
}

int wg_reftable_table_iter_refs_for(struct wg_reftable_iter **out,
				    struct wg_reftable_table *t, const struct wg_oid *oid)
{
	struct list_iter *li = wg_calloc(1, sizeof(*li));
	struct rt_titer ti = { 0 };
	size_t cap = 0, rawsz = t->algo->rawsz;
	uint64_t *pos = NULL;
	size_t npos = 0;
	bool scan = true;
	int r = 0;

	*out = NULL;
	if (!li)
		return wg_error_set(WG_ENOMEM, "out of memory listing refs by object");
	li->base.next_ref = list_next_ref;
	li->base.next_log = list_next_log;
	li->base.free = list_free;
	if (oid->algo != t->algo->id) {
		list_free(&li->base);
		return wg_error_set(WG_EINVALID, "object id of another hash for reftable %s",
				    t->name);
	}
	if (t->has_objs) {
		r = titer_seek(&ti, t, RT_BLOCK_OBJ, oid->hash, t->obj_id_len);
		if (!r)
			r = titer_next(&ti);
		if (!r && ti.rec.key.len == t->obj_id_len &&
		    !memcmp(ti.rec.key.data, oid->hash, t->obj_id_len)) {
			/* Count 0: too many refs to list, scan them all. */
			if (ti.rec.npos) {
				pos = ti.rec.pos;
				npos = ti.rec.npos;
				scan = false;
			}
		} else if (r == 0 || r == WG_ITEROVER) {
			r = 0;
			scan = false;
		}
	}
	if (!r && scan) {
		titer_release(&ti);
		memset(&ti, 0, sizeof(ti));
		r = titer_seek(&ti, t, RT_BLOCK_REF, (const unsigned char *)"", 0);
		while (!r && !(r = titer_next(&ti)))
			if (rec_points_at(&ti.rec, oid, rawsz))
				r = list_push(li, &cap, t, &ti.rec);
		if (r == WG_ITEROVER)
			r = 0;
	} else if (!r) {
		struct rt_titer bt = { 0 };
		bt.t = t;
		bt.type = RT_BLOCK_REF;
		for (size_t i = 0; !r && i < npos; i++) {
			r = load_block(t, &bt.b, pos[i], RT_BLOCK_REF, t->data_end);
			if (r == 1 || r == WG_ITEROVER) {
				r = tcorrupt(t, "obj record points to offset %llu, not a ref block",
					     (unsigned long long)pos[i]);
				break;
			}
			if (r)
				break;
			rt_block_iter_start(&bt.bi, &bt.b, &bt.rec);
			while (!(r = rt_block_iter_next(&bt.bi, &bt.rec, &t->ctx)))
				if (rec_points_at(&bt.rec, oid, rawsz) &&
				    (r = list_push(li, &cap, t, &bt.rec)))
					break;
			if (r == WG_ITEROVER)
				r = 0;
		}
		titer_release(&bt);
	}
	titer_release(&ti);
	if (r) {
		list_free(&li->base);
		return r;
	}
	*out = &li->base;
	return 0;
}

/* --- verification ------------------------------------------------------------------------- */

static int verify_section(struct wg_reftable_table *t, uint8_t type)
{
	struct rt_titer ti = { 0 };
	struct wg_buf prev = WG_BUF_INIT;
	uint64_t start, index;
	bool present;
	int r;

	section_bounds(t, type, &present, &start, &index);
	if (!present)
		return 0;
	ti.t = t;
	ti.type = type;
	ti.end = section_end(t, start);
	r = load_block(t, &ti.b, start, type, ti.end);
	if (r == 1 || r == WG_ITEROVER)
		r = tcorrupt(t, "section at offset %llu does not start with a '%c' block",
			     (unsigned long long)start, type);
	if (!r) {
		rt_block_iter_start(&ti.bi, &ti.b, &ti.rec);
		while (!(r = titer_next(&ti))) {
			if (prev.len && rt_key_cmp(prev.data, prev.len, ti.rec.key.data,
						   ti.rec.key.len) >= 0) {
				r = tcorrupt(t, "keys out of order in block at offset %llu",
					     (unsigned long long)ti.b.offset);
				break;
			}
			if (type == RT_BLOCK_REF && ti.rec.u64 > t->max_ui - t->min_ui) {
				r = tcorrupt(t, "ref update index outside the table's range "
					     "(block at %llu)", (unsigned long long)ti.b.offset);
				break;
			}
			wg_buf_reset(&prev);
			if (wg_buf_add(&prev, ti.rec.key.data, ti.rec.key.len)) {
				r = wg_error_set(WG_ENOMEM, "out of memory verifying a reftable");
				break;
			}
		}
		if (r == WG_ITEROVER)
			r = 0;
	}
	wg_buf_release(&prev);
	titer_release(&ti);
	return r;
}

int wg_reftable_table_verify(struct wg_reftable_table *t)
{
	int r;

	if ((r = verify_section(t, RT_BLOCK_REF)) || (r = verify_section(t, RT_BLOCK_OBJ)) ||
	    (r = verify_section(t, RT_BLOCK_LOG)))
		return r;
	return 0;
}

/* --- generic iterator entry points ----------------------------------------------------------- */

int wg_reftable_iter_next_ref(struct wg_reftable_ref *out, struct wg_reftable_iter *it)
{
	return it->next_ref(it, out);
}

int wg_reftable_iter_next_log(struct wg_reftable_log *out, struct wg_reftable_iter *it)
{
	return it->next_log(it, out);
}

void wg_reftable_iter_free(struct wg_reftable_iter *it)
{
	if (it)
		it->free(it);
}
