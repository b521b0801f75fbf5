/* webgit log: the commits of a revision walk (cli/rev_options.h over
 * core/history/revwalk.h) in git log's formats (cli/pretty.h), each with
 * its diff when a diff format is asked (-p, --stat, ...; merges get
 * none unless --first-parent, -c, --cc or --diff-merges asks one: see
 * cli/commit_output.h). With paths, the diff is limited to them
 * too, as git's. --follow (or log.follow with one path) follows that
 * path's renames in the core's walk (history/follow.h), which hands each
 * commit's diff over. Decorations are not printed: git prints none when its
 * output is not a terminal either. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff_output.h"
#include "commit_output.h"
#include "remote_driver.h"
#include "rev_options.h"
#include "diff/tree_diff.h"
#include "repo/config.h"
#include "util/error.h"

static const char usage[] = "webgit log [<options>] [<revision-range>] [[--] <path>...]";

int cmd_log(int argc, char **argv)
{
	struct cli_commit_output co = { 0 };
	struct cli_rev_options ro;
	struct wg_repo *repo = NULL;
	struct wg_revwalk *walk = NULL;
	struct wg_commit_node *n;
	struct wg_buf out = WG_BUF_INIT;
	bool prefetched = false;
	int rc = 0, r, follow = -1;   /* --follow, --no-follow, or log.follow */

	cli_rev_options_init(&ro, argc);
	cli_diff_options_init(&co.diff);
	co.diff.raw_abbrev = -1;
	co.diff.ui_config = true;   /* porcelain: diff.algorithm applies */
	if (!ro.revs)
		return cli_fatal("out of memory");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--follow") || !strcmp(argv[i], "--no-follow")) {
			follow = argv[i][2] == 'f';
			continue;
		}
		if ((r = cli_commit_output_parse_merges(&co, argc, argv, &i)) == 1 ||
		    (!r && (r = cli_rev_options_parse(&ro, argc, argv, &i)) == 1) ||
		    (!r && (r = cli_pretty_parse_option(&co.pretty, argc, argv, &i)) == 1))
			continue;
		/* only a format asks for a diff: -M, -w or --histogram alone
		 * print none, as git's (nor does -s: a merge of -m gets no headers) */
		if (!r && (r = cli_diff_parse_option(&co.diff, argc, argv, &i)) == 1) {
			co.diff_asked = (co.diff.formats & ~(unsigned)CLI_DIFF_NO_OUTPUT) != 0;
			continue;
		}
		if (r) {
			rc = r;
			goto out;
		}
		if (argv[i][0] == '-' && strcmp(argv[i], "--not") && strcmp(argv[i], "--all")) {
			rc = cli_usage(usage);
			goto out;
		}
		cli_rev_options_add_rev(&ro, argv[i]);
	}
	if ((rc = cli_diff_options_done(&co.diff)))
		goto out;
	if ((rc = cli_open_repo(&repo)))
		goto out;
	if ((rc = cli_commit_output_merges_done(&co, repo, false, ro.walk.first_parent)))
		goto out;
	if (follow < 0) {
		bool on = false;
		if (wg_config_get_bool(wg_repo_config(repo), "log.follow", &on) &&
		    wg_error_code() != WG_ENOTFOUND) {
			rc = cli_fatal_core();
			goto out;
		}
		wg_error_clear();
		ro.follow_one_path = on;
	}
	ro.walk.follow = follow == 1;
	if (ro.walk.follow || ro.follow_one_path) {
		/* the source search takes -M's score and diff.renameLimit */
		bool renames = true;
		int limit = 1000;
		if (wg_diff_rename_config(repo, NULL, &renames, &limit)) {
			rc = cli_fatal_core();
			goto out;
		}
		ro.walk.follow_score = co.diff.rename_score;
		ro.walk.follow_limit = limit;
	}
	if ((rc = cli_rev_options_walk(&ro, repo, &walk)))
		goto out;
	co.walk = walk;
	/* the diff keeps to the paths too */
	if (ro.pathspec.nr)
		co.diff.pathspec = &ro.pathspec;
	for (;;) {
		if ((r = wg_revwalk_next(walk, &n)) < 0 && ro.walk.follow &&
		    wg_error_code() == WG_ENOTFOUND && !prefetched) {
			/* a blob-less clone: fetch every blob the source search
			 * compares in one request, as git prefetches, and try the
			 * commit again */
			size_t nm;
			const struct wg_oid *m = wg_revwalk_follow_missing(walk, &nm);
			if (nm && !cli_prefetch(repo, m, nm)) {
				prefetched = true;
				continue;
			}
		}
		if (r <= 0)
			break;
		prefetched = false;
		char mark = ro.left_right ? (wg_revwalk_is_left(n) ? '<' : '>') : 0;
		bool paired;
		const struct wg_diff_changes *diff = ro.walk.follow
			? wg_revwalk_follow_changes(walk, &paired) : NULL;
		if (diff ? cli_commit_output_add_diff(&out, repo, &co, &n->oid, mark, diff, paired)
			 : cli_commit_output_add(&out, repo, &co, &n->oid, mark)) {
			rc = cli_fatal_core();
			goto out;
		}
		if ((rc = cli_write_stdout(out.data, out.len)))
			goto out;
		wg_buf_reset(&out);
	}
	if (r < 0)
		rc = cli_fatal_core();
out:
	fflush(stdout);
	if (!rc)
		cli_diff_warn_rename_limit();
	wg_revwalk_free(walk);
	cli_rev_options_release(&ro);
	wg_buf_release(&out);
	wg_repo_free(repo);
	return rc;
}
