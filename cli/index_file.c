/* The index file a command works on: <gitdir>/index, or git's
 * GIT_INDEX_FILE when set. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "repo/repo.h"
#include "util/error.h"
#include "util/fs.h"

int cli_index_path(struct wg_buf *out, struct wg_repo *repo)
{
	const char *env = getenv("GIT_INDEX_FILE");

	wg_buf_reset(out);
	if (env && *env)
		return wg_buf_adds(out, env);
	return wg_fs_join(out, wg_repo_gitdir(repo), "index");
}

int cli_read_index(struct wg_index **out, struct wg_repo *repo)
{
	struct wg_buf path = WG_BUF_INIT;
	const char *v;
	int err = cli_index_path(&path, repo);

	if (!err)
		err = wg_index_read(out, wg_repo_algo(repo), wg_buf_cstr(&path));
	wg_buf_release(&path);
	/* a new index takes git's configured version: index.version, else 4
	 * with feature.manyFiles, else 2 (or 3, as the entries need) */
	if (!err && !(*out)->version) {
		if (!wg_repo_config_get(repo, "index.version", &v) && v && v[0] >= '2' &&
		    v[0] <= '4' && !v[1])
			(*out)->version = (unsigned)(v[0] - '0');
		else if (!wg_repo_config_get(repo, "feature.manyfiles", &v) && v &&
			 (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes") ||
			  !strcmp(v, "on")))
			(*out)->version = 4;
		wg_error_clear();
	}
	return err;
}
