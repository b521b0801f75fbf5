/* webgit write-tree: write the index as tree objects and print the top
 * tree's id (git write-tree); the index keeps the cache tree it made. */
#include <stdio.h>

#include "cli.h"
#include "index/index.h"
#include "util/error.h"
#include "worktree/index_tree.h"

int cmd_write_tree(int argc, char **argv)
{
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_buf path = WG_BUF_INIT;
	struct wg_oid tree;
	int rc;

	if (argc != 1)
		return cli_usage("webgit write-tree");
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (cli_read_index(&ix, repo) || cli_index_path(&path, repo)) {
		rc = cli_fatal_core();
	} else if (wg_index_write_tree(&tree, ix, wg_repo_odb(repo))) {
		/* git's lines: "<path>: unmerged (<id>)", "error: invalid object ..." */
		fprintf(stderr, "%s%s\n", wg_error_code() == WG_EINVALID ? "" : "error: ",
			wg_error_message());
		rc = cli_fatal("git-write-tree: error building trees");
	} else if (wg_index_write(ix, wg_buf_cstr(&path))) {
		rc = cli_fatal_core();
	} else {
		printf("%s\n", wg_oid_hex(&tree));
	}
	wg_buf_release(&path);
	wg_index_free(ix);
	wg_repo_free(repo);
	return rc;
}
