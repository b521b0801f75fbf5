/* A repository's index file (see index_file.h). */
#include "worktree/index_file.h"

#include <string.h>

#include "repo/config.h"
#include "util/error.h"
#include "util/fs.h"

int wg_repo_index_path(struct wg_buf *out, struct wg_repo *repo)
{
	wg_buf_reset(out);
	return wg_fs_join(out, wg_repo_gitdir(repo), "index");
}

int wg_repo_index_read(struct wg_index **out, struct wg_repo *repo, const char *path)
{
	struct wg_buf own = WG_BUF_INIT;
	const char *v;
	bool many = false;
	int err = 0;

	if (!path && !(err = wg_repo_index_path(&own, repo)))
		path = wg_buf_cstr(&own);
	if (!err)
		err = wg_index_read(out, wg_repo_algo(repo), path);
	wg_buf_release(&own);
	if (err || (*out)->version)
		return err;
	/* a new index: git's configured version */
	if (!wg_repo_config_get(repo, "index.version", &v) && v && v[0] >= '2' && v[0] <= '4' &&
	    !v[1])
		(*out)->version = (unsigned)(v[0] - '0');
	else if (!wg_config_get_bool(wg_repo_config(repo), "feature.manyfiles", &many) && many)
		(*out)->version = 4;
	wg_error_clear();
	return 0;
}
