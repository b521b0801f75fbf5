/* The connectivity check of a clone, done from the objects as they are
 * indexed instead of by a walk that reads them all again afterwards (what
 * git's index-pack --check-self-contained-and-connected does for git
 * clone). Every commit, tree and tag of the pack reports the objects it
 * names; at the end each named object must have arrived with the type it
 * was named with, or be allowed to be missing: the parents of shallow
 * commits, and in a partial clone (promisor) trees and blobs.
 *
 * This is stricter than a walk from the wanted tips in one way only: an
 * object in the pack that nothing wanted reaches must be complete too. */
#ifndef WG_ODB_LINK_CHECK_H
#define WG_ODB_LINK_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "hash/oidmap.h"
#include "object/object.h"

/* What the objects one recorder reports name. Recorders are the pack
 * indexer's workers (pack/indexer.h: on_object's `worker`): each records
 * into its own shard, so that they need no lock between them, and finish
 * checks every shard. */
#define WG_LINK_CHECK_SHARDS 64
struct wg_link_check_shard {
	struct wg_oidmap named;     /* named objects -> expected type bits */
	int error;                  /* sticky: a malformed object */
};

struct wg_link_check {
	const struct wg_hash_algo *algo;
	struct wg_link_check_shard shards[WG_LINK_CHECK_SHARDS];
	struct wg_oidmap shallow;   /* commits whose parents are not needed */
};

void wg_link_check_init(struct wg_link_check *lc, const struct wg_hash_algo *algo);
void wg_link_check_release(struct wg_link_check *lc);

/* A shallow commit: its parents need not arrive. Before any object is
 * reported (the recorders read this map at once). */
int wg_link_check_shallow(struct wg_link_check *lc, const struct wg_oid *commit);

/* One received commit, tree or tag, whole (blobs name nothing), recorded
 * in `shard` (< WG_LINK_CHECK_SHARDS): calls on different shards may run
 * at the same time, calls on one shard must not. */
int wg_link_check_object(struct wg_link_check *lc, unsigned shard, const struct wg_oid *oid,
			 enum wg_object_type type, const void *data, size_t len);

/* Look up what arrived: the type of `oid`, or WG_OBJ_NONE if it did not.
 * `known` false: only the received objects need be asked (the object may
 * be missing anyway, a partial clone's tree or blob: looking for it in
 * the repository too would cost a miss per object, git does not). */
typedef enum wg_object_type (*wg_link_lookup_fn)(const struct wg_oid *oid, bool known,
						 void *payload);

/* Every named object arrived with its type (or may be missing). An error
 * (WG_ENOTFOUND, WG_ECORRUPT) names the first that did not. */
int wg_link_check_finish(struct wg_link_check *lc, wg_link_lookup_fn lookup, void *payload,
			 bool promisor);

#endif
