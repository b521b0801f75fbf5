/* Reading records out of one loaded reftable block, and the byte sources
 * tables read from. Every length and offset read from a block is checked
 * against the block's record area (which ends where its restart table
 * begins) before it is used. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reftable/reftable_internal.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

void rt_block_release(struct rt_block *b)
{
	wg_free(b->data);
	memset(b, 0, sizeof(*b));
}

static int corrupt(const struct rt_ctx *ctx, const struct rt_block *b, uint32_t off,
		   const char *what)
{
	return wg_error_set(WG_ECORRUPT,
			    "reftable %s: corrupt '%c' block at offset %llu: %s (at byte %u)",
			    ctx->name, b->type, (unsigned long long)b->offset, what, off);
}

/* Decode a varint inside [*p, end); advances *p. */
static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	int n = wg_varint_ofs_decode(*p, (size_t)(end - *p), v);

	if (n <= 0)
		return -1;
	*p += n;
	return 0;
}

static int get_bytes(const unsigned char **p, const unsigned char *end, uint64_t len,
		     const unsigned char **out)
{
	if (len > (uint64_t)(end - *p))
		return -1;
	*out = *p;
	*p += len;
	return 0;
}

void rt_block_iter_start(struct rt_block_iter *bi, const struct rt_block *b, struct rt_rec *rec)
{
	bi->b = b;
	bi->next_off = b->header_off + 4;
	bi->pending = false;
	wg_buf_reset(&rec->key);
}

/* The value part of a record, by block type. */
static int decode_value(struct rt_rec *rec, uint8_t type, const unsigned char **pp,
			const unsigned char *end, size_t rawsz)
{
	const unsigned char *p = *pp, *s;
	uint64_t len, cnt, v;

	switch (type) {
	case RT_BLOCK_REF:
		if (get_varint(&p, end, &rec->u64))
			return -1;
		switch (rec->val_type) {
		case WG_REFTABLE_REF_DELETION:
			break;
		case WG_REFTABLE_REF_VAL1:
			if (get_bytes(&p, end, rawsz, &rec->id1))
				return -1;
			break;
		case WG_REFTABLE_REF_VAL2:
			if (get_bytes(&p, end, rawsz, &rec->id1) ||
			    get_bytes(&p, end, rawsz, &rec->id2))
				return -1;
			break;
		case WG_REFTABLE_REF_SYMREF:
			if (get_varint(&p, end, &len) || get_bytes(&p, end, len, &s))
				return -1;
			rec->str = (const char *)s;
			rec->str_len = (size_t)len;
			break;
		default:
			return -2;
		}
		break;
	case RT_BLOCK_INDEX:
		if (get_varint(&p, end, &rec->u64))
			return -1;
		break;
	case RT_BLOCK_OBJ:
		cnt = rec->val_type;
		if (!cnt && get_varint(&p, end, &cnt))
			return -1;
		/* Each position takes at least one byte: bound the count by
		 * what is left before allocating. */
		if (cnt > (uint64_t)(end - p))
			return -1;
		if (cnt > rec->pos_cap) {
			uint64_t *np = wg_realloc(rec->pos, (size_t)cnt * sizeof(*np));
			if (!np)
				return -3;
			rec->pos = np;
			rec->pos_cap = (size_t)cnt;
		}
		rec->npos = (size_t)cnt;
		for (size_t i = 0; i < rec->npos; i++) {
			if (get_varint(&p, end, &v))
				return -1;
			if (i) {
				if (v > UINT64_MAX - rec->pos[i - 1])
					return -1;
				v += rec->pos[i - 1];
			}
			rec->pos[i] = v;
		}
		break;
	case RT_BLOCK_LOG:
		if (rec->key.len < 9 || rec->key.data[rec->key.len - 9] != '\0')
			return -4;
		if (rec->val_type == WG_REFTABLE_LOG_DELETION)
			break;
		if (rec->val_type != WG_REFTABLE_LOG_UPDATE)
			return -2;
		if (get_bytes(&p, end, rawsz, &rec->id1) || get_bytes(&p, end, rawsz, &rec->id2))
			return -1;
		if (get_varint(&p, end, &len) || get_bytes(&p, end, len, &s))
			return -1;
		rec->str = (const char *)s;
		rec->str_len = (size_t)len;
		if (get_varint(&p, end, &len) || get_bytes(&p, end, len, &s))
			return -1;
		rec->email = (const char *)s;
		rec->email_len = (size_t)len;
		if (get_varint(&p, end, &rec->time) || get_bytes(&p, end, 2, &s))
			return -1;
		rec->tz = (int16_t)wg_get_be16(s);
		if (get_varint(&p, end, &len) || get_bytes(&p, end, len, &s))
			return -1;
		rec->msg = (const char *)s;
		rec->msg_len = (size_t)len;
		break;
	default:
		return -2;
	}
	*pp = p;
	return 0;
}

int rt_block_iter_next(struct rt_block_iter *bi, struct rt_rec *rec, const struct rt_ctx *ctx)
{
	const struct rt_block *b = bi->b;
	const unsigned char *start, *p, *end, *suffix;
	uint64_t prefix, sfx;
	int r;

	if (bi->pending) {
		bi->pending = false;
		return 0;
	}
	if (bi->next_off >= b->restart_off)
		return WG_ITEROVER;
	start = p = b->data + bi->next_off;
	end = b->data + b->restart_off;
	if (get_varint(&p, end, &prefix) || get_varint(&p, end, &sfx))
		return corrupt(ctx, b, bi->next_off, "truncated record key");
	rec->val_type = (uint8_t)(sfx & 7);
	sfx >>= 3;
	if (prefix > rec->key.len)
		return corrupt(ctx, b, bi->next_off, "key prefix longer than the previous key");
	if (get_bytes(&p, end, sfx, &suffix))
		return corrupt(ctx, b, bi->next_off, "key suffix runs past the records");
	if (!prefix && !sfx)
		return corrupt(ctx, b, bi->next_off, "empty key");
	wg_buf_setlen(&rec->key, (size_t)prefix);
	if (wg_buf_add(&rec->key, suffix, (size_t)sfx))
		return wg_error_set(WG_ENOMEM, "out of memory reading reftable %s", ctx->name);
	rec->id1 = rec->id2 = NULL;
	rec->str = rec->email = rec->msg = NULL;
	rec->str_len = rec->email_len = rec->msg_len = 0;
	rec->npos = 0;
	r = decode_value(rec, b->type, &p, end, ctx->rawsz);
	if (r == -3)
		return wg_error_set(WG_ENOMEM, "out of memory reading reftable %s", ctx->name);
	if (r == -2)
		return corrupt(ctx, b, bi->next_off, "unknown value type");
	if (r == -4)
		return corrupt(ctx, b, bi->next_off, "reflog key without an update index");
	if (r)
		return corrupt(ctx, b, bi->next_off, "record value runs past the records");
	bi->next_off += (uint32_t)(p - start);
	return 0;
}

/* The full key stored at a restart point (restart records are never
 * prefix-compressed). */
static int restart_key(const struct rt_block *b, const struct rt_ctx *ctx, uint16_t i,
		       const unsigned char **key, size_t *len)
{
	uint32_t off = wg_get_be24(b->data + b->restart_off + 3u * i);
	const unsigned char *p = b->data + off, *end = b->data + b->restart_off;
	uint64_t prefix, sfx;

	if (get_varint(&p, end, &prefix) || get_varint(&p, end, &sfx))
		return corrupt(ctx, b, off, "truncated key at a restart point");
	if (prefix)
		return corrupt(ctx, b, off, "restart point with a prefix-compressed key");
	sfx >>= 3;
	if (get_bytes(&p, end, sfx, key))
		return corrupt(ctx, b, off, "key at a restart point runs past the records");
	*len = (size_t)sfx;
	return 0;
}

int rt_block_iter_seek(struct rt_block_iter *bi, struct rt_rec *rec, const struct rt_ctx *ctx,
		       const unsigned char *want, size_t want_len)
{
	const struct rt_block *b = bi->b;
	size_t lo = 0, hi = b->restart_count;
	int r;

	/* Find the first restart whose key is > want; the wanted record, if
	 * present, lies after the restart before it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const unsigned char *k = NULL;
		size_t klen = 0;

		if ((r = restart_key(b, ctx, (uint16_t)mid, &k, &klen)))
			return r;
		if (rt_key_cmp(k, klen, want, want_len) > 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	rt_block_iter_start(bi, b, rec);
	if (lo > 0)
		bi->next_off = wg_get_be24(b->data + b->restart_off + 3u * (lo - 1));
	for (;;) {
		if ((r = rt_block_iter_next(bi, rec, ctx)))
			return r;
		if (rt_key_cmp(rec->key.data, rec->key.len, want, want_len) >= 0) {
			bi->pending = true;
			return 0;
		}
	}
}

/* --- byte sources -------------------------------------------------------------- */

struct wg_reftable_source {
	const struct wg_reftable_source_ops *ops;
	void *payload;
	uint64_t size;
};

int wg_reftable_source_new(struct wg_reftable_source **out,
			   const struct wg_reftable_source_ops *ops, void *payload,
			   uint64_t size)
{
	struct wg_reftable_source *src = wg_calloc(1, sizeof(*src));

	*out = NULL;
	if (!src)
		return wg_error_set(WG_ENOMEM, "out of memory opening a reftable source");
	src->ops = ops;
	src->payload = payload;
	src->size = size;
	*out = src;
	return 0;
}

void wg_reftable_source_free(struct wg_reftable_source *src)
{
	if (!src)
		return;
	if (src->ops->close)
		src->ops->close(src->payload);
	wg_free(src);
}

uint64_t rt_source_size(const struct wg_reftable_source *src)
{
	return src->size;
}

int rt_source_read(struct wg_reftable_source *src, void *dst, uint64_t off, size_t len)
{
	if (off > src->size || len > src->size - off)
		return wg_error_set(WG_EINVALID, "reftable read past the end of the source");
	return src->ops->read(src->payload, dst, off, len);
}

static int mem_read(void *payload, void *dst, uint64_t off, size_t len)
{
	memcpy(dst, (const unsigned char *)payload + off, len);
	return 0;
}

static const struct wg_reftable_source_ops mem_ops = { mem_read, NULL };

int wg_reftable_source_from_memory(struct wg_reftable_source **out, const void *data,
				   size_t len)
{
	return wg_reftable_source_new(out, &mem_ops, (void *)(uintptr_t)data, len);
}

struct file_source {
	int fd;
	char *path;
};

static int file_read(void *payload, void *dst, uint64_t off, size_t len)
{
	struct file_source *fs = payload;
	unsigned char *p = dst;

	while (len) {
		ssize_t n = wg_fs_pread(fs->fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return wg_error_set(WG_EIO, "cannot read %s: %s", fs->path, strerror(errno));
		if (n == 0)
			return wg_error_set(WG_ECORRUPT, "reftable %s: file shrank while reading",
					    fs->path);
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void file_close(void *payload)
{
	struct file_source *fs = payload;

	wg_fs_close(fs->fd);
	wg_free(fs->path);
	wg_free(fs);
}

static const struct wg_reftable_source_ops file_ops = { file_read, file_close };

int wg_reftable_source_from_file(struct wg_reftable_source **out, const char *path)
{
	struct file_source *fs;
	struct stat stbuf;
	int fd, err;

	*out = NULL;
	fd = wg_fs_open(path, O_RDONLY, 0);
	if (fd < 0)
		return wg_error_set(errno == ENOENT ? WG_ENOTFOUND : WG_EIO, "cannot open %s: %s",
				    path, strerror(errno));
	if (wg_fs_fstat(fd, &stbuf)) {
		err = wg_error_set(WG_EIO, "cannot stat %s: %s", path, strerror(errno));
		wg_fs_close(fd);
		return err;
	}
	fs = wg_calloc(1, sizeof(*fs));
	if (!fs || !(fs->path = wg_strdup(path))) {
		wg_free(fs);
		wg_fs_close(fd);
		return wg_error_set(WG_ENOMEM, "out of memory opening %s", path);
	}
	fs->fd = fd;
	if ((err = wg_reftable_source_new(out, &file_ops, fs, (uint64_t)stbuf.st_size))) {
		file_close(fs);
		return err;
	}
	return 0;
}
