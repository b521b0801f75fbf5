/* webgit show: commits in git show's default (medium) format, each with
 * its diff against its parent (a patch by default, or the formats of
 * cli/diff_output.h; "---" before a stat that a patch follows, as git).
 * A merge shows its combined diff (--cc; -c, --diff-merges=<mode> as
 * cli/commit_output.h reads them).
 * Other objects than commits are refused. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff_output.h"
#include "commit_output.h"
#include "repo/revparse.h"
#include "util/error.h"

static const char usage[] = "webgit show [<diff options>] [<commit>...] [--] [<path>...]";

int cmd_show(int argc, char **argv)
{
	struct cli_commit_output co = { 0 };
	struct cli_diff_options o;
	struct wg_repo *repo = NULL;
	struct wg_buf out = WG_BUF_INIT;
	const char **revs = NULL;
	int nrevs = 0, rc = 0, r;
	bool first_parent = false;   /* --first-parent: a merge's diff is its first parent's */

	cli_diff_options_init(&o);
	o.raw_abbrev = -1;   /* porcelain: abbreviated ids in --raw */
	o.ui_config = true;   /* porcelain: diff.algorithm applies */
	revs = (const char **)calloc((size_t)argc + 1, sizeof(*revs));
	if (!revs)
		return cli_fatal("out of memory");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			o.paths = argv + i + 1;
			o.npaths = argc - i - 1;
			break;
		}
		if (!strcmp(argv[i], "--first-parent")) {
			first_parent = true;
			continue;
		}
		if ((r = cli_commit_output_parse_merges(&co, argc, argv, &i)) == 1 ||
		    (!r && (r = cli_diff_parse_option(&o, argc, argv, &i)) == 1) ||
		    (!r && (r = cli_pretty_parse_option(&co.pretty, argc, argv, &i)) == 1))
			continue;
		if (r) {
			free(revs);
			return r;
		}
		if (argv[i][0] == '-') {
			free(revs);
			return cli_usage(usage);
		}
		revs[nrevs++] = argv[i];
	}
	if (!nrevs)
		revs[nrevs++] = "HEAD";
	if ((r = cli_diff_options_done(&o))) {
		free(revs);
		return r;
	}
	if ((rc = cli_open_repo(&repo)))
		goto out;
	co.diff = o;
	co.diff_asked = true;
	if ((rc = cli_commit_output_merges_done(&co, repo, true, first_parent)))
		goto out;
	for (int k = 0; k < nrevs; k++) {
		struct wg_oid oid, commit;
		if (wg_revparse(&oid, repo, revs[k])) {
			rc = cli_fatal("ambiguous argument '%s': unknown revision or path not in the "
				       "working tree.", revs[k]);
			goto out;
		}
		if (wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT)) {
			rc = cli_fatal("webgit show shows commits only: '%s' is not one", revs[k]);
			goto out;
		}
		if (cli_commit_output_add(&out, repo, &co, &commit, 0)) {
			rc = cli_fatal_core();
			goto out;
		}
		if ((rc = cli_write_stdout(out.data, out.len)))
			goto out;
		wg_buf_reset(&out);
	}
out:
	fflush(stdout);
	if (!rc)
		cli_diff_warn_rename_limit();
	free(revs);
	wg_buf_release(&out);
	wg_repo_free(repo);
	return rc;
}
