/* Merge bases: the best common ancestors of commits, as git merge-base
 * finds them (commit-reach.c): paint the history down from one side and
 * the others, newest first, until only commits both reach (and their
 * ancestors, "stale") are left; those reached by both are candidates,
 * and a candidate that is an ancestor of another is dropped. The result
 * is newest first, as git lists it. A missing commit (a shallow clone's
 * boundary) ends its line of history quietly. */
#ifndef WG_HISTORY_MERGE_BASE_H
#define WG_HISTORY_MERGE_BASE_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "odb/odb.h"

struct wg_oid_list {
	struct wg_oid *v;
	size_t n, alloc;
};
void wg_oid_list_release(struct wg_oid_list *l);

/* The merge bases of `one` and all of `twos` together (git merge-base
 * one two...: the bases of one and a hypothetical merge of the twos),
 * appended to *out newest first. None: *out is unchanged. */
int wg_merge_bases(struct wg_oid_list *out, struct wg_odb *odb, const struct wg_oid *one,
		   const struct wg_oid *twos, size_t ntwos);
/* The same over the nodes a walk reads too (history/commit_nodes.h):
 * what the search reads stays read, as in git's object table, which
 * decides how far a walk's hiding reaches before it stops. Uses (and
 * clears) flag bits 16 to 19 only. */
struct wg_commit_nodes;
int wg_merge_bases_in(struct wg_oid_list *out, struct wg_commit_nodes *set,
		      const struct wg_oid *one, const struct wg_oid *twos, size_t ntwos);
/* The bases of all the commits at once (git merge-base --octopus). */
int wg_merge_bases_octopus(struct wg_oid_list *out, struct wg_odb *odb,
			   const struct wg_oid *commits, size_t n);
/* Is `ancestor` reachable from `tip` (a commit is its own ancestor)? */
int wg_is_ancestor(struct wg_odb *odb, const struct wg_oid *ancestor, const struct wg_oid *tip,
		   bool *yes);
/* Those of the commits that no other of them reaches, in their order
 * (git merge-base --independent, show-branch --independent). */
int wg_independent_commits(struct wg_oid_list *out, struct wg_odb *odb,
			   const struct wg_oid *commits, size_t n);

#endif
