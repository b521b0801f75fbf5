/* Status: what differs between HEAD's tree and the index (staged), between
 * the index and the working tree (not staged), and which files are
 * untracked or ignored, as git status computes it (wt-status.c), so that
 * its porcelain formats can be printed byte for byte.
 *
 * Stat data first: a file is read only when its stat data cannot say
 * (changed timestamps, a racily clean entry, an entry fresh from a tree).
 * Files found unchanged by content get their stat data refreshed in the
 * index (`refreshed` says so), which the caller writes back as git status
 * does, so that the next status reads nothing.
 *
 * Renames between HEAD and the index are found as git status finds them
 * (diff/rename.h; status.renames, diff.renames, status.renameLimit,
 * diff.renameLimit), the deleted path folded into the added one.
 *
 * Not yet: renames between the index and the working tree (git finds
 * them only for intent-to-add entries), copies, and submodule states (a
 * gitlink is compared by its directory only). An intent-to-add entry
 * (add -N) is no staged change and a new file in the working tree ('.A'),
 * or '.D' when its file is gone, as git shows it. */
#ifndef WG_WORKTREE_STATUS_H
#define WG_WORKTREE_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "index/index.h"
#include "repo/repo.h"
#include "worktree/ignore.h"

enum wg_status_untracked { WG_UNTRACKED_NO, WG_UNTRACKED_NORMAL, WG_UNTRACKED_ALL };

struct wg_status_options {
	enum wg_status_untracked untracked;
	bool ignored;               /* list ignored files (git's --ignored) */
	struct wg_ignore *ignore;   /* the rules; NULL: nothing is ignored */
	void (*warn)(void *payload, const char *line);
	void *payload;
	/* Rename detection: -1 as configured (on by default), 0 off, 1 on;
	 * the minimum similarity (0: 50%, else 1..WG_RENAME_MAX_SCORE) */
	int renames;
	int rename_score;
};
#define WG_STATUS_OPTIONS_INIT { WG_UNTRACKED_NORMAL, false, NULL, NULL, NULL, -1, 0 }

/* One path. For a tracked path, `x` is the staged change ('.' none, 'M',
 * 'T' type, 'A', 'D', 'R' renamed) and `y` the unstaged one ('.', 'M', 'T', 'D'); a
 * conflict has both from git's table ("UU", "AA", "DU", ...) and
 * `unmerged` set. `x` is '?' for an untracked and '!' for an ignored path
 * (a directory's path then ends with '/'). */
struct wg_status_entry {
	char *path;
	char x, y;
	bool unmerged;
	unsigned mode_head, mode_index, mode_worktree;   /* 0: absent */
	struct wg_oid oid_head, oid_index;               /* null when absent */
	/* a rename (x 'R'): the path it came from (HEAD's mode and id are
	 * that path's) and git's similarity in percent */
	char *from;
	int score;
	/* a conflict's stages 1-3 (mode 0: absent) */
	unsigned stage_mode[3];
	struct wg_oid stage_oid[3];
};

struct wg_status {
	struct wg_status_entry *v;  /* tracked changes by path, then untracked, then ignored */
	size_t n, alloc;
	bool refreshed;             /* stat data in the index was brought up to date */
	size_t rename_limit_needed; /* > 0: renames skipped, the limit that would do (git warns) */
};

/* The status of the working tree of `repo` against `ix` (its index, whose
 * stat data may be refreshed) and `head_tree` (NULL: no commit yet). */
int wg_status_collect(struct wg_status **out, struct wg_repo *repo, struct wg_index *ix,
		      const struct wg_oid *head_tree, const struct wg_status_options *opts);
void wg_status_free(struct wg_status *st);

#endif
