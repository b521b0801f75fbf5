/* Content encodings of the native HTTP client (see gzip.h): gzip response
 * bodies inflated on the way to the caller, under the inflate-ratio limit
 * that guards packs (util/limits.h), and request bodies compressed. */
#include "http/gzip.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"
#include "util/limits.h"

int http_content_gzip(const struct http_head *h, const char *url, bool *gzip)
{
	const char *enc = NULL;
	char ex[64];
	size_t i;

	*gzip = false;
	for (i = 0; i < h->nheaders; i++) {
		const char *v = h->headers[i].value;
		if (strcasecmp(h->headers[i].name, "Content-Encoding"))
			continue;
		if (enc && *v)
			return wg_error_set(WG_EUNSUPPORTED, "several Content-Encoding headers from %s",
					    url);
		if (*v)
			enc = v;
	}
	if (enc && (!strcasecmp(enc, "gzip") || !strcasecmp(enc, "x-gzip")))
		*gzip = true;
	else if (enc && strcasecmp(enc, "identity"))
		return wg_error_set(WG_EUNSUPPORTED, "%s sent Content-Encoding '%s', which webgit "
				    "cannot decode", url, http_excerpt(ex, sizeof(ex), enc, strlen(enc)));
	return 0;
}

void http_body_out_init(struct http_body_out *b, bool gzip, const char *url, http_body_cb cb,
			void *payload)
{
	memset(b, 0, sizeof(*b));
	b->gzip = gzip;
	b->url = url;
	b->cb = cb;
	b->payload = payload;
}

/* A gzip bomb is refused like one in a pack (util/limits.h). */
static int gzip_ratio(struct http_body_out *b, uInt in_before, size_t produced)
{
	b->zin += in_before - b->zs.avail_in;
	b->zout += produced;
	if (wg_limits_check_inflate(NULL, b->zout, b->zin, "the gzip-encoded response"))
		return wg_error_prefix("%s", b->url);
	return 0;
}

static int call_cb(struct http_body_out *b, const void *data, size_t len)
{
	int rc;
	if (!b->cb || !len)
		return 0;
	rc = b->cb(b->payload, data, len);
	if (rc) {
		b->cb_rc = rc;
		if (rc > 0)
			return wg_error_set(WG_ERROR, "transfer from %s stopped by the caller", b->url);
		return rc;
	}
	return 0;
}

int http_body_out_write(struct http_body_out *b, const void *data, size_t len)
{
	if (!b->gzip)
		return call_cb(b, data, len);
	if (!b->zinit) {
		memset(&b->zs, 0, sizeof(b->zs));
		if (inflateInit2(&b->zs, 15 + 16) != Z_OK)
			return wg_error_set(WG_ENOMEM, "cannot set up gzip decoding");
		b->zinit = true;
	}
	b->zs.next_in = (unsigned char *)(uintptr_t)data;
	b->zs.avail_in = (uInt)len;
	while (b->zs.avail_in) {
		int zr;
		if (b->zend) {
			/* Another gzip member follows (concatenated gzip). */
			inflateReset(&b->zs);
			b->zend = false;
		}
		uInt in_before = b->zs.avail_in;
		int err;
		b->zs.next_out = b->out;
		b->zs.avail_out = sizeof(b->out);
		zr = inflate(&b->zs, Z_NO_FLUSH);
		if ((err = gzip_ratio(b, in_before, sizeof(b->out) - b->zs.avail_out)))
			return err;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return wg_error_set(WG_ECORRUPT, "invalid gzip data in the response from %s%s%s",
					    b->url, b->zs.msg ? ": " : "",
					    b->zs.msg ? b->zs.msg : "");
		if (zr == Z_STREAM_END)
			b->zend = true;
		if (call_cb(b, b->out, sizeof(b->out) - b->zs.avail_out))
			return b->cb_rc < 0 ? b->cb_rc : WG_ERROR;
		if (zr == Z_BUF_ERROR && b->zs.avail_out)
			break;
	}
	/* Output may still be pending with all input consumed. */
	while (!b->zend) {
		int zr, err;
		b->zs.next_out = b->out;
		b->zs.avail_out = sizeof(b->out);
		zr = inflate(&b->zs, Z_NO_FLUSH);
		if ((err = gzip_ratio(b, b->zs.avail_in, sizeof(b->out) - b->zs.avail_out)))
			return err;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return wg_error_set(WG_ECORRUPT, "invalid gzip data in the response from %s",
					    b->url);
		if (zr == Z_STREAM_END)
			b->zend = true;
		if (sizeof(b->out) == b->zs.avail_out)
			break;
		if (call_cb(b, b->out, sizeof(b->out) - b->zs.avail_out))
			return b->cb_rc < 0 ? b->cb_rc : WG_ERROR;
	}
	return 0;
}

int http_body_out_finish(struct http_body_out *b, bool had_body)
{
	if (b->gzip && had_body && !b->zend)
		return wg_error_set(WG_ECORRUPT, "the gzip-compressed response from %s is truncated",
				    b->url);
	return 0;
}

void http_body_out_release(struct http_body_out *b)
{
	if (b->zinit)
		inflateEnd(&b->zs);
	b->zinit = false;
}

int http_gzip_buffer(struct wg_buf *out, const void *data, size_t len)
{
	z_stream zs;
	int zr;
	wg_buf_reset(out);
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return wg_error_set(WG_ENOMEM, "cannot set up gzip compression");
	zs.next_in = (unsigned char *)data;
	zs.avail_in = 0;
	do {
		if (!zs.avail_in && len) {
			uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
			zs.next_in = (unsigned char *)data;
			zs.avail_in = n;
			data = (const unsigned char *)data + n;
			len -= n;
		}
		if (wg_buf_grow(out, 65536)) {
			deflateEnd(&zs);
			return WG_ENOMEM;
		}
		zs.next_out = out->data + out->len;
		zs.avail_out = (uInt)(out->cap - out->len - 1);
		zr = deflate(&zs, len || zs.avail_in ? Z_NO_FLUSH : Z_FINISH);
		wg_buf_setlen(out, out->cap - 1 - zs.avail_out);
	} while (zr == Z_OK || zr == Z_BUF_ERROR);
	deflateEnd(&zs);
	if (zr != Z_STREAM_END)
		return wg_error_set(WG_ERROR, "gzip compression of the request body failed");
	return 0;
}

int http_gzip_stream_init(struct http_gzip_stream *z)
{
	memset(&z->zs, 0, sizeof(z->zs));
	if (deflateInit2(&z->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return wg_error_set(WG_ENOMEM, "cannot set up gzip compression");
	z->init = true;
	return 0;
}

int http_gzip_stream_write(struct http_gzip_stream *z, const void *in, size_t n, bool end,
			   int (*emit)(void *ctx, const void *data, size_t len), void *ctx)
{
	z->zs.next_in = (unsigned char *)(uintptr_t)in;
	z->zs.avail_in = (uInt)n;
	for (;;) {
		int zr, rc;
		z->zs.next_out = z->out;
		z->zs.avail_out = sizeof(z->out);
		zr = deflate(&z->zs, end ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR)
			return wg_error_set(WG_ERROR, "gzip compression of the request body failed");
		if ((rc = emit(ctx, z->out, sizeof(z->out) - z->zs.avail_out)))
			return rc;
		if (end ? zr == Z_STREAM_END : (z->zs.avail_out && !z->zs.avail_in))
			return 0;
	}
}

void http_gzip_stream_release(struct http_gzip_stream *z)
{
	if (z->init)
		deflateEnd(&z->zs);
	z->init = false;
}
