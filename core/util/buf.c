#include "util/buf.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

int wg_buf_grow(struct wg_buf *buf, size_t extra)
{
	size_t need, cap;
	unsigned char *p;
	if (wg_size_add(&need, buf->len, extra) || wg_size_add(&need, need, 1))
		return wg_error_set(WG_ENOMEM, "buffer size overflow");
	if (need <= buf->cap)
		return 0;
	cap = buf->cap ? buf->cap : 64;
	while (cap < need)
		cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
	p = wg_realloc(buf->data, cap);
	if (!p)
		return wg_error_set(WG_ENOMEM, "out of memory growing a buffer to %zu bytes", cap);
	buf->data = p;
	buf->cap = cap;
	buf->data[buf->len] = '\0';
	return 0;
}

int wg_buf_add(struct wg_buf *buf, const void *data, size_t len)
{
	int err = wg_buf_grow(buf, len);
	if (err)
		return err;
	if (len)
		memcpy(buf->data + buf->len, data, len);
	buf->len += len;
	buf->data[buf->len] = '\0';
	return 0;
}

int wg_buf_adds(struct wg_buf *buf, const char *s) { return wg_buf_add(buf, s, strlen(s)); }

int wg_buf_addch(struct wg_buf *buf, int ch)
{
	unsigned char c = (unsigned char)ch;
	return wg_buf_add(buf, &c, 1);
}

int wg_buf_vprintf(struct wg_buf *buf, const char *fmt, va_list ap)
{
	va_list cp;
	int n, err;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return wg_error_set(WG_EINVALID, "bad format string");
	if ((err = wg_buf_grow(buf, (size_t)n)))
		return err;
	vsnprintf((char *)buf->data + buf->len, (size_t)n + 1, fmt, ap);
	buf->len += (size_t)n;
	return 0;
}

int wg_buf_printf(struct wg_buf *buf, const char *fmt, ...)
{
	va_list ap;
	int err;
	va_start(ap, fmt);
	err = wg_buf_vprintf(buf, fmt, ap);
	va_end(ap);
	return err;
}

void wg_buf_setlen(struct wg_buf *buf, size_t len)
{
	buf->len = len;
	if (buf->data)
		buf->data[len] = '\0';
}

void wg_buf_reset(struct wg_buf *buf) { wg_buf_setlen(buf, 0); }

void wg_buf_release(struct wg_buf *buf)
{
	wg_free(buf->data);
	buf->data = NULL;
	buf->len = buf->cap = 0;
}

const char *wg_buf_cstr(const struct wg_buf *buf)
{
	return buf->data ? (const char *)buf->data : "";
}

unsigned char *wg_buf_detach(struct wg_buf *buf, size_t *len_out)
{
	unsigned char *p;
	if (!buf->data && wg_buf_grow(buf, 0))
		return NULL;
	p = buf->data;
	if (len_out)
		*len_out = buf->len;
	buf->data = NULL;
	buf->len = buf->cap = 0;
	return p;
}
