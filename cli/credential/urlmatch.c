/* Matching a request URL against the <url> of credential.<url>.* keys, by
 * git's rules for http.<url>.* (git-config(1)): both URLs normalized
 * (case of scheme and host, percent-escapes, default ports, dot
 * segments), then the scheme, the user name if the key has one, the host
 * (a "*" label matches any one label), the port and the path (a prefix
 * ending at a '/') must agree. A key whose <url> is not a whole URL
 * ("example.com", "https://") is a partial one: each part it has must
 * equal the credential's (gitcredentials(7)). */
#include "credential/helper.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"

#define URL_RESERVED ":/?#[]@!$&'()*+,;="
#define URL_UNSAFE " <>\"%{}|\\^`"

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = tolower(ch);
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Append s[0..n) with its percent-escapes normalized: an escaped byte
 * that needs none is decoded, a byte that needs one gets it, in upper
 * case hex. False for a '%' without two hex digits. */
static bool add_normalized(struct wg_buf *out, const char *s, size_t n, bool *oom)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		bool was_esc = false;
		if (ch == '%') {
			int hi, lo;
			if (i + 2 >= n)
				return false;
			hi = hexval((unsigned char)s[i + 1]);
			lo = hexval((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0)
				return false;
			ch = (unsigned char)(hi << 4 | lo);
			i += 2;
			was_esc = true;
		}
		if (ch <= 0x20 || ch >= 0x7f || strchr(URL_UNSAFE, ch) ||
		    (was_esc && strchr(URL_RESERVED, ch)))
			*oom |= wg_buf_printf(out, "%%%02X", ch) != 0;
		else
			*oom |= wg_buf_addch(out, ch) != 0;
	}
	return true;
}

void cli_url_norm_release(struct cli_url_norm *u)
{
	wg_free(u->scheme);
	wg_free(u->user);
	wg_free(u->host);
	wg_free(u->port);
	wg_free(u->path);
	memset(u, 0, sizeof(*u));
}

static bool is_host_char(int ch, bool globs)
{
	return isalnum(ch) || strchr(".-_[:]", ch) || (globs && ch == '*');
}

/* The path: dot segments resolved, escapes normalized, always starting
 * with '/'; query and fragment left out. */
static bool normalize_path(struct wg_buf *out, const char *p, bool *oom)
{
	*oom |= wg_buf_addch(out, '/') != 0;
	if (*p == '/')
		p++;
	for (;;) {
		size_t seg_start = out->len, n = strcspn(p, "/?#");
		const char *seg;
		if (!add_normalized(out, p, n, oom))
			return false;
		if (*oom)
			return true;
		seg = wg_buf_cstr(out) + seg_start;
		if (!strcmp(seg, ".")) {
			wg_buf_setlen(out, seg_start);
		} else if (!strcmp(seg, "..")) {
			/* drop the segment before it, never the leading '/' */
			size_t prev;
			if (seg_start <= 1)
				return false;
			prev = seg_start - 1;  /* the '/' before ".." */
			while (prev > 0 && out->data[prev - 1] != '/')
				prev--;
			wg_buf_setlen(out, prev);
		}
		p += n;
		if (*p != '/')
			break;
		p++;
		if (out->len && out->data[out->len - 1] != '/')
			*oom |= wg_buf_addch(out, '/') != 0;
	}
	return true;
}

int cli_url_normalize(struct cli_url_norm *u, const char *url, bool globs)
{
	struct wg_buf b = WG_BUF_INIT;
	const char *p = url, *at, *end, *colon;
	size_t n = 0;
	bool oom = false;

	memset(u, 0, sizeof(*u));
	while (isalnum((unsigned char)url[n]) || url[n] == '+' || url[n] == '-' || url[n] == '.')
		n++;
	if (!n || !isalpha((unsigned char)url[0]) || strncmp(url + n, "://", 3))
		return -1;
	if (!(u->scheme = wg_strndup(url, n)))
		goto oom;
	for (char *s = u->scheme; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	p = url + n + 3;

	end = p + strcspn(p, "/?#");
	at = strchr(p, '@');
	if (at && at < end) {
		/* user[:password]@: the user name is what matching uses */
		const char *c = memchr(p, ':', (size_t)(at - p));
		if (!add_normalized(&b, p, (size_t)((c ? c : at) - p), &oom))
			goto bad;
		if (oom || !(u->user = wg_strdup(wg_buf_cstr(&b))))
			goto oom;
		wg_buf_reset(&b);
		p = at + 1;
	}
	if (p == end || *p == ':')
		goto bad;  /* no host */
	/* the port's ':' is the last one, unless an IPv6 ']' follows it */
	for (colon = end - 1; colon > p && *colon != ':' && *colon != ']'; colon--)
		;
	if (*colon != ':')
		colon = end;
	for (const char *h = p; h < colon; h++)
		if (!is_host_char((unsigned char)*h, globs))
			goto bad;
	if (!(u->host = wg_strndup(p, (size_t)(colon - p))))
		goto oom;
	for (char *s = u->host; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	if (colon < end) {
		const char *d = colon + 1;
		unsigned long port = 0;
		while (d < end - 1 && *d == '0')
			d++;
		if (d == end || (end - d == 2 && !strcmp(u->scheme, "http") && !strncmp(d, "80", 2)) ||
		    (end - d == 3 && !strcmp(u->scheme, "https") && !strncmp(d, "443", 3))) {
			d = end;  /* the default port */
		} else {
			for (const char *q = d; q < end; q++)
				if (!isdigit((unsigned char)*q))
					goto bad;
			if (end - d <= 5)
				port = strtoul(d, NULL, 10);
			if (port == 0 || port > 65535)
				goto bad;
		}
		if (!(u->port = wg_strndup(d, (size_t)(end - d))))
			goto oom;
	} else if (!(u->port = wg_strdup(""))) {
		goto oom;
	}
	if (!normalize_path(&b, end, &oom))
		goto bad;
	if (oom || !(u->path = wg_strdup(wg_buf_cstr(&b))))
		goto oom;
	wg_buf_release(&b);
	return 0;
bad:
	wg_buf_release(&b);
	cli_url_norm_release(u);
	return -1;
oom:
	wg_buf_release(&b);
	cli_url_norm_release(u);
	return -2;
}

/* Host names label by label; "*" in the pattern matches one label. */
static bool match_host(const char *host, const char *pat)
{
	while (*host && *pat) {
		size_t hn = strcspn(host, "."), pn = strcspn(pat, ".");
		if (!(pn == 1 && *pat == '*') && (hn != pn || memcmp(host, pat, hn)))
			return false;
		host += hn + (host[hn] == '.');
		pat += pn + (pat[pn] == '.');
	}
	return !*host && !*pat;
}

/* A path prefix that ends at a segment boundary (git's
 * url_match_prefix()); both have an implicit '/' at their end. */
static bool match_path(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	if (!n || (n == 1 && *prefix == '/'))
		return !*path || *path == '/';
	if (prefix[n - 1] == '/')
		n--;
	if (strncmp(path, prefix, n))
		return false;
	return !path[n] || path[n] == '/';
}

bool cli_url_match(const struct cli_url_norm *url, const struct cli_url_norm *pattern)
{
	if (strcmp(url->scheme, pattern->scheme))
		return false;
	if (pattern->user && (!url->user || strcmp(url->user, pattern->user)))
		return false;
	return match_host(url->host, pattern->host) && !strcmp(url->port, pattern->port) &&
	       match_path(url->path, pattern->path);
}
