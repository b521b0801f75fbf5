/* webgit read-tree: replace the index with a tree's entries (git
 * read-tree <tree-ish>, no merging and no checkout yet). */
#include "cli.h"
#include "index/index.h"
#include "repo/revparse.h"
#include "worktree/index_tree.h"

int cmd_read_tree(int argc, char **argv)
{
	static const char usage[] = "webgit read-tree <tree-ish>";
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_buf path = WG_BUF_INIT;
	struct wg_oid oid, tree;
	int rc;

	if (argc != 2 || argv[1][0] == '-')
		return cli_usage(usage);
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (wg_revparse(&oid, repo, argv[1]))
		rc = cli_fatal("Not a valid object name %s", argv[1]);
	else if (wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE) || cli_read_index(&ix, repo) ||
		 wg_index_read_tree(ix, wg_repo_odb(repo), &tree) || cli_index_path(&path, repo) ||
		 wg_index_write(ix, wg_buf_cstr(&path)))
		rc = cli_fatal_core();
	wg_buf_release(&path);
	wg_index_free(ix);
	wg_repo_free(repo);
	return rc;
}
