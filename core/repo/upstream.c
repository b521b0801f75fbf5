/* A branch's upstream (see upstream.h). */
#include "repo/upstream.h"

#include <string.h>

#include "refs/refname.h"
#include "refs/refspec.h"
#include "repo/config.h"
#include "util/error.h"
#include "util/fs.h"

struct map_payload {
	struct wg_buf *out;
	const char *merge;
};

/* The first fetch refspec that maps the merge ref wins, as in git. */
static int map_by_fetch_spec(const char *value, void *payload)
{
	struct map_payload *p = payload;
	struct wg_refspec rs;
	if (p->out->len || wg_refspec_parse(&rs, value))
		return 0;
	wg_refspec_map(&rs, p->merge, p->out);
	wg_refspec_release(&rs);
	return 0;
}

int wg_branch_upstream(struct wg_buf *full, struct wg_buf *shortname, struct wg_repo *repo,
		       const char *branch)
{
	struct wg_buf key = WG_BUF_INIT;
	const char *remote = NULL, *merge = NULL;
	int err = 0;

	wg_buf_reset(full);
	wg_buf_reset(shortname);
	if (wg_buf_printf(&key, "branch.%s.remote", branch) ||
	    wg_repo_config_get(repo, wg_buf_cstr(&key), &remote) || !remote)
		goto out;
	wg_buf_reset(&key);
	if (wg_buf_printf(&key, "branch.%s.merge", branch) ||
	    wg_repo_config_get(repo, wg_buf_cstr(&key), &merge) || !merge)
		goto out;
	if (!strcmp(remote, ".")) {
		err = wg_buf_adds(full, merge);
	} else {
		struct map_payload p = { full, merge };
		wg_buf_reset(&key);
		if (!(err = wg_buf_printf(&key, "remote.%s.fetch", remote)))
			wg_config_get_all(wg_repo_config(repo), wg_buf_cstr(&key),
					  map_by_fetch_spec, &p);
	}
	if (!err && full->len)
		err = wg_refname_shorten(shortname, wg_buf_cstr(full));
out:
	if (!err)
		wg_error_clear();
	wg_buf_release(&key);
	return err;
}

int wg_branch_set_upstream(struct wg_repo *repo, const char *branch, const char *remote_ref)
{
	struct wg_config *cfg = wg_repo_config(repo);
	struct wg_buf k = WG_BUF_INIT, v = WG_BUF_INIT, path = WG_BUF_INIT;
	const char *rest = remote_ref + strlen("refs/remotes/"), *slash;
	int err;

	if (strncmp(remote_ref, "refs/remotes/", 13) || !(slash = strchr(rest, '/')))
		return wg_error_set(WG_EINVALID, "'%s' is not a remote-tracking branch",
				    remote_ref);
	if ((err = wg_buf_printf(&k, "branch.%s.remote", branch)) ||
	    (err = wg_buf_add(&v, rest, (size_t)(slash - rest))) ||
	    (err = wg_config_set_string(cfg, wg_buf_cstr(&k), wg_buf_cstr(&v))))
		goto out;
	wg_buf_reset(&k);
	wg_buf_reset(&v);
	if ((err = wg_buf_printf(&k, "branch.%s.merge", branch)) ||
	    (err = wg_buf_printf(&v, "refs/heads/%s", slash + 1)) ||
	    (err = wg_config_set_string(cfg, wg_buf_cstr(&k), wg_buf_cstr(&v))) ||
	    (err = wg_fs_join(&path, wg_repo_gitdir(repo), "config")))
		goto out;
	err = wg_config_write_file(cfg, wg_buf_cstr(&path));
out:
	wg_buf_release(&k);
	wg_buf_release(&v);
	wg_buf_release(&path);
	return err;
}
