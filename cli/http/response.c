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

/* A printable excerpt of untrusted bytes for an error message. */
static const char *excerpt(char *out, size_t outsz, const char *s, size_t len)
{
	size_t i, n = 0;
	for (i = 0; i < len && n + 4 < outsz; i++)
		out[n++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (i < len && n + 4 <= outsz) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
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

bool http_is_tchar(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

bool http_list_has_token(const char *list, const char *token)
{
	size_t n = strlen(token);
	const char *p = list;
	while (p && *p) {
		const char *end;
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		end = p;
		while (*end && *end != ',')
			end++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if ((size_t)(end - p) == n && !strncasecmp(p, token, n))
			return true;
		p = strchr(p, ',');
	}
	return false;
}

void http_head_release(struct http_head *h)
{
	size_t i;
	for (i = 0; i < h->nheaders; i++) {
		wg_free(h->headers[i].name);
		wg_free(h->headers[i].value);
	}
	wg_free(h->headers);
	wg_free(h->reason);
	memset(h, 0, sizeof(*h));
}

const char *http_head_get(const struct http_head *h, const char *name)
{
	size_t i;
	for (i = 0; h && i < h->nheaders; i++)
		if (!strcasecmp(h->headers[i].name, name))
			return h->headers[i].value;
	return NULL;
}

static int head_add(struct http_head *h, const char *name, size_t nlen, const char *value,
		    size_t vlen)
{
	struct http_header *e;
	/* Capacity is max(8, next power of two): grow at 0, 8, 16, 32, ... */
	if (!h->nheaders || (h->nheaders >= 8 && !(h->nheaders & (h->nheaders - 1)))) {
		size_t cap = h->nheaders ? h->nheaders * 2 : 8;
		e = wg_realloc(h->headers, cap * sizeof(*e));
		if (!e)
			return wg_error_set(WG_ENOMEM, "out of memory");
		h->headers = e;
	}
	e = &h->headers[h->nheaders];
	e->name = wg_strndup(name, nlen);
	e->value = wg_strndup(value, vlen);
	if (!e->name || !e->value) {
		wg_free(e->name);
		wg_free(e->value);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	h->nheaders++;
	return 0;
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

/* "HTTP/1.x SSS reason" */
static int parse_status_line(struct http_parser *p, const char *s)
{
	char ex[64];
	if (strncmp(s, "HTTP/", 5) || !isdigit((unsigned char)s[5]) || s[6] != '.' ||
	    !isdigit((unsigned char)s[7]) || s[8] != ' ' || !isdigit((unsigned char)s[9]) ||
	    !isdigit((unsigned char)s[10]) || !isdigit((unsigned char)s[11]) ||
	    (s[12] != ' ' && s[12] != '\0'))
		return fail(p, wg_error_set(WG_ECORRUPT, "malformed status line from %s: '%s'", who(p),
					    excerpt(ex, sizeof(ex), s, strlen(s))));
	if (s[5] != '1')
		return fail(p, wg_error_set(WG_EUNSUPPORTED, "%s answered with HTTP/%c.%c; only "
					    "HTTP/1.x is supported", who(p), s[5], s[7]));
	p->head.version = 10 + (s[7] != '0');
	p->head.status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
	if (p->head.status < 100)
		return fail(p, wg_error_set(WG_ECORRUPT, "malformed status code %d from %s",
					    p->head.status, who(p)));
	p->head.reason = wg_strdup(s[12] ? s + 13 : "");
	return p->head.reason ? 0 : fail(p, wg_error_set(WG_ENOMEM, "out of memory"));
}

/* One header or trailer line (not the empty one) into h. */
static int parse_field(struct http_parser *p, struct http_head *h, const char *what)
{
	char ex[64];
	const char *s = wg_buf_cstr(&p->line), *colon, *v, *vend;

	if (*s == ' ' || *s == '\t') {
		/* obs-fold: the line continues the previous value. */
		struct http_header *last;
		struct wg_buf joined = WG_BUF_INIT;
		if (!h->nheaders)
			return fail(p, wg_error_set(WG_ECORRUPT, "malformed %s from %s: continuation "
						    "line without a header", what, who(p)));
		last = &h->headers[h->nheaders - 1];
		while (*s == ' ' || *s == '\t')
			s++;
		if (wg_buf_printf(&joined, "%s%s%s", last->value, *last->value ? " " : "", s)) {
			wg_buf_release(&joined);
			return fail(p, wg_error_set(WG_ENOMEM, "out of memory"));
		}
		wg_free(last->value);
		last->value = (char *)wg_buf_detach(&joined, NULL);
		return last->value ? 0 : fail(p, wg_error_set(WG_ENOMEM, "out of memory"));
	}
	colon = strchr(s, ':');
	if (!colon || colon == s)
		return fail(p, wg_error_set(WG_ECORRUPT, "malformed header line in the %s from %s: "
					    "'%s'", what, who(p), excerpt(ex, sizeof(ex), s, p->line.len)));
	for (v = s; v < colon; v++)
		if (!http_is_tchar((unsigned char)*v))
			return fail(p, wg_error_set(WG_ECORRUPT, "malformed header name in the %s "
						    "from %s: '%s'", what, who(p),
						    excerpt(ex, sizeof(ex), s, (size_t)(colon - s))));
	if (h->nheaders >= p->lim.max_headers)
		return fail(p, wg_error_set(WG_ELIMIT, "too many header fields in the %s from %s "
					    "(the limit is %zu)", what, who(p), p->lim.max_headers));
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	vend = s + p->line.len;
	while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
		vend--;
	if (head_add(h, s, (size_t)(colon - s), v, (size_t)(vend - v)))
		return fail(p, WG_ENOMEM);
	return 0;
}

/* A Content-Length value: digits only. */
static int parse_length(const char *v, uint64_t *out)
{
	uint64_t n = 0;
	if (!*v)
		return -1;
	for (; *v; v++) {
		if (!isdigit((unsigned char)*v) || n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	*out = n;
	return 0;
}

/* How the body of the final head is delimited (RFC 9112 section 6.3), and
 * whether the connection stays. */
static int setup_framing(struct http_parser *p)
{
	const struct http_head *r = &p->head;
	const char *conn = NULL;
	bool chunked = false, have_len = false, has_te = false;
	uint64_t len = 0;
	size_t i;
	char ex[64];

	for (i = 0; i < r->nheaders; i++) {
		const char *n = r->headers[i].name, *v = r->headers[i].value;
		if (!strcasecmp(n, "Transfer-Encoding")) {
			/* Only chunked is implemented; anything else would leave
			 * the body's end unknown. */
			const char *s = v;
			has_te = true;
			while (*s) {
				size_t tl;
				while (*s == ' ' || *s == '\t' || *s == ',')
					s++;
				tl = strcspn(s, " \t,;");
				if (tl == 7 && !strncasecmp(s, "chunked", 7) && !chunked)
					chunked = true;
				else if (tl)
					return fail(p, wg_error_set(WG_EUNSUPPORTED, "unsupported "
								    "Transfer-Encoding '%s' from %s",
								    excerpt(ex, sizeof(ex), v, strlen(v)),
								    who(p)));
				s += tl;
				while (*s && *s != ',')
					s++;
			}
		} else if (!strcasecmp(n, "Content-Length")) {
			uint64_t l;
			if (parse_length(v, &l))
				return fail(p, wg_error_set(WG_ECORRUPT, "malformed Content-Length '%s' "
							    "from %s", excerpt(ex, sizeof(ex), v,
									       strlen(v)), who(p)));
			if (have_len && l != len)
				return fail(p, wg_error_set(WG_ECORRUPT, "conflicting Content-Length "
							    "headers from %s", who(p)));
			have_len = true;
			len = l;
		} else if (!strcasecmp(n, "Connection")) {
			conn = v;
		}
	}
	if (r->version >= 11)
		p->keep_alive = !(conn && http_list_has_token(conn, "close"));
	else
		p->keep_alive = conn && http_list_has_token(conn, "keep-alive");

	p->length = p->remaining = 0;
	if ((p->flags & HTTP_PARSE_HEAD) || r->status == 204 || r->status == 304 ||
	    ((p->flags & HTTP_PARSE_CONNECT) && r->status / 100 == 2)) {
		p->framing = HTTP_FRAMING_NONE;
		return 0;
	}
	if (has_te && !chunked)
		return fail(p, wg_error_set(WG_ECORRUPT, "empty Transfer-Encoding from %s", who(p)));
	if (chunked) {
		p->framing = HTTP_FRAMING_CHUNKED;
		/* Both: chunked wins, but the sender is suspect (request
		 * smuggling), so do not reuse what it sent on. */
		if (have_len)
			p->keep_alive = false;
	} else if (have_len) {
		p->framing = len ? HTTP_FRAMING_LENGTH : HTTP_FRAMING_NONE;
		p->length = p->remaining = len;
	} else {
		p->framing = HTTP_FRAMING_CLOSE;
		p->keep_alive = false;
	}
	return 0;
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
						    excerpt(ex, sizeof(ex), s, len), who(p)));
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
				    excerpt(ex, sizeof(ex), s, len), who(p)));
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
	if (setup_framing(p))
		return p->err;
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
				if (parse_status_line(p, wg_buf_cstr(&p->line)))
					return p->err;
				p->state = ST_HEADER;
			} else if (p->line.len) {
				if (parse_field(p, &p->head, "response headers"))
					return p->err;
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
				if (parse_field(p, &p->trailers, "trailers"))
					return p->err;
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
