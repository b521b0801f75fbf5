#include "refs/refspec.h"

#include <string.h>

#include "refs/refname.h"
#include "util/alloc.h"
#include "util/error.h"

int wg_refspec_parse(struct wg_refspec *out, const char *spec)
{
	const char *colon, *s = spec;
	const char *sstar, *dstar;

	memset(out, 0, sizeof(*out));
	if (*s == '+') {
		out->force = true;
		s++;
	}
	colon = strchr(s, ':');
	out->src = colon ? wg_strndup(s, (size_t)(colon - s)) : wg_strdup(s);
	out->dst = colon && colon[1] ? wg_strdup(colon + 1) : NULL;
	if (!out->src || (colon && colon[1] && !out->dst)) {
		wg_refspec_release(out);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	sstar = strchr(out->src, '*');
	dstar = out->dst ? strchr(out->dst, '*') : NULL;
	if ((sstar && strchr(sstar + 1, '*')) || (dstar && strchr(dstar + 1, '*')) ||
	    (out->dst && !sstar != !dstar) || !*out->src ||
	    !wg_refname_is_valid(out->src, WG_REFNAME_ALLOW_ONELEVEL |
				 WG_REFNAME_REFSPEC_PATTERN) ||
	    (out->dst && !wg_refname_is_valid(out->dst, WG_REFNAME_ALLOW_ONELEVEL |
					      WG_REFNAME_REFSPEC_PATTERN))) {
		wg_refspec_release(out);
		return wg_error_set(WG_EINVALID, "invalid refspec '%s'", spec);
	}
	out->pattern = sstar != NULL;
	return 0;
}

void wg_refspec_release(struct wg_refspec *rs)
{
	wg_free(rs->src);
	wg_free(rs->dst);
	memset(rs, 0, sizeof(*rs));
}

/* Match `name` against a pattern with one '*'; the '*' part goes to *star. */
static bool glob_match(const char *pat, const char *name, const char **star, size_t *star_len)
{
	const char *p = strchr(pat, '*');
	size_t pre, post, n = strlen(name);

	if (!p)
		return !strcmp(pat, name);
	pre = (size_t)(p - pat);
	post = strlen(p + 1);
	if (n < pre + post || strncmp(name, pat, pre) || strcmp(name + n - post, p + 1))
		return false;
	*star = name + pre;
	*star_len = n - pre - post;
	return true;
}

int wg_refspec_map(const struct wg_refspec *rs, const char *name, struct wg_buf *out)
{
	const char *star = NULL;
	size_t star_len = 0;

	wg_buf_reset(out);
	if (!glob_match(rs->src, name, &star, &star_len))
		return 0;
	if (!rs->dst)
		return 1;
	if (!rs->pattern)
		return wg_buf_adds(out, rs->dst) ? wg_error_set(WG_ENOMEM, "out of memory") : 1;
	{
		const char *d = strchr(rs->dst, '*');
		if (wg_buf_add(out, rs->dst, (size_t)(d - rs->dst)) ||
		    wg_buf_add(out, star, star_len) || wg_buf_adds(out, d + 1))
			return wg_error_set(WG_ENOMEM, "out of memory");
	}
	return 1;
}

bool wg_refspec_dst_matches(const struct wg_refspec *rs, const char *local)
{
	const char *star;
	size_t star_len;

	return rs->dst && glob_match(rs->dst, local, &star, &star_len);
}

const char *wg_refspec_prefix(const struct wg_refspec *rs, struct wg_buf *out)
{
	const char *star = strchr(rs->src, '*');

	wg_buf_reset(out);
	if (wg_buf_add(out, rs->src, star ? (size_t)(star - rs->src) : strlen(rs->src)))
		return NULL;
	return wg_buf_cstr(out);
}
