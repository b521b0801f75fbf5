#include "object/fsck.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "object/ident.h"
#include "object/path.h"
#include "object/tree.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

#define DEFAULT_MAX_PATH_LEN 4096

static const char *const msg_names[WG_FSCK_MSG_COUNT] = {
#define NAME_(id, name, git, webgit) [WG_FSCK_##id] = name,
	WG_FSCK_FOREACH_MSG(NAME_)
#undef NAME_
};

static const unsigned char git_defaults[WG_FSCK_MSG_COUNT] = {
#define GIT_(id, name, git, webgit) [WG_FSCK_##id] = WG_FSCK_##git,
	WG_FSCK_FOREACH_MSG(GIT_)
#undef GIT_
};

static const unsigned char webgit_defaults[WG_FSCK_MSG_COUNT] = {
#define WEBGIT_(id, name, git, webgit) [WG_FSCK_##id] = WG_FSCK_##webgit,
	WG_FSCK_FOREACH_MSG(WEBGIT_)
#undef WEBGIT_
};

static bool valid_id(int id)
{
	return id >= 0 && id < WG_FSCK_MSG_COUNT;
}

const char *wg_fsck_msg_name(enum wg_fsck_msg_id id)
{
	return valid_id((int)id) ? msg_names[id] : NULL;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static bool iequal(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (lower((unsigned char)*a) != lower((unsigned char)*b))
			return false;
	return *a == *b;
}

int wg_fsck_msg_from_name(const char *name)
{
	int i;
	for (i = 0; i < WG_FSCK_MSG_COUNT; i++)
		if (iequal(name, msg_names[i]))
			return i;
	return -1;
}

const char *wg_fsck_severity_name(enum wg_fsck_severity severity)
{
	switch (severity) {
	case WG_FSCK_DEFAULT: return "default";
	case WG_FSCK_IGNORE: return "ignore";
	case WG_FSCK_INFO: return "info";
	case WG_FSCK_WARN: return "warn";
	case WG_FSCK_ERROR: return "error";
	case WG_FSCK_FATAL: return "fatal";
	}
	return "unknown";
}

enum wg_fsck_severity wg_fsck_git_default_severity(enum wg_fsck_msg_id id)
{
	return valid_id((int)id) ? (enum wg_fsck_severity)git_defaults[id] : WG_FSCK_ERROR;
}

enum wg_fsck_severity wg_fsck_default_severity(enum wg_fsck_msg_id id)
{
	return valid_id((int)id) ? (enum wg_fsck_severity)webgit_defaults[id] : WG_FSCK_ERROR;
}

enum wg_fsck_severity wg_fsck_severity_of(const struct wg_fsck_options *opts,
					  enum wg_fsck_msg_id id)
{
	enum wg_fsck_severity s;
	if (!valid_id((int)id))
		return WG_FSCK_ERROR;
	if (opts && opts->severity[id] != WG_FSCK_DEFAULT && opts->severity[id] <= WG_FSCK_FATAL)
		return (enum wg_fsck_severity)opts->severity[id];
	s = (enum wg_fsck_severity)webgit_defaults[id];
	if (opts && opts->strict && s == WG_FSCK_WARN)
		s = WG_FSCK_ERROR;
	return s;
}

int wg_fsck_set_severity(struct wg_fsck_options *opts, enum wg_fsck_msg_id id,
			 enum wg_fsck_severity severity)
{
	if (!valid_id((int)id))
		return wg_error_set(WG_EINVALID, "unknown fsck message id %d", (int)id);
	if (severity > WG_FSCK_FATAL)
		return wg_error_set(WG_EINVALID, "unknown fsck severity %d", (int)severity);
	if (webgit_defaults[id] == WG_FSCK_FATAL && severity != WG_FSCK_DEFAULT &&
	    severity < WG_FSCK_ERROR)
		return wg_error_set(WG_EINVALID, "cannot demote %s to %s: the object's headers "
				    "must be sane for the other checks to run",
				    msg_names[id], wg_fsck_severity_name(severity));
	opts->severity[id] = (unsigned char)severity;
	return 0;
}

int wg_fsck_set_severity_by_name(struct wg_fsck_options *opts, const char *id,
				 const char *severity)
{
	int msg = wg_fsck_msg_from_name(id);
	enum wg_fsck_severity s;
	if (msg < 0)
		return wg_error_set(WG_EINVALID, "unknown fsck message id '%s'", id);
	if (!strcmp(severity, "error"))
		s = WG_FSCK_ERROR;
	else if (!strcmp(severity, "warn"))
		s = WG_FSCK_WARN;
	else if (!strcmp(severity, "ignore"))
		s = WG_FSCK_IGNORE;
	else
		return wg_error_set(WG_EINVALID, "unknown fsck severity '%s' for %s "
				    "(use error, warn or ignore)", severity, id);
	return wg_fsck_set_severity(opts, (enum wg_fsck_msg_id)msg, s);
}

/* --- reporting -------------------------------------------------------- */

/* One object's check: the reporter holds the options, id and type. */
struct ctx {
	struct wg_fsck_reporter r;
	const struct wg_hash_algo *algo;
};

void wg_fsck_reporter_init(struct wg_fsck_reporter *r, const struct wg_fsck_options *opts,
			   const struct wg_oid *oid, enum wg_object_type type)
{
	memset(r, 0, sizeof(*r));
	r->opts = opts;
	r->oid = oid;
	r->type = type;
}

static int vreport(struct wg_fsck_reporter *r, enum wg_fsck_msg_id id, const char *fmt,
		   va_list ap)
{
	enum wg_fsck_severity s = wg_fsck_severity_of(r->opts, id);
	char msg[512];
	int n;

	if (s == WG_FSCK_IGNORE)
		return 0;
	n = snprintf(msg, sizeof(msg), "%s: ", msg_names[id]);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	if (r->opts && r->opts->report)
		r->opts->report(r->opts->payload, r->oid, r->type, id, s, msg);
	if (s < WG_FSCK_ERROR)
		return 0;
	if (!r->errors++)
		snprintf(r->first, sizeof(r->first), "%s", msg);
	return 1;
}

int wg_fsck_reportf(struct wg_fsck_reporter *r, enum wg_fsck_msg_id id, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = vreport(r, id, fmt, ap);
	va_end(ap);
	return rc;
}

int wg_fsck_reporter_result(const struct wg_fsck_reporter *r)
{
	const char *tname;
	char hex[WG_MAX_HEXSZ + 1];

	if (!r->errors)
		return 0;
	tname = wg_object_type_name(r->type);
	return wg_error_set(WG_EFSCK, "error in %s%s%s: %s%s", tname ? tname : "unknown",
			    r->oid ? " " : "", r->oid ? wg_oid_to_hex(r->oid, hex) : "", r->first,
			    r->errors > 1 ? " (and more errors)" : "");
}

/* Report one problem. Returns 1 when it is at error level, so the caller
 * can stop where Git stops, else 0. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int report(struct ctx *c, enum wg_fsck_msg_id id, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = vreport(&c->r, id, fmt, ap);
	va_end(ap);
	return rc;
}

/* --- trees ------------------------------------------------------------ */

struct pending {
	const char *name;
	size_t len;
};

struct pending_stack {
	struct pending *v;
	size_t nr, alloc;
};

static int stack_push(struct pending_stack *s, const char *name, size_t len)
{
	if (s->nr == s->alloc) {
		size_t n = s->alloc ? s->alloc * 2 : 16, bytes;
		struct pending *grown;
		if (wg_size_mul(&bytes, n, sizeof(*grown)) || !(grown = wg_realloc(s->v, bytes)))
			return wg_error_set(WG_ENOMEM, "out of memory checking a tree");
		s->v = grown;
		s->alloc = n;
	}
	s->v[s->nr].name = name;
	s->v[s->nr].len = len;
	s->nr++;
	return 0;
}

/* In Git's order a file "foo" and a directory "foo" need not be
 * neighbours: "foo", "foo.c", "foo-x", "foo/" is sorted, because the
 * directory sorts as "foo/" and '.' and '-' come before '/'. So files stay
 * on a stack while the entries after them extend their name with a
 * character below '/'; a directory whose name equals one of them is a
 * duplicate. Everything on the stack is a prefix of the entry above it,
 * so entries that no longer extend the top are popped for good. */
static bool pending_check(struct pending_stack *s, const struct wg_tree_entry *e, bool isdir)
{
	while (s->nr) {
		const struct pending *p = &s->v[s->nr - 1];
		if (e->namelen > p->len && !memcmp(e->name, p->name, p->len) &&
		    (unsigned char)e->name[p->len] < '/')
			return false;
		if (isdir && e->namelen == p->len && !memcmp(e->name, p->name, p->len)) {
			s->nr--;
			return true;
		}
		s->nr--;
	}
	return false;
}

static bool is_symlink(unsigned mode)
{
	return (mode & WG_MODE_TYPE_MASK) == WG_MODE_SYMLINK;
}

static bool is_dir(unsigned mode)
{
	return (mode & WG_MODE_TYPE_MASK) == WG_MODE_TREE;
}

static void special(struct ctx *c, const struct wg_tree_entry *e, enum wg_fsck_special kind)
{
	if (c->r.opts && c->r.opts->special_blob)
		c->r.opts->special_blob(c->r.opts->payload, c->r.oid, &e->oid, kind);
}

static int fsck_tree(struct ctx *c, const unsigned char *data, size_t len)
{
	struct wg_tree_iter it;
	struct wg_tree_entry e, next, prev;
	struct pending_stack stack = { NULL, 0, 0 };
	bool have_prev = false;
	bool null_id = false, full_path = false, empty = false, dot = false, dotdot = false,
	     dotgit = false, zero_pad = false, bad_mode = false, dups = false,
	     unsorted = false, large = false;
	size_t max = c->r.opts && c->r.opts->max_path_len ? c->r.opts->max_path_len
						       : DEFAULT_MAX_PATH_LEN;
	int rc, err;

	wg_tree_iter_init_flags(&it, c->algo, data, len, WG_TREE_ITER_ALLOW_EMPTY_NAME);
	rc = wg_tree_iter_next(&it, &next);
	for (;;) {
		const char *bs, *end;
		bool dir;

		if (rc == WG_ITEROVER)
			break;
		if (rc) {
			/* Keep the parser's reason (a bad mode, a short id...):
			 * it names the problem, git's text alone does not. */
			char why[256];
			snprintf(why, sizeof(why), "%s", wg_error_message());
			report(c, WG_FSCK_BAD_TREE, "cannot be parsed as a tree (%s)", why);
			break;
		}
		e = next;
		dir = is_dir(e.mode);
		end = e.name + e.namelen;

		null_id |= wg_oid_is_null(&e.oid);
		full_path |= memchr(e.name, '/', e.namelen) != NULL;
		empty |= e.namelen == 0;
		dot |= e.namelen == 1 && e.name[0] == '.';
		dotdot |= e.namelen == 2 && e.name[0] == '.' && e.name[1] == '.';
		dotgit |= wg_path_is_dotgit(e.name, e.namelen);
		zero_pad |= (e.flags & WG_TREE_ENTRY_ZERO_PADDED) != 0;
		large |= e.namelen > max;

		if (wg_path_is_dotgitmodules(e.name, e.namelen)) {
			if (is_symlink(e.mode))
				report(c, WG_FSCK_GITMODULES_SYMLINK, ".gitmodules is a symbolic link");
			else
				special(c, &e, WG_FSCK_SPECIAL_GITMODULES);
		}
		if (wg_path_is_dotgitattributes(e.name, e.namelen)) {
			if (is_symlink(e.mode))
				report(c, WG_FSCK_GITATTRIBUTES_SYMLINK, ".gitattributes is a symlink");
			else
				special(c, &e, WG_FSCK_SPECIAL_GITATTRIBUTES);
		}
		if (is_symlink(e.mode)) {
			if (wg_path_is_dotgitignore(e.name, e.namelen))
				report(c, WG_FSCK_GITIGNORE_SYMLINK, ".gitignore is a symlink");
			if (wg_path_is_dotmailmap(e.name, e.namelen))
				report(c, WG_FSCK_MAILMAP_SYMLINK, ".mailmap is a symlink");
		}
		/* Windows takes a backslash for a separator: "a\.git" is a .git
		 * directory there, whatever the platform checking it. */
		for (bs = memchr(e.name, '\\', e.namelen); bs;
		     bs = memchr(bs, '\\', (size_t)(end - bs))) {
			size_t rest;
			bs++;
			rest = (size_t)(end - bs);
			dotgit |= wg_path_is_ntfs_dotgit(bs, rest);
			if (wg_path_is_ntfs_dotgitmodules(bs, rest)) {
				if (is_symlink(e.mode))
					report(c, WG_FSCK_GITMODULES_SYMLINK,
					       ".gitmodules is a symbolic link");
				else
					special(c, &e, WG_FSCK_SPECIAL_GITMODULES);
			}
		}

		/* Git reads the next entry before it judges this one's mode and
		 * order, so a tree that breaks right after an entry reports
		 * only what the names showed; do the same. */
		rc = wg_tree_iter_next(&it, &next);
		if (rc && rc != WG_ITEROVER)
			continue;

		switch (e.mode) {
		case WG_MODE_BLOB:
		case WG_MODE_EXEC:
		case WG_MODE_SYMLINK:
		case WG_MODE_TREE:
		case WG_MODE_GITLINK:
			break;
		case 0100664:
			/* Early Git recorded group-write; tolerated unless strict. */
			if (!(c->r.opts && c->r.opts->strict))
				break;
			/* fall through */
		default:
			bad_mode = true;
		}

		if (have_prev) {
			int cmp = wg_tree_name_cmp(prev.name, prev.namelen, prev.mode,
						   e.name, e.namelen, e.mode);
			if (!cmp)
				dups = true;
			else if (cmp > 0)
				unsorted = true;
		}
		if (pending_check(&stack, &e, dir))
			dups = true;
		if (!dir && (err = stack_push(&stack, e.name, e.namelen))) {
			wg_free(stack.v);
			return err;
		}
		prev = e;
		have_prev = true;
	}
	wg_free(stack.v);

	if (null_id)
		report(c, WG_FSCK_NULL_SHA1, "contains entries pointing to null sha1");
	if (full_path)
		report(c, WG_FSCK_FULL_PATHNAME, "contains full pathnames");
	if (empty)
		report(c, WG_FSCK_EMPTY_NAME, "contains empty pathname");
	if (dot)
		report(c, WG_FSCK_HAS_DOT, "contains '.'");
	if (dotdot)
		report(c, WG_FSCK_HAS_DOTDOT, "contains '..'");
	if (dotgit)
		report(c, WG_FSCK_HAS_DOTGIT, "contains '.git'");
	if (zero_pad)
		report(c, WG_FSCK_ZERO_PADDED_FILEMODE, "contains zero-padded file modes");
	if (bad_mode)
		report(c, WG_FSCK_BAD_FILEMODE, "contains bad file modes");
	if (dups)
		report(c, WG_FSCK_DUPLICATE_ENTRIES, "contains duplicate file entries");
	if (unsorted)
		report(c, WG_FSCK_TREE_NOT_SORTED, "not properly sorted");
	if (large)
		report(c, WG_FSCK_LARGE_PATHNAME, "contains excessively large pathname");
	return 0;
}

/* --- commits and tags ------------------------------------------------- */

/* The headers must end in a blank line or at least a final newline, with
 * no NUL before: then every header line below has a '\n' ahead of it. */
static int verify_headers(struct ctx *c, const char *data, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++) {
		if (data[i] == '\0') {
			report(c, WG_FSCK_NUL_IN_HEADER, "unterminated header: NUL at offset %zu", i);
			return -1;
		}
		if (data[i] == '\n' && i + 1 < len && data[i + 1] == '\n')
			return 0;
	}
	if (len && data[len - 1] == '\n')
		return 0;
	report(c, WG_FSCK_UNTERMINATED_HEADER, "unterminated header");
	return -1;
}

static bool starts(const char **p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);
	if ((size_t)(end - *p) < n || memcmp(*p, prefix, n))
		return false;
	*p += n;
	return true;
}

/* The rest of the line after p, then past its newline. */
static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl + 1 : end;
}

/* "<hex id>\n" at p, hex in either case as Git reads it. */
static bool id_line(const char *p, const char *end, const struct wg_hash_algo *algo)
{
	size_t i;
	if ((size_t)(end - p) < algo->hexsz + 1)
		return false;
	for (i = 0; i < algo->hexsz; i++)
		if (wg_hex_value((unsigned char)p[i]) < 0)
			return false;
	return p[algo->hexsz] == '\n';
}

static const enum wg_fsck_msg_id ident_ids[] = {
	[WG_IDENT_MISSING_NAME_BEFORE_EMAIL] = WG_FSCK_MISSING_NAME_BEFORE_EMAIL,
	[WG_IDENT_MISSING_EMAIL] = WG_FSCK_MISSING_EMAIL,
	[WG_IDENT_BAD_NAME] = WG_FSCK_BAD_NAME,
	[WG_IDENT_MISSING_SPACE_BEFORE_EMAIL] = WG_FSCK_MISSING_SPACE_BEFORE_EMAIL,
	[WG_IDENT_BAD_EMAIL] = WG_FSCK_BAD_EMAIL,
	[WG_IDENT_MISSING_SPACE_BEFORE_DATE] = WG_FSCK_MISSING_SPACE_BEFORE_DATE,
	[WG_IDENT_BAD_DATE] = WG_FSCK_BAD_DATE,
	[WG_IDENT_ZERO_PADDED_DATE] = WG_FSCK_ZERO_PADDED_DATE,
	[WG_IDENT_BAD_DATE_OVERFLOW] = WG_FSCK_BAD_DATE_OVERFLOW,
	[WG_IDENT_BAD_TIMEZONE] = WG_FSCK_BAD_TIMEZONE,
};

/* Check the ident on the line at *p and move *p to the next line. */
static int check_ident(struct ctx *c, const char **p, const char *end)
{
	const char *start = *p, *nl = memchr(start, '\n', (size_t)(end - start));
	size_t n = nl ? (size_t)(nl - start) : (size_t)(end - start);
	enum wg_ident_problem problem = wg_ident_check(start, n);
	*p = nl ? nl + 1 : end;
	if (problem == WG_IDENT_OK)
		return 0;
	return report(c, ident_ids[problem], "%s", wg_ident_problem_message(problem));
}

static int fsck_commit(struct ctx *c, const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	unsigned authors = 0;

	if (verify_headers(c, data, len))
		return 0;
	if (!starts(&p, end, "tree ")) {
		report(c, WG_FSCK_MISSING_TREE, "invalid format - expected 'tree' line");
		return 0;
	}
	if (!id_line(p, end, c->algo) &&
	    report(c, WG_FSCK_BAD_TREE_SHA1, "invalid 'tree' line format - bad sha1"))
		return 0;
	p = next_line(p, end);
	while (starts(&p, end, "parent ")) {
		if (!id_line(p, end, c->algo) &&
		    report(c, WG_FSCK_BAD_PARENT_SHA1, "invalid 'parent' line format - bad sha1"))
			return 0;
		p = next_line(p, end);
	}
	while (starts(&p, end, "author ")) {
		authors++;
		if (check_ident(c, &p, end))
			return 0;
	}
	if (authors < 1 &&
	    report(c, WG_FSCK_MISSING_AUTHOR, "invalid format - expected 'author' line"))
		return 0;
	if (authors > 1 &&
	    report(c, WG_FSCK_MULTIPLE_AUTHORS, "invalid format - multiple 'author' lines"))
		return 0;
	if (!starts(&p, end, "committer ")) {
		report(c, WG_FSCK_MISSING_COMMITTER, "invalid format - expected 'committer' line");
		return 0;
	}
	if (check_ident(c, &p, end))
		return 0;
	if (memchr(data, '\0', len))
		report(c, WG_FSCK_NUL_IN_COMMIT, "NUL byte in the commit object body");
	return 0;
}

/* Git's refname rules (check_refname_format) for "refs/tags/<name>":
 * components separated by '/', none empty, none starting with '.' or
 * ending with ".lock"; no "..", "@{", control characters, space, or any
 * of ~ ^ : ? * [ \ ; the whole does not end with '.'. */
static bool tag_name_ok(const char *name, size_t len)
{
	size_t i, start = 0;
	int last = 0;
	if (!len)
		return false;
	for (i = 0; i <= len; i++) {
		int ch = i < len ? (unsigned char)name[i] : '/';
		if (ch == '/') {
			size_t n = i - start;
			if (!n || name[start] == '.' ||
			    (n >= 5 && !memcmp(name + i - 5, ".lock", 5)))
				return false;
			start = i + 1;
			last = ch;
			continue;
		}
		if (ch < 0x20 || ch == 0x7f || ch == ' ' || ch == '~' || ch == '^' || ch == ':' ||
		    ch == '?' || ch == '*' || ch == '[' || ch == '\\')
			return false;
		if ((ch == '.' && last == '.') || (ch == '{' && last == '@'))
			return false;
		last = ch;
	}
	return name[len - 1] != '.';
}

static int fsck_tag(struct ctx *c, const char *data, size_t len)
{
	const char *p = data, *end = data + len, *eol;

	if (verify_headers(c, data, len))
		return 0;
	if (!starts(&p, end, "object ")) {
		report(c, WG_FSCK_MISSING_OBJECT, "invalid format - expected 'object' line");
		return 0;
	}
	if (!id_line(p, end, c->algo) &&
	    report(c, WG_FSCK_BAD_OBJECT_SHA1, "invalid 'object' line format - bad sha1"))
		return 0;
	p = next_line(p, end);

	if (!starts(&p, end, "type ")) {
		report(c, WG_FSCK_MISSING_TYPE_ENTRY, "invalid format - expected 'type' line");
		return 0;
	}
	if (!(eol = memchr(p, '\n', (size_t)(end - p)))) {
		report(c, WG_FSCK_MISSING_TYPE, "invalid format - unexpected end after 'type' line");
		return 0;
	}
	if (wg_object_type_from_name(p, (size_t)(eol - p)) == WG_OBJ_BAD &&
	    report(c, WG_FSCK_BAD_TYPE, "invalid 'type' value"))
		return 0;
	p = eol + 1;

	if (!starts(&p, end, "tag ")) {
		report(c, WG_FSCK_MISSING_TAG_ENTRY, "invalid format - expected 'tag' line");
		return 0;
	}
	if (!(eol = memchr(p, '\n', (size_t)(end - p)))) {
		report(c, WG_FSCK_MISSING_TAG, "invalid format - unexpected end after 'type' line");
		return 0;
	}
	if (!tag_name_ok(p, (size_t)(eol - p)) &&
	    report(c, WG_FSCK_BAD_TAG_NAME, "invalid 'tag' name: %.*s",
		   (int)(eol - p > 200 ? 200 : eol - p), p))
		return 0;
	p = eol + 1;

	if (!starts(&p, end, "tagger ")) {
		/* Early tags have no tagger: only informational. */
		if (report(c, WG_FSCK_MISSING_TAGGER_ENTRY,
			   "invalid format - expected 'tagger' line"))
			return 0;
	} else {
		/* Git goes on after a bad tagger: the lines below are still
		 * checked (and reported) line by line. */
		check_ident(c, &p, end);
	}

	if (starts(&p, end, "gpgsig ") || starts(&p, end, "gpgsig-sha256 ")) {
		if (!(eol = memchr(p, '\n', (size_t)(end - p)))) {
			report(c, WG_FSCK_BAD_GPGSIG, "invalid format - unexpected end after "
			       "'gpgsig' or 'gpgsig-sha256' line");
			return 0;
		}
		p = eol + 1;
		while (p < end && *p == ' ') {
			if (!(eol = memchr(p, '\n', (size_t)(end - p)))) {
				report(c, WG_FSCK_BAD_HEADER_CONTINUATION,
				       "invalid format - unexpected end in 'gpgsig' or "
				       "'gpgsig-sha256' continuation line");
				return 0;
			}
			p = eol + 1;
		}
	}
	/* Custom headers pass verify_headers; mktag wants none. */
	if (p < end && *p != '\n')
		report(c, WG_FSCK_EXTRA_HEADER_ENTRY,
		       "invalid format - extra header(s) after 'tagger'");
	return 0;
}

int wg_fsck_object(const struct wg_fsck_options *opts, const struct wg_hash_algo *algo,
		   const struct wg_oid *oid, enum wg_object_type type,
		   const void *data, size_t len)
{
	struct ctx c;
	int err = 0;

	memset(&c, 0, sizeof(c));
	wg_fsck_reporter_init(&c.r, opts, oid, type);
	c.algo = algo;

	switch (type) {
	case WG_OBJ_BLOB:
		/* Blob contents only matter for .gitmodules and the like, which
		 * the caller learns of through special_blob. */
		break;
	case WG_OBJ_TREE:
		err = fsck_tree(&c, data, len);
		break;
	case WG_OBJ_COMMIT:
		err = fsck_commit(&c, data, len);
		break;
	case WG_OBJ_TAG:
		err = fsck_tag(&c, data, len);
		break;
	default:
		report(&c, WG_FSCK_UNKNOWN_TYPE, "unknown type '%d' (internal fsck error)",
		       (int)type);
		break;
	}
	if (err)
		return err;
	return wg_fsck_reporter_result(&c.r);
}

/* --- .gitattributes --------------------------------------------------- */

int wg_fsck_gitattributes_blob(const struct wg_fsck_options *opts, const struct wg_oid *oid,
			       const void *data, size_t len)
{
	struct wg_fsck_reporter r;
	const char *p = data, *end = p + len;

	wg_fsck_reporter_init(&r, opts, oid, WG_OBJ_BLOB);
	if (len > WG_FSCK_ATTR_MAX_FILE_SIZE) {
		wg_fsck_reportf(&r, WG_FSCK_GITATTRIBUTES_LARGE, ".gitattributes too large to parse");
		return wg_fsck_reporter_result(&r);
	}
	/* As git reads it: line by line up to the first NUL. */
	while (p < end && *p) {
		const char *eol = p;
		while (eol < end && *eol && *eol != '\n')
			eol++;
		if ((size_t)(eol - p) >= WG_FSCK_ATTR_MAX_LINE_LENGTH) {
			wg_fsck_reportf(&r, WG_FSCK_GITATTRIBUTES_LINE_LENGTH,
					".gitattributes has too long lines to parse");
			break;
		}
		p = eol < end && *eol == '\n' ? eol + 1 : eol;
	}
	return wg_fsck_reporter_result(&r);
}
