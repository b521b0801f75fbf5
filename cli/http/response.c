/* The sans-IO HTTP/1.1 response parser (see response.h).
 *
 * A state machine over the bytes fed in: lines (status, headers, chunk
 * sizes, trailers) are collected in one buffer under a byte budget, body
 * bytes are handed out in place. Nothing here blocks or allocates in
 * proportion to a body. */
#include "http/response.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

enum state {
	ST_STATUS,       /* the status line */
	ST_HEADER,       /* header lines up to the empty one */
	ST_BODY_LENGTH,
	ST_BODY_CLOSE,
	ST_CHUNK_SIZE,
	ST_CHUNK_DATA,
	ST_CHUNK_CR,     /* the CRLF after a chunk's data */
	ST_CHUNK_LF,
	ST_TRAILER,
	ST_DONE,
	ST_ERROR,
};

struct http_parser {
	unsigned flags;
	const char *url;
	struct http_parser_limits lim;
	enum state state;
	int err;                  /* ST_ERROR: the code, repeated on every call */
	struct wg_buf errmsg;     /* ... with its message */

	struct wg_buf line;       /* the line being read, terminator included */
	bool had_cr;              /* the last line ended in CRLF */
	size_t head_budget;       /* bytes the heads may still use */
	size_t section_budget;    /* a chunk size line or the trailers */
	bool started;

	struct http_head head;
	struct http_head trailers;
	enum http_body_framing framing;
	uint64_t length;          /* Content-Length */
	uint64_t remaining;       /* in the body (LENGTH) or the chunk */
	bool keep_alive;
};

static const char *who(const struct http_parser *p)
{
	return p->url ? p->url : "the server";
}

/* Enter the error state with the code just set: later calls repeat it. */
static int fail(struct http_parser *p, int code)
{
	p->state = ST_ERROR;
	p->err = code;
	wg_buf_reset(&p->errmsg);
	wg_buf_adds(&p->errmsg, wg_error_message());
	return code;
}


/* --- lines ------------------------------------------------------------------ */

/* Collect bytes up to a LF into p->line. Returns 1 with the line complete
 * (terminator stripped; p->had_cr), 0 with all input consumed, or an
 * error. *budget counts down what the section may still use. */
static int take_line(struct http_parser *p, const unsigned char **in, size_t *in_len,
		     size_t *budget, size_t budget_limit, size_t line_limit, const char *what)
{
	const unsigned char *nl = *in_len ? memchr(*in, '\n', *in_len) : NULL;
	size_t take = nl ? (size_t)(nl - *in) + 1 : *in_len;

	size_t line_room = line_limit > p->line.len ? line_limit - p->line.len : 0;

	/* Whichever limit the first byte too many crosses is the one named,
	 * so that the error does not depend on how the input was split. */
	if (take > *budget && *budget <= line_room)
		return fail(p, wg_error_set(WG_ELIMIT, "too much data in the %s from %s (the limit "
					    "is %zu bytes)", what, who(p), budget_limit));
	if (take > line_room)
		return fail(p, wg_error_set(WG_ELIMIT, "a line of the %s from %s is too long (the "
					    "limit is %zu bytes)", what, who(p), line_limit));
	*budget -= take;
	if (take && wg_buf_add(&p->line, *in, take))
		return fail(p, wg_error_set(WG_ENOMEM, "out of memory"));
	*in += take;
	*in_len -= take;
	p->started |= take > 0;
	if (!nl)
		return 0;
	wg_buf_setlen(&p->line, p->line.len - 1);
	p->had_cr = p->line.len && p->line.data[p->line.len - 1] == '\r';
	if (p->had_cr)
		wg_buf_setlen(&p->line, p->line.len - 1);
	if (p->line.len && (memchr(p->line.data, '\r', p->line.len) ||
			    memchr(p->line.data, '\0', p->line.len)))
		return fail(p, wg_error_set(WG_ECORRUPT, "stray CR or NUL in the %s from %s", what,
					    who(p)));
	return 1;
}


/* A chunk size line: hex digits, optional whitespace, optional
 * ";extensions" (ignored). */
static int parse_chunk_size(struct http_parser *p, const char *s, size_t len)
{
	char ex[64];
	const char *c = s, *end = s + len;
	uint64_t n = 0;
	int d;
	if (c == end || wg_hex_value((unsigned char)*c) < 0)
		goto bad;
	while (c < end && (d = wg_hex_value((unsigned char)*c)) >= 0) {
		if (n > (UINT64_MAX >> 4))
			return fail(p, wg_error_set(WG_ECORRUPT, "chunk size '%s' from %s is too large",
						    http_excerpt(ex, sizeof(ex), s, len), who(p)));
		n = n * 16 + (uint64_t)d;
		c++;
	}
	while (c < end && (*c == ' ' || *c == '\t'))
		c++;
	if (c < end && *c != ';')
		goto bad;
	for (; c < end; c++)
		if ((unsigned char)*c < 0x20 && *c != '\t')
			goto bad;
	p->remaining = n;
	return 0;
bad:
	return fail(p, wg_error_set(WG_ECORRUPT, "malformed chunk size '%s' in the response from %s",
				    http_excerpt(ex, sizeof(ex), s, len), who(p)));
}

/* One header or trailer line into h. */
static int parse_field(struct http_parser *p, struct http_head *h, const char *what)
{
	int rc = http_head_parse_field(h, wg_buf_cstr(&p->line), p->line.len, what, who(p),
				       p->lim.max_headers);
	return rc ? fail(p, rc) : 0;
}

/* --- the machine ------------------------------------------------------------- */

static int body_bytes(struct http_parser *p, const unsigned char **in, size_t *in_len,
		      struct http_event *ev, uint64_t max)
{
	size_t take = max < *in_len ? (size_t)max : *in_len;
	ev->type = HTTP_EVENT_BODY;
	ev->data = *in;
	ev->len = take;
	*in += take;
	*in_len -= take;
	return HTTP_EVENT_BODY;
}

/* The empty line after the headers of a head. */
static int end_of_head(struct http_parser *p, struct http_event *ev)
{
	if (p->head.status == 101)
		return fail(p, wg_error_set(WG_EUNSUPPORTED, "%s switched protocols (101), which "
					    "this client does not do", who(p)));
	if (p->head.status < 200) {
		/* 100 Continue, 103 Early Hints: the real response follows. */
		p->state = ST_STATUS;
		ev->type = HTTP_EVENT_INTERIM;
		return HTTP_EVENT_INTERIM;
	}
	{
		struct http_framing_info f;
		int rc = http_head_framing(&p->head, p->flags, who(p), &f);
		if (rc)
			return fail(p, rc);
		p->framing = f.framing;
		p->keep_alive = f.keep_alive;
		p->length = p->remaining = f.length;
	}
	switch (p->framing) {
	case HTTP_FRAMING_NONE: p->state = ST_DONE; break;
	case HTTP_FRAMING_LENGTH: p->state = ST_BODY_LENGTH; break;
	case HTTP_FRAMING_CHUNKED: p->state = ST_CHUNK_SIZE; break;
	case HTTP_FRAMING_CLOSE: p->state = ST_BODY_CLOSE; break;
	}
	p->section_budget = p->lim.max_chunk_line;
	ev->type = HTTP_EVENT_HEAD;
	return HTTP_EVENT_HEAD;
}

int http_parser_feed(struct http_parser *p, const unsigned char **in, size_t *in_len,
		     struct http_event *ev)
{
	int rc;

	ev->data = NULL;
	ev->len = 0;
	for (;;) {
		switch (p->state) {
		case ST_ERROR:
			return wg_error_set(p->err, "%s", wg_buf_cstr(&p->errmsg));
		case ST_DONE:
			ev->type = HTTP_EVENT_END;
			return HTTP_EVENT_END;
		case ST_STATUS:
		case ST_HEADER:
			rc = take_line(p, in, in_len, &p->head_budget, p->lim.max_head,
				       p->lim.max_line, "response headers");
			if (rc <= 0)
				return rc ? rc : WG_ENEEDMORE;
			if (p->state == ST_STATUS) {
				http_head_release(&p->head);
				if ((rc = http_head_parse_status(&p->head, wg_buf_cstr(&p->line), who(p))))
					return fail(p, rc);
				p->state = ST_HEADER;
			} else if (p->line.len) {
				if ((rc = parse_field(p, &p->head, "response headers")))
					return rc;
			} else {
				wg_buf_reset(&p->line);
				return end_of_head(p, ev);
			}
			wg_buf_reset(&p->line);
			break;
		case ST_BODY_LENGTH:
		case ST_CHUNK_DATA:
			if (!p->remaining) {
				p->state = p->state == ST_CHUNK_DATA ? ST_CHUNK_CR : ST_DONE;
				break;
			}
			if (!*in_len)
				return WG_ENEEDMORE;
			rc = body_bytes(p, in, in_len, ev, p->remaining);
			p->remaining -= ev->len;
			return rc;
		case ST_BODY_CLOSE:
			if (!*in_len)
				return WG_ENEEDMORE;
			return body_bytes(p, in, in_len, ev, UINT64_MAX);
		case ST_CHUNK_SIZE:
			rc = take_line(p, in, in_len, &p->section_budget, p->lim.max_chunk_line,
				       p->lim.max_chunk_line, "chunk size line");
			if (rc <= 0)
				return rc ? rc : WG_ENEEDMORE;
			if (!p->had_cr)
				return fail(p, wg_error_set(WG_ECORRUPT, "chunk size line from %s does "
							    "not end in CRLF", who(p)));
			if (parse_chunk_size(p, (const char *)p->line.data, p->line.len))
				return p->err;
			wg_buf_reset(&p->line);
			p->section_budget = p->lim.max_trailers;
			p->state = p->remaining ? ST_CHUNK_DATA : ST_TRAILER;
			break;
		case ST_CHUNK_CR:
		case ST_CHUNK_LF:
			if (!*in_len)
				return WG_ENEEDMORE;
			/* The chunk's data must be followed by exactly CRLF. */
			if (**in != (p->state == ST_CHUNK_CR ? '\r' : '\n'))
				return fail(p, wg_error_set(WG_ECORRUPT, "chunk data from %s is longer "
							    "than its declared size (no CRLF after "
							    "it)", who(p)));
			(*in)++;
			(*in_len)--;
			if (p->state == ST_CHUNK_CR) {
				p->state = ST_CHUNK_LF;
			} else {
				p->state = ST_CHUNK_SIZE;
				p->section_budget = p->lim.max_chunk_line;
			}
			break;
		case ST_TRAILER:
			rc = take_line(p, in, in_len, &p->section_budget, p->lim.max_trailers,
				       p->lim.max_trailers, "trailers");
			if (rc <= 0)
				return rc ? rc : WG_ENEEDMORE;
			if (!p->line.len) {
				p->state = ST_DONE;
				break;
			}
			/* A continuation line with nothing to continue is
			 * dropped here: trailers are only checked, never used
			 * for framing. */
			if ((p->line.data[0] != ' ' && p->line.data[0] != '\t') || p->trailers.nheaders) {
				if ((rc = parse_field(p, &p->trailers, "trailers")))
					return rc;
			}
			wg_buf_reset(&p->line);
			break;
		}
	}
}

int http_parser_eof(struct http_parser *p, struct http_event *ev)
{
	ev->data = NULL;
	ev->len = 0;
	ev->type = HTTP_EVENT_END;
	switch (p->state) {
	case ST_ERROR:
		return wg_error_set(p->err, "%s", wg_buf_cstr(&p->errmsg));
	case ST_DONE:
		return HTTP_EVENT_END;
	case ST_BODY_CLOSE:
		p->state = ST_DONE;
		return HTTP_EVENT_END;
	case ST_STATUS:
		if (!p->started)
			return 0;
		/* fall through */
	case ST_HEADER:
		return fail(p, wg_error_set(WG_EIO, "connection closed in the middle of the response "
					    "headers from %s", who(p)));
	case ST_BODY_LENGTH:
		return fail(p, wg_error_set(WG_EIO, "connection to %s closed after %" PRIu64 " of %"
					    PRIu64 " body bytes", who(p), p->length - p->remaining,
					    p->length));
	case ST_CHUNK_SIZE:
		if (!p->line.len)
			return fail(p, wg_error_set(WG_EIO, "connection to %s closed before the end of "
						    "the chunked body", who(p)));
		return fail(p, wg_error_set(WG_EIO, "connection closed in the middle of the chunk "
					    "size line from %s", who(p)));
	case ST_CHUNK_DATA:
	case ST_CHUNK_CR:
	case ST_CHUNK_LF:
		return fail(p, wg_error_set(WG_EIO, "connection to %s closed in the middle of a chunk",
					    who(p)));
	case ST_TRAILER:
		return fail(p, wg_error_set(WG_EIO, "connection closed in the middle of the trailers "
					    "from %s", who(p)));
	}
	return WG_ERROR;
}

/* --- lifecycle and accessors ----------------------------------------------------------- */

void http_parser_reset(struct http_parser *p, unsigned flags, const char *url)
{
	http_head_release(&p->head);
	http_head_release(&p->trailers);
	wg_buf_reset(&p->line);
	wg_buf_reset(&p->errmsg);
	p->flags = flags;
	p->url = url;
	p->state = ST_STATUS;
	p->err = 0;
	p->had_cr = false;
	p->head_budget = p->lim.max_head;
	p->section_budget = 0;
	p->started = false;
	p->framing = HTTP_FRAMING_NONE;
	p->length = p->remaining = 0;
	p->keep_alive = false;
}

int http_parser_new(struct http_parser **out, unsigned flags, const char *url,
		    const struct http_parser_limits *limits)
{
	static const struct http_parser_limits defaults = HTTP_PARSER_LIMITS_INIT;
	struct http_parser *p = wg_calloc(1, sizeof(*p));
	*out = NULL;
	if (!p)
		return wg_error_set(WG_ENOMEM, "out of memory");
	p->lim = limits ? *limits : defaults;
	http_parser_reset(p, flags, url);
	*out = p;
	return 0;
}

void http_parser_free(struct http_parser *p)
{
	if (!p)
		return;
	http_head_release(&p->head);
	http_head_release(&p->trailers);
	wg_buf_release(&p->line);
	wg_buf_release(&p->errmsg);
	wg_free(p);
}

const struct http_head *http_parser_head(const struct http_parser *p)
{
	return &p->head;
}

void http_parser_take_head(struct http_parser *p, struct http_head *out)
{
	*out = p->head;
	memset(&p->head, 0, sizeof(p->head));
}

const struct http_head *http_parser_trailers(const struct http_parser *p)
{
	return &p->trailers;
}

enum http_body_framing http_parser_framing(const struct http_parser *p)
{
	return p->framing;
}

uint64_t http_parser_content_length(const struct http_parser *p)
{
	return p->length;
}

bool http_parser_keep_alive(const struct http_parser *p)
{
	return p->keep_alive;
}

bool http_parser_started(const struct http_parser *p)
{
	return p->started;
}
