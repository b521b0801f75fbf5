/* History edits as Jujutsu makes them (jj describe, jj split): one commit
 * is replaced, and every commit of the local history that descends from
 * it is rewritten onto its replacement, so that no local branch (and no
 * detached HEAD) is left on the old commit. There is no rebase to finish
 * and nothing to resolve: a reword keeps every tree, and a split ends
 * with the tree the commit had, so each descendant keeps its tree and
 * only its parents change.
 *
 * What is rewritten: the commits reachable from the local branches (refs/heads/) and HEAD
 * that have the edited commit as an ancestor (git rev-list
 * --ancestry-path <commit>..<those tips>), parents first. Each keeps its
 * author, message and extra headers (mergetag...), except signatures
 * (gpgsig, gpgsig-sha256), which no longer hold, as git rebase drops
 * them; its committer becomes the one given, as a rebase makes it. The
 * commit must be on a local branch or HEAD (WG_ENOTFOUND otherwise).
 *
 * Published history is refused, as Jujutsu's immutable commits are: a
 * commit a remote-tracking branch (refs/remotes/) or a tag holds is
 * WG_EINVALID unless allow_published (rewriting it means a forced push).
 *
 * The refs move in one transaction, each from the value read at the
 * start (a concurrent change is refused, not lost), with the reflog
 * message "reword: <subject>" or "split: <subject>"; the branch HEAD is
 * on moves through HEAD, so HEAD's reflog has the entry too. The index
 * and the working tree are not touched: HEAD's tree is unchanged. */
#ifndef WG_WORKTREE_HISTORY_EDIT_H
#define WG_WORKTREE_HISTORY_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "repo/repo.h"

struct wg_pathspec;

struct wg_history_edit_options {
	/* "Name <email> <time> <tz>" of the rewritten commits (required) */
	const char *committer;
	bool allow_published;
	/* reword: the new message (cleaned as git commit -m cleans it;
	 * empty is WG_EINVALID). split: the second commit's message; NULL
	 * keeps the commit's own. */
	const char *message;
	size_t message_len;
	/* split only: the paths whose changes go into the first commit
	 * whole, parts of files (below), and the first commit's message
	 * (NULL: the commit's own) */
	const struct wg_pathspec *paths;
	const struct wg_split_hunks *hunks;
	size_t nhunks;
	const char *first_message;
	size_t first_message_len;
};

/* Part of a file's change for a split's first commit: the hunks numbered
 * in `hunks` (from 0, in order) of the diff of the file's two versions
 * as git diff -U0 shows it (each hunk one change; git's default
 * algorithm), the rest left for the second commit. A regular file, added,
 * modified or deleted (deleted: only when every hunk is taken), not
 * binary; a path listed here is not also taken whole by `paths`. */
struct wg_split_hunks {
	const char *path;
	const unsigned *hunks;
	size_t n;
};

/* What an edit did: each rewritten commit's old and new id, parents
 * first (the edited commit first), the split's first commit, and the
 * refs moved. */
struct wg_history_rewrite {
	struct wg_oid *old_ids, *new_ids;
	size_t nr;
	struct wg_oid first;   /* split: the new first commit; null for a reword */
	char **refs;
	size_t nrefs;
};

void wg_history_rewrite_release(struct wg_history_rewrite *rw);

/* Give `commit` a new message (opts->message). */
int wg_history_reword(struct wg_history_rewrite *out, struct wg_repo *repo,
		      const struct wg_oid *commit, const struct wg_history_edit_options *opts);

/* Split `commit` (not a merge) in two: first its changes to the paths
 * opts->paths matches and the hunks opts->hunks names, then the rest.
 * WG_EINVALID when nothing or everything is taken (one of the two would
 * be empty), for a hunk that is not there, or when the first commit's
 * tree would have a file and a directory at one path. */
int wg_history_split(struct wg_history_rewrite *out, struct wg_repo *repo,
		     const struct wg_oid *commit, const struct wg_history_edit_options *opts);

#endif
