/* The index file a command works on: <gitdir>/index, or git's
 * GIT_INDEX_FILE when set. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "repo/repo.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/index_file.h"

int cli_index_path(struct wg_buf *out, struct wg_repo *repo)
{
	const char *env = getenv("GIT_INDEX_FILE");

	wg_buf_reset(out);
	if (env && *env)
		return wg_buf_adds(out, env);
	return wg_repo_index_path(out, repo);
}

int cli_read_index(struct wg_index **out, struct wg_repo *repo)
{
	struct wg_buf path = WG_BUF_INIT;
	int err = cli_index_path(&path, repo);

	if (!err)
		err = wg_repo_index_read(out, repo, wg_buf_cstr(&path));
	wg_buf_release(&path);
	return err;
}
