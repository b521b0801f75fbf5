/* webgit rm: remove paths from the index and the working tree (git rm:
 * --cached, -r, -f/--force, -q/--quiet, -n/--dry-run), with git's
 * output, refusals and exit codes, over worktree/index_update.h. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "repo/repo.h"
#include "util/error.h"
#include "worktree/index_update.h"

struct rm_state {
	bool quiet;
};

static void rm_report(void *payload, char action, const char *path)
{
	const struct rm_state *s = payload;
	if (action == 'r' && !s->quiet)
		printf("rm '%s'\n", path);
}

static void rm_refusal(void *payload, const char *block)
{
	(void)payload;
	fprintf(stderr, "error: %s\n", block);
}

int cmd_rm(int argc, char **argv)
{
	static const char usage[] = "webgit rm [-f | --force] [-n] [-r] [--cached] [-q | --quiet] "
				    "[--] [<pathspec>...]";
	struct wg_index_update_options opts = { 0 };
	struct rm_state st = { false };
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_buf path = WG_BUF_INIT, prefix = WG_BUF_INIT;
	bool cached = false, recursive = false, force = false;
	int rc = 0, err, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--cached"))
			cached = true;
		else if (!strcmp(a, "--force"))
			force = true;
		else if (!strcmp(a, "--quiet"))
			st.quiet = true;
		else if (!strcmp(a, "--dry-run"))
			opts.dry_run = true;
		else if (a[1] == '-')
			return cli_usage(usage);
		else
			for (const char *c = a + 1; *c; c++) {
				switch (*c) {
				case 'r': recursive = true; break;
				case 'f': force = true; break;
				case 'q': st.quiet = true; break;
				case 'n': opts.dry_run = true; break;
				default: return cli_usage(usage);
				}
			}
	}
	if (i >= argc)
		return cli_fatal("No pathspec was given. Which files should I remove?");
	if (cli_open_repo(&repo))
		return 128;
	if (wg_repo_require_workdir(repo)) {
		wg_repo_free(repo);
		return cli_fatal_core();
	}
	opts.report = rm_report;
	opts.warn = rm_refusal;
	opts.payload = &st;
	if (cli_cwd_prefix(&prefix, wg_repo_workdir(repo))) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	opts.prefix = wg_buf_cstr(&prefix);
	if (cli_read_index(&ix, repo)) {
		rc = cli_fatal_core();
		goto out;
	}
	err = wg_index_remove_paths(repo, ix, (const char *const *)argv + i, (size_t)(argc - i),
				    cached, recursive, force, &opts);
	fflush(stdout);
	if (err == WG_EEXISTS) {
		rc = 1;  /* the refusal is printed */
		goto out;
	}
	if (err) {
		const char *msg = wg_error_message();
		if (err == WG_EINVALID && strstr(msg, "is outside repository"))
			rc = cli_fatal("%s at '%s'", msg, wg_repo_workdir(repo));
		else
			rc = cli_fatal_core();
		/* the first file could not go: nothing was removed, and the
		 * index is not written (git dies there too) */
		goto out;
	}
	if (!opts.dry_run &&
	    (cli_index_path(&path, repo) || wg_index_write(ix, wg_buf_cstr(&path))))
		rc = cli_fatal_core();
out:
	wg_buf_release(&path);
	wg_buf_release(&prefix);
	wg_index_free(ix);
	wg_repo_free(repo);
	return rc;
}
