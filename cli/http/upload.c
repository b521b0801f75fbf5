/* Request bodies of the native HTTP client on the wire (see upload.h). */
#include "http/upload.h"

#include "http/gzip.h"
#include "http/request.h"
#include "util/alloc.h"
#include "util/error.h"

/* Bodies up to this size go out in the same write as the head. */
#define HTTP_SMALL_BODY 65536

static int write_chunk(void *ctx, const void *data, size_t len)
{
	struct http_conn *c = ctx;
	struct wg_buf frame = WG_BUF_INIT;
	int err;
	if (!len)
		return 0;
	err = http_chunk_frame(&frame, data, len);
	if (!err)
		err = http_conn_write(c, frame.data, frame.len);
	wg_buf_release(&frame);
	return err;
}

/* Stream a body source as chunks, gzip-compressed on the fly if asked. */
static int write_source_body(struct http_conn *c, const struct http_body_source *src,
			     bool gzip)
{
	unsigned char *in = wg_malloc(HTTP_IO_CHUNK);
	struct http_gzip_stream *z = gzip ? wg_malloc(sizeof(*z)) : NULL;
	bool end = false;
	int rc = 0;

	if (!in || (gzip && !z)) {
		rc = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	if (z && (rc = http_gzip_stream_init(z))) {
		wg_free(z);
		z = NULL;
		goto out;
	}
	while (!rc && !end) {
		size_t n = 0;
		if ((rc = src->read(src->payload, in, HTTP_IO_CHUNK, &n)))
			break;
		if (n > HTTP_IO_CHUNK) {
			rc = wg_error_set(WG_EINVALID, "request body source returned too many bytes");
			break;
		}
		end = n == 0;
		rc = z ? http_gzip_stream_write(z, in, n, end, write_chunk, c) : write_chunk(c, in, n);
	}
	if (!rc)
		rc = http_conn_write(c, "0\r\n\r\n", 5);
out:
	if (z)
		http_gzip_stream_release(z);
	wg_free(z);
	wg_free(in);
	return rc;
}

int http_upload(struct http_conn *c, struct wg_buf *head, const void *body, size_t body_len,
		const struct http_body_source *src, bool gzip)
{
	int err = 0;
	if (body_len && body_len <= HTTP_SMALL_BODY) {
		if (wg_buf_add(head, body, body_len))
			return wg_error_set(WG_ENOMEM, "out of memory");
		body_len = 0;
	}
	err = http_conn_write(c, head->data, head->len);
	if (!err && body_len)
		err = http_conn_write(c, body, body_len);
	if (!err && src)
		err = write_source_body(c, src, gzip);
	if (!err)
		err = http_conn_flush(c);
	return err;
}
