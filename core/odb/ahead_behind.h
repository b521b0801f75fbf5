/* How far two commits have gone apart: the commits reachable from one and
 * not the other, each way (git rev-list --left-right --count a...b), as
 * `git status` and `git checkout` report a branch against its upstream.
 *
 * The walk is git's: newest first from both sides, painting each commit
 * with the side(s) that reach it, until every commit still queued is
 * reached from both (all older ones are then common). Missing commits (a
 * shallow clone's boundary) end their line quietly. */
#ifndef WG_ODB_AHEAD_BEHIND_H
#define WG_ODB_AHEAD_BEHIND_H

#include <stddef.h>

#include "hash/oid.h"
#include "odb/odb.h"

int wg_ahead_behind(struct wg_odb *odb, const struct wg_oid *a, const struct wg_oid *b,
		    size_t *ahead, size_t *behind);

#endif
