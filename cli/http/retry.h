/* When to ask again: the Retry-After field of a 429 (Too Many Requests) or
 * 503 (Service Unavailable) response, RFC 9110 section 10.2.3. git 2.53
 * gives up on both; rate-limited hosts (forges, CDNs, object stores) say
 * how long to wait, and a client that waits that long, a bounded number of
 * times, gets through where git fails. */
#ifndef WG_HTTP_RETRY_H
#define WG_HTTP_RETRY_H

#include <stdbool.h>
#include <time.h>

/* At most this many retries of one request, and never a wait longer than
 * this: a server that asks for more is answered with its error at once. */
#define HTTP_MAX_RETRIES 3
#define HTTP_MAX_RETRY_WAIT_MS 60000L

/* Whether a response with this status is worth asking again after a wait. */
bool http_status_retryable(int status);

/* The wait the field asks for, in milliseconds from `now`: delay-seconds
 * ("120") or an HTTP-date in any of the three forms recipients must accept
 * (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 "Sunday,
 * 06-Nov-94 08:49:37 GMT", asctime "Sun Nov  6 08:49:37 1994"). A date in
 * the past is a wait of 0. Returns false for a missing or malformed value
 * (no retry: the server did not say when). */
bool http_retry_after_ms(const char *value, time_t now, long *ms);

#endif
