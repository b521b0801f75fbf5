/* How the pack layer reads objects it does not hold itself: the bases of a
 * thin pack (the indexer) and the objects a pack is made of (the writer).
 * The object database sits above the pack layer (odb/ reads packs), so the
 * pack layer must not call it; whoever owns both hands the pack layer this
 * small interface instead (odb/odb.h: wg_odb_object_source()). Tests can
 * serve objects from memory the same way. */
#ifndef WG_PACK_OBJECT_SOURCE_H
#define WG_PACK_OBJECT_SOURCE_H

#include <stddef.h>

#include "hash/oid.h"
#include "object/object.h"
#include "util/buf.h"

struct wg_object_source {
	const struct wg_hash_algo *algo;
	void *payload;
	/* The whole object into out (reset first); WG_ENOTFOUND if absent. */
	int (*read)(void *payload, const struct wg_oid *oid, enum wg_object_type *type_out,
		    struct wg_buf *out);
	/* Type and size, without the content where the source allows it. */
	int (*read_header)(void *payload, const struct wg_oid *oid,
			   enum wg_object_type *type_out, size_t *size_out);
};

#endif
