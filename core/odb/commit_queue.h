/* What commit walks share: reading a commit from the object database (a
 * missing one is not an error here; a non-commit is), its committer date,
 * and a queue that hands out the newest commit first, as git's walks do. */
#ifndef WG_ODB_COMMIT_QUEUE_H
#define WG_ODB_COMMIT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "object/commit.h"
#include "odb/odb.h"
#include "util/buf.h"

/* Parse the commit `oid` into *c (initialised here; release it in any
 * case) using `buf` as scratch. *found is false if the object is missing;
 * WG_ECORRUPT if it is not a commit. */
int wg_commit_read(struct wg_odb *odb, const struct wg_oid *oid, struct wg_commit *c,
		   struct wg_buf *buf, bool *found);
/* The committer date, 0 if it has none. */
uint64_t wg_commit_date(const struct wg_commit *c);

struct wg_commit_qent {
	struct wg_oid oid;
	uint64_t date;
	unsigned tag;        /* the caller's */
};

struct wg_commit_queue {
	struct wg_commit_qent *heap;
	size_t nr, alloc;
};
#define WG_COMMIT_QUEUE_INIT { NULL, 0, 0 }

int wg_commit_queue_push(struct wg_commit_queue *q, const struct wg_oid *oid, uint64_t date,
			 unsigned tag);
/* The newest entry's date (the queue must not be empty). */
static inline uint64_t wg_commit_queue_peek_date(const struct wg_commit_queue *q)
{
	return q->heap[0].date;
}
/* The newest entry (the queue must not be empty). */
struct wg_commit_qent wg_commit_queue_pop(struct wg_commit_queue *q);
void wg_commit_queue_release(struct wg_commit_queue *q);

#endif
