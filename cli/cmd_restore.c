/* webgit restore: index entries from a tree (--staged; HEAD unless
 * --source), working-tree files from the index or from --source
 * (--worktree, the default), for the paths a pathspec names; the core's
 * worktree/restore.h does the work, this file parses and prints. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "remote_driver.h"
#include "index/index.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "worktree/restore.h"
#include "util/pathspec.h"

static void print_error(void *payload, const char *line)
{
	++*(size_t *)payload;
	fprintf(stderr, "error: %s\n", line);
}

int cmd_restore(int argc, char **argv)
{
	static const char usage[] = "webgit restore [-S | --staged] [-W | --worktree] "
				    "[-s <tree> | --source=<tree>] [--] <pathspec>...";
	struct wg_repo *repo = NULL;
	struct wg_restore_options ro = { 0 };
	struct wg_restore *r = NULL;
	struct wg_oid tree;
	const struct wg_oid *missing;
	size_t nmissing, refused = 0;
	int err;
	struct wg_pathspec ps = { 0 };
	struct wg_buf path = WG_BUF_INIT, prefix = WG_BUF_INIT;
	const char *source = NULL, *v;
	const char **items = NULL;
	size_t nitems = 0;
	bool staged = false, worktree = false, dashdash = false;
	int rc = 0, i;

	if (!(items = wg_calloc((size_t)argc + 1, sizeof(*items))))
		return cli_fatal("out of memory");
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (dashdash || s[0] != '-' || !s[1])
			items[nitems++] = s;
		else if (!strcmp(s, "--"))
			dashdash = true;
		else if (!strcmp(s, "-S") || !strcmp(s, "--staged"))
			staged = true;
		else if (!strcmp(s, "-W") || !strcmp(s, "--worktree"))
			worktree = true;
		else if (!strcmp(s, "-q") || !strcmp(s, "--quiet") || !strcmp(s, "--no-overlay"))
			;
		else if ((v = cli_option_value(argc, argv, &i, "--source")) ||
			 (v = cli_option_value(argc, argv, &i, "-s")))
			source = v;
		else if (!strncmp(s, "-s", 2))
			source = s + 2;
		else {
			rc = cli_usage(usage);
			goto out;
		}
	}
	if (!nitems) {
		rc = cli_fatal("you must specify path(s) to restore");
		goto out;
	}
	if (!worktree && !staged)
		worktree = true;
	if (!source && staged)
		source = "HEAD";
	if ((rc = cli_open_repo(&repo)))
		goto out;
	if (wg_repo_require_workdir(repo)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (cli_index_path(&path, repo) || cli_cwd_prefix(&prefix, wg_repo_workdir(repo)) ||
	    wg_pathspec_init(&ps, wg_buf_cstr(&prefix), items, nitems)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (source) {
		struct wg_oid oid;
		if (wg_revparse(&oid, repo, source) || wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE)) {
			wg_error_clear();
			rc = cli_fatal("could not resolve '%s'", source);
			goto out;
		}
	}
	ro.staged = staged;
	ro.worktree = worktree;
	ro.source = source ? &tree : NULL;
	ro.index_path = wg_buf_cstr(&path);
	ro.checkout.warn = cli_warn_plain;
	ro.warn = print_error;
	ro.payload = &refused;
	if ((err = wg_restore_begin(&r, repo, &ps, &ro))) {
		rc = refused ? 1 : err == WG_ECORRUPT ? cli_fatal("index file corrupt")
									: cli_fatal_core();
		goto out;
	}
	nmissing = wg_restore_missing(r, &missing);
	if (cli_prefetch(repo, missing, nmissing) || wg_restore_finish(r))
		rc = cli_fatal_core();
out:
	wg_restore_free(r);
	wg_pathspec_release(&ps);
	wg_buf_release(&path);
	wg_buf_release(&prefix);
	wg_free(items);
	wg_repo_free(repo);
	return rc;
}
