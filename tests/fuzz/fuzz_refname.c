/* Ref names (core/refs/refname.c) and the remote ref name check of the
 * protocol (core/protocol/advertisement.c). Input: one option byte (the
 * wg_refname_check flags), then the name. */
#include "fuzz.h"

#include <stdbool.h>

#include "protocol/advertisement.h"
#include "refs/refdb.h"
#include "refs/refname.h"
#include "util/alloc.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_buf out = WG_BUF_INIT;
	char *name, *copy = NULL;
	unsigned flags;
	bool valid;

	if (size < 1)
		return 0;
	flags = data[0] & 3;
	name = fz_cstr(data + 1, size - 1);
	valid = wg_refname_is_valid(name, flags);
	FUZZ_ASSERT(valid == (wg_refname_check(name, flags) == 0));
	if (valid && !flags) {
		if (!wg_refname_shorten(&out, name))
			FUZZ_ASSERT(out.len > 0 && out.len <= strlen(name));
	}
	(void)wg_refdb_name_is_valid(name);
	if (!wg_remote_refname_dup(&copy, (const char *)data + 1, size - 1)) {
		FUZZ_ASSERT(strlen(copy) == size - 1 && !memcmp(copy, data + 1, size - 1));
		FUZZ_ASSERT(!strcmp(copy, "HEAD") ||
			    wg_refname_is_valid(copy, WG_REFNAME_ALLOW_ONELEVEL));
		wg_free(copy);
	}
	wg_buf_release(&out);
	free(name);
	return 0;
}
