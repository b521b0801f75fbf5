#include "protocol/pktline.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

/* Room for a remote's own error text: most of the last-error message. */
#define REMOTE_MSG_MAX 900

static const unsigned char empty_payload[1] = { 0 };

/* --- writing -------------------------------------------------------------- */

static void put_header(unsigned char *p, size_t total)
{
	static const char digits[] = "0123456789abcdef";
	p[0] = (unsigned char)digits[(total >> 12) & 15];
	p[1] = (unsigned char)digits[(total >> 8) & 15];
	p[2] = (unsigned char)digits[(total >> 4) & 15];
	p[3] = (unsigned char)digits[total & 15];
}

static int too_long(size_t len)
{
	return wg_error_set(WG_EINVALID,
			    "pkt-line payload of %zu bytes exceeds the maximum of %d bytes",
			    len, WG_PKT_MAX_PAYLOAD);
}

int wg_pkt_write(struct wg_buf *out, const void *data, size_t len)
{
	int err;
	if (len > WG_PKT_MAX_PAYLOAD)
		return too_long(len);
	if ((err = wg_buf_grow(out, WG_PKT_HEADER_SIZE + len)))
		return err;
	put_header(out->data + out->len, WG_PKT_HEADER_SIZE + len);
	if (len)
		memcpy(out->data + out->len + WG_PKT_HEADER_SIZE, data, len);
	wg_buf_setlen(out, out->len + WG_PKT_HEADER_SIZE + len);
	out->data[out->len] = '\0';
	return 0;
}

int wg_pkt_writes(struct wg_buf *out, const char *s)
{
	return wg_pkt_write(out, s, strlen(s));
}

int wg_pkt_printf(struct wg_buf *out, const char *fmt, ...)
{
	/* Format straight after a placeholder header, then fill the header in
	 * (or roll back), so the text is never copied twice. */
	size_t start = out->len, len;
	va_list ap;
	int err;
	if ((err = wg_buf_add(out, "0000", WG_PKT_HEADER_SIZE)))
		return err;
	va_start(ap, fmt);
	err = wg_buf_vprintf(out, fmt, ap);
	va_end(ap);
	len = out->len - start - WG_PKT_HEADER_SIZE;
	if (!err && len > WG_PKT_MAX_PAYLOAD)
		err = too_long(len);
	if (err) {
		wg_buf_setlen(out, start);
		if (out->data)
			out->data[start] = '\0';
		return err;
	}
	put_header(out->data + start, WG_PKT_HEADER_SIZE + len);
	return 0;
}

int wg_pkt_write_flush(struct wg_buf *out) { return wg_buf_add(out, "0000", 4); }
int wg_pkt_write_delim(struct wg_buf *out) { return wg_buf_add(out, "0001", 4); }
int wg_pkt_write_response_end(struct wg_buf *out) { return wg_buf_add(out, "0002", 4); }

/* --- helpers -------------------------------------------------------------- */

/* The escaped form of one byte into esc (at most 4 bytes); returns its length. */
static size_t escape_byte(char *esc, unsigned char c, bool keep_utf8)
{
	static const char digits[] = "0123456789abcdef";
	switch (c) {
	case '\\': esc[0] = '\\', esc[1] = '\\'; return 2;
	case '\n': esc[0] = '\\', esc[1] = 'n'; return 2;
	case '\r': esc[0] = '\\', esc[1] = 'r'; return 2;
	case '\t': esc[0] = '\\', esc[1] = 't'; return 2;
	}
	if ((c >= 0x20 && c < 0x7f) || (keep_utf8 && c >= 0x80)) {
		esc[0] = (char)c;
		return 1;
	}
	esc[0] = '\\', esc[1] = 'x', esc[2] = digits[c >> 4], esc[3] = digits[c & 15];
	return 4;
}

char *wg_pkt_quote(char *out, size_t outsz, const void *data, size_t len, bool keep_utf8)
{
	const unsigned char *p = data;
	char esc[4];
	size_t i, n = 0, full = 0, limit;
	if (!outsz)
		return out;
	for (i = 0; i < len; i++)
		full += escape_byte(esc, p[i], keep_utf8);
	/* If it does not all fit, stop early enough to add "...". */
	limit = full + 1 <= outsz ? outsz - 1 : (outsz > 4 ? outsz - 4 : 0);
	for (i = 0; i < len; i++) {
		size_t elen = escape_byte(esc, p[i], keep_utf8);
		if (n + elen > limit)
			break;
		memcpy(out + n, esc, elen);
		n += elen;
	}
	if (i < len && n + 4 <= outsz) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

int wg_pkt_unexpected(const char *what, const void *line, size_t len)
{
	char q[WG_PKT_QUOTE_MAX];
	return wg_error_set(WG_ECORRUPT, "protocol error: %s, got '%s'", what,
			    wg_pkt_quote(q, sizeof(q), line, len, false));
}

void wg_pkt_chomp(struct wg_pkt *pkt)
{
	if (pkt->type == WG_PKT_DATA && pkt->len && pkt->data[pkt->len - 1] == '\n')
		pkt->len--;
}

bool wg_pkt_is(const struct wg_pkt *pkt, const char *s)
{
	size_t n = strlen(s), len = pkt->len;
	if (pkt->type != WG_PKT_DATA)
		return false;
	if (len && pkt->data[len - 1] == '\n')
		len--;
	return len == n && !memcmp(pkt->data, s, n);
}

/* --- reading -------------------------------------------------------------- */

struct wg_pkt_reader {
	unsigned flags;
	int failed;                 /* sticky WG_ECORRUPT once framing is lost */
	unsigned char hdr[WG_PKT_HEADER_SIZE];
	size_t hdr_have;            /* header bytes buffered (0..4) */
	size_t need, have;          /* payload bytes announced / buffered */
	unsigned char *buf;         /* at most WG_PKT_MAX_PAYLOAD bytes */
	size_t cap;
};

int wg_pkt_reader_new(struct wg_pkt_reader **out, unsigned flags)
{
	struct wg_pkt_reader *r = wg_calloc(1, sizeof(*r));
	*out = NULL;
	if (!r)
		return wg_error_set(WG_ENOMEM, "out of memory allocating a pkt-line reader");
	r->flags = flags;
	*out = r;
	return 0;
}

void wg_pkt_reader_free(struct wg_pkt_reader *reader)
{
	if (!reader)
		return;
	wg_free(reader->buf);
	wg_free(reader);
}

/* Decode a 4-byte length. Returns the total length (>= 0, specials 0..2) or
 * a negative error with a message quoting the bytes. */
static long parse_length(const unsigned char *h)
{
	char q[WG_PKT_QUOTE_MAX];
	long v = 0;
	int i;
	for (i = 0; i < WG_PKT_HEADER_SIZE; i++) {
		int d = wg_hex_value(h[i]);
		if (d < 0)
			return wg_error_set(WG_ECORRUPT,
					    "protocol error: bad pkt-line length '%s' (expected 4 hex digits)",
					    wg_pkt_quote(q, sizeof(q), h, WG_PKT_HEADER_SIZE, false));
		v = v << 4 | d;
	}
	if (v == 3 || (v > 2 && v < WG_PKT_HEADER_SIZE))
		return wg_error_set(WG_ECORRUPT,
				    "protocol error: invalid pkt-line length '%.4s' (only 0000, 0001 and "
				    "0002 are special; data packets are at least 0004)", (const char *)h);
	if (v > WG_PKT_MAX_SIZE)
		return wg_error_set(WG_ECORRUPT,
				    "protocol error: pkt-line length '%.4s' (%ld bytes) exceeds the "
				    "maximum of %d", (const char *)h, v, WG_PKT_MAX_SIZE);
	return v;
}

/* An "ERR " packet: report the remote's message, made safe to print. */
static int remote_err(const unsigned char *data, size_t len)
{
	char q[REMOTE_MSG_MAX];
	data += 4, len -= 4;
	if (len && data[len - 1] == '\n')
		len--;
	return wg_error_set(WG_ERROR, "remote error: %s", wg_pkt_quote(q, sizeof(q), data, len, true));
}

static int emit(struct wg_pkt_reader *r, struct wg_pkt *out, const unsigned char *data,
		size_t len)
{
	r->hdr_have = 0;
	r->need = r->have = 0;
	out->type = WG_PKT_DATA;
	out->data = data;
	out->len = len;
	if ((r->flags & WG_PKT_READ_ERR_PACKETS) && len >= 4 && !memcmp(data, "ERR ", 4))
		return remote_err(data, len);
	return 0;
}

/* The header is complete: set up for the payload, or return a special. */
static int start_packet(struct wg_pkt_reader *r, struct wg_pkt *out, bool *special)
{
	long v = parse_length(r->hdr);
	*special = false;
	if (v < 0) {
		r->failed = (int)v;
		return (int)v;
	}
	if (v <= 2) {
		static const enum wg_pkt_type types[] = { WG_PKT_FLUSH, WG_PKT_DELIM,
							  WG_PKT_RESPONSE_END };
		r->hdr_have = 0;
		out->type = types[v];
		out->data = empty_payload;
		out->len = 0;
		*special = true;
		return 0;
	}
	r->need = (size_t)v - WG_PKT_HEADER_SIZE;
	r->have = 0;
	return 0;
}

int wg_pkt_reader_read(struct wg_pkt_reader *r, struct wg_pkt *out,
		       const unsigned char **in, size_t *in_len)
{
	size_t take;
	bool special;
	int err;
	if (r->failed)
		return wg_error_set(r->failed, "protocol error: pkt-line stream is out of sync "
				    "after an earlier bad length");
	if (r->hdr_have < WG_PKT_HEADER_SIZE) {
		/* Fast path: a whole packet in the input is handed out in place,
		 * so a large pack stream is never copied here. */
		if (r->hdr_have == 0 && *in_len >= WG_PKT_HEADER_SIZE) {
			memcpy(r->hdr, *in, WG_PKT_HEADER_SIZE);
			if ((err = start_packet(r, out, &special)))
				return err;
			if (special) {
				*in += WG_PKT_HEADER_SIZE, *in_len -= WG_PKT_HEADER_SIZE;
				return 0;
			}
			if (*in_len - WG_PKT_HEADER_SIZE >= r->need) {
				const unsigned char *payload = *in + WG_PKT_HEADER_SIZE;
				size_t n = r->need;
				*in += WG_PKT_HEADER_SIZE + n, *in_len -= WG_PKT_HEADER_SIZE + n;
				return emit(r, out, payload, n);
			}
			r->hdr_have = WG_PKT_HEADER_SIZE;
			*in += WG_PKT_HEADER_SIZE, *in_len -= WG_PKT_HEADER_SIZE;
		} else {
			take = WG_PKT_HEADER_SIZE - r->hdr_have;
			if (take > *in_len)
				take = *in_len;
			memcpy(r->hdr + r->hdr_have, *in, take);
			r->hdr_have += take, *in += take, *in_len -= take;
			if (r->hdr_have < WG_PKT_HEADER_SIZE)
				return WG_ENEEDMORE;
			if ((err = start_packet(r, out, &special)))
				return err;
			if (special)
				return 0;
		}
	}
	/* Buffer the payload: the buffer grows only to the announced length,
	 * which parse_length capped at one maximal packet. */
	if (r->cap < r->need) {
		unsigned char *p = wg_realloc(r->buf, r->need);
		if (!p)
			return wg_error_set(WG_ENOMEM, "out of memory buffering a %zu-byte pkt-line",
					    r->need);
		r->buf = p;
		r->cap = r->need;
	}
	take = r->need - r->have;
	if (take > *in_len)
		take = *in_len;
	if (take)
		memcpy(r->buf + r->have, *in, take);
	r->have += take, *in += take, *in_len -= take;
	if (r->have < r->need)
		return WG_ENEEDMORE;
	return emit(r, out, r->need ? r->buf : empty_payload, r->need);
}

bool wg_pkt_reader_pending(const struct wg_pkt_reader *reader)
{
	return reader->hdr_have != 0;
}

int wg_pkt_reader_finish(const struct wg_pkt_reader *r)
{
	char q[WG_PKT_QUOTE_MAX];
	if (r->failed)
		return wg_error_set(r->failed, "protocol error: pkt-line stream is out of sync "
				    "after an earlier bad length");
	if (r->hdr_have == 0)
		return 0;
	if (r->hdr_have < WG_PKT_HEADER_SIZE)
		return wg_error_set(WG_ECORRUPT,
				    "protocol error: truncated pkt-line: the input ended after %zu of 4 "
				    "length bytes ('%s')", r->hdr_have,
				    wg_pkt_quote(q, sizeof(q), r->hdr, r->hdr_have, false));
	return wg_error_set(WG_ECORRUPT,
			    "protocol error: truncated pkt-line: length '%.4s' announces %zu payload "
			    "bytes but the input ended after %zu", (const char *)r->hdr, r->need,
			    r->have);
}
