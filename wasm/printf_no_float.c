/* The module formats with the integer-only printf of Emscripten's libc.
 *
 * musl's snprintf brings its floating-point conversions (fmt_fp and the
 * long double helpers: 4 KB of code a page downloads), and nothing in the
 * core or the exports formats a float: messages print sizes, counts,
 * offsets and names. The link wraps snprintf and vsnprintf
 * (wasm/wasm.cmake: -Wl,--wrap=...) to these, which call vsniprintf, the
 * same printf without the float conversions.
 *
 * vsniprintf would call a null function (a trap) on a float conversion, so
 * a format holding one is refused here instead (-1, EINVAL, an empty
 * string), and tests/tools/check-no-float-format.sh fails the tests when a
 * string of core/ or wasm/ holds one. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

int vsniprintf(char *restrict s, size_t n, const char *restrict fmt, va_list ap);

int __wrap_vsnprintf(char *restrict s, size_t n, const char *restrict fmt, va_list ap);
int __wrap_snprintf(char *restrict s, size_t n, const char *restrict fmt, ...);

/* Whether FMT has a %f, %e, %g or %a (any case, any flags, width,
 * precision, length or argument position). */
static bool has_float_conversion(const char *fmt)
{
	for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
		p++;
		if (*p == '%') {
			p++;
			continue;
		}
		p += strspn(p, "0123456789$-+ #'*.");
		p += strspn(p, "hlLjztq");
		if (*p && strchr("fFeEgGaA", *p))
			return true;
	}
	return false;
}

int __wrap_vsnprintf(char *restrict s, size_t n, const char *restrict fmt, va_list ap)
{
	if (has_float_conversion(fmt)) {
		if (n)
			s[0] = '\0';
		errno = EINVAL;
		return -1;
	}
	return vsniprintf(s, n, fmt, ap);
}

int __wrap_snprintf(char *restrict s, size_t n, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __wrap_vsnprintf(s, n, fmt, ap);
	va_end(ap);
	return r;
}
