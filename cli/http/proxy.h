/* HTTP proxies for the native HTTP client.
 *
 * Which proxy, from the environment as curl (and so git) reads it:
 *   http:// URLs    http_proxy, then HTTP_PROXY (ignored when REQUEST_METHOD
 *                   is set: in a CGI program HTTP_PROXY comes from the
 *                   request's "Proxy:" header, "httpoxy"; curl never reads
 *                   it), then all_proxy / ALL_PROXY
 *   https:// URLs   https_proxy, HTTPS_PROXY, then all_proxy / ALL_PROXY
 *   no_proxy / NO_PROXY: hosts that are reached directly (noproxy.c)
 * A proxy URL is "[http://][user:password@]host[:port]" (port 1080 when
 * left out, as curl has it); its credentials go to the proxy as
 * "Proxy-Authorization: Basic", never to the server.
 *
 * How: a plain-HTTP request goes to the proxy with the absolute URL as its
 * target; an https connection is a "CONNECT host:port" tunnel through the
 * proxy, with TLS to the server inside it (the proxy sees neither the
 * requests nor the credentials for the server). */
#ifndef WG_CLI_HTTP_PROXY_H
#define WG_CLI_HTTP_PROXY_H

#include <stdbool.h>

#include "http/conn.h"
#include "http/response.h"
#include "http/url.h"

struct http_proxy {
	bool on;
	struct http_url url;     /* host and port of the proxy */
	char *auth_line;         /* "Proxy-Authorization: Basic ...\r\n" or NULL */
	char *shown;             /* "http://host:port", for messages */
	const char *var;         /* the environment variable it came from */
};

/* The proxy for `origin` from the environment; px->on is false for none
 * (no variable set, or no_proxy exempts the host). WG_EINVALID or
 * WG_EUNSUPPORTED for a proxy URL that cannot be used. */
int http_proxy_from_env(struct http_proxy *px, const struct http_url *origin);
void http_proxy_release(struct http_proxy *px);

/* Does the no_proxy list exempt host (with or without IPv6 brackets) on
 * this port? */
bool http_no_proxy_match(const char *list, const char *host, unsigned port);

/* Ask the proxy, over the freshly opened connection `c`, for a tunnel to
 * the origin. 0 once the proxy said 2xx; WG_EAUTH for 407, WG_EIO for
 * another refusal or a broken answer. */
int http_proxy_connect(struct http_conn *c, const struct http_proxy *px,
		       const struct http_url *origin);

/* The error for a 407 from the proxy to `what` (a URL or "CONNECT ..."). */
int http_proxy_auth_error(const struct http_proxy *px, const struct http_head *h,
			  const char *what);

#endif
