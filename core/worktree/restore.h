/* Restore: working-tree files from the index or from a tree, and index
 * entries from a tree (--staged), for the paths a pathspec names, as
 * `git restore` does in its default no-overlay mode: a path the source
 * lacks is removed. The files are written by the checkout machinery
 * (worktree/checkout.h: streamed blobs, line-ending conversion, never
 * through a link) as a forced checkout of just these paths.
 *
 * Three steps, as a switch (worktree/switch.h), so that a blob-less
 * partial clone can fetch the blobs first: wg_restore_begin reads the
 * index and the source, matches the pathspec and plans the checkout
 * (nothing is written); wg_restore_missing lists the blobs to fetch;
 * wg_restore_finish writes the files, then the index. */
#ifndef WG_WORKTREE_RESTORE_H
#define WG_WORKTREE_RESTORE_H

#include <stdbool.h>

#include "hash/oid.h"
#include "repo/repo.h"
#include "worktree/checkout.h"
#include "util/pathspec.h"

struct wg_restore_options {
	/* What is restored: the index entries (staged), the files
	 * (worktree); neither set means the files. */
	bool staged, worktree;
	/* The tree to restore from; NULL: HEAD's for staged, else the
	 * index. */
	const struct wg_oid *source;
	/* The index file; NULL: <gitdir>/index. */
	const char *index_path;
	/* The checkout's callbacks (progress, warnings); `force` and
	 * `command` are set by the restore. */
	struct wg_checkout_options checkout;
	/* Each refusal, as git prints it after "error: " ("path 'a' is
	 * unmerged", "pathspec 'x' did not match any file(s) known to git"). */
	void (*warn)(void *payload, const char *line);
	void *payload;
};

struct wg_restore;

/* Plan. A pathspec item that matches nothing, or an unmerged path to be
 * restored from the index, refuses the whole restore: WG_ENOTFOUND, every
 * line to opts->warn and the first as the error message. WG_EINVALID
 * without a working tree, WG_ENOTFOUND for staged with no HEAD commit. */
int wg_restore_begin(struct wg_restore **out, struct wg_repo *repo, const struct wg_pathspec *ps,
		     const struct wg_restore_options *opts);
/* Blobs to write that the object database lacks. */
size_t wg_restore_missing(const struct wg_restore *r, const struct wg_oid **oids);
int wg_restore_finish(struct wg_restore *r);
void wg_restore_free(struct wg_restore *r);

#endif
