#include "worktree/attr.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/wildmatch.h"

/* What git calls blank between a pattern and its attributes. */
static const char BLANK[] = " \t\r\n";
static const char MACRO_PREFIX[] = "[attr]";
#define MACRO_PREFIX_LEN (sizeof(MACRO_PREFIX) - 1)

/* A slot's state while filling: not decided yet. */
#define STATE_UNKNOWN 0xffu

/* Pattern flags, as git's dir.c names them. */
#define PAT_NODIR 0x1u     /* no '/': matched against the basename */
#define PAT_ENDSWITH 0x2u  /* "*literal" */
#define PAT_MUSTBEDIR 0x4u /* trailing '/' */

struct state {
	unsigned id;
	unsigned char kind; /* enum wg_attr_state */
	char *value;        /* WG_ATTR_VALUE */
};

struct line {
	bool macro;
	unsigned macro_id;
	char *pattern; /* without a trailing '/' */
	size_t patternlen, nowildcardlen;
	unsigned flags;
	size_t n;
	struct state *states;
};

/* One attributes file on git's stack. Directory frames have an origin
 * (the directory, "" for the top); the others do not. */
struct frame {
	struct frame *prev;
	char *origin;
	size_t originlen;
	struct line *lines;
	size_t nr, alloc;
};

struct slot {
	unsigned char kind; /* STATE_UNKNOWN while filling */
	const char *value;
	const struct line *macro;
};

struct wg_attr {
	struct wg_attr_options opts;
	/* the dictionary: names by number, and a hash of them */
	char **names;
	size_t nnames, names_alloc;
	uint32_t *table; /* id + 1, 0 = empty */
	size_t table_cap;
	/* git's stack (top: deepest directory) and info/attributes above it */
	struct frame *stack, *info;
	bool booted;
	struct slot *slots;
	size_t slots_cap;
	struct wg_attr_item *items;
	size_t items_cap;
	struct wg_buf pat, text, msg; /* scratch */
};

/* --- names ---------------------------------------------------------------------------- */

bool wg_attr_name_valid(const char *name, size_t len)
{
	/* git: [-._0-9A-Za-z], not starting with '-' */
	if (!len || *name == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		if (!(c == '-' || c == '.' || c == '_' || (c >= '0' && c <= '9') ||
		      (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return false;
	}
	return true;
}

/* builtin_* names are git's own (builtin_objectmode); files may not set them. */
static bool name_reserved(const char *name, size_t len)
{
	return len >= 8 && !memcmp(name, "builtin_", 8);
}

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int table_grow(struct wg_attr *a)
{
	size_t cap = a->table_cap ? a->table_cap * 2 : 64;
	uint32_t *t = wg_calloc(cap, sizeof(*t));

	if (!t)
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t id = 0; id < a->nnames; id++) {
		size_t i = name_hash(a->names[id], strlen(a->names[id])) & (cap - 1);
		while (t[i])
			i = (i + 1) & (cap - 1);
		t[i] = (uint32_t)id + 1;
	}
	wg_free(a->table);
	a->table = t;
	a->table_cap = cap;
	return 0;
}

/* The number of a (valid) name, added when new. */
static int intern(struct wg_attr *a, const char *name, size_t len, unsigned *id_out)
{
	size_t i;
	char *copy;

	if (a->table_cap) {
		for (i = name_hash(name, len) & (a->table_cap - 1); a->table[i];
		     i = (i + 1) & (a->table_cap - 1)) {
			const char *n = a->names[a->table[i] - 1];
			if (!strncmp(n, name, len) && !n[len]) {
				*id_out = a->table[i] - 1;
				return 0;
			}
		}
	}
	if (a->nnames >= UINT32_MAX - 1)
		return wg_error_set(WG_ELIMIT, "too many attribute names");
	if ((a->nnames + 1) * 2 > a->table_cap && table_grow(a))
		return WG_ENOMEM;
	if (a->nnames == a->names_alloc) {
		size_t n = a->names_alloc ? a->names_alloc * 2 : 16;
		char **v = wg_realloc(a->names, n * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		a->names = v;
		a->names_alloc = n;
	}
	if (!(copy = wg_strndup(name, len)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (i = name_hash(name, len) & (a->table_cap - 1); a->table[i];
	     i = (i + 1) & (a->table_cap - 1))
		;
	a->names[a->nnames] = copy;
	a->table[i] = (uint32_t)a->nnames + 1;
	*id_out = (unsigned)a->nnames++;
	return 0;
}

int wg_attr_intern(struct wg_attr *a, const char *name, unsigned *id_out)
{
	if (!wg_attr_name_valid(name, strlen(name)))
		return wg_error_set(WG_EINVALID, "%s: not a valid attribute name", name);
	return intern(a, name, strlen(name), id_out);
}

const char *wg_attr_name(const struct wg_attr *a, unsigned id)
{
	return id < a->nnames ? a->names[id] : NULL;
}

/* --- messages ------------------------------------------------------------------------- */

static void say(struct wg_attr *a, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void say(struct wg_attr *a, const char *fmt, ...)
{
	va_list ap;

	if (!a->opts.warn)
		return;
	wg_buf_reset(&a->msg);
	va_start(ap, fmt);
	/* a message that cannot be built (no memory) is dropped, as a
	 * warning cannot fail the check */
	if (!wg_buf_vprintf(&a->msg, fmt, ap))
		a->opts.warn(a->opts.payload, wg_buf_cstr(&a->msg));
	va_end(ap);
}

/* --- lines ---------------------------------------------------------------------------- */

static void line_release(struct line *l)
{
	for (size_t i = 0; i < l->n; i++)
		wg_free(l->states[i].value);
	wg_free(l->states);
	wg_free(l->pattern);
}

static void frame_free(struct frame *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr; i++)
		line_release(&f->lines[i]);
	wg_free(f->lines);
	wg_free(f->origin);
	wg_free(f);
}

/* One "attr", "-attr", "!attr" or "attr=value" at cp: its name's span,
 * its state and the value's span; returns the next one (blanks skipped).
 * As git, a '=' anywhere before the next blank starts the value. */
static const char *scan_state(const char *cp, const char **name, size_t *len, unsigned char *kind,
			      const char **value, size_t *vlen)
{
	const char *ep = cp + strcspn(cp, BLANK), *eq = memchr(cp, '=', (size_t)(ep - cp));

	*len = (size_t)((eq ? eq : ep) - cp);
	*value = NULL;
	*vlen = 0;
	if (*cp == '-' || *cp == '!') {
		*kind = *cp == '-' ? WG_ATTR_UNSET : WG_ATTR_UNSPECIFIED;
		cp++;
		(*len)--;
	} else if (!eq) {
		*kind = WG_ATTR_SET;
	} else {
		*kind = WG_ATTR_VALUE;
		*value = eq + 1;
		*vlen = (size_t)(ep - eq - 1);
	}
	*name = cp;
	return ep + strspn(ep, BLANK);
}

/* git's simple_length: the run before the first glob character. */
static size_t simple_length(const char *s)
{
	size_t n = 0;
	while (s[n] && !strchr("*?[\\", s[n]))
		n++;
	return n;
}

/* git's parse_path_pattern, without the negative case (refused earlier). */
static int set_pattern(struct line *l, const char *p)
{
	size_t len = strlen(p), i;

	if (len && p[len - 1] == '/') {
		len--;
		l->flags |= PAT_MUSTBEDIR;
	}
	for (i = 0; i < len && p[i] != '/'; i++)
		;
	if (i == len)
		l->flags |= PAT_NODIR;
	l->nowildcardlen = simple_length(p);
	if (l->nowildcardlen > len)
		l->nowildcardlen = len;
	if (*p == '*' && !p[1 + simple_length(p + 1)])
		l->flags |= PAT_ENDSWITH;
	l->patternlen = len;
	if (!(l->pattern = wg_strndup(p, len)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}

/* The end of a C-quoted pattern at s (just past its closing '"') for
 * wg_unquote_c_style, or 0 when there is no closing quote. An escape
 * skips the character after the backslash, so the first bare '"' ends
 * it, as in git's unquote_c_style. */
static size_t quote_end(const char *s)
{
	size_t i = 1;
	while (s[i] && s[i] != '"')
		i += s[i] == '\\' && s[i + 1] ? 2 : 1;
	return s[i] == '"' ? i + 1 : 0;
}

static int frame_add(struct frame *f, struct line *l)
{
	if (f->nr == f->alloc) {
		size_t n = f->alloc ? f->alloc * 2 : 8;
		struct line *v = wg_realloc(f->lines, n * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		f->lines = v;
		f->alloc = n;
	}
	f->lines[f->nr++] = *l;
	return 0;
}

/* git's parse_attr_line: one line (a C string: a NUL ends it) of src. A
 * line git refuses is reported and dropped, never an error. */
static int parse_line(struct wg_attr *a, struct frame *f, const char *line, const char *src,
		      unsigned lineno, bool macro_ok)
{
	const char *cp = line + strspn(line, BLANK), *name = cp, *states, *nm, *val;
	size_t namelen, nlen, vlen, n = 0, q;
	unsigned char kind;
	struct line l = { 0 };
	int err;

	if (!*cp || *cp == '#')
		return 0;
	if (strlen(line) >= WG_ATTR_MAX_LINE) {
		say(a, "warning: ignoring overly long attributes line %u", lineno);
		return 0;
	}
	wg_buf_reset(&a->pat);
	if (*cp == '"' && (q = quote_end(cp)) != 0 &&
	    !(err = wg_unquote_c_style(&a->pat, cp, q)) && !wg_buf_addch(&a->pat, '\0')) {
		/* (the NUL added keeps a pattern that is only "" a C string) */
		name = (const char *)a->pat.data;
		namelen = a->pat.len - 1;
		states = cp + q;
	} else {
		if (*cp == '"' && wg_error_code() == WG_ENOMEM)
			return WG_ENOMEM;
		wg_error_clear();
		namelen = strcspn(name, BLANK);
		states = name + namelen;
	}

	if (namelen > MACRO_PREFIX_LEN && !memcmp(name, MACRO_PREFIX, MACRO_PREFIX_LEN)) {
		if (!macro_ok) {
			/* git prints the rest of the line from the pattern on */
			say(a, "%s not allowed: %s:%u", name, src, lineno);
			return 0;
		}
		l.macro = true;
		name += MACRO_PREFIX_LEN;
		name += strspn(name, BLANK);
		namelen = strcspn(name, BLANK);
		if (!wg_attr_name_valid(name, namelen) || name_reserved(name, namelen)) {
			say(a, "%.*s is not a valid attribute name: %s:%u", (int)namelen, name, src,
			    lineno);
			return 0;
		}
	}

	/* first pass: every attribute must be valid, or the line goes */
	states += strspn(states, BLANK);
	for (cp = states; *cp; n++) {
		cp = scan_state(cp, &nm, &nlen, &kind, &val, &vlen);
		if (!wg_attr_name_valid(nm, nlen) || name_reserved(nm, nlen)) {
			say(a, "%.*s is not a valid attribute name: %s:%u", (int)nlen, nm, src,
			    lineno);
			return 0;
		}
	}

	if (l.macro) {
		if ((err = intern(a, name, namelen, &l.macro_id)))
			return err;
	} else {
		if (name[0] == '!') {
			say(a, "warning: Negative patterns are ignored in git attributes");
			say(a, "Use '\\!' for literal leading exclamation.");
			return 0;
		}
		/* the pattern is a C string to git: an escaped NUL ends it */
		if (name != (const char *)a->pat.data) {
			/* an unquoted pattern: copy its span */
			char *p = wg_strndup(name, namelen);
			if (!p)
				return wg_error_set(WG_ENOMEM, "out of memory");
			err = set_pattern(&l, p);
			wg_free(p);
		} else {
			err = set_pattern(&l, name);
		}
		if (err)
			return err;
	}

	if (n && !(l.states = wg_calloc(n, sizeof(*l.states)))) {
		line_release(&l);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	for (cp = states; *cp; l.n++) {
		struct state *s = &l.states[l.n];
		cp = scan_state(cp, &nm, &nlen, &kind, &val, &vlen);
		s->kind = kind;
		if ((err = intern(a, nm, nlen, &s->id)) ||
		    (val && !(s->value = wg_strndup(val, vlen)))) {
			l.n++;
			line_release(&l);
			return err ? err : wg_error_set(WG_ENOMEM, "out of memory");
		}
	}
	if ((err = frame_add(f, &l)))
		line_release(&l);
	return err;
}

/* A file's bytes as lines, the way git splits each kind. */
static int parse_file(struct wg_attr *a, struct frame *f, struct wg_attr_file *file,
		      bool macro_ok)
{
	const char *src = wg_buf_cstr(&file->name);
	char *p, *end;
	unsigned lineno = 0;
	int err = 0;

	if (file->data.len >= WG_ATTR_MAX_FILE_SIZE) {
		say(a, file->blob ? "warning: ignoring overly large gitattributes blob '%s'"
				  : "warning: ignoring overly large gitattributes file '%s'",
		    src);
		return 0;
	}
	if (!file->data.len)
		return 0;
	p = (char *)file->data.data;
	end = p + file->data.len; /* wg_buf keeps a NUL there */
	if (file->blob)
		end = p + strlen(p); /* git reads a blob as one C string */
	while (p < end && !err) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		char *next = nl ? nl + 1 : end;

		*eol = '\0';
		if (!file->blob) {
			/* strbuf_getline: a CR before the LF goes; a BOM
			 * starts the first line only */
			if (nl && eol > p && eol[-1] == '\r')
				eol[-1] = '\0';
			if (!lineno && !strncmp(p, "\xef\xbb\xbf", 3))
				p += 3;
		}
		if (lineno == UINT32_MAX)
			break;
		err = parse_line(a, f, p, src, ++lineno, macro_ok);
		p = next;
	}
	return err;
}

/* Read and parse one file into a new frame (empty when there is none). */
static int load_frame(struct wg_attr *a, struct frame **out, enum wg_attr_file_kind kind,
		      const char *dir, bool macro_ok)
{
	struct wg_attr_file file = { WG_BUF_INIT, WG_BUF_INIT, false };
	struct frame *f = wg_calloc(1, sizeof(*f));
	int err;

	if (!f)
		return wg_error_set(WG_ENOMEM, "out of memory");
	err = a->opts.read ? a->opts.read(a->opts.payload, kind, dir, &file) : WG_ENOTFOUND;
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		err = 0;
	} else if (!err) {
		err = parse_file(a, f, &file, macro_ok);
	}
	wg_buf_release(&file.data);
	wg_buf_release(&file.name);
	if (err) {
		frame_free(f);
		return err;
	}
	*out = f;
	return 0;
}

static const char BUILTIN[] = "[attr]binary -diff -merge -text";

static void push(struct wg_attr *a, struct frame *f)
{
	f->prev = a->stack;
	a->stack = f;
}

/* git's bootstrap_attr_stack: built-in, global, top directory, info. */
static int bootstrap(struct wg_attr *a)
{
	struct frame *f;
	char line[sizeof(BUILTIN)];
	int err;

	if (a->booted)
		return 0;
	if (!(f = wg_calloc(1, sizeof(*f))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	memcpy(line, BUILTIN, sizeof(BUILTIN));
	if ((err = parse_line(a, f, line, "[builtin]", 1, true))) {
		frame_free(f);
		return err;
	}
	push(a, f);
	if ((err = load_frame(a, &f, WG_ATTR_FILE_GLOBAL, NULL, true)))
		return err;
	push(a, f);
	if ((err = load_frame(a, &f, WG_ATTR_FILE_DIR, "", true)))
		return err;
	if (!(f->origin = wg_strdup(""))) {
		frame_free(f);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	push(a, f);
	if ((err = load_frame(a, &a->info, WG_ATTR_FILE_INFO, NULL, true)))
		return err;
	a->booted = true;
	return 0;
}

/* git's prepare_attr_stack: pop the directories that do not hold path,
 * push the ones down to dirlen that are missing. */
static int prepare(struct wg_attr *a, const char *path, size_t dirlen)
{
	struct wg_buf dir = WG_BUF_INIT;
	int err;

	if ((err = bootstrap(a)))
		return err;
	while (a->stack->origin) {
		struct frame *f = a->stack;
		size_t n = f->originlen;
		if (n <= dirlen && !strncmp(f->origin, path, n) && (!n || path[n] == '/'))
			break;
		if (!n)
			break; /* the top one stays */
		a->stack = f->prev;
		frame_free(f);
	}
	if ((err = wg_buf_adds(&dir, a->stack->origin)))
		return err;
	while (dir.len < dirlen) {
		size_t len = dir.len;
		struct frame *f;

		if (path[len] == '/')
			len++;
		while (len < dirlen && path[len] != '/')
			len++;
		if ((dir.len && (err = wg_buf_addch(&dir, '/'))) ||
		    (err = wg_buf_add(&dir, path + dir.len, len - dir.len)))
			break;
		if ((err = load_frame(a, &f, WG_ATTR_FILE_DIR, wg_buf_cstr(&dir), false)))
			break;
		wg_buf_setlen(&dir, len);
		if (!(f->origin = wg_strndup((const char *)dir.data, len))) {
			frame_free(f);
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		f->originlen = len;
		push(a, f);
	}
	wg_buf_release(&dir);
	return err;
}

/* --- matching ------------------------------------------------------------------------- */

static int fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* git's fspathncmp: bytes, or ASCII without case under core.ignoreCase. */
static bool same(const struct wg_attr *a, const char *x, const char *y, size_t n)
{
	if (!a->opts.ignore_case)
		return !memcmp(x, y, n);
	for (size_t i = 0; i < n; i++)
		if (fold((unsigned char)x[i]) != fold((unsigned char)y[i]))
			return false;
	return true;
}

/* wildmatch over (pattern, text) spans, as git's fnmatch_icase_mem. */
static int match_span(struct wg_attr *a, const char *pat, size_t plen, const char *text,
		      size_t tlen, unsigned flags, bool *out)
{
	wg_buf_reset(&a->pat);
	wg_buf_reset(&a->text);
	if (wg_buf_add(&a->pat, pat, plen) || wg_buf_addch(&a->pat, '\0') ||
	    wg_buf_add(&a->text, text, tlen) || wg_buf_addch(&a->text, '\0'))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (a->opts.ignore_case)
		flags |= WG_WM_CASEFOLD;
	*out = wg_wildmatch((const char *)a->pat.data, (const char *)a->text.data, flags);
	return 0;
}

static int match_basename(struct wg_attr *a, const struct line *l, const char *base,
			  size_t len, bool *out)
{
	size_t plen = l->patternlen;

	*out = false;
	if (l->nowildcardlen == plen) {
		*out = plen == len && same(a, l->pattern, base, len);
		return 0;
	}
	if (l->flags & PAT_ENDSWITH) {
		*out = plen - 1 <= len && same(a, l->pattern + 1, base + len - (plen - 1), plen - 1);
		return 0;
	}
	return match_span(a, l->pattern, plen, base, len, 0, out);
}

static int match_pathname(struct wg_attr *a, const struct line *l, const char *path,
			  size_t pathlen, const char *base, size_t baselen, bool *out)
{
	const char *pat = l->pattern, *name;
	size_t plen = l->patternlen, prefix = l->nowildcardlen, namelen;

	*out = false;
	if (*pat == '/') {
		pat++;
		plen--;
		prefix--;
	}
	if (pathlen < baselen + 1 || (baselen && path[baselen] != '/') ||
	    !same(a, path, base, baselen))
		return 0;
	namelen = baselen ? pathlen - baselen - 1 : pathlen;
	name = path + pathlen - namelen;
	if (prefix) {
		if (prefix > namelen || !same(a, pat, name, prefix))
			return 0;
		if (plen == prefix && namelen == prefix) {
			*out = true;
			return 0;
		}
		/* keep one character of the literal part, so that the
		 * matcher still sees where a component starts */
		prefix--;
		pat += prefix;
		plen -= prefix;
		name += prefix;
		namelen -= prefix;
	}
	return match_span(a, pat, plen, name, namelen, WG_WM_PATHNAME, out);
}

static int path_matches(struct wg_attr *a, const struct line *l, const char *path, size_t pathlen,
			size_t base_off, const struct frame *f, bool *out)
{
	size_t isdir = pathlen && path[pathlen - 1] == '/';

	*out = false;
	if ((l->flags & PAT_MUSTBEDIR) && !isdir)
		return 0;
	if (l->flags & PAT_NODIR)
		return match_basename(a, l, path + base_off, pathlen - base_off - isdir, out);
	return match_pathname(a, l, path, pathlen - isdir, f->origin ? f->origin : "",
			      f->originlen, out);
}

/* --- filling -------------------------------------------------------------------------- */

static int slots_init(struct wg_attr *a)
{
	if (a->nnames > a->slots_cap) {
		size_t n = a->nnames * 2;
		struct slot *s = wg_realloc(a->slots, n * sizeof(*s));
		if (!s)
			return wg_error_set(WG_ENOMEM, "out of memory");
		a->slots = s;
		a->slots_cap = n;
	}
	for (size_t i = 0; i < a->nnames; i++) {
		a->slots[i].kind = STATE_UNKNOWN;
		a->slots[i].value = NULL;
		a->slots[i].macro = NULL;
	}
	return 0;
}

/* Which macro definition each macro name has for this path: the one
 * nearest the top of the stack, the last in its file. */
static void find_macros(struct wg_attr *a)
{
	for (const struct frame *f = a->info; f; f = f == a->info ? a->stack : f->prev)
		for (size_t i = f->nr; i > 0; i--) {
			const struct line *l = &f->lines[i - 1];
			if (l->macro && !a->slots[l->macro_id].macro)
				a->slots[l->macro_id].macro = l;
		}
}

static int push_states(const struct line *l, const struct state ***todo, size_t *nr,
		       size_t *cap)
{
	if (*nr + l->n > *cap) {
		size_t n = *nr + l->n + *cap;
		const struct state **v = wg_realloc(*todo, n * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		*todo = v;
		*cap = n;
	}
	for (size_t i = 0; i < l->n; i++)
		(*todo)[(*nr)++] = &l->states[i];
	return 0;
}

/* git's fill_one: a matching line's states, last first, each taken only
 * if nothing nearer the top decided it; a macro that becomes set brings
 * its own states in right away (a stack, depth first). Every slot is
 * decided once, so a macro naming itself cannot loop. */
static int fill_one(struct wg_attr *a, const struct line *l, size_t *rem,
		    const struct state ***todo, size_t *cap)
{
	size_t nr = 0;
	int err = push_states(l, todo, &nr, cap);

	while (!err && *rem && nr) {
		const struct state *s = (*todo)[--nr];
		struct slot *slot = &a->slots[s->id];

		if (slot->kind != STATE_UNKNOWN)
			continue;
		slot->kind = s->kind;
		slot->value = s->value;
		(*rem)--;
		if (slot->macro && slot->kind == WG_ATTR_SET)
			err = push_states(slot->macro, todo, &nr, cap);
	}
	return err;
}

static int collect(struct wg_attr *a, const char *path)
{
	size_t pathlen = strlen(path), dirlen = 0, base_off = 0, rem;
	const struct state **todo = NULL;
	size_t todo_cap = 0;
	int err;

	for (size_t i = 0; i < pathlen; i++)
		if (path[i] == '/' && path[i + 1]) {
			base_off = i + 1;
			dirlen = i;
		}
	if ((err = prepare(a, path, dirlen)) || (err = slots_init(a)))
		return err;
	find_macros(a);
	rem = a->nnames;
	for (const struct frame *f = a->info; f && rem; f = f == a->info ? a->stack : f->prev)
		for (size_t i = f->nr; i > 0 && rem && !err; i--) {
			const struct line *l = &f->lines[i - 1];
			bool hit;
			if (l->macro)
				continue;
			if (!(err = path_matches(a, l, path, pathlen, base_off, f, &hit)) && hit)
				err = fill_one(a, l, &rem, &todo, &todo_cap);
		}
	wg_free(todo);
	return err;
}

static struct wg_attr_value value_of(const struct slot *s)
{
	struct wg_attr_value v = { WG_ATTR_UNSPECIFIED, NULL };
	if (s->kind != STATE_UNKNOWN) {
		v.state = (enum wg_attr_state)s->kind;
		v.value = s->value;
	}
	return v;
}

int wg_attr_check(struct wg_attr *a, const char *path, const unsigned *ids, size_t n,
		  struct wg_attr_value *out)
{
	int err = collect(a, path);

	for (size_t i = 0; i < n; i++) {
		if (err || ids[i] >= a->nnames) {
			out[i].state = WG_ATTR_UNSPECIFIED;
			out[i].value = NULL;
		} else {
			out[i] = value_of(&a->slots[ids[i]]);
		}
	}
	return err;
}

int wg_attr_check_all(struct wg_attr *a, const char *path, const struct wg_attr_item **items,
		      size_t *n)
{
	size_t k = 0;
	int err;

	*items = NULL;
	*n = 0;
	if ((err = collect(a, path)))
		return err;
	if (a->nnames > a->items_cap) {
		struct wg_attr_item *v = wg_realloc(a->items, a->nnames * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		a->items = v;
		a->items_cap = a->nnames;
	}
	for (size_t i = 0; i < a->nnames; i++) {
		struct wg_attr_value v = value_of(&a->slots[i]);
		if (v.state == WG_ATTR_UNSPECIFIED)
			continue;
		a->items[k].id = (unsigned)i;
		a->items[k++].v = v;
	}
	*items = a->items;
	*n = k;
	return 0;
}

/* --- life ----------------------------------------------------------------------------- */

int wg_attr_new(struct wg_attr **out, const struct wg_attr_options *opts)
{
	struct wg_attr *a = wg_calloc(1, sizeof(*a));

	*out = NULL;
	if (!a)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (opts)
		a->opts = *opts;
	*out = a;
	return 0;
}

void wg_attr_free(struct wg_attr *a)
{
	if (!a)
		return;
	while (a->stack) {
		struct frame *f = a->stack;
		a->stack = f->prev;
		frame_free(f);
	}
	frame_free(a->info);
	for (size_t i = 0; i < a->nnames; i++)
		wg_free(a->names[i]);
	wg_free(a->names);
	wg_free(a->table);
	wg_free(a->slots);
	wg_free(a->items);
	wg_buf_release(&a->pat);
	wg_buf_release(&a->text);
	wg_buf_release(&a->msg);
	wg_free(a);
}
