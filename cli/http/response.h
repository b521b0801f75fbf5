/* A sans-IO HTTP/1.1 response parser (design.md, rule 1).
 *
 * The parser never reads a socket: the caller feeds it whatever bytes
 * arrived, in any chunking, and it hands back one event at a time, the way
 * the core's pkt-line reader does:
 *
 *   HTTP_EVENT_INTERIM  a 1xx response head (100 Continue, 103 Early
 *                       Hints) was read; the real response follows
 *   HTTP_EVENT_HEAD     the final response's status line and headers are
 *                       in (http_parser_head()); its framing is known
 *   HTTP_EVENT_BODY     body bytes, de-chunked: ev->data/ev->len point into
 *                       the caller's input, valid until it changes it
 *   HTTP_EVENT_END      the message is complete; bytes after it are left
 *                       unconsumed (the next response, or a CONNECT tunnel)
 *
 * Body bytes are never buffered, so a pack streams through in the
 * caller's chunks. Only a line being read (status, header, chunk size,
 * trailer) is kept across calls, under the limits below.
 *
 * Every byte is untrusted: malformed input is WG_ECORRUPT, a connection
 * that ends early WG_EIO, something this client does not do (HTTP/2, a
 * transfer coding other than chunked, 101) WG_EUNSUPPORTED, and a head,
 * line or trailer section over its limit WG_ELIMIT. Errors are sticky. */
#ifndef WG_CLI_HTTP_RESPONSE_H
#define WG_CLI_HTTP_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct http_header {
	char *name;
	char *value;
};

/* A response head: status line and header fields, in the order received
 * (obs-folded continuation lines joined with one space). */
struct http_head {
	int status;              /* e.g. 200 */
	int version;             /* 10 for HTTP/1.0, 11 for HTTP/1.1 */
	char *reason;            /* reason phrase, may be "" */
	struct http_header *headers;
	size_t nheaders;
};

/* Bounds on what a server may make the parser hold (docs/limits.md). */
struct http_parser_limits {
	size_t max_head;         /* status lines + headers of one exchange,
	                            interim responses included */
	size_t max_line;         /* one status or header line */
	size_t max_headers;      /* header fields of one response */
	size_t max_chunk_line;   /* one chunk size line (size + extensions) */
	size_t max_trailers;     /* the trailer section */
};

#define HTTP_LIMIT_MAX_HEAD (64 * 1024)
#define HTTP_LIMIT_MAX_LINE (16 * 1024)
#define HTTP_LIMIT_MAX_HEADERS 256
#define HTTP_LIMIT_MAX_CHUNK_LINE 4096
#define HTTP_LIMIT_MAX_TRAILERS (64 * 1024)
#define HTTP_PARSER_LIMITS_INIT { HTTP_LIMIT_MAX_HEAD, HTTP_LIMIT_MAX_LINE, \
				  HTTP_LIMIT_MAX_HEADERS, HTTP_LIMIT_MAX_CHUNK_LINE, \
				  HTTP_LIMIT_MAX_TRAILERS }

/* What the request was, as far as the response's framing depends on it. */
enum http_parser_flags {
	HTTP_PARSE_HEAD = 1,     /* a HEAD request: no body whatever the headers */
	HTTP_PARSE_CONNECT = 2,  /* a CONNECT request: a 2xx ends at its head */
};

enum http_body_framing {
	HTTP_FRAMING_NONE,       /* no body (HEAD, 204, 304, length 0, CONNECT 2xx) */
	HTTP_FRAMING_LENGTH,     /* Content-Length */
	HTTP_FRAMING_CHUNKED,
	HTTP_FRAMING_CLOSE,      /* until the connection closes */
};

enum http_event_type {
	HTTP_EVENT_INTERIM = 1,
	HTTP_EVENT_HEAD,
	HTTP_EVENT_BODY,
	HTTP_EVENT_END,
};

struct http_event {
	enum http_event_type type;
	const unsigned char *data;   /* HTTP_EVENT_BODY only */
	size_t len;
};

struct http_parser;

/* A parser for one response. `url` names the server in messages and must
 * outlive the parser's use (NULL: "the server"); `limits` NULL means
 * HTTP_PARSER_LIMITS_INIT. */
int http_parser_new(struct http_parser **out, unsigned flags, const char *url,
		    const struct http_parser_limits *limits);
/* Make it ready for the next response on the same connection. */
void http_parser_reset(struct http_parser *p, unsigned flags, const char *url);
void http_parser_free(struct http_parser *p);

/* Consume bytes from *in (advancing it and *in_len) up to the next event.
 * Returns the event's type (>0), WG_ENEEDMORE once all of the input is
 * consumed without one (not an error: feed more), or a negative error.
 * After HTTP_EVENT_END it returns HTTP_EVENT_END again, consuming nothing. */
int http_parser_feed(struct http_parser *p, const unsigned char **in, size_t *in_len,
		     struct http_event *ev);

/* The peer closed the connection. Returns HTTP_EVENT_END when that ends the
 * message (a body delimited by the close, or a message already complete),
 * 0 when no byte of a response had arrived at all (the caller decides what
 * that means: a kept-alive connection the server had closed), or WG_EIO
 * saying where the response was cut. */
int http_parser_eof(struct http_parser *p, struct http_event *ev);

/* The head of the response (the interim one after HTTP_EVENT_INTERIM, the
 * final one after HTTP_EVENT_HEAD), owned by the parser. */
const struct http_head *http_parser_head(const struct http_parser *p);
/* Move the final head out to *out (the caller then owns it; release with
 * http_head_release()), leaving the parser's empty. */
void http_parser_take_head(struct http_parser *p, struct http_head *out);
/* Trailer fields of a chunked body (after HTTP_EVENT_END). */
const struct http_head *http_parser_trailers(const struct http_parser *p);

enum http_body_framing http_parser_framing(const struct http_parser *p);
/* Content-Length, when the framing is HTTP_FRAMING_LENGTH. */
uint64_t http_parser_content_length(const struct http_parser *p);
/* May the connection carry another request after this response? (HTTP/1.1
 * without "Connection: close", HTTP/1.0 with "keep-alive"; never after a
 * body delimited by the close.) Valid from HTTP_EVENT_HEAD on. */
bool http_parser_keep_alive(const struct http_parser *p);
/* Has any byte of a response been consumed? */
bool http_parser_started(const struct http_parser *p);

/* --- heads (head.c) --- */

/* Parse "HTTP/1.x SSS reason" into h (status, version, reason). `who`
 * names the server in messages. */
int http_head_parse_status(struct http_head *h, const char *s, const char *who);
/* Add one header line (not the empty one) of `len` bytes to h: "Name:
 * value", or an obs-fold continuation of the last one. At most
 * max_headers fields (WG_ELIMIT). `what`: "response headers", "trailers". */
int http_head_parse_field(struct http_head *h, const char *s, size_t len, const char *what,
			  const char *who, size_t max_headers);

struct http_framing_info {
	enum http_body_framing framing;
	uint64_t length;         /* Content-Length */
	bool keep_alive;
};
/* How the body of a final head is delimited (RFC 9112 section 6.3) for a
 * request of `flags` (enum http_parser_flags), and whether the connection
 * stays. */
int http_head_framing(const struct http_head *h, unsigned flags, const char *who,
		      struct http_framing_info *out);

/* A printable excerpt of untrusted bytes for an error message, in out. */
const char *http_excerpt(char *out, size_t outsz, const char *s, size_t len);

/* The value of the first field called `name` (case-insensitive), or NULL. */
const char *http_head_get(const struct http_head *h, const char *name);
void http_head_release(struct http_head *h);

/* Does the comma-separated list `list` hold `token` (case-insensitive)? */
bool http_list_has_token(const char *list, const char *token);
/* An RFC 9110 token character (method and header names). */
bool http_is_tchar(int ch);

#endif
