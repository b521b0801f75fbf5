/* Retry-After (see retry.h). Parsed by hand: strptime and timegm are not
 * in C11, and the three date forms are fixed-width enough. */
#include "http/retry.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

bool http_status_retryable(int status)
{
	return status == 429 || status == 503;
}

static const char *const months[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

/* n digits (exactly) at *p, advancing it. */
static bool digits(const char **p, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return true;
}

static bool lit(const char **p, const char *s)
{
	size_t n = strlen(s);
	if (strncmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

static bool month(const char **p, int *out)
{
	for (int i = 0; i < 12; i++)
		if (!strncmp(*p, months[i], 3)) {
			*p += 3;
			*out = i + 1;
			return true;
		}
	return false;
}

/* "HH:MM:SS" */
static bool clock_time(const char **p, int *h, int *m, int *s)
{
	return digits(p, 2, h) && lit(p, ":") && digits(p, 2, m) && lit(p, ":") &&
	       digits(p, 2, s) && *h < 24 && *m < 60 && *s < 61;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * civil-from-days inverse, in integer arithmetic). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Skip "Sun, " / "Sunday, " / "Sun ": a day name is letters only. */
static const char *skip_day_name(const char *p, char sep)
{
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
		p++;
	return *p == sep ? p + 1 : NULL;
}

static bool http_date(const char *v, int64_t *out)
{
	const char *p;
	int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;

	if ((p = skip_day_name(v, ',')) && *p == ' ') {
		p++;
		if (p[2] == ' ') {
			/* IMF-fixdate: "06 Nov 1994 08:49:37 GMT" */
			if (!digits(&p, 2, &d) || !lit(&p, " ") || !month(&p, &mo) ||
			    !lit(&p, " ") || !digits(&p, 4, &y) || !lit(&p, " ") ||
			    !clock_time(&p, &h, &mi, &s) || !lit(&p, " GMT"))
				return false;
		} else {
			/* RFC 850: "06-Nov-94 08:49:37 GMT", a two-digit year
			 * within 50 years of now read as the past century's
			 * when it would be far in the future (RFC 9110) */
			if (!digits(&p, 2, &d) || !lit(&p, "-") || !month(&p, &mo) ||
			    !lit(&p, "-") || !digits(&p, 2, &y) || !lit(&p, " ") ||
			    !clock_time(&p, &h, &mi, &s) || !lit(&p, " GMT"))
				return false;
			y += y < 70 ? 2000 : 1900;
		}
	} else if ((p = skip_day_name(v, ' '))) {
		/* asctime: "Nov  6 08:49:37 1994" */
		if (!month(&p, &mo) || !lit(&p, " "))
			return false;
		if (*p == ' ')
			p++, d = 0;
		if (*p >= '0' && *p <= '9' && p[1] == ' ')
			d = *p - '0', p++;
		else if (!digits(&p, 2, &d))
			return false;
		if (!lit(&p, " ") || !clock_time(&p, &h, &mi, &s) || !lit(&p, " ") ||
		    !digits(&p, 4, &y))
			return false;
	} else {
		return false;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p || d < 1 || d > 31)
		return false;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
	return true;
}

bool http_retry_after_ms(const char *value, time_t now, long *ms)
{
	const char *p = value;
	int64_t when, secs = 0;

	if (!p)
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p >= '0' && *p <= '9') {
		for (; *p >= '0' && *p <= '9'; p++)
			if ((secs = secs * 10 + (*p - '0')) > HTTP_MAX_RETRY_WAIT_MS)
				secs = HTTP_MAX_RETRY_WAIT_MS;  /* saturate: too long anyway */
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p)
			return false;
		*ms = (long)secs * 1000;
		return true;
	}
	if (!http_date(p, &when))
		return false;
	secs = when - (int64_t)now;
	if (secs < 0)
		secs = 0;
	if (secs > HTTP_MAX_RETRY_WAIT_MS)
		secs = HTTP_MAX_RETRY_WAIT_MS;
	*ms = (long)secs * 1000;
	return true;
}
