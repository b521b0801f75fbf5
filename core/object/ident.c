#include "object/ident.h"

#include <string.h>

#include "util/date.h"
#include "util/error.h"

/* Git's own isspace(): locale independent, no \v or \f. */
static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Decimal digits to a value that saturates instead of wrapping, as
 * strtoumax() does. */
static uint64_t digits_value(const char *p, size_t n)
{
	uint64_t v = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned)(p[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return UINT64_MAX;
		v = v * 10 + d;
	}
	return v;
}

int wg_ident_parse(struct wg_ident *out, const char *value, size_t len)
{
	const char *end, *lt, *gt, *p, *date, *tz;
	size_t n;
	uint64_t hhmm;

	memset(out, 0, sizeof(*out));
	/* Git reads the value as a C string: a NUL ends it. */
	if ((p = memchr(value, '\0', len)))
		len = (size_t)(p - value);
	end = value + len;

	lt = memchr(value, '<', len);
	if (!lt)
		return wg_error_set(WG_ECORRUPT, "ident '%.*s' has no <email>",
				    (int)(len > 200 ? 200 : len), value);
	gt = memchr(lt + 1, '>', (size_t)(end - lt - 1));
	if (!gt)
		return wg_error_set(WG_ECORRUPT, "ident '%.*s' has no '>' closing the email",
				    (int)(len > 200 ? 200 : len), value);

	out->name = value;
	for (p = lt; p > value && is_space((unsigned char)p[-1]); p--)
		;
	out->name_len = (size_t)(p - value);
	out->email = lt + 1;
	out->email_len = (size_t)(gt - lt - 1);

	/* The date follows the last '>', in case a broken email holds one. */
	for (p = end - 1; *p != '>'; p--)
		;
	for (p++; p < end && is_space((unsigned char)*p); p++)
		;
	date = p;
	while (p < end && is_digit((unsigned char)*p))
		p++;
	if (p == date)
		return 0;
	n = (size_t)(p - date);
	while (p < end && is_space((unsigned char)*p))
		p++;
	if (p == end || (*p != '+' && *p != '-'))
		return 0;
	tz = p++;
	while (p < end && is_digit((unsigned char)*p))
		p++;
	if (p == tz + 1)
		return 0;

	out->has_date = true;
	out->date = date;
	out->date_len = n;
	out->timestamp = digits_value(date, n);
	out->tz = tz;
	out->tz_len = (size_t)(p - tz);
	/* The zone is HHMM read as a decimal number, as Git reads it; clamp
	 * absurd lengths so the minute count cannot overflow an int. */
	hhmm = digits_value(tz + 1, out->tz_len - 1);
	if (hhmm > 9999999)
		hhmm = 9999999;
	out->tz_offset = (int)(hhmm / 100 * 60 + hhmm % 100);
	if (*tz == '-')
		out->tz_offset = -out->tz_offset;
	return 0;
}

enum wg_ident_problem wg_ident_check(const char *value, size_t len)
{
	const char *p = value, *end, *nl, *digits;

	if ((nl = memchr(value, '\n', len)))
		len = (size_t)(nl - value);
	end = value + len;

	if (p < end && *p == '<')
		return WG_IDENT_MISSING_NAME_BEFORE_EMAIL;
	for (;; p++) {
		if (p == end)
			return WG_IDENT_MISSING_EMAIL;
		if (*p == '>')
			return WG_IDENT_BAD_NAME;
		if (*p == '<')
			break;
	}
	/* p > value here: a leading '<' was handled above. */
	if (p[-1] != ' ')
		return WG_IDENT_MISSING_SPACE_BEFORE_EMAIL;
	for (p++;; p++) {
		if (p == end || *p == '<')
			return WG_IDENT_BAD_EMAIL;
		if (*p == '>')
			break;
	}
	p++;
	if (p == end || *p != ' ')
		return WG_IDENT_MISSING_SPACE_BEFORE_DATE;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || !is_digit((unsigned char)*p))
		return WG_IDENT_BAD_DATE;
	if (*p == '0' && (p + 1 == end || p[1] != ' '))
		return WG_IDENT_ZERO_PADDED_DATE;
	digits = p;
	while (p < end && is_digit((unsigned char)*p))
		p++;
	/* Git stores time in a signed 64-bit time_t after parsing. */
	if (digits_value(digits, (size_t)(p - digits)) > (uint64_t)INT64_MAX)
		return WG_IDENT_BAD_DATE_OVERFLOW;
	if (p == end || *p != ' ')
		return WG_IDENT_BAD_DATE;
	p++;
	if (end - p != 5 || (p[0] != '+' && p[0] != '-') || !is_digit((unsigned char)p[1]) ||
	    !is_digit((unsigned char)p[2]) || !is_digit((unsigned char)p[3]) ||
	    !is_digit((unsigned char)p[4]))
		return WG_IDENT_BAD_TIMEZONE;
	return WG_IDENT_OK;
}

const char *wg_ident_problem_message(enum wg_ident_problem problem)
{
	switch (problem) {
	case WG_IDENT_OK:
		return "valid";
	case WG_IDENT_MISSING_NAME_BEFORE_EMAIL:
		return "invalid author/committer line - missing space before email";
	case WG_IDENT_MISSING_EMAIL:
		return "invalid author/committer line - missing email";
	case WG_IDENT_BAD_NAME:
		return "invalid author/committer line - bad name";
	case WG_IDENT_MISSING_SPACE_BEFORE_EMAIL:
		return "invalid author/committer line - missing space before email";
	case WG_IDENT_BAD_EMAIL:
		return "invalid author/committer line - bad email";
	case WG_IDENT_MISSING_SPACE_BEFORE_DATE:
		return "invalid author/committer line - missing space before date";
	case WG_IDENT_BAD_DATE:
		return "invalid author/committer line - bad date";
	case WG_IDENT_ZERO_PADDED_DATE:
		return "invalid author/committer line - zero-padded date";
	case WG_IDENT_BAD_DATE_OVERFLOW:
		return "invalid author/committer line - date causes integer overflow";
	case WG_IDENT_BAD_TIMEZONE:
		return "invalid author/committer line - bad time zone";
	}
	return "invalid author/committer line";
}

/* Git drops these from the ends of names and emails ("crud"). */
static bool is_crud(unsigned char c)
{
	return c <= 32 || c == '.' || c == ',' || c == ':' || c == ';' || c == '<' ||
	       c == '>' || c == '"' || c == '\\' || c == '\'';
}

static int add_without_crud(struct wg_buf *out, const char *s)
{
	size_t len = strlen(s), i;
	int err = 0;
	while (len && is_crud((unsigned char)*s))
		s++, len--;
	while (len && is_crud((unsigned char)s[len - 1]))
		len--;
	for (i = 0; i < len && !err; i++)
		if (s[i] != '\n' && s[i] != '<' && s[i] != '>')
			err = wg_buf_addch(out, s[i]);
	return err;
}

int wg_ident_format(struct wg_buf *out, const char *name, const char *email, const char *date)
{
	char tz[6];
	int64_t when;
	int tzmin, err;
	if (date && *date) {
		if ((err = wg_date_parse(date, &when, &tzmin)))
			return err;
	} else {
		wg_date_now(&when, &tzmin);
	}
	wg_date_format_tz(tz, tzmin);
	if ((err = add_without_crud(out, name)) || (err = wg_buf_adds(out, " <")) ||
	    (err = add_without_crud(out, email)))
		return err;
	return wg_buf_printf(out, "> %lld %s", (long long)when, tz);
}
