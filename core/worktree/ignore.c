/* git's ignore rules: pattern files parsed as dir.c parses them, and the
 * per-directory stack that decides a path (see ignore.h). */
#include "worktree/ignore.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/wildmatch.h"

/* --- one pattern file ---------------------------------------------------- */

/* The array v (nr of *alloc used) with room for one more, or NULL when
 * out of memory (v is then unchanged). */
static void *grow(void *v, size_t *alloc, size_t nr, size_t size)
{
	size_t n = *alloc ? *alloc * 2 : 8, bytes;
	if (nr < *alloc)
		return v;
	if (wg_size_mul(&bytes, n, size) || !(v = wg_realloc(v, bytes))) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	*alloc = n;
	return v;
}

/* wildmatch's special characters: where a literal prefix ends. */
static bool is_glob_special(char c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

static size_t simple_length(const char *s)
{
	size_t n = 0;
	while (s[n] && !is_glob_special(s[n]))
		n++;
	return n;
}

/* Trailing spaces go, unless the last one is escaped by a backslash (a
 * backslash escapes whatever follows it, and one at the very end keeps
 * everything). */
static void trim_trailing_spaces(char *s)
{
	char *last_space = NULL;
	for (char *p = s; *p; p++) {
		if (*p == ' ') {
			if (!last_space)
				last_space = p;
			continue;
		}
		if (*p == '\\' && !*++p)
			return;
		last_space = NULL;
	}
	if (last_space)
		*last_space = '\0';
}

static int add_pattern(struct wg_ignore_list *list, char *line, uint32_t lineno)
{
	struct wg_ignore_pattern *pat;
	unsigned flags = 0;
	size_t len, nowild;

	if (*line == '!') {
		flags |= WG_IGNORE_NEGATIVE;
		line++;
	}
	len = strlen(line);
	if (len && line[len - 1] == '/') {
		len--;
		flags |= WG_IGNORE_MUSTBEDIR;
	}
	if (!memchr(line, '/', len))
		flags |= WG_IGNORE_NODIR;
	nowild = simple_length(line);
	if (nowild > len)
		nowild = len;
	/* git looks past the trailing '/' here, which holds no wildcard */
	if (line[0] == '*' && !line[1 + simple_length(line + 1)])
		flags |= WG_IGNORE_ENDSWITH;
	line[len] = '\0';

	if (!(pat = grow(list->patterns, &list->alloc, list->nr, sizeof(*pat))))
		return WG_ENOMEM;
	list->patterns = pat;
	pat += list->nr++;
	pat->list = list;
	pat->pattern = line;
	pat->len = (uint32_t)len;
	pat->nowildcard = (uint32_t)nowild;
	pat->lineno = lineno;
	pat->flags = flags;
	return 0;
}

int wg_ignore_list_parse(struct wg_ignore_list **out, const char *src, const char *base,
			 const void *data, size_t len, size_t max_size)
{
	struct wg_ignore_list *list;
	char *p, *end, *entry;
	uint32_t lineno = 1;
	int err = 0;

	*out = NULL;
	if (!max_size)
		max_size = WG_IGNORE_MAX_FILE_SIZE;
	/* git counts the newline it appends; lengths stay within 32 bits */
	if (len >= max_size || len >= UINT32_MAX)
		return wg_error_set(WG_ELIMIT, "ignoring excessively large pattern file: %s", src);
	if (!(list = wg_calloc(1, sizeof(*list))) || !(list->src = wg_strdup(src)) ||
	    !(list->base = wg_strdup(base)) || !(list->text = wg_malloc(len + 1))) {
		wg_ignore_list_free(list);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	list->baselen = strlen(base);
	if (len)
		memcpy(list->text, data, len);
	/* as git: the last line needs no newline */
	list->text[len] = '\n';
	p = list->text;
	end = p + len;
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	for (entry = p; p <= end && !err; p++) {
		if (*p != '\n')
			continue;
		if (p != entry && entry[0] != '#') {
			/* one CR before the LF goes; a NUL cuts the line */
			if (p[-1] == '\r')
				p[-1] = '\0';
			else
				*p = '\0';
			trim_trailing_spaces(entry);
			err = add_pattern(list, entry, lineno);
		}
		lineno++;
		entry = p + 1;
	}
	if (err) {
		wg_ignore_list_free(list);
		return err;
	}
	*out = list;
	return 0;
}

void wg_ignore_list_free(struct wg_ignore_list *list)
{
	if (!list)
		return;
	wg_free(list->src);
	wg_free(list->base);
	wg_free(list->text);
	wg_free(list->patterns);
	wg_free(list);
}

/* --- matching one path against the lists -------------------------------- */

/* A path being decided: path is NUL-terminated at len, basename is the
 * part after its last '/'. */
struct query {
	const char *path;
	size_t len;
	const char *basename;
	enum wg_ignore_type type;
	const struct wg_ignore_source *source;
	bool icase;
};

static int path_ncmp(const char *a, const char *b, size_t n, bool icase)
{
	if (!icase)
		return memcmp(a, b, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x + 32);
		if (y >= 'A' && y <= 'Z')
			y = (unsigned char)(y + 32);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static bool match_basename(const struct query *q, const struct wg_ignore_pattern *pat)
{
	const char *name = q->basename;
	size_t namelen = q->len - (size_t)(name - q->path);

	if (pat->nowildcard == pat->len)
		return pat->len == namelen && !path_ncmp(pat->pattern, name, namelen, q->icase);
	if (pat->flags & WG_IGNORE_ENDSWITH) {
		size_t n = pat->len - 1;
		return n <= namelen &&
		       !path_ncmp(pat->pattern + 1, name + namelen - n, n, q->icase);
	}
	/* a basename has no '/': no pathname rules needed */
	return wg_wildmatch(pat->pattern, name, q->icase ? WG_WM_CASEFOLD : 0);
}

/* A pattern with a '/' in it: matched against the path below the list's
 * directory, with pathname rules. */
static bool match_pathname(const struct query *q, const struct wg_ignore_pattern *pat)
{
	const char *pattern = pat->pattern, *name;
	size_t plen = pat->len, prefix = pat->nowildcard, namelen;
	size_t baselen = pat->list->baselen ? pat->list->baselen - 1 : 0;

	if (*pattern == '/') {
		pattern++;
		plen--;
		prefix--;
	}
	if (q->len < baselen + 1 || (baselen && q->path[baselen] != '/') ||
	    path_ncmp(q->path, pat->list->base, baselen, q->icase))
		return false;
	namelen = baselen ? q->len - baselen - 1 : q->len;
	name = q->path + q->len - namelen;
	if (prefix) {
		if (prefix > namelen || path_ncmp(pattern, name, prefix, q->icase))
			return false;
		if (plen == prefix && namelen == prefix)
			return true;
		/* wildmatch gets the prefix's last byte, so that it still sees
		 * where a path component starts */
		prefix--;
		pattern += prefix;
		name += prefix;
	}
	return wg_wildmatch(pattern, name, WG_WM_PATHNAME | (q->icase ? WG_WM_CASEFOLD : 0));
}

static const struct wg_ignore_pattern *match_list(struct query *q,
						  const struct wg_ignore_list *list)
{
	for (size_t i = list->nr; i-- > 0;) {
		const struct wg_ignore_pattern *pat = &list->patterns[i];
		if (pat->flags & WG_IGNORE_MUSTBEDIR) {
			if (q->type == WG_IGNORE_TYPE_UNKNOWN)
				q->type = q->source->type ? q->source->type(q->source->payload, q->path)
							  : WG_IGNORE_TYPE_OTHER;
			if (q->type != WG_IGNORE_TYPE_DIR)
				continue;
		}
		if (pat->flags & WG_IGNORE_NODIR ? match_basename(q, pat) : match_pathname(q, pat))
			return pat;
	}
	return NULL;
}

/* --- the per-directory stack ---------------------------------------------- */

/* One directory on the way to the current path: its pattern file, or
 * the pattern that excludes it (then nothing below it is looked at). */
struct frame {
	size_t baselen;   /* of its "a/b/" prefix; 0 for the top */
	struct wg_ignore_list *list;
	const struct wg_ignore_pattern *excluded_by;
};

struct wg_ignore {
	struct wg_ignore_source source;
	bool icase;
	char *per_dir;
	size_t max_file_size;
	struct wg_ignore_list **globals;
	size_t nglobals, globals_alloc;
	struct frame *frames;
	size_t nframes, frames_alloc;
	struct wg_buf base;   /* the frames' directories: "a/b/" */
	struct wg_buf path;   /* the path being decided (directories are cut in it) */
	struct wg_buf src;
	struct wg_buf file;
};

static enum wg_ignore_type type_other(void *payload, const char *path)
{
	return WG_IGNORE_TYPE_OTHER;
}

int wg_ignore_new(struct wg_ignore **out, const struct wg_ignore_source *source,
		  const struct wg_ignore_options *opts)
{
	static const struct wg_ignore_options defaults = WG_IGNORE_OPTIONS_INIT;
	struct wg_ignore *ig;

	if (!opts)
		opts = &defaults;
	*out = NULL;
	if (!(ig = wg_calloc(1, sizeof(*ig))) ||
	    !(ig->per_dir = wg_strdup(opts->per_dir ? opts->per_dir : ".gitignore"))) {
		wg_free(ig);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	if (source)
		ig->source = *source;
	if (!ig->source.read)
		ig->per_dir[0] = '\0';
	if (!ig->source.type)
		ig->source.type = type_other;
	ig->icase = opts->ignore_case;
	ig->max_file_size = opts->max_file_size;
	*out = ig;
	return 0;
}

static void pop_frame(struct wg_ignore *ig)
{
	wg_ignore_list_free(ig->frames[--ig->nframes].list);
}

void wg_ignore_free(struct wg_ignore *ig)
{
	if (!ig)
		return;
	while (ig->nframes)
		pop_frame(ig);
	for (size_t i = 0; i < ig->nglobals; i++)
		wg_ignore_list_free(ig->globals[i]);
	wg_free(ig->globals);
	wg_free(ig->frames);
	wg_free(ig->per_dir);
	if (ig->source.release)
		ig->source.release(ig->source.payload);
	wg_buf_release(&ig->base);
	wg_buf_release(&ig->path);
	wg_buf_release(&ig->src);
	wg_buf_release(&ig->file);
	wg_free(ig);
}

/* Parse a pattern file; too large is git's warning and no file. */
static int parse_file(struct wg_ignore_list **out, struct wg_ignore *ig, const char *src,
		      const char *base, const void *data, size_t len)
{
	int err = wg_ignore_list_parse(out, src, base, data, len, ig->max_file_size);
	if (err == WG_ELIMIT) {
		if (ig->source.warn)
			ig->source.warn(ig->source.payload, wg_error_message());
		wg_error_clear();
		return 0;
	}
	return err;
}

int wg_ignore_add_file(struct wg_ignore *ig, const char *src, const void *data, size_t len)
{
	struct wg_ignore_list *list = NULL, **globals;
	int err;

	if (!(globals = grow(ig->globals, &ig->globals_alloc, ig->nglobals, sizeof(*globals))))
		return WG_ENOMEM;
	ig->globals = globals;
	if ((err = parse_file(&list, ig, src, "", data, len)) || !list)
		return err;
	ig->globals[ig->nglobals++] = list;
	return 0;
}

/* The last pattern that matches, deepest directory first, then the
 * whole-repository files, the last added first. */
static const struct wg_ignore_pattern *match_all(struct wg_ignore *ig, struct query *q)
{
	const struct wg_ignore_pattern *pat = NULL;
	for (size_t i = ig->nframes; !pat && i-- > 0;)
		if (ig->frames[i].list)
			pat = match_list(q, ig->frames[i].list);
	for (size_t i = ig->nglobals; !pat && i-- > 0;)
		pat = match_list(q, ig->globals[i]);
	return pat;
}

static int push_frame(struct wg_ignore *ig, size_t baselen)
{
	struct frame *frames = grow(ig->frames, &ig->frames_alloc, ig->nframes, sizeof(*frames));
	if (!frames)
		return WG_ENOMEM;
	ig->frames = frames;
	ig->frames[ig->nframes++] = (struct frame){ baselen, NULL, NULL };
	return 0;
}

/* Read the pattern file of the top frame's directory (ig->base). */
static int load_frame(struct wg_ignore *ig)
{
	struct frame *f = &ig->frames[ig->nframes - 1];
	int err;

	if (!ig->per_dir[0])
		return 0;
	wg_buf_reset(&ig->src);
	wg_buf_reset(&ig->file);
	if ((err = wg_buf_add(&ig->src, ig->base.data, ig->base.len)) ||
	    (err = wg_buf_adds(&ig->src, ig->per_dir)))
		return err;
	err = ig->source.read(ig->source.payload, wg_buf_cstr(&ig->src), &ig->file);
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	if (err)
		return err;
	return parse_file(&f->list, ig, wg_buf_cstr(&ig->src), wg_buf_cstr(&ig->base),
			  ig->file.data, ig->file.len);
}

/* Bring the frames to path's directories (p[0..dirlen)): keep the ones
 * the previous path shared, then for each directory below, decide the
 * directory itself first and read its file only when it is not excluded. */
static int walk_to(const struct wg_ignore_pattern **excluded, struct wg_ignore *ig, char *p,
		   size_t dirlen)
{
	size_t cur;
	int err;

	*excluded = NULL;
	while (ig->nframes) {
		const struct frame *top = &ig->frames[ig->nframes - 1];
		if (top->baselen <= dirlen &&
		    (!top->baselen || !memcmp(ig->base.data, p, top->baselen)))
			break;
		pop_frame(ig);
	}
	if (ig->nframes && (*excluded = ig->frames[ig->nframes - 1].excluded_by))
		return 0;
	wg_buf_setlen(&ig->base, ig->nframes ? ig->frames[ig->nframes - 1].baselen : 0);
	if (!ig->nframes) {
		if ((err = push_frame(ig, 0)) || (err = load_frame(ig))) {
			if (ig->nframes)
				pop_frame(ig);
			return err;
		}
	}
	while ((cur = ig->frames[ig->nframes - 1].baselen) < dirlen) {
		/* the next directory ends at the next '/'. git searches from
		 * one byte in, which is the same for a normalized path; for
		 * an empty component ("/x", "a//b", which git dies on) this
		 * keeps the directories a function of the path alone, so a
		 * frame kept from an earlier path is the one a fresh walk
		 * would make (the fuzz target checks it) */
		const char *slash = memchr(p + cur, '/', dirlen - cur);
		size_t next = (size_t)(slash - p) + 1;
		struct query q = { p, next - 1, p + cur, WG_IGNORE_TYPE_DIR, &ig->source, ig->icase };
		const struct wg_ignore_pattern *pat;

		if ((err = wg_buf_add(&ig->base, p + cur, next - cur)))
			return err;
		p[next - 1] = '\0';
		pat = match_all(ig, &q);
		p[next - 1] = '/';
		if ((err = push_frame(ig, next))) {
			wg_buf_setlen(&ig->base, cur);
			return err;
		}
		if (pat && !(pat->flags & WG_IGNORE_NEGATIVE)) {
			ig->frames[ig->nframes - 1].excluded_by = pat;
			*excluded = pat;
			return 0;
		}
		if ((err = load_frame(ig))) {
			pop_frame(ig);
			wg_buf_setlen(&ig->base, cur);
			return err;
		}
	}
	return 0;
}

int wg_ignore_match(const struct wg_ignore_pattern **out, struct wg_ignore *ig,
		    const char *path, enum wg_ignore_type type)
{
	const struct wg_ignore_pattern *excluded;
	const char *slash;
	size_t dirlen;
	char *p;
	int err;

	*out = NULL;
	wg_buf_reset(&ig->path);
	if ((err = wg_buf_grow(&ig->path, 0)) || (err = wg_buf_adds(&ig->path, path)))
		return err;
	p = (char *)ig->path.data;
	slash = strrchr(p, '/');
	dirlen = slash ? (size_t)(slash - p) + 1 : 0;
	if ((err = walk_to(&excluded, ig, p, dirlen)))
		return err;
	if (excluded) {
		*out = excluded;
		return 0;
	}
	{
		struct query q = { p, ig->path.len, p + dirlen, type, &ig->source, ig->icase };
		*out = match_all(ig, &q);
	}
	return 0;
}

int wg_ignore_is_excluded(bool *out, struct wg_ignore *ig, const char *path,
			  enum wg_ignore_type type)
{
	const struct wg_ignore_pattern *pat;
	int err = wg_ignore_match(&pat, ig, path, type);
	*out = !err && pat && !(pat->flags & WG_IGNORE_NEGATIVE);
	return err;
}
