/* Dates as Git reads them from GIT_AUTHOR_DATE / GIT_COMMITTER_DATE and
 * writes them into idents: seconds since the epoch plus a UTC offset. */
#ifndef WG_UTIL_DATE_H
#define WG_UTIL_DATE_H

#include <stdint.h>

#include "util/buf.h"

/* Accepted forms (the ones scripts and tests use):
 *   "@1700000000 +0100", "1700000000 +0100"   Git's internal format
 *   "2005-04-07T22:13:13+0200", "2005-04-07 22:13:13 +02:00", "...Z"  ISO 8601
 *   "Thu, 07 Apr 2005 22:13:13 +0200"          RFC 2822
 * A missing zone means UTC for the raw form and local time otherwise.
 * tz_minutes is minutes east of UTC. WG_EINVALID for anything else. */
int wg_date_parse(const char *text, int64_t *timestamp, int *tz_minutes);

/* The current time and the local zone's offset. */
void wg_date_now(int64_t *timestamp, int *tz_minutes);

/* Format a zone offset as Git writes it: "+0100", "-0530". */
void wg_date_format_tz(char out[6], int tz_minutes);

/* Append git's DATE_NORMAL form, in the given zone:
 * "Thu Apr 7 15:13:13 2005 -0700" (git log, git show, commit summaries). */
int wg_date_format_normal(struct wg_buf *out, int64_t timestamp, int tz_minutes);

/* The --date=<mode> forms git prints that do not depend on the reader's
 * clock or zone (relative, human and local are not here). */
enum wg_date_mode {
	WG_DATE_NORMAL,       /* Thu Apr 7 15:13:13 2005 -0700 */
	WG_DATE_ISO,          /* 2005-04-07 15:13:13 -0700 */
	WG_DATE_ISO_STRICT,   /* 2005-04-07T15:13:13-07:00 ('Z' for UTC) */
	WG_DATE_RFC2822,      /* Thu, 7 Apr 2005 15:13:13 -0700 */
	WG_DATE_SHORT,        /* 2005-04-07 */
	WG_DATE_RAW,          /* 1112911993 -0700 */
	WG_DATE_UNIX,         /* 1112911993 */
};
/* git's names for the modes ("default", "iso8601", "rfc", ...); 0 or
 * WG_EINVALID. */
int wg_date_mode_parse(const char *name, enum wg_date_mode *out);
int wg_date_format(struct wg_buf *out, enum wg_date_mode mode, int64_t timestamp,
		   int tz_minutes);

#endif
