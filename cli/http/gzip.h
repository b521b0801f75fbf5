/* Content encodings of the native HTTP client: gunzip of response bodies
 * (Content-Encoding: gzip or x-gzip, concatenated members too) and gzip of
 * request bodies, whole or streamed. */
#ifndef WG_CLI_HTTP_GZIP_H
#define WG_CLI_HTTP_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#include "http/response.h"
#include "http_client.h"
#include "util/buf.h"

#define HTTP_IO_CHUNK 16384

/* Does the response's Content-Encoding ask for gunzip? WG_EUNSUPPORTED for
 * an encoding webgit cannot decode, or several. */
int http_content_gzip(const struct http_head *h, const char *url, bool *gzip);

/* Where a response body goes: decoded if gzip, then to the caller. */
struct http_body_out {
	http_body_cb cb;
	void *payload;
	const char *url;         /* for messages */
	bool gzip;
	int cb_rc;               /* what the callback returned to stop */
	z_stream zs;
	bool zinit;
	bool zend;               /* the last gzip member ended */
	uint64_t zin, zout;      /* for the inflate-ratio limit */
	unsigned char out[HTTP_IO_CHUNK];
};

void http_body_out_init(struct http_body_out *b, bool gzip, const char *url, http_body_cb cb,
			void *payload);
/* Body bytes as received. A callback's stop is its own negative code, or
 * WG_ERROR ("stopped by the caller") for a positive one. */
int http_body_out_write(struct http_body_out *b, const void *data, size_t len);
/* The body ended: a gzip stream must have ended too (if there was one). */
int http_body_out_finish(struct http_body_out *b, bool had_body);
void http_body_out_release(struct http_body_out *b);

/* gzip `len` bytes into `out` (replacing what it held). */
int http_gzip_buffer(struct wg_buf *out, const void *data, size_t len);

/* gzip a body streamed piece by piece; every compressed piece goes to
 * `emit`. The last call has `end` set. */
struct http_gzip_stream {
	z_stream zs;
	bool init;
	unsigned char out[HTTP_IO_CHUNK];
};
int http_gzip_stream_init(struct http_gzip_stream *z);
int http_gzip_stream_write(struct http_gzip_stream *z, const void *in, size_t n, bool end,
			   int (*emit)(void *ctx, const void *data, size_t len), void *ctx);
void http_gzip_stream_release(struct http_gzip_stream *z);

#endif
