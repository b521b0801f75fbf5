/* The streaming pack indexer (core/pack/indexer.c) in verify-only mode
 * (temporary files in a private directory, nothing kept). Input: one
 * option byte, then a pack stream fed in input-derived chunks.
 *   bit 0  sha256
 *   bit 1  replace the last rawsz bytes by the checksum of what precedes
 *          them, so that mutated packs get past the trailer check and
 *          into delta resolution
 *   bit 2  fix_thin with an empty object database (missing bases)
 *   bit 3  fsck every object
 *   bit 4  a 4 KiB base window (evictions) */
#include "fuzz.h"

#include "object/fsck.h"
#include "odb/odb.h"
#include "pack/indexer.h"
#include "util/error.h"

static int on_object(unsigned worker, const struct wg_oid *oid, enum wg_object_type type,
		     const void *data, size_t len, void *payload)
{
	(void)worker;
	volatile unsigned char sink = 0;
	(void)oid;
	(void)payload;
	FUZZ_ASSERT(type == WG_OBJ_COMMIT || type == WG_OBJ_TREE || type == WG_OBJ_TAG);
	if (len)
		sink ^= ((const unsigned char *)data)[0] ^ ((const unsigned char *)data)[len - 1];
	(void)sink;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	struct wg_object_source bases;
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	const struct wg_hash_algo *algo;
	struct wg_indexer *ix;
	struct wg_odb *odb = NULL;
	unsigned char hash[WG_MAX_RAWSZ];
	uint8_t *pack;
	size_t len;
	struct fz_chunks ch;
	const uint8_t *chunk;
	size_t n;
	int err = 0;

	if (size < 1)
		return 0;
	algo = fz_algo(data[0] & 1);
	len = size - 1;
	pack = fz_dup(data + 1, len);
	if ((data[0] & 2) && len >= algo->rawsz)
		wg_hash_buffer(algo, pack, len - algo->rawsz, pack + len - algo->rawsz);
	o.algo = algo;
	o.tmp_dir = fz_tmpdir();
	if ((data[0] & 4) && !wg_odb_new(&odb, algo)) {
		bases = wg_odb_object_source(odb);
		o.bases = &bases;
		o.fix_thin = true;
	}
	if (data[0] & 8)
		o.fsck = &fsck;
	if (data[0] & 16)
		o.window = 4096;
	o.on_object = on_object;
	if (wg_indexer_new(&ix, &o)) {
		wg_odb_free(odb);
		free(pack);
		return 0;
	}
	fz_chunks_init(&ch, pack, len, fz_hash(data, size));
	while (!err && (chunk = fz_chunks_next(&ch, &n)))
		err = wg_indexer_feed(ix, chunk, n);
	fz_chunks_release(&ch);
	if (!err && !wg_indexer_finish(ix, hash)) {
		uint32_t count = wg_indexer_object_count(ix);
		for (uint32_t i = 0; i < count; i++) {
			struct wg_indexer_object obj;
			wg_indexer_object(ix, i, &obj);
			FUZZ_ASSERT(obj.type >= WG_OBJ_COMMIT && obj.type <= WG_OBJ_TAG);
			FUZZ_ASSERT(obj.offset < len);
			FUZZ_ASSERT(wg_indexer_find(ix, &obj.oid) == obj.type);
		}
		FUZZ_ASSERT(wg_indexer_idx_data(ix)->len > 0);
	}
	wg_indexer_free(ix);
	wg_odb_free(odb);
	free(pack);
	return 0;
}
