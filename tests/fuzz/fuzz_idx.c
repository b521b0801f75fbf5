/* Pack index parsing (core/pack/idx.c), versions 1 and 2. Input: one
 * option byte (bit 0: sha256), then the .idx bytes. Every accessor is
 * exercised on an index that opens. */
#include "fuzz.h"

#include "pack/idx.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wg_hash_algo *algo;
	struct wg_pack_idx *idx;
	uint32_t count, pos, first, end, crc;
	struct wg_oid oid, prev;

	if (size < 1)
		return 0;
	algo = fz_algo(data[0] & 1);
	if (wg_pack_idx_parse(&idx, data + 1, size - 1, algo, "fuzz.idx"))
		return 0;
	count = wg_pack_idx_count(idx);
	FUZZ_ASSERT(wg_pack_idx_algo(idx) == algo);
	FUZZ_ASSERT(wg_pack_idx_version(idx) == 1 || wg_pack_idx_version(idx) == 2);
	(void)wg_pack_idx_pack_hash(idx)[algo->rawsz - 1];
	(void)wg_pack_idx_verify(idx);
	for (uint32_t i = 0; i < count && i < 4096; i++) {
		wg_pack_idx_oid_at(idx, i, &oid);
		(void)wg_pack_idx_offset_at(idx, i);
		(void)wg_pack_idx_crc_at(idx, i, &crc);
		if (!wg_pack_idx_find(idx, &oid, &pos)) {
			struct wg_oid found;
			wg_pack_idx_oid_at(idx, pos, &found);
			FUZZ_ASSERT(!memcmp(found.hash, oid.hash, algo->rawsz));
		}
		wg_pack_idx_prefix_range(idx, oid.hash, 1 + i % (algo->hexsz), &first, &end);
		FUZZ_ASSERT(first <= end && end <= count);
		prev = oid;
	}
	(void)prev;
	memset(&oid, 0, sizeof(oid));
	oid.algo = (unsigned char)algo->id;
	(void)wg_pack_idx_find(idx, &oid, &pos);
	memset(oid.hash, 0xff, algo->rawsz);
	(void)wg_pack_idx_find(idx, &oid, &pos);
	wg_pack_idx_prefix_range(idx, oid.hash, 3, &first, &end);
	FUZZ_ASSERT(first <= end && end <= count);
	wg_pack_idx_free(idx);
	return 0;
}
