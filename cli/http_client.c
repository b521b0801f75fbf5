/* A blocking HTTP/1.1 client over sockets and BearSSL (see http_client.h):
 * the client loop. Its parts live in cli/http/, one concern each:
 *
 *   url.c       URLs: parse, resolve references, the forms for messages
 *   conn.c      the socket, every wait bounded by the timeout
 *   tls.c       BearSSL: trust anchors, handshake, certificate errors
 *   response.c  the sans-IO response parser; head.c: status line, fields
 *   request.c   checking a request and writing its head, sans-IO
 *   gzip.c      gzip of request bodies, gunzip of responses
 *   auth.c      credentials, the Authorization header, 401 challenges,
 *               the caller's credential source
 *   upload.c    request bodies on the wire: in memory, or streamed as chunks
 *   proxy.c     http_proxy & co., CONNECT tunnels; noproxy.c: no_proxy
 *   retry.c     Retry-After on 429 and 503
 *
 * This file moves bytes between them: it opens the connection (through a
 * proxy when the environment names one), writes requests, feeds what
 * arrives to the parser and hands the body out, follows same-origin
 * redirects (and, when the request allows it, redirects to another origin,
 * which the client then moves to), answers one authentication challenge,
 * asks again when a rate-limited server says when (Retry-After), keeps the
 * connection alive and retries once on a kept-alive connection the server
 * had closed. */
#include "http_client.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/auth.h"
#include "http/conn.h"
#include "http/gzip.h"
#include "http/proxy.h"
#include "http/request.h"
#include "http/response.h"
#include "http/retry.h"
#include "http/tls.h"
#include "http/upload.h"
#include "http/url.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/url.h"

#define HTTP_DEFAULT_TIMEOUT_MS 60000L
#define HTTP_MAX_REDIRECTS 5
/* A redirect or 401 body is read and dropped so the connection can be
 * reused; past this much it is cheaper to reconnect. */
#define HTTP_MAX_DRAIN (256 * 1024)
#define HTTP_RBUF_SIZE 16384

struct http_client {
	struct http_url base;
	char *base_display;
	struct http_auth auth;
	struct http_proxy proxy;
	struct http_trust trust;
	struct http_conn conn;
	unsigned conn_requests;  /* requests written on this connection */

	unsigned char rbuf[HTTP_RBUF_SIZE];
	size_t rpos, rlen;
	uint64_t resp_bytes;     /* bytes received for the current request */

	struct http_parser *parser;
	char *cur_url;           /* the URL being answered, for the parser's messages */
	/* The response whose body is (or was) being read. */
	struct http_response resp;
	bool body_pending;
	/* The request being sent left its origin (a redirect): the caller's
	 * Authorization header was for the old one and is not sent. */
	bool moved_origin;
	bool keep_alive;
	bool gzip;

	struct wg_buf gz_body;   /* the compressed in-memory request body */
	struct http_client_stats stats;
};

/* --- the connection ------------------------------------------------------------------ */

static void conn_close(struct http_client *c)
{
	http_conn_close(&c->conn);
	c->conn_requests = 0;
	c->rpos = c->rlen = 0;
	c->body_pending = false;
}

/* Connect to the server, or to the proxy (and through it, for https, with
 * a CONNECT tunnel), then TLS for https. */
static int conn_open(struct http_client *c)
{
	int rc;
	conn_close(c);
	if (c->proxy.on)
		rc = http_conn_connect(&c->conn, c->proxy.url.host, c->proxy.url.port, "proxy ");
	else
		rc = http_conn_connect(&c->conn, c->base.host, c->base.port, "");
	if (rc)
		return rc;
	c->stats.connects++;
	if (!c->base.https)
		return 0;
	if (c->proxy.on && (rc = http_proxy_connect(&c->conn, &c->proxy, &c->base))) {
		conn_close(c);
		return rc;
	}
	return http_conn_start_tls(&c->conn, &c->trust, c->base.host);
}

/* Can the open connection carry another request? It must have ended its
 * last response cleanly, and the server must not have closed it (or sent
 * anything unasked) while it sat idle. */
static bool conn_reusable(struct http_client *c)
{
	return c->rpos == c->rlen && http_conn_usable(&c->conn);
}

/* The next event of the response: the parser fed from the read buffer,
 * refilled from the connection as needed. 0 when the connection ended
 * before any byte of a response. */
static int next_event(struct http_client *c, struct http_event *ev)
{
	for (;;) {
		const unsigned char *in = c->rbuf + c->rpos;
		size_t len = c->rlen - c->rpos;
		long n;
		/* Feed first, even nothing: the end of a message needs no more
		 * bytes, and reading for it would wait on an idle connection. */
		int rc = http_parser_feed(c->parser, &in, &len, ev);
		c->rpos = (size_t)(in - c->rbuf);
		if (rc != WG_ENEEDMORE)
			return rc;
		n = http_conn_read(&c->conn, c->rbuf, sizeof(c->rbuf));
		if (n < 0)
			return (int)n;
		if (n == 0)
			return http_parser_eof(c->parser, ev);
		c->rpos = 0;
		c->rlen = (size_t)n;
		c->resp_bytes += (uint64_t)n;
	}
}

/* Read the final (non-1xx) response's head into c->resp. Returns 1 if the
 * connection ended before the first byte. */
static int read_head(struct http_client *c, const char *method)
{
	struct http_event ev;
	struct http_head h;
	int rc;

	http_parser_reset(c->parser, strcmp(method, "HEAD") ? 0 : HTTP_PARSE_HEAD, c->cur_url);
	do
		rc = next_event(c, &ev);
	while (rc == HTTP_EVENT_INTERIM);
	if (rc == 0)
		return 1;
	if (rc < 0)
		return rc;
	http_parser_take_head(c->parser, &h);
	wg_free(c->resp.reason);
	for (size_t i = 0; i < c->resp.nheaders; i++) {
		wg_free(c->resp.headers[i].name);
		wg_free(c->resp.headers[i].value);
	}
	wg_free(c->resp.headers);
	c->resp.status = h.status;
	c->resp.version = h.version;
	c->resp.reason = h.reason;
	c->resp.headers = h.headers;
	c->resp.nheaders = h.nheaders;
	c->keep_alive = http_parser_keep_alive(c->parser);
	c->gzip = false;
	if (strcmp(method, "HEAD") && h.status != 204 && h.status != 304)
		return http_content_gzip(&h, c->cur_url, &c->gzip);
	return 0;
}

/* Body bytes, still encoded (gzip), go to a sink. */
typedef int (*raw_sink)(void *ctx, const void *data, size_t len);

static int read_raw_body(struct http_client *c, raw_sink sink, void *ctx)
{
	for (;;) {
		struct http_event ev;
		int rc = next_event(c, &ev);
		if (rc == HTTP_EVENT_END)
			return 0;
		if (rc == HTTP_EVENT_BODY) {
			if ((rc = sink(ctx, ev.data, ev.len)))
				return rc;
			continue;
		}
		return rc < 0 ? rc : wg_error_set(WG_ECORRUPT, "unexpected end of the response from "
						  "%s", c->cur_url);
	}
}

/* --- response bodies ------------------------------------------------------------------ */

static int body_sink(void *ctx, const void *data, size_t len)
{
	return http_body_out_write(ctx, data, len);
}

int http_client_read_body(struct http_client *c, http_body_cb on_body, void *payload)
{
	struct http_body_out *b;
	int rc;

	if (!c->body_pending)
		return wg_error_set(WG_EINVALID, "no response body to read");
	c->body_pending = false;
	b = wg_malloc(sizeof(*b));
	if (!b) {
		conn_close(c);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	http_body_out_init(b, c->gzip, c->resp.url, on_body, payload);
	rc = read_raw_body(c, body_sink, b);
	if (!rc)
		rc = http_body_out_finish(b, http_parser_framing(c->parser) != HTTP_FRAMING_NONE);
	http_body_out_release(b);
	wg_free(b);
	if (rc || !c->keep_alive || c->rpos != c->rlen)
		conn_close(c);
	return rc;
}

static int discard_sink(void *ctx, const void *data, size_t len)
{
	size_t *left = ctx;
	(void)data;
	if (len > *left)
		return 1;  /* too much to be worth keeping the connection */
	*left -= len;
	return 0;
}

/* Drop the body of a response we will not hand out (a redirect, a 401). */
static void drain_body(struct http_client *c)
{
	size_t left = HTTP_MAX_DRAIN;
	c->body_pending = false;
	if (read_raw_body(c, discard_sink, &left) || !c->keep_alive || c->rpos != c->rlen)
		conn_close(c);
}

/* --- writing requests ------------------------------------------------------------------ */

/* Put together and send one request. `with_body` is false once a
 * redirect turned it into a GET. *auth_sent tells whether credentials
 * went with it. */
static int write_request(struct http_client *c, const char *method, const struct http_url *u,
			 const struct http_request *req, bool with_body, bool *auth_sent)
{
	struct wg_buf head = WG_BUF_INIT, auth = WG_BUF_INIT, host = WG_BUF_INIT,
		      target = WG_BUF_INIT;
	struct http_head_spec spec;
	const void *body = NULL;
	size_t body_len = 0;
	bool v6 = strchr(u->host, ':') != NULL, via_proxy = c->proxy.on && !u->https;
	int err;

	*auth_sent = false;
	memset(&spec, 0, sizeof(spec));
	spec.method = method;
	spec.req = req;
	spec.skip_caller_auth = c->moved_origin;
	err = wg_buf_printf(&host, "%s%s%s", v6 ? "[" : "", u->host, v6 ? "]" : "");
	if (!err && u->port != http_default_port(u->https))
		err = wg_buf_printf(&host, ":%u", u->port);
	/* A proxy takes the absolute URL (RFC 9112 section 3.2.2). */
	if (!err && via_proxy)
		err = http_url_origin(&target, u);
	if (!err)
		err = wg_buf_adds(&target, u->path);
	if (err) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	spec.host = wg_buf_cstr(&host);
	spec.target = wg_buf_cstr(&target);
	if ((c->moved_origin || !http_request_has_header(req, "Authorization")) &&
	    (err = http_auth_add_header(&c->auth, &auth, auth_sent)))
		goto out;
	spec.auth_line = auth.len ? wg_buf_cstr(&auth) : NULL;
	spec.proxy_auth_line = via_proxy ? c->proxy.auth_line : NULL;
	if (with_body && req->body_source) {
		spec.framing = HTTP_REQ_CHUNKED;
		spec.gzip = req->gzip_body;
	} else if (with_body && (req->body || req->body_len || strcmp(method, "GET"))) {
		body = req->gzip_body ? c->gz_body.data : req->body;
		body_len = req->gzip_body ? c->gz_body.len : req->body_len;
		spec.framing = HTTP_REQ_LENGTH;
		spec.length = body_len;
		spec.gzip = req->gzip_body;
	} else if (!strcmp(method, "POST") || !strcmp(method, "PUT") || !strcmp(method, "PATCH")) {
		spec.framing = HTTP_REQ_LENGTH;
	}
	if ((err = http_request_head(&head, &spec)))
		goto out;
	c->stats.requests++;
	if (c->conn_requests++)
		c->stats.reused++;
	err = http_upload(&c->conn, &head, body, body_len,
			  with_body ? req->body_source : NULL, req->gzip_body);
out:
	/* they held the credentials */
	wg_url_release_secret(&head);
	wg_url_release_secret(&auth);
	wg_buf_release(&host);
	wg_buf_release(&target);
	return err;
}

/* One request and its response head, on the kept-alive connection if
 * there is one. If that connection turns out to have been closed by the
 * server before any byte of the response came, reconnect and try once
 * more: the server never saw the request, or dropped it unanswered. */
static int exchange(struct http_client *c, const char *method, const struct http_url *u,
		    const struct http_request *req, bool with_body, bool *body_used,
		    bool *auth_sent, const char *url)
{
	int attempt, rc = 0;

	wg_free(c->cur_url);
	if (!(c->cur_url = wg_strdup(url)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (attempt = 0; attempt < 2; attempt++) {
		bool reused = conn_reusable(c);
		if (!reused && (rc = conn_open(c)))
			return rc;
		c->conn.io_failed = c->conn.io_timed_out = false;
		c->resp_bytes = 0;
		if (with_body && req->body_source && *body_used) {
			if (!req->body_source->rewind)
				return wg_error_set(WG_EUNSUPPORTED, "cannot resend the request body to "
						    "%s: the body source cannot be rewound", url);
			if ((rc = req->body_source->rewind(req->body_source->payload)))
				return rc;
		}
		if (with_body && req->body_source)
			*body_used = true;
		rc = write_request(c, method, u, req, with_body, auth_sent);
		if (!rc)
			rc = read_head(c, method);
		if (rc == 1) {
			rc = wg_error_set(WG_EIO, "%s closed the connection without sending a "
					  "response to %s %s", c->conn.peer, method, url);
			if (reused && attempt == 0) {
				conn_close(c);
				c->stats.retries++;
				continue;
			}
		} else if (rc && reused && attempt == 0 && !c->resp_bytes && c->conn.io_failed &&
			   !c->conn.io_timed_out) {
			/* e.g. EPIPE or ECONNRESET on a connection the server had
			 * just closed */
			conn_close(c);
			c->stats.retries++;
			continue;
		}
		break;
	}
	if (rc) {
		conn_close(c);
		return rc;
	}
	c->body_pending = true;
	return 0;
}

/* --- the client ------------------------------------------------------------------------ */

/* A redirect of a request that may leave the origin went to another one:
 * the client now talks to `to`'s origin, and nothing that belonged to the
 * old one goes along. The connection is closed, the proxy is chosen again
 * (no_proxy may say otherwise for the new host), and the credentials start
 * over: those from the URL and those the source gave were for the old
 * origin, and a token (WEBGIT_HTTP_BEARER) would be sent unasked. Basic
 * credentials from the environment stay, sent only when the new origin
 * asks (a 401), as a credential helper answers for any host; the source
 * is asked again for the new host then. */
static int move_origin(struct http_client *c, const struct http_url *to)
{
	const struct http_credential_source *src = c->auth.src;
	struct http_url base;
	char *shown = http_url_display(to);
	int rc;

	if (!shown)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if ((rc = http_url_parse(&base, shown))) {
		wg_free(shown);
		return rc;
	}
	conn_close(c);
	http_url_release(&c->base);
	c->base = base;
	wg_free(c->base_display);
	c->base_display = shown;
	http_auth_release(&c->auth);
	rc = http_auth_init(&c->auth, &c->base);
	wg_url_free_secret(c->auth.authz);
	c->auth.authz = NULL;
	c->auth.src = src;
	if (!rc && src && src->moved)
		rc = src->moved(src->payload, shown);
	else if (!rc && src)
		c->auth.src = NULL;
	if (rc)
		return rc;
	http_proxy_release(&c->proxy);
	return http_proxy_from_env(&c->proxy, &c->base);
}

static bool is_redirect(int status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

int http_client_send(struct http_client *c, const struct http_request *req,
		     const struct http_response **out)
{
	struct http_url cur;
	const char *method = req->method;
	char *url = NULL, *first_url = NULL;
	bool with_body, body_used = false, auth_retried = false;
	unsigned redirects = 0, retries = 0;
	int rc;

	*out = NULL;
	c->auth.refused = false;
	if (c->body_pending)
		conn_close(c);  /* the last body was left unread */
	if (!method)
		method = req->body || req->body_len || req->body_source ? "POST" : "GET";
	if ((rc = http_request_check(req, method)))
		return rc;
	c->moved_origin = false;
	with_body = req->body || req->body_len || req->body_source;
	if ((rc = http_url_resolve(&cur, &c->base, req->url ? req->url : "")))
		return rc;
	if (!http_url_same_origin(&cur, &c->base)) {
		char *shown = http_url_display(&cur);
		struct wg_buf origin = WG_BUF_INIT;
		http_url_origin(&origin, &c->base);
		rc = wg_error_set(WG_EINVALID, "%s is not on %s: an HTTP client talks to one origin",
				  shown ? shown : "the URL", wg_buf_cstr(&origin));
		wg_buf_release(&origin);
		wg_free(shown);
		http_url_release(&cur);
		return rc;
	}
	if (with_body && req->gzip_body && !req->body_source &&
	    (rc = http_gzip_buffer(&c->gz_body, req->body, req->body_len))) {
		http_url_release(&cur);
		return rc;
	}

	for (;;) {
		bool auth_sent = false;
		const char *loc;
		int status;

		wg_free(url);
		url = http_url_display(&cur);
		if (!url || (!first_url && !(first_url = wg_strdup(url)))) {
			rc = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		if ((rc = exchange(c, method, &cur, req, with_body, &body_used, &auth_sent, url)))
			break;
		wg_free(c->resp.url);
		c->resp.url = wg_strdup(url);
		c->resp.redirects = redirects;
		if (!c->resp.url) {
			rc = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		status = c->resp.status;

		if (is_redirect(status) && (loc = http_response_header(&c->resp, "Location"))) {
			struct http_url next;
			char *next_url;
			if (++redirects > HTTP_MAX_REDIRECTS) {
				rc = wg_error_set(WG_ERROR, "too many redirects (more than %d) from %s",
						  HTTP_MAX_REDIRECTS, first_url);
				break;
			}
			if ((rc = http_url_resolve(&next, &cur, loc))) {
				wg_error_prefix("bad redirect from %s", url);
				break;
			}
			next_url = http_url_display(&next);
			if (!http_url_same_origin(&next, &c->base)) {
				if (!req->follow_other_origins)
					rc = wg_error_set(WG_EUNSUPPORTED, "refusing the redirect from "
							  "%s to %s: it leaves the origin (only the first "
							  "request of an operation may move to another "
							  "scheme, host or port)", url,
							  next_url ? next_url : "another origin");
				else if (c->base.https && !next.https)
					rc = wg_error_set(WG_EUNSUPPORTED, "refusing the redirect from "
							  "%s to %s: it leaves https for plain http", url,
							  next_url ? next_url : "another origin");
				else if (!(rc = move_origin(c, &next))) {
					c->moved_origin = true;
					/* the new origin may ask for its own */
					auth_retried = false;
				}
				if (rc) {
					wg_free(next_url);
					http_url_release(&next);
					break;
				}
			}
			wg_free(next_url);
			/* 303, and 301/302 after a POST, turn into GET as
			 * browsers do; 307 and 308 repeat the request as it was. */
			if ((status == 303 && strcmp(method, "HEAD")) ||
			    ((status == 301 || status == 302) && !strcmp(method, "POST"))) {
				method = "GET";
				with_body = false;
			}
			drain_body(c);
			http_url_release(&cur);
			cur = next;
			continue;
		}
		if (status == 407 && c->proxy.on && !c->base.https) {
			/* the proxy, not the server, wants credentials */
			struct http_head h = { c->resp.status, c->resp.version, c->resp.reason,
					       c->resp.headers, c->resp.nheaders };
			drain_body(c);
			rc = http_proxy_auth_error(&c->proxy, &h, url);
			break;
		}
		if (status == 401) {
			bool refused = auth_sent || auth_retried ||
				       (!c->moved_origin &&
					http_request_has_header(req, "Authorization"));
			drain_body(c);
			if ((rc = http_auth_challenge(&c->auth, &c->base, c->resp.headers,
						      c->resp.nheaders, url, refused)))
				break;
			auth_retried = true;
			continue;
		}
		if (http_status_retryable(status) && retries < HTTP_MAX_RETRIES) {
			long wait_ms;
			if (http_retry_after_ms(http_response_header(&c->resp, "Retry-After"),
						time(NULL), &wait_ms) &&
			    wait_ms <= HTTP_MAX_RETRY_WAIT_MS) {
				drain_body(c);
				if ((rc = http_conn_pause(&c->conn, wait_ms)))
					break;
				retries++;
				continue;
			}
		}
		break;
	}
	if (!rc)
		http_auth_response(&c->auth, c->resp.status);
	wg_free(url);
	wg_free(first_url);
	http_url_release(&cur);
	if (rc) {
		conn_close(c);
		return rc;
	}
	*out = &c->resp;
	return 0;
}

int http_client_request(struct http_client *c, const struct http_request *req,
			http_body_cb on_body, void *payload, const struct http_response **out)
{
	const struct http_response *resp;
	int rc = http_client_send(c, req, &resp);
	if (out)
		*out = resp;
	if (rc)
		return rc;
	return http_client_read_body(c, on_body, payload);
}


void http_client_set_credential_source(struct http_client *client,
				       const struct http_credential_source *src)
{
	client->auth.src = src;
}

bool http_client_auth_refused(const struct http_client *client)
{
	return client->auth.refused;
}

void http_client_set_cancel(struct http_client *client, int (*cancelled)(void))
{
	client->conn.cancelled = cancelled;
}

const char *http_response_header(const struct http_response *resp, const char *name)
{
	size_t i;
	for (i = 0; resp && i < resp->nheaders; i++)
		if (!strcasecmp(resp->headers[i].name, name))
			return resp->headers[i].value;
	return NULL;
}

int http_client_new(struct http_client **out, const char *base_url)
{
	struct http_client *c;
	const char *env;
	long timeout_ms = HTTP_DEFAULT_TIMEOUT_MS;
	int rc;

	*out = NULL;
	c = wg_calloc(1, sizeof(*c));
	if (!c)
		return wg_error_set(WG_ENOMEM, "out of memory");
	http_conn_init(&c->conn, timeout_ms);
	if ((rc = http_url_parse(&c->base, base_url)))
		goto fail;
	env = getenv("WEBGIT_HTTP_TIMEOUT");
	if (env && *env && (rc = http_parse_timeout(env, &timeout_ms)))
		goto fail;
	c->conn.timeout_ms = timeout_ms;
	c->base_display = http_url_display(&c->base);
	if (!c->base_display) {
		rc = wg_error_set(WG_ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = http_auth_init(&c->auth, &c->base)) ||
	    (rc = http_proxy_from_env(&c->proxy, &c->base)) ||
	    (rc = http_parser_new(&c->parser, 0, NULL, NULL)))
		goto fail;
	*out = c;
	return 0;
fail:
	http_client_free(c);
	return rc;
}

void http_client_free(struct http_client *c)
{
	size_t i;
	if (!c)
		return;
	conn_close(c);
	http_url_release(&c->base);
	wg_free(c->base_display);
	http_auth_release(&c->auth);
	http_proxy_release(&c->proxy);
	http_trust_release(&c->trust);
	http_parser_free(c->parser);
	wg_free(c->cur_url);
	for (i = 0; i < c->resp.nheaders; i++) {
		wg_free(c->resp.headers[i].name);
		wg_free(c->resp.headers[i].value);
	}
	wg_free(c->resp.headers);
	wg_free(c->resp.reason);
	wg_free(c->resp.url);
	wg_buf_release(&c->gz_body);
	wg_free(c);
}

const char *http_client_url(const struct http_client *c)
{
	return c->base_display;
}

void http_client_get_stats(const struct http_client *c, struct http_client_stats *out)
{
	*out = c->stats;
}
