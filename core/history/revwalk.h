/* The revision walk of git log and git rev-list: the commits reachable
 * from some commits and not from others, in git's order, optionally
 * limited to those that changed some paths.
 *
 * Git's rules, as revision.c applies them:
 * - Order: newest committer date first, ties in the order the commits
 *   were met (the starting commits by date, then parents as their
 *   children are taken). --topo-order keeps that but never shows a parent
 *   before all its children and keeps lines of history together;
 *   --date-order never shows a parent before its children but otherwise
 *   goes by date. --reverse reverses what would be shown.
 * - Hidden commits (^rev, the left of a..b, the bases of a...b) and all
 *   their ancestors are not shown; the walk stops once everything left
 *   to walk is hidden, with git's allowance of five more commits for
 *   clock skew.
 * - Paths: a commit is shown only if it changed something the pathspec
 *   matches against its parents. A merge that has one parent with the
 *   same content there follows only that parent (history
 *   simplification, off with full_history); a root is compared with
 *   the empty tree.
 * - Missing commits (a shallow clone's boundary) end their line quietly.
 *
 * The walk is incremental (a commit at a time, git's streaming walk)
 * unless something needs the whole list first: hidden commits, a
 * topological or date order, or --reverse. */
#ifndef WG_HISTORY_REVWALK_H
#define WG_HISTORY_REVWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "hash/oidmap.h"
#include "history/commit_nodes.h"
#include "history/follow.h"
#include "odb/odb.h"

struct wg_pathspec;
struct wg_repo;

enum wg_revwalk_order {
	WG_REVWALK_ORDER_DEFAULT = 0,  /* git log's: by date, as met */
	WG_REVWALK_ORDER_TOPO,         /* --topo-order */
	WG_REVWALK_ORDER_DATE,         /* --date-order */
};

struct wg_revwalk_options {
	enum wg_revwalk_order order;
	bool first_parent;       /* follow only first parents */
	bool full_history;       /* no history simplification for paths */
	bool reverse;
	const struct wg_pathspec *paths;  /* NULL or empty: every commit */
	unsigned min_parents;    /* --merges: 2; 0: no bound */
	int max_parents;         /* --no-merges: 1; -1: no bound */
	size_t skip;             /* --skip */
	size_t max_count;        /* -n; SIZE_MAX: all */
	/* a shallow clone's cut-off commits (repo/shallow.h), which have no
	 * parents for the walk as for git; NULL: none */
	const struct wg_oidmap *shallow;
	/* git log --follow (history/follow.h): paths must hold exactly one
	 * item, the path followed. The walk is then not limited by it (git
	 * does not prune: the path changes); a commit is yielded when its
	 * diff against its first parent (a root: the empty tree) touches
	 * the path followed, renames followed as the commits are yielded.
	 * Merges have no diff, so are never yielded, unless first_parent
	 * (git's --first-parent diffs them against that parent). --skip and,
	 * with reverse, -n count the commits walked, before the diff (git
	 * counts them in get_revision); otherwise -n counts those yielded. */
	bool follow;
	int follow_score;        /* -M<n>: a source's minimum similarity; 0: 50% */
	int follow_limit;        /* diff.renameLimit; <= 0: none */
};

/* How a starting commit is taken. */
#define WG_REVWALK_HIDE 1u   /* ^rev: it and its ancestors are not shown */
#define WG_REVWALK_LEFT 2u   /* the left side of a...b */

struct wg_revwalk;

/* opts is copied (paths is not: it must outlive the walk). */
int wg_revwalk_new(struct wg_revwalk **out, struct wg_odb *odb,
		   const struct wg_revwalk_options *opts);
void wg_revwalk_free(struct wg_revwalk *w);

/* A starting commit (before the first wg_revwalk_next). A missing
 * commit is WG_ENOTFOUND. */
int wg_revwalk_push(struct wg_revwalk *w, const struct wg_oid *commit, unsigned how);
/* One revision argument as git log reads it: "rev", "^rev", "a..b"
 * (either side may be empty: HEAD), "a...b" (hides their merge bases,
 * a is the left side). `not` flips hiding, as after --not. Each rev is
 * peeled to a commit. An argument that does not name a commit is
 * WG_ENOTFOUND (the caller words git's message). */
int wg_revwalk_push_arg(struct wg_revwalk *w, struct wg_repo *repo, const char *arg, bool not);
/* Did push_arg see an a...b? (callers show --left-right markers) */
bool wg_revwalk_symmetric(const struct wg_revwalk *w);

/* Read from odb from now on: for callers that reopen the repository
 * between steps (the JS API holds it only for a batch). Its objects must
 * be those the walk was reading. */
void wg_revwalk_rebind(struct wg_revwalk *w, struct wg_odb *odb);

/* The next commit: 1 with *out set, 0 at the end. The node lives as
 * long as the walk; its parents are those the walk kept (a simplified
 * merge keeps one). */
int wg_revwalk_next(struct wg_revwalk *w, struct wg_commit_node **out);
/* The bytes of a commit the walk read lately (as a commit node does when
 * the walk meets it: the one just yielded, most often), so that what
 * prints it need not read it again; NULL when they were not kept. */
const struct wg_buf *wg_revwalk_commit_bytes(const struct wg_revwalk *w, const struct wg_oid *oid);
/* With follow: the diff of the commit wg_revwalk_next yielded last, as
 * wg_follow_diff gave it (*found: it is the rename or copy found). */
const struct wg_diff_changes *wg_revwalk_follow_changes(const struct wg_revwalk *w, bool *found);
/* With follow: the blobs the last source search lacked (when
 * wg_revwalk_next failed for want of one, fetch them and call it again:
 * the commit is tried again). */
const struct wg_oid *wg_revwalk_follow_missing(const struct wg_revwalk *w, size_t *n);
/* With follow: the path followed now (the next commit's). */
const char *wg_revwalk_follow_path(const struct wg_revwalk *w);

/* Is the commit on the left side of a...b? */
bool wg_revwalk_is_left(const struct wg_commit_node *n);

/* The count of commits the walk yields (rev-list --count), and with
 * left/right set, of each side of a...b (--left-right --count). */
int wg_revwalk_count(struct wg_revwalk *w, size_t *total, size_t *left, size_t *right);

#endif
