#include "pack/idx_slice.h"

#include <string.h>

#include "pack/pack_format.h"
#include "util/endian.h"
#include "util/error.h"

int wg_idx_head_parse(struct wg_idx_head *out, const unsigned char *p, size_t len,
		      const struct wg_hash_algo *algo, const char *name)
{
	const unsigned char *fan;
	uint32_t prev = 0;

	memset(out, 0, sizeof(*out));
	out->rawsz = algo->rawsz;
	if (len >= 8 && wg_get_be32(p) == WG_PACK_IDX_SIGNATURE) {
		out->version = wg_get_be32(p + 4);
		if (out->version != 2)
			return wg_error_set(WG_EUNSUPPORTED, "%s: pack index version %u is not "
					    "supported (only 1 and 2)", name, out->version);
		fan = p + 8;
		if (len < WG_IDX_HEAD_SIZE)
			return wg_error_set(WG_ECORRUPT, "%s: pack index truncated (%zu bytes)",
					    name, len);
	} else {
		out->version = 1;
		fan = p;
		if (len < 256 * 4)
			return wg_error_set(WG_ECORRUPT, "%s: pack index truncated (%zu bytes)",
					    name, len);
	}
	for (unsigned i = 0; i < 256; i++) {
		out->fanout[i] = wg_get_be32(fan + 4 * i);
		if (out->fanout[i] < prev)
			return wg_error_set(WG_ECORRUPT, "%s: pack index fanout decreases at "
					    "entry %u", name, i);
		prev = out->fanout[i];
	}
	out->count = out->fanout[255];
	/* v2 keeps the high bit of a 4-byte offset for the 8-byte table, and
	 * v1's records would pass 2^32 bytes of file: no real index comes
	 * near either */
	if (out->count >= WG_PACK_IDX_OFFSET64_FLAG)
		return wg_error_set(WG_ECORRUPT, "%s: pack index claims %u objects", name,
				    (unsigned)out->count);
	return 0;
}

void wg_idx_bucket(const struct wg_idx_head *h, unsigned first, uint32_t *lo, uint32_t *hi)
{
	*lo = first ? h->fanout[first - 1] : 0;
	*hi = h->fanout[first & 0xff];
}

size_t wg_idx_record_size(const struct wg_idx_head *h)
{
	return h->version == 1 ? 4 + h->rawsz : h->rawsz;
}

uint64_t wg_idx_record_at(const struct wg_idx_head *h, uint32_t pos)
{
	uint64_t base = h->version == 1 ? 256 * 4 : WG_IDX_HEAD_SIZE;
	return base + (uint64_t)pos * wg_idx_record_size(h);
}

const unsigned char *wg_idx_record_id(const struct wg_idx_head *h, const unsigned char *record)
{
	return h->version == 1 ? record + 4 : record;
}

int wg_idx_records_find(const struct wg_idx_head *h, const unsigned char *records, uint32_t lo,
			uint32_t hi, const struct wg_oid *oid, uint32_t *pos)
{
	size_t size = wg_idx_record_size(h);
	uint32_t a = 0, b = hi - lo;

	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		int c = memcmp(oid->hash, wg_idx_record_id(h, records + (size_t)mid * size),
			       h->rawsz);
		if (!c) {
			*pos = lo + mid;
			return 0;
		}
		if (c < 0)
			b = mid;
		else
			a = mid + 1;
	}
	return WG_ENOTFOUND;
}

uint32_t wg_idx_record_offset_v1(const unsigned char *record)
{
	return wg_get_be32(record);
}

uint64_t wg_idx_offset32_at(const struct wg_idx_head *h, uint32_t pos)
{
	/* after the ids and the CRC-32s */
	return WG_IDX_HEAD_SIZE + (uint64_t)h->count * (h->rawsz + 4) + (uint64_t)pos * 4;
}

int wg_idx_offset32_decode(const struct wg_idx_head *h, uint32_t value, uint64_t *offset,
			   uint64_t *large_at)
{
	uint32_t k;

	if (!(value & WG_PACK_IDX_OFFSET64_FLAG)) {
		*offset = value;
		return 0;
	}
	/* at most one 8-byte entry per object */
	k = value & ~WG_PACK_IDX_OFFSET64_FLAG;
	if (k >= h->count)
		return wg_error_set(WG_ECORRUPT, "pack index: 8-byte offset entry %u of at most %u",
				    (unsigned)k, (unsigned)h->count);
	*large_at = WG_IDX_HEAD_SIZE + (uint64_t)h->count * (h->rawsz + 8) + (uint64_t)k * 8;
	return 1;
}
