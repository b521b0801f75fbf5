/* Whole reftable tables (core/refs/reftable_reader.c, reftable_block.c).
 * The input is a .ref file. It is opened as is, and again with its footer
 * CRC-32 recomputed (so mutations of the footer's section positions get
 * past the checksum); each table that opens is verified, iterated (refs,
 * logs, refs for an id) and searched. */
#include "fuzz.h"

#include <zlib.h>

#include "fuzz_reftable.h"
#include "reftable/reftable.h"
#include "util/endian.h"
#include "util/error.h"

static void exercise(const uint8_t *data, size_t size)
{
	struct wg_reftable_source *src;
	struct wg_reftable_table *t;

	if (wg_reftable_source_from_memory(&src, data, size))
		return;
	if (wg_reftable_table_open(&t, src, "fuzz.ref"))
		return;
	fz_reftable_queries(t);
	wg_reftable_table_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = fz_dup(data, size);
	exercise(copy, size);
	/* The footer (68 bytes in version 1, 72 in version 2) ends with the
	 * CRC-32 of the rest of it. */
	if (size >= 5 + 72) {
		size_t fsize = copy[4] == 2 ? 72 : 68;
		uint8_t *foot = copy + size - fsize;
		wg_put_be32(foot + fsize - 4, (uint32_t)crc32(0, foot, (uInt)(fsize - 4)));
		exercise(copy, size);
	}
	free(copy);
	return 0;
}
