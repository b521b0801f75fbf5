#include "util/date.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), no timezone. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int local_offset(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm lt;
	if (!localtime_r(&tt, &lt))
		return 0;
	return (int)(lt.tm_gmtoff / 60);
}

/* Parse "+hhmm", "-hh:mm", "+hh" or "Z" at *p; returns 0 if found. */
static int parse_zone(const char **p, int *tz)
{
	const char *s = *p;
	int sign, h, m = 0;
	while (*s == ' ')
		s++;
	if (*s == 'Z' || *s == 'z') {
		*tz = 0;
		*p = s + 1;
		return 0;
	}
	if (!strncmp(s, "UTC", 3) || !strncmp(s, "GMT", 3)) {
		*tz = 0;
		*p = s + 3;
		return 0;
	}
	if (*s != '+' && *s != '-')
		return -1;
	sign = *s++ == '-' ? -1 : 1;
	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
		return -1;
	h = (s[0] - '0') * 10 + (s[1] - '0');
	s += 2;
	if (*s == ':')
		s++;
	if (isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1])) {
		m = (s[0] - '0') * 10 + (s[1] - '0');
		s += 2;
	}
	if (h > 14 || m > 59)
		return -1;
	*tz = sign * (h * 60 + m);
	*p = s;
	return 0;
}

static int at_end(const char *p)
{
	while (*p == ' ')
		p++;
	return *p == '\0';
}

static int parse_raw(const char *s, int64_t *ts, int *tz)
{
	char *end;
	long long v;
	if (*s == '@')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtoll(s, &end, 10);
	s = end;
	*tz = 0;
	if (*s == ' ' && parse_zone(&s, tz))
		return -1;
	if (!at_end(s))
		return -1;
	*ts = v;
	return 0;
}

static int finish(int64_t y, int mon, int d, int h, int mi, int sec, const char *rest,
		  int64_t *ts, int *tz)
{
	int64_t local;
	if (mon < 1 || mon > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    sec < 0 || sec > 60)
		return -1;
	local = days_from_civil(y, (unsigned)mon, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec;
	if (at_end(rest)) {
		*tz = local_offset(local);
		*ts = local - (int64_t)*tz * 60;
		return 0;
	}
	if (parse_zone(&rest, tz) || !at_end(rest))
		return -1;
	*ts = local - (int64_t)*tz * 60;
	return 0;
}

/* The date forms' numbers, read by hand rather than with sscanf (whose
 * number and float scanning is 12 KB of the WebAssembly module): spaces,
 * then 1 to `width` digits (no sign), at most 9 so that no field can
 * overflow. Returns -1 when there is no digit there. */
static int scan_int(const char **s, int width, int *out)
{
	const char *p = *s;
	int v = 0, n = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (width <= 0 || width > 9)
		width = 9;
	for (; n < width && isdigit((unsigned char)p[n]); n++)
		v = v * 10 + (p[n] - '0');
	if (!n)
		return -1;
	*out = v;
	*s = p + n;
	return 0;
}

/* scan_int, then the character `sep` (none when 0) */
static int scan_field(const char **s, int width, int *out, char sep)
{
	if (scan_int(s, width, out))
		return -1;
	if (sep && *(*s)++ != sep)
		return -1;
	return 0;
}

static int parse_iso(const char *s, int64_t *ts, int *tz)
{
	int y, mon, d, h, mi, sec;
	if (scan_field(&s, 4, &y, '-') || scan_field(&s, 2, &mon, '-') || scan_field(&s, 2, &d, 0))
		return -1;
	if (*s != 'T' && *s != ' ')
		return -1;
	s++;
	if (scan_field(&s, 2, &h, ':') || scan_field(&s, 2, &mi, ':') || scan_field(&s, 2, &sec, 0))
		return -1;
	if (*s == '.')  /* fractional seconds are dropped, as git does */
		while (isdigit((unsigned char)*++s))
			;
	return finish(y, mon, d, h, mi, sec, s, ts, tz);
}

static int parse_rfc2822(const char *s, int64_t *ts, int *tz)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int d, y, h, mi, sec, mon;
	const char *comma = strchr(s, ',');
	if (comma)
		s = comma + 1;
	if (scan_int(&s, 0, &d) || *s != ' ')
		return -1;
	while (*s == ' ')
		s++;
	for (mon = 0; mon < 12; mon++)
		if (!strncmp(s, months + 3 * mon, 3))
			break;
	/* the month's name is a word of its own: "Novembre" is not Nov */
	if (mon == 12 || (s[3] != ' ' && s[3] != '\t'))
		return -1;
	s += 3;
	if (scan_int(&s, 0, &y) || scan_field(&s, 0, &h, ':') || scan_field(&s, 0, &mi, ':') ||
	    scan_int(&s, 0, &sec))
		return -1;
	return finish(y, mon + 1, d, h, mi, sec, s, ts, tz);
}

int wg_date_parse(const char *text, int64_t *timestamp, int *tz_minutes)
{
	while (*text == ' ')
		text++;
	if (!parse_raw(text, timestamp, tz_minutes) || !parse_iso(text, timestamp, tz_minutes) ||
	    !parse_rfc2822(text, timestamp, tz_minutes))
		return 0;
	return wg_error_set(WG_EINVALID, "invalid date format: %s", text);
}

void wg_date_now(int64_t *timestamp, int *tz_minutes)
{
	*timestamp = (int64_t)time(NULL);
	*tz_minutes = local_offset(*timestamp);
}

void wg_date_format_tz(char out[6], int tz_minutes)
{
	int a = tz_minutes < 0 ? -tz_minutes : tz_minutes;
	snprintf(out, 6, "%c%02d%02d", tz_minutes < 0 ? '-' : '+', (a / 60) % 100, a % 60);
}

int wg_date_format_normal(struct wg_buf *out, int64_t timestamp, int tz_minutes)
{
	static const char *const wd[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mo[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
					  "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)(timestamp + (int64_t)tz_minutes * 60);
	struct tm tm;
	int tz = tz_minutes / 60 * 100 + tz_minutes % 60;
	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	return wg_buf_printf(out, "%s %s %d %02d:%02d:%02d %d %+05d", wd[tm.tm_wday],
			     mo[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			     tm.tm_year + 1900, tz);
}

int wg_date_mode_parse(const char *name, enum wg_date_mode *out)
{
	static const struct {
		const char *name;
		enum wg_date_mode mode;
	} modes[] = {
		{ "default", WG_DATE_NORMAL }, { "iso", WG_DATE_ISO },
		{ "iso8601", WG_DATE_ISO },    { "iso-strict", WG_DATE_ISO_STRICT },
		{ "iso8601-strict", WG_DATE_ISO_STRICT }, { "rfc", WG_DATE_RFC2822 },
		{ "rfc2822", WG_DATE_RFC2822 }, { "short", WG_DATE_SHORT },
		{ "raw", WG_DATE_RAW },         { "unix", WG_DATE_UNIX },
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(name, modes[i].name)) {
			*out = modes[i].mode;
			return 0;
		}
	return wg_error_set(WG_EINVALID, "unknown date format %s", name);
}

int wg_date_format(struct wg_buf *out, enum wg_date_mode mode, int64_t timestamp,
		   int tz_minutes)
{
	static const char *const wd[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mo[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
					  "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)(timestamp + (int64_t)tz_minutes * 60);
	int a = tz_minutes < 0 ? -tz_minutes : tz_minutes;
	char sign = tz_minutes < 0 ? '-' : '+';
	struct tm tm;

	switch (mode) {
	case WG_DATE_NORMAL:
		return wg_date_format_normal(out, timestamp, tz_minutes);
	case WG_DATE_RAW:
		return wg_buf_printf(out, "%lld %c%02d%02d", (long long)timestamp, sign, a / 60,
				     a % 60);
	case WG_DATE_UNIX:
		return wg_buf_printf(out, "%lld", (long long)timestamp);
	default:
		break;
	}
	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	switch (mode) {
	case WG_DATE_ISO:
		return wg_buf_printf(out, "%04d-%02d-%02d %02d:%02d:%02d %c%02d%02d",
				     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
				     tm.tm_min, tm.tm_sec, sign, a / 60, a % 60);
	case WG_DATE_ISO_STRICT:
		wg_buf_printf(out, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
			      tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (!tz_minutes)
			return wg_buf_addch(out, 'Z');
		return wg_buf_printf(out, "%c%02d:%02d", sign, a / 60, a % 60);
	case WG_DATE_RFC2822:
		return wg_buf_printf(out, "%s, %d %s %d %02d:%02d:%02d %c%02d%02d",
				     wd[tm.tm_wday], tm.tm_mday, mo[tm.tm_mon], tm.tm_year + 1900,
				     tm.tm_hour, tm.tm_min, tm.tm_sec, sign, a / 60, a % 60);
	case WG_DATE_SHORT:
		return wg_buf_printf(out, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1,
				     tm.tm_mday);
	default:
		return wg_date_format_normal(out, timestamp, tz_minutes);
	}
}
