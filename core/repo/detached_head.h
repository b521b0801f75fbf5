/* What a detached HEAD was checked out as: the label git status and git
 * branch print ("HEAD detached at v1.0", "(HEAD detached from 1234abc)"). */
#ifndef WG_REPO_DETACHED_HEAD_H
#define WG_REPO_DETACHED_HEAD_H

#include <stdbool.h>

#include "repo/repo.h"
#include "util/buf.h"

/* git's wt_status_get_detached_from: the newest "checkout: moving from X
 * to Y" of HEAD's reflog. `name` gets Y shortened (refs/tags/ and
 * refs/remotes/ dropped) when Y is a ref that one of git's lookup rules,
 * and only one, matches and that still points at the commit the entry
 * moved to; else it stays empty and the caller abbreviates *oid, that
 * commit. *at: HEAD (`head`) is still that commit ("at", else "from").
 * Returns 1 when found, 0 when the reflog says nothing, <0 on error. */
int wg_detached_head_label(struct wg_buf *name, struct wg_oid *oid, bool *at,
			   struct wg_repo *repo, const struct wg_oid *head);

#endif
