/* Requests of the native HTTP client, sans-IO (see request.h): the
 * caller's request checked, and the bytes of its head put together. */
#include "http/request.h"

#include <string.h>
#include <strings.h>

#include "http/response.h"
#include "util/error.h"

#define HTTP_USER_AGENT "webgit/0.1"

bool http_request_has_header(const struct http_request *req, const char *name)
{
	size_t i, n = strlen(name);
	for (i = 0; i < req->nheaders; i++)
		if (!strncasecmp(req->headers[i], name, n) && req->headers[i][n] == ':')
			return true;
	return false;
}


int http_request_check(const struct http_request *req, const char *method)
{
	static const char *const reserved[] = { "Host", "Content-Length", "Transfer-Encoding",
						"Connection" };
	size_t i, j;
	const char *p;
	for (p = method; *p; p++)
		if (!http_is_tchar((unsigned char)*p))
			return wg_error_set(WG_EINVALID, "invalid HTTP method '%s'", method);
	if (!*method)
		return wg_error_set(WG_EINVALID, "empty HTTP method");
	if (req->body_source && (req->body || req->body_len))
		return wg_error_set(WG_EINVALID, "a request has either body bytes or a body source");
	if (req->body_source && !req->body_source->read)
		return wg_error_set(WG_EINVALID, "body source without a read function");
	if (!req->body && req->body_len)
		return wg_error_set(WG_EINVALID, "request body length without body bytes");
	for (i = 0; i < req->nheaders; i++) {
		const char *h = req->headers[i], *colon = strchr(h, ':');
		if (!colon || colon == h)
			return wg_error_set(WG_EINVALID, "request header '%s' is not 'Name: value'", h);
		for (p = h; p < colon; p++)
			if (!http_is_tchar((unsigned char)*p))
				return wg_error_set(WG_EINVALID, "invalid request header name in '%s'", h);
		for (p = colon; *p; p++)
			if ((unsigned char)*p < 0x20 && *p != '\t')
				return wg_error_set(WG_EINVALID, "control character in request header "
						    "'%.*s'", (int)(colon - h), h);
		for (j = 0; j < sizeof(reserved) / sizeof(reserved[0]); j++)
			if ((size_t)(colon - h) == strlen(reserved[j]) &&
			    !strncasecmp(h, reserved[j], (size_t)(colon - h)))
				return wg_error_set(WG_EINVALID, "request header '%s' is set by the HTTP "
						    "client itself", reserved[j]);
		if (req->gzip_body && !strncasecmp(h, "Content-Encoding:", 17))
			return wg_error_set(WG_EINVALID, "Content-Encoding header given with "
					    "gzip_body");
	}
	return 0;
}

int http_request_head(struct wg_buf *out, const struct http_head_spec *s)
{
	const struct http_request *req = s->req;
	size_t i;
	int err;

	wg_buf_reset(out);
	err = wg_buf_printf(out, "%s %s HTTP/1.1\r\nHost: %s\r\n", s->method, s->target, s->host);
	if (!err && !http_request_has_header(req, "User-Agent"))
		err = wg_buf_adds(out, "User-Agent: " HTTP_USER_AGENT "\r\n");
	if (!err && !http_request_has_header(req, "Accept-Encoding") && !s->connect)
		err = wg_buf_adds(out, "Accept-Encoding: gzip\r\n");
	if (!err && s->auth_line)
		err = wg_buf_adds(out, s->auth_line);
	if (!err && s->proxy_auth_line)
		err = wg_buf_adds(out, s->proxy_auth_line);
	for (i = 0; !err && i < req->nheaders; i++) {
		if (s->skip_caller_auth && !strncasecmp(req->headers[i], "Authorization:", 14))
			continue;
		err = wg_buf_printf(out, "%s\r\n", req->headers[i]);
	}
	switch (s->framing) {
	case HTTP_REQ_CHUNKED:
		if (!err)
			err = wg_buf_adds(out, "Transfer-Encoding: chunked\r\n");
		break;
	case HTTP_REQ_LENGTH:
		if (!err)
			err = wg_buf_printf(out, "Content-Length: %zu\r\n", s->length);
		break;
	case HTTP_REQ_NONE:
		break;
	}
	if (!err && s->gzip && s->framing != HTTP_REQ_NONE)
		err = wg_buf_adds(out, "Content-Encoding: gzip\r\n");
	if (!err)
		err = wg_buf_adds(out, "\r\n");
	return err ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

int http_chunk_frame(struct wg_buf *frame, const void *data, size_t len)
{
	wg_buf_reset(frame);
	if (wg_buf_printf(frame, "%zx\r\n", len) || wg_buf_add(frame, data, len) ||
	    wg_buf_adds(frame, "\r\n"))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}
