/* Taking some hunks of a diff (core/diff/hunk_select.h), as a split by
 * hunks does: the input is a selection seed (8 bytes), a split point (1
 * byte) and the bytes the two texts are cut from. Taking every hunk must
 * give the new text and taking none the old one, byte for byte; any other
 * selection must grow or shrink old by exactly what its hunks change. */
#include "fuzz.h"

#include "diff/hunk_select.h"
#include "util/buf.h"
#include "util/error.h"

static void check(const struct wg_hunk_select *hs, const bool *take, const char *want,
		  size_t want_len)
{
	struct wg_buf out = WG_BUF_INIT;
	if (!wg_hunk_select_apply(&out, hs, take) && want)
		FUZZ_ASSERT(out.len == want_len && !memcmp(out.data, want, want_len));
	wg_buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_hunk_select hs;
	uint64_t seed = 0;
	size_t rest, cut;
	const char *old, *new;
	bool *take, *all, *none;

	if (size < 9)
		return 0;
	memcpy(&seed, data, 8);
	rest = size - 9;
	cut = rest * data[8] / 256;
	old = (const char *)data + 9;
	new = old + cut;
	if (wg_hunk_select_init(&hs, old, cut, new, rest - cut)) {
		wg_error_clear();
		return 0;
	}
	take = calloc(hs.n + 1, sizeof(*take));
	all = calloc(hs.n + 1, sizeof(*all));
	none = calloc(hs.n + 1, sizeof(*none));
	if (take && all && none) {
		struct wg_buf out = WG_BUF_INIT;
		long delta = 0;
		for (size_t i = 0; i < hs.n; i++) {
			const struct wg_line_change *c = &hs.diff.v[i];
			all[i] = true;
			take[i] = (seed >> (i % 64)) & 1;
			if (!take[i])
				continue;
			for (long j = 0; j < c->chg2; j++)
				delta += (long)hs.diff.b.lines[c->i2 + j].size;
			for (long j = 0; j < c->chg1; j++)
				delta -= (long)hs.diff.a.lines[c->i1 + j].size;
		}
		check(&hs, all, new, rest - cut);
		check(&hs, none, old, cut);
		if (!wg_hunk_select_apply(&out, &hs, take))
			FUZZ_ASSERT((long)out.len == (long)cut + delta);
		wg_buf_release(&out);
	}
	free(take);
	free(all);
	free(none);
	wg_hunk_select_release(&hs);
	wg_error_clear();
	return 0;
}
