/* webgit blame: each line of a file with the commit that last changed it
 * (core/history/blame.h), in git blame's default format or its porcelain
 * ones, byte for byte: the abbreviation git picks (the longest unique
 * abbreviation among the commits shown, plus one for the '^' of
 * boundaries), the widths of its columns, its ISO dates.
 *
 * Without a revision git blames the working tree file; webgit blames
 * HEAD then, and refuses when the file in the working tree differs from
 * HEAD's (lines not committed yet are not done here). -L takes line
 * numbers and +/- offsets, not /regex/ or :funcname. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "diff/line_diff.h"
#include "diff/abbrev_len.h"
#include "history/blame.h"
#include "object/object.h"
#include "odb/odb.h"
#include "repo/revparse.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"
#include "worktree/worktree_blame.h"

static const char usage[] = "webgit blame [-l] [-s] [-e] [-t] [-f] [-n] [-w] [-M[<n>]] "
			    "[-C[<n>]] [--root] "
			    "[-p | --porcelain | --line-porcelain] [--abbrev=<n>] "
			    "[-L <start>,<end>] [<rev>] [--] <file>";

enum {
	SHOW_NAME = 1 << 0,        /* -f, or when a line comes from another path */
	SHOW_NUMBER = 1 << 1,      /* -n */
	PORCELAIN = 1 << 2,
	LINE_PORCELAIN = 1 << 3,
	RAW_TIME = 1 << 4,         /* -t */
	LONG_NAME = 1 << 5,        /* -l */
	NO_AUTHOR = 1 << 6,        /* -s */
	SHOW_EMAIL = 1 << 7,       /* -e */
};

/* One -L argument, as git's parse_range_arg reads line numbers: "a,b",
 * "a" (to the end), ",b" (from the start), "a,+n" (n lines), "a,-n" (n
 * lines ending at a). 1-based; *begin or *end 0 when not given.
 * Returns 0, 128 (git's fatal) or 129 (usage). */
static int parse_loc(const char **spec, long begin, long *ret)
{
	const char *s = *spec;
	char *term;
	long num;

	if (begin >= 1 && (s[0] == '+' || s[0] == '-')) {
		num = strtol(s + 1, &term, 10);
		if (term == s + 1)
			return 0;
		if (!num)
			return cli_fatal("-L invalid empty range");
		if (s[0] == '-')
			num = -num;
		if (num > 0)
			*ret = begin + num - 2;
		else
			*ret = begin + num > 0 ? begin + num : 1;
		*spec = term;
		return 0;
	}
	num = strtol(s, &term, 10);
	if (term != s) {
		if (num <= 0)
			return cli_fatal("-L invalid line number: %ld", num);
		*ret = num;
		*spec = term;
	}
	return 0;
}

static int parse_range(const char *arg, long *begin, long *end)
{
	int rc;

	*begin = *end = 0;
	if (*arg == ':' || *arg == '/' || (*arg == '^' && (arg[1] == ':' || arg[1] == '/')))
		return cli_fatal("webgit blame: -L takes line numbers only, not '%s'", arg);
	if ((rc = parse_loc(&arg, -1, begin)))
		return rc;
	if (*arg == ',') {
		arg++;
		if ((rc = parse_loc(&arg, *begin + 1, end)))
			return rc;
	}
	if (*arg)
		return cli_usage(usage);
	if (*begin && *end && *end < *begin) {
		long t = *begin;
		*begin = *end;
		*end = t;
	}
	return 0;
}

/* Columns as wide as git's utf8_strwidth counts them for the names people
 * have: one per character (wide East Asian characters are not told apart
 * here). */
static int text_width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static int decimal_width(long n)
{
	int w = 1;

	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w;
}

/* git's DATE_ISO8601 in the ident's own zone: "2006-10-19 16:00:04 -0700". */
static int add_iso_date(struct wg_buf *out, uint64_t time, const char *tz_text)
{
	int tz = atoi(tz_text), minutes = tz < 0 ? -tz : tz;
	time_t t;
	struct tm tm;

	minutes = minutes / 100 * 60 + minutes % 100;
	if (tz < 0)
		minutes = -minutes;
	t = (time_t)((int64_t)time + (int64_t)minutes * 60);
	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	return wg_buf_printf(out, "%04d-%02d-%02d %02d:%02d:%02d %+05d", tm.tm_year + 1900,
			     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, tz);
}

static void add_quoted_path(struct wg_buf *out, const char *path)
{
	wg_quote_c_style(out, path, strlen(path));
	wg_buf_addch(out, '\n');
}

/* Line lno of the blamed file (with its newline, if it has one). */
static const char *nth_line(const struct wg_blame *b, const size_t *starts, long lno, size_t *len)
{
	size_t end = lno + 1 < b->nlines ? starts[lno + 1] : b->size;
	*len = end - starts[lno];
	return b->text + starts[lno];
}

/* After each group, as git: a newline when its last line had none (the
 * file's last line, when the group reaches it). */
static void end_line(struct wg_buf *out, const struct wg_blame *b, const struct wg_blame_entry *e)
{
	if (e->lno + e->num_lines == b->nlines && b->size && b->text[b->size - 1] != '\n')
		wg_buf_addch(out, '\n');
}

static void add_commit_details(struct wg_buf *out, const struct wg_blame_commit *c)
{
	wg_buf_printf(out, "author %s\nauthor-mail %s\nauthor-time %llu\nauthor-tz %s\n",
		      c->author.name, c->author.mail, (unsigned long long)c->author.time,
		      c->author.tz);
	wg_buf_printf(out,
		      "committer %s\ncommitter-mail %s\ncommitter-time %llu\ncommitter-tz %s\n",
		      c->committer.name, c->committer.mail, (unsigned long long)c->committer.time,
		      c->committer.tz);
	wg_buf_printf(out, "summary %s\n", c->summary);
	if (c->boundary)
		wg_buf_adds(out, "boundary\n");
}

static void add_filename_info(struct wg_buf *out, const struct wg_blame_origin *o)
{
	if (o->has_previous) {
		wg_buf_printf(out, "previous %s ", wg_oid_hex(&o->previous_commit));
		add_quoted_path(out, o->previous_path);
	}
	wg_buf_adds(out, "filename ");
	add_quoted_path(out, o->path);
}

/* git's porcelain: a header per group; a commit's details the first time
 * it is named (every line with --line-porcelain); the file name with
 * them, and with every group of a commit blamed under several paths. */
static void emit_porcelain(struct wg_buf *out, const struct wg_blame *b, const size_t *starts,
			   bool *shown, int opt)
{
	bool repeat = opt & LINE_PORCELAIN;

	for (size_t i = 0; i < b->nentries; i++) {
		const struct wg_blame_entry *e = &b->entries[i];
		const struct wg_blame_origin *o = &b->origins[e->origin];
		const struct wg_blame_commit *c = &b->commits[o->commit];
		char hex[WG_MAX_HEXSZ + 1];

		wg_oid_to_hex(&c->oid, hex);
		for (long k = 0; k < e->num_lines; k++) {
			size_t len;
			const char *line = nth_line(b, starts, e->lno + k, &len);

			if (!k)
				wg_buf_printf(out, "%s %ld %ld %ld\n", hex, e->s_lno + 1, e->lno + 1,
					      e->num_lines);
			else
				wg_buf_printf(out, "%s %ld %ld\n", hex, e->s_lno + 1 + k,
					      e->lno + 1 + k);
			if (!k || repeat) {
				bool details = repeat || !shown[o->commit];
				if (details) {
					shown[o->commit] = true;
					add_commit_details(out, c);
				}
				if (details || c->several_paths)
					add_filename_info(out, o);
			}
			wg_buf_addch(out, '\t');
			wg_buf_add(out, line, len);
		}
		end_line(out, b, e);
	}
}

/* git's find_unique_abbrev(oid, default): the default length, longer
 * while another object shares the prefix. */
static int unique_abbrev(struct wg_repo *repo, const struct wg_oid *oid, int len)
{
	const char *hex = wg_oid_hex(oid);
	int max = (int)strlen(hex);
	struct wg_oid found;

	while (len < max && wg_odb_resolve_prefix(wg_repo_odb(repo), hex, (size_t)len, &found) ==
				    WG_EAMBIGUOUS)
		len++;
	wg_error_clear();
	return len;
}

static void emit_default(struct wg_buf *out, struct wg_repo *repo, const struct wg_blame *b,
			 const size_t *starts, const char *path, int opt, int abbrev)
{
	int hexsz = (int)wg_repo_algo(repo)->hexsz;
	int longest_file = 0, longest_author = 0, orig_digits, digits;
	long longest_src = 0, longest_dst = 0;
	int auto_len = abbrev < 0 ? wg_default_abbrev_len(repo) : 0;

	/* git's find_alignment */
	for (size_t i = 0; i < b->nentries; i++) {
		const struct wg_blame_entry *e = &b->entries[i];
		const struct wg_blame_origin *o = &b->origins[e->origin];
		const struct wg_blame_commit *c = &b->commits[o->commit];
		int w;

		if (abbrev < 0) {
			int len = unique_abbrev(repo, &c->oid, auto_len);
			if (len > auto_len)
				auto_len = len;
		}
		if (strcmp(o->path, path))
			opt |= SHOW_NAME;
		if ((w = (int)strlen(o->path)) > longest_file)
			longest_file = w;
		w = text_width(opt & SHOW_EMAIL ? c->author.mail : c->author.name);
		if (w > longest_author)
			longest_author = w;
		if (e->s_lno + e->num_lines > longest_src)
			longest_src = e->s_lno + e->num_lines;
		if (e->lno + e->num_lines > longest_dst)
			longest_dst = e->lno + e->num_lines;
	}
	orig_digits = decimal_width(longest_src);
	digits = decimal_width(longest_dst);
	if (abbrev < 0)
		abbrev = auto_len + 1;   /* one more for the boundary's '^' */

	for (size_t i = 0; i < b->nentries; i++) {
		const struct wg_blame_entry *e = &b->entries[i];
		const struct wg_blame_origin *o = &b->origins[e->origin];
		const struct wg_blame_commit *c = &b->commits[o->commit];
		const char *hex = wg_oid_hex(&c->oid);
		struct wg_buf date = WG_BUF_INIT;

		if (opt & RAW_TIME)
			wg_buf_printf(&date, "%llu %s", (unsigned long long)c->author.time,
				      c->author.tz);
		else
			add_iso_date(&date, c->author.time, c->author.tz);
		for (long k = 0; k < e->num_lines; k++) {
			int length = opt & LONG_NAME ? hexsz : abbrev;
			const char *name = opt & SHOW_EMAIL ? c->author.mail : c->author.name;
			size_t len;
			const char *line = nth_line(b, starts, e->lno + k, &len);

			if (c->boundary) {
				length--;
				wg_buf_addch(out, '^');
			}
			wg_buf_printf(out, "%.*s", length, hex);
			if (opt & SHOW_NAME)
				wg_buf_printf(out, " %-*.*s", longest_file, longest_file, o->path);
			if (opt & SHOW_NUMBER)
				wg_buf_printf(out, " %*ld", orig_digits, e->s_lno + 1 + k);
			if (!(opt & NO_AUTHOR))
				wg_buf_printf(out, " (%s%*s %10s", name,
					      longest_author - text_width(name), "",
					      wg_buf_cstr(&date));
			wg_buf_printf(out, " %*ld) ", digits, e->lno + 1 + k);
			wg_buf_add(out, line, len);
		}
		wg_buf_release(&date);
		end_line(out, b, e);
	}
}

/* Blame the file: at the commit a revision names, or (none given) the
 * working tree's version, as git blame <path> does (worktree_blame.h). */
static int run_blame(struct wg_blame *out, struct wg_repo *repo, const char *rev,
		     const struct wg_oid *commit, const char *path,
		     const struct wg_blame_options *opts)
{
	bool from_worktree;

	if (rev)
		return wg_blame_run(out, repo, commit, path, opts);
	return wg_worktree_blame(out, repo, path, opts, &from_worktree);
}

/* prefix + file as a path from the top of the working tree: "." and
 * empty components dropped, ".." going up (not above the top). */
static int normalize_path(struct wg_buf *out, const char *prefix, const char *file)
{
	struct wg_buf in = WG_BUF_INIT;
	const char *p, *end;
	int err = 0;

	if ((err = wg_buf_adds(&in, prefix)) || (err = wg_buf_adds(&in, file)))
		goto out;
	wg_buf_reset(out);
	for (p = wg_buf_cstr(&in); *p; p = *end ? end + 1 : end) {
		size_t len;
		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (!len || (len == 1 && p[0] == '.'))
			continue;
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			size_t at = out->len;
			if (!at) {
				err = cli_fatal("'%s' is outside repository", file);
				goto out;
			}
			while (at && out->data[at - 1] != '/')
				at--;
			wg_buf_setlen(out, at ? at - 1 : 0);
			continue;
		}
		if ((out->len && (err = wg_buf_addch(out, '/'))) || (err = wg_buf_add(out, p, len)))
			goto out;
	}
out:
	wg_buf_release(&in);
	return err;
}

/* git's wording: quoted when the working tree was to be blamed. */
static int no_such_path(const char *path, const char *rev)
{
	if (wg_error_code() != WG_ENOTFOUND || !strstr(wg_error_message(), "no such path"))
		return cli_fatal_core();
	if (!rev)
		return cli_fatal("no such path '%s' in HEAD", path);
	return cli_fatal("no such path %s in %s", path, rev);
}

/* git's parse_score: a number, or 0 (the default) for anything else. */
static unsigned parse_score(const char *arg)
{
	char *end;
	unsigned long score = strtoul(arg, &end, 10);

	return *end ? 0 : (unsigned)score;
}

int cmd_blame(int argc, char **argv)
{
	struct wg_blame_options bo = { 0 };
	struct wg_blame b = { 0 };
	struct wg_repo *repo = NULL;
	struct wg_buf out = WG_BUF_INIT, prefix = WG_BUF_INIT, path = WG_BUF_INIT;
	const char *args[2], **ranges = NULL;
	const char *rev = NULL, *file = NULL;
	int nargs = 0, nranges = 0, opt = 0, abbrev = -1, rc = 0;
	size_t *starts = NULL;
	bool *shown = NULL, dashdash = false;
	struct wg_oid oid, commit;

	if (!(ranges = calloc((size_t)argc + 1, sizeof(*ranges))))
		return cli_fatal("out of memory");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (dashdash || !strcmp(a, "--")) {
			if (!dashdash) {
				dashdash = true;
				if (nargs > 1) {
					rc = cli_usage(usage);
					goto out;
				}
				rev = nargs ? args[0] : NULL;
				nargs = 0;
				continue;
			}
			if (file) {
				rc = cli_usage(usage);
				goto out;
			}
			file = a;
		} else if (!strcmp(a, "-l")) {
			opt |= LONG_NAME;
		} else if (!strcmp(a, "-s")) {
			opt |= NO_AUTHOR;
		} else if (!strcmp(a, "-e") || !strcmp(a, "--show-email")) {
			opt |= SHOW_EMAIL;
		} else if (!strcmp(a, "-t")) {
			opt |= RAW_TIME;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--show-name")) {
			opt |= SHOW_NAME;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--show-number")) {
			opt |= SHOW_NUMBER;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--porcelain")) {
			opt |= PORCELAIN;
		} else if (!strcmp(a, "--line-porcelain")) {
			opt |= PORCELAIN | LINE_PORCELAIN;
		} else if (!strcmp(a, "--root")) {
			bo.show_root = true;
		} else if (!strcmp(a, "-w")) {
			bo.whitespace = WG_DIFF_IGNORE_ALL_SPACE;
		} else if (!strncmp(a, "-M", 2)) {
			bo.moves = true;
			if (a[2])
				bo.move_score = parse_score(a + 2);
		} else if (!strncmp(a, "-C", 2)) {
			/* each -C looks further: changed files, then all of
			 * the parent's for a new file, then all always */
			if (bo.copies < 3)
				bo.copies++;
			bo.moves = true;
			if (a[2])
				bo.copy_score = parse_score(a + 2);
		} else if (!strcmp(a, "--abbrev")) {
			abbrev = -1;
		} else if (!strncmp(a, "--abbrev=", 9)) {
			char *end;
			long n = strtol(a + 9, &end, 10);
			if (!a[9] || *end || n < 0) {
				rc = cli_fatal("option `abbrev' expects a numerical value");
				goto out;
			}
			abbrev = n && n < 4 ? 4 : n > 64 ? 64 : (int)n;
		} else if (!strcmp(a, "-L") || !strncmp(a, "-L", 2)) {
			if (a[2])
				ranges[nranges++] = a + 2;
			else if (i + 1 < argc)
				ranges[nranges++] = argv[++i];
			else {
				rc = cli_fatal("switch `L' requires a value");
				goto out;
			}
		} else if ((v = cli_option_value(argc, argv, &i, "--line")) != NULL) {
			ranges[nranges++] = v;
		} else if (a[0] == '-' && a[1]) {
			rc = cli_usage(usage);
			goto out;
		} else if (nargs < 2) {
			args[nargs++] = a;
		} else {
			rc = cli_usage(usage);
			goto out;
		}
	}
	if (!dashdash) {
		if (nargs == 2) {
			rev = args[0];
			file = args[1];
		} else if (nargs == 1) {
			file = args[0];
		}
	} else if (nargs) {
		file = args[0];
	}
	if (!file) {
		rc = cli_usage(usage);
		goto out;
	}
	if ((rc = cli_open_repo(&repo)))
		goto out;
	if (!wg_repo_is_bare(repo) && cli_cwd_prefix(&prefix, wg_repo_workdir(repo))) {
		rc = cli_fatal_core();
		goto out;
	}
	if ((rc = normalize_path(&path, wg_buf_cstr(&prefix), file))) {
		if (rc != 128)
			rc = cli_fatal_core();
		goto out;
	}
	if (rev && wg_revparse(&oid, repo, rev)) {
		rc = cli_fatal("ambiguous argument '%s': unknown revision or path not in the "
			       "working tree.", rev);
		goto out;
	}
	if (rev && wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT)) {
		rc = cli_fatal("'%s' is not a commit", rev);
		goto out;
	}
	/* -L needs the line count: blame the whole file once to learn it
	 * only when ranges are given (the blob is read first by the core) */
	if (nranges) {
		struct wg_blame probe;
		struct wg_blame_options none = { 0 };
		/* an empty range list blames everything; ask for line 1 only to
		 * keep this cheap */
		if (wg_blame_ranges_add(&none, 0, 0) ||
		    run_blame(&probe, repo, rev, &commit, wg_buf_cstr(&path), &none)) {
			wg_blame_options_release(&none);
			wg_blame_release(&probe);
			rc = no_such_path(wg_buf_cstr(&path), rev);
			goto out;
		}
		wg_blame_options_release(&none);
		for (int k = 0; k < nranges; k++) {
			long bottom, top, lno = probe.nlines;
			if ((rc = parse_range(ranges[k], &bottom, &top)))
				break;
			if ((!lno && (top || bottom)) || lno < bottom) {
				rc = cli_fatal("file %s has only %ld line%s", wg_buf_cstr(&path), lno,
					       lno == 1 ? "" : "s");
				break;
			}
			if (bottom < 1)
				bottom = 1;
			if (top < 1 || lno < top)
				top = lno;
			if (wg_blame_ranges_add(&bo, bottom - 1, top)) {
				rc = cli_fatal_core();
				break;
			}
		}
		wg_blame_release(&probe);
		if (rc)
			goto out;
		if (!bo.nranges) {
			rc = 0;
			goto out;
		}
	}
	if (run_blame(&b, repo, rev, &commit, wg_buf_cstr(&path), &bo)) {
		rc = no_such_path(wg_buf_cstr(&path), rev);
		goto out;
	}
	if (!(starts = calloc(b.nlines ? (size_t)b.nlines : 1, sizeof(*starts))) ||
	    !(shown = calloc(b.ncommits ? b.ncommits : 1, sizeof(*shown)))) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	for (size_t at = 0, n = 0; at < b.size && n < (size_t)b.nlines; n++) {
		const char *nl = memchr(b.text + at, '\n', b.size - at);
		starts[n] = at;
		at = nl ? (size_t)(nl - b.text) + 1 : b.size;
	}
	if (abbrev == 0)
		abbrev = (int)wg_repo_algo(repo)->hexsz;
	else if (abbrev > 0 && abbrev < (int)wg_repo_algo(repo)->hexsz)
		abbrev++;
	else if (abbrev > (int)wg_repo_algo(repo)->hexsz)
		abbrev = (int)wg_repo_algo(repo)->hexsz;
	if (opt & PORCELAIN)
		emit_porcelain(&out, &b, starts, shown, opt);
	else
		emit_default(&out, repo, &b, starts, wg_buf_cstr(&path), opt, abbrev);
	rc = cli_write_stdout(out.data, out.len);
out:
	fflush(stdout);
	free(ranges);
	free(starts);
	free(shown);
	wg_blame_release(&b);
	wg_blame_options_release(&bo);
	wg_buf_release(&out);
	wg_buf_release(&prefix);
	wg_buf_release(&path);
	wg_repo_free(repo);
	return rc;
}
