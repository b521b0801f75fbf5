/* The diff between two revisions as `git diff <from> <to>` computes it, in
 * steps a caller without blocking I/O can drive: the tree diff (limited
 * to paths), the list of blobs it will read that a partial clone lacks
 * (to fetch them all at once, before anything reads them), rename
 * detection, then each file's patch (diff/patch.h) with its hunks handed
 * to a sink as they are printed.
 *
 * `from` and `to` are revisions naming commits or trees. Without `from`,
 * a commit is diffed against its first parent, and a commit without
 * parents (or a shallow clone's boundary) against the empty tree, as git
 * show does. */
#ifndef WG_DIFF_REV_DIFF_H
#define WG_DIFF_REV_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/patch.h"
#include "diff/tree_diff.h"
#include "repo/repo.h"
#include "util/buf.h"

struct wg_rev_diff_options {
	/* limit to these paths (a path and what is below it; none: all) */
	const char *const *paths;
	size_t npaths;
	bool renames;                     /* pair deletions with additions */
	struct wg_unified_options hunks;
	enum wg_diff_algorithm algorithm;
	enum wg_copies copies;            /* with renames: copies too (-C, -C -C) */
};
#define WG_REV_DIFF_OPTIONS_INIT \
	{ NULL, 0, true, WG_UNIFIED_OPTIONS_INIT, WG_DIFF_MYERS, WG_COPIES_NONE }

struct wg_rev_diff {
	struct wg_diff_changes changes;   /* in git's order, renames paired once asked */
	struct wg_oid from_tree, to_tree;
	bool from_empty, to_empty;        /* a side is the empty tree */
	bool renames, renames_done;
	enum wg_copies copies;
	struct wg_patch_options patch;    /* odb filled in by each call */
};

/* Resolve the revisions and diff their trees (*d is initialised here;
 * release it in any case). `from` NULL: to's first parent, or the empty
 * tree; then `to` must be a commit (WG_EINVALID otherwise). A tree the
 * repository lacks is WG_ENOTFOUND (wg_odb_last_missing names it). */
int wg_rev_diff_begin(struct wg_rev_diff *d, struct wg_repo *repo, const char *from,
		      const char *to, const struct wg_rev_diff_options *opts);

/* The same with the trees already resolved (NULL: the empty tree), for a
 * caller that walks commits (git log -p) and knows them. */
int wg_rev_diff_begin_trees(struct wg_rev_diff *d, struct wg_repo *repo,
			    const struct wg_oid *from_tree, const struct wg_oid *to_tree,
			    const struct wg_rev_diff_options *opts);

/* The same steps over a change list made elsewhere (the index's or the
 * working tree's, worktree/worktree_diff.h), whose paths are already
 * limited; *changes is taken over (and left empty). -C -C looks for
 * copies among the changed files only, as -C. */
void wg_rev_diff_begin_changes(struct wg_rev_diff *d, struct wg_repo *repo,
			       struct wg_diff_changes *changes, const struct wg_rev_diff_options *opts);

/* The blobs the diff reads that odb lacks (without repeats, submodule
 * commits left out), in an array to free with wg_free. */
int wg_rev_diff_missing(struct wg_rev_diff *d, struct wg_odb *odb, struct wg_oid **out,
			size_t *n);

/* Pair renames (once; nothing when they are off), and copies when asked,
 * with git diff's diff.renameLimit. */
int wg_rev_diff_renames(struct wg_rev_diff *d, struct wg_repo *repo);

/* Both sides' bytes of d->changes.v[i] (a submodule's as git prints it,
 * "Subproject commit <id>"), into *f with a and b holding the data. */
int wg_rev_diff_load(struct wg_diff_file *f, struct wg_buf *a, struct wg_buf *b,
		     struct wg_odb *odb, const struct wg_diff_change *c);

void wg_rev_diff_release(struct wg_rev_diff *d);

/* Whether path is one of paths or below one (all paths when n is 0). */
bool wg_diff_path_in(const char *const *paths, size_t n, const char *path);

#endif
