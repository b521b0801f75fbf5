/* The index file (core/index/index.c). Input: one option byte (bit 0:
 * sha256), then an index file without its trailer; the harness appends
 * the right checksum, so the fuzzer reaches the entries and extensions
 * instead of the hash check. An index that parses must serialize, parse
 * again to the same entries, and serialize again to the same bytes. */
#include "fuzz.h"

#include "index/index.h"
#include "util/error.h"

static bool same_entries(const struct wg_index *a, const struct wg_index *b)
{
	if (a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++) {
		const struct wg_index_entry *x = a->entries[i], *y = b->entries[i];
		if (x->path_len != y->path_len || memcmp(x->path, y->path, x->path_len) ||
		    x->mode != y->mode || !wg_oid_equal(&x->oid, &y->oid) || x->stage != y->stage ||
		    x->flags != y->flags || memcmp(&x->st, &y->st, sizeof(x->st)))
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wg_hash_algo *algo;
	struct wg_hash_ctx ctx;
	struct wg_index *ix = NULL, *ix2 = NULL;
	struct wg_buf out = WG_BUF_INIT, out2 = WG_BUF_INIT;
	uint8_t *file;
	size_t len;

	if (size < 1)
		return 0;
	algo = fz_algo(data[0] & 1);
	len = size - 1;
	file = malloc(len + algo->rawsz);
	FUZZ_ASSERT(file != NULL);
	if (len)
		memcpy(file, data + 1, len);
	wg_hash_init(&ctx, algo);
	wg_hash_update(&ctx, file, len);
	FUZZ_ASSERT(wg_hash_final(&ctx, file + len) == 0);
	if (!wg_index_parse(&ix, algo, file, len + algo->rawsz)) {
		FUZZ_ASSERT(wg_index_serialize(&out, ix) == 0);
		FUZZ_ASSERT(wg_index_parse(&ix2, algo, out.data, out.len) == 0);
		FUZZ_ASSERT(same_entries(ix, ix2));
		FUZZ_ASSERT(wg_index_serialize(&out2, ix2) == 0);
		FUZZ_ASSERT(out.len == out2.len && !memcmp(out.data, out2.data, out.len));
		/* lookups agree with the order */
		for (size_t i = 0; i < ix->nr; i++)
			FUZZ_ASSERT(wg_index_find(ix, ix->entries[i]->path, ix->entries[i]->path_len,
						  ix->entries[i]->stage) == (long)i);
	} else {
		FUZZ_ASSERT(*wg_error_message());
	}
	wg_index_free(ix);
	wg_index_free(ix2);
	wg_buf_release(&out);
	wg_buf_release(&out2);
	free(file);
	wg_error_clear();
	return 0;
}
