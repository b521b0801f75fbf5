/* last-modified (git 2.52's `git last-modified`): for each entry of a
 * commit's tree, the commit that last changed it — what a forge's tree
 * view shows beside every file.
 *
 * git's algorithm (builtin/last-modified.c): every path starts active on
 * the commit; a commit hands each active path on to the first parent it
 * is the same as there (TREESAME), and the paths it keeps are the ones
 * it changed, reported then. One history walk answers for all paths at
 * once, newest commit first. Renames are not followed (the path is new
 * where it arrived), mode changes count. Paths a commit changed are
 * reported in git's order, which is the iteration order of git's own
 * hash table of the paths; this reproduces that table, so the output is
 * byte for byte git's.
 *
 * A shallow clone's boundary commit answers for everything still active
 * there, as git's grafts make it a root. Ranges and --max-count are not
 * here. */
#ifndef WG_HISTORY_LAST_MODIFIED_H
#define WG_HISTORY_LAST_MODIFIED_H

#include <stdbool.h>

#include "hash/oid.h"
#include "hash/oidmap.h"
#include "odb/odb.h"

struct wg_pathspec;

struct wg_last_modified_options {
	bool recursive;       /* -r: the files below trees, not the trees */
	bool show_trees;      /* -t: with -r, the trees too */
	const struct wg_pathspec *paths;   /* only these (NULL: all) */
	/* a shallow clone's cut-off commits (repo/shallow.h): they answer
	 * for all they hold, as git's grafts make them roots */
	const struct wg_oidmap *shallow;
};

/* Called once per path, in git's order. */
typedef int (*wg_last_modified_fn)(void *payload, const char *path, const struct wg_oid *commit);

int wg_last_modified(struct wg_odb *odb, const struct wg_oid *commit,
		     const struct wg_last_modified_options *opts, wg_last_modified_fn fn,
		     void *payload);

#endif
