/* Reftable blocks (core/refs/reftable_block.c and the block loading of
 * reftable_reader.c) inside a well-formed frame: the target writes the
 * file header and a footer with a correct CRC-32 around the fuzzed block
 * bytes, so every run reaches the block and record decoders.
 *
 * Input: 12 bytes of frame parameters, then the blocks.
 *   byte 0       bit 0: format version 2 (SHA-256); bits 1-2: block size
 *                0 / 256 / 4096 / the length of the blocks
 *   bytes 1-10   five big-endian 16-bit section positions, relative to
 *                the first block (0 = absent, else position + 1): obj,
 *                log, ref index, obj index, log index
 *   byte 11      the object id abbreviation length (low 5 bits) */
#include "fuzz.h"

#include <zlib.h>

#include "fuzz_reftable.h"
#include "reftable/reftable.h"
#include "util/endian.h"
#include "util/error.h"

#define PARAMS 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_reftable_source *src;
	struct wg_reftable_table *t;
	uint8_t *file, *foot;
	size_t hsize, fsize, blen, len;
	uint64_t pos[5];
	uint32_t bs;
	int version;

	if (size < PARAMS)
		return 0;
	version = (data[0] & 1) ? 2 : 1;
	hsize = version == 1 ? 24 : 28;
	fsize = version == 1 ? 68 : 72;
	blen = size - PARAMS;
	switch (data[0] >> 1 & 3) {
	case 0: bs = 0; break;
	case 1: bs = 256; break;
	case 2: bs = 4096; break;
	default: bs = (uint32_t)(blen > 0xffffff ? 0xffffff : blen); break;
	}
	for (int i = 0; i < 5; i++) {
		uint32_t v = wg_get_be16(data + 1 + 2 * i);
		pos[i] = v ? hsize + v - 1 : 0;
	}
	len = hsize + blen + fsize;
	file = calloc(1, len);
	memcpy(file, "REFT", 4);
	file[4] = (uint8_t)version;
	wg_put_be24(file + 5, bs);
	wg_put_be64(file + 8, 1);
	wg_put_be64(file + 16, 3);
	if (version == 2)
		wg_put_be32(file + 24, 0x73323536u);  /* "s256" */
	memcpy(file + hsize, data + PARAMS, blen);
	foot = file + hsize + blen;
	memcpy(foot, file, hsize);
	wg_put_be64(foot + hsize, pos[2]);                               /* ref index */
	wg_put_be64(foot + hsize + 8, pos[0] << 5 | (data[11] & 0x1f)); /* obj + id len */
	wg_put_be64(foot + hsize + 16, pos[3]);                          /* obj index */
	wg_put_be64(foot + hsize + 24, pos[1]);                          /* log */
	wg_put_be64(foot + hsize + 32, pos[4]);                          /* log index */
	wg_put_be32(foot + fsize - 4, (uint32_t)crc32(0, foot, (uInt)(fsize - 4)));

	if (wg_reftable_source_from_memory(&src, file, len) ||
	    wg_reftable_table_open(&t, src, "fuzz.ref")) {
		free(file);
		return 0;
	}
	fz_reftable_queries(t);
	wg_reftable_table_free(t);
	free(file);
	return 0;
}
