/* A growable byte buffer. Always NUL-terminated after `len` once it holds
 * anything, so text can be used as a C string. */
#ifndef WG_UTIL_BUF_H
#define WG_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct wg_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
};

#define WG_BUF_INIT { NULL, 0, 0 }

/* Make room for `extra` more bytes (plus the terminating NUL). */
int wg_buf_grow(struct wg_buf *buf, size_t extra);
int wg_buf_add(struct wg_buf *buf, const void *data, size_t len);
int wg_buf_adds(struct wg_buf *buf, const char *s);
int wg_buf_addch(struct wg_buf *buf, int ch);
int wg_buf_printf(struct wg_buf *buf, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
int wg_buf_vprintf(struct wg_buf *buf, const char *fmt, va_list ap);
/* Set the length (must be <= len, or <= cap after wg_buf_grow). */
void wg_buf_setlen(struct wg_buf *buf, size_t len);
/* Empty the buffer but keep its memory. */
void wg_buf_reset(struct wg_buf *buf);
/* Free the memory and return to WG_BUF_INIT. */
void wg_buf_release(struct wg_buf *buf);
/* The contents as a C string ("" for an empty buffer, never NULL). */
const char *wg_buf_cstr(const struct wg_buf *buf);
/* Take ownership of the bytes (free with wg_free); the buffer is reset.
 * Returns NULL only if allocation of an empty string fails. */
unsigned char *wg_buf_detach(struct wg_buf *buf, size_t *len_out);

#endif
