/* URLs of the native HTTP client: absolute http(s) URLs parsed into
 * scheme, host, port, path and credentials, references resolved as RFC 3986
 * section 5 says, and the forms that go into messages (never with user
 * information). The user information is found by the core's
 * wg_url_userinfo(), so what the client sends as credentials is exactly
 * what the core redacts from everything it stores and prints. */
#include "http/url.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"
#include "util/url.h"

void http_url_release(struct http_url *u)
{
	wg_free(u->host);
	wg_free(u->path);
	wg_url_free_secret(u->user);
	wg_url_free_secret(u->pass);
	memset(u, 0, sizeof(*u));
}

unsigned http_default_port(bool https)
{
	return https ? 443 : 80;
}

bool http_url_same_origin(const struct http_url *a, const struct http_url *b)
{
	return a->https == b->https && a->port == b->port && !strcasecmp(a->host, b->host);
}

/* "scheme://host[:port]": the origin as git shows it in prompts. */
int http_url_origin(struct wg_buf *out, const struct http_url *u)
{
	bool v6 = strchr(u->host, ':') != NULL;
	int err = wg_buf_printf(out, "%s://%s%s%s", u->https ? "https" : "http", v6 ? "[" : "",
				u->host, v6 ? "]" : "");
	if (!err && u->port != http_default_port(u->https))
		err = wg_buf_printf(out, ":%u", u->port);
	return err;
}

/* The URL without user information: the only form that goes into
 * messages, so no password can leak into a log. */
char *http_url_display(const struct http_url *u)
{
	struct wg_buf b = WG_BUF_INIT;
	if (http_url_origin(&b, u) || wg_buf_adds(&b, u->path)) {
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
int http_url_parse(struct http_url *u, const char *s)
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
	/* The authority ends where the core's wg_url_userinfo() says; a '\\'
	 * there (which browsers read as '/') is refused rather than guessed. */
	auth_end = auth + strcspn(auth, "/?#\\");
	if (*auth_end == '\\') {
		err = wg_error_set(WG_EINVALID, "backslash in the host part of URL '%s'",
				   wg_buf_cstr(&shown));
		goto out;
	}
	{
		size_t ui_start, ui_len;
		if (wg_url_userinfo(s, &ui_start, &ui_len)) {
			at = s + ui_start + ui_len;
			if (s + ui_start != auth || at >= auth_end || *at != '@') {
				/* both must read the authority alike */
				err = wg_error_set(WG_EINVALID, "bad user information in URL '%s'",
						   wg_buf_cstr(&shown));
				goto out;
			}
		}
	}
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
	if (hp > hp_end)
		hp = hp_end;   /* cannot happen ('@' is inside the authority); for the compiler */
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
		/* (hp_end >= hp always; said so the optimizer sees it too) */
		size_t hlen = hp_end > hp ? (size_t)(hp_end - hp) : 0;
		host = hp;
		host_end = hlen ? memchr(hp, ':', hlen) : NULL;
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
	u->port = http_default_port(u->https);
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
		http_url_release(u);
	wg_buf_release(&shown);
	return err;
}

/* Resolve a URL reference (a Location header, or a request URL) against
 * `base`, RFC 3986 section 5.2. User information is never carried. */
int http_url_resolve(struct http_url *out, const struct http_url *base, const char *ref)
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
			err = http_url_parse(out, ref);
			goto strip;
		}
	}
	if (ref[0] == '/' && ref[1] == '/') {
		struct wg_buf abs = WG_BUF_INIT;
		err = wg_buf_printf(&abs, "%s:%s", base->https ? "https" : "http", ref);
		if (!err)
			err = http_url_parse(out, wg_buf_cstr(&abs));
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
		http_url_release(out);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	return 0;
strip:
	if (!err) {
		wg_url_free_secret(out->user);
		wg_url_free_secret(out->pass);
		out->user = out->pass = NULL;
	}
	return err;
}
