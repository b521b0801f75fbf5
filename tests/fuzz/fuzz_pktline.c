/* pkt-line reader (core/protocol/pktline.c): the input is a pkt-line
 * stream fed in input-derived chunks, with and without ERR handling. Every
 * packet is checked against the reader's contract, and re-encoded packets
 * must read back the same. */
#include "fuzz.h"

#include "protocol/pktline.h"
#include "util/error.h"

static void run(const uint8_t *data, size_t size, unsigned flags, uint64_t seed)
{
	struct wg_pkt_reader *r;
	struct fz_chunks ch;
	const uint8_t *chunk;
	size_t n;
	int err = 0;
	char q[WG_PKT_QUOTE_MAX];

	if (wg_pkt_reader_new(&r, flags))
		return;
	fz_chunks_init(&ch, data, size, seed);
	while (!err && (chunk = fz_chunks_next(&ch, &n))) {
		const unsigned char *in = chunk;
		size_t in_len = n;
		for (;;) {
			struct wg_pkt pkt;
			err = wg_pkt_reader_read(r, &pkt, &in, &in_len);
			if (err == WG_ENEEDMORE) {
				FUZZ_ASSERT(in_len == 0);
				err = 0;
				break;
			}
			if (err)
				break;
			FUZZ_ASSERT(pkt.data != NULL);
			FUZZ_ASSERT(pkt.len <= WG_PKT_MAX_PAYLOAD);
			if (pkt.type != WG_PKT_DATA) {
				FUZZ_ASSERT(pkt.len == 0);
				continue;
			}
			/* touch every byte, then exercise the helpers */
			wg_pkt_quote(q, sizeof(q), pkt.data, pkt.len, pkt.len & 1);
			FUZZ_ASSERT(strlen(q) < sizeof(q));
			(void)wg_pkt_is(&pkt, "done");
			{
				struct wg_buf b = WG_BUF_INIT;
				struct wg_pkt_reader *r2;
				struct wg_pkt p2;
				const unsigned char *in2;
				size_t len2;
				if (!wg_pkt_write(&b, pkt.data, pkt.len) && !wg_pkt_reader_new(&r2, 0)) {
					in2 = b.data;
					len2 = b.len;
					FUZZ_ASSERT(wg_pkt_reader_read(r2, &p2, &in2, &len2) == 0);
					FUZZ_ASSERT(p2.type == WG_PKT_DATA && p2.len == pkt.len);
					FUZZ_ASSERT(!memcmp(p2.data, pkt.data, pkt.len));
					FUZZ_ASSERT(len2 == 0 && wg_pkt_reader_finish(r2) == 0);
					wg_pkt_reader_free(r2);
				}
				wg_buf_release(&b);
			}
			wg_pkt_chomp(&pkt);
			(void)wg_pkt_unexpected("a fuzzed packet", pkt.data, pkt.len);
		}
	}
	fz_chunks_release(&ch);
	if (!err)
		(void)wg_pkt_reader_finish(r);
	else if (err == WG_ECORRUPT) {
		/* sticky */
		const unsigned char *in = (const unsigned char *)"0004";
		size_t in_len = 4;
		struct wg_pkt pkt;
		FUZZ_ASSERT(wg_pkt_reader_read(r, &pkt, &in, &in_len) == WG_ECORRUPT);
	}
	wg_pkt_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t seed = fz_hash(data, size);
	run(data, size, 0, seed);
	run(data, size, WG_PKT_READ_ERR_PACKETS, seed >> 7);
	return 0;
}
