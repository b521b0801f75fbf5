/* Tag objects (core/object/tag.c) and their fsck checks. Input: one
 * option byte (bit 0: sha256, bit 1: strict fsck), then the tag. A tag
 * that parses must serialize back to the same bytes. */
#include "fuzz.h"

#include "object/fsck.h"
#include "object/ident.h"
#include "object/tag.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_fsck_options fo = WG_FSCK_OPTIONS_INIT;
	const struct wg_hash_algo *algo;
	struct wg_tag t, t2;
	struct wg_buf out = WG_BUF_INIT;
	struct wg_ident id;
	uint8_t *obj;
	size_t len;

	if (size < 1)
		return 0;
	algo = fz_algo(data[0] & 1);
	len = size - 1;
	obj = fz_dup(data + 1, len);
	fo.strict = data[0] & 2;
	fo.report = fz_fsck_report;
	(void)wg_fsck_object(&fo, algo, NULL, WG_OBJ_TAG, obj, len);

	wg_tag_init(&t);
	if (!wg_tag_parse(&t, algo, obj, len)) {
		FUZZ_ASSERT(t.tag != NULL);
		if (t.tagger)
			(void)wg_ident_parse(&id, t.tagger, strlen(t.tagger));
		if (!wg_tag_serialize(&t, &out)) {
			FUZZ_ASSERT(out.len == len && fz_same_but_case(out.data, obj, len));
			wg_tag_init(&t2);
			FUZZ_ASSERT(wg_tag_parse(&t2, algo, out.data, out.len) == 0);
			wg_tag_release(&t2);
		}
	}
	wg_tag_release(&t);
	wg_buf_release(&out);
	free(obj);
	return 0;
}
