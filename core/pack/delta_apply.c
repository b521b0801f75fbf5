#include "pack/delta_apply.h"

#include <string.h>

#include "util/error.h"
#include "util/varint.h"

int wg_delta_sizes(const unsigned char *delta, size_t len, uint64_t *base_size,
		   uint64_t *result_size, size_t *hdrlen)
{
	int n1, n2;
	n1 = wg_varint_le_decode(delta, len, base_size);
	if (n1 <= 0)
		return wg_error_set(WG_ECORRUPT, "delta is truncated or its base size is invalid");
	n2 = wg_varint_le_decode(delta + n1, len - (size_t)n1, result_size);
	if (n2 <= 0)
		return wg_error_set(WG_ECORRUPT, "delta is truncated or its result size is invalid");
	*hdrlen = (size_t)n1 + (size_t)n2;
	return 0;
}

/* One instruction at delta[*pos]. For a copy, copy_off and n are set
 * and *lit is NULL; for an insert *lit points at the literal bytes. */
static int next_insn(const unsigned char *delta, size_t len, size_t *pos, size_t base_len,
		     size_t *copy_off, size_t *n, const unsigned char **lit)
{
	unsigned char c = delta[(*pos)++];
	if (c & 0x80) {
		uint64_t off = 0, size = 0;
		unsigned i;
		for (i = 0; i < 4; i++)
			if (c & (1u << i)) {
				if (*pos >= len)
					return wg_error_set(WG_ECORRUPT, "delta copy instruction is truncated");
				off |= (uint64_t)delta[(*pos)++] << (8 * i);
			}
		for (i = 0; i < 3; i++)
			if (c & (0x10u << i)) {
				if (*pos >= len)
					return wg_error_set(WG_ECORRUPT, "delta copy instruction is truncated");
				size |= (uint64_t)delta[(*pos)++] << (8 * i);
			}
		if (!size)
			size = 0x10000;  /* the format's encoding of 64 KiB */
		if (off > base_len || size > base_len - off)
			return wg_error_set(WG_ECORRUPT, "delta copies bytes %llu..%llu from a base "
					    "of %zu bytes", (unsigned long long)off,
					    (unsigned long long)(off + size), base_len);
		*copy_off = (size_t)off;
		*n = (size_t)size;
		*lit = NULL;
		return 0;
	}
	if (!c)
		return wg_error_set(WG_ECORRUPT, "delta has the reserved instruction 0");
	if (c > len - *pos)
		return wg_error_set(WG_ECORRUPT, "delta insert instruction is truncated");
	*lit = delta + *pos;
	*n = c;
	*pos += c;
	return 0;
}

static int check(const unsigned char *delta, size_t delta_len, size_t base_len,
		 uint64_t *declared, size_t *produced_out, size_t *start)
{
	uint64_t base_size;
	size_t pos = 0, produced = 0, off = 0, n = 0;
	const unsigned char *lit = NULL;
	int err;
	if ((err = wg_delta_sizes(delta, delta_len, &base_size, declared, &pos)))
		return err;
	if (base_size != base_len)
		return wg_error_set(WG_ECORRUPT, "delta is for a base of %llu bytes, but the base "
				    "has %zu", (unsigned long long)base_size, base_len);
	*start = pos;
	while (pos < delta_len) {
		if ((err = next_insn(delta, delta_len, &pos, base_len, &off, &n, &lit)))
			return err;
		if (n > *declared - produced || *declared < produced)
			return wg_error_set(WG_ECORRUPT, "delta produces more than the %llu bytes "
					    "it declares", (unsigned long long)*declared);
		produced += n;
	}
	if (produced != *declared)
		return wg_error_set(WG_ECORRUPT, "delta declares a result of %llu bytes but "
				    "produces %zu", (unsigned long long)*declared, produced);
	*produced_out = produced;
	return 0;
}

int wg_delta_check(const unsigned char *delta, size_t delta_len, size_t base_len,
		   size_t *result_size)
{
	uint64_t declared;
	size_t start;
	return check(delta, delta_len, base_len, &declared, result_size, &start);
}

int wg_delta_apply(struct wg_buf *out, const unsigned char *base, size_t base_len,
		   const unsigned char *delta, size_t delta_len, size_t max_result)
{
	uint64_t declared, base_size;
	size_t pos = 0, size = 0, off = 0, n = 0;
	const unsigned char *lit = NULL;
	unsigned char *dst;
	int err;

	wg_buf_reset(out);
	/* Refuse an impossible size before even walking the instructions. */
	if ((err = wg_delta_sizes(delta, delta_len, &base_size, &declared, &pos)))
		return err;
	if (max_result && declared > max_result)
		return wg_error_set(WG_ELIMIT, "delta declares a result of %llu bytes, more than "
				    "the limit of %zu (max_object_size)",
				    (unsigned long long)declared, max_result);
	if (declared >= SIZE_MAX)
		return wg_error_set(WG_EUNSUPPORTED, "delta result of %llu bytes is larger than "
				    "this build accepts", (unsigned long long)declared);
	if ((err = check(delta, delta_len, base_len, &declared, &size, &pos)))
		return err;
	if ((err = wg_buf_grow(out, size)))
		return err;
	dst = out->data;
	while (pos < delta_len) {
		/* Already validated by check(): cannot fail. */
		if ((err = next_insn(delta, delta_len, &pos, base_len, &off, &n, &lit)))
			return err;
		memcpy(dst, lit ? lit : base + off, n);
		dst += n;
	}
	wg_buf_setlen(out, size);
	return 0;
}
