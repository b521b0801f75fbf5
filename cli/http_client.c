/* A blocking HTTP/1.1 client over sockets and BearSSL (see http_client.h).
 *
 * Layers, bottom-up:
 *   socket   non-blocking fd + poll(), so every wait has a deadline
 *   conn     plain or TLS byte stream (br_sslio over the socket callbacks)
 *   reader   a read buffer with line reading under a size budget
 *   message  status line, headers, body framing (length, chunked, close)
 *   client   redirects, authentication, keep-alive and the one retry
 *
 * Every byte from the server is untrusted: lines, header blocks and chunk
 * size lines have hard limits, numbers are parsed with overflow checks, and
 * a malformed response is an error, never a guess. */
#include "http_client.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <bearssl.h>
#include <zlib.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hex.h"
#include "util/limits.h"
#include "util/url.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

#define HTTP_USER_AGENT "webgit/0.1"
#define HTTP_DEFAULT_TIMEOUT_MS 60000L
#define HTTP_DEFAULT_CA_FILE "/etc/ssl/certs/ca-certificates.crt"
#define HTTP_MAX_HEAD (64 * 1024)        /* status line + headers */
#define HTTP_MAX_TRAILERS (64 * 1024)
#define HTTP_MAX_CHUNK_LINE 4096         /* size plus extensions */
#define HTTP_MAX_REDIRECTS 5
/* A redirect or 401 body is read and dropped so the connection can be
 * reused; past this much it is cheaper to reconnect. */
#define HTTP_MAX_DRAIN (256 * 1024)
#define HTTP_RBUF_SIZE 16384
#define HTTP_IO_CHUNK 16384

struct http_url {
	bool https;
	char *host;       /* without IPv6 brackets */
	unsigned port;
	char *path;       /* path and query, always starting with '/' */
	char *user;       /* percent-decoded, NULL if absent */
	char *pass;       /* percent-decoded, NULL if absent */
};

enum http_body_mode {
	HTTP_BODY_NONE,
	HTTP_BODY_LENGTH,
	HTTP_BODY_CHUNKED,
	HTTP_BODY_CLOSE,
};

struct http_tls {
	br_ssl_client_context sc;
	br_x509_minimal_context xc;
	br_sslio_context ioc;
	unsigned char iobuf[BR_SSL_BUFSIZE_BIDI];
};

struct http_client {
	struct http_url base;
	char *base_display;

	/* Credentials: from the base URL, else the environment, else a
	 * prompt. Basic is sent only after the server asked once (as git and
	 * curl do), then on every request of this client. */
	char *user;
	char *pass;
	char *bearer;
	bool basic_active;

	long timeout_ms;
	/* Asked when a socket wait is interrupted by a signal: nonzero stops
	 * the transfer (the driver's SIGINT/SIGTERM handling). */
	int (*cancelled)(void);

	/* Trust anchors, loaded at the first TLS connection. */
	br_x509_trust_anchor *tas;
	size_t ntas;
	bool tas_loaded;
	char *ca_file;

	/* The connection. */
	int fd;
	struct http_tls *tls;
	unsigned conn_requests;  /* requests written on this connection */
	bool sock_eof;           /* the peer closed its side */
	bool io_timed_out;       /* the last failure was a timeout */
	bool io_failed;          /* a socket call failed (message is set) */

	unsigned char rbuf[HTTP_RBUF_SIZE];
	size_t rpos, rlen;
	uint64_t resp_bytes;     /* bytes received for the current request */

	/* The response whose body is (or was) being read. */
	struct http_response resp;
	enum http_body_mode mode;
	uint64_t remaining;      /* LENGTH: bytes left; CHUNKED: in this chunk */
	bool chunk_done;         /* CHUNKED: the zero chunk was seen */
	bool body_pending;
	bool keep_alive;
	bool gzip;

	struct wg_buf gz_body;   /* the compressed in-memory request body */
	struct http_client_stats stats;
};

/* ------------------------------------------------------------------------ */
/* small helpers */

static bool is_tchar(int ch)
{
	return isalnum(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static char *http_strdup(const char *s)
{
	return s ? wg_strdup(s) : NULL;
}

static void free_secret(char *s)
{
	if (s) {
		/* Do not leave passwords lying in freed heap memory. */
		volatile char *p = s;
		while (*p)
			*p++ = '\0';
		wg_free(s);
	}
}

/* A printable excerpt of untrusted bytes for an error message. */
static const char *excerpt(char *out, size_t outsz, const char *s, size_t len)
{
	size_t i, n = 0;
	for (i = 0; i < len && n + 4 < outsz; i++)
		out[n++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (i < len && n + 4 <= outsz) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

/* Does the comma-separated list `list` contain `token` (case-insensitive)? */
static bool list_has_token(const char *list, const char *token)
{
	size_t n = strlen(token);
	const char *p = list;
	while (p && *p) {
		const char *end;
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		end = p;
		while (*end && *end != ',')
			end++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if ((size_t)(end - p) == n && !strncasecmp(p, token, n))
			return true;
		p = strchr(p, ',');
	}
	return false;
}

static const char base64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int base64_add(struct wg_buf *out, const unsigned char *in, size_t len)
{
	size_t i;
	int err = 0;
	for (i = 0; i + 2 < len && !err; i += 3) {
		char q[4] = { base64_chars[in[i] >> 2],
			      base64_chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)],
			      base64_chars[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)],
			      base64_chars[in[i + 2] & 63] };
		err = wg_buf_add(out, q, 4);
	}
	if (!err && len - i == 1) {
		char q[4] = { base64_chars[in[i] >> 2], base64_chars[(in[i] & 3) << 4], '=', '=' };
		err = wg_buf_add(out, q, 4);
	} else if (!err && len - i == 2) {
		char q[4] = { base64_chars[in[i] >> 2],
			      base64_chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)],
			      base64_chars[(in[i + 1] & 15) << 2], '=' };
		err = wg_buf_add(out, q, 4);
	}
	return err;
}

/* ------------------------------------------------------------------------ */
/* URLs */

static void url_release(struct http_url *u)
{
	wg_free(u->host);
	wg_free(u->path);
	free_secret(u->user);
	free_secret(u->pass);
	memset(u, 0, sizeof(*u));
}

static unsigned default_port(bool https)
{
	return https ? 443 : 80;
}

static bool same_origin(const struct http_url *a, const struct http_url *b)
{
	return a->https == b->https && a->port == b->port && !strcasecmp(a->host, b->host);
}

/* "scheme://host[:port]": the origin as git shows it in prompts. */
static int url_origin(struct wg_buf *out, const struct http_url *u)
{
	bool v6 = strchr(u->host, ':') != NULL;
	int err = wg_buf_printf(out, "%s://%s%s%s", u->https ? "https" : "http", v6 ? "[" : "",
				u->host, v6 ? "]" : "");
	if (!err && u->port != default_port(u->https))
		err = wg_buf_printf(out, ":%u", u->port);
	return err;
}

/* The URL without user information: the only form that goes into
 * messages, so no password can leak into a log. */
static char *url_display(const struct http_url *u)
{
	struct wg_buf b = WG_BUF_INIT;
	if (url_origin(&b, u) || wg_buf_adds(&b, u->path)) {
		wg_buf_release(&b);
		return NULL;
	}
	return (char *)wg_buf_detach(&b, NULL);
}

static int percent_decode(char **out, const char *s, size_t len, const char *what)
{
	size_t i, n = 0;
	char *d = wg_malloc(len + 1);
	if (!d)
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (i = 0; i < len; i++) {
		if (s[i] == '%') {
			int hi = i + 2 < len ? wg_hex_value((unsigned char)s[i + 1]) : -1;
			int lo = i + 2 < len ? wg_hex_value((unsigned char)s[i + 2]) : -1;
			if (hi < 0 || lo < 0) {
				memset(d, 0, len + 1);  /* not terminated yet: no free_secret */
				wg_free(d);
				return wg_error_set(WG_EINVALID, "bad percent-encoding in the %s of a URL",
						    what);
			}
			d[n++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			d[n++] = s[i];
		}
	}
	d[n] = '\0';
	*out = d;
	return 0;
}

static const char *last_slash(const char *s, size_t len)
{
	while (len--)
		if (s[len] == '/')
			return s + len;
	return NULL;
}

/* RFC 3986 section 5.2.4: remove "." and ".." segments from a path. */
static int remove_dot_segments(struct wg_buf *out, const char *in, size_t len)
{
	const char *p = in, *end = in + len;
	int err = 0;
	while (p < end && !err) {
		size_t rest = (size_t)(end - p);
		if (rest >= 3 && !strncmp(p, "../", 3)) {
			p += 3;
		} else if (rest >= 2 && !strncmp(p, "./", 2)) {
			p += 2;
		} else if (rest >= 3 && !strncmp(p, "/./", 3)) {
			p += 2;
		} else if (rest == 2 && !strncmp(p, "/.", 2)) {
			p += 1;
			/* becomes "/" */
			err = wg_buf_addch(out, '/');
			p = end;
		} else if ((rest >= 4 && !strncmp(p, "/../", 4)) || (rest == 3 && !strncmp(p, "/..", 3))) {
			const char *slash = last_slash((const char *)out->data, out->len);
			p += 3;
			wg_buf_setlen(out, slash ? (size_t)(slash - (const char *)out->data) : 0);
			if (p == end)
				err = wg_buf_addch(out, '/');
		} else if ((rest == 1 && *p == '.') || (rest == 2 && !strncmp(p, "..", 2))) {
			p = end;
		} else {
			const char *seg = p + (*p == '/');
			const char *next = memchr(seg, '/', (size_t)(end - seg));
			if (!next)
				next = end;
			err = wg_buf_add(out, p, (size_t)(next - p));
			p = next;
		}
	}
	return err;
}

/* Parse an absolute http(s) URL. The fragment is dropped. */
static int url_parse(struct http_url *u, const char *s)
{
	const char *p, *auth, *auth_end, *at = NULL, *hp, *hp_end, *host, *host_end, *port = NULL;
	struct wg_buf shown = WG_BUF_INIT;
	int err = 0;
	size_t schemelen;

	memset(u, 0, sizeof(*u));
	wg_url_redact(&shown, s);   /* for messages about URLs that do not parse */
	for (p = s; *p; p++) {
		/* No spaces or control characters: they would split the request
		 * line or a header (request smuggling). */
		if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
			err = wg_error_set(WG_EINVALID, "invalid character in URL '%s'",
					   wg_buf_cstr(&shown));
			goto out;
		}
	}
	auth = strstr(s, "://");
	schemelen = auth ? (size_t)(auth - s) : 0;
	if (!auth || schemelen == 0) {
		err = wg_error_set(WG_EINVALID, "'%s' is not an http:// or https:// URL",
				   wg_buf_cstr(&shown));
		goto out;
	}
	if (schemelen == 5 && !strncasecmp(s, "https", 5)) {
		u->https = true;
	} else if (schemelen == 4 && !strncasecmp(s, "http", 4)) {
		u->https = false;
	} else {
		err = wg_error_set(WG_EUNSUPPORTED, "unsupported URL scheme '%.*s' in '%s' "
				   "(only http:// and https:// are supported)",
				   (int)(schemelen > 20 ? 20 : schemelen), s, wg_buf_cstr(&shown));
		goto out;
	}
	auth += 3;
	auth_end = auth + strcspn(auth, "/?#");
	for (p = auth; p < auth_end; p++)
		if (*p == '@')
			at = p;
	if (at) {
		const char *colon = memchr(auth, ':', (size_t)(at - auth));
		const char *uend = colon ? colon : at;
		if ((err = percent_decode(&u->user, auth, (size_t)(uend - auth), "user name")))
			goto out;
		if (colon && (err = percent_decode(&u->pass, colon + 1, (size_t)(at - colon - 1),
						   "password")))
			goto out;
		hp = at + 1;
	} else {
		hp = auth;
	}
	hp_end = auth_end;
	if (hp < hp_end && *hp == '[') {
		host = hp + 1;
		host_end = memchr(host, ']', (size_t)(hp_end - host));
		if (!host_end) {
			err = wg_error_set(WG_EINVALID, "unterminated '[' in URL '%s'",
					   wg_buf_cstr(&shown));
			goto out;
		}
		p = host_end + 1;
		if (p < hp_end && *p != ':') {
			err = wg_error_set(WG_EINVALID, "bad host in URL '%s'", wg_buf_cstr(&shown));
			goto out;
		}
		if (p < hp_end)
			port = p + 1;
	} else {
		host = hp;
		host_end = memchr(hp, ':', (size_t)(hp_end - hp));
		if (host_end)
			port = host_end + 1;
		else
			host_end = hp_end;
	}
	if (host_end == host) {
		err = wg_error_set(WG_EINVALID, "no host in URL '%s'", wg_buf_cstr(&shown));
		goto out;
	}
	for (p = host; p < host_end; p++) {
		if (!isalnum((unsigned char)*p) && !strchr("-._~:%!$&'()*+,;=", *p)) {
			err = wg_error_set(WG_EINVALID, "bad host in URL '%s'", wg_buf_cstr(&shown));
			goto out;
		}
	}
	u->port = default_port(u->https);
	if (port && port < hp_end) {
		unsigned long v = 0;
		for (p = port; p < hp_end; p++) {
			if (!isdigit((unsigned char)*p) || v > 65535) {
				v = 0;
				break;
			}
			v = v * 10 + (unsigned)(*p - '0');
		}
		if (v == 0 || v > 65535) {
			err = wg_error_set(WG_EINVALID, "bad port in URL '%s'", wg_buf_cstr(&shown));
			goto out;
		}
		u->port = (unsigned)v;
	}
	u->host = wg_strndup(host, (size_t)(host_end - host));
	{
		/* "/a/./b/../c" is "/a/c", as browsers and curl send it */
		size_t plen = strcspn(auth_end, "#"), qlen = strcspn(auth_end, "?#");
		struct wg_buf path = WG_BUF_INIT;
		if (*auth_end != '/')
			wg_buf_addch(&path, '/');
		remove_dot_segments(&path, auth_end, qlen);
		if (!path.len || path.data[0] != '/') {
			wg_buf_reset(&path);
			wg_buf_addch(&path, '/');
		}
		wg_buf_add(&path, auth_end + qlen, plen - qlen);
		u->path = (char *)wg_buf_detach(&path, NULL);
	}
	if (!u->host || !u->path)
		err = wg_error_set(WG_ENOMEM, "out of memory");
out:
	if (err)
		url_release(u);
	wg_buf_release(&shown);
	return err;
}

/* Resolve a URL reference (a Location header, or a request URL) against
 * `base`, RFC 3986 section 5.2. User information is never carried. */
static int url_resolve(struct http_url *out, const struct http_url *base, const char *ref)
{
	const char *p = ref;
	struct wg_buf path = WG_BUF_INIT;
	size_t qpos, reflen;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (isalpha((unsigned char)*p)) {
		while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
			p++;
		if (*p == ':') {
			err = url_parse(out, ref);
			goto strip;
		}
	}
	if (ref[0] == '/' && ref[1] == '/') {
		struct wg_buf abs = WG_BUF_INIT;
		err = wg_buf_printf(&abs, "%s:%s", base->https ? "https" : "http", ref);
		if (!err)
			err = url_parse(out, wg_buf_cstr(&abs));
		wg_buf_release(&abs);
		goto strip;
	}
	for (p = ref; *p; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return wg_error_set(WG_EINVALID, "invalid character in URL reference");
	}
	reflen = strcspn(ref, "#");
	qpos = strcspn(ref, "?#");
	if (reflen == 0) {
		err = wg_buf_adds(&path, base->path);
	} else if (ref[0] == '?') {
		err = wg_buf_add(&path, base->path, strcspn(base->path, "?"));
		if (!err)
			err = wg_buf_add(&path, ref, reflen);
	} else {
		struct wg_buf merged = WG_BUF_INIT;
		if (ref[0] == '/') {
			err = wg_buf_add(&merged, ref, qpos);
		} else {
			size_t blen = strcspn(base->path, "?");
			const char *slash = last_slash(base->path, blen);
			err = wg_buf_add(&merged, base->path,
					 slash ? (size_t)(slash - base->path) + 1 : 0);
			if (!err)
				err = wg_buf_add(&merged, ref, qpos);
		}
		if (!err)
			err = remove_dot_segments(&path, wg_buf_cstr(&merged), merged.len);
		if (!err && (path.len == 0 || path.data[0] != '/')) {
			/* A relative reference climbing above the root. */
			struct wg_buf fixed = WG_BUF_INIT;
			err = wg_buf_addch(&fixed, '/');
			if (!err)
				err = wg_buf_add(&fixed, path.data, path.len);
			wg_buf_release(&path);
			path = fixed;
		}
		if (!err)
			err = wg_buf_add(&path, ref + qpos, reflen - qpos);
		wg_buf_release(&merged);
	}
	if (err) {
		wg_buf_release(&path);
		return err;
	}
	out->https = base->https;
	out->port = base->port;
	out->host = wg_strdup(base->host);
	out->path = (char *)wg_buf_detach(&path, NULL);
	if (!out->host || !out->path) {
		url_release(out);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	return 0;
strip:
	if (!err) {
		free_secret(out->user);
		free_secret(out->pass);
		out->user = out->pass = NULL;
	}
	return err;
}

/* ------------------------------------------------------------------------ */
/* sockets: non-blocking, every wait bounded by the client's timeout */

static double timeout_secs(const struct http_client *c)
{
	return (double)c->timeout_ms / 1000.0;
}

/* 64-bit: a 32-bit long (wasm32) overflows after 24 days of uptime. */
static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for `events`; 0, or WG_EIO after the timeout. */
static int sock_wait(struct http_client *c, short events, const char *doing)
{
	int64_t deadline = now_ms() + c->timeout_ms;
	for (;;) {
		struct pollfd pfd = { c->fd, events, 0 };
		int64_t left = deadline - now_ms();
		int n;
		if (left < 0)
			left = 0;
		n = poll(&pfd, 1, (int)left);
		if (n > 0)
			return 0;
		if (n == 0) {
			c->io_timed_out = true;
			c->io_failed = true;
			return wg_error_set(WG_EIO, "timed out after %g s %s %s (set WEBGIT_HTTP_TIMEOUT "
					    "to wait longer)", timeout_secs(c), doing, c->base.host);
		}
		if (errno != EINTR) {
			c->io_failed = true;
			return wg_error_set(WG_EIO, "poll failed %s %s: %s", doing, c->base.host,
					    strerror(errno));
		}
		if (c->cancelled && c->cancelled()) {
			c->io_failed = true;
			return wg_error_set(WG_EIO, "interrupted %s %s", doing, c->base.host);
		}
	}
}

/* >0 bytes read, 0 end of stream, <0 error. */
static long sock_recv(struct http_client *c, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = recv(c->fd, buf, len, 0);
		if (n > 0)
			return (long)n;
		if (n == 0) {
			c->sock_eof = true;
			return 0;
		}
		if (errno == EINTR && c->cancelled && c->cancelled()) {
			c->io_failed = true;
			return wg_error_set(WG_EIO, "interrupted reading from %s", c->base.host);
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int err = sock_wait(c, POLLIN, "waiting for data from");
			if (err)
				return err;
			continue;
		}
		c->io_failed = true;
		return wg_error_set(WG_EIO, "error reading from %s: %s", c->base.host,
				    strerror(errno));
	}
}

/* >0 bytes written, <0 error. */
static long sock_send(struct http_client *c, const void *buf, size_t len)
{
	for (;;) {
		ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
		if (n >= 0)
			return (long)n;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int err = sock_wait(c, POLLOUT, "sending to");
			if (err)
				return err;
			continue;
		}
		c->io_failed = true;
		return wg_error_set(WG_EIO, "error sending to %s: %s", c->base.host, strerror(errno));
	}
}

static int tls_low_read(void *ctx, unsigned char *data, size_t len)
{
	long n = sock_recv(ctx, data, len);
	return n > 0 ? (int)n : -1;  /* end of stream is an error to BearSSL */
}

static int tls_low_write(void *ctx, const unsigned char *data, size_t len)
{
	long n = sock_send(ctx, data, len);
	return n > 0 ? (int)n : -1;
}

/* ------------------------------------------------------------------------ */
/* TLS */

/* Collects bytes from BearSSL decoders (a DN, a PEM object). */
struct dn_sink {
	struct wg_buf buf;
	int err;
};

static void dn_append(void *ctx, const void *data, size_t len)
{
	struct dn_sink *s = ctx;
	if (!s->err)
		s->err = wg_buf_add(&s->buf, data, len);
}

static void free_trust_anchors(struct http_client *c)
{
	size_t i;
	for (i = 0; i < c->ntas; i++) {
		br_x509_trust_anchor *ta = &c->tas[i];
		wg_free(ta->dn.data);
		if (ta->pkey.key_type == BR_KEYTYPE_RSA) {
			wg_free(ta->pkey.key.rsa.n);
			wg_free(ta->pkey.key.rsa.e);
		} else if (ta->pkey.key_type == BR_KEYTYPE_EC) {
			wg_free(ta->pkey.key.ec.q);
		}
	}
	wg_free(c->tas);
	c->tas = NULL;
	c->ntas = 0;
}

static void *memdup(const void *p, size_t len)
{
	void *d = wg_malloc(len ? len : 1);
	if (d && len)
		memcpy(d, p, len);
	return d;
}

/* Turn one DER certificate into a trust anchor; certificates BearSSL
 * cannot decode (exotic key types) are skipped, as brssl does. Returns 1
 * if an anchor was added, 0 if skipped, or an error. */
static int add_trust_anchor(struct http_client *c, size_t *cap, const unsigned char *der,
			    size_t len)
{
	br_x509_decoder_context dc;
	struct dn_sink dn = { WG_BUF_INIT, 0 };
	br_x509_pkey *pk;
	br_x509_trust_anchor ta;
	bool ok;

	br_x509_decoder_init(&dc, dn_append, &dn);
	br_x509_decoder_push(&dc, der, len);
	pk = br_x509_decoder_get_pkey(&dc);
	if (dn.err) {
		wg_buf_release(&dn.buf);
		return dn.err;
	}
	if (!pk || (pk->key_type != BR_KEYTYPE_RSA && pk->key_type != BR_KEYTYPE_EC)) {
		wg_buf_release(&dn.buf);
		return 0;
	}
	memset(&ta, 0, sizeof(ta));
	ta.dn.len = dn.buf.len;
	ta.dn.data = memdup(dn.buf.data, dn.buf.len);
	wg_buf_release(&dn.buf);
	ta.flags = br_x509_decoder_isCA(&dc) ? BR_X509_TA_CA : 0;
	ta.pkey.key_type = pk->key_type;
	if (pk->key_type == BR_KEYTYPE_RSA) {
		ta.pkey.key.rsa.n = memdup(pk->key.rsa.n, pk->key.rsa.nlen);
		ta.pkey.key.rsa.nlen = pk->key.rsa.nlen;
		ta.pkey.key.rsa.e = memdup(pk->key.rsa.e, pk->key.rsa.elen);
		ta.pkey.key.rsa.elen = pk->key.rsa.elen;
		ok = ta.pkey.key.rsa.n && ta.pkey.key.rsa.e;
	} else {
		ta.pkey.key.ec.curve = pk->key.ec.curve;
		ta.pkey.key.ec.q = memdup(pk->key.ec.q, pk->key.ec.qlen);
		ta.pkey.key.ec.qlen = pk->key.ec.qlen;
		ok = ta.pkey.key.ec.q != NULL;
	}
	ok = ok && ta.dn.data;
	if (ok && c->ntas == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		br_x509_trust_anchor *n = wg_realloc(c->tas, ncap * sizeof(*n));
		ok = n != NULL;
		if (n) {
			c->tas = n;
			*cap = ncap;
		}
	}
	if (!ok) {
		wg_free(ta.dn.data);
		if (pk->key_type == BR_KEYTYPE_RSA) {
			wg_free(ta.pkey.key.rsa.n);
			wg_free(ta.pkey.key.rsa.e);
		} else {
			wg_free(ta.pkey.key.ec.q);
		}
		return wg_error_set(WG_ENOMEM, "out of memory loading trust anchors");
	}
	c->tas[c->ntas++] = ta;
	return 1;
}

static const char *ca_file_path(void)
{
	static const char *const vars[] = { "WEBGIT_SSL_CAINFO", "GIT_SSL_CAINFO", "SSL_CERT_FILE" };
	size_t i;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return v;
	}
	return HTTP_DEFAULT_CA_FILE;
}

/* Decode every CERTIFICATE in a PEM file into trust anchors. */
static int load_trust_anchors(struct http_client *c)
{
	const char *path = ca_file_path();
	struct wg_buf pem = WG_BUF_INIT;
	br_pem_decoder_context pc;
	struct dn_sink der = { WG_BUF_INIT, 0 };
	size_t cap = 0, off = 0, found = 0;
	bool in_cert = false;
	int err = 0;
	FILE *f;

	wg_free(c->ca_file);
	c->ca_file = wg_strdup(path);
	f = fopen(path, "rb");
	if (!f)
		return wg_error_set(WG_EIO, "cannot read the CA certificates in %s: %s (set "
				    "WEBGIT_SSL_CAINFO or SSL_CERT_FILE to a PEM file)", path,
				    strerror(errno));
	for (;;) {
		size_t n;
		if ((err = wg_buf_grow(&pem, 65536)))
			break;
		n = fread(pem.data + pem.len, 1, 65536, f);
		wg_buf_setlen(&pem, pem.len + n);
		if (n < 65536) {
			if (ferror(f))
				err = wg_error_set(WG_EIO, "error reading %s: %s", path, strerror(errno));
			break;
		}
	}
	fclose(f);
	/* The decoder needs a newline after the last END line to see it. */
	if (!err)
		err = wg_buf_addch(&pem, '\n');

	br_pem_decoder_init(&pc);
	while (!err && off < pem.len) {
		int ev;
		off += br_pem_decoder_push(&pc, pem.data + off, pem.len - off);
		ev = br_pem_decoder_event(&pc);
		if (ev == BR_PEM_BEGIN_OBJ) {
			const char *name = br_pem_decoder_name(&pc);
			in_cert = !strcmp(name, "CERTIFICATE") || !strcmp(name, "X509 CERTIFICATE");
			wg_buf_reset(&der.buf);
			br_pem_decoder_setdest(&pc, in_cert ? dn_append : NULL, &der);
		} else if (ev == BR_PEM_END_OBJ) {
			if (der.err) {
				err = der.err;
			} else if (in_cert) {
				int rc = add_trust_anchor(c, &cap, der.buf.data, der.buf.len);
				if (rc < 0)
					err = rc;
				found += rc > 0;
			}
			in_cert = false;
		} else if (ev == BR_PEM_ERROR) {
			err = wg_error_set(WG_ECORRUPT, "malformed PEM data in %s", path);
		}
	}
	wg_buf_release(&pem);
	wg_buf_release(&der.buf);
	if (!err && !found)
		err = wg_error_set(WG_ECORRUPT, "no usable CA certificates in %s", path);
	if (err) {
		free_trust_anchors(c);
		return err;
	}
	c->tas_loaded = true;
	return 0;
}

static int tls_error(struct http_client *c, int err)
{
	const char *host = c->base.host;
	if (err == BR_ERR_IO) {
		/* The socket layer said why; end of stream it leaves to us. */
		if (c->io_failed)
			return WG_EIO;
		return wg_error_set(WG_EIO, "%s closed the TLS connection unexpectedly", host);
	}
	switch (err) {
	case BR_ERR_X509_NOT_TRUSTED:
		return wg_error_set(WG_EIO, "server certificate of %s is not trusted: it does not "
				    "chain to a CA in %s (set WEBGIT_SSL_CAINFO to the CA's PEM file)",
				    host, c->ca_file ? c->ca_file : "the CA file");
	case BR_ERR_X509_BAD_SERVER_NAME:
		return wg_error_set(WG_EIO, "server certificate does not match the host name '%s'",
				    host);
	case BR_ERR_X509_EXPIRED:
		return wg_error_set(WG_EIO, "server certificate of %s has expired or is not yet "
				    "valid", host);
	case BR_ERR_X509_NOT_CA:
		return wg_error_set(WG_EIO, "server certificate chain of %s is invalid: an issuer "
				    "is not a CA", host);
	case BR_ERR_X509_BAD_SIGNATURE:
		return wg_error_set(WG_EIO, "server certificate chain of %s has a bad signature",
				    host);
	default:
		break;
	}
	if (err >= 32 && err < 64)
		return wg_error_set(WG_EIO, "invalid server certificate from %s (BearSSL X.509 "
				    "error %d)", host, err);
	if (err >= BR_ERR_SEND_FATAL_ALERT)
		return wg_error_set(WG_EIO, "TLS connection to %s failed: we sent fatal alert %d",
				    host, err - BR_ERR_SEND_FATAL_ALERT);
	if (err >= BR_ERR_RECV_FATAL_ALERT)
		return wg_error_set(WG_EIO, "TLS connection to %s failed: the server sent fatal "
				    "alert %d (no common protocol version or cipher suite?)",
				    host, err - BR_ERR_RECV_FATAL_ALERT);
	return wg_error_set(WG_EIO, "TLS connection to %s failed (BearSSL error %d)", host, err);
}

/* ------------------------------------------------------------------------ */
/* connection */

static void conn_close(struct http_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	wg_free(c->tls);
	c->tls = NULL;
	c->conn_requests = 0;
	c->rpos = c->rlen = 0;
	c->sock_eof = false;
	c->body_pending = false;
}

static int conn_open(struct http_client *c)
{
	struct addrinfo hints, *res = NULL, *ai;
	char portstr[16];
	int rc, last_errno = 0;
	bool timed_out = false;

	conn_close(c);
	c->io_failed = c->io_timed_out = false;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(portstr, sizeof(portstr), "%u", c->base.port);
	rc = getaddrinfo(c->base.host, portstr, &hints, &res);
	if (rc)
		return wg_error_set(WG_EIO, "unable to resolve host '%s': %s", c->base.host,
				    rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			last_errno = errno;
			continue;
		}
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
			last_errno = errno;
			close(fd);
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			c->fd = fd;
			break;
		}
		if (errno == EINPROGRESS) {
			int soerr = 0;
			socklen_t sl = sizeof(soerr);
			c->fd = fd;
			if (sock_wait(c, POLLOUT, "connecting to")) {
				timed_out = true;
			} else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && !soerr) {
				break;
			} else {
				last_errno = soerr ? soerr : errno;
			}
			c->fd = -1;
		} else {
			last_errno = errno;
		}
		close(fd);
	}
	freeaddrinfo(res);
	c->io_failed = c->io_timed_out = false;
	if (c->fd < 0) {
		if (timed_out && !last_errno)
			return wg_error_set(WG_EIO, "unable to connect to %s port %u: timed out after "
					    "%g s", c->base.host, c->base.port, timeout_secs(c));
		return wg_error_set(WG_EIO, "unable to connect to %s port %u: %s", c->base.host,
				    c->base.port, strerror(last_errno ? last_errno : ECONNREFUSED));
	}
	{
		int one = 1;
		/* Requests go out as one write per piece; do not let Nagle hold
		 * back the last small one. */
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	c->stats.connects++;
	if (!c->base.https)
		return 0;

	if (!c->tas_loaded && (rc = load_trust_anchors(c))) {
		conn_close(c);
		return rc;
	}
	c->tls = wg_malloc(sizeof(*c->tls));
	if (!c->tls) {
		conn_close(c);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	br_ssl_client_init_full(&c->tls->sc, &c->tls->xc, c->tas, c->ntas);
	br_ssl_engine_set_buffer(&c->tls->sc.eng, c->tls->iobuf, sizeof(c->tls->iobuf), 1);
	/* The host name goes into SNI and is what the certificate must name.
	 * An IP literal is checked the same way, so it only passes with a
	 * certificate naming that exact text (never with none at all). */
	if (!br_ssl_client_reset(&c->tls->sc, c->base.host, 0)) {
		rc = tls_error(c, br_ssl_engine_last_error(&c->tls->sc.eng));
		conn_close(c);
		return rc;
	}
	br_sslio_init(&c->tls->ioc, &c->tls->sc.eng, tls_low_read, c, tls_low_write, c);
	/* Run the handshake now, so a certificate problem is reported as
	 * such rather than as a failure to send the request. */
	if (br_sslio_flush(&c->tls->ioc) < 0) {
		rc = tls_error(c, br_ssl_engine_last_error(&c->tls->sc.eng));
		conn_close(c);
		return rc;
	}
	return 0;
}

/* Can the open connection carry another request? It must have ended its
 * last response cleanly, and the server must not have closed it (or sent
 * anything unasked) while it sat idle. */
static bool conn_reusable(struct http_client *c)
{
	struct pollfd pfd;
	if (c->fd < 0 || c->rpos != c->rlen || c->sock_eof)
		return false;
	if (c->tls && (br_ssl_engine_current_state(&c->tls->sc.eng) & BR_SSL_CLOSED))
		return false;
	pfd.fd = c->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	return poll(&pfd, 1, 0) == 0;
}

/* >0 bytes, 0 end of stream, <0 error. */
static long conn_read(struct http_client *c, void *buf, size_t len)
{
	int n, err;
	if (!c->tls)
		return sock_recv(c, buf, len);
	n = br_sslio_read(&c->tls->ioc, buf, len);
	if (n > 0)
		return n;
	err = br_ssl_engine_last_error(&c->tls->sc.eng);
	if (err == BR_ERR_OK)
		return 0;  /* close_notify */
	if (err == BR_ERR_IO && c->sock_eof && !c->io_failed)
		/* Closed without close_notify: many servers do; the framing
		 * (length or chunks) still catches a truncated body. */
		return 0;
	return tls_error(c, err);
}

static int conn_write(struct http_client *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	if (c->tls) {
		if (br_sslio_write_all(&c->tls->ioc, data, len) < 0)
			return tls_error(c, br_ssl_engine_last_error(&c->tls->sc.eng));
		return 0;
	}
	while (len) {
		long n = sock_send(c, p, len);
		if (n < 0)
			return (int)n;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int conn_flush(struct http_client *c)
{
	if (c->tls && br_sslio_flush(&c->tls->ioc) < 0)
		return tls_error(c, br_ssl_engine_last_error(&c->tls->sc.eng));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* reading */

/* Refill the read buffer: >0, 0 at end of stream, <0 error. */
static long fill(struct http_client *c)
{
	long n = conn_read(c, c->rbuf, sizeof(c->rbuf));
	if (n > 0) {
		c->rpos = 0;
		c->rlen = (size_t)n;
		c->resp_bytes += (uint64_t)n;
	}
	return n;
}

/* Read one line into `line` without its line ending. *budget counts down
 * the bytes the whole block may still use. Returns 0, 1 for end of stream
 * before the first byte, or an error; *had_cr tells whether the line
 * ended in CRLF. */
static int read_line(struct http_client *c, struct wg_buf *line, size_t *budget, size_t limit,
		     bool *had_cr, const char *what, const char *url)
{
	wg_buf_reset(line);
	for (;;) {
		unsigned char *nl;
		size_t avail, take;
		if (c->rpos == c->rlen) {
			long n = fill(c);
			if (n < 0)
				return (int)n;
			if (n == 0) {
				if (!line->len)
					return 1;
				return wg_error_set(WG_EIO, "connection closed in the middle of the %s "
						    "from %s", what, url);
			}
		}
		avail = c->rlen - c->rpos;
		nl = memchr(c->rbuf + c->rpos, '\n', avail);
		take = nl ? (size_t)(nl - (c->rbuf + c->rpos)) + 1 : avail;
		if (take > *budget)
			return wg_error_set(WG_ECORRUPT, "too much data in the %s from %s (the limit "
					    "is %zu bytes)", what, url, limit);
		*budget -= take;
		if (wg_buf_add(line, c->rbuf + c->rpos, take))
			return WG_ENOMEM;
		c->rpos += take;
		if (nl)
			break;
	}
	wg_buf_setlen(line, line->len - 1);
	*had_cr = line->len && line->data[line->len - 1] == '\r';
	if (*had_cr)
		wg_buf_setlen(line, line->len - 1);
	if (memchr(line->data, '\r', line->len) || memchr(line->data, '\0', line->len))
		return wg_error_set(WG_ECORRUPT, "stray CR or NUL in the %s from %s", what, url);
	return 0;
}

static void response_clear(struct http_response *r)
{
	size_t i;
	for (i = 0; i < r->nheaders; i++) {
		wg_free(r->headers[i].name);
		wg_free(r->headers[i].value);
	}
	wg_free(r->headers);
	wg_free(r->reason);
	wg_free(r->url);
	memset(r, 0, sizeof(*r));
}

const char *http_response_header(const struct http_response *resp, const char *name)
{
	size_t i;
	for (i = 0; resp && i < resp->nheaders; i++)
		if (!strcasecmp(resp->headers[i].name, name))
			return resp->headers[i].value;
	return NULL;
}

static int add_header(struct http_response *r, const char *name, size_t nlen, const char *value,
		      size_t vlen)
{
	struct http_header *h;
	/* Capacity is max(8, next power of two): grow at 0, 8, 16, 32, ... */
	if (!r->nheaders || (r->nheaders >= 8 && !(r->nheaders & (r->nheaders - 1)))) {
		size_t cap = r->nheaders ? r->nheaders * 2 : 8;
		h = wg_realloc(r->headers, cap * sizeof(*h));
		if (!h)
			return wg_error_set(WG_ENOMEM, "out of memory");
		r->headers = h;
	}
	h = &r->headers[r->nheaders];
	h->name = wg_strndup(name, nlen);
	h->value = wg_strndup(value, vlen);
	if (!h->name || !h->value) {
		wg_free(h->name);
		wg_free(h->value);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	r->nheaders++;
	return 0;
}

/* Parse "HTTP/1.x SSS reason". */
static int parse_status_line(struct http_response *r, const char *line, const char *url)
{
	char ex[64];
	const char *p = line;
	if (strncmp(p, "HTTP/", 5) || !isdigit((unsigned char)p[5]) || p[6] != '.' ||
	    !isdigit((unsigned char)p[7]) || p[8] != ' ' || !isdigit((unsigned char)p[9]) ||
	    !isdigit((unsigned char)p[10]) || !isdigit((unsigned char)p[11]) ||
	    (p[12] != ' ' && p[12] != '\0'))
		return wg_error_set(WG_ECORRUPT, "malformed status line from %s: '%s'", url,
				    excerpt(ex, sizeof(ex), line, strlen(line)));
	if (p[5] != '1')
		return wg_error_set(WG_EUNSUPPORTED, "%s answered with HTTP/%c.%c; only HTTP/1.x is "
				    "supported", url, p[5], p[7]);
	r->version = 10 + (p[7] != '0');
	r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	if (r->status < 100)
		return wg_error_set(WG_ECORRUPT, "malformed status code %d from %s", r->status, url);
	wg_free(r->reason);
	r->reason = wg_strdup(p[12] ? p + 13 : "");
	return r->reason ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* Read header lines up to the empty line into r (trailers too, then r is
 * NULL and they are only checked). */
static int read_header_block(struct http_client *c, struct http_response *r, struct wg_buf *line,
			     size_t *budget, size_t limit, const char *what, const char *url)
{
	char ex[64];
	for (;;) {
		bool cr;
		const char *s, *colon, *v, *vend;
		int rc = read_line(c, line, budget, limit, &cr, what, url);
		if (rc == 1)
			return wg_error_set(WG_EIO, "connection closed in the middle of the %s from %s",
					    what, url);
		if (rc)
			return rc;
		s = wg_buf_cstr(line);
		if (!line->len)
			return 0;
		if (*s == ' ' || *s == '\t') {
			/* obs-fold: the line continues the previous value. */
			struct http_header *h;
			struct wg_buf joined = WG_BUF_INIT;
			if (!r)
				continue;
			if (!r->nheaders)
				return wg_error_set(WG_ECORRUPT, "malformed %s from %s: continuation "
						    "line without a header", what, url);
			h = &r->headers[r->nheaders - 1];
			while (*s == ' ' || *s == '\t')
				s++;
			if (wg_buf_printf(&joined, "%s%s%s", h->value, *h->value ? " " : "", s)) {
				wg_buf_release(&joined);
				return WG_ENOMEM;
			}
			wg_free(h->value);
			h->value = (char *)wg_buf_detach(&joined, NULL);
			if (!h->value)
				return wg_error_set(WG_ENOMEM, "out of memory");
			continue;
		}
		colon = strchr(s, ':');
		if (!colon || colon == s)
			return wg_error_set(WG_ECORRUPT, "malformed header line in the %s from %s: "
					    "'%s'", what, url, excerpt(ex, sizeof(ex), s, line->len));
		for (v = s; v < colon; v++)
			if (!is_tchar((unsigned char)*v))
				return wg_error_set(WG_ECORRUPT, "malformed header name in the %s from "
						    "%s: '%s'", what, url,
						    excerpt(ex, sizeof(ex), s, (size_t)(colon - s)));
		v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		vend = s + line->len;
		while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
			vend--;
		if (r && (rc = add_header(r, s, (size_t)(colon - s), v, (size_t)(vend - v))))
			return rc;
	}
}

/* Parse a Content-Length value strictly: digits only. */
static int parse_length(const char *v, uint64_t *out)
{
	uint64_t n = 0;
	if (!*v)
		return -1;
	for (; *v; v++) {
		if (!isdigit((unsigned char)*v) || n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	*out = n;
	return 0;
}

/* Work out how the body is delimited and whether the connection stays. */
static int setup_body(struct http_client *c, const char *method, const char *url)
{
	struct http_response *r = &c->resp;
	const char *conn = NULL, *enc = NULL;
	bool chunked = false, have_len = false, has_te = false;
	uint64_t len = 0;
	size_t i;
	char ex[64];

	for (i = 0; i < r->nheaders; i++) {
		const char *n = r->headers[i].name, *v = r->headers[i].value;
		if (!strcasecmp(n, "Transfer-Encoding")) {
			/* Only chunked is implemented; anything else would leave
			 * the body's end unknown. */
			const char *p = v;
			has_te = true;
			while (*p) {
				size_t tl;
				while (*p == ' ' || *p == '\t' || *p == ',')
					p++;
				tl = strcspn(p, " \t,;");
				if (tl == 7 && !strncasecmp(p, "chunked", 7) && !chunked) {
					chunked = true;
				} else if (tl) {
					return wg_error_set(WG_EUNSUPPORTED, "unsupported Transfer-Encoding "
							    "'%s' from %s", excerpt(ex, sizeof(ex), v,
										    strlen(v)), url);
				}
				p += tl;
				while (*p && *p != ',')
					p++;
			}
		} else if (!strcasecmp(n, "Content-Length")) {
			uint64_t l;
			if (parse_length(v, &l))
				return wg_error_set(WG_ECORRUPT, "malformed Content-Length '%s' from %s",
						    excerpt(ex, sizeof(ex), v, strlen(v)), url);
			if (have_len && l != len)
				return wg_error_set(WG_ECORRUPT, "conflicting Content-Length headers "
						    "from %s", url);
			have_len = true;
			len = l;
		} else if (!strcasecmp(n, "Connection")) {
			conn = v;
		} else if (!strcasecmp(n, "Content-Encoding")) {
			if (enc && *v)
				return wg_error_set(WG_EUNSUPPORTED, "several Content-Encoding headers "
						    "from %s", url);
			if (*v)
				enc = v;
		}
	}
	if (r->version >= 11)
		c->keep_alive = !(conn && list_has_token(conn, "close"));
	else
		c->keep_alive = conn && list_has_token(conn, "keep-alive");

	c->gzip = false;
	c->remaining = 0;
	c->chunk_done = false;
	if (!strcmp(method, "HEAD") || r->status == 204 || r->status == 304) {
		c->mode = HTTP_BODY_NONE;
		return 0;
	}
	if (has_te && !chunked)
		return wg_error_set(WG_ECORRUPT, "empty Transfer-Encoding from %s", url);
	if (chunked) {
		c->mode = HTTP_BODY_CHUNKED;
	} else if (have_len) {
		c->mode = len ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
		c->remaining = len;
	} else {
		c->mode = HTTP_BODY_CLOSE;
		c->keep_alive = false;
	}
	if (enc && !strcasecmp(enc, "gzip"))
		c->gzip = true;
	else if (enc && !strcasecmp(enc, "x-gzip"))
		c->gzip = true;
	else if (enc && strcasecmp(enc, "identity"))
		return wg_error_set(WG_EUNSUPPORTED, "%s sent Content-Encoding '%s', which webgit "
				    "cannot decode", url, excerpt(ex, sizeof(ex), enc, strlen(enc)));
	return 0;
}

/* Read the status line and headers of the final (non-1xx) response.
 * Returns 1 if the connection ended before the first byte. */
static int read_head(struct http_client *c, const char *method, const char *url)
{
	struct wg_buf line = WG_BUF_INIT;
	size_t budget = HTTP_MAX_HEAD;
	int rc;

	for (;;) {
		bool cr;
		char *u = c->resp.url;
		c->resp.url = NULL;
		response_clear(&c->resp);
		c->resp.url = u;
		rc = read_line(c, &line, &budget, HTTP_MAX_HEAD, &cr, "response headers", url);
		if (rc)
			break;
		if ((rc = parse_status_line(&c->resp, wg_buf_cstr(&line), url)))
			break;
		if ((rc = read_header_block(c, &c->resp, &line, &budget, HTTP_MAX_HEAD,
					     "response headers", url)))
			break;
		if (c->resp.status == 101) {
			rc = wg_error_set(WG_EUNSUPPORTED, "%s switched protocols (101), which this "
					  "client does not do", url);
			break;
		}
		if (c->resp.status >= 200)
			break;
		/* 100 Continue, 103 Early Hints: informational, the real
		 * response follows. */
	}
	wg_buf_release(&line);
	if (!rc)
		rc = setup_body(c, method, url);
	return rc;
}

/* Body bytes, still encoded (gzip), go to a sink. */
typedef int (*raw_sink)(void *ctx, const unsigned char *data, size_t len);

/* Parse a chunk size line: hex digits, optional whitespace, optional
 * ";extensions" (ignored). */
static int parse_chunk_size(const char *s, size_t len, uint64_t *out, const char *url)
{
	char ex[64];
	const char *p = s, *end = s + len;
	uint64_t n = 0;
	int d;
	if (p == end || wg_hex_value((unsigned char)*p) < 0)
		goto bad;
	while (p < end && (d = wg_hex_value((unsigned char)*p)) >= 0) {
		if (n > (UINT64_MAX >> 4))
			return wg_error_set(WG_ECORRUPT, "chunk size '%s' from %s is too large",
					    excerpt(ex, sizeof(ex), s, len), url);
		n = n * 16 + (uint64_t)d;
		p++;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p != ';')
		goto bad;
	for (; p < end; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			goto bad;
	*out = n;
	return 0;
bad:
	return wg_error_set(WG_ECORRUPT, "malformed chunk size '%s' in the response from %s",
			    excerpt(ex, sizeof(ex), s, len), url);
}

/* Pass up to `want` buffered or newly read bytes to the sink. */
static int deliver(struct http_client *c, uint64_t want, raw_sink sink, void *ctx, bool *eof,
		   uint64_t *got)
{
	size_t avail, take;
	*eof = false;
	if (c->rpos == c->rlen) {
		long n = fill(c);
		if (n < 0)
			return (int)n;
		if (n == 0) {
			*eof = true;
			return 0;
		}
	}
	avail = c->rlen - c->rpos;
	take = want < avail ? (size_t)want : avail;
	c->rpos += take;
	*got = take;
	return sink(ctx, c->rbuf + c->rpos - take, take);
}

static int read_raw_body(struct http_client *c, raw_sink sink, void *ctx)
{
	const char *url = c->resp.url ? c->resp.url : c->base_display;
	struct wg_buf line = WG_BUF_INIT;
	uint64_t done = 0, got = 0;
	bool eof;
	int rc = 0;

	switch (c->mode) {
	case HTTP_BODY_NONE:
		break;
	case HTTP_BODY_LENGTH: {
		uint64_t total = c->remaining;
		while (c->remaining && !rc) {
			rc = deliver(c, c->remaining, sink, ctx, &eof, &got);
			if (!rc && eof)
				rc = wg_error_set(WG_EIO, "connection to %s closed after %" PRIu64 " of %"
						  PRIu64 " body bytes", url, total - c->remaining, total);
			if (!rc)
				c->remaining -= got;
		}
		break;
	}
	case HTTP_BODY_CLOSE:
		for (;;) {
			rc = deliver(c, UINT64_MAX, sink, ctx, &eof, &got);
			if (rc || eof)
				break;
		}
		break;
	case HTTP_BODY_CHUNKED:
		while (!rc && !c->chunk_done) {
			size_t budget = HTTP_MAX_CHUNK_LINE;
			bool cr;
			if (!c->remaining) {
				rc = read_line(c, &line, &budget, HTTP_MAX_CHUNK_LINE, &cr,
					       "chunk size line", url);
				if (rc == 1)
					rc = wg_error_set(WG_EIO, "connection to %s closed before the end "
							  "of the chunked body", url);
				if (rc)
					break;
				if (!cr) {
					rc = wg_error_set(WG_ECORRUPT, "chunk size line from %s does not "
							  "end in CRLF", url);
					break;
				}
				if ((rc = parse_chunk_size(wg_buf_cstr(&line), line.len, &c->remaining,
							   url)))
					break;
				if (!c->remaining) {
					size_t tb = HTTP_MAX_TRAILERS;
					rc = read_header_block(c, NULL, &line, &tb, HTTP_MAX_TRAILERS,
							       "trailers", url);
					c->chunk_done = true;
					break;
				}
			}
			while (c->remaining && !rc) {
				rc = deliver(c, c->remaining, sink, ctx, &eof, &got);
				if (!rc && eof)
					rc = wg_error_set(WG_EIO, "connection to %s closed in the middle "
							  "of a chunk", url);
				if (!rc)
					c->remaining -= got;
			}
			if (rc)
				break;
			/* The chunk's data must be followed by exactly CRLF. */
			for (done = 0; done < 2 && !rc; done++) {
				if (c->rpos == c->rlen) {
					long n = fill(c);
					if (n <= 0) {
						rc = n < 0 ? (int)n : wg_error_set(WG_EIO, "connection to "
							"%s closed in the middle of a chunk", url);
						break;
					}
				}
				if (c->rbuf[c->rpos] != (done ? '\n' : '\r')) {
					rc = wg_error_set(WG_ECORRUPT, "chunk data from %s is longer "
							  "than its declared size (no CRLF after it)", url);
					break;
				}
				c->rpos++;
			}
		}
		break;
	}
	wg_buf_release(&line);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* body decoding and delivery */

struct body_ctx {
	struct http_client *c;
	http_body_cb cb;
	void *payload;
	z_stream zs;
	bool zinit;
	bool zend;        /* the last gzip member ended */
	int cb_rc;        /* the callback asked to stop */
	uint64_t zin, zout;  /* gzip bytes in and out, for max_inflate_ratio */
	unsigned char out[HTTP_IO_CHUNK];
};

/* A gzip bomb is refused like one in a pack (util/limits.h). */
static int gzip_ratio(struct body_ctx *b, uInt in_before, size_t produced)
{
	b->zin += in_before - b->zs.avail_in;
	b->zout += produced;
	if (wg_limits_check_inflate(NULL, b->zout, b->zin, "the gzip-encoded response"))
		return wg_error_prefix("%s", b->c->resp.url);
	return 0;
}

static int call_cb(struct body_ctx *b, const void *data, size_t len)
{
	int rc;
	if (!b->cb || !len)
		return 0;
	rc = b->cb(b->payload, data, len);
	if (rc) {
		b->cb_rc = rc;
		if (rc > 0)
			return wg_error_set(WG_ERROR, "transfer from %s stopped by the caller",
					    b->c->resp.url);
		return rc;
	}
	return 0;
}

static int body_sink(void *ctx, const unsigned char *data, size_t len)
{
	struct body_ctx *b = ctx;
	if (!b->c->gzip)
		return call_cb(b, data, len);
	if (!b->zinit) {
		memset(&b->zs, 0, sizeof(b->zs));
		if (inflateInit2(&b->zs, 15 + 16) != Z_OK)
			return wg_error_set(WG_ENOMEM, "cannot set up gzip decoding");
		b->zinit = true;
	}
	b->zs.next_in = (unsigned char *)data;
	b->zs.avail_in = (uInt)len;
	while (b->zs.avail_in) {
		int zr;
		if (b->zend) {
			/* Another gzip member follows (concatenated gzip). */
			inflateReset(&b->zs);
			b->zend = false;
		}
		uInt in_before = b->zs.avail_in;
		int err;
		b->zs.next_out = b->out;
		b->zs.avail_out = sizeof(b->out);
		zr = inflate(&b->zs, Z_NO_FLUSH);
		if ((err = gzip_ratio(b, in_before, sizeof(b->out) - b->zs.avail_out)))
			return err;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return wg_error_set(WG_ECORRUPT, "invalid gzip data in the response from %s%s%s",
					    b->c->resp.url, b->zs.msg ? ": " : "",
					    b->zs.msg ? b->zs.msg : "");
		if (zr == Z_STREAM_END)
			b->zend = true;
		if (call_cb(b, b->out, sizeof(b->out) - b->zs.avail_out))
			return b->cb_rc < 0 ? b->cb_rc : WG_ERROR;
		if (zr == Z_BUF_ERROR && b->zs.avail_out)
			break;
	}
	/* Output may still be pending with all input consumed. */
	while (!b->zend) {
		int zr, err;
		b->zs.next_out = b->out;
		b->zs.avail_out = sizeof(b->out);
		zr = inflate(&b->zs, Z_NO_FLUSH);
		if ((err = gzip_ratio(b, b->zs.avail_in, sizeof(b->out) - b->zs.avail_out)))
			return err;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return wg_error_set(WG_ECORRUPT, "invalid gzip data in the response from %s",
					    b->c->resp.url);
		if (zr == Z_STREAM_END)
			b->zend = true;
		if (sizeof(b->out) == b->zs.avail_out)
			break;
		if (call_cb(b, b->out, sizeof(b->out) - b->zs.avail_out))
			return b->cb_rc < 0 ? b->cb_rc : WG_ERROR;
	}
	return 0;
}

int http_client_read_body(struct http_client *c, http_body_cb on_body, void *payload)
{
	struct body_ctx *b;
	int rc;

	if (!c->body_pending)
		return wg_error_set(WG_EINVALID, "no response body to read");
	c->body_pending = false;
	b = wg_malloc(sizeof(*b));
	if (!b) {
		conn_close(c);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	b->c = c;
	b->cb = on_body;
	b->payload = payload;
	b->zinit = b->zend = false;
	b->cb_rc = 0;
	b->zin = b->zout = 0;
	rc = read_raw_body(c, body_sink, b);
	if (!rc && c->gzip && c->mode != HTTP_BODY_NONE && !b->zend)
		rc = wg_error_set(WG_ECORRUPT, "the gzip-compressed response from %s is truncated",
				  c->resp.url);
	if (b->zinit)
		inflateEnd(&b->zs);
	wg_free(b);
	if (rc || !c->keep_alive || c->rpos != c->rlen)
		conn_close(c);
	return rc;
}

static int discard_sink(void *ctx, const unsigned char *data, size_t len)
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

/* ------------------------------------------------------------------------ */
/* writing requests */

static int gzip_buffer(struct wg_buf *out, const void *data, size_t len)
{
	z_stream zs;
	int zr;
	wg_buf_reset(out);
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return wg_error_set(WG_ENOMEM, "cannot set up gzip compression");
	zs.next_in = (unsigned char *)data;
	zs.avail_in = 0;
	do {
		if (!zs.avail_in && len) {
			uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
			zs.next_in = (unsigned char *)data;
			zs.avail_in = n;
			data = (const unsigned char *)data + n;
			len -= n;
		}
		if (wg_buf_grow(out, 65536)) {
			deflateEnd(&zs);
			return WG_ENOMEM;
		}
		zs.next_out = out->data + out->len;
		zs.avail_out = (uInt)(out->cap - out->len - 1);
		zr = deflate(&zs, len || zs.avail_in ? Z_NO_FLUSH : Z_FINISH);
		wg_buf_setlen(out, out->cap - 1 - zs.avail_out);
	} while (zr == Z_OK || zr == Z_BUF_ERROR);
	deflateEnd(&zs);
	if (zr != Z_STREAM_END)
		return wg_error_set(WG_ERROR, "gzip compression of the request body failed");
	return 0;
}

static int write_chunk(struct http_client *c, struct wg_buf *frame, const void *data, size_t len)
{
	int err;
	if (!len)
		return 0;
	wg_buf_reset(frame);
	if ((err = wg_buf_printf(frame, "%zx\r\n", len)) || (err = wg_buf_add(frame, data, len)) ||
	    (err = wg_buf_adds(frame, "\r\n")))
		return err;
	return conn_write(c, frame->data, frame->len);
}

/* Stream a body source as chunks, gzip-compressed on the fly if asked. */
static int write_source_body(struct http_client *c, const struct http_body_source *src,
			     bool gzip)
{
	unsigned char *in = wg_malloc(HTTP_IO_CHUNK), *zout = gzip ? wg_malloc(HTTP_IO_CHUNK) : NULL;
	struct wg_buf frame = WG_BUF_INIT;
	z_stream zs;
	bool zinit = false, end = false;
	int rc = 0;

	if (!in || (gzip && !zout)) {
		rc = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	if (gzip) {
		memset(&zs, 0, sizeof(zs));
		if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
			rc = wg_error_set(WG_ENOMEM, "cannot set up gzip compression");
			goto out;
		}
		zinit = true;
	}
	while (!rc && !end) {
		size_t n = 0;
		if ((rc = src->read(src->payload, in, HTTP_IO_CHUNK, &n)))
			break;
		if (n > HTTP_IO_CHUNK) {
			rc = wg_error_set(WG_EINVALID, "request body source returned too many bytes");
			break;
		}
		end = n == 0;
		if (!gzip) {
			rc = write_chunk(c, &frame, in, n);
			continue;
		}
		zs.next_in = in;
		zs.avail_in = (uInt)n;
		for (;;) {
			int zr;
			zs.next_out = zout;
			zs.avail_out = HTTP_IO_CHUNK;
			zr = deflate(&zs, end ? Z_FINISH : Z_NO_FLUSH);
			if (zr == Z_STREAM_ERROR) {
				rc = wg_error_set(WG_ERROR, "gzip compression of the request body failed");
				break;
			}
			if ((rc = write_chunk(c, &frame, zout, HTTP_IO_CHUNK - zs.avail_out)))
				break;
			if (end ? zr == Z_STREAM_END : (zs.avail_out && !zs.avail_in))
				break;
		}
	}
	if (!rc)
		rc = conn_write(c, "0\r\n\r\n", 5);
out:
	if (zinit)
		deflateEnd(&zs);
	wg_free(in);
	wg_free(zout);
	wg_buf_release(&frame);
	return rc;
}

static bool caller_has_header(const struct http_request *req, const char *name)
{
	size_t i, n = strlen(name);
	for (i = 0; i < req->nheaders; i++)
		if (!strncasecmp(req->headers[i], name, n) && req->headers[i][n] == ':')
			return true;
	return false;
}

/* Put together and send one request. `with_body` is false once a
 * redirect turned it into a GET. *auth_sent tells whether credentials
 * went with it. */
static int write_request(struct http_client *c, const char *method, const struct http_url *u,
			 const struct http_request *req, bool with_body, bool *auth_sent)
{
	struct wg_buf head = WG_BUF_INIT;
	const void *body = NULL;
	size_t body_len = 0, i;
	bool v6 = strchr(u->host, ':') != NULL;
	int err;

	*auth_sent = false;
	err = wg_buf_printf(&head, "%s %s HTTP/1.1\r\nHost: %s%s%s", method, u->path,
			    v6 ? "[" : "", u->host, v6 ? "]" : "");
	if (!err && u->port != default_port(u->https))
		err = wg_buf_printf(&head, ":%u", u->port);
	if (!err)
		err = wg_buf_adds(&head, "\r\n");
	if (!err && !caller_has_header(req, "User-Agent"))
		err = wg_buf_adds(&head, "User-Agent: " HTTP_USER_AGENT "\r\n");
	if (!err && !caller_has_header(req, "Accept-Encoding"))
		err = wg_buf_adds(&head, "Accept-Encoding: gzip\r\n");
	if (!err && !caller_has_header(req, "Authorization")) {
		if (c->bearer) {
			err = wg_buf_printf(&head, "Authorization: Bearer %s\r\n", c->bearer);
			*auth_sent = true;
		} else if (c->basic_active && c->user) {
			struct wg_buf cred = WG_BUF_INIT;
			err = wg_buf_printf(&cred, "%s:%s", c->user, c->pass ? c->pass : "");
			if (!err)
				err = wg_buf_adds(&head, "Authorization: Basic ");
			if (!err)
				err = base64_add(&head, cred.data, cred.len);
			if (!err)
				err = wg_buf_adds(&head, "\r\n");
			if (cred.data)
				memset(cred.data, 0, cred.cap);
			wg_buf_release(&cred);
			*auth_sent = true;
		}
	}
	for (i = 0; !err && i < req->nheaders; i++)
		err = wg_buf_printf(&head, "%s\r\n", req->headers[i]);
	if (!err && with_body && req->body_source) {
		err = wg_buf_printf(&head, "Transfer-Encoding: chunked\r\n%s",
				    req->gzip_body ? "Content-Encoding: gzip\r\n" : "");
	} else if (!err && with_body && (req->body || req->body_len || strcmp(method, "GET"))) {
		body = req->gzip_body ? c->gz_body.data : req->body;
		body_len = req->gzip_body ? c->gz_body.len : req->body_len;
		err = wg_buf_printf(&head, "Content-Length: %zu\r\n%s", body_len,
				    req->gzip_body ? "Content-Encoding: gzip\r\n" : "");
	} else if (!err && (!strcmp(method, "POST") || !strcmp(method, "PUT") ||
			    !strcmp(method, "PATCH"))) {
		err = wg_buf_adds(&head, "Content-Length: 0\r\n");
	}
	if (!err)
		err = wg_buf_adds(&head, "\r\n");
	/* Small bodies go in the same write as the head. */
	if (!err && body_len && body_len <= 65536) {
		err = wg_buf_add(&head, body, body_len);
		body_len = 0;
	}
	c->stats.requests++;
	if (c->conn_requests++)
		c->stats.reused++;
	if (!err)
		err = conn_write(c, head.data, head.len);
	if (head.data)
		memset(head.data, 0, head.cap);  /* it held the credentials */
	wg_buf_release(&head);
	if (!err && body_len)
		err = conn_write(c, body, body_len);
	if (!err && with_body && req->body_source)
		err = write_source_body(c, req->body_source, req->gzip_body);
	if (!err)
		err = conn_flush(c);
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
	for (attempt = 0; attempt < 2; attempt++) {
		bool reused = conn_reusable(c);
		if (!reused && (rc = conn_open(c)))
			return rc;
		c->io_failed = c->io_timed_out = false;
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
			rc = read_head(c, method, url);
		if (rc == 1) {
			rc = wg_error_set(WG_EIO, "%s closed the connection without sending a "
					  "response to %s %s", c->base.host, method, url);
			if (reused && attempt == 0) {
				conn_close(c);
				c->stats.retries++;
				continue;
			}
		} else if (rc && reused && attempt == 0 && !c->resp_bytes && c->io_failed &&
			   !c->io_timed_out) {
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

/* ------------------------------------------------------------------------ */
/* authentication */

/* Does any WWW-Authenticate challenge offer this scheme? */
static bool offers_scheme(const struct http_response *r, const char *scheme, bool *any)
{
	size_t i, n = strlen(scheme);
	*any = false;
	for (i = 0; i < r->nheaders; i++) {
		const char *p;
		if (strcasecmp(r->headers[i].name, "WWW-Authenticate"))
			continue;
		*any = true;
		/* Challenges are "Scheme params, Scheme2 ..."; a scheme starts
		 * the value or follows a comma and is followed by a space,
		 * comma or the end. */
		for (p = r->headers[i].value; p; p = strchr(p, ',')) {
			while (*p == ',' || *p == ' ' || *p == '\t')
				p++;
			if (!strncasecmp(p, scheme, n) && (!p[n] || p[n] == ' ' || p[n] == ','))
				return true;
		}
	}
	return false;
}

/* Read a line from the terminal, without echo for passwords. */
static int prompt_line(const char *prompt, bool echo, char **out)
{
	struct termios old, quiet;
	bool restore = false;
	struct wg_buf line = WG_BUF_INIT;
	int err = 0;

	fputs(prompt, stderr);
	fflush(stderr);
	if (!echo && tcgetattr(STDIN_FILENO, &old) == 0) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		/* TCSANOW, not TCSAFLUSH: keep what the user already typed ahead. */
		restore = tcsetattr(STDIN_FILENO, TCSANOW, &quiet) == 0;
	}
	for (;;) {
		char ch;
		ssize_t n = read(STDIN_FILENO, &ch, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = wg_error_set(WG_EIO, "could not read from the terminal");
			break;
		}
		if (ch == '\n')
			break;
		if (line.len >= 4096) {
			err = wg_error_set(WG_EINVALID, "input too long");
			break;
		}
		if (ch != '\r' && (err = wg_buf_addch(&line, ch)))
			break;
	}
	if (restore) {
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
		fputc('\n', stderr);
	}
	if (err) {
		if (line.data)
			memset(line.data, 0, line.cap);
		wg_buf_release(&line);
		return err;
	}
	*out = (char *)wg_buf_detach(&line, NULL);
	return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* Ask for what is missing of user and password, as git's credential
 * prompt does. */
static int prompt_credentials(struct http_client *c)
{
	struct wg_buf prompt = WG_BUF_INIT;
	int err = 0;
	if (!c->user) {
		err = wg_buf_adds(&prompt, "Username for '");
		if (!err)
			err = url_origin(&prompt, &c->base);
		if (!err)
			err = wg_buf_adds(&prompt, "': ");
		if (!err)
			err = prompt_line(wg_buf_cstr(&prompt), true, &c->user);
	}
	if (!err && !c->pass) {
		wg_buf_reset(&prompt);
		err = wg_buf_printf(&prompt, "Password for '%s://%s@", c->base.https ? "https" : "http",
				    c->user);
		if (!err) {
			/* scheme://host[:port] minus the scheme already written */
			struct wg_buf origin = WG_BUF_INIT;
			err = url_origin(&origin, &c->base);
			if (!err)
				err = wg_buf_printf(&prompt, "%s': ",
						    strstr(wg_buf_cstr(&origin), "://") + 3);
			wg_buf_release(&origin);
		}
		if (!err)
			err = prompt_line(wg_buf_cstr(&prompt), false, &c->pass);
	}
	wg_buf_release(&prompt);
	return err;
}

/* ------------------------------------------------------------------------ */
/* the client */

static int check_request(const struct http_request *req, const char *method)
{
	static const char *const reserved[] = { "Host", "Content-Length", "Transfer-Encoding",
						"Connection" };
	size_t i, j;
	const char *p;
	for (p = method; *p; p++)
		if (!is_tchar((unsigned char)*p))
			return wg_error_set(WG_EINVALID, "invalid HTTP method '%s'", method);
	if (!*method)
		return wg_error_set(WG_EINVALID, "empty HTTP method");
	if (req->body_source && (req->body || req->body_len))
		return wg_error_set(WG_EINVALID, "a request has either body bytes or a body source");
	if (req->body_source && !req->body_source->read)
		return wg_error_set(WG_EINVALID, "body source without a read function");
	if (!req->body && req->body_len)
		return wg_error_set(WG_EINVALID, "request body length without body bytes");
	for (i = 0; i < req->nheaders; i++) {
		const char *h = req->headers[i], *colon = strchr(h, ':');
		if (!colon || colon == h)
			return wg_error_set(WG_EINVALID, "request header '%s' is not 'Name: value'", h);
		for (p = h; p < colon; p++)
			if (!is_tchar((unsigned char)*p))
				return wg_error_set(WG_EINVALID, "invalid request header name in '%s'", h);
		for (p = colon; *p; p++)
			if ((unsigned char)*p < 0x20 && *p != '\t')
				return wg_error_set(WG_EINVALID, "control character in request header "
						    "'%.*s'", (int)(colon - h), h);
		for (j = 0; j < sizeof(reserved) / sizeof(reserved[0]); j++)
			if ((size_t)(colon - h) == strlen(reserved[j]) &&
			    !strncasecmp(h, reserved[j], (size_t)(colon - h)))
				return wg_error_set(WG_EINVALID, "request header '%s' is set by the HTTP "
						    "client itself", reserved[j]);
		if (req->gzip_body && !strncasecmp(h, "Content-Encoding:", 17))
			return wg_error_set(WG_EINVALID, "Content-Encoding header given with "
					    "gzip_body");
	}
	return 0;
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
	unsigned redirects = 0;
	int rc;

	*out = NULL;
	if (c->body_pending)
		conn_close(c);  /* the last body was left unread */
	if (!method)
		method = req->body || req->body_len || req->body_source ? "POST" : "GET";
	if ((rc = check_request(req, method)))
		return rc;
	with_body = req->body || req->body_len || req->body_source;
	if ((rc = url_resolve(&cur, &c->base, req->url ? req->url : "")))
		return rc;
	if (!same_origin(&cur, &c->base)) {
		char *shown = url_display(&cur);
		struct wg_buf origin = WG_BUF_INIT;
		url_origin(&origin, &c->base);
		rc = wg_error_set(WG_EINVALID, "%s is not on %s: an HTTP client talks to one origin",
				  shown ? shown : "the URL", wg_buf_cstr(&origin));
		wg_buf_release(&origin);
		wg_free(shown);
		url_release(&cur);
		return rc;
	}
	if (with_body && req->gzip_body && !req->body_source &&
	    (rc = gzip_buffer(&c->gz_body, req->body, req->body_len))) {
		url_release(&cur);
		return rc;
	}

	for (;;) {
		bool auth_sent = false;
		const char *loc;
		int status;

		wg_free(url);
		url = url_display(&cur);
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
			if ((rc = url_resolve(&next, &cur, loc))) {
				wg_error_prefix("bad redirect from %s", url);
				break;
			}
			next_url = url_display(&next);
			if (!same_origin(&next, &c->base)) {
				rc = wg_error_set(WG_EUNSUPPORTED, "refusing the redirect from %s to %s: "
						  "it leaves the origin (only redirects on the same "
						  "scheme, host and port are followed)", url,
						  next_url ? next_url : "another origin");
				wg_free(next_url);
				url_release(&next);
				break;
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
			url_release(&cur);
			cur = next;
			continue;
		}
		if (status == 401) {
			bool any, basic = offers_scheme(&c->resp, "Basic", &any);
			bool bearer = offers_scheme(&c->resp, "Bearer", &any);
			drain_body(c);
			if (auth_sent || auth_retried || caller_has_header(req, "Authorization")) {
				rc = wg_error_set(WG_ERROR, "authentication failed for %s", url);
				break;
			}
			if (any && !basic) {
				rc = wg_error_set(WG_ERROR, "authentication required for %s (%s)", url,
						  bearer ? "the server wants a token: set WEBGIT_HTTP_BEARER"
							 : "the server asks for a scheme other than "
							   "Basic or Bearer");
				break;
			}
			if (!c->user || !c->pass) {
				if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
					rc = wg_error_set(WG_ERROR, "authentication required for %s (put "
							  "credentials in the URL, or set "
							  "WEBGIT_HTTP_USER and WEBGIT_HTTP_PASSWORD, or "
							  "WEBGIT_HTTP_BEARER)", url);
					break;
				}
				if ((rc = prompt_credentials(c)))
					break;
			}
			c->basic_active = true;
			auth_retried = true;
			continue;
		}
		break;
	}
	wg_free(url);
	wg_free(first_url);
	url_release(&cur);
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

static int parse_timeout(const char *s, long *out)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	/* at most a day: the milliseconds fit a 32-bit int (poll's argument) */
	if (errno || end == s || *end || !(v > 0) || v > 86400.0)
		return wg_error_set(WG_EINVALID, "WEBGIT_HTTP_TIMEOUT must be a number of seconds "
				    "above 0 and at most 86400, not '%s'", s);
	*out = (long)(v * 1000.0);
	if (*out < 1)
		*out = 1;
	return 0;
}

void http_client_set_cancel(struct http_client *client, int (*cancelled)(void))
{
	client->cancelled = cancelled;
}

int http_client_new(struct http_client **out, const char *base_url)
{
	struct http_client *c;
	const char *env;
	int rc;

	*out = NULL;
	c = wg_calloc(1, sizeof(*c));
	if (!c)
		return wg_error_set(WG_ENOMEM, "out of memory");
	c->fd = -1;
	c->timeout_ms = HTTP_DEFAULT_TIMEOUT_MS;
	if ((rc = url_parse(&c->base, base_url)))
		goto fail;
	env = getenv("WEBGIT_HTTP_TIMEOUT");
	if (env && *env && (rc = parse_timeout(env, &c->timeout_ms)))
		goto fail;
	c->base_display = url_display(&c->base);
	if (!c->base_display) {
		rc = wg_error_set(WG_ENOMEM, "out of memory");
		goto fail;
	}
	if (c->base.user) {
		c->user = c->base.user;
		c->pass = c->base.pass;
		c->base.user = c->base.pass = NULL;
	} else {
		const char *u = getenv("WEBGIT_HTTP_USER"), *p = getenv("WEBGIT_HTTP_PASSWORD");
		const char *t = getenv("WEBGIT_HTTP_BEARER");
		if (u && *u) {
			c->user = http_strdup(u);
			c->pass = http_strdup(p);
			if (!c->user || (p && !c->pass)) {
				rc = wg_error_set(WG_ENOMEM, "out of memory");
				goto fail;
			}
		} else if (t && *t) {
			for (env = t; *env; env++) {
				if ((unsigned char)*env < 0x20 || *env == 0x7f) {
					rc = wg_error_set(WG_EINVALID, "WEBGIT_HTTP_BEARER contains a "
							  "control character");
					goto fail;
				}
			}
			if (!(c->bearer = wg_strdup(t))) {
				rc = wg_error_set(WG_ENOMEM, "out of memory");
				goto fail;
			}
		}
	}
	*out = c;
	return 0;
fail:
	http_client_free(c);
	return rc;
}

void http_client_free(struct http_client *c)
{
	if (!c)
		return;
	conn_close(c);
	url_release(&c->base);
	wg_free(c->base_display);
	free_secret(c->user);
	free_secret(c->pass);
	free_secret(c->bearer);
	free_trust_anchors(c);
	wg_free(c->ca_file);
	response_clear(&c->resp);
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
