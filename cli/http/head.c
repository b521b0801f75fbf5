/* Response heads of the native HTTP client (see response.h): the status
 * line, header fields, and what they say about the body's framing. Used by
 * the parser (response.c), which keeps the state; these functions only
 * read one line or one head. */
#include "http/response.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/error.h"

/* A printable excerpt of untrusted bytes for an error message. */
const char *http_excerpt(char *out, size_t outsz, const char *s, size_t len)
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


bool http_is_tchar(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

bool http_list_has_token(const char *list, const char *token)
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

void http_head_release(struct http_head *h)
{
	size_t i;
	for (i = 0; i < h->nheaders; i++) {
		wg_free(h->headers[i].name);
		wg_free(h->headers[i].value);
	}
	wg_free(h->headers);
	wg_free(h->reason);
	memset(h, 0, sizeof(*h));
}

const char *http_head_get(const struct http_head *h, const char *name)
{
	size_t i;
	for (i = 0; h && i < h->nheaders; i++)
		if (!strcasecmp(h->headers[i].name, name))
			return h->headers[i].value;
	return NULL;
}

static int http_head_add(struct http_head *h, const char *name, size_t nlen, const char *value,
		    size_t vlen)
{
	struct http_header *e;
	/* Capacity is max(8, next power of two): grow at 0, 8, 16, 32, ... */
	if (!h->nheaders || (h->nheaders >= 8 && !(h->nheaders & (h->nheaders - 1)))) {
		size_t cap = h->nheaders ? h->nheaders * 2 : 8;
		e = wg_realloc(h->headers, cap * sizeof(*e));
		if (!e)
			return wg_error_set(WG_ENOMEM, "out of memory");
		h->headers = e;
	}
	e = &h->headers[h->nheaders];
	e->name = wg_strndup(name, nlen);
	e->value = wg_strndup(value, vlen);
	if (!e->name || !e->value) {
		wg_free(e->name);
		wg_free(e->value);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	h->nheaders++;
	return 0;
}

/* "HTTP/1.x SSS reason" */
int http_head_parse_status(struct http_head *h, const char *s, const char *who)
{
	char ex[64];
	if (strncmp(s, "HTTP/", 5) || !isdigit((unsigned char)s[5]) || s[6] != '.' ||
	    !isdigit((unsigned char)s[7]) || s[8] != ' ' || !isdigit((unsigned char)s[9]) ||
	    !isdigit((unsigned char)s[10]) || !isdigit((unsigned char)s[11]) ||
	    (s[12] != ' ' && s[12] != '\0'))
		return wg_error_set(WG_ECORRUPT, "malformed status line from %s: '%s'", who,
					    http_excerpt(ex, sizeof(ex), s, strlen(s)));
	if (s[5] != '1')
		return wg_error_set(WG_EUNSUPPORTED, "%s answered with HTTP/%c.%c; only "
					    "HTTP/1.x is supported", who, s[5], s[7]);
	h->version = 10 + (s[7] != '0');
	h->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
	if (h->status < 100)
		return wg_error_set(WG_ECORRUPT, "malformed status code %d from %s",
					    h->status, who);
	h->reason = wg_strdup(s[12] ? s + 13 : "");
	return h->reason ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

/* One header or trailer line (not the empty one) into h. */
int http_head_parse_field(struct http_head *h, const char *s, size_t len, const char *what,
			  const char *who, size_t max_headers)
{
	char ex[64];
	const char *colon, *v, *vend;

	if (*s == ' ' || *s == '\t') {
		/* obs-fold: the line continues the previous value. */
		struct http_header *last;
		struct wg_buf joined = WG_BUF_INIT;
		if (!h->nheaders)
			return wg_error_set(WG_ECORRUPT, "malformed %s from %s: continuation "
						    "line without a header", what, who);
		last = &h->headers[h->nheaders - 1];
		while (*s == ' ' || *s == '\t')
			s++;
		if (wg_buf_printf(&joined, "%s%s%s", last->value, *last->value ? " " : "", s)) {
			wg_buf_release(&joined);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		wg_free(last->value);
		last->value = (char *)wg_buf_detach(&joined, NULL);
		return last->value ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
	}
	colon = strchr(s, ':');
	if (!colon || colon == s)
		return wg_error_set(WG_ECORRUPT, "malformed header line in the %s from %s: "
					    "'%s'", what, who, http_excerpt(ex, sizeof(ex), s, len));
	for (v = s; v < colon; v++)
		if (!http_is_tchar((unsigned char)*v))
			return wg_error_set(WG_ECORRUPT, "malformed header name in the %s "
						    "from %s: '%s'", what, who,
						    http_excerpt(ex, sizeof(ex), s, (size_t)(colon - s)));
	if (h->nheaders >= max_headers)
		return wg_error_set(WG_ELIMIT, "too many header fields in the %s from %s "
					    "(the limit is %zu)", what, who, max_headers);
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	vend = s + len;
	while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
		vend--;
	if (http_head_add(h, s, (size_t)(colon - s), v, (size_t)(vend - v)))
		return WG_ENOMEM;
	return 0;
}

/* A Content-Length value: digits only. */
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

/* How the body of the final head is delimited (RFC 9112 section 6.3), and
 * whether the connection stays. */
int http_head_framing(const struct http_head *r, unsigned flags, const char *who,
		      struct http_framing_info *out)
{
	const char *conn = NULL;
	bool chunked = false, have_len = false, has_te = false;
	uint64_t len = 0;
	size_t i;
	char ex[64];

	for (i = 0; i < r->nheaders; i++) {
		const char *n = r->headers[i].name, *v = r->headers[i].value;
		if (!strcasecmp(n, "Transfer-Encoding")) {
			/* Only chunked is implemented; anything else would leave
			 * the body's end unknown. */
			const char *s = v;
			has_te = true;
			while (*s) {
				size_t tl;
				while (*s == ' ' || *s == '\t' || *s == ',')
					s++;
				tl = strcspn(s, " \t,;");
				if (tl == 7 && !strncasecmp(s, "chunked", 7) && !chunked)
					chunked = true;
				else if (tl)
					return wg_error_set(WG_EUNSUPPORTED, "unsupported "
								    "Transfer-Encoding '%s' from %s",
								    http_excerpt(ex, sizeof(ex), v, strlen(v)),
								    who);
				s += tl;
				while (*s && *s != ',')
					s++;
			}
		} else if (!strcasecmp(n, "Content-Length")) {
			uint64_t l;
			if (parse_length(v, &l))
				return wg_error_set(WG_ECORRUPT, "malformed Content-Length '%s' "
							    "from %s", http_excerpt(ex, sizeof(ex), v,
									       strlen(v)), who);
			if (have_len && l != len)
				return wg_error_set(WG_ECORRUPT, "conflicting Content-Length "
							    "headers from %s", who);
			have_len = true;
			len = l;
		} else if (!strcasecmp(n, "Connection")) {
			conn = v;
		}
	}
	if (r->version >= 11)
		out->keep_alive = !(conn && http_list_has_token(conn, "close"));
	else
		out->keep_alive = conn && http_list_has_token(conn, "keep-alive");

	out->length = 0;
	if ((flags & HTTP_PARSE_HEAD) || r->status == 204 || r->status == 304 ||
	    ((flags & HTTP_PARSE_CONNECT) && r->status / 100 == 2)) {
		out->framing = HTTP_FRAMING_NONE;
		return 0;
	}
	if (has_te && !chunked)
		return wg_error_set(WG_ECORRUPT, "empty Transfer-Encoding from %s", who);
	if (chunked) {
		out->framing = HTTP_FRAMING_CHUNKED;
		/* Both: chunked wins, but the sender is suspect (request
		 * smuggling), so do not reuse what it sent on. */
		if (have_len)
			out->keep_alive = false;
	} else if (have_len) {
		out->framing = len ? HTTP_FRAMING_LENGTH : HTTP_FRAMING_NONE;
		out->length = len;
	} else {
		out->framing = HTTP_FRAMING_CLOSE;
		out->keep_alive = false;
	}
	return 0;
}
