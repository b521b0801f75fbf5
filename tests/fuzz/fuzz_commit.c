/* Commit objects (core/object/commit.c) and their fsck checks
 * (core/object/fsck.c, ident.c). Input: one option byte (bit 0: sha256,
 * bit 1: strict fsck), then the commit. A commit that parses must
 * serialize back to the same bytes, and parse again. */
#include "fuzz.h"

#include "object/commit.h"
#include "object/fsck.h"
#include "object/ident.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_fsck_options fo = WG_FSCK_OPTIONS_INIT;
	const struct wg_hash_algo *algo;
	struct wg_commit c, c2;
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
	(void)wg_fsck_object(&fo, algo, NULL, WG_OBJ_COMMIT, obj, len);

	wg_commit_init(&c);
	if (!wg_commit_parse(&c, algo, obj, len)) {
		if (c.author)
			(void)wg_ident_parse(&id, c.author, strlen(c.author));
		if (c.committer)
			(void)wg_ident_parse(&id, c.committer, strlen(c.committer));
		(void)wg_commit_header(&c, "gpgsig");
		if (!wg_commit_serialize(&c, &out)) {
			FUZZ_ASSERT(out.len == len && fz_same_but_case(out.data, obj, len));
			wg_commit_init(&c2);
			FUZZ_ASSERT(wg_commit_parse(&c2, algo, out.data, out.len) == 0);
			wg_commit_release(&c2);
		}
	}
	wg_commit_release(&c);
	wg_buf_release(&out);
	free(obj);
	return 0;
}
