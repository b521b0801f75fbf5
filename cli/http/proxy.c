/* HTTP proxies for the native HTTP client (see proxy.h): the proxy URL from
 * the environment, and the CONNECT tunnel for https. */
#include "http/proxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/auth.h"
#include "http/request.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/url.h"

#define HTTP_PROXY_DEFAULT_PORT 1080

/* The first non-empty variable of `names`; *name says which. */
static const char *env_first(const char *const *names, const char **name)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v) {
			*name = *names;
			return v;
		}
	}
	return NULL;
}

/* Does the proxy URL give a port? (Its absence means 1080, not 80.) */
static bool has_port(const char *url)
{
	const char *auth = strstr(url, "://"), *end, *p;
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	for (p = end; p > auth && p[-1] != '@'; p--)
		;
	/* p..end is host[:port]; a ']' ends an IPv6 literal */
	for (; end > p && end[-1] >= '0' && end[-1] <= '9'; end--)
		;
	return end > p && end[-1] == ':' && (end - 1 == p || end[-2] == ']' ||
					     !memchr(p, ':', (size_t)(end - 1 - p)));
}

int http_proxy_from_env(struct http_proxy *px, const struct http_url *origin)
{
	static const char *const for_https[] = { "https_proxy", "HTTPS_PROXY", "all_proxy",
						 "ALL_PROXY", NULL };
	static const char *const for_http[] = { "http_proxy", "HTTP_PROXY", "all_proxy",
						"ALL_PROXY", NULL };
	static const char *const for_http_cgi[] = { "http_proxy", "all_proxy", "ALL_PROXY", NULL };
	static const char *const no_proxy[] = { "no_proxy", "NO_PROXY", NULL };
	const char *var = NULL, *nvar, *value, *exempt;
	struct wg_buf url = WG_BUF_INIT;
	int err;

	memset(px, 0, sizeof(*px));
	value = env_first(origin->https ? for_https : getenv("REQUEST_METHOD") ? for_http_cgi
				       : for_http, &var);
	if (!value)
		return 0;
	exempt = env_first(no_proxy, &nvar);
	if (exempt && http_no_proxy_match(exempt, origin->host, origin->port))
		return 0;
	px->var = var;
	/* "host:port" is an http:// proxy */
	if (!strstr(value, "://"))
		err = wg_buf_printf(&url, "http://%s", value);
	else
		err = wg_buf_adds(&url, value);
	if (err)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (strncasecmp(wg_buf_cstr(&url), "http://", 7)) {
		size_t sl = strcspn(value, ":");
		wg_url_release_secret(&url);
		return wg_error_set(WG_EUNSUPPORTED, "the proxy in %s uses '%.*s://', which webgit "
				    "does not speak (only http:// proxies)", var,
				    (int)(sl > 20 ? 20 : sl), value);
	}
	err = http_url_parse(&px->url, wg_buf_cstr(&url));
	if (!err && !has_port(wg_buf_cstr(&url)))
		px->url.port = HTTP_PROXY_DEFAULT_PORT;
	wg_url_release_secret(&url);
	if (err)
		return wg_error_prefix("bad proxy URL in %s", var);
	if (px->url.user) {
		struct wg_buf line = WG_BUF_INIT;
		if ((err = http_basic_line(&line, "Proxy-Authorization", px->url.user,
					   px->url.pass))) {
			wg_url_release_secret(&line);
			http_proxy_release(px);
			return err;
		}
		px->auth_line = (char *)wg_buf_detach(&line, NULL);
	}
	{
		struct wg_buf shown = WG_BUF_INIT;
		if (http_url_origin(&shown, &px->url) ||
		    (px->url.port == 80 && wg_buf_adds(&shown, ":80"))) {
			wg_buf_release(&shown);
			http_proxy_release(px);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		px->shown = (char *)wg_buf_detach(&shown, NULL);
	}
	px->on = true;
	return 0;
}

void http_proxy_release(struct http_proxy *px)
{
	http_url_release(&px->url);
	wg_url_free_secret(px->auth_line);
	wg_free(px->shown);
	memset(px, 0, sizeof(*px));
}

int http_proxy_auth_error(const struct http_proxy *px, const struct http_head *h,
			  const char *what)
{
	bool any, basic = http_auth_offers(h->headers, h->nheaders, "Proxy-Authenticate", "Basic",
					   &any);
	if (px->auth_line)
		return wg_error_set(WG_EAUTH, "the proxy %s refused the credentials in %s (407 for "
				    "%s)", px->shown, px->var, what);
	return wg_error_set(WG_EAUTH, "the proxy %s requires authentication (407 for %s): put "
			    "the credentials in %s, as http://user:password@host:port/%s",
			    px->shown, what, px->var,
			    any && !basic ? " (it does not offer Basic, the only scheme webgit "
					    "speaks to proxies)" : "");
}

int http_proxy_connect(struct http_conn *c, const struct http_proxy *px,
		       const struct http_url *origin)
{
	struct wg_buf authority = WG_BUF_INIT, head = WG_BUF_INIT, what = WG_BUF_INIT;
	struct http_request none = HTTP_REQUEST_INIT;
	struct http_head_spec spec;
	struct http_parser *p = NULL;
	unsigned char buf[4096];
	bool v6 = strchr(origin->host, ':') != NULL;
	int rc;

	if (wg_buf_printf(&authority, "%s%s%s:%u", v6 ? "[" : "", origin->host, v6 ? "]" : "",
			  origin->port) ||
	    wg_buf_printf(&what, "CONNECT %s", wg_buf_cstr(&authority))) {
		rc = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	memset(&spec, 0, sizeof(spec));
	spec.method = "CONNECT";
	spec.target = wg_buf_cstr(&authority);
	spec.host = wg_buf_cstr(&authority);
	spec.req = &none;
	spec.proxy_auth_line = px->auth_line;
	spec.connect = true;
	if ((rc = http_request_head(&head, &spec)) || (rc = http_conn_write(c, head.data, head.len)) ||
	    (rc = http_parser_new(&p, HTTP_PARSE_CONNECT, px->shown, NULL)))
		goto out;
	for (;;) {
		struct http_event ev;
		const unsigned char *in = buf;
		size_t in_len;
		long n = http_conn_read(c, buf, sizeof(buf));
		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		if (n == 0) {
			rc = http_parser_eof(p, &ev);
			if (rc == 0)
				rc = wg_error_set(WG_EIO, "the proxy %s closed the connection without "
						  "answering %s", px->shown, wg_buf_cstr(&what));
			if (rc >= 0)
				rc = wg_error_set(WG_EIO, "the proxy %s closed the connection after "
						  "refusing %s", px->shown, wg_buf_cstr(&what));
			goto out;
		}
		in_len = (size_t)n;
		while ((rc = http_parser_feed(p, &in, &in_len, &ev)) == HTTP_EVENT_INTERIM)
			;
		if (rc == WG_ENEEDMORE)
			continue;
		if (rc < 0)
			goto out;
		/* The head is in: the answer is known. */
		{
			const struct http_head *h = http_parser_head(p);
			if (h->status == 407) {
				rc = http_proxy_auth_error(px, h, wg_buf_cstr(&what));
			} else if (h->status / 100 != 2) {
				rc = wg_error_set(WG_EIO, "the proxy %s refused %s: %d%s%s", px->shown,
						  wg_buf_cstr(&what), h->status, *h->reason ? " " : "",
						  h->reason);
			} else if (in_len || http_parser_feed(p, &in, &in_len, &ev) != HTTP_EVENT_END ||
				   in_len) {
				/* The server speaks first in TLS: anything here is
				 * not from it. */
				rc = wg_error_set(WG_EIO, "the proxy %s sent data after accepting %s",
						  px->shown, wg_buf_cstr(&what));
			} else {
				rc = 0;
			}
			goto out;
		}
	}
out:
	http_parser_free(p);
	wg_buf_release(&authority);
	wg_buf_release(&what);
	wg_url_release_secret(&head);
	return rc;
}
