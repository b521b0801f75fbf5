/* Request bodies of the native HTTP client on the wire. */
#ifndef WG_CLI_HTTP_UPLOAD_H
#define WG_CLI_HTTP_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "http/conn.h"
#include "http_client.h"
#include "util/buf.h"

/* Send a request: its head (a small in-memory body goes in the same
 * write, appended to `head`), then the in-memory body, or the body of
 * `src` as chunks of a "Transfer-Encoding: chunked" body (gzip-compressed
 * on the fly when `gzip`), then flush. */
int http_upload(struct http_conn *c, struct wg_buf *head, const void *body, size_t body_len,
		const struct http_body_source *src, bool gzip);

#endif
