/* Progress text alone (core/protocol/progress.c): the input is band-2 text
 * as a remote writes it ("Receiving objects:  42% (5/12)\r..."), fed in
 * input-derived chunks. */
#include "fuzz.h"

#include "protocol/progress.h"
#include "util/error.h"

static void check_event(const struct wg_progress_event *ev)
{
	FUZZ_ASSERT(ev->line && ev->phase);
	FUZZ_ASSERT(ev->kind == WG_PROGRESS_UPDATE || ev->kind == WG_PROGRESS_MESSAGE);
	for (const char *p = ev->line; *p; p++)
		FUZZ_ASSERT((unsigned char)*p >= 0x20 || *p == '\t');
	FUZZ_ASSERT(strlen(ev->line) <= WG_PROGRESS_LINE_MAX);
	FUZZ_ASSERT(ev->kind == WG_PROGRESS_UPDATE || !*ev->phase);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_progress_parser *pp;
	struct wg_progress_event ev;
	struct fz_chunks ch;
	const uint8_t *chunk;
	size_t n;

	if (wg_progress_parser_new(&pp))
		return 0;
	fz_chunks_init(&ch, data, size, fz_hash(data, size));
	while ((chunk = fz_chunks_next(&ch, &n))) {
		const unsigned char *in = chunk;
		size_t in_len = n;
		int err;
		while ((err = wg_progress_parser_next(pp, &ev, &in, &in_len)) == 0)
			check_event(&ev);
		FUZZ_ASSERT(err == WG_ENEEDMORE);
		FUZZ_ASSERT(in_len == 0);
	}
	fz_chunks_release(&ch);
	if (wg_progress_parser_finish(pp, &ev) == 0)
		check_event(&ev);
	wg_progress_parser_free(pp);
	return 0;
}
