/* URLs of the native HTTP client (cli/http/url.c). */
#ifndef WG_CLI_HTTP_URL_H
#define WG_CLI_HTTP_URL_H

#include <stdbool.h>

#include "util/buf.h"

struct http_url {
	bool https;
	char *host;       /* without IPv6 brackets */
	unsigned port;
	char *path;       /* path and query, always starting with '/' */
	char *user;       /* percent-decoded, NULL if absent */
	char *pass;       /* percent-decoded, NULL if absent */
};

/* Parse an absolute http(s) URL; the fragment is dropped, "." and ".."
 * segments are removed. WG_EINVALID, WG_EUNSUPPORTED (another scheme). */
int http_url_parse(struct http_url *u, const char *s);
/* Resolve a reference (a Location header, a request URL) against `base`,
 * RFC 3986 section 5.2. User information is never carried over. */
int http_url_resolve(struct http_url *out, const struct http_url *base, const char *ref);
/* Free the parts (the credentials wiped first); the struct is zeroed. */
void http_url_release(struct http_url *u);

unsigned http_default_port(bool https);
bool http_url_same_origin(const struct http_url *a, const struct http_url *b);
/* "scheme://host[:port]" (the port only when not the default), appended. */
int http_url_origin(struct wg_buf *out, const struct http_url *u);
/* The URL without user information (the only form that goes into
 * messages); NULL when out of memory. */
char *http_url_display(const struct http_url *u);

#endif
