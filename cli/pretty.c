/* Commit formats (see pretty.h), in the steps of git's pretty.c. */
#include "pretty.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff/abbrev_len.h"
#include "diff/patch.h"
#include "object/ident.h"
#include "util/error.h"

int cli_pretty_parse_option(struct cli_pretty *p, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v = NULL;

	if (!strcmp(a, "--oneline")) {
		p->kind = CLI_PRETTY_ONELINE;
		p->terminator = true;
		p->abbrev_commit = true;
		return 1;
	}
	if (!strcmp(a, "--abbrev-commit") || !strcmp(a, "--no-abbrev-commit")) {
		p->abbrev_commit = a[2] == 'a';
		return 1;
	}
	if (!strncmp(a, "--date=", 7)) {
		if (wg_date_mode_parse(a + 7, &p->date_mode))
			return cli_fatal("unknown date format %s", a + 7);
		return 1;
	}
	if (!strcmp(a, "--date") && *i + 1 < argc) {
		if (wg_date_mode_parse(argv[++*i], &p->date_mode))
			return cli_fatal("unknown date format %s", argv[*i]);
		return 1;
	}
	if (!strcmp(a, "--pretty"))
		v = "medium";
	else if (!strncmp(a, "--pretty=", 9))
		v = a + 9;
	else if (!strncmp(a, "--format=", 9))
		v = a + 9;   /* the same names as --pretty= (git's get_commit_format) */
	else
		return 0;
	{
		static const struct {
			const char *name;
			enum cli_pretty_kind kind;
		} names[] = {
			{ "medium", CLI_PRETTY_MEDIUM }, { "oneline", CLI_PRETTY_ONELINE },
			{ "short", CLI_PRETTY_SHORT },   { "full", CLI_PRETTY_FULL },
			{ "fuller", CLI_PRETTY_FULLER }, { "raw", CLI_PRETTY_RAW },
		};
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcmp(v, names[k].name)) {
				p->kind = names[k].kind;
				p->terminator = p->kind == CLI_PRETTY_ONELINE;
				return 1;
			}
	}
	if (!*v || !strncmp(v, "format:", 7) || !strncmp(v, "tformat:", 8)) {
		p->kind = CLI_PRETTY_USER;
		p->terminator = !*v || v[0] == 't';
		p->format = *v ? strchr(v, ':') + 1 : v;
		return 1;
	}
	if (strchr(v, '%')) {   /* git takes a bare format as tformat: */
		p->kind = CLI_PRETTY_USER;
		p->terminator = true;
		p->format = v;
		return 1;
	}
	return cli_fatal("invalid --pretty format: %s", v);
}

/* git's get_one_line: the length of the line at p, with its newline. */
static size_t one_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
}

/* git's is_blank_line: trims trailing whitespace off *len; blank if
 * nothing is left. */
static bool blank_line(const char *line, size_t *len)
{
	while (*len && isspace((unsigned char)line[*len - 1]))
		(*len)--;
	return !*len;
}

static const char *skip_blank_lines(const char *p, const char *end)
{
	while (p < end) {
		size_t n = one_line(p, end), t = n;
		if (!blank_line(p, &t))
			break;
		p += n;
	}
	return p;
}

/* git's format_subject: the first paragraph, its lines joined by sep;
 * returns where it ended. sb may be NULL. */
static const char *subject(struct wg_buf *sb, const char *p, const char *end, const char *sep)
{
	bool first = true;
	while (p < end) {
		const char *line = p;
		size_t n = one_line(p, end), len = n;
		p += n;
		if (blank_line(line, &len))
			break;
		if (sb) {
			if (!first)
				wg_buf_adds(sb, sep);
			wg_buf_add(sb, line, len);
		}
		first = false;
	}
	return p;
}

/* Append text with its tabs expanded to stops of 8 as git log does
 * (columns count characters, not UTF-8 continuation bytes). */
static void add_tabexpand(struct wg_buf *out, const char *p, size_t len)
{
	size_t col = 0;
	for (size_t k = 0; k < len; k++) {
		if (p[k] == '\t') {
			do
				wg_buf_addch(out, ' ');
			while (++col % 8);
		} else {
			wg_buf_addch(out, p[k]);
			if (((unsigned char)p[k] & 0xc0) != 0x80)
				col++;
		}
	}
}

/* git's strbuf_rtrim, of what follows `floor` */
static void rtrim(struct wg_buf *b, size_t floor)
{
	while (b->len > floor && isspace(b->data[b->len - 1]))
		b->len--;
	wg_buf_setlen(b, b->len);
}

/* git's pp_remainder with an indent of four: each line trimmed at the
 * end, blank lines before the first dropped; short stops at the first
 * blank line after it. */
static void message_lines(struct wg_buf *out, const char *p, const char *end, bool short_fmt,
			  bool expand_tabs)
{
	bool first = true;
	while (p < end) {
		const char *line = p;
		size_t n = one_line(p, end), len = n;
		p += n;
		if (blank_line(line, &len)) {
			if (first)
				continue;
			if (short_fmt)
				break;
		}
		first = false;
		wg_buf_adds(out, "    ");
		if (expand_tabs)
			add_tabexpand(out, line, len);
		else
			wg_buf_add(out, line, len);
		wg_buf_addch(out, '\n');
	}
}

static int abbrev_hex(char *out, struct wg_repo *repo, const struct wg_oid *oid)
{
	wg_diff_abbrev(out, wg_repo_odb(repo), oid, wg_default_abbrev_len(repo));
	return 0;
}

static void add_person_header(struct wg_buf *out, const char *label, const char *value,
			      const char *date_label, enum wg_date_mode mode)
{
	struct wg_ident id;
	if (!value || wg_ident_parse(&id, value, strlen(value))) {
		wg_error_clear();
		return;
	}
	wg_buf_printf(out, "%s%.*s <%.*s>\n", label, (int)id.name_len, id.name,
		      (int)id.email_len, id.email);
	if (date_label && id.has_date) {
		wg_buf_adds(out, date_label);
		wg_date_format(out, mode, (int64_t)id.timestamp, id.tz_offset);
		wg_buf_addch(out, '\n');
	}
}

/* One placeholder of the person idents: 'n' name, 'e' email, 'l' the
 * email's local part, 'd' 'D' 't' 'i' 'I' 's' dates. 0 if not one. */
static int expand_person(struct wg_buf *out, const char *value, char what,
			 enum wg_date_mode mode)
{
	struct wg_ident id;
	if (!value || wg_ident_parse(&id, value, strlen(value))) {
		wg_error_clear();
		return strchr("nNeElLdDtiIs", what) ? 1 : 0;
	}
	switch (what) {
	case 'n': case 'N':
		wg_buf_add(out, id.name, id.name_len);
		return 1;
	case 'e': case 'E':
		wg_buf_add(out, id.email, id.email_len);
		return 1;
	case 'l': case 'L': {
		const char *at = memchr(id.email, '@', id.email_len);
		wg_buf_add(out, id.email, at ? (size_t)(at - id.email) : id.email_len);
		return 1;
	}
	}
	if (!id.has_date)
		return strchr("dDtiIs", what) ? 1 : 0;
	switch (what) {
	case 'd': wg_date_format(out, mode, (int64_t)id.timestamp, id.tz_offset); return 1;
	case 'D': wg_date_format(out, WG_DATE_RFC2822, (int64_t)id.timestamp, id.tz_offset); return 1;
	case 't': wg_date_format(out, WG_DATE_UNIX, (int64_t)id.timestamp, id.tz_offset); return 1;
	case 'i': wg_date_format(out, WG_DATE_ISO, (int64_t)id.timestamp, id.tz_offset); return 1;
	case 'I': wg_date_format(out, WG_DATE_ISO_STRICT, (int64_t)id.timestamp, id.tz_offset); return 1;
	case 's': wg_date_format(out, WG_DATE_SHORT, (int64_t)id.timestamp, id.tz_offset); return 1;
	}
	return 0;
}

static bool title_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_';
}

/* git's format_sanitized_subject (%f) */
static void sanitized_subject(struct wg_buf *out, const char *s, size_t len)
{
	size_t start = out->len;
	int space = 2;
	for (size_t i = 0; i < len; i++) {
		if (title_char(s[i])) {
			if (space == 1)
				wg_buf_addch(out, '-');
			space = 0;
			wg_buf_addch(out, s[i]);
			if (s[i] == '.')
				while (i + 1 < len && s[i + 1] == '.')
					i++;
		} else {
			space |= 1;
		}
	}
	while (out->len > start && (out->data[out->len - 1] == '.' || out->data[out->len - 1] == '-'))
		out->len--;
	wg_buf_setlen(out, out->len);
}

struct expand_ctx {
	struct wg_repo *repo;
	const struct cli_pretty *p;
	const struct wg_oid *id;
	const struct wg_commit *c;
	char mark;
};

/* Expand the placeholder at f (after '%'): how many bytes it took, 0 if
 * it is not one (git then copies it as is). */
static size_t expand_one(struct wg_buf *out, const char *f, const struct expand_ctx *x)
{
	const struct wg_commit *c = x->c;
	const char *msg = c->message, *end = c->message + c->message_len;
	char hex[WG_MAX_HEXSZ + 1];

	switch (f[0]) {
	case 'n': wg_buf_addch(out, '\n'); return 1;
	case '%': wg_buf_addch(out, '%'); return 1;
	case 'x':
		if (isxdigit((unsigned char)f[1]) && isxdigit((unsigned char)f[2])) {
			char h[3] = { f[1], f[2], 0 };
			wg_buf_addch(out, (int)strtol(h, NULL, 16));
			return 3;
		}
		return 0;
	case 'H': wg_buf_adds(out, wg_oid_hex(x->id)); return 1;
	case 'h': abbrev_hex(hex, x->repo, x->id); wg_buf_adds(out, hex); return 1;
	case 'T': wg_buf_adds(out, wg_oid_hex(&c->tree)); return 1;
	case 't': abbrev_hex(hex, x->repo, &c->tree); wg_buf_adds(out, hex); return 1;
	case 'P':
	case 'p':
		for (size_t k = 0; k < c->nparents; k++) {
			if (k)
				wg_buf_addch(out, ' ');
			if (f[0] == 'P') {
				wg_buf_adds(out, wg_oid_hex(&c->parents[k]));
			} else {
				abbrev_hex(hex, x->repo, &c->parents[k]);
				wg_buf_adds(out, hex);
			}
		}
		return 1;
	case 'a':
	case 'c':
		if (f[1] && expand_person(out, f[0] == 'a' ? c->author : c->committer, f[1],
					  x->p->date_mode))
			return 2;
		return 0;
	case 's':
		subject(out, skip_blank_lines(msg, end), end, " ");
		return 1;
	case 'f': {   /* of the subject's first line only, as git */
		const char *s = skip_blank_lines(msg, end);
		size_t left = s < end ? (size_t)(end - s) : 0;
		const char *eol = left ? memchr(s, '\n', left) : NULL;
		sanitized_subject(out, s, eol ? (size_t)(eol - s) : strnlen(s, left));
		return 1;
	}
	case 'b': {
		const char *body = subject(NULL, skip_blank_lines(msg, end), end, " ");
		body = skip_blank_lines(body, end);
		wg_buf_add(out, body, strnlen(body, (size_t)(end - body)));
		return 1;
	}
	case 'B':
		wg_buf_add(out, msg, strnlen(msg, c->message_len));
		return 1;
	case 'e':
		if (c->encoding)
			wg_buf_adds(out, c->encoding);
		return 1;
	case 'm':
		wg_buf_addch(out, x->mark ? x->mark : '>');
		return 1;
	}
	return 0;
}

bool cli_pretty_needs_commit(const struct cli_pretty *p)
{
	if (p->kind != CLI_PRETTY_USER || p->from_parent)
		return true;
	for (const char *f = strchr(p->format, '%'); f; f = strchr(f, '%')) {
		f++;
		if (*f == '+' || *f == '-' || *f == ' ')
			f++;
		if (*f == 'x' && isxdigit((unsigned char)f[1]) && isxdigit((unsigned char)f[2]))
			f += 3;
		else if (*f && strchr("Hhnm%", *f))
			f++;
		else
			return true;
	}
	return false;
}

/* git's format_commit_message with its %+ %- and "% " modifiers. */
static int user_format(struct wg_buf *out, const char *fmt, const struct expand_ctx *x)
{
	size_t start = out->len;   /* %- stops here: the separator is not ours */

	for (const char *f = fmt; *f;) {
		const char *pct = strchr(f, '%');
		size_t used;
		char magic = 0;
		size_t before;

		if (!pct) {
			wg_buf_adds(out, f);
			break;
		}
		wg_buf_add(out, f, (size_t)(pct - f));
		f = pct + 1;
		if (*f == '+' || *f == '-' || *f == ' ') {
			magic = *f;
			f++;
		}
		before = out->len;
		if (*f == 'd' || *f == 'D' || *f == 'C' || *f == '<' || *f == '>' || *f == 'w' ||
		    (*f == 'a' && (f[1] == 'r' || f[1] == 'h')) ||
		    (*f == 'c' && (f[1] == 'r' || f[1] == 'h')) || *f == 'G' || *f == 'N' ||
		    *f == '(')
			return wg_error_set(WG_EINVALID, "the format placeholder %%%c is not supported",
					    *f);
		used = expand_one(out, f, x);
		if (!used) {
			/* not a placeholder: git copies it as it is */
			wg_buf_addch(out, '%');
			if (magic)
				wg_buf_addch(out, magic);
			continue;
		}
		f += used;
		if (magic == '-' && out->len == before) {
			while (out->len > start && out->data[out->len - 1] == '\n')
				out->len--;
			wg_buf_setlen(out, out->len);
		} else if ((magic == '+' || magic == ' ') && out->len > before) {
			/* put the line feed or space before what was added */
			if (wg_buf_addch(out, 0))
				return WG_ENOMEM;
			memmove(out->data + before + 1, out->data + before, out->len - 1 - before);
			out->data[before] = magic == '+' ? '\n' : ' ';
		}
	}
	return 0;
}

int cli_pretty_commit(struct wg_buf *out, struct wg_repo *repo, const struct cli_pretty *p,
		      const struct wg_oid *id, const struct wg_commit *c, const char *raw,
		      size_t rawlen, char left_right)
{
	const char *msg = c->message, *end = c->message + c->message_len;
	struct expand_ctx x = { repo, p, id, c, left_right };
	char hex[2 * WG_MAX_HEXSZ + 16];
	size_t start;

	if (p->kind == CLI_PRETTY_USER)
		return user_format(out, p->format, &x);
	if (p->abbrev_commit)
		abbrev_hex(hex, repo, id);
	else
		wg_oid_to_hex(id, hex);
	if (p->from_parent) {
		char from[WG_MAX_HEXSZ + 1];
		if (p->abbrev_commit)
			abbrev_hex(from, repo, p->from_parent);
		else
			wg_oid_to_hex(p->from_parent, from);
		/* git's " (from <parent>)", after the id */
		size_t n = strlen(hex);
		snprintf(hex + n, sizeof(hex) - n, " (from %s)", from);
	}
	if (p->kind == CLI_PRETTY_ONELINE) {
		wg_buf_printf(out, "%s%s ", left_right ? (left_right == '<' ? "< " : "> ") : "", hex);
		subject(out, skip_blank_lines(msg, end), end, " ");
		return 0;
	}
	wg_buf_printf(out, "commit %s%s\n", left_right ? (left_right == '<' ? "< " : "> ") : "",
		      hex);
	/* what git's pretty_print_commit writes; its end is trimmed */
	start = out->len;
	if (p->kind == CLI_PRETTY_RAW) {
		/* the headers as they are, up to the blank line */
		const char *h = raw, *hend = c->message && raw ? raw + rawlen : raw;
		if (raw && c->message >= raw && c->message <= raw + rawlen)
			hend = c->message;
		for (const char *q = h; q < hend;) {
			size_t n = one_line(q, hend);
			if (n == 1 && *q == '\n')
				break;
			wg_buf_add(out, q, n);
			q += n;
		}
	} else {
		if (c->nparents > 1) {
			wg_buf_adds(out, "Merge:");
			for (size_t k = 0; k < c->nparents; k++) {
				abbrev_hex(hex, repo, &c->parents[k]);
				wg_buf_printf(out, " %s", hex);
			}
			wg_buf_addch(out, '\n');
		}
		switch (p->kind) {
		case CLI_PRETTY_SHORT:
			add_person_header(out, "Author: ", c->author, NULL, p->date_mode);
			break;
		case CLI_PRETTY_FULL:
			add_person_header(out, "Author: ", c->author, NULL, p->date_mode);
			add_person_header(out, "Commit: ", c->committer, NULL, p->date_mode);
			break;
		case CLI_PRETTY_FULLER:
			add_person_header(out, "Author:     ", c->author, "AuthorDate: ", p->date_mode);
			add_person_header(out, "Commit:     ", c->committer, "CommitDate: ",
					  p->date_mode);
			break;
		default:
			add_person_header(out, "Author: ", c->author, "Date:   ", p->date_mode);
			break;
		}
	}
	wg_buf_addch(out, '\n');
	/* git's table of formats: medium, full and fuller expand tabs */
	message_lines(out, msg, end, p->kind == CLI_PRETTY_SHORT,
		      p->kind == CLI_PRETTY_MEDIUM || p->kind == CLI_PRETTY_FULL ||
			      p->kind == CLI_PRETTY_FULLER);
	rtrim(out, start);
	wg_buf_addch(out, '\n');
	return 0;
}
