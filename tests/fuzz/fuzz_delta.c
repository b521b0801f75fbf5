/* Delta application (core/pack/delta_apply.c). Input: a 2-byte
 * little-endian base length b, then b bytes of base (or what there is),
 * then the delta. wg_delta_check and wg_delta_apply must agree, and the
 * result must have the size the delta declares. */
#include "fuzz.h"

#include "pack/delta_apply.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_buf out = WG_BUF_INIT;
	const uint8_t *base, *delta;
	size_t blen, dlen, result = 0, hdrlen;
	uint64_t bsz, rsz;
	int check, apply;

	if (size < 2)
		return 0;
	blen = (size_t)data[0] | (size_t)data[1] << 8;
	if (blen > size - 2)
		blen = size - 2;
	base = data + 2;
	delta = base + blen;
	dlen = size - 2 - blen;

	/* Private copies, so reads past either end are caught. */
	uint8_t *b = fz_dup(base, blen), *d = fz_dup(delta, dlen);
	if (!wg_delta_sizes(d, dlen, &bsz, &rsz, &hdrlen))
		FUZZ_ASSERT(hdrlen <= dlen);
	check = wg_delta_check(d, dlen, blen, &result);
	apply = wg_delta_apply(&out, b, blen, d, dlen, 1 << 20);
	if (!check && result <= (1u << 20)) {
		FUZZ_ASSERT(apply == 0);
		FUZZ_ASSERT(out.len == result);
		FUZZ_ASSERT(!wg_delta_sizes(d, dlen, &bsz, &rsz, &hdrlen) && rsz == result &&
			    bsz == blen);
	}
	if (apply == 0)
		FUZZ_ASSERT(check == 0);
	wg_buf_release(&out);
	free(b);
	free(d);
	return 0;
}
