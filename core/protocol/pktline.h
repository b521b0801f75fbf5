/* pkt-line framing (gitprotocol-common(5), gitprotocol-v2(5)).
 *
 * A pkt-line is four hex digits giving the total length (header included)
 * followed by the payload. Three lengths are special: 0000 (flush), 0001
 * (delimiter, v2) and 0002 (response end, v2). 0003 and anything else below
 * 0004 is invalid, and nothing may exceed 65520 bytes in total.
 *
 * The writer appends to a struct wg_buf. The reader is sans-IO: the caller
 * hands it whatever bytes arrived, in any chunking, and takes packets out;
 * it buffers at most one packet, so memory stays bounded whatever the peer
 * sends. */
#ifndef WG_PROTOCOL_PKTLINE_H
#define WG_PROTOCOL_PKTLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

#define WG_PKT_HEADER_SIZE 4
#define WG_PKT_MAX_SIZE 65520     /* header + payload (git's LARGE_PACKET_MAX) */
#define WG_PKT_MAX_PAYLOAD 65516  /* WG_PKT_MAX_SIZE - WG_PKT_HEADER_SIZE */

enum wg_pkt_type {
	WG_PKT_DATA = 0,         /* a data packet, possibly empty ("0004") */
	WG_PKT_FLUSH = 1,        /* "0000" */
	WG_PKT_DELIM = 2,        /* "0001" */
	WG_PKT_RESPONSE_END = 3, /* "0002" */
};

/* One packet. For the special packets data is "" and len 0; data is never
 * NULL. The payload is not NUL-terminated and may hold any bytes. */
struct wg_pkt {
	enum wg_pkt_type type;
	const unsigned char *data;
	size_t len;
};

/* --- writing -------------------------------------------------------------- */

/* Append one data packet. WG_EINVALID if len > WG_PKT_MAX_PAYLOAD; `out` is
 * then unchanged. */
int wg_pkt_write(struct wg_buf *out, const void *data, size_t len);
/* Append a data packet holding the C string s (add the "\n" yourself). */
int wg_pkt_writes(struct wg_buf *out, const char *s);
/* Append a data packet holding formatted text; same limit as wg_pkt_write. */
int wg_pkt_printf(struct wg_buf *out, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
int wg_pkt_write_flush(struct wg_buf *out);
int wg_pkt_write_delim(struct wg_buf *out);
int wg_pkt_write_response_end(struct wg_buf *out);

/* --- reading -------------------------------------------------------------- */

enum wg_pkt_reader_flags {
	/* A data packet starting with "ERR " is the peer aborting: return
	 * WG_ERROR with "remote error: <message>" instead of the packet
	 * (gitprotocol-pack(5), "error-line"). */
	WG_PKT_READ_ERR_PACKETS = 1,
};

struct wg_pkt_reader;

int wg_pkt_reader_new(struct wg_pkt_reader **out, unsigned flags);
void wg_pkt_reader_free(struct wg_pkt_reader *reader);

/* Take bytes from *in (advancing *in and decreasing *in_len) until one
 * packet is complete, and describe it in *out. Returns
 *   0             a packet is in *out;
 *   WG_ENEEDMORE  all of the input was consumed (and buffered) without
 *                 completing a packet: call again with more bytes;
 *   WG_ECORRUPT   a malformed length (the message quotes the bad bytes);
 *                 the stream cannot be resynchronised, so every later
 *                 call fails too;
 *   WG_ERROR      an "ERR " packet with WG_PKT_READ_ERR_PACKETS (consumed);
 *   WG_ENOMEM.
 * The payload points either into the caller's input or into the reader's
 * buffer: it stays valid until the next call on this reader, provided the
 * caller keeps its input bytes alive that long. */
int wg_pkt_reader_read(struct wg_pkt_reader *reader, struct wg_pkt *out,
		       const unsigned char **in, size_t *in_len);

/* Call at the end of the input: 0 if the reader stopped between packets,
 * WG_ECORRUPT ("truncated pkt-line ...") if it holds part of one. */
int wg_pkt_reader_finish(const struct wg_pkt_reader *reader);

/* True if the reader holds part of a packet. */
bool wg_pkt_reader_pending(const struct wg_pkt_reader *reader);

/* --- helpers -------------------------------------------------------------- */

/* Drop one trailing LF from a data packet: receivers must treat text lines
 * the same with or without it (gitprotocol-common(5)). */
void wg_pkt_chomp(struct wg_pkt *pkt);

/* True if the packet is a data packet whose payload is exactly the string
 * `s`, with or without one trailing LF. */
bool wg_pkt_is(const struct wg_pkt *pkt, const char *s);

/* Render untrusted bytes for an error message into out (outsz > 0): NUL
 * terminated, printable ASCII as is, other bytes as C escapes (\n, \r, \t,
 * \\, \xNN), cut with "..." when out is too small. With keep_utf8, bytes
 * >= 0x80 are kept (for a remote's human-readable text); control bytes are
 * escaped either way, so a message can never drive a terminal. Returns
 * out. */
char *wg_pkt_quote(char *out, size_t outsz, const void *data, size_t len, bool keep_utf8);

/* Size of a buffer that wg_pkt_quote fills for messages. */
#define WG_PKT_QUOTE_MAX 160

/* WG_ECORRUPT, "protocol error: <what>, got '<line, quoted>'": a packet
 * that is not what the exchange expects at this point. */
int wg_pkt_unexpected(const char *what, const void *line, size_t len);

#endif
