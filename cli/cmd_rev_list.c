/* webgit rev-list: the ids of a revision walk (cli/rev_options.h), one a
 * line (with "<" / ">" before them under --left-right), or their count
 * (--count; "<left>\t<right>" with --left-right). Objects (--objects)
 * are not listed here. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rev_options.h"
#include "util/error.h"

static const char usage[] = "webgit rev-list [<options>] <commit>... [--] [<path>...]";

int cmd_rev_list(int argc, char **argv)
{
	struct cli_rev_options ro;
	struct wg_repo *repo = NULL;
	struct wg_revwalk *walk = NULL;
	struct wg_commit_node *n;
	struct wg_buf out = WG_BUF_INIT;
	bool count = false;
	int rc = 0, r;

	cli_rev_options_init(&ro, argc);
	if (!ro.revs)
		return cli_fatal("out of memory");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count")) {
			count = true;
			continue;
		}
		if ((r = cli_rev_options_parse(&ro, argc, argv, &i)) == 1)
			continue;
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
	if (!ro.nrevs) {
		rc = cli_usage(usage);
		goto out;
	}
	if ((rc = cli_open_repo(&repo)) || (rc = cli_rev_options_walk(&ro, repo, &walk)))
		goto out;
	if (count) {
		size_t total, left, right;
		if (wg_revwalk_count(walk, &total, &left, &right)) {
			rc = cli_fatal_core();
			goto out;
		}
		if (ro.left_right)
			printf("%zu\t%zu\n", left, right);
		else
			printf("%zu\n", total);
		goto out;
	}
	while ((r = wg_revwalk_next(walk, &n)) > 0) {
		if (ro.left_right)
			wg_buf_adds(&out, wg_revwalk_is_left(n) ? "<" : ">");
		wg_buf_adds(&out, wg_oid_hex(&n->oid));
		wg_buf_addch(&out, '\n');
		if (out.len > 65536) {
			if ((rc = cli_write_stdout(out.data, out.len)))
				goto out;
			wg_buf_reset(&out);
		}
	}
	if (r < 0) {
		rc = cli_fatal_core();
		goto out;
	}
	rc = cli_write_stdout(out.data, out.len);
out:
	fflush(stdout);
	wg_revwalk_free(walk);
	cli_rev_options_release(&ro);
	wg_buf_release(&out);
	wg_repo_free(repo);
	return rc;
}
