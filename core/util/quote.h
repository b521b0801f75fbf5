/* Git's C-style quoting of path names (core.quotePath on, the default):
 * a name with control characters, '"', '\\' or bytes >= 0x7f is written in
 * double quotes with C escapes and octal for the rest. */
#ifndef WG_UTIL_QUOTE_H
#define WG_UTIL_QUOTE_H

#include <stddef.h>

#include "util/buf.h"

/* Append the name, quoted if it needs to be. */
int wg_quote_c_style(struct wg_buf *out, const char *s, size_t len);
/* Append the unquoted form of a quoted name (which must start with '"'
 * and end with the matching '"'). WG_EINVALID for a malformed quote. */
int wg_unquote_c_style(struct wg_buf *out, const char *s, size_t len);

#endif
