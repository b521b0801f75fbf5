/* Requests of the native HTTP client, sans-IO: checking what the caller
 * asks for (no header that would split the request, none the client sets
 * itself) and writing the head's bytes. */
#ifndef WG_CLI_HTTP_REQUEST_H
#define WG_CLI_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "http_client.h"
#include "util/buf.h"

/* WG_EINVALID for a request this client will not send. */
int http_request_check(const struct http_request *req, const char *method);
/* Did the caller give header `name` (case-insensitive)? */
bool http_request_has_header(const struct http_request *req, const char *name);

enum http_req_framing { HTTP_REQ_NONE, HTTP_REQ_LENGTH, HTTP_REQ_CHUNKED };

struct http_head_spec {
	const char *method;
	/* origin-form "/path?q", absolute-form "http://host/path?q" (to a
	 * proxy), or authority-form "host:port" (CONNECT) */
	const char *target;
	const char *host;               /* the Host header's value */
	const struct http_request *req; /* the caller's headers */
	bool skip_caller_auth;          /* leave out the caller's Authorization */
	const char *auth_line;          /* "Authorization: ...\r\n" or NULL */
	const char *proxy_auth_line;    /* "Proxy-Authorization: ...\r\n" or NULL */
	enum http_req_framing framing;
	size_t length;                  /* HTTP_REQ_LENGTH */
	bool gzip;                      /* the body is gzip-encoded */
	bool connect;                   /* a CONNECT: no Accept-Encoding */
};

/* The head of a request, CRLF-terminated, into `out` (replaced). */
int http_request_head(struct wg_buf *out, const struct http_head_spec *spec);
/* One chunk of a chunked body: "<hex len>\r\n<data>\r\n", into `frame`. */
int http_chunk_frame(struct wg_buf *frame, const void *data, size_t len);

#endif
