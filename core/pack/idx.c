#include "pack/idx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

#include "pack/pack_format.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/fs.h"

struct wg_pack_idx {
	const struct wg_hash_algo *algo;
	unsigned char *data;
	size_t len;
	bool mapped;                 /* data is the file mapped (wg_fs_load_fd) */
	unsigned version;
	uint32_t count;
	uint32_t nlarge;             /* entries in the 64-bit offset table */
	const unsigned char *fanout; /* 256 big-endian counts */
	/* v1: entries of (4-byte offset, id); v2: separate tables. */
	const unsigned char *ids;
	size_t id_stride;
	const unsigned char *crcs;
	const unsigned char *offsets;
	const unsigned char *large;
	const unsigned char *pack_hash;
	char *name;
};

static int bad(const struct wg_pack_idx *idx, const char *what)
{
	return wg_error_set(WG_ECORRUPT, "pack index %s is corrupt: %s", idx->name, what);
}

static int layout(struct wg_pack_idx *idx)
{
	const size_t rawsz = idx->algo->rawsz;
	const unsigned char *p = idx->data;
	size_t len = idx->len, fixed, i;
	uint32_t prev = 0;

	if (len >= 8 && wg_get_be32(p) == WG_PACK_IDX_SIGNATURE) {
		idx->version = wg_get_be32(p + 4);
		if (idx->version != 2)
			return wg_error_set(WG_EUNSUPPORTED, "pack index %s has version %u, "
					    "only 1 and 2 are supported", idx->name, idx->version);
		idx->fanout = p + 8;
	} else {
		idx->version = 1;
		idx->fanout = p;
	}
	fixed = (idx->version == 2 ? 8 : 0) + 256 * 4 + 2 * rawsz;
	if (len < fixed)
		return bad(idx, "file is too short");
	for (i = 0; i < 256; i++) {
		uint32_t n = wg_get_be32(idx->fanout + 4 * i);
		if (n < prev)
			return bad(idx, "fanout table is not monotonic");
		prev = n;
	}
	idx->count = prev;
	if (idx->version == 1) {
		/* Every size below is checked against the file length, which
		 * itself fits in size_t, so count * stride cannot overflow
		 * once count <= len / stride. */
		idx->id_stride = 4 + rawsz;
		if (idx->count > (len - fixed) / idx->id_stride ||
		    len - fixed != (size_t)idx->count * idx->id_stride)
			return bad(idx, "file size does not match its object count");
		idx->ids = idx->fanout + 1024 + 4;
		idx->offsets = idx->fanout + 1024;
	} else {
		size_t per = rawsz + 8, rest;
		idx->id_stride = rawsz;
		if (idx->count > (len - fixed) / per)
			return bad(idx, "file is too short for its object count");
		rest = len - fixed - (size_t)idx->count * per;
		if (rest % 8 || rest / 8 > idx->count)
			return bad(idx, "file size does not match its object count");
		idx->nlarge = (uint32_t)(rest / 8);
		idx->ids = idx->fanout + 1024;
		idx->crcs = idx->ids + (size_t)idx->count * rawsz;
		idx->offsets = idx->crcs + (size_t)idx->count * 4;
		idx->large = idx->offsets + (size_t)idx->count * 4;
		for (i = 0; i < idx->count; i++) {
			uint32_t o = wg_get_be32(idx->offsets + 4 * i);
			if ((o & WG_PACK_IDX_OFFSET64_FLAG) &&
			    (o & ~WG_PACK_IDX_OFFSET64_FLAG) >= idx->nlarge)
				return bad(idx, "64-bit offset reference out of bounds");
		}
	}
	idx->pack_hash = idx->data + len - 2 * rawsz;
	return 0;
}

int wg_pack_idx_parse(struct wg_pack_idx **out, const unsigned char *data, size_t len,
		      const struct wg_hash_algo *algo, const char *name)
{
	struct wg_pack_idx *idx = wg_calloc(1, sizeof(*idx));
	int err;
	if (!idx || !(idx->name = wg_strdup(name ? name : "(memory)")) ||
	    !(idx->data = wg_malloc(len ? len : 1))) {
		wg_pack_idx_free(idx);
		return wg_error_set(WG_ENOMEM, "out of memory reading a pack index");
	}
	memcpy(idx->data, data, len);
	idx->len = len;
	idx->algo = algo;
	if ((err = layout(idx))) {
		wg_pack_idx_free(idx);
		return err;
	}
	*out = idx;
	return 0;
}

int wg_pack_idx_open(struct wg_pack_idx **out, const char *path, const struct wg_hash_algo *algo)
{
	struct wg_pack_idx *idx = wg_calloc(1, sizeof(*idx));
	int fd, err;

	if (!idx || !(idx->name = wg_strdup(path))) {
		wg_free(idx);
		return wg_error_set(WG_ENOMEM, "out of memory reading a pack index");
	}
	idx->algo = algo;
	if ((fd = wg_fs_open(path, O_RDONLY, 0)) < 0) {
		err = wg_error_set(errno == ENOENT || errno == ENOTDIR ? WG_ENOTFOUND : WG_EIO,
				   "cannot open '%s': %s", path, strerror(errno));
		wg_pack_idx_free(idx);
		return err;
	}
	err = wg_fs_load_fd(fd, path, &idx->data, &idx->len, &idx->mapped);
	wg_fs_close(fd);
	if (err || (err = layout(idx))) {
		wg_pack_idx_free(idx);
		return err;
	}
	*out = idx;
	return 0;
}

void wg_pack_idx_free(struct wg_pack_idx *idx)
{
	if (!idx)
		return;
	wg_fs_release_bytes(idx->data, idx->len, idx->mapped);
	wg_free(idx->name);
	wg_free(idx);
}

const struct wg_hash_algo *wg_pack_idx_algo(const struct wg_pack_idx *idx) { return idx->algo; }
unsigned wg_pack_idx_version(const struct wg_pack_idx *idx) { return idx->version; }
uint32_t wg_pack_idx_count(const struct wg_pack_idx *idx) { return idx->count; }
const unsigned char *wg_pack_idx_pack_hash(const struct wg_pack_idx *idx) { return idx->pack_hash; }

static const unsigned char *id_at(const struct wg_pack_idx *idx, uint32_t pos)
{
	return idx->ids + (size_t)pos * idx->id_stride;
}

static uint32_t fan(const struct wg_pack_idx *idx, int byte)
{
	return byte < 0 ? 0 : wg_get_be32(idx->fanout + 4 * byte);
}

int wg_pack_idx_find(const struct wg_pack_idx *idx, const struct wg_oid *oid, uint32_t *pos)
{
	const size_t rawsz = idx->algo->rawsz;
	uint32_t lo = fan(idx, oid->hash[0] - 1), hi = fan(idx, oid->hash[0]);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = memcmp(oid->hash, id_at(idx, mid), rawsz);
		if (!c) {
			*pos = mid;
			return 0;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return WG_ENOTFOUND;
}

void wg_pack_idx_oid_at(const struct wg_pack_idx *idx, uint32_t pos, struct wg_oid *out)
{
	wg_oid_from_raw(out, idx->algo, id_at(idx, pos));
}

uint64_t wg_pack_idx_offset_at(const struct wg_pack_idx *idx, uint32_t pos)
{
	uint32_t o;
	if (idx->version == 1)
		return wg_get_be32(idx->offsets + (size_t)pos * idx->id_stride);
	o = wg_get_be32(idx->offsets + 4 * (size_t)pos);
	if (!(o & WG_PACK_IDX_OFFSET64_FLAG))
		return o;
	/* Bounds checked in layout(). */
	return wg_get_be64(idx->large + 8 * (size_t)(o & ~WG_PACK_IDX_OFFSET64_FLAG));
}

int wg_pack_idx_crc_at(const struct wg_pack_idx *idx, uint32_t pos, uint32_t *crc)
{
	if (idx->version < 2)
		return wg_error_set(WG_EUNSUPPORTED, "pack index v1 has no CRC-32s");
	*crc = wg_get_be32(idx->crcs + 4 * (size_t)pos);
	return 0;
}

/* Compare an id with the prefix on its first hexlen digits. */
static int prefix_cmp(const unsigned char *id, const unsigned char *prefix, size_t hexlen)
{
	size_t full = hexlen / 2;
	int c = memcmp(id, prefix, full);
	if (c || !(hexlen & 1))
		return c;
	return (int)(id[full] >> 4) - (int)(prefix[full] >> 4);
}

void wg_pack_idx_prefix_range(const struct wg_pack_idx *idx, const unsigned char *prefix,
			      size_t hexlen, uint32_t *first, uint32_t *end)
{
	uint32_t lo, hi, a, b;
	if (hexlen > idx->algo->hexsz)
		hexlen = idx->algo->hexsz;
	if (hexlen < 2) {
		/* Not enough for the fanout: the whole index (callers filter). */
		*first = 0;
		*end = idx->count;
		return;
	}
	lo = fan(idx, prefix[0] - 1);
	hi = fan(idx, prefix[0]);
	/* Lower bound: first id >= prefix. */
	a = lo;
	b = hi;
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		if (prefix_cmp(id_at(idx, mid), prefix, hexlen) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	*first = a;
	/* Upper bound: first id > prefix. */
	b = hi;
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		if (prefix_cmp(id_at(idx, mid), prefix, hexlen) <= 0)
			a = mid + 1;
		else
			b = mid;
	}
	*end = a;
}

int wg_pack_idx_verify(const struct wg_pack_idx *idx)
{
	const size_t rawsz = idx->algo->rawsz;
	unsigned char h[WG_MAX_RAWSZ];
	uint32_t i;
	int err;
	if ((err = wg_hash_buffer(idx->algo, idx->data, idx->len - rawsz, h)) && err != WG_ECOLLISION)
		return err;
	if (memcmp(h, idx->data + idx->len - rawsz, rawsz))
		return bad(idx, "index checksum mismatch");
	for (i = 1; i < idx->count; i++)
		if (memcmp(id_at(idx, i - 1), id_at(idx, i), rawsz) >= 0)
			return bad(idx, "object ids are not sorted");
	return 0;
}
