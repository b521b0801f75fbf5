#include "pack/pack.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "pack/delta_apply.h"
#include "pack/pack_cache.h"
#include "pack/pack_format.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

#define CACHE_SLOTS 256
/* No zlib stream inflates to more than about 1032 times its size. */
#define ZLIB_MAX_RATIO 1032

struct cache_slot {
	uint64_t offset;
	unsigned char *data;  /* NULL: empty */
	size_t len;
	enum wg_object_type type;
};

struct wg_pack {
	const struct wg_hash_algo *algo;
	struct wg_pack_idx *idx;
	char *path;
	struct wg_pack_source src;   /* the file, through windows once open */
	uint64_t size;
	uint64_t end;  /* where object data ends: size - rawsz */
	struct cache_slot cache[CACHE_SLOTS];
	size_t cache_total, cache_limit;
	unsigned evict_cursor;
	const struct wg_limits *limits;  /* NULL: the process-wide defaults */
};

/* One entry header, parsed. */
struct entry {
	uint64_t offset;
	uint64_t size;        /* inflated size of the entry's data */
	uint64_t data_offset; /* where its zlib stream starts */
	uint64_t base_offset; /* deltas: the base entry (REF resolved via the idx) */
	enum wg_object_type type;
};

int wg_pack_inflate_at(struct wg_buf *out, const struct wg_pack_source *src, uint64_t offset,
		       uint64_t limit, uint64_t size, size_t prefix)
{
	static const struct wg_limits none;  /* all 0: no limits */
	return wg_pack_inflate_limited(out, src, offset, limit, size, prefix, &none);
}

int wg_pack_inflate_limited(struct wg_buf *out, const struct wg_pack_source *src,
			    uint64_t offset, uint64_t limit, uint64_t size, size_t prefix,
			    const struct wg_limits *limits)
{
	unsigned char in[65536], extra;
	size_t want = (size_t)size, produced = 0;
	bool partial;
	z_stream zs;
	int err = 0;

	wg_buf_reset(out);
	if (size >= SIZE_MAX)
		return wg_error_set(WG_EUNSUPPORTED, "object of %llu bytes is too large for this "
				    "build", (unsigned long long)size);
	partial = prefix && prefix < want;
	if (partial)
		want = prefix;
	else if ((err = wg_limits_check_object_size(limits, size, "pack entry")))
		return err;
	/* Without limits (the indexer, which has checked every declared size
	 * against its stream already), allocate the declared size at once,
	 * but only as far as the bytes left in the pack could inflate to
	 * (zlib's ratio is at most 1032:1). With limits (reads), grow with
	 * what the stream really produces, so a pack that was never indexed
	 * here (or a damaged one) cannot make us allocate more than its data
	 * and max_inflate_ratio allow. */
	{
		uint64_t left = limit > offset ? limit - offset : 0;
		size_t first = 0;
		if (!limits->max_object_size && !limits->max_inflate_ratio) {
			first = want;
			if (left < (UINT64_MAX - 64) / ZLIB_MAX_RATIO &&
			    left * ZLIB_MAX_RATIO + 64 < first)
				first = (size_t)(left * ZLIB_MAX_RATIO + 64);
		}
		if ((err = wg_buf_grow(out, first)))
			return err;
	}
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return wg_error_set(WG_ENOMEM, "cannot initialise zlib");
	for (;;) {
		uInt before;
		int zret;
		if (partial && produced == want)
			break;
		if (!zs.avail_in) {
			/* Most entries are small deltas: read about what the
			 * stream should take (zlib adds a few bytes to data that
			 * does not compress) rather than a whole buffer each time. */
			size_t n = sizeof(in);
			if (!zs.total_in && size < n - 64 - n / 8)
				n = (size_t)size + 64 + (size_t)size / 8;
			if (offset >= limit) {
				err = wg_error_set(WG_ECORRUPT, "zlib stream runs past the end of the "
						   "pack data");
				break;
			}
			if (limit - offset < n)
				n = (size_t)(limit - offset);
			if ((err = wg_pack_source_read(src, in, n, offset)))
				break;
			offset += n;
			zs.next_in = in;
			zs.avail_in = (uInt)n;
		}
		if (produced < want) {
			size_t room;
			if (out->cap <= produced + 1) {
				size_t step = produced < 65536 ? 65536 : produced;
				if (step > want - produced)
					step = want - produced;
				if ((err = wg_buf_grow(out, step)))
					break;
			}
			room = out->cap - 1 - produced;
			if (room > want - produced)
				room = want - produced;
			zs.next_out = out->data + produced;
			zs.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
		} else {
			/* Everything declared is out: the stream must now end
			 * without producing one byte more. */
			zs.next_out = &extra;
			zs.avail_out = 1;
		}
		before = zs.avail_out;
		zret = inflate(&zs, Z_NO_FLUSH);
		if (produced >= want && zs.avail_out != before) {
			err = wg_error_set(WG_ECORRUPT, "zlib stream inflates past the %llu bytes "
					   "its entry declares", (unsigned long long)size);
			break;
		}
		if (produced < want) {
			produced += before - zs.avail_out;
			wg_buf_setlen(out, produced);
			if ((err = wg_limits_check_inflate(limits, produced, zs.total_in,
							   "pack entry")))
				break;
		}
		if (zret == Z_STREAM_END) {
			if (produced != want)
				err = wg_error_set(WG_ECORRUPT, "zlib stream ends after %zu of the "
						   "%llu bytes its entry declares", produced,
						   (unsigned long long)size);
			break;
		}
		if (zret != Z_OK && !(zret == Z_BUF_ERROR && !zs.avail_in)) {
			err = wg_error_set(WG_ECORRUPT, "zlib error in pack: %s",
					   zs.msg ? zs.msg : "invalid compressed data");
			break;
		}
	}
	inflateEnd(&zs);
	if (err)
		wg_buf_reset(out);
	else
		wg_buf_setlen(out, want);
	return err;
}

int wg_pack_open(struct wg_pack **out, const char *idx_path, const struct wg_hash_algo *algo)
{
	struct wg_pack *p = wg_calloc(1, sizeof(*p));
	size_t n = strlen(idx_path);
	unsigned char hdr[WG_PACK_HEADER_SIZE], trailer[WG_MAX_RAWSZ];
	uint32_t version, count;
	struct stat st;
	int err;

	if (!p)
		return wg_error_set(WG_ENOMEM, "out of memory opening a pack");
	p->src.fd = -1;
	p->algo = algo;
	p->cache_limit = WG_PACK_CACHE_DEFAULT;
	if (n < 4 || strcmp(idx_path + n - 4, ".idx")) {
		wg_pack_free(p);
		return wg_error_set(WG_EINVALID, "pack index name '%s' does not end in .idx", idx_path);
	}
	if (!(p->path = wg_malloc(n + 2))) {
		wg_pack_free(p);
		return wg_error_set(WG_ENOMEM, "out of memory opening a pack");
	}
	memcpy(p->path, idx_path, n - 4);
	memcpy(p->path + n - 4, ".pack", 6);
	if ((err = wg_pack_cache_open_idx(&p->idx, idx_path, algo)))
		goto fail;
	p->src.fd = wg_fs_open(p->path, O_RDONLY, 0);
	if (p->src.fd < 0) {
		err = wg_error_set(errno == ENOENT ? WG_ENOTFOUND : WG_EIO, "cannot open pack '%s': %s",
				   p->path, strerror(errno));
		goto fail;
	}
	if (wg_fs_fstat(p->src.fd, &st)) {
		err = wg_error_set(WG_EIO, "cannot stat '%s': %s", p->path, strerror(errno));
		goto fail;
	}
	p->size = (uint64_t)st.st_size;
	if (p->size < WG_PACK_HEADER_SIZE + algo->rawsz) {
		err = wg_error_set(WG_ECORRUPT, "pack '%s' is too short", p->path);
		goto fail;
	}
	p->end = p->size - algo->rawsz;
	if ((err = wg_pack_pread(p->src.fd, hdr, sizeof(hdr), 0)) ||
	    (err = wg_pack_header_parse(hdr, &version, &count)) ||
	    (err = wg_pack_pread(p->src.fd, trailer, algo->rawsz, p->end)))
		goto fail;
	if (count != wg_pack_idx_count(p->idx)) {
		err = wg_error_set(WG_ECORRUPT, "pack '%s' claims %u objects but its index has %u",
				   p->path, count, wg_pack_idx_count(p->idx));
		goto fail;
	}
	if (memcmp(trailer, wg_pack_idx_pack_hash(p->idx), algo->rawsz)) {
		err = wg_error_set(WG_ECORRUPT, "pack '%s' does not match its index", p->path);
		goto fail;
	}
	/* The windows an earlier open of this pack read (pack/pack_cache.h),
	 * else new ones; without windows (out of memory) reads just go to the
	 * file. */
	p->src.windows = wg_pack_cache_take_windows(p->idx);
	if (p->src.windows && wg_pack_windows_rebind(p->src.windows, p->src.fd, p->size)) {
		wg_pack_windows_free(p->src.windows);
		p->src.windows = NULL;
	}
	if (!p->src.windows)
		p->src.windows = wg_pack_windows_new(p->src.fd, p->size, WG_PACK_ACCESS_SCATTERED);
	*out = p;
	return 0;
fail:
	if (err != WG_ENOMEM)
		wg_error_prefix("cannot open pack for '%s'", idx_path);
	wg_pack_free(p);
	return err;
}

static void cache_clear(struct wg_pack *p)
{
	unsigned i;
	for (i = 0; i < CACHE_SLOTS; i++) {
		wg_free(p->cache[i].data);
		p->cache[i].data = NULL;
	}
	p->cache_total = 0;
}

void wg_pack_free(struct wg_pack *p)
{
	if (!p)
		return;
	cache_clear(p);
	if (p->src.fd >= 0)
		wg_fs_close(p->src.fd);
	wg_pack_cache_release(p->idx, p->src.windows);
	wg_free(p->path);
	wg_free(p);
}

const struct wg_pack_idx *wg_pack_index(const struct wg_pack *p) { return p->idx; }
const char *wg_pack_path(const struct wg_pack *p) { return p->path; }
uint64_t wg_pack_size(const struct wg_pack *p) { return p->size; }

void wg_pack_set_limits(struct wg_pack *p, const struct wg_limits *limits)
{
	p->limits = limits;
}

void wg_pack_set_cache_limit(struct wg_pack *p, size_t bytes)
{
	p->cache_limit = bytes;
	if (p->cache_total > bytes)
		cache_clear(p);
}

static unsigned slot_of(uint64_t offset)
{
	uint64_t h = offset * 0x9E3779B97F4A7C15ull;
	return (unsigned)(h >> 56) % CACHE_SLOTS;
}

static struct cache_slot *cache_get(struct wg_pack *p, uint64_t offset)
{
	struct cache_slot *s = &p->cache[slot_of(offset)];
	return s->data && s->offset == offset ? s : NULL;
}

static void slot_drop(struct wg_pack *p, struct cache_slot *s)
{
	if (!s->data)
		return;
	p->cache_total -= s->len;
	wg_free(s->data);
	s->data = NULL;
}

/* Keep a copy of an inflated base; failure to cache is not an error. */
static void cache_put(struct wg_pack *p, uint64_t offset, enum wg_object_type type,
		      const unsigned char *data, size_t len)
{
	struct cache_slot *s = &p->cache[slot_of(offset)];
	unsigned char *copy;
	if (len > p->cache_limit / 4)
		return;
	slot_drop(p, s);
	while (p->cache_total + len > p->cache_limit) {
		slot_drop(p, &p->cache[p->evict_cursor]);
		p->evict_cursor = (p->evict_cursor + 1) % CACHE_SLOTS;
	}
	if (!(copy = wg_malloc(len ? len : 1)))
		return;
	memcpy(copy, data, len);
	s->offset = offset;
	s->data = copy;
	s->len = len;
	s->type = type;
	p->cache_total += len;
}

static int read_entry(struct wg_pack *p, uint64_t offset, struct entry *e)
{
	unsigned char buf[WG_PACK_OBJ_HEADER_MAX + WG_VARINT_MAX + WG_MAX_RAWSZ];
	size_t avail;
	uint64_t rel;
	int n, m, err;
	if (offset < WG_PACK_HEADER_SIZE || offset >= p->end)
		return wg_error_set(WG_ECORRUPT, "offset %llu is outside the objects of pack '%s'",
				    (unsigned long long)offset, p->path);
	avail = p->end - offset < sizeof(buf) ? (size_t)(p->end - offset) : sizeof(buf);
	if ((err = wg_pack_source_read(&p->src, buf, avail, offset)))
		return err;
	n = wg_pack_object_header_decode(buf, avail, &e->type, &e->size);
	if (n <= 0)
		goto bad;
	e->offset = offset;
	if (e->type == WG_OBJ_OFS_DELTA) {
		m = wg_varint_ofs_decode(buf + n, avail - (size_t)n, &rel);
		if (m <= 0)
			goto bad;
		if (!rel || rel > offset - WG_PACK_HEADER_SIZE)
			return wg_error_set(WG_ECORRUPT, "delta base offset out of bounds at %llu in "
					    "pack '%s'", (unsigned long long)offset, p->path);
		e->base_offset = offset - rel;
		n += m;
	} else if (e->type == WG_OBJ_REF_DELTA) {
		struct wg_oid base;
		uint32_t pos;
		if (avail - (size_t)n < p->algo->rawsz)
			goto bad;
		wg_oid_from_raw(&base, p->algo, buf + n);
		if (wg_pack_idx_find(p->idx, &base, &pos))
			return wg_error_set(WG_ECORRUPT, "delta base %s of the entry at %llu is not in "
					    "pack '%s'", wg_oid_hex(&base),
					    (unsigned long long)offset, p->path);
		e->base_offset = wg_pack_idx_offset_at(p->idx, pos);
		n += (int)p->algo->rawsz;
	}
	e->data_offset = offset + (uint64_t)n;
	return 0;
bad:
	if (n < 0)
		return wg_error_prefix("at offset %llu in pack '%s'", (unsigned long long)offset, p->path);
	return wg_error_set(WG_ECORRUPT, "truncated entry header at offset %llu in pack '%s'",
			    (unsigned long long)offset, p->path);
}

static int is_delta(enum wg_object_type t)
{
	return t == WG_OBJ_OFS_DELTA || t == WG_OBJ_REF_DELTA;
}

int wg_pack_read_at(struct wg_pack *p, uint64_t offset, enum wg_object_type *type_out,
		    struct wg_buf *out)
{
	struct entry *chain = NULL, e;
	size_t n = 0, cap = 0, limit = (size_t)wg_pack_idx_count(p->idx) + 1;
	struct wg_buf base = WG_BUF_INIT, delta = WG_BUF_INIT, tmp;
	enum wg_object_type type;
	struct cache_slot *hit = NULL;
	uint64_t max = wg_limits_or_default(p->limits)->max_object_size;
	size_t max_result = max && max < SIZE_MAX ? (size_t)max : 0;
	int err = 0;

	wg_buf_reset(out);
	/* Walk down to a cached or non-delta base, remembering the deltas. */
	for (;;) {
		if ((hit = cache_get(p, offset)))
			break;
		if ((err = read_entry(p, offset, &e)))
			goto done;
		if (!is_delta(e.type))
			break;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct entry *c = wg_realloc(chain, ncap * sizeof(*c));
			if (!c) {
				err = wg_error_set(WG_ENOMEM, "out of memory reading a delta chain");
				goto done;
			}
			chain = c;
			cap = ncap;
		}
		chain[n++] = e;
		if (n > limit) {
			err = wg_error_set(WG_ECORRUPT, "delta chain at offset %llu in pack '%s' is "
					   "cyclic", (unsigned long long)chain[0].offset, p->path);
			goto done;
		}
		offset = e.base_offset;
	}
	if (hit) {
		type = hit->type;
		if ((err = wg_buf_add(&base, hit->data, hit->len)))
			goto done;
	} else {
		type = e.type;
		if ((err = wg_pack_inflate_limited(&base, &p->src, e.data_offset, p->end, e.size, 0,
						   wg_limits_or_default(p->limits))))
			goto inflate_fail;
		if (n)
			cache_put(p, e.offset, type, base.data, base.len);
	}
	while (n--) {
		e = chain[n];
		if ((err = wg_pack_inflate_limited(&delta, &p->src, e.data_offset, p->end, e.size, 0,
						   wg_limits_or_default(p->limits))))
			goto inflate_fail;
		if ((err = wg_delta_apply(out, base.data, base.len, delta.data, delta.len,
					  max_result))) {
			wg_error_prefix("cannot apply the delta at offset %llu in pack '%s'",
					(unsigned long long)e.offset, p->path);
			goto done;
		}
		if (n)
			cache_put(p, e.offset, type, out->data, out->len);
		tmp = base;
		base = *out;
		*out = tmp;
	}
	tmp = base;
	base = *out;
	*out = tmp;
	*type_out = type;
	goto done;
inflate_fail:
	if (err != WG_ENOMEM && err != WG_ELIMIT)
		wg_error_prefix("entry at offset %llu in pack '%s'", (unsigned long long)e.offset, p->path);
done:
	if (err)
		wg_buf_reset(out);
	wg_free(chain);
	wg_buf_release(&base);
	wg_buf_release(&delta);
	return err;
}

int wg_pack_read(struct wg_pack *p, const struct wg_oid *oid, enum wg_object_type *type_out,
		 struct wg_buf *out)
{
	uint32_t pos;
	if (wg_pack_idx_find(p->idx, oid, &pos))
		return WG_ENOTFOUND;
	return wg_pack_read_at(p, wg_pack_idx_offset_at(p->idx, pos), type_out, out);
}

int wg_pack_entry_of(struct wg_pack *p, const struct wg_oid *oid,
		     enum wg_object_type *type_out, uint64_t *size_out,
		     uint64_t *data_offset_out, uint64_t *data_end_out)
{
	struct entry e;
	uint32_t pos;
	int err;
	if (wg_pack_idx_find(p->idx, oid, &pos))
		return WG_ENOTFOUND;
	if ((err = read_entry(p, wg_pack_idx_offset_at(p->idx, pos), &e)))
		return err;
	*type_out = e.type;
	*size_out = e.size;
	*data_offset_out = e.data_offset;
	*data_end_out = p->end;
	return 0;
}

int wg_pack_read_header(struct wg_pack *p, const struct wg_oid *oid,
			enum wg_object_type *type_out, size_t *size_out)
{
	size_t steps = 0, limit = (size_t)wg_pack_idx_count(p->idx) + 1, hdrlen;
	struct wg_buf prefix = WG_BUF_INIT;
	uint64_t base_size, result_size, offset;
	struct cache_slot *hit;
	struct entry e;
	uint32_t pos;
	bool have_size = false;
	int err;

	if (wg_pack_idx_find(p->idx, oid, &pos))
		return WG_ENOTFOUND;
	offset = wg_pack_idx_offset_at(p->idx, pos);
	for (;;) {
		if ((hit = cache_get(p, offset))) {
			*type_out = hit->type;
			if (!have_size)
				*size_out = hit->len;
			break;
		}
		if ((err = read_entry(p, offset, &e)))
			break;
		if (!is_delta(e.type)) {
			if (!have_size) {
				if (e.size >= SIZE_MAX) {
					err = wg_error_set(WG_EUNSUPPORTED, "object is too large");
					break;
				}
				*size_out = (size_t)e.size;
			}
			*type_out = e.type;
			break;
		}
		if (!have_size) {
			/* The result size is in the delta's first bytes. */
			if ((err = wg_pack_inflate_at(&prefix, &p->src, e.data_offset, p->end, e.size,
						      2 * WG_VARINT_MAX)) ||
			    (err = wg_delta_sizes(prefix.data, prefix.len, &base_size, &result_size,
						  &hdrlen)))
				break;
			if (result_size >= SIZE_MAX) {
				err = wg_error_set(WG_EUNSUPPORTED, "object is too large");
				break;
			}
			*size_out = (size_t)result_size;
			have_size = true;
		}
		if (++steps > limit) {
			err = wg_error_set(WG_ECORRUPT, "delta chain in pack '%s' is cyclic", p->path);
			break;
		}
		offset = e.base_offset;
	}
	wg_buf_release(&prefix);
	return err;
}
