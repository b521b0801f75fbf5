/* Printing changes as diff, diff-tree and show do (diff_output.h), in the
 * order and with the widths of git's diff_flush and show_stats. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "diff_output.h"
#include "diff/abbrev_len.h"
#include "diff/rename.h"
#include "diff/rev_diff.h"
#include "object/ident.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/quote.h"

void cli_diff_options_init(struct cli_diff_options *o)
{
	memset(o, 0, sizeof(*o));
	o->context = 3;
	o->renames = -1;
	o->algorithm = -1;
	o->indent_heuristic = -1;
}

static int parse_long(const char *s, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* A format option other than --name-only and --name-status undoes -s,
 * as git's (those two are added to it, and diff_setup_done refuses the
 * mix). */
static void add_format(struct cli_diff_options *o, unsigned format)
{
	o->formats = (o->formats & ~(unsigned)CLI_DIFF_NO_OUTPUT) | format;
}

int cli_diff_options_done(struct cli_diff_options *o)
{
	unsigned only = o->formats & (CLI_DIFF_NAME_ONLY | CLI_DIFF_NAME_STATUS | CLI_DIFF_NO_OUTPUT);
	if (only & (only - 1))
		return cli_fatal("options '--name-only', '--name-status', '--check', and '-s' cannot "
				 "be used together");
	if (only)
		o->formats &= ~(unsigned)(CLI_DIFF_RAW | CLI_DIFF_NUMSTAT | CLI_DIFF_STAT |
					  CLI_DIFF_SHORTSTAT | CLI_DIFF_SUMMARY | CLI_DIFF_PATCH);
	return 0;
}

int cli_diff_parse_option(struct cli_diff_options *o, int argc, char **argv, int *i)
{
	const char *s = argv[*i], *v;
	if (!strcmp(s, "-p") || !strcmp(s, "-u") || !strcmp(s, "--patch"))
		add_format(o, CLI_DIFF_PATCH);
	else if (!strcmp(s, "-s") || !strcmp(s, "--no-patch"))
		o->formats = CLI_DIFF_NO_OUTPUT;
	else if (!strcmp(s, "--stat"))
		add_format(o, CLI_DIFF_STAT);
	else if (!strcmp(s, "--numstat"))
		add_format(o, CLI_DIFF_NUMSTAT);
	else if (!strcmp(s, "--shortstat"))
		add_format(o, CLI_DIFF_SHORTSTAT);
	else if (!strcmp(s, "--name-only"))
		o->formats |= CLI_DIFF_NAME_ONLY;
	else if (!strcmp(s, "--name-status"))
		o->formats |= CLI_DIFF_NAME_STATUS;
	else if (!strcmp(s, "--raw"))
		add_format(o, CLI_DIFF_RAW);
	else if (!strcmp(s, "-r"))
		o->recursive = true;
	else if (!strcmp(s, "--root"))
		o->root = true;
	else if (!strcmp(s, "--summary"))
		add_format(o, CLI_DIFF_SUMMARY);
	else if (!strcmp(s, "--no-renames")) {
		o->renames = 0;
		o->copies = 0;
	} else if (!strcmp(s, "--find-copies-harder"))
		o->copies_harder = true;
	else if (!strcmp(s, "--no-find-copies-harder"))
		o->copies_harder = false;
	else if (!strncmp(s, "-M", 2) || !strncmp(s, "--find-renames", 14) ||
		 !strncmp(s, "-C", 2) || !strncmp(s, "--find-copies", 13)) {
		bool copy = s[1] == 'C' || (s[1] == '-' && s[7] == 'c');
		bool is_short = s[1] == 'M' || s[1] == 'C';
		const char *score = is_short ? s + 2 : s + (copy ? 13 : 14);
		if (!is_short && *score) {
			if (*score != '=')
				return 0;
			score++;
		}
		/* as git's options: -M sets renames, -C copies, a second -C
		 * copies harder; each sets the score (none: 50%) */
		if (copy) {
			o->copies++;
		} else {
			o->renames = 1;
			o->copies = 0;
		}
		o->rename_score = 0;
		if (*score && (o->rename_score = wg_rename_parse_score(score)) < 0)
			return cli_fatal("invalid argument to %s: %s",
					 is_short ? (copy ? "-C" : "-M") : (copy ? "find-copies" : "find-renames"),
					 score);
	} else if (!strncmp(s, "-U", 2) || !strncmp(s, "--unified=", 10)) {
		v = s[1] == 'U' ? s + 2 : s + 10;
		if (!*v && s[1] == 'U') {
			if (*i + 1 >= argc)
				return cli_fatal("switch `U' requires a value");
			v = argv[++*i];
		}
		if (parse_long(v, &o->context))
			return cli_fatal("switch `U' expects a numerical value");
		add_format(o, CLI_DIFF_PATCH);
	} else if ((v = cli_option_value(argc, argv, i, "--inter-hunk-context"))) {
		if (parse_long(v, &o->inter_hunk))
			return cli_fatal("option `inter-hunk-context' expects a numerical value");
	} else if (!strcmp(s, "--minimal") || !strcmp(s, "--patience") ||
		   !strcmp(s, "--histogram")) {
		enum wg_diff_algorithm algo = WG_DIFF_MYERS;
		wg_diff_algorithm_parse(s + 2, &algo);
		o->algorithm = (int)algo;
	} else if ((v = cli_option_value(argc, argv, i, "--diff-algorithm"))) {
		enum wg_diff_algorithm algo;
		if (wg_diff_algorithm_parse(v, &algo)) {
			wg_error_clear();
			return cli_fatal("option diff-algorithm accepts \"myers\", \"minimal\", "
					 "\"patience\" and \"histogram\"");
		}
		o->algorithm = (int)algo;
	} else if (!strcmp(s, "--indent-heuristic") || !strcmp(s, "--no-indent-heuristic")) {
		o->indent_heuristic = s[2] != 'n';
	} else if (!strcmp(s, "-w") || !strcmp(s, "--ignore-all-space")) {
		o->whitespace |= WG_DIFF_IGNORE_ALL_SPACE;
	} else if (!strcmp(s, "-b") || !strcmp(s, "--ignore-space-change")) {
		o->whitespace |= WG_DIFF_IGNORE_SPACE_CHANGE;
	} else if (!strcmp(s, "--ignore-space-at-eol")) {
		o->whitespace |= WG_DIFF_IGNORE_SPACE_AT_EOL;
	} else if (!strcmp(s, "--ignore-cr-at-eol")) {
		o->whitespace |= WG_DIFF_IGNORE_CR_AT_EOL;
	} else
		return 0;
	return 1;
}

/* The line diff's options: the command line's, else the config's
 * (diff.algorithm only for the porcelain commands, as git reads it in its
 * ui config), else git's defaults. */
int cli_diff_line_options(struct wg_repo *repo, const struct cli_diff_options *o,
			  struct wg_line_diff_options *out)
{
	const char *v;
	int err;
	*out = (struct wg_line_diff_options)WG_LINE_DIFF_OPTIONS_INIT;
	out->whitespace = o->whitespace;
	if (o->algorithm >= 0) {
		out->algorithm = (enum wg_diff_algorithm)o->algorithm;
	} else if (o->ui_config && !(err = wg_repo_config_get(repo, "diff.algorithm", &v))) {
		if (wg_diff_algorithm_parse(v, &out->algorithm))
			return wg_error_set(WG_EINVALID, "unknown value for config 'diff.algorithm': %s",
					    v);
	} else {
		wg_error_clear();
	}
	if (o->indent_heuristic >= 0) {
		out->no_indent_heuristic = !o->indent_heuristic;
	} else if (!(err = wg_repo_config_get(repo, "diff.indentHeuristic", &v))) {
		bool on;
		if ((err = wg_config_bool_value("diff.indentHeuristic", v, &on)))
			return err;
		out->no_indent_heuristic = !on;
	} else {
		wg_error_clear();
	}
	return 0;
}

bool cli_diff_path_matches(const struct cli_diff_options *o, const char *path)
{
	if (o->pathspec)
		return wg_pathspec_match(o->pathspec, path, strlen(path), NULL);
	return wg_diff_path_in((const char *const *)o->paths, (size_t)o->npaths, path);
}

/* What the diff of this process needed for diff.renameLimit, for the
 * warning at its end (git keeps the largest over a log's commits). */
static size_t rename_limit_needed;
static bool copies_degraded;

/* git's detect_rename as diff_setup and the options leave it: the
 * configured mode (porcelain commands), then the last -M or
 * --no-renames, then each -C after it (a -C on copies is -C -C), and
 * --find-copies-harder makes it copies whatever came before. */
static int rename_mode(struct wg_repo *repo, const struct cli_diff_options *o,
		       bool rename_default, bool *on, enum wg_copies *copies, int *limit)
{
	bool cfg_on = false, cfg_copies = false, dummy;
	int err, detect;   /* git's: 0 none, 1 renames, 2 copies */

	if ((err = wg_diff_copies_config(repo, NULL, rename_default ? &cfg_on : &dummy,
					 rename_default ? &cfg_copies : &dummy, limit)))
		return err;
	detect = !rename_default ? 0 : cfg_copies ? 2 : cfg_on ? 1 : 0;
	bool harder = o->copies_harder;
	if (o->renames >= 0)
		detect = o->renames;
	for (int k = 0; k < o->copies; k++) {
		if (detect == 2)
			harder = true;
		else
			detect = 2;
	}
	if (harder)
		detect = 2;
	*on = detect > 0;
	*copies = detect < 2 ? WG_COPIES_NONE : harder ? WG_COPIES_HARDER : WG_COPIES_MODIFIED;
	return 0;
}

int cli_diff_find_renames(struct wg_diff_changes *c, struct wg_repo *repo,
			  const struct cli_diff_options *o, bool rename_default)
{
	struct wg_rename_options ro = WG_RENAME_OPTIONS_INIT;
	bool on;
	int limit = 1000, err;
	if ((err = rename_mode(repo, o, rename_default, &on, &ro.copies, &limit)))
		return err;
	if (!on)
		return 0;   /* (unchanged files are listed only when on) */
	ro.limit = limit;
	if (o->rename_score)
		ro.min_score = o->rename_score;
	if ((err = wg_diff_find_renames(c, 0, wg_repo_odb(repo), &ro)))
		return err;
	if (rename_limit_needed < c->rename_limit_needed)
		rename_limit_needed = c->rename_limit_needed;
	copies_degraded = copies_degraded || c->copies_degraded;
	return 0;
}

void cli_diff_warn_rename_limit(void)
{
	fflush(stdout);
	if (copies_degraded)
		fputs("warning: only found copies from modified paths due to too many files.\n",
		      stderr);
	else if (rename_limit_needed)
		fputs("warning: exhaustive rename detection was skipped due to too many files.\n",
		      stderr);
	else
		return;
	if (rename_limit_needed)
		fprintf(stderr,
			"warning: you may want to set your diff.renameLimit variable to at least "
			"%zu and retry the command.\n",
			rename_limit_needed);
}

int cli_diff_tree_changes(struct wg_diff_changes *out, struct wg_repo *repo,
			  const struct wg_oid *old_tree, const struct wg_oid *new_tree,
			  const struct cli_diff_options *o, bool rename_default)
{
	struct wg_tree_diff_options to = { 0 };
	size_t w = 0;
	int err;

	bool on;
	enum wg_copies copies;
	int limit;

	to.paths = o->pathspec;   /* trees no path can match are not read */
	/* -C -C: the unchanged files are sources too */
	if ((err = rename_mode(repo, o, rename_default, &on, &copies, &limit)))
		return err;
	to.unmodified = on && copies == WG_COPIES_HARDER;
	if ((err = wg_diff_trees(out, wg_repo_odb(repo), old_tree, new_tree, &to)))
		return err;
	for (size_t i = 0; i < out->n; i++) {
		if (cli_diff_path_matches(o, out->v[i].path)) {
			out->v[w++] = out->v[i];
		} else {
			wg_free(out->v[i].path);
			wg_free(out->v[i].from);
		}
	}
	out->n = w;
	return cli_diff_find_renames(out, repo, o, rename_default);
}

/* --- the bytes of each side ------------------------------------------- */

int cli_diff_side_bytes(struct wg_buf *out, struct wg_repo *repo, unsigned mode,
			const struct wg_oid *oid)
{
	enum wg_object_type type;
	if (!mode)
		return 0;
	if (mode == 0160000)
		return wg_buf_printf(out, "Subproject commit %s\n", wg_oid_hex(oid));
	return wg_odb_read(wg_repo_odb(repo), oid, &type, out);
}

struct loaded {
	struct wg_buf a, b;
	struct wg_diff_file f;
};

static int load(struct loaded *l, struct wg_repo *repo, const struct wg_diff_change *c,
		const struct cli_diff_options *o)
{
	int err;
	memset(&l->f, 0, sizeof(l->f));
	if ((err = cli_diff_side_bytes(&l->a, repo, c->old_mode, &c->old_oid)))
		return err;
	if ((err = cli_diff_side_bytes(&l->b, repo, c->new_mode, &c->new_oid)))
		return err;
	l->f.status = c->status;
	l->f.old_path = c->from ? c->from : c->path;
	l->f.new_path = c->path;
	l->f.old_mode = c->old_mode;
	l->f.new_mode = c->new_mode;
	l->f.old_oid = c->old_oid;
	l->f.new_oid = c->new_oid;
	l->f.score = c->score;
	l->f.old_data = (const char *)l->a.data;
	l->f.old_len = l->a.len;
	l->f.new_data = (const char *)l->b.data;
	l->f.new_len = l->b.len;
	return 0;
}

static void loaded_release(struct loaded *l)
{
	wg_buf_release(&l->a);
	wg_buf_release(&l->b);
}

/* --- raw and name formats ---------------------------------------------- */

static int add_quoted(struct wg_buf *out, const char *s)
{
	return wg_quote_c_style(out, s, strlen(s));
}

static int score_percent(int score)
{
	return (int)((long)score * 100 / WG_RENAME_MAX_SCORE);
}

static int print_name_status(struct wg_buf *out, const struct wg_diff_change *c)
{
	int err;
	if (c->status == 'R' || c->status == 'C')
		err = wg_buf_printf(out, "%c%03d\t", c->status, score_percent(c->score));
	else
		err = wg_buf_printf(out, "%c\t", c->status);
	if (!err && c->from && !(err = add_quoted(out, c->from)))
		err = wg_buf_addch(out, '\t');
	if (!err && !(err = add_quoted(out, c->path)))
		err = wg_buf_addch(out, '\n');
	return err;
}

static int print_raw(struct wg_buf *out, struct wg_repo *repo, const struct wg_diff_change *c,
		     int abbrev)
{
	char a[WG_MAX_HEXSZ + 1], b[WG_MAX_HEXSZ + 1];
	struct wg_oid one = c->old_oid, two = c->new_oid;
	int err;
	/* an absent side is the null id of the repository's hash */
	if (!c->old_mode)
		wg_oid_null(&one, wg_repo_algo(repo));
	/* git does not hash working tree files for --raw, but a rename's
	 * new side was read to pair it */
	if (!c->new_mode || (c->new_in_worktree && c->status != 'R' && c->status != 'C'))
		wg_oid_null(&two, wg_repo_algo(repo));
	wg_diff_abbrev(a, abbrev ? wg_repo_odb(repo) : NULL, &one, abbrev);
	wg_diff_abbrev(b, abbrev ? wg_repo_odb(repo) : NULL, &two, abbrev);
	if ((err = wg_buf_printf(out, ":%06o %06o %s %s ", c->old_mode, c->new_mode, a, b)))
		return err;
	return print_name_status(out, c);
}


/* --- stats -------------------------------------------------------------- */

struct stat_file {
	char *name;          /* as shown: quoted, or git's pprint_rename */
	size_t added, deleted;
	bool binary;
};

/* git's pprint_rename: "dir/{old => new}/rest" */
static int pprint_rename(struct wg_buf *name, const char *a, const char *b)
{
	struct wg_buf qa = WG_BUF_INIT, qb = WG_BUF_INIT;
	long len_a = (long)strlen(a), len_b = (long)strlen(b);
	long pfx = 0, sfx = 0, adj, a_mid, b_mid;
	const char *o, *n;
	int err = add_quoted(&qa, a);
	if (!err)
		err = add_quoted(&qb, b);
	if (err || qa.len != (size_t)len_a || qb.len != (size_t)len_b) {
		if (!err && !(err = wg_buf_add(name, qa.data, qa.len)) &&
		    !(err = wg_buf_adds(name, " => ")))
			err = wg_buf_add(name, qb.data, qb.len);
		wg_buf_release(&qa);
		wg_buf_release(&qb);
		return err;
	}
	wg_buf_release(&qa);
	wg_buf_release(&qb);
	for (o = a, n = b; *o && *n && *o == *n; o++, n++)
		if (*o == '/')
			pfx = o - a + 1;
	o = a + len_a;
	n = b + len_b;
	adj = pfx ? 1 : 0;
	while (a + pfx - adj <= o && b + pfx - adj <= n && *o == *n) {
		if (*o == '/')
			sfx = len_a - (o - a);
		o--;
		n--;
	}
	a_mid = len_a - pfx - sfx;
	b_mid = len_b - pfx - sfx;
	if (a_mid < 0)
		a_mid = 0;
	if (b_mid < 0)
		b_mid = 0;
	if (pfx + sfx && ((err = wg_buf_add(name, a, (size_t)pfx)) || (err = wg_buf_addch(name, '{'))))
		return err;
	if ((err = wg_buf_add(name, a + pfx, (size_t)a_mid)) || (err = wg_buf_adds(name, " => ")) ||
	    (err = wg_buf_add(name, b + pfx, (size_t)b_mid)))
		return err;
	if (pfx + sfx && ((err = wg_buf_addch(name, '}')) ||
			  (err = wg_buf_add(name, a + len_a - sfx, (size_t)sfx))))
		return err;
	return 0;
}

static int decimal_width(size_t n)
{
	int w = 1;
	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w;
}

static int scale_linear(long it, long width, long max_change)
{
	if (!it)
		return 0;
	return (int)(1 + it * (width - 1) / max_change);
}

static int add_chars(struct wg_buf *out, char c, long n)
{
	int err = 0;
	for (long i = 0; i < n && !err; i++)
		err = wg_buf_addch(out, c);
	return err;
}

static int summary_line(struct wg_buf *out, size_t files, size_t ins, size_t del)
{
	int err;
	if (!files)
		return wg_buf_adds(out, " 0 files changed\n");
	err = wg_buf_printf(out, files == 1 ? " %zu file changed" : " %zu files changed", files);
	if (!err && (ins || del == 0))
		err = wg_buf_printf(out, ins == 1 ? ", %zu insertion(+)" : ", %zu insertions(+)", ins);
	if (!err && (del || ins == 0))
		err = wg_buf_printf(out, del == 1 ? ", %zu deletion(-)" : ", %zu deletions(-)", del);
	if (!err)
		err = wg_buf_addch(out, '\n');
	return err;
}

/* git's show_stats with its default widths */
static int print_stat(struct wg_buf *out, const struct stat_file *f, size_t n, int total_width)
{
	size_t max_change = 0, max_len = 0, adds = 0, dels = 0;
	long width, name_width, graph_width, number_width = 0, bin_width = 0;
	int err = 0;
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(f[i].name), change = f[i].added + f[i].deleted;
		if (max_len < len)
			max_len = len;
		if (f[i].binary) {
			long w = 14 + decimal_width(f[i].added) + decimal_width(f[i].deleted);
			if (bin_width < w)
				bin_width = w;
			number_width = 3;
			continue;
		}
		if (max_change < change)
			max_change = change;
	}
	width = total_width;
	if (decimal_width(max_change) > number_width)
		number_width = decimal_width(max_change);
	if (width < 16 + 6 + number_width)
		width = 16 + 6 + number_width;
	graph_width = (long)max_change + 4 > bin_width ? (long)max_change : bin_width - 4;
	name_width = (long)max_len;
	if (name_width + number_width + 6 + graph_width > width) {
		if (graph_width > width * 3 / 8 - number_width - 6) {
			graph_width = width * 3 / 8 - number_width - 6;
			if (graph_width < 6)
				graph_width = 6;
		}
		if (name_width > width - number_width - 6 - graph_width)
			name_width = width - number_width - 6 - graph_width;
		else
			graph_width = width - number_width - 6 - name_width;
	}
	for (size_t i = 0; i < n && !err; i++) {
		const char *prefix = "", *name = f[i].name;
		long len = name_width, name_len = (long)strlen(name), padding;
		long add = (long)f[i].added, del = (long)f[i].deleted;
		if (name_width < name_len) {
			const char *slash;
			prefix = "...";
			len -= 3;
			name += name_len - len;
			if ((slash = strchr(name, '/')))
				name = slash;
		}
		padding = len - (long)strlen(name);
		if (padding < 0)
			padding = 0;
		if (f[i].binary) {
			err = wg_buf_printf(out, " %s%s%*s | %*s", prefix, name, (int)padding, "",
					    (int)number_width, "Bin");
			if (!err && !add && !del)
				err = wg_buf_addch(out, '\n');
			else if (!err)
				err = wg_buf_printf(out, " %zu -> %zu bytes\n", f[i].deleted, f[i].added);
			continue;
		}
		if (graph_width <= (long)max_change) {
			int total = scale_linear(add + del, graph_width, (long)max_change);
			if (total < 2 && add && del)
				total = 2;
			if (add < del) {
				add = scale_linear(add, graph_width, (long)max_change);
				del = total - add;
			} else {
				del = scale_linear(del, graph_width, (long)max_change);
				add = total - del;
			}
		}
		err = wg_buf_printf(out, " %s%s%*s | %*zu%s", prefix, name, (int)padding, "",
				    (int)number_width, f[i].added + f[i].deleted,
				    f[i].added + f[i].deleted ? " " : "");
		if (!err)
			err = add_chars(out, '+', add);
		if (!err)
			err = add_chars(out, '-', del);
		if (!err)
			err = wg_buf_addch(out, '\n');
	}
	for (size_t i = 0; i < n; i++)
		if (!f[i].binary) {
			adds += f[i].added;
			dels += f[i].deleted;
		}
	return err ? err : summary_line(out, n, adds, dels);
}

static int stat_width(const struct cli_diff_options *o)
{
	const char *cols = getenv("COLUMNS");
	if (o->stat_width > 0)
		return o->stat_width;
	if (cols && atoi(cols) > 0)
		return atoi(cols);
	return 80;
}

static int print_stats(struct wg_buf *out, struct wg_repo *repo, const struct wg_diff_changes *c,
		       const struct cli_diff_options *o, unsigned formats)
{
	struct stat_file *f;
	struct wg_buf name = WG_BUF_INIT;
	struct wg_line_diff_options lo;
	size_t n = 0;   /* the files shown */
	int err = cli_diff_line_options(repo, o, &lo);
	if (err)
		return err;
	if (!(f = wg_calloc(c->n + 1, sizeof(*f))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t k = 0; k < c->n && !err; k++) {
		struct loaded l;
		const struct wg_diff_change *ch = &c->v[k];
		size_t i = n++;
		memset(&l, 0, sizeof(l));
		wg_buf_reset(&name);
		if (!(err = load(&l, repo, ch, o))) {
			if (ch->from)
				err = pprint_rename(&name, ch->from, ch->path);
			else
				err = add_quoted(&name, ch->path);
		}
		if (!err && !(f[i].name = wg_strdup(wg_buf_cstr(&name))))
			err = wg_error_set(WG_ENOMEM, "out of memory");
		if (!err) {
			bool same = ch->old_mode && ch->new_mode && wg_oid_equal(&ch->old_oid, &ch->new_oid) &&
				    !ch->new_in_worktree;
			err = wg_diff_count_lines(&l.f, o->context, &lo, &f[i].added,
						  &f[i].deleted, &f[i].binary);
			if (!err && f[i].binary) {
				f[i].added = same ? 0 : l.f.new_len;
				f[i].deleted = same ? 0 : l.f.old_len;
			}
			/* as git, a modified file whose changes were all
			 * ignored (whitespace options) is left out */
			if (!err && !f[i].binary && !same && ch->status == 'M' && !ch->from &&
			    ch->old_mode == ch->new_mode && !f[i].added && !f[i].deleted) {
				wg_free(f[i].name);
				f[i].name = NULL;
				n--;
			}
		}
		loaded_release(&l);
	}
	if (!err && (formats & CLI_DIFF_NUMSTAT)) {
		for (size_t i = 0; i < n && !err; i++) {
			if (f[i].binary)
				err = wg_buf_adds(out, "-\t-\t");
			else
				err = wg_buf_printf(out, "%zu\t%zu\t", f[i].added, f[i].deleted);
			if (!err && !(err = wg_buf_adds(out, f[i].name)))
				err = wg_buf_addch(out, '\n');
		}
	}
	if (!err && (formats & CLI_DIFF_STAT))
		err = print_stat(out, f, n, stat_width(o));
	if (!err && (formats & CLI_DIFF_SHORTSTAT) && !(formats & CLI_DIFF_STAT) && n) {
		size_t adds = 0, dels = 0;
		for (size_t i = 0; i < n; i++)
			if (!f[i].binary) {
				adds += f[i].added;
				dels += f[i].deleted;
			}
		err = summary_line(out, n, adds, dels);
	}
	for (size_t i = 0; i < n; i++)
		wg_free(f[i].name);
	wg_free(f);
	wg_buf_release(&name);
	return err;
}

/* --- summary ------------------------------------------------------------ */

/* git's show_mode_change */
static int summary_mode_change(struct wg_buf *out, const struct wg_diff_change *c, bool name)
{
	int err;
	if (!c->old_mode || !c->new_mode || c->old_mode == c->new_mode)
		return 0;
	if ((err = wg_buf_printf(out, " mode change %06o => %06o", c->old_mode, c->new_mode)))
		return err;
	if (name && ((err = wg_buf_addch(out, ' ')) || (err = add_quoted(out, c->path))))
		return err;
	return wg_buf_addch(out, '\n');
}

/* git's diff_summary: creations, deletions, renames, copies and mode
 * changes */
static int print_summary(struct wg_buf *out, const struct wg_diff_change *c)
{
	int err;
	switch (c->status) {
	case 'A':
	case 'D':
		if ((err = wg_buf_printf(out, " %s mode %06o ", c->status == 'A' ? "create" : "delete",
					 c->status == 'A' ? c->new_mode : c->old_mode)) ||
		    (err = add_quoted(out, c->path)))
			return err;
		return wg_buf_addch(out, '\n');
	case 'R':
	case 'C':
		if ((err = wg_buf_adds(out, c->status == 'R' ? " rename " : " copy ")) ||
		    (err = pprint_rename(out, c->from, c->path)) ||
		    (err = wg_buf_printf(out, " (%d%%)\n", score_percent(c->score))))
			return err;
		return summary_mode_change(out, c, false);
	default:
		return summary_mode_change(out, c, true);
	}
}

/* git's is_summary_empty */
static bool summary_empty(const struct wg_diff_changes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct wg_diff_change *ch = &c->v[i];
		if (strchr("ADCR", ch->status) ||
		    (ch->old_mode && ch->new_mode && ch->old_mode != ch->new_mode))
			return false;
	}
	return true;
}

int cli_diff_print(struct wg_buf *out, struct wg_repo *repo, const struct wg_diff_changes *c,
		   const struct cli_diff_options *o, unsigned default_formats)
{
	unsigned formats = o->formats ? o->formats : default_formats;
	bool separator = false;
	int err = 0;
	if (formats & CLI_DIFF_NO_OUTPUT)
		return 0;
	if (formats & (CLI_DIFF_RAW | CLI_DIFF_NAME_ONLY | CLI_DIFF_NAME_STATUS)) {
		for (size_t i = 0; i < c->n && !err; i++) {
			if (formats & CLI_DIFF_RAW)
				err = print_raw(out, repo, &c->v[i],
						o->raw_abbrev < 0 ? wg_default_abbrev_len(repo)
								  : o->raw_abbrev);
			else if (formats & CLI_DIFF_NAME_STATUS)
				err = print_name_status(out, &c->v[i]);
			else if (!(err = add_quoted(out, c->v[i].path)))
				err = wg_buf_addch(out, '\n');
		}
		separator = c->n > 0;
	}
	if (!err && (formats & (CLI_DIFF_STAT | CLI_DIFF_NUMSTAT | CLI_DIFF_SHORTSTAT))) {
		err = print_stats(out, repo, c, o, formats);
		separator = separator || c->n > 0;
	}
	if (!err && (formats & CLI_DIFF_SUMMARY) && !summary_empty(c)) {
		for (size_t i = 0; i < c->n && !err; i++)
			err = print_summary(out, &c->v[i]);
		separator = true;
	}
	if (!err && (formats & CLI_DIFF_PATCH) && c->n) {
		struct wg_patch_options po = WG_PATCH_OPTIONS_INIT;
		po.hunks.context = o->context;
		po.hunks.inter_hunk = o->inter_hunk;
		po.odb = wg_repo_odb(repo);
		po.abbrev = wg_default_abbrev_len(repo);
		err = cli_diff_line_options(repo, o, &po.lines);
		if (!err && separator)
			err = wg_buf_addch(out, '\n');
		for (size_t i = 0; i < c->n && !err; i++) {
			struct loaded l;
			memset(&l, 0, sizeof(l));
			if (!(err = load(&l, repo, &c->v[i], o)))
				err = wg_diff_patch(out, &l.f, &po);
			loaded_release(&l);
		}
	}
	return err;
}

