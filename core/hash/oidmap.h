/* A set of object ids with a few flag bits each (open addressing), for
 * walks that meet millions of objects. */
#ifndef WG_HASH_OIDMAP_H
#define WG_HASH_OIDMAP_H

#include <stddef.h>

#include "hash/oid.h"

struct wg_oidmap {
	struct wg_oid *keys;
	unsigned *flags;
	size_t size;      /* slots, a power of two (0: empty) */
	size_t nr;
};
#define WG_OIDMAP_INIT { NULL, NULL, 0, 0 }

void wg_oidmap_release(struct wg_oidmap *m);
/* The flags of `oid` (0 if absent). */
unsigned wg_oidmap_get(const struct wg_oidmap *m, const struct wg_oid *oid);
/* Add `bits` to the flags of `oid` (inserting it); *old (may be NULL)
 * receives the flags it had. */
int wg_oidmap_set(struct wg_oidmap *m, const struct wg_oid *oid, unsigned bits, unsigned *old);

#endif
