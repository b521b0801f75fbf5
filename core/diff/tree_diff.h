/* Tree diffs: what changed between two trees, path by path, as git's
 * diff-tree -r finds it (identical subtrees skipped by id, a file that
 * became a directory a deletion and additions), then with renames paired
 * as git's diffcore-rename pairs them (diff/rename.h). The list is what
 * git's diff queue holds: in path order, a rename at its new path. The
 * base of commit summaries now, of diff, show and log -p later. */
#ifndef WG_DIFF_TREE_DIFF_H
#define WG_DIFF_TREE_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/rename.h"
#include "hash/oid.h"
#include "odb/odb.h"
#include "repo/repo.h"

struct wg_diff_change {
	/* 'A', 'D', 'M', 'T' (type changed), 'R', 'C' (copied: -C, and log
	 * --follow's pair, history/follow.h); '=' an unchanged file, listed
	 * only for -C -C's sources until renames are paired */
	char status;
	char *path;                /* the new path ('D': the old one) */
	char *from;                /* 'R', 'C': the old path; NULL otherwise */
	unsigned old_mode, new_mode;       /* 0: absent */
	struct wg_oid old_oid, new_oid;    /* null when absent */
	int score;                 /* 'R', 'C': similarity, 0..WG_RENAME_MAX_SCORE */
	/* the new side is a working-tree file that no longer holds its index
	 * entry: new_oid is what git add would store, not stored (git diff's
	 * --raw shows the null id for it unless rename detection read it;
	 * an intent-to-add file's is shown, and not flagged) */
	bool new_in_worktree;
};

struct wg_diff_changes {
	struct wg_diff_change *v;
	size_t n, alloc;
	/* renames were not looked for among all candidates: the limit that
	 * would have allowed it (git warns), else 0 */
	size_t rename_limit_needed;
	/* -C -C looked only at modified sources for the limit (git warns) */
	bool copies_degraded;
};

struct wg_pathspec;

struct wg_tree_diff_options {
	bool renames;                   /* pair deletions with additions */
	struct wg_rename_options rename;
	/* Only paths these match, and only directories something below may
	 * match are read (git's tree_entry_interesting); NULL: all. */
	const struct wg_pathspec *paths;
	/* Stop at the first change (git's diff "quick": a history walk asks
	 * only whether a commit touched the paths). */
	bool quick;
	/* List unchanged files too, as '=' (-C -C's sources for a caller
	 * that pairs renames itself; with renames and copies harder they
	 * are listed and dropped again here). */
	bool unmodified;
};

/* The changes from old_tree (NULL: the empty tree) to new_tree (NULL:
 * the empty tree), appended to *out. Trees nested deeper than the object
 * database's limit are refused (WG_ELIMIT). */
int wg_diff_trees(struct wg_diff_changes *out, struct wg_odb *odb, const struct wg_oid *old_tree,
		  const struct wg_oid *new_tree, const struct wg_tree_diff_options *opts);
/* Pair the deletions with the additions among c->v[first..] (a rename
 * replaces both, at the addition's place; a copy only the addition), as
 * wg_diff_trees does with renames on; for callers that limit the changes
 * to paths first. With ro->copies, modified ('M', 'T') files are sources
 * too, and with WG_COPIES_HARDER the unchanged ('=') ones; '=' entries
 * are dropped in any case. */
int wg_diff_find_renames(struct wg_diff_changes *c, size_t first, struct wg_odb *odb,
			 const struct wg_rename_options *ro);
/* Append a change (an absent side: mode 0 and a NULL id, left zero). */
int wg_diff_changes_add(struct wg_diff_changes *c, char status, const char *path,
			unsigned old_mode, const struct wg_oid *old_oid, unsigned new_mode,
			const struct wg_oid *new_oid);
void wg_diff_changes_release(struct wg_diff_changes *c);

/* Rename detection as configured: <section>.renames then diff.renames
 * (on by default; "copies" counts as on), <section>.renameLimit then
 * diff.renameLimit (1000 by default). section NULL: diff.* only. A bad
 * boolean is WG_EINVALID. */
int wg_diff_rename_config(struct wg_repo *repo, const char *section, bool *on, int *limit);
/* The same, with *copies set when the value is "copies" or "copy"
 * (git's DIFF_DETECT_COPY; -C's sources). */
int wg_diff_copies_config(struct wg_repo *repo, const char *section, bool *on, bool *copies,
			  int *limit);

#endif
