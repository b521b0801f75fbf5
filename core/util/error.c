#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/url.h"


/* Per-thread, so concurrent callers never see each other's messages. This is
 * diagnostic state only, never repository state. */
static _Thread_local struct {
	int code;
	char msg[WG_ERROR_MESSAGE_MAX];
} last_error;

int wg_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error.msg, sizeof(last_error.msg), fmt, ap);
	va_end(ap);
	last_error.code = code;
	return code;
}

int wg_error_prefix(const char *fmt, ...)
{
	char old[WG_ERROR_MESSAGE_MAX];
	size_t n;
	va_list ap;
	memcpy(old, last_error.msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(last_error.msg, sizeof(last_error.msg), fmt, ap);
	va_end(ap);
	n = strlen(last_error.msg);
	if (n + 2 < sizeof(last_error.msg)) {
		memcpy(last_error.msg + n, ": ", 3);
		n += 2;
		/* Truncation of a very long message is fine: it is diagnostic. */
		size_t room = sizeof(last_error.msg) - n - 1, oldlen = strlen(old);
		if (oldlen > room)
			oldlen = room;
		memcpy(last_error.msg + n, old, oldlen);
		last_error.msg[n + oldlen] = '\0';
	}
	return last_error.code;
}

void wg_error_mask(const char *secret)
{
	wg_str_mask(last_error.msg, secret);
}

const char *wg_error_message(void) { return last_error.msg; }
int wg_error_code(void) { return last_error.code; }

void wg_error_clear(void)
{
	last_error.code = WG_OK;
	last_error.msg[0] = '\0';
}

const char *wg_error_name(int code)
{
	switch (code) {
	case WG_OK: return "OK";
	case WG_ERROR: return "ERROR";
	case WG_ENOMEM: return "ENOMEM";
	case WG_ENOTFOUND: return "ENOTFOUND";
	case WG_EEXISTS: return "EEXISTS";
	case WG_EINVALID: return "EINVALID";
	case WG_ECORRUPT: return "ECORRUPT";
	case WG_EIO: return "EIO";
	case WG_ECOLLISION: return "ECOLLISION";
	case WG_EAMBIGUOUS: return "EAMBIGUOUS";
	case WG_EUNSUPPORTED: return "EUNSUPPORTED";
	case WG_ELOCKED: return "ELOCKED";
	case WG_EFSCK: return "EFSCK";
	case WG_ENEEDMORE: return "ENEEDMORE";
	case WG_ITEROVER: return "ITEROVER";
	case WG_EAUTH: return "EAUTH";
	case WG_ELIMIT: return "ELIMIT";
	default: return "EUNKNOWN";
	}
}

void wg_error_save(struct wg_error_saved *out)
{
	out->code = last_error.code;
	memcpy(out->message, last_error.msg, sizeof(out->message));
}

void wg_error_restore(const struct wg_error_saved *saved)
{
	last_error.code = saved->code;
	memcpy(last_error.msg, saved->message, sizeof(last_error.msg));
}
