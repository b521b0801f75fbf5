/* A branch's upstream: branch.<name>.remote and branch.<name>.merge, and
 * the remote-tracking ref they mean through the remote's fetch refspecs. */
#ifndef WG_REPO_UPSTREAM_H
#define WG_REPO_UPSTREAM_H

#include "repo/repo.h"
#include "util/buf.h"

/* The upstream of `branch` (a short name) as a full ref ("refs/remotes/
 * origin/main", or "refs/heads/x" for remote ".") and shortened
 * ("origin/main"); both empty when it has none. */
int wg_branch_upstream(struct wg_buf *full, struct wg_buf *shortname, struct wg_repo *repo,
		       const char *branch);
/* Make `branch` track the remote-tracking ref `remote_ref` ("refs/remotes/
 * <remote>/<name>"): set branch.<branch>.remote and .merge as git does and
 * write the config file. */
int wg_branch_set_upstream(struct wg_repo *repo, const char *branch, const char *remote_ref);

#endif
