/* Whole reftable tables (core/refs/reftable_reader.c, reftable_block.c).
 * The input is a .ref file. It is opened as is, and again with its footer
 * CRC-32 recomputed (so mutations of the footer's section positions get
 * past the checksum); each table that opens is verified, iterated (refs,
 * logs, refs for an id) and searched. */
#include "fuzz.h"

#include <zlib.h>

#include "refs/reftable.h"
#include "util/endian.h"
#include "util/error.h"

static void exercise(const uint8_t *data, size_t size)
{
	struct wg_reftable_source *src;
	struct wg_reftable_table *t;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref ref;
	struct wg_reftable_log log;
	struct wg_oid first;
	int have_first = 0, n;

	if (wg_reftable_source_from_memory(&src, data, size))
		return;
	if (wg_reftable_table_open(&t, src, "fuzz.ref"))
		return;
	(void)wg_reftable_table_verify(t);
	memset(&ref, 0, sizeof(ref));
	memset(&log, 0, sizeof(log));
	memset(&first, 0, sizeof(first));
	if (!wg_reftable_table_iter_refs(&it, t, NULL)) {
		for (n = 0; n < 10000 && !wg_reftable_iter_next_ref(&ref, it); n++) {
			FUZZ_ASSERT(ref.refname != NULL);
			if (ref.type == WG_REFTABLE_REF_SYMREF)
				FUZZ_ASSERT(ref.target != NULL);
			if (!have_first && (ref.type == WG_REFTABLE_REF_VAL1 ||
					    ref.type == WG_REFTABLE_REF_VAL2)) {
				first = ref.value;
				have_first = 1;
			}
		}
		wg_reftable_iter_free(it);
	}
	wg_reftable_ref_release(&ref);
	if (!wg_reftable_table_iter_refs(&it, t, "refs/heads/")) {
		for (n = 0; n < 1000 && !wg_reftable_iter_next_ref(&ref, it); n++)
			FUZZ_ASSERT(!strncmp(ref.refname, "refs/heads/", 11));
		wg_reftable_iter_free(it);
	}
	wg_reftable_ref_release(&ref);
	if (!wg_reftable_table_iter_logs(&it, t, NULL)) {
		for (n = 0; n < 10000 && !wg_reftable_iter_next_log(&log, it); n++) {
			FUZZ_ASSERT(log.refname != NULL);
			if (log.type == WG_REFTABLE_LOG_UPDATE)
				FUZZ_ASSERT(log.name && log.email && log.message);
		}
		wg_reftable_iter_free(it);
	}
	wg_reftable_log_release(&log);
	if (!wg_reftable_table_iter_logs(&it, t, "HEAD")) {
		for (n = 0; n < 1000 && !wg_reftable_iter_next_log(&log, it); n++)
			;
		wg_reftable_iter_free(it);
	}
	wg_reftable_log_release(&log);
	if (have_first && !wg_reftable_table_iter_refs_for(&it, t, &first)) {
		for (n = 0; n < 1000 && !wg_reftable_iter_next_ref(&ref, it); n++)
			;
		wg_reftable_iter_free(it);
	}
	wg_reftable_ref_release(&ref);
	(void)wg_reftable_table_read_ref(&ref, t, "HEAD");
	wg_reftable_ref_release(&ref);
	(void)wg_reftable_table_read_ref(&ref, t, "refs/heads/main");
	wg_reftable_ref_release(&ref);
	wg_reftable_table_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
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
