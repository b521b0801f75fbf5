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

#endif
