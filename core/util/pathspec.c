#include "util/pathspec.h"

#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/wildmatch.h"

int wg_path_normalize(struct wg_buf *out, const char *prefix, const char *path)
{
	struct wg_buf in = WG_BUF_INIT;
	const char *p, *end;
	bool dir = false;
	int rc = 0;

	wg_buf_reset(out);
	if (wg_buf_adds(&in, prefix) || wg_buf_adds(&in, path) || wg_buf_grow(&in, 1)) {
		wg_buf_release(&in);
		return -1;
	}
	p = wg_buf_cstr(&in);
	end = p + in.len;
	while (p < end && !rc) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);
		dir = slash || (n == 1 && p[0] == '.') || (n == 2 && !memcmp(p, "..", 2));
		if (n == 2 && !memcmp(p, "..", 2)) {
			size_t len = out->len;
			if (!len)
				rc = 1;
			if (len && out->data[len - 1] == '/')
				len--;
			while (len && out->data[len - 1] != '/')
				len--;
			wg_buf_setlen(out, len);
		} else if (n && !(n == 1 && p[0] == '.')) {
			if ((out->len && out->data[out->len - 1] != '/' && wg_buf_addch(out, '/')) ||
			    wg_buf_add(out, p, n))
				rc = -1;
		}
		p += n + (slash ? 1 : 0);
	}
	if (!rc && out->len && dir && out->data[out->len - 1] != '/' && wg_buf_addch(out, '/'))
		rc = -1;
	if (!rc && wg_buf_grow(out, 1))
		rc = -1;
	wg_buf_release(&in);
	return rc;
}

int wg_pathspec_init(struct wg_pathspec *ps, const char *prefix, const char *const *items,
		     size_t n)
{
	struct wg_buf b = WG_BUF_INIT;
	int err = 0;

	ps->nr = 0;
	ps->items = NULL;
	if (!n)
		return 0;
	if (!(ps->items = wg_calloc(n, sizeof(*ps->items))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !err; i++) {
		const char *s = items[i], *pre = prefix ? prefix : "";
		struct wg_pathspec_item *it = &ps->items[i];
		int rc;
		if (!strncmp(s, ":(top)", 6)) {
			s += 6;
			pre = "";
		} else if (!strncmp(s, ":/", 2)) {
			s += 2;
			pre = "";
		}
		rc = wg_path_normalize(&b, pre, s);
		if (rc > 0) {
			err = wg_error_set(WG_EINVALID, "%s: '%s' is outside repository", items[i],
					   items[i]);
			break;
		}
		if (rc < 0 || !(it->match = wg_strndup(wg_buf_cstr(&b), b.len))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		it->len = b.len;
		it->original = items[i];
		while (it->nowildcard < it->len && !strchr("*?[\\", it->match[it->nowildcard]))
			it->nowildcard++;
		ps->nr++;
	}
	wg_buf_release(&b);
	if (err)
		wg_pathspec_release(ps);
	return err;
}

void wg_pathspec_release(struct wg_pathspec *ps)
{
	for (size_t i = 0; i < ps->nr; i++)
		wg_free(ps->items[i].match);
	wg_free(ps->items);
	ps->items = NULL;
	ps->nr = 0;
}

enum wg_pathspec_match wg_pathspec_match_item(const struct wg_pathspec *ps, size_t i,
					      const char *path, size_t len)
{
	const struct wg_pathspec_item *it = &ps->items[i];
	struct wg_buf name = WG_BUF_INIT;
	bool hit;

	if (!it->len)
		return WG_PATHSPEC_RECURSIVELY;
	if (it->len <= len && !memcmp(it->match, path, it->len)) {
		if (it->len == len)
			return WG_PATHSPEC_EXACTLY;
		if (it->match[it->len - 1] == '/' || path[it->len] == '/')
			return WG_PATHSPEC_RECURSIVELY;
	}
	if (it->nowildcard >= it->len || len < it->nowildcard ||
	    memcmp(it->match, path, it->nowildcard))
		return WG_PATHSPEC_NONE;
	/* the path may not be terminated where len ends */
	if (wg_buf_add(&name, path, len) || wg_buf_grow(&name, 1))
		return WG_PATHSPEC_NONE;
	hit = wg_wildmatch(it->match + it->nowildcard, wg_buf_cstr(&name) + it->nowildcard, 0);
	wg_buf_release(&name);
	return hit ? WG_PATHSPEC_FNMATCH : WG_PATHSPEC_NONE;
}

bool wg_pathspec_match(const struct wg_pathspec *ps, const char *path, size_t len,
		       unsigned char *seen)
{
	bool any = !ps->nr;
	for (size_t i = 0; i < ps->nr; i++) {
		enum wg_pathspec_match m = wg_pathspec_match_item(ps, i, path, len);
		if (m) {
			any = true;
			if (seen && seen[i] < (unsigned char)m)
				seen[i] = (unsigned char)m;
		}
	}
	return any;
}

bool wg_pathspec_may_match_below(const struct wg_pathspec *ps, const char *dir, size_t len)
{
	if (!ps->nr)
		return true;
	for (size_t i = 0; i < ps->nr; i++) {
		const struct wg_pathspec_item *it = &ps->items[i];
		size_t n = it->nowildcard < len ? it->nowildcard : len;
		if (!it->len)
			return true;
		if (memcmp(it->match, dir, n))
			continue;
		if (len < it->nowildcard) {
			/* dir lies above the item's literal part */
			if (it->match[len] == '/')
				return true;
		} else if (it->nowildcard < it->len) {
			return true;  /* a glob may match anything below */
		} else if (it->len == len || it->match[it->len - 1] == '/' || dir[it->len] == '/') {
			return true;  /* dir is the item or below it */
		}
	}
	return false;
}
