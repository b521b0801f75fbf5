/* A shallow clone's cut-off commits ($GIT_DIR/shallow, one id a line):
 * git treats each as having no parents, even when a parent is in the
 * repository through another line of history. */
#ifndef WG_REPO_SHALLOW_H
#define WG_REPO_SHALLOW_H

#include "hash/oidmap.h"
#include "repo/repo.h"

/* Add the repository's shallow commits to *out (flag 1); none when the
 * file does not exist; WG_ECORRUPT for a line that is not one id. */
int wg_repo_shallow_read(struct wg_repo *repo, struct wg_oidmap *out);

#endif
