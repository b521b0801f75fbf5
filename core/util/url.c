#include "util/url.h"

#include <ctype.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

static bool is_scheme_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.');
}

/* Where the authority of "<scheme>://<authority>..." is: [*auth, *end),
 * user information included; *scheme_end: the "://". False when `url` is
 * not of that form. */
static bool find_authority(const char *url, const char **scheme_end, const char **auth,
			   const char **end)
{
	const char *p = url;

	if (!url || !is_scheme_char(*p, true))
		return false;
	while (is_scheme_char(*p, false))
		p++;
	if (strncmp(p, "://", 3))
		return false;
	*scheme_end = p;
	*auth = p + 3;
	*end = *auth + strcspn(*auth, "/?#\\");
	return true;
}

bool wg_url_userinfo(const char *url, size_t *start, size_t *len)
{
	const char *scheme_end, *auth, *end, *p, *at = NULL;

	if (!find_authority(url, &scheme_end, &auth, &end))
		return false;
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return false;
	*start = (size_t)(auth - url);
	*len = (size_t)(at - auth);
	return true;
}

/* The origin of `url` as "scheme://host[:port]", lower case, without a
 * default port; false when `url` has no "<scheme>://". */
static bool url_origin(const char *url, char *out, size_t cap)
{
	const char *p, *auth, *end, *at;
	size_t n = 0, i;

	if (!find_authority(url, &p, &auth, &end))
		return false;
	for (at = auth; at < end; at++)
		if (*at == '@')
			auth = at + 1;
	if ((size_t)(p - url) + 3 + (size_t)(end - auth) >= cap)
		return false;
	for (i = 0; url + i < p + 3; i++)
		out[n++] = (char)tolower((unsigned char)url[i]);
	for (at = auth; at < end; at++)
		out[n++] = (char)tolower((unsigned char)*at);
	out[n] = '\0';
	if ((n > 3 && !strncmp(out, "http://", 7) && !strcmp(out + n - 3, ":80")) ||
	    (n > 4 && !strncmp(out, "https://", 8) && !strcmp(out + n - 4, ":443")))
		out[n - (out[4] == 's' ? 4 : 3)] = '\0';
	return true;
}

bool wg_url_same_origin(const char *a, const char *b)
{
	char oa[512], ob[512];

	return url_origin(a, oa, sizeof(oa)) && url_origin(b, ob, sizeof(ob)) && !strcmp(oa, ob);
}

int wg_url_redact(struct wg_buf *out, const char *url)
{
	size_t start, len;

	if (!wg_url_userinfo(url, &start, &len))
		return wg_buf_adds(out, url) ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
	if (wg_buf_add(out, url, start) || wg_buf_adds(out, url + start + len + 1))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}

char *wg_url_redact_dup(const char *url)
{
	struct wg_buf b = WG_BUF_INIT;

	if (wg_url_redact(&b, url)) {
		wg_buf_release(&b);
		return NULL;
	}
	return (char *)wg_buf_detach(&b, NULL);
}

/* Percent-decode s[0..n) onto out; false on a bad escape. */
static bool decode(struct wg_buf *out, const char *s, size_t n, bool *nomem)
{
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == '%') {
			int hi, lo;
			if (i + 2 >= n)
				return false;
			hi = wg_hex_value((unsigned char)s[i + 1]);
			lo = wg_hex_value((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0)
				return false;
			c = hi * 16 + lo;
			i += 2;
		}
		if (wg_buf_addch(out, c)) {
			*nomem = true;
			return false;
		}
	}
	return true;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int base64_add(struct wg_buf *out, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16;
		char q[4];
		if (i + 1 < n)
			v |= (unsigned)s[i + 1] << 8;
		if (i + 2 < n)
			v |= s[i + 2];
		q[0] = b64[(v >> 18) & 63];
		q[1] = b64[(v >> 12) & 63];
		q[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? b64[v & 63] : '=';
		if (wg_buf_add(out, q, 4))
			return WG_ENOMEM;
	}
	return 0;
}

int wg_url_basic_auth(struct wg_buf *out, const char *url, char **password)
{
	struct wg_buf cred = WG_BUF_INIT;
	size_t start, len, ulen, dulen = 0;
	const char *ui, *colon;
	bool nomem = false;
	int err = 0;

	wg_url_release_secret(out);
	if (password)
		*password = NULL;
	if (!wg_url_userinfo(url, &start, &len))
		return 0;
	ui = url + start;
	colon = memchr(ui, ':', len);
	ulen = colon ? (size_t)(colon - ui) : len;
	if (!decode(&cred, ui, ulen, &nomem) || (dulen = cred.len, false) ||
	    (nomem = wg_buf_addch(&cred, ':') != 0) ||
	    (colon && !decode(&cred, colon + 1, len - ulen - 1, &nomem))) {
		/* never what the credentials held */
		err = nomem ? wg_error_set(WG_ENOMEM, "out of memory") :
		      wg_error_set(WG_EINVALID, "bad percent-encoding in the credentials of a URL");
		goto done;
	}
	if (password) {
		const char *c = (const char *)cred.data + dulen;   /* the ':' we added */
		size_t plen = cred.len - dulen - 1;
		if (!(*password = wg_malloc(plen + 1))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto done;
		}
		memcpy(*password, c + 1, plen);
		(*password)[plen] = '\0';
	}
	if (wg_buf_adds(out, "Authorization: Basic ") || base64_add(out, cred.data, cred.len))
		err = wg_error_set(WG_ENOMEM, "out of memory");
done:
	wg_url_release_secret(&cred);
	if (err) {
		wg_url_release_secret(out);
		if (password) {
			wg_url_free_secret(*password);
			*password = NULL;
		}
	}
	return err;
}

/* Through a volatile pointer, so the stores are not optimised away. */
static void wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
}

void wg_url_free_secret(char *s)
{
	if (!s)
		return;
	wipe(s, strlen(s));
	wg_free(s);
}

void wg_url_release_secret(struct wg_buf *b)
{
	if (b->data)
		wipe(b->data, b->cap);
	wg_buf_release(b);
}

size_t wg_str_mask(char *s, const char *secret)
{
	size_t n = secret ? strlen(secret) : 0, count = 0;
	char *w = s, *r = s, *hit;

	if (!n || !s)
		return 0;
	while ((hit = strstr(r, secret))) {
		size_t keep = (size_t)(hit - r);
		memmove(w, r, keep);
		w += keep;
		/* "***" is never longer than what it replaces: a shorter
		 * secret becomes as many stars as it had characters */
		memcpy(w, "***", n < 3 ? n : 3);
		w += n < 3 ? n : 3;
		r = hit + n;
		count++;
	}
	memmove(w, r, strlen(r) + 1);
	return count;
}
