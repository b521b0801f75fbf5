/* The info/refs advertisement (core/protocol/advertisement.c): v0/v1 ref
 * lists with capabilities, and v2 capability advertisements. Input: one
 * option byte (bits 0-1: service none / upload-pack / receive-pack;
 * bits 2-3: expected object format none / sha1 / sha256), then the body,
 * fed in input-derived chunks. */
#include "fuzz.h"

#include "protocol/advertisement.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const services[] = { NULL, "git-upload-pack", "git-receive-pack",
						"git-upload-pack" };
	struct wg_advertisement *adv;
	const struct wg_hash_algo *expected = NULL;
	struct fz_chunks ch;
	const uint8_t *chunk;
	size_t n;
	int err = WG_ENEEDMORE;

	if (size < 1)
		return 0;
	if ((data[0] >> 2 & 3) == 1)
		expected = fz_algo(0);
	else if ((data[0] >> 2 & 3) == 2)
		expected = fz_algo(1);
	if (wg_advertisement_new(&adv, services[data[0] & 3], expected))
		return 0;
	fz_chunks_init(&ch, data + 1, size - 1, fz_hash(data, size));
	while (err == WG_ENEEDMORE && (chunk = fz_chunks_next(&ch, &n)))
		err = wg_advertisement_feed(adv, chunk, n);
	fz_chunks_release(&ch);
	if (err == WG_ENEEDMORE || err == 0)
		err = wg_advertisement_finish(adv);
	if (!err) {
		const struct wg_remote_ref_list *refs = wg_advertisement_refs(adv);
		const struct wg_hash_algo *algo = wg_advertisement_hash_algo(adv);
		size_t count;
		int version = wg_advertisement_version(adv);
		FUZZ_ASSERT(version >= 0 && version <= 2);
		FUZZ_ASSERT(algo != NULL && wg_advertisement_caps(adv) != NULL);
		FUZZ_ASSERT(!expected || algo == expected);
		for (size_t i = 0; i < refs->nr; i++) {
			const struct wg_remote_ref *ref = &refs->refs[i];
			FUZZ_ASSERT(ref->name && (!strcmp(ref->name, "HEAD") ||
						  !strncmp(ref->name, "refs/", 5)));
			FUZZ_ASSERT(wg_remote_ref_list_find(refs, ref->name) != NULL);
			if (ref->symref_target)
				(void)strlen(ref->symref_target);
		}
		(void)wg_advertisement_shallows(adv, &count);
		(void)wg_advertisement_haves(adv, &count);
	}
	wg_advertisement_free(adv);
	return 0;
}
