/* git's ignore rules (core/worktree/ignore.c). Input: one option byte
 * (bit 0: core.ignoreCase, bit 1: a small size limit), then parts split
 * at 0x01 bytes: the top .gitignore, a/.gitignore, a/b/.gitignore,
 * info/exclude, and last the paths to decide, one a line. A path's
 * leading directories are directories, and so is a path ending in '/'.
 *
 * Invariants: nothing crashes or leaks; what decides a path is a pattern
 * of one of the lists, cut out of its file's bytes; a matcher that has
 * decided other paths before (its directory frames kept and popped)
 * answers exactly as a fresh one does. */
#include "fuzz.h"

#include "util/error.h"
#include "worktree/ignore.h"

struct tree {
	const uint8_t *part[4];
	size_t len[4];
	const char *paths;   /* NUL-separated copy, for the type callback */
	size_t paths_len;
};

static const char *const names[3] = { ".gitignore", "a/.gitignore", "a/b/.gitignore" };

static int fz_read(void *payload, const char *path, struct wg_buf *out)
{
	struct tree *t = payload;
	for (int i = 0; i < 3; i++)
		if (!strcmp(path, names[i]))
			return t->len[i] ? wg_buf_add(out, t->part[i], t->len[i])
					 : wg_error_set(WG_ENOTFOUND, "none");
	return wg_error_set(WG_ENOTFOUND, "none");
}

/* A directory: some path has it as a leading part, or names it with a
 * trailing '/'. */
static enum wg_ignore_type fz_type(void *payload, const char *path)
{
	struct tree *t = payload;
	size_t n = strlen(path);
	if (n && path[n - 1] == '/')
		return WG_IGNORE_TYPE_DIR;
	for (const char *p = t->paths; p < t->paths + t->paths_len; p += strlen(p) + 1)
		if (!strncmp(p, path, n) && p[n] == '/')
			return WG_IGNORE_TYPE_DIR;
	return WG_IGNORE_TYPE_OTHER;
}

static struct wg_ignore *matcher(struct tree *t, uint8_t opt)
{
	struct wg_ignore_source src = { fz_read, fz_type, NULL, NULL, t };
	struct wg_ignore_options opts = WG_IGNORE_OPTIONS_INIT;
	struct wg_ignore *ig;
	opts.ignore_case = opt & 1;
	opts.max_file_size = opt & 2 ? 64 : 0;
	FUZZ_ASSERT(wg_ignore_new(&ig, &src, &opts) == 0);
	FUZZ_ASSERT(wg_ignore_add_file(ig, "info", t->part[3], t->len[3]) == 0);
	return ig;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tree t = { { NULL }, { 0 }, NULL, 0 };
	struct wg_ignore *shared, *fresh;
	const uint8_t *p, *end;
	char *paths;
	int k = 0;

	if (size < 1 || size > 65536)
		return 0;
	p = data + 1;
	end = data + size;
	for (k = 0; k < 4; k++) {
		const uint8_t *sep = memchr(p, 1, (size_t)(end - p));
		t.part[k] = p;
		t.len[k] = sep ? (size_t)(sep - p) : (size_t)(end - p);
		p = sep ? sep + 1 : end;
	}
	/* the paths: lines, NUL-terminated each (a NUL inside ends one) */
	paths = fz_cstr(p, (size_t)(end - p));
	for (char *c = paths; c < paths + (end - p); c++)
		if (*c == '\n')
			*c = '\0';
	t.paths = paths;
	t.paths_len = (size_t)(end - p);
	shared = matcher(&t, data[0]);
	for (const char *path = paths; path < paths + t.paths_len; path += strlen(path) + 1) {
		const struct wg_ignore_pattern *a = NULL, *b = NULL;
		FUZZ_ASSERT(wg_ignore_match(&a, shared, path, WG_IGNORE_TYPE_UNKNOWN) == 0);
		fresh = matcher(&t, data[0]);
		FUZZ_ASSERT(wg_ignore_match(&b, fresh, path, WG_IGNORE_TYPE_UNKNOWN) == 0);
		FUZZ_ASSERT(!a == !b);
		if (a) {
			FUZZ_ASSERT(!strcmp(a->list->src, b->list->src));
			FUZZ_ASSERT(a->lineno == b->lineno && a->flags == b->flags);
			FUZZ_ASSERT(a->len == strlen(a->pattern) && !strcmp(a->pattern, b->pattern));
			FUZZ_ASSERT(a->pattern >= a->list->text);
		}
		wg_ignore_free(fresh);
	}
	wg_ignore_free(shared);
	free(paths);
	return 0;
}
