/* git log --follow: one path's history, its renames followed backwards.
 *
 * git does not limit the walk to the path (its commits are not pruned:
 * the path changes); it diffs each commit it is about to show against
 * its parent, limited to the path followed, and shows the commit only if
 * that diff is not empty (log-tree.c). When the diff is the path's
 * addition alone, git looks in the parent's tree for where the file came
 * from (tree-diff.c's try_to_follow_renames: a copy search over every
 * file of the parent, -C -C, with the one destination): if it finds a
 * rename or a copy, that pair is the commit's diff, and the path
 * followed is the old name from then on, for every commit shown after,
 * whatever line of history it is on. That is git's quirk and ours: the
 * switch is global and happens in the order commits are shown (with
 * --reverse, oldest first).
 *
 * The source search, as diffcore-rename runs it with copies:
 * - every file of the parent's tree is a source; a deleted one (not in
 *   the commit's tree) is preferred: a rename, 'R'; one still there
 *   gives a copy, 'C';
 * - exact (the same blob; other than regular files the same mode too):
 *   the best of (deleted) + (same basename), the first in path order on
 *   ties, among at most 100 candidates;
 * - else the four sources most similar to the file (ties: the same
 *   basename first, then path order), a deleted one at the minimum score
 *   or more first, else the best of them at the minimum score or more. */
#ifndef WG_HISTORY_FOLLOW_H
#define WG_HISTORY_FOLLOW_H

#include <stdbool.h>

#include "diff/tree_diff.h"
#include "hash/oid.h"
#include "odb/odb.h"
#include "util/pathspec.h"

struct wg_follow {
	/* the path followed: the item given, then each old name taken
	 * literally (git re-parses it with PATHSPEC_LITERAL_PATH) */
	struct wg_pathspec path;
	int min_score;   /* 0..WG_RENAME_MAX_SCORE: -M<n>, else 50% */
	/* a source search over more files than limit squared skips the
	 * files left unchanged; over that too, it finds nothing (git's
	 * rename limit, diff.renameLimit) */
	int limit;
	/* the blobs the last inexact search read that the odb lacked when it
	 * began (a blob-less clone's: a driver that cannot fetch while a
	 * read waits fetches these at once and tries again) */
	struct wg_oid *missing;
	size_t nmissing;
};

/* Follow the one item `path` (a pathspec item from the top, as
 * wg_pathspec_init takes it). min_score 0: 50%; limit <= 0: none. */
int wg_follow_init(struct wg_follow *f, const char *path, int min_score, int limit);
void wg_follow_release(struct wg_follow *f);

/* The blobs the last search found missing (see struct wg_follow). */
const struct wg_oid *wg_follow_missing(const struct wg_follow *f, size_t *n);

/* The path followed now. */
const char *wg_follow_path(const struct wg_follow *f);

/* The diff git log --follow shows for a commit whose tree is `tree`
 * against its parent's `parent_tree` (NULL: a root, against the empty
 * tree), appended to *out: the changes the path followed matches, in
 * git's order, renames not paired, except that a lone addition with a
 * source found is that one 'R' or 'C' pair (*found set; the path
 * followed is then the source's). Nothing appended: the commit is not
 * shown. Blobs are read only for the inexact search (all the
 * parent's regular files then, as git prefetches them). On an error the
 * path followed is unchanged: the call can be made again. */
int wg_follow_diff(struct wg_follow *f, struct wg_odb *odb, const struct wg_oid *parent_tree,
		   const struct wg_oid *tree, struct wg_diff_changes *out, bool *found);

#endif
