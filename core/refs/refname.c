#include "refs/refname.h"

#include <string.h>

#include "util/error.h"

static int bad(const char *name, const char *why)
{
	return wg_error_set(WG_EINVALID, "'%s' is not a valid ref name: %s", name, why);
}

/* Check one '/'-separated component [p, end). */
static int check_component(const char *name, const char *p, const char *end, unsigned flags,
			   int *stars)
{
	static const char lock[] = ".lock";
	const char *c;
	if (p == end)
		return bad(name, "empty component or '//'");
	if (*p == '.')
		return bad(name, "a component begins with '.'");
	if ((size_t)(end - p) >= sizeof(lock) - 1 &&
	    !memcmp(end - (sizeof(lock) - 1), lock, sizeof(lock) - 1))
		return bad(name, "a component ends with '.lock'");
	for (c = p; c < end; c++) {
		unsigned char ch = (unsigned char)*c;
		if (ch < 0x20 || ch == 0x7f)
			return bad(name, "control character");
		if (strchr(" ~^:?[\\", ch))
			return bad(name, "contains one of ' ~^:?[\\'");
		if (ch == '*') {
			if (!(flags & WG_REFNAME_REFSPEC_PATTERN) || ++*stars > 1)
				return bad(name, "contains '*'");
		}
		if (ch == '.' && c + 1 < end && c[1] == '.')
			return bad(name, "contains '..'");
		if (ch == '@' && c + 1 < end && c[1] == '{')
			return bad(name, "contains '@{'");
	}
	return 0;
}

int wg_refname_check(const char *name, unsigned flags)
{
	const char *p = name, *slash;
	int components = 0, stars = 0, err;
	size_t len = strlen(name);
	if (!len)
		return bad(name, "empty");
	if (!strcmp(name, "@"))
		return bad(name, "'@' alone");
	if (name[len - 1] == '.')
		return bad(name, "ends with '.'");
	if (name[0] == '/' || name[len - 1] == '/')
		return bad(name, "begins or ends with '/'");
	for (;;) {
		slash = strchr(p, '/');
		if ((err = check_component(name, p, slash ? slash : name + len, flags, &stars)))
			return err;
		components++;
		if (!slash)
			break;
		p = slash + 1;
	}
	if (components < 2 && !(flags & WG_REFNAME_ALLOW_ONELEVEL))
		return bad(name, "needs at least one '/'");
	return 0;
}

bool wg_refname_is_valid(const char *name, unsigned flags)
{
	if (wg_refname_check(name, flags)) {
		wg_error_clear();
		return false;
	}
	return true;
}

const char *const wg_ref_dwim_rules[WG_REF_DWIM_RULES] = {
	"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD",
};

int wg_refname_shorten(struct wg_buf *out, const char *name)
{
	static const char *const prefixes[] = { "refs/heads/", "refs/tags/", "refs/remotes/",
						"refs/", NULL };
	static const char remotes[] = "refs/remotes/", head[] = "/HEAD";
	size_t n = strlen(name), rlen = sizeof(remotes) - 1, hlen = sizeof(head) - 1;
	int i;
	/* git tries "refs/remotes/%s/HEAD" first: origin/HEAD shows as "origin". */
	if (n > rlen + hlen && !strncmp(name, remotes, rlen) && !strcmp(name + n - hlen, head))
		return wg_buf_add(out, name + rlen, n - rlen - hlen);
	for (i = 0; prefixes[i]; i++) {
		size_t plen = strlen(prefixes[i]);
		if (!strncmp(name, prefixes[i], plen) && name[plen])
			return wg_buf_adds(out, name + plen);
	}
	return wg_buf_adds(out, name);
}

int wg_refname_short_is_valid(const char *dir, const char *name)
{
	struct wg_buf full = WG_BUF_INIT;
	int ok;

	if (*name == '-')
		return 0;
	if (wg_buf_printf(&full, "%s%s", dir, name))
		return -1;
	ok = wg_refname_is_valid(wg_buf_cstr(&full), 0);
	wg_buf_release(&full);
	return ok;
}
