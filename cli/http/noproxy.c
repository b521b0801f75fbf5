/* The no_proxy list of the native HTTP client (see proxy.h), sans-IO.
 *
 * The rules are curl's, which git inherits: entries separated by commas
 * (or white space); "*" alone matches every host; a name matches itself
 * and every host under it ("example.com" and ".example.com" both match
 * example.com and www.example.com, never notexample.com); an IP address
 * matches itself, or with "/bits" (CIDR) the addresses it covers; IPv6
 * addresses with or without brackets. As Go's and Node's readers (not
 * curl's) do, "host:port" matches that host on that port only. Names are
 * compared without case and without a trailing dot. */
#include "http/proxy.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parse an IPv4 or IPv6 literal: 4 or 16 bytes, or 0. */
static int ip_parse(const char *s, size_t len, unsigned char out[16])
{
	char tmp[64];
	if (len == 0 || len >= sizeof(tmp))
		return 0;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (inet_pton(AF_INET, tmp, out) == 1)
		return 4;
	if (inet_pton(AF_INET6, tmp, out) == 1)
		return 16;
	return 0;
}

static bool prefix_match(const unsigned char *a, const unsigned char *b, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;
	if (memcmp(a, b, whole))
		return false;
	return !rest || ((a[whole] ^ b[whole]) & (0xff00u >> rest) & 0xff) == 0;
}

/* One entry e[0..len) against the host (brackets and trailing dot gone). */
static bool entry_matches(const char *e, size_t len, const char *host, size_t hlen, unsigned port)
{
	const char *colon, *slash;
	unsigned char want[16], have[16];
	int wl, hl;
	long bits = -1;

	if (len == 1 && *e == '*')
		return true;
	/* a port: "[v6]:port", or "name:port" (one colon: more is bare IPv6) */
	if (*e == '[') {
		const char *close = memchr(e, ']', len);
		if (!close)
			return false;
		if (close + 1 < e + len) {
			if (close[1] != ':' || (unsigned)atol(close + 2) != port)
				return false;
		}
		e++;
		len = (size_t)(close - e);
	} else if ((colon = memchr(e, ':', len)) && !memchr(colon + 1, ':', len - (size_t)(colon + 1 - e))) {
		char num[8];
		size_t nl = len - (size_t)(colon + 1 - e);
		if (nl == 0 || nl >= sizeof(num))
			return false;
		memcpy(num, colon + 1, nl);
		num[nl] = '\0';
		if (strspn(num, "0123456789") != nl || (unsigned)atol(num) != port)
			return false;
		len = (size_t)(colon - e);
	}
	/* CIDR */
	if ((slash = memchr(e, '/', len))) {
		char *end;
		char num[8];
		size_t nl = len - (size_t)(slash + 1 - e);
		if (nl == 0 || nl >= sizeof(num))
			return false;
		memcpy(num, slash + 1, nl);
		num[nl] = '\0';
		bits = strtol(num, &end, 10);
		if (*end || bits < 0)
			return false;
		len = (size_t)(slash - e);
	}
	wl = ip_parse(e, len, want);
	if (wl) {
		hl = ip_parse(host, hlen, have);
		if (hl != wl)
			return false;
		if (bits < 0)
			bits = wl * 8;
		return bits <= wl * 8 && prefix_match(want, have, (unsigned)bits);
	}
	/* a name never matches an address ("0.0.1" is not a domain of
	 * 127.0.0.1) */
	if (bits >= 0 || ip_parse(host, hlen, have))
		return false;
	/* a name: itself, or a domain above the host */
	if (len && *e == '*' && len > 1 && e[1] == '.')
		e++, len--;
	if (len && *e == '.')
		e++, len--;
	if (len && e[len - 1] == '.')
		len--;
	if (!len || len > hlen)
		return false;
	if (strncasecmp(host + hlen - len, e, len))
		return false;
	return hlen == len || host[hlen - len - 1] == '.';
}

bool http_no_proxy_match(const char *list, const char *host, unsigned port)
{
	size_t hlen;
	const char *p = list;

	if (!list || !host)
		return false;
	if (*host == '[')
		host++;
	hlen = strcspn(host, "]");
	if (hlen && host[hlen - 1] == '.')
		hlen--;
	while (*p) {
		size_t len;
		p += strspn(p, ", \t");
		len = strcspn(p, ", \t");
		if (len && entry_matches(p, len, host, hlen, port))
			return true;
		p += len;
	}
	return false;
}
