/* webgit check-ignore: which paths git's ignore rules exclude, and by
 * which pattern (git check-ignore: -q, -v, -n, --stdin, -z, --no-index;
 * git's output, messages and exit codes). Paths are relative to the
 * current directory, as git's pathspecs; without --no-index a path that
 * the index tracks (or holds files below) is never reported. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "index/index.h"
#include "repo/repo.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/wildmatch.h"
#include "worktree/ignore.h"
#include "worktree/ignore_files.h"
#include "util/pathspec.h"

struct check {
	bool quiet, verbose, non_matching, stdin_paths, no_index;
	char term;
	const char *workdir;
	const char *prefix;       /* the current directory below the top: "" or "a/b/" */
	struct wg_index *ix;      /* NULL with --no-index */
	struct wg_ignore *ig;
	struct wg_buf full, out;
	int ignored;
};

static void warn_stderr(void *payload, const char *message)
{
	fflush(stdout);
	fprintf(stderr, "warning: %s\n", message);
}

/* git's prefix_path() (worktree/pathspec.h), an absolute path taken when
 * it lies in the working tree. 1 when it leaves the working tree. */
static int normalize(struct wg_buf *out, const struct check *c, const char *path)
{
	size_t wl = strlen(c->workdir);

	if (path[0] != '/')
		return wg_path_normalize(out, c->prefix, path);
	/* an absolute path must lie in the working tree */
	if (strncmp(path, c->workdir, wl) || (path[wl] && path[wl] != '/')) {
		wg_buf_reset(out);
		return 1;
	}
	return wg_path_normalize(out, "", path + wl);
}

/* Does the pathspec `m` match an index entry (git's match_pathspec: the
 * path itself, a directory above it, or a glob over it)? Entries that
 * are skip-worktree do not count, as check-ignore asks. */
static bool tracked(const struct wg_index *ix, const char *m)
{
	size_t ml = strlen(m), nowild = 0;
	while (m[nowild] && !strchr("*?[\\", m[nowild]))
		nowild++;
	for (size_t i = 0; i < ix->nr; i++) {
		const struct wg_index_entry *e = ix->entries[i];
		if (e->flags & WG_INDEX_SKIP_WORKTREE)
			continue;
		if (!ml)
			return true;
		if (ml <= e->path_len && !memcmp(m, e->path, ml) &&
		    (ml == e->path_len || m[ml - 1] == '/' || e->path[ml] == '/'))
			return true;
		/* a gitlink is a directory to a pathspec "sub/" */
		if (e->mode == 0160000 && ml == e->path_len + 1 && m[ml - 1] == '/' &&
		    !memcmp(m, e->path, e->path_len))
			return true;
		if (nowild < ml && !strncmp(m, e->path, nowild) &&
		    wg_wildmatch(m + nowild, e->path + nowild, 0))
			return true;
	}
	return false;
}

/* git refuses a path below a symbolic link (PATHSPEC_SYMLINK_LEADING_PATH):
 * is one of the leading directories of `full` a link? */
static bool beyond_symlink(const char *full)
{
	struct wg_buf dir = WG_BUF_INIT;
	bool link = false;
	for (const char *s = full; !link && (s = strchr(s, '/')); s++) {
		struct stat st;
		wg_buf_reset(&dir);
		if (s == full || wg_buf_add(&dir, full, (size_t)(s - full)) ||
		    lstat(wg_buf_cstr(&dir), &st))
			break;
		link = S_ISLNK(st.st_mode);
		if (!S_ISDIR(st.st_mode))
			break;
	}
	wg_buf_release(&dir);
	return link;
}

static int add_quoted(struct wg_buf *b, const char *s)
{
	return wg_quote_c_style(b, s, strlen(s));
}

static int output(struct check *c, const char *path, const struct wg_ignore_pattern *pat)
{
	struct wg_buf *b = &c->out;
	const char *bang = pat && pat->flags & WG_IGNORE_NEGATIVE ? "!" : "";
	const char *slash = pat && pat->flags & WG_IGNORE_MUSTBEDIR ? "/" : "";
	int err = 0;

	wg_buf_reset(b);
	if (!c->verbose) {
		if (c->term)
			err = add_quoted(b, path);
		else
			err = wg_buf_adds(b, path);
		err = err ? err : wg_buf_addch(b, c->term);
	} else if (c->term) {
		if (pat)
			err = add_quoted(b, pat->list->src) ||
			      wg_buf_printf(b, ":%u:%s%s%s\t", pat->lineno, bang, pat->pattern, slash);
		else
			err = wg_buf_adds(b, "::\t");
		err = err || add_quoted(b, path) || wg_buf_addch(b, '\n');
	} else if (pat) {
		err = wg_buf_printf(b, "%s%c%u%c%s%s%s%c%s%c", pat->list->src, 0, pat->lineno, 0,
				    bang, pat->pattern, slash, 0, path, 0);
	} else {
		err = wg_buf_printf(b, "%c%c%c%s%c", 0, 0, 0, path, 0);
	}
	if (err)
		return cli_fatal("out of memory");
	return cli_write_stdout(b->data, b->len);
}

/* Decide one path as given; 128 when it is fatal. */
static int check_path(struct check *c, const char *path)
{
	const struct wg_ignore_pattern *pat = NULL;
	int rc;

	if (!*path)
		return cli_fatal("empty string is not a valid pathspec. please use . instead if "
				 "you meant to match all paths");
	rc = normalize(&c->full, c, path);
	if (rc > 0)
		return cli_fatal("%s: '%s' is outside repository at '%s'", path, path, c->workdir);
	if (rc < 0)
		return cli_fatal("out of memory");
	if (beyond_symlink(wg_buf_cstr(&c->full)))
		return cli_fatal("pathspec '%s' is beyond a symbolic link", path);
	if (!c->ix || !tracked(c->ix, wg_buf_cstr(&c->full))) {
		if (wg_ignore_match(&pat, c->ig, wg_buf_cstr(&c->full), WG_IGNORE_TYPE_UNKNOWN))
			return cli_fatal_core();
		/* a negated pattern says "not ignored": shown only with -v */
		if (!c->verbose && pat && pat->flags & WG_IGNORE_NEGATIVE)
			pat = NULL;
	}
	if (!c->quiet && (pat || c->non_matching) && (rc = output(c, path, pat)))
		return rc;
	if (pat)
		c->ignored++;
	return 0;
}

static int check_stdin(struct check *c)
{
	struct wg_buf in = WG_BUF_INIT, line = WG_BUF_INIT;
	size_t pos = 0;
	int rc = 0;

	if (cli_read_stream(stdin, &in)) {
		wg_buf_release(&in);
		return cli_fatal_core();
	}
	while (pos < in.len && !rc) {
		const char *start = (const char *)in.data + pos;
		const char *nl = memchr(start, c->term, in.len - pos);
		size_t n = nl ? (size_t)(nl - start) : in.len - pos;
		pos += n + (nl ? 1 : 0);
		wg_buf_reset(&line);
		if (c->term && n && start[0] == '"') {
			if (wg_unquote_c_style(&line, start, n)) {
				rc = cli_fatal("line is badly quoted");
				break;
			}
		} else if (wg_buf_add(&line, start, n) || wg_buf_grow(&line, 0)) {
			rc = cli_fatal("out of memory");
			break;
		}
		/* a path holds no NUL: git's C string ends there */
		rc = check_path(c, wg_buf_cstr(&line));
		fflush(stdout);
	}
	wg_buf_release(&line);
	wg_buf_release(&in);
	return rc;
}

int cmd_check_ignore(int argc, char **argv)
{
	static const char usage[] = "webgit check-ignore [-q] [-v] [-n | --non-matching] "
				    "[--no-index] [--stdin [-z]] [--] [<pathname>...]";
	struct check c = { .term = '\n' };
	struct wg_buf prefix = WG_BUF_INIT;
	struct wg_repo *repo = NULL;
	int i, rc = 0, npaths;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--quiet")) {
			c.quiet = true;
		} else if (!strcmp(a, "--verbose")) {
			c.verbose = true;
		} else if (!strcmp(a, "--non-matching")) {
			c.non_matching = true;
		} else if (!strcmp(a, "--stdin")) {
			c.stdin_paths = true;
		} else if (!strcmp(a, "--no-index")) {
			c.no_index = true;
		} else if (a[0] == '-' && a[1] && a[1] != '-') {
			/* bundled short options, "-vn" */
			for (const char *f = a + 1; *f; f++) {
				if (*f == 'q')
					c.quiet = true;
				else if (*f == 'v')
					c.verbose = true;
				else if (*f == 'n')
					c.non_matching = true;
				else if (*f == 'z')
					c.term = '\0';
				else
					return cli_usage(usage);
			}
		} else if (a[0] == '-' && a[1]) {
			return cli_usage(usage);
		} else {
			break;
		}
	}
	npaths = argc - i;
	if (c.stdin_paths && npaths > 0)
		return cli_fatal("cannot specify pathnames with --stdin");
	if (!c.stdin_paths && !c.term)
		return cli_fatal("-z only makes sense with --stdin");
	if (!c.stdin_paths && !npaths)
		return cli_fatal("no path specified");
	if (c.quiet && npaths > 1)
		return cli_fatal("--quiet is only valid with a single pathname");
	if (c.quiet && c.verbose)
		return cli_fatal("cannot have both --quiet and --verbose");
	if (c.non_matching && !c.verbose)
		return cli_fatal("--non-matching is only valid with --verbose");

	if (cli_open_repo(&repo))
		return 128;
	if (!(c.workdir = wg_repo_workdir(repo))) {
		wg_repo_free(repo);
		return cli_fatal("this operation must be run in a work tree");
	}
	/* paths are relative to here; files are read from the top, as git
	 * works once it has found the repository */
	if (cli_cwd_prefix(&prefix, c.workdir) || chdir(c.workdir)) {
		rc = cli_fatal("cannot change to '%s': %s", c.workdir, strerror(errno));
		goto done;
	}
	c.prefix = wg_buf_cstr(&prefix);
	if (!c.no_index && cli_read_index(&c.ix, repo)) {
		rc = cli_fatal_core();
		goto done;
	}
	{
		const char *env = getenv("GIT_DIR");
		if (wg_ignore_open(&c.ig, repo, env && *env ? env : NULL, warn_stderr, NULL)) {
			rc = cli_fatal_core();
			goto done;
		}
	}
	if (c.stdin_paths)
		rc = check_stdin(&c);
	else
		for (; i < argc && !rc; i++)
			rc = check_path(&c, argv[i]);
	if (!rc && fflush(stdout))
		rc = cli_fatal("write error: %s", strerror(errno));
	if (!rc)
		rc = c.ignored ? 0 : 1;
done:
	wg_ignore_free(c.ig);
	wg_index_free(c.ix);
	wg_buf_release(&c.full);
	wg_buf_release(&c.out);
	wg_buf_release(&prefix);
	wg_repo_free(repo);
	return rc;
}
