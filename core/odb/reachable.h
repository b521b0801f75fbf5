/* Which objects a push must send: those reachable from some tips and not
 * from the commits the receiver already has (git rev-list --objects
 * <tips> --not <haves>). */
#ifndef WG_ODB_REACHABLE_H
#define WG_ODB_REACHABLE_H

#include <stdbool.h>

#include "hash/oid.h"
#include "object/object.h"
#include "odb/odb.h"

/* Called for each object to send; `path` (may be "") is the name it was
 * reached by, for delta grouping. Return nonzero to stop. */
typedef int (*wg_reachable_fn)(const struct wg_oid *oid, enum wg_object_type type,
			       const char *path, void *payload);
/* Called for each tree or blob the receiver has at the boundary (usable as
 * a thin-pack delta base). May be NULL. */
typedef int (*wg_boundary_fn)(const struct wg_oid *oid, const char *path, void *payload);

/* Walk commits newest first from `tips` (annotated tags are sent and
 * peeled) and `haves`; commits reachable from `haves` and every tree and
 * blob of the haves met on the way are not sent. Objects missing locally
 * under a have are simply not walked; missing under a tip is WG_ENOTFOUND. */
int wg_odb_reachable(struct wg_odb *odb, const struct wg_oid *tips, size_t ntips,
		     const struct wg_oid *haves, size_t nhaves, wg_reachable_fn fn,
		     wg_boundary_fn boundary, void *payload);

/* Is everything reachable from `tips` here (git's connectivity check after
 * a fetch)? The walk stops at what is reachable from `haves` (known to be
 * complete) and at the parents of `shallows`; with `promisor` (a partial
 * clone), missing trees and blobs are allowed. An error (WG_ENOTFOUND or
 * WG_ECORRUPT) names the first missing object. */
int wg_odb_check_connected(struct wg_odb *odb, const struct wg_oid *tips, size_t ntips,
			   const struct wg_oid *haves, size_t nhaves,
			   const struct wg_oid *shallows, size_t nshallows, bool promisor);

/* Is `ancestor` reachable from `descendant` (or equal to it)? */
int wg_odb_is_ancestor(struct wg_odb *odb, const struct wg_oid *ancestor,
		       const struct wg_oid *descendant, bool *out);

#endif
