/* A repository's index file: where it is and how a new one starts.
 *
 * The index lives at <gitdir>/index (the CLI honours GIT_INDEX_FILE by
 * passing its own path). A missing file reads as an empty index whose
 * format version is git's default for a new one: index.version, else 4
 * when feature.manyFiles is set, else 2 (3 when an entry needs it). */
#ifndef WG_WORKTREE_INDEX_FILE_H
#define WG_WORKTREE_INDEX_FILE_H

#include "index/index.h"
#include "repo/repo.h"
#include "util/buf.h"

int wg_repo_index_path(struct wg_buf *out, struct wg_repo *repo);
/* Read the index at `path` (NULL: the repository's own). */
int wg_repo_index_read(struct wg_index **out, struct wg_repo *repo, const char *path);

#endif
