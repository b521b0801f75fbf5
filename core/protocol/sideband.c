#include "protocol/sideband.h"

#include "util/alloc.h"
#include "util/error.h"

/* Room for the server's own message in "remote error: ...". */
#define REMOTE_MSG_MAX 900

static const unsigned char nothing[1] = { 0 };

int wg_sideband_demux(struct wg_sideband_msg *out, const struct wg_pkt *pkt,
		      enum wg_sideband_mode mode)
{
	size_t max = mode == WG_SIDEBAND ? WG_SIDEBAND_MAX_PKT : WG_SIDEBAND_64K_MAX_PKT;
	char q[REMOTE_MSG_MAX];
	const unsigned char *msg;
	size_t len;
	out->data = nothing;
	out->len = 0;
	switch (pkt->type) {
	case WG_PKT_FLUSH: out->kind = WG_SIDEBAND_FLUSH; return 0;
	case WG_PKT_DELIM: out->kind = WG_SIDEBAND_DELIM; return 0;
	case WG_PKT_RESPONSE_END: out->kind = WG_SIDEBAND_RESPONSE_END; return 0;
	case WG_PKT_DATA: break;
	}
	if (mode != WG_SIDEBAND && mode != WG_SIDEBAND_64K)
		return wg_error_set(WG_EINVALID, "unknown side-band mode %d", (int)mode);
	if (pkt->len == 0)
		return wg_error_set(WG_ECORRUPT,
				    "protocol error: empty side-band packet (missing band designator)");
	if (pkt->len + WG_PKT_HEADER_SIZE > max)
		return wg_error_set(WG_ECORRUPT,
				    "protocol error: side-band packet of %zu bytes exceeds the %zu-byte "
				    "limit of %s", pkt->len + WG_PKT_HEADER_SIZE, max,
				    mode == WG_SIDEBAND ? "side-band" : "side-band-64k");
	msg = pkt->data + 1;
	len = pkt->len - 1;
	switch (pkt->data[0]) {
	case 1:
		out->kind = WG_SIDEBAND_DATA;
		break;
	case 2:
		out->kind = WG_SIDEBAND_PROGRESS;
		break;
	case 3:
		/* The server's last words: keep them, made safe to print. */
		if (len && msg[len - 1] == '\n')
			len--;
		return wg_error_set(WG_ERROR, "remote error: %s",
				    wg_pkt_quote(q, sizeof(q), msg, len, true));
	default:
		return wg_error_set(WG_ECORRUPT, "protocol error: bad side-band number %u in a "
				    "packet starting '%s'", pkt->data[0],
				    wg_pkt_quote(q, WG_PKT_QUOTE_MAX, pkt->data,
						 pkt->len < 16 ? pkt->len : 16, false));
	}
	out->data = len ? msg : nothing;
	out->len = len;
	return 0;
}

struct wg_sideband_reader {
	struct wg_pkt_reader *pkts;
	enum wg_sideband_mode mode;
};

int wg_sideband_reader_new(struct wg_sideband_reader **out, enum wg_sideband_mode mode)
{
	struct wg_sideband_reader *r;
	int err;
	*out = NULL;
	if (mode != WG_SIDEBAND && mode != WG_SIDEBAND_64K)
		return wg_error_set(WG_EINVALID, "unknown side-band mode %d", (int)mode);
	if (!(r = wg_calloc(1, sizeof(*r))))
		return wg_error_set(WG_ENOMEM, "out of memory allocating a side-band reader");
	if ((err = wg_pkt_reader_new(&r->pkts, WG_PKT_READ_ERR_PACKETS))) {
		wg_free(r);
		return err;
	}
	r->mode = mode;
	*out = r;
	return 0;
}

void wg_sideband_reader_free(struct wg_sideband_reader *reader)
{
	if (!reader)
		return;
	wg_pkt_reader_free(reader->pkts);
	wg_free(reader);
}

int wg_sideband_reader_read(struct wg_sideband_reader *reader, struct wg_sideband_msg *out,
			    const unsigned char **in, size_t *in_len)
{
	struct wg_pkt pkt;
	int err = wg_pkt_reader_read(reader->pkts, &pkt, in, in_len);
	if (err)
		return err;
	return wg_sideband_demux(out, &pkt, reader->mode);
}

int wg_sideband_reader_finish(const struct wg_sideband_reader *reader)
{
	return wg_pkt_reader_finish(reader->pkts);
}
