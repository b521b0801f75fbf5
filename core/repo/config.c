#include "repo/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/error.h"
#include "util/lockfile.h"

/*
 * How this works. Git's config.c parses a file with a one-character
 * lookahead reader and, for `git config` edits, records "events" (a run of
 * whitespace, a comment, a section header, an entry) with their byte
 * ranges; an edit then copies the bytes before the spot, writes the new
 * line, and copies the rest. To be compatible down to the byte -- where a
 * new entry lands, which whitespace goes with a replaced line, when an
 * emptied section disappears, which line an error is reported on -- this
 * file follows that model step by step: the parser below reads the same
 * characters in the same order and records the same events, and the edit
 * functions run the same splice over them. After an edit the new bytes are
 * simply parsed again, so the events always describe the current bytes.
 */

/* Git's own locale-independent ASCII classes: its isspace() knows only
 * space, tab, LF and CR (no VT or FF), and nothing above 127 is a letter. */
static int cfg_isspace(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int cfg_isalpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int cfg_isdigit(int c) { return c >= '0' && c <= '9'; }
static int cfg_iskeychar(int c) { return cfg_isalpha(c) || cfg_isdigit(c) || c == '-'; }
static int cfg_tolower(int c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

static int ascii_strcasecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = cfg_tolower((unsigned char)*a), y = cfg_tolower((unsigned char)*b);
		if (x != y || !x)
			return x - y;
	}
}

enum event_type {
	EV_NONE = 0,  /* before the first event; never stored */
	EV_WHITESPACE,
	EV_COMMENT,
	EV_SECTION,
	EV_ENTRY,
};

struct config_event {
	enum event_type type;
	size_t begin, end;  /* byte range in the text, end exclusive */
	/* EV_SECTION: the section as git's parser holds it, "sec" or
	 * "sec.sub" without the trailing dot; name_len counts any NUL bytes a
	 * quoted subsection smuggled in. EV_ENTRY: the canonical key as a C
	 * string ("sec.sub.name"). */
	char *name;
	size_t name_len;
	/* EV_SECTION: compare case-insensitively ([sec] and [sec.sub]) rather
	 * than exactly ([sec "sub"]). */
	bool fold;
	/* EV_ENTRY: the value, NULL for a key written without '='. */
	char *value;
};

struct wg_config {
	struct wg_buf text;
	struct config_event *events;
	size_t nr, alloc;
	/* The text ends right after a value's continuation ("value\\" or
	 * "value\\\n"): the value is still open, only the end of the file
	 * stops it. */
	bool cont_at_eof;
	char *origin;  /* for messages; NULL for anonymous data */
};

static void events_free(struct config_event *events, size_t nr)
{
	size_t i;
	for (i = 0; i < nr; i++) {
		wg_free(events[i].name);
		wg_free(events[i].value);
	}
	wg_free(events);
}

void wg_config_free(struct wg_config *cfg)
{
	if (!cfg)
		return;
	events_free(cfg->events, cfg->nr);
	wg_buf_release(&cfg->text);
	wg_free(cfg->origin);
	wg_free(cfg);
}

int wg_config_new(struct wg_config **out)
{
	struct wg_config *cfg;
	*out = NULL;
	if (!(cfg = wg_calloc(1, sizeof(*cfg))))
		return wg_error_set(WG_ENOMEM, "out of memory allocating a config");
	*out = cfg;
	return 0;
}

/* ---- the parser ---------------------------------------------------------- */

#define CFG_EOF (-1)

struct parser {
	const unsigned char *data;
	size_t len, pos;
	bool eof;
	/* Same arithmetic as git's cs->linenr, quirks included, so error
	 * messages name the same line. Bounded by len + a few, and len is
	 * capped at INT_MAX before parsing. */
	long linenr;
	struct wg_buf var;    /* "section." then the key being read */
	struct wg_buf value;
	size_t baselen;       /* length of "section." in var */
	bool fold;
	enum event_type prev; /* type of the event still open */
	struct config_event *events;
	size_t nr, alloc;
	bool oom;
	bool cont_at_eof;     /* the input ends in a value's continuation */
	const char *why;      /* what was wrong, for the error message */
};

/* Git's get_next_char(): CRLF reads as LF, end of input reads as LF (with
 * eof set and the line counter bumped, every time it is read). */
static int next_char(struct parser *p)
{
	int c = p->pos < p->len ? p->data[p->pos++] : CFG_EOF;
	if (c == '\r') {
		if (p->pos < p->len && p->data[p->pos] == '\n') {
			p->pos++;
			c = '\n';
		}
	}
	if (c == '\n')
		p->linenr++;
	if (c == CFG_EOF) {
		p->eof = true;
		p->linenr++;
		c = '\n';
	}
	return c;
}

static int buf_addch(struct parser *p, struct wg_buf *buf, int c)
{
	if (wg_buf_addch(buf, c)) {
		p->oom = true;
		return -1;
	}
	return 0;
}

/* Git's do_event(): a new event starts at the character just read (or at
 * the end of input), which closes the previous one there. Consecutive
 * whitespace is one event. */
static int start_event(struct parser *p, enum event_type type, bool at_eof)
{
	size_t offset = p->pos;
	if (type == EV_WHITESPACE && p->prev == EV_WHITESPACE)
		return 0;
	if (!at_eof)
		offset--;
	if (p->nr)
		p->events[p->nr - 1].end = offset;
	p->prev = type;
	if (at_eof)
		return 0;
	if (p->nr == p->alloc) {
		size_t alloc = p->alloc ? p->alloc * 2 : 16;
		struct config_event *ev;
		if (alloc < p->alloc || alloc > ((size_t)-1) / sizeof(*ev) ||
		    !(ev = wg_realloc(p->events, alloc * sizeof(*ev)))) {
			p->oom = true;
			return -1;
		}
		p->events = ev;
		p->alloc = alloc;
	}
	memset(&p->events[p->nr], 0, sizeof(p->events[0]));
	p->events[p->nr].type = type;
	p->events[p->nr].begin = offset;
	p->events[p->nr].end = offset;
	p->nr++;
	return 0;
}

/* Git's parse_value(): the value after '=', into p->value. */
static int parse_value(struct parser *p)
{
	bool quote = false, comment = false;
	size_t trim_len = 0, cont_end = 0;

	wg_buf_reset(&p->value);
	for (;;) {
		int c = next_char(p);
		if (c == '\n') {
			if (quote) {
				p->linenr--;
				p->why = "unterminated quoted value";
				return -1;
			}
			/* Blanks after the last non-blank are dropped; blanks
			 * between words stay as written. */
			if (trim_len)
				wg_buf_setlen(&p->value, trim_len);
			if (p->eof && cont_end == p->len)
				p->cont_at_eof = true;
			return 0;
		}
		if (comment)
			continue;
		if (cfg_isspace(c) && !quote) {
			if (!trim_len)
				trim_len = p->value.len;
			if (p->value.len && buf_addch(p, &p->value, c))
				return -1;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		trim_len = 0;
		if (c == '\\') {
			c = next_char(p);
			switch (c) {
			case '\n':
				/* Remember where, to notice a file that
				 * ends right after it. */
				cont_end = p->pos;
				continue;  /* line continuation */
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				p->why = "unknown escape sequence in value";
				return -1;
			}
			if (buf_addch(p, &p->value, c))
				return -1;
			continue;
		}
		if (c == '"') {
			quote = !quote;
			continue;
		}
		if (buf_addch(p, &p->value, c))
			return -1;
	}
}

static int record_entry(struct parser *p, bool has_value)
{
	struct config_event *ev = &p->events[p->nr - 1];
	/* strlen: a NUL byte inside the key or value ends it, exactly as
	 * for git, which hands both on as C strings. */
	ev->name = wg_strdup(wg_buf_cstr(&p->var));
	if (!ev->name) {
		p->oom = true;
		return -1;
	}
	if (has_value && !(ev->value = wg_strdup(wg_buf_cstr(&p->value)))) {
		p->oom = true;
		return -1;
	}
	return 0;
}

/* Git's get_value(): the rest of a variable name, then '=' and a value or
 * the end of the line. */
static int parse_entry(struct parser *p)
{
	int c;
	for (;;) {
		c = next_char(p);
		if (p->eof)
			break;
		if (!cfg_iskeychar(c))
			break;
		if (buf_addch(p, &p->var, cfg_tolower(c)))
			return -1;
	}
	while (c == ' ' || c == '\t')
		c = next_char(p);
	if (c != '\n') {
		if (c != '=') {
			p->why = "invalid character in variable name, or missing '='";
			return -1;
		}
		if (parse_value(p))
			return -1;
		return record_entry(p, true);
	}
	return record_entry(p, false);
}

/* Git's get_extended_base_var(): [section "subsection"]. */
static int parse_subsection(struct parser *p, int c)
{
	p->fold = false;
	do {
		if (c == '\n')
			goto incomplete;
		c = next_char(p);
	} while (cfg_isspace(c));
	if (c != '"') {
		p->why = "subsection name must be in double quotes";
		return -1;
	}
	if (buf_addch(p, &p->var, '.'))
		return -1;
	for (;;) {
		c = next_char(p);
		if (c == '\n')
			goto incomplete;
		if (c == '"')
			break;
		if (c == '\\') {
			/* Any character may be escaped and stands for itself. */
			c = next_char(p);
			if (c == '\n')
				goto incomplete;
		}
		if (buf_addch(p, &p->var, c))
			return -1;
	}
	if (next_char(p) != ']') {
		p->why = "expected ']' after the subsection name";
		return -1;
	}
	return 0;
incomplete:
	p->linenr--;
	p->why = "section header ends before its closing ']'";
	return -1;
}

/* Git's get_base_var(): the section header after '['. */
static int parse_section(struct parser *p)
{
	p->fold = true;
	for (;;) {
		int c = next_char(p);
		if (p->eof) {
			p->why = "section header ends before its closing ']'";
			return -1;
		}
		if (c == ']')
			return 0;
		if (cfg_isspace(c))
			return parse_subsection(p, c);
		if (!cfg_iskeychar(c) && c != '.') {
			p->why = "invalid character in section name";
			return -1;
		}
		if (buf_addch(p, &p->var, cfg_tolower(c)))
			return -1;
	}
}

static int record_section(struct parser *p)
{
	struct config_event *ev = &p->events[p->nr - 1];
	if (!(ev->name = wg_strndup((const char *)p->var.data, p->var.len))) {
		p->oom = true;
		return -1;
	}
	ev->name_len = p->var.len;
	ev->fold = p->fold;
	return 0;
}

/* Git's git_parse_source(). Returns 0 at the end of the input, -1 on a
 * syntax error or allocation failure (p->oom). */
static int parse_all(struct parser *p)
{
	static const unsigned char bom[] = { 0xef, 0xbb, 0xbf };
	size_t bom_seen = 0;
	bool bom_check = true, comment = false;

	for (;;) {
		int c = next_char(p);
		if (bom_check && bom_seen < sizeof(bom)) {
			/* A UTF-8 byte order mark (Windows editors write one)
			 * is skipped at the very start; a partial one is an
			 * error, as in git. */
			if (c == bom[bom_seen]) {
				bom_seen++;
				continue;
			}
			if (bom_seen) {
				p->why = "incomplete UTF-8 byte order mark";
				return -1;
			}
			bom_check = false;
		}
		if (c == '\n') {
			if (p->eof)
				return start_event(p, EV_NONE, true);
			if (start_event(p, EV_WHITESPACE, false))
				return -1;
			comment = false;
			continue;
		}
		if (comment)
			continue;
		if (cfg_isspace(c)) {
			if (start_event(p, EV_WHITESPACE, false))
				return -1;
			continue;
		}
		if (c == '#' || c == ';') {
			if (start_event(p, EV_COMMENT, false))
				return -1;
			comment = true;
			continue;
		}
		if (c == '[') {
			if (start_event(p, EV_SECTION, false))
				return -1;
			wg_buf_reset(&p->var);
			if (parse_section(p))
				return -1;
			if (p->var.len < 1) {
				p->why = "empty section name";
				return -1;
			}
			if (record_section(p) || buf_addch(p, &p->var, '.'))
				return -1;
			p->baselen = p->var.len;
			continue;
		}
		if (!cfg_isalpha(c)) {
			p->why = "expected a section header, a variable name or a comment";
			return -1;
		}
		if (start_event(p, EV_ENTRY, false))
			return -1;
		wg_buf_setlen(&p->var, p->baselen);
		if (buf_addch(p, &p->var, cfg_tolower(c)))
			return -1;
		if (parse_entry(p))
			return -1;
	}
}

/* Parse `len` bytes into events. On success the events belong to the
 * caller. */
static int parse_text(struct config_event **events_out, size_t *nr_out, size_t *alloc_out,
		      bool *cont_at_eof, const unsigned char *data, size_t len,
		      const char *origin, bool keep_partial)
{
	struct parser p;
	int rc;

	*events_out = NULL;
	*nr_out = *alloc_out = 0;
	/* Git refuses files over INT_MAX bytes to keep its int counters
	 * (line numbers, lengths) from overflowing; so do we. */
	if (len > INT_MAX)
		return wg_error_set(WG_ECORRUPT, "config %s%s is too large (%zu bytes)",
				    origin ? "file " : "data", origin ? origin : "", len);
	memset(&p, 0, sizeof(p));
	p.data = data;
	p.len = len;
	p.linenr = 1;
	p.var = (struct wg_buf)WG_BUF_INIT;
	p.value = (struct wg_buf)WG_BUF_INIT;
	p.prev = EV_NONE;
	/* The first byte read is data[0]; an empty buffer may be NULL. */
	if (!data)
		p.len = 0;

	rc = parse_all(&p);
	wg_buf_release(&p.var);
	wg_buf_release(&p.value);
	if (rc) {
		if (keep_partial && !p.oom) {
			/* The complete events before the error. An entry is
			 * only recorded once its value ended. */
			*events_out = p.events;
			*nr_out = p.nr;
			*alloc_out = p.alloc;
		} else {
			events_free(p.events, p.nr);
		}
		if (p.oom)
			return wg_error_set(WG_ENOMEM, "out of memory parsing config%s%s",
					    origin ? " file " : "", origin ? origin : "");
		if (origin)
			return wg_error_set(WG_ECORRUPT, "bad config line %ld in file %s (%s)",
					    p.linenr, origin, p.why);
		return wg_error_set(WG_ECORRUPT, "bad config line %ld (%s)", p.linenr, p.why);
	}
	*events_out = p.events;
	*nr_out = p.nr;
	*alloc_out = p.alloc;
	*cont_at_eof = p.cont_at_eof;
	return 0;
}

int wg_config_parse(struct wg_config **out, const char *data, size_t len, const char *origin)
{
	struct wg_config *cfg;
	int err;

	*out = NULL;
	if (!data && len)
		return wg_error_set(WG_EINVALID, "config data is NULL");
	if ((err = wg_config_new(&cfg)))
		return err;
	if (origin && !(cfg->origin = wg_strdup(origin))) {
		wg_config_free(cfg);
		return wg_error_set(WG_ENOMEM, "out of memory parsing config");
	}
	if ((err = wg_buf_add(&cfg->text, data, len)) ||
	    (err = parse_text(&cfg->events, &cfg->nr, &cfg->alloc, &cfg->cont_at_eof,
			      cfg->text.data, cfg->text.len, origin, false))) {
		wg_config_free(cfg);
		return err;
	}
	*out = cfg;
	return 0;
}

int wg_config_parse_entries(const char *data, size_t len, const char *origin,
			    int (*cb)(const char *key, const char *value, void *payload),
			    void *payload)
{
	struct config_event *events;
	size_t nr, alloc, i;
	bool cont;
	char why[256];
	int err, perr;

	if (!data && len)
		return wg_error_set(WG_EINVALID, "config data is NULL");
	perr = parse_text(&events, &nr, &alloc, &cont, (const unsigned char *)data, len, origin,
			  true);
	if (perr && perr != WG_ECORRUPT)
		return perr;
	/* The callback may set errors of its own: keep the parser's. */
	snprintf(why, sizeof(why), "%s", perr ? wg_error_message() : "");
	err = 0;
	/* An entry whose value the error cut short has no name yet. */
	for (i = 0; i < nr && !err; i++)
		if (events[i].type == EV_ENTRY && events[i].name)
			err = cb(events[i].name, events[i].value, payload);
	events_free(events, nr);
	if (err)
		return err;
	if (perr)
		return wg_error_set(WG_ECORRUPT, "%s", why);
	return 0;
}

int wg_config_read_file(struct wg_config **out, const char *path)
{
	struct wg_buf data = WG_BUF_INIT;
	int fd, err;

	*out = NULL;
	do {
		fd = wg_fs_open(path, O_RDONLY, 0);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		if (errno == ENOENT)
			return wg_error_set(WG_ENOTFOUND, "config file '%s' does not exist", path);
		return wg_error_set(WG_EIO, "could not open config file '%s': %s", path,
				    strerror(errno));
	}
	for (;;) {
		ssize_t n;
		if ((err = wg_buf_grow(&data, 8192))) {
			wg_fs_close(fd);
			wg_buf_release(&data);
			return err;
		}
		n = wg_fs_read(fd, data.data + data.len, data.cap - data.len - 1);
		if (n < 0) {
			int saved = errno;
			if (saved == EINTR)
				continue;
			wg_fs_close(fd);
			wg_buf_release(&data);
			return wg_error_set(WG_EIO, "could not read config file '%s': %s", path,
					    strerror(saved));
		}
		if (n == 0)
			break;
		wg_buf_setlen(&data, data.len + (size_t)n);
		if (data.len > INT_MAX) {
			/* Stop early rather than slurp a huge file that the
			 * parser will refuse anyway. */
			wg_fs_close(fd);
			wg_buf_release(&data);
			return wg_error_set(WG_ECORRUPT, "config file %s is too large", path);
		}
	}
	wg_fs_close(fd);
	err = wg_config_parse(out, (const char *)data.data, data.len, path);
	wg_buf_release(&data);
	return err;
}

/* ---- keys ---------------------------------------------------------------- */

/* Git's git_config_parse_key(): check a key and lower-case its section and
 * variable name (the subsection between the first and last dot is kept as
 * is). *baselen_out is the length of "section[.subsection]". */
static int parse_key(char **out, size_t *baselen_out, const char *key)
{
	const char *last_dot;
	size_t i, baselen, len;
	bool dot = false;
	char *store;

	*out = NULL;
	if (!key)
		return wg_error_set(WG_EINVALID, "config key is NULL");
	last_dot = strrchr(key, '.');
	if (!last_dot || last_dot == key)
		return wg_error_set(WG_EINVALID, "key does not contain a section: %s", key);
	if (!last_dot[1])
		return wg_error_set(WG_EINVALID, "key does not contain variable name: %s", key);
	baselen = (size_t)(last_dot - key);
	len = strlen(key);
	if (!(store = wg_malloc(len + 1)))
		return wg_error_set(WG_ENOMEM, "out of memory checking config key");
	for (i = 0; i < len; i++) {
		int c = (unsigned char)key[i];
		if (c == '.')
			dot = true;
		if (!dot || i > baselen) {
			if (!cfg_iskeychar(c) || (i == baselen + 1 && !cfg_isalpha(c))) {
				wg_free(store);
				return wg_error_set(WG_EINVALID, "invalid key: %s", key);
			}
			c = cfg_tolower(c);
		} else if (c == '\n') {
			wg_free(store);
			return wg_error_set(WG_EINVALID, "invalid key (newline): %s", key);
		}
		store[i] = (char)c;
	}
	store[len] = '\0';
	*out = store;
	if (baselen_out)
		*baselen_out = baselen;
	return 0;
}

int wg_config_validate_key(const char *key)
{
	char *canon;
	int err = parse_key(&canon, NULL, key);
	wg_free(canon);
	return err;
}

int wg_config_canonical_key(char **out, const char *key)
{
	return parse_key(out, NULL, key);
}

/* ---- queries ------------------------------------------------------------- */

static int find_last(const struct config_event **out, const struct wg_config *cfg,
		     const char *key)
{
	char *canon;
	size_t i;
	int err;

	*out = NULL;
	if ((err = parse_key(&canon, NULL, key)))
		return err;
	for (i = cfg->nr; i-- > 0;) {
		const struct config_event *ev = &cfg->events[i];
		if (ev->type == EV_ENTRY && !strcmp(ev->name, canon)) {
			*out = ev;
			wg_free(canon);
			return 0;
		}
	}
	wg_free(canon);
	return wg_error_set(WG_ENOTFOUND, "config key '%s' not found", key);
}

int wg_config_get_string(const struct wg_config *cfg, const char *key, const char **out)
{
	const struct config_event *ev;
	int err;
	*out = NULL;
	if ((err = find_last(&ev, cfg, key)))
		return err;
	*out = ev->value;
	return 0;
}

/* strtoimax(s, &end, 0) exactly as the C standard specifies it: C-locale
 * blanks, a sign, then hex after "0x", octal after "0", else decimal. Git
 * calls the C library's; ours is spelled out because libcs disagree at the
 * edges (musl, under Emscripten, swallows a bare "0x" that glibc leaves as
 * "0" followed by junk) and the answer must not depend on the platform.
 * Returns 0, or -1 with *end == s when there are no digits, or 1 when the
 * number overflows (*end still past all its digits). */
static int parse_c_integer(intmax_t *out, const char **end, const char *s)
{
	const char *p = s;
	uintmax_t mag = 0, limit;
	unsigned base = 10;
	bool neg = false, range = false, any = false;

	*out = 0;
	*end = s;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    ((p[2] >= '0' && p[2] <= '9') || (p[2] >= 'a' && p[2] <= 'f') ||
	     (p[2] >= 'A' && p[2] <= 'F'))) {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	limit = neg ? (uintmax_t)INTMAX_MAX + 1 : (uintmax_t)INTMAX_MAX;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'z')
			d = (unsigned)(*p - 'a') + 10;
		else if (*p >= 'A' && *p <= 'Z')
			d = (unsigned)(*p - 'A') + 10;
		else
			break;
		if (d >= base)
			break;
		any = true;
		if (mag > (limit - d) / base)
			range = true;
		else
			mag = mag * base + d;
	}
	if (!any)
		return -1;
	*end = p;
	if (range) {
		*out = neg ? INTMAX_MIN : INTMAX_MAX;
		return 1;
	}
	/* -(INTMAX_MAX + 1) without signed overflow. */
	*out = neg ? (mag ? -(intmax_t)(mag - 1) - 1 : 0) : (intmax_t)mag;
	return 0;
}

/* Git's git_parse_signed(): 1 on success, else 0 with *range telling an
 * out-of-range number from a malformed one. */
static int parse_signed(intmax_t *out, const char *value, intmax_t max, bool *range)
{
	const char *end;
	intmax_t val, factor;
	int rc;

	*range = false;
	if (!value || !*value)
		return 0;
	rc = parse_c_integer(&val, &end, value);
	if (rc > 0) {
		*range = true;
		return 0;
	}
	if (rc < 0)
		return 0;
	if (!*end)
		factor = 1;
	else if (!ascii_strcasecmp(end, "k"))
		factor = 1024;
	else if (!ascii_strcasecmp(end, "m"))
		factor = 1024 * 1024;
	else if (!ascii_strcasecmp(end, "g"))
		factor = 1024 * 1024 * 1024;
	else
		return 0;
	if ((val < 0 && (-max - 1) / factor > val) || (val > 0 && max / factor < val)) {
		*range = true;
		return 0;
	}
	*out = val * factor;
	return 1;
}

int wg_config_bool_value(const char *key, const char *v, bool *out)
{
	intmax_t n;
	bool range;

	*out = false;
	if (!v) {
		*out = true;
		return 0;
	}
	if (!*v)
		return 0;
	if (!ascii_strcasecmp(v, "true") || !ascii_strcasecmp(v, "yes") ||
	    !ascii_strcasecmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!ascii_strcasecmp(v, "false") || !ascii_strcasecmp(v, "no") ||
	    !ascii_strcasecmp(v, "off"))
		return 0;
	/* Git accepts any int (not int64) as a boolean. */
	if (parse_signed(&n, v, INT_MAX, &range)) {
		*out = n != 0;
		return 0;
	}
	return wg_error_set(WG_EINVALID, "bad boolean config value '%s' for '%s'", v, key);
}

int wg_config_get_bool(const struct wg_config *cfg, const char *key, bool *out)
{
	const struct config_event *ev;
	int err;

	*out = false;
	if ((err = find_last(&ev, cfg, key)))
		return err;
	return wg_config_bool_value(ev->name, ev->value, out);
}

int wg_config_get_int64(const struct wg_config *cfg, const char *key, int64_t *out)
{
	const struct config_event *ev;
	intmax_t n;
	bool range;
	int err;

	*out = 0;
	if ((err = find_last(&ev, cfg, key)))
		return err;
	if (parse_signed(&n, ev->value, INT64_MAX, &range)) {
		*out = (int64_t)n;
		return 0;
	}
	if (cfg->origin)
		return wg_error_set(WG_EINVALID, "bad numeric config value '%s' for '%s' in file %s: %s",
				    ev->value ? ev->value : "", ev->name, cfg->origin,
				    range ? "out of range" : "invalid unit");
	return wg_error_set(WG_EINVALID, "bad numeric config value '%s' for '%s': %s",
			    ev->value ? ev->value : "", ev->name,
			    range ? "out of range" : "invalid unit");
}

int wg_config_int64_value(const char *key, const char *value, int64_t *out)
{
	intmax_t n;
	bool range;

	*out = 0;
	if (parse_signed(&n, value, INT64_MAX, &range)) {
		*out = (int64_t)n;
		return 0;
	}
	return wg_error_set(WG_EINVALID, "bad numeric config value '%s' for '%s': %s",
			    value ? value : "", key, range ? "out of range" : "invalid unit");
}

int wg_config_get_all(const struct wg_config *cfg, const char *key,
		      int (*cb)(const char *value, void *payload), void *payload)
{
	char *canon;
	size_t i;
	bool found = false;
	int err;

	if ((err = parse_key(&canon, NULL, key)))
		return err;
	for (i = 0; i < cfg->nr; i++) {
		const struct config_event *ev = &cfg->events[i];
		if (ev->type != EV_ENTRY || strcmp(ev->name, canon))
			continue;
		found = true;
		if ((err = cb(ev->value, payload))) {
			wg_free(canon);
			return err;
		}
	}
	wg_free(canon);
	if (!found)
		return wg_error_set(WG_ENOTFOUND, "config key '%s' not found", key);
	return 0;
}

int wg_config_foreach(const struct wg_config *cfg,
		      int (*cb)(const char *key, const char *value, void *payload),
		      void *payload)
{
	size_t i;
	int err;
	for (i = 0; i < cfg->nr; i++) {
		const struct config_event *ev = &cfg->events[i];
		if (ev->type == EV_ENTRY && (err = cb(ev->name, ev->value, payload)))
			return err;
	}
	return 0;
}

/* ---- edits --------------------------------------------------------------- */

enum store_mode {
	STORE_SET,          /* git config key value */
	STORE_ADD,          /* git config --add key value */
	STORE_REPLACE_ALL,  /* git config --replace-all key value */
	STORE_UNSET,        /* git config --unset key */
	STORE_UNSET_ALL,    /* git config --unset-all key */
};

struct store {
	const struct wg_config *cfg;
	const char *key;    /* canonical */
	size_t baselen;
	/* Indices into cfg->events, as git's store.seen: the entries to
	 * replace or remove, or (when the key was not seen) the event after
	 * which to insert. One more slot than events, for the insertion
	 * point when nothing matched. */
	size_t *seen;
	size_t seen_nr;
	/* Only when unsetting, for maybe_remove_section(): stop[i] is the
	 * first event at or after i that ends the forward scan there (a
	 * comment, an entry for another key, a header of another section),
	 * nr if none; before[i] counts the key's entries among events 0..i-1.
	 * Git rescans forward for every removed entry, which is quadratic in
	 * a file with many sections of the key; these make it linear. */
	size_t *stop;
	size_t *before;
};

/* Git's is_keys_section test: does this section header open the key's
 * section? Compared over exactly baselen bytes: a NUL inside a section name
 * can never equal a key byte, as with git's strncmp. */
static bool section_is_keys(const struct store *st, const struct config_event *ev)
{
	size_t i;
	if (ev->type != EV_SECTION || ev->name_len != st->baselen)
		return false;
	for (i = 0; i < st->baselen; i++) {
		int a = (unsigned char)ev->name[i], b = (unsigned char)st->key[i];
		if (ev->fold) {
			a = cfg_tolower(a);
			b = cfg_tolower(b);
		}
		if (a != b)
			return false;
	}
	return true;
}

/* Git's maybe_remove_section(): when unsetting the last entries of a
 * section that has no comments in or around it, widen the cut to take the
 * header too. */
static void maybe_remove_section(const struct store *st, size_t *begin_offset,
				 size_t *end_offset, size_t *seen_ptr)
{
	const struct config_event *ev = st->cfg->events;
	size_t nr = st->cfg->nr, i, begin, seen = *seen_ptr;
	bool section_seen = false;

	/* This must be the section's first entry, with no comment before
	 * it or before the header. */
	for (i = st->seen[seen]; i > 0; i--) {
		enum event_type type = ev[i - 1].type;
		if (type == EV_COMMENT)
			return;
		if (type == EV_ENTRY) {
			if (!section_seen)
				return;
			break;
		}
		if (type == EV_SECTION) {
			if (!section_is_keys(st, &ev[i - 1]))
				break;
			section_seen = true;
		}
	}
	begin = ev[i].begin;

	/* And the last ones, with no comment after them that could be
	 * about this section: git walks on over headers of the key's
	 * section and the key's own entries (all of which are in seen[], in
	 * order, so it steps through seen[] as it goes) and gives up at a
	 * comment or another entry. */
	i = st->stop[st->seen[seen] + 1];
	if (i < nr && (ev[i].type == EV_COMMENT || ev[i].type == EV_ENTRY))
		return;
	seen += st->before[i] - st->before[st->seen[seen] + 1];
	*seen_ptr = seen;
	*begin_offset = begin;
	*end_offset = i < nr ? ev[i].begin : ev[nr - 1].end;
}

/* Git's store_create_section(), from the key as the caller spelled it. */
static int add_section_header(struct wg_buf *out, const char *key, size_t baselen)
{
	const char *dot = memchr(key, '.', baselen);
	int err;
	size_t i;
	if (!dot) {
		if ((err = wg_buf_addch(out, '[')) || (err = wg_buf_add(out, key, baselen)))
			return err;
		return wg_buf_adds(out, "]\n");
	}
	if ((err = wg_buf_addch(out, '[')) ||
	    (err = wg_buf_add(out, key, (size_t)(dot - key))) ||
	    (err = wg_buf_adds(out, " \"")))
		return err;
	for (i = (size_t)(dot - key) + 1; i < baselen; i++) {
		if ((key[i] == '"' || key[i] == '\\') && (err = wg_buf_addch(out, '\\')))
			return err;
		if ((err = wg_buf_addch(out, key[i])))
			return err;
	}
	return wg_buf_adds(out, "\"]\n");
}

/* Git's write_pair(): "\tname = value\n", quoted when leading or trailing
 * blanks, a comment character or a CR would otherwise be lost or
 * misread, and with newline, tab, '"' and '\' escaped. */
static int add_pair(struct wg_buf *out, const char *key, size_t baselen, const char *value)
{
	const char *quote = "";
	size_t i, n = strlen(value);
	int err;

	if (value[0] == ' ')
		quote = "\"";
	for (i = 0; i < n; i++)
		if (value[i] == ';' || value[i] == '#' || value[i] == '\r')
			quote = "\"";
	if (n && value[n - 1] == ' ')
		quote = "\"";

	if ((err = wg_buf_printf(out, "\t%s = %s", key + baselen + 1, quote)))
		return err;
	for (i = 0; i < n; i++) {
		switch (value[i]) {
		case '\n':
			err = wg_buf_adds(out, "\\n");
			break;
		case '\t':
			err = wg_buf_adds(out, "\\t");
			break;
		case '"':
		case '\\':
			if (!(err = wg_buf_addch(out, '\\')))
				err = wg_buf_addch(out, value[i]);
			break;
		default:
			err = wg_buf_addch(out, value[i]);
			break;
		}
		if (err)
			return err;
	}
	if ((err = wg_buf_adds(out, quote)))
		return err;
	return wg_buf_addch(out, '\n');
}

/* Replace the text (and events) of cfg by `text`, which must parse. */
static int config_replace_text(struct wg_config *cfg, struct wg_buf *text)
{
	struct config_event *events;
	size_t nr, alloc;
	bool cont_at_eof;
	int err = parse_text(&events, &nr, &alloc, &cont_at_eof, text->data, text->len,
			     cfg->origin, false);
	if (err == WG_ECORRUPT)
		/* The splice only ever writes complete lines; reaching
		 * this is a bug here, and the config is left untouched. */
		return wg_error_prefix("internal error: an edit produced an unparseable config");
	if (err)
		return err;
	events_free(cfg->events, cfg->nr);
	wg_buf_release(&cfg->text);
	cfg->text = *text;
	*text = (struct wg_buf)WG_BUF_INIT;
	cfg->events = events;
	cfg->nr = nr;
	cfg->alloc = alloc;
	cfg->cont_at_eof = cont_at_eof;
	return 0;
}

/* Git's repo_config_set_multivar_in_file_gently() without value patterns:
 * find where the key is (or where its section ends), then splice. value is
 * NULL to unset. */
static int config_store(struct wg_config *cfg, const char *key, const char *value,
			enum store_mode mode)
{
	const struct config_event *ev = cfg->events;
	const unsigned char *text = cfg->text.data;
	size_t sz = cfg->text.len, nr = cfg->nr;
	struct wg_buf out = WG_BUF_INIT;
	struct store st;
	bool multi = mode == STORE_REPLACE_ALL || mode == STORE_UNSET_ALL;
	bool key_seen = false, section_seen = false, is_keys_section = false, slot_used = false;
	size_t i, copy_begin;
	char *canon;
	int err;

	if (value == NULL && mode != STORE_UNSET && mode != STORE_UNSET_ALL)
		return wg_error_set(WG_EINVALID, "cannot set '%s' to a NULL value (unset it instead)",
				    key ? key : "(null)");
	if ((err = parse_key(&canon, &st.baselen, key)))
		return err;
	st.cfg = cfg;
	st.key = canon;
	st.seen_nr = 0;
	st.stop = st.before = NULL;
	if (!(st.seen = wg_calloc(nr + 1, sizeof(*st.seen)))) {
		wg_free(canon);
		return wg_error_set(WG_ENOMEM, "out of memory editing config");
	}

	/* Git's store_aux_event()/store_aux(): seen[seen_nr] is a provisional
	 * slot that tracks the last header or entry of the key's section;
	 * seen_nr only counts real matches. */
	for (i = 0; i < nr; i++) {
		if (ev[i].type == EV_SECTION) {
			is_keys_section = section_is_keys(&st, &ev[i]);
			if (is_keys_section) {
				section_seen = true;
				st.seen[st.seen_nr] = i;
				slot_used = true;
			}
		} else if (ev[i].type == EV_ENTRY) {
			/* --add must never match, so the value is appended. */
			bool match = mode != STORE_ADD && !strcmp(ev[i].name, canon);
			if (key_seen) {
				if (match)
					st.seen[st.seen_nr++] = i;
			} else if (is_keys_section) {
				st.seen[st.seen_nr] = i;
				slot_used = true;
				section_seen = true;
				if (match) {
					st.seen_nr++;
					key_seen = true;
				}
			}
		}
	}

	if (st.seen_nr == 0 && !value) {
		err = wg_error_set(WG_ENOTFOUND, "cannot unset '%s': no such key", key);
		goto out;
	}
	if (st.seen_nr > 1 && !multi) {
		err = wg_error_set(WG_EAMBIGUOUS, "cannot %s '%s': it has %zu values (%s)",
				   value ? "overwrite" : "unset", key, st.seen_nr,
				   value ? "replace them all, or add one more"
					 : "unset them all instead");
		goto out;
	}
	if (!value) {
		/* For maybe_remove_section(); see struct store. */
		st.stop = wg_calloc(nr + 1, sizeof(*st.stop));
		st.before = wg_calloc(nr + 1, sizeof(*st.before));
		if (!st.stop || !st.before) {
			err = wg_error_set(WG_ENOMEM, "out of memory editing config");
			goto out;
		}
		st.stop[nr] = nr;
		for (i = nr; i-- > 0;) {
			bool ends = ev[i].type == EV_COMMENT ||
				    (ev[i].type == EV_ENTRY && strcmp(ev[i].name, canon)) ||
				    (ev[i].type == EV_SECTION && !section_is_keys(&st, &ev[i]));
			st.stop[i] = ends ? i : st.stop[i + 1];
		}
		for (i = 0; i < nr; i++)
			st.before[i + 1] = st.before[i] +
				(ev[i].type == EV_ENTRY && !strcmp(ev[i].name, canon));
	}
	if (st.seen_nr == 0) {
		/* Neither key nor section: insert after the last event. */
		if (!slot_used)
			st.seen[0] = nr ? nr - 1 : 0;
		st.seen_nr = 1;
	}

	copy_begin = 0;
	for (i = 0; i < st.seen_nr; i++) {
		size_t copy_end, replace_end, j = st.seen[i];
		bool new_line = false;

		if (!key_seen) {
			/* With no events at all the text is empty or a lone
			 * BOM; keep the BOM first (git would put it after the
			 * new section, where it cannot be parsed). */
			copy_end = nr ? ev[j].end : sz;
			/* Take the newline that ends a section header along. */
			if (copy_end > 0 && copy_end < sz && text[copy_end - 1] != '\n' &&
			    text[copy_end] == '\n')
				copy_end++;
			replace_end = copy_end;
		} else {
			replace_end = ev[j].end;
			copy_end = ev[j].begin;
			if (!value)
				maybe_remove_section(&st, &copy_end, &replace_end, &i);
			/* The replaced line's indentation goes with it. */
			while (copy_end > 0) {
				unsigned char c = text[copy_end - 1];
				if (cfg_isspace(c) && c != '\n')
					copy_end--;
				else
					break;
			}
		}
		if (copy_end > 0 && text[copy_end - 1] != '\n' && nr)
			new_line = true;
		if (copy_end > copy_begin) {
			if ((err = wg_buf_add(&out, text + copy_begin, copy_end - copy_begin)))
				goto out;
			if (new_line && (err = wg_buf_addch(&out, '\n')))
				goto out;
			/* After a continuation at the very end of the file,
			 * what we append would be read as more of that value
			 * (git does that, and the new entry is lost); one
			 * more newline ends the value where the end of the
			 * file did. A deliberate difference from git. */
			if (copy_end == sz && cfg->cont_at_eof &&
			    (err = wg_buf_addch(&out, '\n')))
				goto out;
		}
		copy_begin = replace_end;
	}
	if (value) {
		if (!section_seen && (err = add_section_header(&out, key, st.baselen)))
			goto out;
		if ((err = add_pair(&out, key, st.baselen, value)))
			goto out;
	}
	if (copy_begin < sz && (err = wg_buf_add(&out, text + copy_begin, sz - copy_begin)))
		goto out;
	err = config_replace_text(cfg, &out);
out:
	wg_buf_release(&out);
	wg_free(st.seen);
	wg_free(st.stop);
	wg_free(st.before);
	wg_free(canon);
	return err;
}

int wg_config_set_string(struct wg_config *cfg, const char *key, const char *value)
{
	return config_store(cfg, key, value, STORE_SET);
}

int wg_config_add(struct wg_config *cfg, const char *key, const char *value)
{
	return config_store(cfg, key, value, STORE_ADD);
}

int wg_config_replace_all(struct wg_config *cfg, const char *key, const char *value)
{
	return config_store(cfg, key, value, STORE_REPLACE_ALL);
}

int wg_config_unset(struct wg_config *cfg, const char *key)
{
	return config_store(cfg, key, NULL, STORE_UNSET);
}

int wg_config_unset_all(struct wg_config *cfg, const char *key)
{
	return config_store(cfg, key, NULL, STORE_UNSET_ALL);
}

/* ---- output -------------------------------------------------------------- */

/* ---- whole sections (git's copy_or_rename_section_in_file) ---------------- */

/* Does the header line at `line` name `name` ("sec" or "sec.sub")? The
 * offset past the ']' and any blanks after it, or 0: git's
 * section_name_match(), which compares the section name as written. */
static size_t section_header_match(const char *line, const char *end, const char *name)
{
	const char *p = line + 1;
	bool dot = false;
	size_t j = 0;

	if (line >= end || *line != '[')
		return 0;
	for (; p < end && *p != ']'; p++) {
		if (!dot && cfg_isspace(*p)) {
			dot = true;
			if (name[j++] != '.')
				break;
			for (p++; p < end && cfg_isspace(*p); p++)
				;
			if (p >= end || *p != '"')
				break;
			continue;
		}
		if (*p == '\\' && dot) {
			if (++p >= end)
				break;
		} else if (*p == '"' && dot) {
			for (p++; p < end && cfg_isspace(*p); p++)
				;
			break;
		}
		if (*p != name[j++])
			break;
	}
	if (p < end && *p == ']' && !name[j]) {
		for (p++; p < end && cfg_isspace(*p); p++)
			;
		return (size_t)(p - line);
	}
	return 0;
}

/* A section name as git accepts it for renaming: "sec" or "sec.sub" with
 * a valid section part and no newline. */
static bool section_name_ok(const char *name)
{
	const char *p;
	for (p = name; *p && *p != '.'; p++)
		if (!cfg_iskeychar(*p))
			return false;
	return p != name && !strchr(name, '\n');
}

static int copy_or_rename_section(struct wg_config *cfg, const char *old_name,
				  const char *new_name, bool copy)
{
	struct wg_buf out = WG_BUF_INIT, copied = WG_BUF_INIT, header = WG_BUF_INIT;
	const char *text = (const char *)cfg->text.data, *end = text + cfg->text.len, *line;
	bool remove = false;
	int found = 0, err = 0;

	if (!section_name_ok(old_name) || (new_name && !section_name_ok(new_name)))
		return wg_error_set(WG_EINVALID, "invalid section name: %s",
				    section_name_ok(old_name) ? new_name : old_name);
	if (new_name && (err = add_section_header(&header, new_name, strlen(new_name))))
		return err;
	for (line = text; !err && line && line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *next = eol ? eol + 1 : end, *p = line, *output = line;
		bool is_section = false;
		while (p < next && cfg_isspace(*p) && *p != '\n')
			p++;
		if (p < next && *p == '[') {
			size_t off;
			is_section = true;
			/* A section being copied ends at the next header. */
			if (copied.len) {
				err = wg_buf_add(&out, copied.data, copied.len);
				wg_buf_reset(&copied);
			}
			off = section_header_match(p, next, old_name);
			remove = false;
			if (off) {
				found++;
				if (!new_name) {
					remove = true;
					line = next;
					continue;
				}
				if (copy) {
					if (!err)
						err = wg_buf_add(&copied, header.data, header.len);
				} else {
					/* The new header, then whatever followed
					 * the old one, on its own line. */
					if (!err)
						err = wg_buf_add(&out, header.data, header.len);
					output = p + off;
					if (output < next && !err)
						err = wg_buf_addch(&out, '\t');
				}
			}
		}
		if (remove) {
			line = next;
			continue;
		}
		if (!err && !is_section && copied.len)
			err = wg_buf_add(&copied, output, (size_t)(next - output));
		if (!err)
			err = wg_buf_add(&out, output, (size_t)(next - output));
		line = next;
	}
	if (!err && copied.len)
		err = wg_buf_add(&out, copied.data, copied.len);
	if (!err && found)
		err = config_replace_text(cfg, &out);
	wg_buf_release(&out);
	wg_buf_release(&copied);
	wg_buf_release(&header);
	return err ? err : found;
}

int wg_config_rename_section(struct wg_config *cfg, const char *old_name,
			     const char *new_name)
{
	return copy_or_rename_section(cfg, old_name, new_name, false);
}

int wg_config_copy_section(struct wg_config *cfg, const char *old_name, const char *new_name)
{
	return copy_or_rename_section(cfg, old_name, new_name, true);
}

int wg_config_serialize(const struct wg_config *cfg, struct wg_buf *out)
{
	return wg_buf_add(out, cfg->text.data, cfg->text.len);
}

int wg_config_write_file(const struct wg_config *cfg, const char *path)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	struct stat st;
	int err;

	if ((err = wg_lockfile_acquire(&lk, path)))
		return wg_error_prefix("could not lock config file %s", path);
	/* Keep the permissions of the file being replaced (git does too):
	 * a config made private stays private. */
	if (wg_fs_stat(path, &st) == 0 && wg_fs_chmod(wg_lockfile_lock_path(&lk), st.st_mode & 07777) < 0) {
		err = wg_error_set(WG_EIO, "chmod on %s failed: %s", wg_lockfile_lock_path(&lk),
				   strerror(errno));
		wg_lockfile_rollback(&lk);
		return err;
	}
	if ((err = wg_lockfile_write(&lk, cfg->text.data, cfg->text.len)) ||
	    (err = wg_lockfile_commit(&lk))) {
		wg_lockfile_rollback(&lk);
		return wg_error_prefix("could not write config file %s", path);
	}
	return 0;
}
