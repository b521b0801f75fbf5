/* Side-band demultiplexer and progress text (core/protocol/sideband.c,
 * core/protocol/progress.c). Input: one option byte (bit 0: side-band-64k
 * instead of side-band), then a pkt-line stream fed in input-derived
 * chunks; band-2 text goes through the progress parser, which is fed in
 * the pieces the packets delivered it in. */
#include "fuzz.h"

#include "protocol/progress.h"
#include "protocol/sideband.h"
#include "util/error.h"

static void check_event(const struct wg_progress_event *ev)
{
	FUZZ_ASSERT(ev->line && ev->phase);
	for (const char *p = ev->line; *p; p++)
		FUZZ_ASSERT((unsigned char)*p >= 0x20 || *p == '\t');
	FUZZ_ASSERT(strlen(ev->line) <= WG_PROGRESS_LINE_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_sideband_reader *r;
	struct wg_progress_parser *pp;
	struct wg_progress_event ev;
	enum wg_sideband_mode mode;
	struct fz_chunks ch;
	const uint8_t *chunk;
	size_t n;
	int err = 0;

	if (size < 1)
		return 0;
	mode = (data[0] & 1) ? WG_SIDEBAND_64K : WG_SIDEBAND;
	if (wg_sideband_reader_new(&r, mode))
		return 0;
	if (wg_progress_parser_new(&pp)) {
		wg_sideband_reader_free(r);
		return 0;
	}
	fz_chunks_init(&ch, data + 1, size - 1, fz_hash(data, size));
	while (!err && (chunk = fz_chunks_next(&ch, &n))) {
		const unsigned char *in = chunk;
		size_t in_len = n;
		while (!err) {
			struct wg_sideband_msg msg;
			err = wg_sideband_reader_read(r, &msg, &in, &in_len);
			if (err == WG_ENEEDMORE) {
				err = 0;
				break;
			}
			if (err)
				break;
			FUZZ_ASSERT(msg.data != NULL);
			FUZZ_ASSERT(msg.len + 5 <= (mode == WG_SIDEBAND ? WG_SIDEBAND_MAX_PKT
						    : WG_SIDEBAND_64K_MAX_PKT));
			if (msg.kind == WG_SIDEBAND_PROGRESS) {
				const unsigned char *p = msg.data;
				size_t plen = msg.len;
				int perr;
				while ((perr = wg_progress_parser_next(pp, &ev, &p, &plen)) == 0)
					check_event(&ev);
				FUZZ_ASSERT(perr == WG_ENEEDMORE || perr == WG_ENOMEM);
				FUZZ_ASSERT(perr != WG_ENEEDMORE || plen == 0);
			} else if (msg.kind == WG_SIDEBAND_DATA) {
				volatile unsigned char sink = 0;
				for (size_t i = 0; i < msg.len; i++)
					sink ^= msg.data[i];
				(void)sink;
			}
		}
	}
	fz_chunks_release(&ch);
	if (!err)
		(void)wg_sideband_reader_finish(r);
	if (wg_progress_parser_finish(pp, &ev) == 0)
		check_event(&ev);
	wg_progress_parser_free(pp);
	wg_sideband_reader_free(r);
	return 0;
}
