/* URLs and the secrets in them.
 *
 * A URL may carry credentials as its user information
 * ("https://user:password@host/repo.git"). They are for the request only:
 * everything webgit stores (remote.<name>.url, reflog messages, FETCH_HEAD)
 * and everything it says (error messages, progress) uses the URL without
 * them, as git's transport_anonymize_url() makes it. wg_url_redact() is the
 * one place that cuts them out; the remote operations turn them into an
 * "Authorization: Basic" header (wg_url_basic_auth()). */
#ifndef WG_UTIL_URL_H
#define WG_UTIL_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Where the user information of `url` is: *start and *len cover
 * "user:password" (without the '@'). False when there is none, or when
 * `url` is not "<scheme>://<authority>..." (the authority ends at the
 * first '/', '?', '#' or '\\'; the user information at its last '@'). */
bool wg_url_userinfo(const char *url, size_t *start, size_t *len);

/* Whether two "<scheme>://<authority>..." URLs are on the same origin:
 * scheme, host and port alike (case aside, a missing port being the
 * scheme's default for http and https), user information ignored. False
 * when either is not of that form. */
bool wg_url_same_origin(const char *a, const char *b);

/* Append `url` without its user information (and without the '@') to
 * `out`; anything else is appended as it is. 0 or WG_ENOMEM. */
int wg_url_redact(struct wg_buf *out, const char *url);
/* The same as a new string (free with wg_free), NULL if out of memory. */
char *wg_url_redact_dup(const char *url);

/* The user information of `url`, percent-decoded, as the header line
 * "Authorization: Basic <base64(user:password)>" in `out` (replacing what
 * was there); `out` is left empty when the URL has none. The decoded
 * password (possibly "") goes to *password when that is not NULL (free
 * with wg_url_free_secret). WG_EINVALID for bad percent-encoding (the
 * message does not repeat it), WG_ENOMEM. */
int wg_url_basic_auth(struct wg_buf *out, const char *url, char **password);

/* Overwrite, then free, a string that held a secret; NULL is a no-op. */
void wg_url_free_secret(char *s);
/* The same for a buffer: zeroed, then released. */
void wg_url_release_secret(struct wg_buf *b);

/* Replace every occurrence of `secret` in the NUL-terminated `s` with
 * "***", in place (the result is never longer). A NULL or empty secret
 * changes nothing. Returns the number of occurrences replaced. */
size_t wg_str_mask(char *s, const char *secret);

#endif
