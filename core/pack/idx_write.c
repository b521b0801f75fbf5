#include "pack/idx_write.h"

#include <stdlib.h>
#include <string.h>

#include "pack/pack_format.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/sort.h"

static int cmp_entry(const void *a, const void *b)
{
	const struct wg_pack_idx_entry *x = a, *y = b;
	return memcmp(x->oid.hash, y->oid.hash, WG_MAX_RAWSZ);
}

int wg_pack_idx_sort(struct wg_pack_idx_entry *entries, size_t n)
{
	size_t i;
	wg_sort(entries, n, sizeof(*entries), cmp_entry);
	for (i = 1; i < n; i++)
		if (!cmp_entry(&entries[i - 1], &entries[i]))
			return wg_error_set(WG_ECORRUPT, "pack has object %s twice",
					    wg_oid_hex(&entries[i].oid));
	return 0;
}

static int add_be32(struct wg_buf *out, uint32_t v)
{
	unsigned char b[4];
	wg_put_be32(b, v);
	return wg_buf_add(out, b, 4);
}

/* The trailing checksum over everything written so far (from `start`). */
static int add_checksum(struct wg_buf *out, size_t start, const struct wg_hash_algo *algo)
{
	unsigned char h[WG_MAX_RAWSZ];
	int err = wg_hash_buffer(algo, out->data + start, out->len - start, h);
	return err ? err : wg_buf_add(out, h, algo->rawsz);
}

int wg_pack_idx_write(struct wg_buf *out, const struct wg_hash_algo *algo,
		      const struct wg_pack_idx_entry *entries, size_t n,
		      const unsigned char *pack_hash)
{
	size_t start = out->len, i, need, nlarge = 0;
	uint32_t fanout[256] = { 0 };
	int err;

	if (n > UINT32_MAX)
		return wg_error_set(WG_EUNSUPPORTED, "too many objects for one pack index");
	/* Reserve the whole size once: 8 + 1024 + n * (rawsz + 8) + the
	 * 64-bit table + two checksums. */
	for (i = 0; i < n; i++)
		if (entries[i].offset >= WG_PACK_IDX_OFFSET64_FLAG)
			nlarge++;
	need = 8 + 1024 + n * (algo->rawsz + 8) + nlarge * 8 + 2 * algo->rawsz;
	if ((err = wg_buf_grow(out, need)))
		return err;
	for (i = 0; i < n; i++)
		fanout[entries[i].oid.hash[0]]++;
	for (i = 1; i < 256; i++)
		fanout[i] += fanout[i - 1];
	if ((err = add_be32(out, WG_PACK_IDX_SIGNATURE)) || (err = add_be32(out, 2)))
		return err;
	for (i = 0; i < 256; i++)
		if ((err = add_be32(out, fanout[i])))
			return err;
	for (i = 0; i < n; i++)
		if ((err = wg_buf_add(out, entries[i].oid.hash, algo->rawsz)))
			return err;
	for (i = 0; i < n; i++)
		if ((err = add_be32(out, entries[i].crc32)))
			return err;
	nlarge = 0;
	for (i = 0; i < n; i++) {
		uint64_t off = entries[i].offset;
		uint32_t v = off < WG_PACK_IDX_OFFSET64_FLAG ? (uint32_t)off
			     : (uint32_t)(WG_PACK_IDX_OFFSET64_FLAG | nlarge++);
		if ((err = add_be32(out, v)))
			return err;
	}
	for (i = 0; i < n; i++) {
		unsigned char b[8];
		if (entries[i].offset < WG_PACK_IDX_OFFSET64_FLAG)
			continue;
		wg_put_be64(b, entries[i].offset);
		if ((err = wg_buf_add(out, b, 8)))
			return err;
	}
	if ((err = wg_buf_add(out, pack_hash, algo->rawsz)))
		return err;
	return add_checksum(out, start, algo);
}

struct rev_sort {
	const struct wg_pack_idx_entry *entries;
	uint32_t pos;
};

static int cmp_offset(const void *a, const void *b)
{
	const struct rev_sort *x = a, *y = b;
	uint64_t ox = x->entries[x->pos].offset, oy = y->entries[y->pos].offset;
	return ox < oy ? -1 : ox > oy;
}

int wg_pack_rev_write(struct wg_buf *out, const struct wg_hash_algo *algo,
		      const struct wg_pack_idx_entry *entries, size_t n,
		      const unsigned char *pack_hash)
{
	struct rev_sort *order;
	uint32_t *positions;
	size_t i;
	int err;
	if (n > UINT32_MAX)
		return wg_error_set(WG_EUNSUPPORTED, "too many objects for one reverse index");
	order = wg_calloc(n ? n : 1, sizeof(*order));
	positions = wg_calloc(n ? n : 1, sizeof(*positions));
	if (!order || !positions) {
		wg_free(order);
		wg_free(positions);
		return wg_error_set(WG_ENOMEM, "out of memory writing a reverse index");
	}
	for (i = 0; i < n; i++) {
		order[i].entries = entries;
		order[i].pos = (uint32_t)i;
	}
	wg_sort(order, n, sizeof(*order), cmp_offset);
	for (i = 0; i < n; i++)
		positions[i] = order[i].pos;
	wg_free(order);
	err = wg_pack_rev_write_positions(out, algo, positions, n, pack_hash);
	wg_free(positions);
	return err;
}

int wg_pack_rev_write_positions(struct wg_buf *out, const struct wg_hash_algo *algo,
				const uint32_t *positions, size_t n,
				const unsigned char *pack_hash)
{
	size_t start = out->len, i;
	int err;
	if (n > UINT32_MAX)
		return wg_error_set(WG_EUNSUPPORTED, "too many objects for one reverse index");
	/* "RIDX", version 1, hash id (1 = SHA-1, 2 = SHA-256). */
	if (!(err = wg_buf_grow(out, 12 + n * 4 + 2 * algo->rawsz)) &&
	    !(err = add_be32(out, WG_PACK_REV_SIGNATURE)) && !(err = add_be32(out, 1)) &&
	    !(err = add_be32(out, (uint32_t)algo->id))) {
		for (i = 0; i < n && !err; i++)
			err = add_be32(out, positions[i]);
	}
	if (!err)
		err = wg_buf_add(out, pack_hash, algo->rawsz);
	return err ? err : add_checksum(out, start, algo);
}
