#include "repo/gitmodules.h"

#include <string.h>

#include "repo/config.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hex.h"

static bool is_sep(char c)
{
	return c == '/' || c == '\\';
}

bool wg_submodule_name_ok(const char *name)
{
	const char *p = name;

	if (!*name)
		return false;
	/* ".." as a whole component, at the start or after a separator. */
	for (;;) {
		if (p[0] == '.' && p[1] == '.' && (!p[2] || is_sep(p[2])))
			return false;
		while (*p && !is_sep(*p))
			p++;
		if (!*p)
			return true;
		p++;
	}
}

/* ---- URLs ---------------------------------------------------------------- */

/* A %XX escape at p (p[0] == '%'), or -1. */
static int escape_at(const char *p)
{
	int hi, lo;
	if (p[0] != '%' || (hi = wg_hex_value(p[1])) < 0 || (lo = wg_hex_value(p[2])) < 0)
		return -1;
	return hi * 16 + lo;
}

/* Does git's url_decode() of `url` hold a newline? It copies everything
 * up to the first ':' as it is (when that ':' is not the first byte) and
 * decodes %XX escapes after it, except %00. */
static bool decodes_to_newline(const char *url)
{
	const char *colon = strchr(url, ':');
	const char *p = url;

	if (strchr(url, '\n'))
		return true;
	if (colon && colon > url)
		p = colon;
	for (; *p; p++)
		if (*p == '%' && escape_at(p) == '\n')
			return true;
	return false;
}

#define URL_ALPHA "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#define URL_DIGIT "0123456789"
#define URL_SCHEME_CHARS URL_ALPHA URL_DIGIT "+.-"
#define URL_HOST_CHARS URL_ALPHA URL_DIGIT ".-_[:]"
#define URL_UNSAFE_CHARS " <>\"%{}|\\^`"
#define URL_RESERVED ":/?#[]@!$&'()*+,;="

static bool in_set(const char *set, int c)
{
	return c && strchr(set, c) != NULL;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* Append from[0..len) with escapes normalized as git's urlmatch does:
 * unsafe bytes and escaped reserved ones stay (or become) %XX in upper
 * case, the rest is unescaped. false for a '%' without two hex digits. */
static bool add_normalized(struct wg_buf *out, const char *from, size_t len, int *err)
{
	static const char hex[] = "0123456789ABCDEF";
	while (len) {
		int c = (unsigned char)*from;
		bool was_esc = false;
		if (c == '%') {
			if (len < 3 || (c = escape_at(from)) < 0)
				return false;
			from += 3;
			len -= 3;
			was_esc = true;
		} else {
			from++;
			len--;
		}
		if (c <= 0x1f || c >= 0x7f || in_set(URL_UNSAFE_CHARS, c) ||
		    (was_esc && in_set(URL_RESERVED, c))) {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			if (!*err)
				*err = wg_buf_add(out, e, 3);
		} else if (!*err) {
			*err = wg_buf_addch(out, (char)c);
		}
	}
	return true;
}

/* git's url_normalize(): into `out`, or false if git finds the URL
 * invalid (bad scheme, bad escape, bad host or port, ".." above the
 * root). *err is set if memory runs out. */
static bool url_normalize(struct wg_buf *out, const char *url, int *err)
{
	size_t n = strspn(url, URL_SCHEME_CHARS), i, path_off;
	const char *slash, *at, *colon;
	bool has_host;

	if (!n || !((url[0] >= 'a' && url[0] <= 'z') || (url[0] >= 'A' && url[0] <= 'Z')) ||
	    strncmp(url + n, "://", 3))
		return false;
	for (i = 0; i < n + 3 && !*err; i++)
		*err = wg_buf_addch(out, (char)lower((unsigned char)url[i]));
	url += n + 3;

	/* user[:password]@ */
	slash = url + strcspn(url, "/?#");
	at = strchr(url, '@');
	if (at && at < slash) {
		if (!add_normalized(out, url, (size_t)(at - url), err))
			return false;
		if (!*err)
			*err = wg_buf_addch(out, '@');
		url = at + 1;
	}

	/* host, then :port */
	has_host = *url && !strchr(":/?#", *url);
	if (!has_host && strncmp(wg_buf_cstr(out), "file:", 5))
		return false;
	colon = slash;
	if (slash > url) {
		const char *c = slash - 1;
		while (c > url && *c != ':' && *c != ']')
			c--;
		if (*c == ':')
			colon = c;
	}
	if (!has_host && colon < slash && colon + 1 != slash)
		return false;     /* a file: URL with a port */
	if (strspn(url, URL_HOST_CHARS) < (size_t)(colon - url))
		return false;
	for (; url < colon && !*err; url++)
		*err = wg_buf_addch(out, (char)lower((unsigned char)*url));
	url = colon;
	if (colon < slash) {
		const char *digits = colon + 1;
		size_t len;
		digits += strspn(digits, "0");
		if (digits == slash && digits[-1] == '0')
			digits--;
		len = (size_t)(slash - digits);
		if (len && !(len == 2 && !strncmp(wg_buf_cstr(out), "http:", 5) &&
			     !strncmp(digits, "80", 2)) &&
		    !(len == 3 && !strncmp(wg_buf_cstr(out), "https:", 6) &&
		      !strncmp(digits, "443", 3))) {
			unsigned long port = 0;
			if (strspn(digits, URL_DIGIT) < len)
				return false;
			if (len <= 5)
				for (i = 0; i < len; i++)
					port = port * 10 + (unsigned long)(digits[i] - '0');
			if (port == 0 || port > 65535)
				return false;
			if (!*err)
				*err = wg_buf_addch(out, ':');
			if (!*err)
				*err = wg_buf_add(out, digits, len);
		}
		url = slash;
	}

	/* The path, with "." and ".." segments resolved. */
	path_off = out->len;
	if (!*err)
		*err = wg_buf_addch(out, '/');
	if (*url == '/')
		url++;
	for (;;) {
		size_t seg_off = out->len;
		const char *next = url + strcspn(url, "/?#");
		bool no_slash = false;
		const char *seg;

		if (!add_normalized(out, url, (size_t)(next - url), err))
			return false;
		if (*err)
			return true;
		seg = wg_buf_cstr(out) + seg_off;
		if (!strcmp(seg, ".")) {
			if (seg_off == path_off + 1) {
				wg_buf_setlen(out, out->len - 1);
				no_slash = true;
			} else {
				wg_buf_setlen(out, out->len - 2);
			}
		} else if (!strcmp(seg, "..")) {
			/* out ends in "/..": drop it and the segment before. */
			size_t prev = out->len - 3;
			if (prev == path_off)
				return false;
			while (((const char *)out->data)[--prev] != '/')
				;
			if (prev == path_off) {
				wg_buf_setlen(out, prev + 1);
				no_slash = true;
			} else {
				wg_buf_setlen(out, prev);
			}
		}
		url = next;
		if (*url != '/')
			break;
		url++;
		if (!no_slash && (*err = wg_buf_addch(out, '/')))
			return true;
	}
	/* ?query#fragment */
	if (*url && !add_normalized(out, url, strlen(url), err))
		return false;
	return true;
}

static bool starts_dot_slash(const char *u)
{
	return u[0] == '.' && is_sep(u[1]);
}

static bool starts_dot_dot_slash(const char *u)
{
	return u[0] == '.' && u[1] == '.' && is_sep(u[2]);
}

/* The URL git-remote-curl would get, or NULL if the URL is not one. */
static const char *curl_url(const char *url)
{
	static const char *const wrapped[] = { "http::", "https::", "ftp::", "ftps::" };
	static const char *const plain[] = { "http://", "https://", "ftp://", "ftps://" };
	size_t i;
	for (i = 0; i < sizeof(wrapped) / sizeof(*wrapped); i++)
		if (!strncmp(url, wrapped[i], strlen(wrapped[i])))
			return url + strlen(wrapped[i]);
	for (i = 0; i < sizeof(plain) / sizeof(*plain); i++)
		if (!strncmp(url, plain[i], strlen(plain[i])))
			return url;
	return NULL;
}

/* -1: out of memory (error set); 0: refused; 1: accepted. */
static int url_verdict(const char *url)
{
	const char *curl;

	if (url[0] == '-')
		return 0;
	if (starts_dot_slash(url) || starts_dot_dot_slash(url) || !strncmp(url, "git://", 6)) {
		const char *p = url;
		int dotdots = 0;
		if (decodes_to_newline(url))
			return 0;
		for (;;) {
			if (starts_dot_dot_slash(p)) {
				dotdots++;
				p += 3;
			} else if (starts_dot_slash(p)) {
				p += 2;
			} else {
				break;
			}
		}
		return dotdots > 0 && (*p == ':' || *p == '/') ? 0 : 1;
	}
	if ((curl = curl_url(url))) {
		struct wg_buf norm = WG_BUF_INIT;
		int err = 0, verdict;
		bool ok = url_normalize(&norm, curl, &err);
		if (err)
			verdict = -1;
		else
			verdict = ok && !decodes_to_newline(wg_buf_cstr(&norm)) ? 1 : 0;
		wg_buf_release(&norm);
		if (verdict < 0)
			wg_error_set(WG_ENOMEM, "out of memory checking a submodule url");
		return verdict;
	}
	return 1;
}

bool wg_submodule_url_ok(const char *url)
{
	return url_verdict(url) > 0;
}

/* ---- the blob -------------------------------------------------------------- */

struct gitmodules_check {
	struct wg_fsck_reporter *r;
	int err;
};

static int check_entry(const char *key, const char *value, void *payload)
{
	struct gitmodules_check *gc = payload;
	const char *sub, *name;
	char *subsection;
	size_t sublen;
	int verdict;

	/* "submodule.<subsection>.<name>": the subsection runs to the last
	 * dot; section-less entries and [submodule] without one do not
	 * count. */
	if (strncmp(key, "submodule.", 10))
		return 0;
	sub = key + 10;
	if (!(name = strrchr(sub, '.')) || name < sub)
		return 0;
	sublen = (size_t)(name - sub);
	name++;
	if (!(subsection = wg_malloc(sublen + 1))) {
		gc->err = wg_error_set(WG_ENOMEM, "out of memory checking .gitmodules");
		return gc->err;
	}
	memcpy(subsection, sub, sublen);
	subsection[sublen] = '\0';
	if (!wg_submodule_name_ok(subsection))
		wg_fsck_reportf(gc->r, WG_FSCK_GITMODULES_NAME, "disallowed submodule name: %s",
				subsection);
	wg_free(subsection);
	if (!strcmp(name, "url") && value) {
		if ((verdict = url_verdict(value)) < 0)
			return gc->err = WG_ENOMEM;
		if (!verdict)
			wg_fsck_reportf(gc->r, WG_FSCK_GITMODULES_URL,
					"disallowed submodule url: %s", value);
	}
	if (!strcmp(name, "path") && value && value[0] == '-')
		wg_fsck_reportf(gc->r, WG_FSCK_GITMODULES_PATH, "disallowed submodule path: %s",
				value);
	if (!strcmp(name, "update") && value && value[0] == '!')
		wg_fsck_reportf(gc->r, WG_FSCK_GITMODULES_UPDATE,
				"disallowed submodule update setting: %s", value);
	return 0;
}

int wg_fsck_gitmodules_blob(const struct wg_fsck_options *opts, const struct wg_oid *oid,
			    const void *data, size_t len)
{
	struct wg_fsck_reporter r;
	struct gitmodules_check gc = { &r, 0 };
	int err;

	wg_fsck_reporter_init(&r, opts, oid, WG_OBJ_BLOB);
	if (len > WG_GITMODULES_MAX_SIZE) {
		wg_fsck_reportf(&r, WG_FSCK_GITMODULES_LARGE, ".gitmodules too large to parse");
		return wg_fsck_reporter_result(&r);
	}
	err = wg_config_parse_entries(data, len, ".gitmodules", check_entry, &gc);
	if (gc.err)
		return gc.err;
	if (err == WG_ECORRUPT)
		wg_fsck_reportf(&r, WG_FSCK_GITMODULES_PARSE, "could not parse gitmodules blob");
	else if (err)
		return err;
	return wg_fsck_reporter_result(&r);
}
