#include "util/quote.h"

#include "util/error.h"

int wg_quote_c_style(struct wg_buf *out, const char *s, size_t len)
{
	size_t i;
	int err, needs = 0;
	for (i = 0; i < len && !needs; i++) {
		unsigned char c = (unsigned char)s[i];
		needs = c < 0x20 || c == '"' || c == '\\' || c >= 0x7f;
	}
	if (!needs)
		return wg_buf_add(out, s, len);
	if ((err = wg_buf_addch(out, '"')))
		return err;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		switch (c) {
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case '\t': esc = "\\t"; break;
		case '\n': esc = "\\n"; break;
		case '\v': esc = "\\v"; break;
		case '\f': esc = "\\f"; break;
		case '\r': esc = "\\r"; break;
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		default: break;
		}
		if (esc)
			err = wg_buf_adds(out, esc);
		else if (c < 0x20 || c >= 0x7f)
			err = wg_buf_printf(out, "\\%03o", c);
		else
			err = wg_buf_addch(out, c);
		if (err)
			return err;
	}
	return wg_buf_addch(out, '"');
}

int wg_unquote_c_style(struct wg_buf *out, const char *s, size_t len)
{
	size_t i;
	int err = 0;
	if (len < 2 || s[0] != '"' || s[len - 1] != '"')
		return wg_error_set(WG_EINVALID, "'%.*s' is not a quoted name", (int)len, s);
	for (i = 1; i < len - 1 && !err; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"')
			return wg_error_set(WG_EINVALID, "unescaped '\"' in quoted name");
		if (c != '\\') {
			err = wg_buf_addch(out, c);
			continue;
		}
		if (++i >= len - 1)
			return wg_error_set(WG_EINVALID, "quoted name ends with a backslash");
		switch (s[i]) {
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 't': c = '\t'; break;
		case 'n': c = '\n'; break;
		case 'v': c = '\v'; break;
		case 'f': c = '\f'; break;
		case 'r': c = '\r'; break;
		case '"': c = '"'; break;
		case '\\': c = '\\'; break;
		default:
			if (s[i] < '0' || s[i] > '3' || i + 2 >= len - 1 || s[i + 1] < '0' ||
			    s[i + 1] > '7' || s[i + 2] < '0' || s[i + 2] > '7')
				return wg_error_set(WG_EINVALID, "bad escape in quoted name");
			c = (unsigned char)((s[i] - '0') << 6 | (s[i + 1] - '0') << 3 | (s[i + 2] - '0'));
			i += 2;
		}
		err = wg_buf_addch(out, c);
	}
	return err;
}
