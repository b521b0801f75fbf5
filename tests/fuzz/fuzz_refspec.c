/* Refspecs (core/refs/refspec.c): the input is "<refspec>\n<refname>";
 * the refspec is parsed and, when valid, mapped over the name. */
#include "fuzz.h"

#include "refs/refspec.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_refspec rs;
	struct wg_buf out = WG_BUF_INIT, pfx = WG_BUF_INIT;
	char *text = fz_cstr(data, size), *name = strchr(text, '\n');

	if (name)
		*name++ = '\0';
	else
		name = "refs/heads/main";
	memset(&rs, 0, sizeof(rs));
	if (!wg_refspec_parse(&rs, text)) {
		FUZZ_ASSERT(rs.src != NULL);
		(void)wg_refspec_map(&rs, name, &out);
		(void)wg_refspec_dst_matches(&rs, name);
		(void)wg_refspec_prefix(&rs, &pfx);
		wg_refspec_release(&rs);
	}
	wg_buf_release(&out);
	wg_buf_release(&pfx);
	free(text);
	return 0;
}
