/* packed-refs (core/refs/refs_packed.c) from memory. Input: one option
 * byte (bit 0: sha256), then the file. Every record is walked, and each
 * name found is looked up again by binary search. */
#include "fuzz.h"

#include "refs/refs_files.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_packed *p;
	struct wg_packed_rec rec, found;
	size_t off, n = 0;
	int err;

	if (size < 1)
		return 0;
	if (wg_packed_parse(&p, (const char *)data + 1, size - 1, fz_algo(data[0] & 1), NULL))
		return 0;
	off = p->start;
	while (n < 10000 && (err = wg_packed_next(&rec, p, &off)) == 0) {
		FUZZ_ASSERT(off <= p->len);
		FUZZ_ASSERT(rec.name >= p->data && rec.name + rec.namelen <= p->data + p->len);
		if (!wg_packed_find(&found, p, rec.name, rec.namelen))
			FUZZ_ASSERT(found.namelen == rec.namelen &&
				    !memcmp(found.name, rec.name, rec.namelen));
		n++;
	}
	(void)wg_packed_seek(p, "refs/heads/", 11);
	(void)wg_packed_find(&found, p, "refs/heads/main", 15);
	(void)wg_packed_find(&found, p, "", 0);
	(void)wg_packed_find(&found, p, "\xff\xff", 2);
	wg_packed_free(p);
	return 0;
}
