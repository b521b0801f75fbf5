/* The fetch response (core/protocol/fetch.c): v2 sections
 * (acknowledgments, shallow-info, wanted-refs, packfile) and the v0/v1
 * negotiation (shallow list, ACK/NAK, side-band pack). Input: one option
 * byte, then the response, fed in input-derived chunks.
 *   bit 0    sha256
 *   bits 1-2 0: v2, 1: v0 (side-band-64k), 2: v0 side-band (1000-byte
 *            packets) through wg_fetch_response_new_for, 3: v0 after a
 *            deepen through wg_fetch_response_new_for
 *   bit 3    "done" was sent
 *   bit 4    v2 sideband-all */
#include "fuzz.h"

#include "protocol/fetch.h"
#include "util/error.h"

static struct wg_fetch_response *make(uint8_t opt)
{
	const struct wg_hash_algo *algo = fz_algo(opt & 1);
	struct wg_fetch_response *r = NULL;
	int kind = opt >> 1 & 3;
	bool done = opt >> 3 & 1, sba = opt >> 4 & 1;

	if (kind < 2) {
		if (wg_fetch_response_new(&r, kind == 0 ? 2 : 0, algo, done, sba))
			return NULL;
	} else {
		struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
		struct wg_caps *caps = NULL;
		struct wg_oid want;
		char list[200];
		memset(&want, 0, sizeof(want));
		want.algo = (unsigned char)algo->id;
		want.hash[0] = 1;
		snprintf(list, sizeof(list), "multi_ack_detailed no-done %s shallow "
			 "ofs-delta agent=git/2.53.0 object-format=%s",
			 kind == 2 ? "side-band" : "side-band-64k", algo->name);
		if (wg_caps_parse_v1(&caps, list, strlen(list)))
			return NULL;
		args.algo = algo;
		args.wants = &want;
		args.nwants = 1;
		args.done = done;
		if (kind == 3)
			args.depth = 1;
		if (wg_fetch_response_new_for(&r, caps, &args))
			r = NULL;
		wg_caps_free(caps);
	}
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_fetch_response *r;
	struct fz_chunks ch;
	const uint8_t *chunk;
	size_t n;
	int err = 0, ended = 0;
	unsigned long long pack = 0;

	if (size < 1 || !(r = make(data[0])))
		return 0;
	fz_chunks_init(&ch, data + 1, size - 1, fz_hash(data, size));
	while (!err && (chunk = fz_chunks_next(&ch, &n))) {
		const void *in = chunk;
		size_t in_len = n;
		for (;;) {
			struct wg_fetch_event ev;
			err = wg_fetch_response_next(r, &ev, &in, &in_len);
			if (err == WG_ENEEDMORE) {
				FUZZ_ASSERT(in_len == 0);
				err = 0;
				break;
			}
			if (err)
				break;
			FUZZ_ASSERT(!ended);
			switch (ev.kind) {
			case WG_FETCH_EV_PACK_DATA:
				FUZZ_ASSERT(ev.len > 0 && ev.data);
				pack += ev.len;
				break;
			case WG_FETCH_EV_WANTED_REF:
				FUZZ_ASSERT(ev.refname && strlen(ev.refname) > 0);
				break;
			case WG_FETCH_EV_PROGRESS:
				FUZZ_ASSERT(ev.progress && ev.progress->line);
				(void)strlen(ev.progress->line);
				break;
			case WG_FETCH_EV_END:
				ended = 1;
				break;
			default:
				break;
			}
		}
	}
	fz_chunks_release(&ch);
	FUZZ_ASSERT(wg_fetch_response_pack_bytes(r) == pack);
	if (!err) {
		struct wg_fetch_event ev;
		const void *in = "";
		size_t in_len = 0;
		while (!ended && (err = wg_fetch_response_next(r, &ev, &in, &in_len)) == 0)
			if (ev.kind == WG_FETCH_EV_END)
				ended = 1;
		(void)wg_fetch_response_finish(r);
	}
	wg_fetch_response_free(r);
	return 0;
}
