/* The v2 ls-refs response (core/protocol/ls_refs.c). Input: one option
 * byte (bit 0: sha256), then the response, fed in input-derived chunks;
 * each LF-separated line is also given to wg_ls_refs_parse_line. */
#include "fuzz.h"

#include "protocol/ls_refs.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_ls_refs_parser *p;
	struct wg_remote_ref_list list = WG_REMOTE_REF_LIST_INIT;
	const struct wg_hash_algo *algo;
	struct fz_chunks ch;
	const uint8_t *chunk;
	const char *s, *end;
	size_t n;
	int err = WG_ENEEDMORE;

	if (size < 1)
		return 0;
	algo = fz_algo(data[0] & 1);
	if (wg_ls_refs_parser_new(&p, algo))
		return 0;
	fz_chunks_init(&ch, data + 1, size - 1, fz_hash(data, size));
	while (err == WG_ENEEDMORE && (chunk = fz_chunks_next(&ch, &n)))
		err = wg_ls_refs_parser_feed(p, chunk, n);
	fz_chunks_release(&ch);
	if (err == WG_ENEEDMORE || err == 0)
		err = wg_ls_refs_parser_finish(p);
	if (!err) {
		const struct wg_remote_ref_list *refs = wg_ls_refs_parser_refs(p);
		for (size_t i = 0; i < refs->nr; i++) {
			FUZZ_ASSERT(refs->refs[i].name != NULL);
			FUZZ_ASSERT(wg_remote_ref_list_find(refs, refs->refs[i].name) != NULL);
		}
	}
	wg_ls_refs_parser_free(p);

	/* The line parser alone, on the raw lines. */
	s = (const char *)data + 1;
	end = (const char *)data + size;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
		(void)wg_ls_refs_parse_line(&list, algo, s, len);
		s += len;
	}
	wg_remote_ref_list_release(&list);
	return 0;
}
