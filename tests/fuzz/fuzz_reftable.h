/* What the reftable targets ask of a table that opened: verify it,
 * iterate its refs (all, and under a prefix), its logs (all, and of one
 * ref), the refs that name an id, and look refs up. Include after fuzz.h. */
#ifndef WG_FUZZ_REFTABLE_H
#define WG_FUZZ_REFTABLE_H

#include "reftable/reftable.h"

static inline void fz_reftable_queries(struct wg_reftable_table *t)
{
	static const char *const lookups[] = { "HEAD", "refs/heads/main", "refs/tags/v1" };
	struct wg_reftable_iter *it;
	struct wg_reftable_ref ref;
	struct wg_reftable_log log;
	struct wg_oid first;
	int have_first = 0, n;

	memset(&ref, 0, sizeof(ref));
	memset(&log, 0, sizeof(log));
	memset(&first, 0, sizeof(first));
	(void)wg_reftable_table_verify(t);
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
	for (size_t i = 0; i < 2; i++) {
		if (!wg_reftable_table_iter_logs(&it, t, lookups[i])) {
			for (n = 0; n < 1000 && !wg_reftable_iter_next_log(&log, it); n++)
				;
			wg_reftable_iter_free(it);
		}
		wg_reftable_log_release(&log);
	}
	/* The refs naming the first id seen, or the null id of the table's
	 * format when there was none (the obj index is still searched). */
	if (!have_first)
		first.algo = (unsigned char)wg_reftable_table_algo(t)->id;
	if (!wg_reftable_table_iter_refs_for(&it, t, &first)) {
		for (n = 0; n < 1000 && !wg_reftable_iter_next_ref(&ref, it); n++)
			;
		wg_reftable_iter_free(it);
	}
	wg_reftable_ref_release(&ref);
	for (size_t i = 0; i < sizeof(lookups) / sizeof(*lookups); i++) {
		(void)wg_reftable_table_read_ref(&ref, t, lookups[i]);
		wg_reftable_ref_release(&ref);
	}
}

#endif
