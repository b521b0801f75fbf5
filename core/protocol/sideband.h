/* Side-band demultiplexing (gitprotocol-pack(5) "Packfile Data",
 * gitprotocol-capabilities(5) side-band / side-band-64k, and v2's
 * packfile section and "sideband-all").
 *
 * Each data packet carries one band byte and then the band's bytes:
 * 1 pack (or, under sideband-all, the packet the server meant to send),
 * 2 progress text, 3 a fatal error message. Flush, delim and response-end
 * packets pass through unchanged: they end the stream or a v2 section. */
#ifndef WG_PROTOCOL_SIDEBAND_H
#define WG_PROTOCOL_SIDEBAND_H

#include <stddef.h>

#include "protocol/pktline.h"

/* The packet size limit of a mode, as the total pkt-line length (4-byte
 * header + band byte + data). */
enum wg_sideband_mode {
	WG_SIDEBAND = 1,      /* "side-band": packets of at most 1000 bytes */
	WG_SIDEBAND_64K = 2,  /* "side-band-64k", v2 packfile, sideband-all: 65520 */
};

#define WG_SIDEBAND_MAX_PKT 1000
#define WG_SIDEBAND_64K_MAX_PKT WG_PKT_MAX_SIZE

enum wg_sideband_kind {
	WG_SIDEBAND_DATA = 1,        /* band 1 */
	WG_SIDEBAND_PROGRESS = 2,    /* band 2: text for the user, see progress.h */
	WG_SIDEBAND_FLUSH = 4,       /* a flush packet passed through */
	WG_SIDEBAND_DELIM = 5,       /* a delim packet passed through */
	WG_SIDEBAND_RESPONSE_END = 6,/* a response-end packet passed through */
};

/* One demultiplexed message. data points into the packet it came from
 * (after the band byte); it is "" with len 0 for the pass-through kinds
 * and for an empty band-2 keepalive ("0005\2"). */
struct wg_sideband_msg {
	enum wg_sideband_kind kind;
	const unsigned char *data;
	size_t len;
};

/* Demultiplex one packet. Errors:
 *   WG_ERROR     band 3: "remote error: <the server's message>";
 *   WG_ECORRUPT  an empty data packet (no band byte), an unknown band, or a
 *                packet longer than the mode allows. */
int wg_sideband_demux(struct wg_sideband_msg *out, const struct wg_pkt *pkt,
		      enum wg_sideband_mode mode);

/* A pkt-line reader and the demultiplexer in one: bytes in, messages out.
 * "ERR " packets are reported as WG_ERROR too (they can never be valid
 * sideband packets: 'E' is no band). */
struct wg_sideband_reader;

int wg_sideband_reader_new(struct wg_sideband_reader **out, enum wg_sideband_mode mode);
void wg_sideband_reader_free(struct wg_sideband_reader *reader);

/* Same contract as wg_pkt_reader_read: 0 with a message in *out,
 * WG_ENEEDMORE when the input is used up, or an error. Message data stays
 * valid until the next call, provided the caller keeps its input alive. */
int wg_sideband_reader_read(struct wg_sideband_reader *reader, struct wg_sideband_msg *out,
			    const unsigned char **in, size_t *in_len);
/* At the end of the input: WG_ECORRUPT if a packet was cut short. */
int wg_sideband_reader_finish(const struct wg_sideband_reader *reader);

#endif
