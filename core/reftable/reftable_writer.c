/* Writing one reftable: blocks with prefix compression and restart points,
 * NUL padding to the block size, a multi-level index per section, obj
 * blocks mapping object ids to ref blocks, zlib-deflated log blocks, and the
 * footer with its CRC-32.
 *
 * Layout decisions follow git's writer so that tables look alike: padding is
 * only written once the next block follows (the last block before the log
 * section or the footer is not padded); an index is written when a section
 * has more than 3 blocks (1 when unpadded) and gets more levels until the
 * top has at most that many blocks; obj blocks are only written when the ref
 * section has an index (small tables are cheap to scan). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "reftable/reftable_internal.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

struct index_ent {
	size_t key_off, key_len;  /* in the section's key arena */
	uint64_t pos;
};

struct obj_ent {
	uint64_t pos;
	unsigned char id[WG_MAX_RAWSZ];
};

struct wg_reftable_writer {
	struct wg_reftable_write_options opts;
	const struct wg_hash_algo *algo;
	int version;
	wg_reftable_write_fn write;
	void *payload;
	uint64_t min_ui, max_ui;

	uint64_t next;              /* file offset of the next block (padding included) */
	uint32_t pending_padding;   /* owed before the next block, dropped at the end */

	/* The block being filled. */
	unsigned char *block;
	uint32_t bpos, header_off;
	uint8_t btype;              /* 0: none open */
	uint32_t *restarts;
	size_t nrestarts, restarts_cap;
	uint32_t entries;
	struct wg_buf last_key;     /* of the block, for prefix compression */
	struct wg_buf section_key;  /* of the section, to check the order */
	struct wg_buf scratch, value;

	/* Index entries of the section being written (one per block). */
	struct index_ent *index;
	size_t nindex, index_cap;
	struct wg_buf index_keys;
	uint64_t section_first;     /* offset of the section's first block */
	bool section_has_block;

	struct obj_ent *objs;
	size_t nobjs, objs_cap;

	uint8_t section;            /* 0, RT_BLOCK_REF, RT_BLOCK_LOG */
	uint64_t ref_index_pos, obj_pos, obj_index_pos, log_pos, log_index_pos;
	uint8_t obj_id_len;
	uint64_t records;
	bool finished;

	z_stream zs;
	bool zs_ready;
	unsigned char *zbuf;
	size_t zcap;
};

int wg_reftable_write_to_buf(void *payload, const void *data, size_t len)
{
	if (wg_buf_add(payload, data, len))
		return wg_error_set(WG_ENOMEM, "out of memory writing a reftable");
	return 0;
}

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory writing a reftable");
}

int wg_reftable_writer_new(struct wg_reftable_writer **out,
			   const struct wg_reftable_write_options *opts,
			   wg_reftable_write_fn write, void *payload)
{
	struct wg_reftable_writer *w;

	*out = NULL;
	w = wg_calloc(1, sizeof(*w));
	if (!w)
		return nomem();
	if (opts)
		w->opts = *opts;
	if (!w->opts.block_size)
		w->opts.block_size = RT_DEFAULT_BLOCK_SIZE;
	if (!w->opts.restart_interval)
		w->opts.restart_interval = 16;
	w->algo = w->opts.algo ? w->opts.algo : wg_hash_algo_by_id(WG_HASH_SHA1);
	w->version = w->algo->id == WG_HASH_SHA1 ? 1 : 2;
	/* The block must hold the file header, a block header, one small
	 * record and its restart entry. */
	if (w->opts.block_size > RT_MAX_BLOCK_SIZE || w->opts.block_size < 256) {
		wg_free(w);
		return wg_error_set(WG_EINVALID, "reftable block size %u out of range (256..%u)",
				    (unsigned)(opts ? opts->block_size : 0), RT_MAX_BLOCK_SIZE);
	}
	w->write = write;
	w->payload = payload;
	w->block = wg_malloc(w->opts.block_size);
	if (!w->block) {
		wg_free(w);
		return nomem();
	}
	*out = w;
	return 0;
}

void wg_reftable_writer_free(struct wg_reftable_writer *w)
{
	if (!w)
		return;
	if (w->zs_ready)
		deflateEnd(&w->zs);
	wg_free(w->zbuf);
	wg_free(w->block);
	wg_free(w->restarts);
	wg_free(w->index);
	wg_free(w->objs);
	wg_buf_release(&w->last_key);
	wg_buf_release(&w->section_key);
	wg_buf_release(&w->scratch);
	wg_buf_release(&w->value);
	wg_buf_release(&w->index_keys);
	wg_free(w);
}

int wg_reftable_writer_set_limits(struct wg_reftable_writer *w, uint64_t min_update_index,
				  uint64_t max_update_index)
{
	if (w->records || w->next || w->finished)
		return wg_error_set(WG_EINVALID,
				    "reftable writer: limits must be set before adding records");
	if (min_update_index > max_update_index)
		return wg_error_set(WG_EINVALID, "reftable writer: min update index %llu > max %llu",
				    (unsigned long long)min_update_index,
				    (unsigned long long)max_update_index);
	w->min_ui = min_update_index;
	w->max_ui = max_update_index;
	return 0;
}

uint64_t wg_reftable_writer_min_update_index(const struct wg_reftable_writer *w)
{
	return w->min_ui;
}

uint64_t wg_reftable_writer_max_update_index(const struct wg_reftable_writer *w)
{
	return w->max_ui;
}

uint64_t wg_reftable_writer_records(const struct wg_reftable_writer *w)
{
	return w->records;
}

void rt_writer_limits(const struct wg_reftable_writer *w, uint64_t *min, uint64_t *max)
{
	*min = w->min_ui;
	*max = w->max_ui;
}

static size_t header_write(const struct wg_reftable_writer *w, unsigned char *dst)
{
	memcpy(dst, "REFT", 4);
	dst[4] = (unsigned char)w->version;
	wg_put_be24(dst + 5, w->opts.block_size);
	wg_put_be64(dst + 8, w->min_ui);
	wg_put_be64(dst + 16, w->max_ui);
	if (w->version == 2)
		wg_put_be32(dst + 24, w->algo->format_id);
	return RT_HEADER_SIZE(w->version);
}

/* Write bytes, first paying the padding owed by the previous block. */
static int emit(struct wg_reftable_writer *w, const void *data, size_t len, uint32_t padding)
{
	static const unsigned char zeros[512];
	int err;

	while (w->pending_padding) {
		uint32_t n = w->pending_padding < sizeof(zeros) ? w->pending_padding :
			(uint32_t)sizeof(zeros);
		if ((err = w->write(w->payload, zeros, n)))
			return err;
		w->pending_padding -= n;
	}
	if (len && (err = w->write(w->payload, data, len)))
		return err;
	w->pending_padding = padding;
	return 0;
}

static void block_start(struct wg_reftable_writer *w, uint8_t type)
{
	w->header_off = w->next == 0 ? RT_HEADER_SIZE(w->version) : 0;
	w->bpos = w->header_off + 4;
	w->block[w->header_off] = type;
	w->btype = type;
	w->entries = 0;
	w->nrestarts = 0;
	wg_buf_reset(&w->last_key);
}

static int deflate_block(struct wg_reftable_writer *w, uint32_t skip, uint32_t *out_len)
{
	uLong bound;

	if (!w->zs_ready) {
		w->zs.zalloc = rt_zalloc;
		w->zs.zfree = rt_zfree;
		if (deflateInit(&w->zs, 9) != Z_OK)
			return wg_error_set(WG_ENOMEM, "cannot initialise zlib for a reflog block");
		w->zs_ready = true;
	} else if (deflateReset(&w->zs) != Z_OK) {
		return wg_error_set(WG_ERROR, "zlib deflateReset failed");
	}
	bound = deflateBound(&w->zs, w->bpos - skip);
	if (bound > w->zcap) {
		unsigned char *nb = wg_realloc(w->zbuf, bound);
		if (!nb)
			return nomem();
		w->zbuf = nb;
		w->zcap = bound;
	}
	w->zs.next_in = w->block + skip;
	w->zs.avail_in = w->bpos - skip;
	w->zs.next_out = w->zbuf;
	w->zs.avail_out = (uInt)bound;
	if (deflate(&w->zs, Z_FINISH) != Z_STREAM_END)
		return wg_error_set(WG_ERROR, "zlib could not deflate a reflog block");
	*out_len = (uint32_t)w->zs.total_out;
	return 0;
}

static int add_index_entry(struct wg_reftable_writer *w, const unsigned char *key,
			   size_t key_len, uint64_t pos)
{
	if (w->nindex == w->index_cap) {
		size_t cap = w->index_cap ? 2 * w->index_cap : 64;
		struct index_ent *n = wg_realloc(w->index, cap * sizeof(*n));
		if (!n)
			return nomem();
		w->index = n;
		w->index_cap = cap;
	}
	w->index[w->nindex].key_off = w->index_keys.len;
	w->index[w->nindex].key_len = key_len;
	w->index[w->nindex].pos = pos;
	if (wg_buf_add(&w->index_keys, key, key_len))
		return nomem();
	w->nindex++;
	return 0;
}

static int block_flush(struct wg_reftable_writer *w)
{
	uint32_t raw = w->bpos, padding = 0, skip = w->header_off + 4;
	const unsigned char *data = w->block;
	uint64_t pos = w->next;
	int err;

	if (!w->btype || !w->entries) {
		w->btype = 0;
		return 0;
	}
	/* The fit check in block_add reserved room for the restart table. */
	for (size_t i = 0; i < w->nrestarts; i++) {
		wg_put_be24(w->block + w->bpos, w->restarts[i]);
		w->bpos += 3;
	}
	wg_put_be16(w->block + w->bpos, (uint16_t)w->nrestarts);
	w->bpos += 2;
	wg_put_be24(w->block + w->header_off + 1, w->bpos);
	if (w->header_off)
		header_write(w, w->block);
	raw = w->bpos;
	if (w->btype == RT_BLOCK_LOG) {
		uint32_t zlen = 0;
		/* block_len keeps the inflated size; the body is deflated. */
		if ((err = deflate_block(w, skip, &zlen)))
			return err;
		if (zlen + skip > w->opts.block_size) {
			/* Incompressible: emit header and deflated body
			 * separately rather than growing the block buffer. */
			if ((err = emit(w, w->block, skip, 0)) ||
			    (err = emit(w, w->zbuf, zlen, 0)))
				return err;
			raw = skip + zlen;
			goto written;
		}
		memcpy(w->block + skip, w->zbuf, zlen);
		raw = skip + zlen;
	} else if (!w->opts.unpadded) {
		padding = w->opts.block_size - raw;
	}
	if ((err = emit(w, data, raw, padding)))
		return err;
written:
	if (!w->section_has_block) {
		w->section_first = pos;
		w->section_has_block = true;
	}
	if ((err = add_index_entry(w, w->last_key.data, w->last_key.len, pos)))
		return err;
	w->next += raw + padding;
	w->btype = 0;
	return 0;
}

/* Append one record (key + encoded value in w->value) to a block of the
 * given type, flushing the current block when it is full. */
static int block_add(struct wg_reftable_writer *w, uint8_t type, const unsigned char *key,
		     size_t key_len, uint8_t val_type)
{
	int attempt, err;

	for (attempt = 0; attempt < 2; attempt++) {
		bool restart, use_prev;
		size_t need;

		if (!w->btype)
			block_start(w, type);
		use_prev = w->entries % w->opts.restart_interval != 0;
		wg_buf_reset(&w->scratch);
		if ((err = rt_encode_key(&w->scratch, use_prev ? w->last_key.data : NULL,
					 use_prev ? w->last_key.len : 0, key, key_len, val_type,
					 &restart)))
			return err;
		if (wg_buf_add(&w->scratch, w->value.data, w->value.len))
			return nomem();
		if (w->nrestarts >= RT_MAX_RESTARTS)
			restart = false;
		need = (size_t)w->bpos + w->scratch.len + 3 * (w->nrestarts + restart) + 2;
		if (need <= w->opts.block_size) {
			if (restart) {
				if (w->nrestarts == w->restarts_cap) {
					size_t cap = w->restarts_cap ? 2 * w->restarts_cap : 32;
					uint32_t *n = wg_realloc(w->restarts, cap * sizeof(*n));
					if (!n)
						return nomem();
					w->restarts = n;
					w->restarts_cap = cap;
				}
				w->restarts[w->nrestarts++] = w->bpos;
			}
			memcpy(w->block + w->bpos, w->scratch.data, w->scratch.len);
			w->bpos += (uint32_t)w->scratch.len;
			w->entries++;
			wg_buf_reset(&w->last_key);
			if (wg_buf_add(&w->last_key, key, key_len))
				return nomem();
			return 0;
		}
		if (!w->entries)
			break;
		if ((err = block_flush(w)))
			return err;
	}
	return wg_error_set(WG_EINVALID,
			    "reftable record for '%.*s' does not fit in a %u-byte block",
			    (int)(key_len > 200 ? 200 : key_len), (const char *)key,
			    w->opts.block_size);
}

/* Flush the last block of a section and write its index levels; returns
 * the root index position (0: no index) in *root. */
static int section_finish(struct wg_reftable_writer *w, uint64_t *root)
{
	size_t threshold = w->opts.unpadded ? 1 : 3;
	int err;

	*root = 0;
	if ((err = block_flush(w)))
		return err;
	while (w->nindex > threshold) {
		struct index_ent *ents = w->index;
		size_t n = w->nindex;
		struct wg_buf keys = w->index_keys;
		uint64_t level_start = w->next;

		w->index = NULL;
		w->nindex = w->index_cap = 0;
		w->index_keys = (struct wg_buf)WG_BUF_INIT;
		for (size_t i = 0; i < n && !err; i++) {
			wg_buf_reset(&w->value);
			rt_put_varint(&w->value, ents[i].pos, &err);
			if (err)
				err = nomem();
			else
				err = block_add(w, RT_BLOCK_INDEX, keys.data + ents[i].key_off,
						ents[i].key_len, 0);
		}
		if (!err)
			err = block_flush(w);
		wg_free(ents);
		wg_buf_release(&keys);
		if (err)
			return err;
		/* Levels are written bottom-up: readers start at the top. */
		*root = level_start;
	}
	w->nindex = 0;
	wg_buf_reset(&w->index_keys);
	wg_buf_reset(&w->section_key);
	w->section_has_block = false;
	return 0;
}

static int obj_cmp(const void *a, const void *b)
{
	const struct obj_ent *x = a, *y = b;
	int c = memcmp(x->id, y->id, WG_MAX_RAWSZ);

	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int write_objs(struct wg_reftable_writer *w)
{
	size_t rawsz = w->algo->rawsz, maxc = 1, i, j;
	uint64_t root;
	int err = 0;

	if (w->nobjs)
		qsort(w->objs, w->nobjs, sizeof(*w->objs), obj_cmp);
	/* The shortest abbreviation that keeps every id unique (at least 2). */
	for (i = 1; i < w->nobjs; i++) {
		size_t c = 0;
		while (c < rawsz && w->objs[i - 1].id[c] == w->objs[i].id[c])
			c++;
		if (c < rawsz && c > maxc)
			maxc = c;
	}
	w->obj_id_len = (uint8_t)(maxc + 1 > rawsz ? rawsz : maxc + 1);
	w->section_has_block = false;
	for (i = 0; i < w->nobjs; i = j) {
		size_t cnt = 0;
		uint64_t last = 0;

		for (j = i; j < w->nobjs && !memcmp(w->objs[j].id, w->objs[i].id, rawsz); j++)
			if (j == i || w->objs[j].pos != w->objs[j - 1].pos)
				cnt++;
		wg_buf_reset(&w->value);
		if (cnt == 0 || cnt >= 8)
			rt_put_varint(&w->value, cnt, &err);
		for (size_t k = i; k < j; k++) {
			if (k > i && w->objs[k].pos == w->objs[k - 1].pos)
				continue;
			rt_put_varint(&w->value, w->objs[k].pos - last, &err);
			last = w->objs[k].pos;
		}
		if (err)
			return nomem();
		err = block_add(w, RT_BLOCK_OBJ, w->objs[i].id, w->obj_id_len,
				(uint8_t)(cnt < 8 ? cnt : 0));
		if (err == WG_EINVALID) {
			/* Too many positions for one block: the spec's
			 * "count 0" form tells readers to scan all refs. */
			wg_buf_reset(&w->value);
			err = 0;
			rt_put_varint(&w->value, 0, &err);
			if (err)
				return nomem();
			err = block_add(w, RT_BLOCK_OBJ, w->objs[i].id, w->obj_id_len, 0);
		}
		if (err)
			return err;
	}
	if ((err = block_flush(w)))
		return err;
	if (w->section_has_block)
		w->obj_pos = w->section_first;
	if ((err = section_finish(w, &root)))
		return err;
	w->obj_index_pos = root;
	return 0;
}

static int finish_refs(struct wg_reftable_writer *w)
{
	uint64_t root;
	int err;

	if ((err = section_finish(w, &root)))
		return err;
	w->ref_index_pos = root;
	if (root && !w->opts.skip_index_objects && (err = write_objs(w)))
		return err;
	wg_free(w->objs);
	w->objs = NULL;
	w->nobjs = w->objs_cap = 0;
	return 0;
}

static int check_order(struct wg_reftable_writer *w, const unsigned char *key, size_t len,
		       const char *what)
{
	if (w->section_key.len &&
	    rt_key_cmp(w->section_key.data, w->section_key.len, key, len) >= 0)
		return wg_error_set(WG_EINVALID,
				    "reftable writer: %s '%.*s' is not after the previous one",
				    what, (int)strnlen((const char *)key, len), (const char *)key);
	wg_buf_reset(&w->section_key);
	if (wg_buf_add(&w->section_key, key, len))
		return nomem();
	return 0;
}

static int note_obj(struct wg_reftable_writer *w, const struct wg_oid *id)
{
	if (w->nobjs == w->objs_cap) {
		size_t cap = w->objs_cap ? 2 * w->objs_cap : 256;
		struct obj_ent *n = wg_realloc(w->objs, cap * sizeof(*n));
		if (!n)
			return nomem();
		w->objs = n;
		w->objs_cap = cap;
	}
	/* Record the block the ref landed in (block_add may have started a
	 * new one). */
	w->objs[w->nobjs].pos = w->next;
	memset(w->objs[w->nobjs].id, 0, WG_MAX_RAWSZ);
	memcpy(w->objs[w->nobjs].id, id->hash, w->algo->rawsz);
	w->nobjs++;
	return 0;
}

int wg_reftable_writer_add_ref(struct wg_reftable_writer *w, const struct wg_reftable_ref *ref)
{
	size_t len;
	int err = 0;

	if (w->finished)
		return wg_error_set(WG_EINVALID, "reftable writer: already finished");
	if (w->section == RT_BLOCK_LOG)
		return wg_error_set(WG_EINVALID, "reftable writer: refs must come before logs");
	if (!ref->refname || !*ref->refname)
		return wg_error_set(WG_EINVALID, "reftable writer: ref without a name");
	if (ref->update_index < w->min_ui || ref->update_index > w->max_ui)
		return wg_error_set(WG_EINVALID,
				    "reftable writer: ref '%s' has update index %llu outside %llu..%llu",
				    ref->refname, (unsigned long long)ref->update_index,
				    (unsigned long long)w->min_ui, (unsigned long long)w->max_ui);
	if ((ref->type == WG_REFTABLE_REF_VAL1 || ref->type == WG_REFTABLE_REF_VAL2) &&
	    (ref->value.algo != w->algo->id ||
	     (ref->type == WG_REFTABLE_REF_VAL2 && ref->peeled.algo != w->algo->id)))
		return wg_error_set(WG_EINVALID, "reftable writer: ref '%s' uses another hash",
				    ref->refname);
	if (ref->type == WG_REFTABLE_REF_SYMREF && !ref->target)
		return wg_error_set(WG_EINVALID, "reftable writer: symref '%s' without a target",
				    ref->refname);
	if ((unsigned)ref->type > WG_REFTABLE_REF_SYMREF)
		return wg_error_set(WG_EINVALID, "reftable writer: bad ref type %d", ref->type);
	len = strlen(ref->refname);
	if ((err = check_order(w, (const unsigned char *)ref->refname, len, "ref")))
		return err;
	w->section = RT_BLOCK_REF;

	wg_buf_reset(&w->value);
	rt_put_varint(&w->value, ref->update_index - w->min_ui, &err);
	if (err)
		return nomem();
	switch (ref->type) {
	case WG_REFTABLE_REF_DELETION:
		break;
	case WG_REFTABLE_REF_VAL1:
		err = wg_buf_add(&w->value, ref->value.hash, w->algo->rawsz);
		break;
	case WG_REFTABLE_REF_VAL2:
		err = wg_buf_add(&w->value, ref->value.hash, w->algo->rawsz) ||
		      wg_buf_add(&w->value, ref->peeled.hash, w->algo->rawsz);
		break;
	case WG_REFTABLE_REF_SYMREF:
		rt_put_varint(&w->value, strlen(ref->target), &err);
		err = err || wg_buf_adds(&w->value, ref->target);
		break;
	}
	if (err)
		return nomem();
	if ((err = block_add(w, RT_BLOCK_REF, (const unsigned char *)ref->refname, len,
			     (uint8_t)ref->type)))
		return err;
	w->records++;
	if (!w->opts.skip_index_objects) {
		if ((ref->type == WG_REFTABLE_REF_VAL1 || ref->type == WG_REFTABLE_REF_VAL2) &&
		    (err = note_obj(w, &ref->value)))
			return err;
		if (ref->type == WG_REFTABLE_REF_VAL2 && (err = note_obj(w, &ref->peeled)))
			return err;
	}
	return 0;
}

static int add_str(struct wg_buf *b, const char *s, size_t len, int *err)
{
	rt_put_varint(b, len, err);
	if (!*err && len && wg_buf_add(b, s, len))
		*err = WG_ENOMEM;
	return *err;
}

int wg_reftable_writer_add_log(struct wg_reftable_writer *w, const struct wg_reftable_log *log)
{
	const char *msg = log->message ? log->message : "";
	size_t msg_len = strlen(msg);
	bool add_newline = false;
	unsigned char tz[2];
	int err = 0;

	if (w->finished)
		return wg_error_set(WG_EINVALID, "reftable writer: already finished");
	if (!log->refname || !*log->refname)
		return wg_error_set(WG_EINVALID, "reftable writer: reflog entry without a ref name");
	/* Lower indexes than min are allowed: a newer table may rewrite an
	 * older reflog entry under its original update index. */
	if (log->update_index > w->max_ui)
		return wg_error_set(WG_EINVALID,
				    "reftable writer: reflog of '%s' has update index %llu > max %llu",
				    log->refname, (unsigned long long)log->update_index,
				    (unsigned long long)w->max_ui);
	if ((unsigned)log->type > WG_REFTABLE_LOG_UPDATE)
		return wg_error_set(WG_EINVALID, "reftable writer: bad log type %d", log->type);
	if (log->type == WG_REFTABLE_LOG_UPDATE) {
		if (log->old_id.algo != w->algo->id || log->new_id.algo != w->algo->id)
			return wg_error_set(WG_EINVALID,
					    "reftable writer: reflog of '%s' uses another hash",
					    log->refname);
		if (!w->opts.exact_log_message && log->message) {
			while (msg_len && msg[msg_len - 1] == '\n')
				msg_len--;
			if (memchr(msg, '\n', msg_len))
				return wg_error_set(WG_EINVALID,
						    "reftable writer: reflog message for '%s' has several lines",
						    log->refname);
			add_newline = true;
		}
	}
	if ((err = rt_log_key(&w->scratch, log->refname, log->update_index)))
		return err;
	/* check_order and block_add reuse scratch: keep the key aside. */
	{
		struct wg_buf key = WG_BUF_INIT;
		if (wg_buf_add(&key, w->scratch.data, w->scratch.len)) {
			wg_buf_release(&key);
			return nomem();
		}
		if (w->section == RT_BLOCK_REF) {
			if ((err = finish_refs(w))) {
				wg_buf_release(&key);
				return err;
			}
		}
		if (w->section != RT_BLOCK_LOG) {
			/* Log blocks are never aligned. */
			w->next -= w->pending_padding;
			w->pending_padding = 0;
			w->section = RT_BLOCK_LOG;
			/* 0 when the log block is the first block (log-only
			 * table): readers see that from the first block type. */
			w->log_pos = w->next;
			wg_buf_reset(&w->section_key);
		}
		if ((err = check_order(w, key.data, key.len, "reflog entry"))) {
			wg_buf_release(&key);
			return err;
		}
		wg_buf_reset(&w->value);
		if (log->type == WG_REFTABLE_LOG_UPDATE) {
			if (wg_buf_add(&w->value, log->old_id.hash, w->algo->rawsz) ||
			    wg_buf_add(&w->value, log->new_id.hash, w->algo->rawsz))
				err = WG_ENOMEM;
			add_str(&w->value, log->name ? log->name : "",
				log->name ? strlen(log->name) : 0, &err);
			add_str(&w->value, log->email ? log->email : "",
				log->email ? strlen(log->email) : 0, &err);
			rt_put_varint(&w->value, log->time, &err);
			wg_put_be16(tz, (uint16_t)log->tz_offset);
			if (!err && wg_buf_add(&w->value, tz, 2))
				err = WG_ENOMEM;
			rt_put_varint(&w->value, msg_len + add_newline, &err);
			if (!err && (wg_buf_add(&w->value, msg, msg_len) ||
				     (add_newline && wg_buf_addch(&w->value, '\n'))))
				err = WG_ENOMEM;
			if (err) {
				wg_buf_release(&key);
				return nomem();
			}
		}
		err = block_add(w, RT_BLOCK_LOG, key.data, key.len, (uint8_t)log->type);
		wg_buf_release(&key);
		if (err)
			return err;
	}
	w->records++;
	return 0;
}

int wg_reftable_writer_finish(struct wg_reftable_writer *w)
{
	unsigned char footer[RT_MAX_FOOTER_SIZE];
	unsigned char header[RT_MAX_HEADER_SIZE];
	size_t n;
	uint64_t root;
	int err;

	if (w->finished)
		return wg_error_set(WG_EINVALID, "reftable writer: already finished");
	if (w->section == RT_BLOCK_LOG) {
		if ((err = section_finish(w, &root)))
			return err;
		w->log_index_pos = root;
	} else if ((err = finish_refs(w))) {
		return err;
	}
	/* No padding between the last block and the footer. */
	w->pending_padding = 0;
	if (w->next == 0) {
		/* An empty table is a header directly followed by the footer. */
		n = header_write(w, header);
		if ((err = emit(w, header, n, 0)))
			return err;
		w->next = n;
	}
	n = header_write(w, footer);
	wg_put_be64(footer + n, w->ref_index_pos);
	wg_put_be64(footer + n + 8, w->obj_pos << 5 | w->obj_id_len);
	wg_put_be64(footer + n + 16, w->obj_index_pos);
	wg_put_be64(footer + n + 24, w->log_pos);
	wg_put_be64(footer + n + 32, w->log_index_pos);
	n += 40;
	wg_put_be32(footer + n, (uint32_t)crc32(0, footer, (uInt)n));
	n += 4;
	if ((err = emit(w, footer, n, 0)))
		return err;
	w->finished = true;
	return 0;
}
