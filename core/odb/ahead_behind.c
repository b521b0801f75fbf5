#include "odb/ahead_behind.h"

#include <stdbool.h>

#include "hash/oidmap.h"
#include "odb/commit_queue.h"
#include "util/error.h"

#define LEFT 1u
#define RIGHT 2u
#define BOTH (LEFT | RIGHT)

/* Queue oid for side `bits` unless it already has them; counts how many
 * queued entries are not yet reached from both sides. */
static int paint(struct wg_commit_queue *q, struct wg_oidmap *seen, const struct wg_oid *oid,
		 unsigned bits, uint64_t date, size_t *live)
{
	unsigned old;
	int err;
	if ((err = wg_oidmap_set(seen, oid, bits, &old)))
		return err;
	if ((old | bits) == old)
		return 0;
	if ((err = wg_commit_queue_push(q, oid, date, old | bits)))
		return err;
	if ((old | bits) != BOTH)
		(*live)++;
	return 0;
}

int wg_ahead_behind(struct wg_odb *odb, const struct wg_oid *a, const struct wg_oid *b,
		    size_t *ahead, size_t *behind)
{
	struct wg_commit_queue q = WG_COMMIT_QUEUE_INIT;
	struct wg_oidmap seen = WG_OIDMAP_INIT;
	struct wg_buf buf = WG_BUF_INIT;
	size_t live = 0;
	uint64_t single_date = UINT64_MAX;
	int err;

	*ahead = *behind = 0;
	if ((err = paint(&q, &seen, a, LEFT, UINT64_MAX, &live)) ||
	    (err = paint(&q, &seen, b, RIGHT, UINT64_MAX, &live)))
		goto out;
	/* Until nothing queued is reached from one side only; then on while
	 * the entries that spread both sides are not older than a commit
	 * found from one side only: with equal (or skewed) dates such a
	 * commit may have been taken before the other side reached it, and
	 * it counts only if that side never does (git's walk goes on for
	 * the same reason). */
	while (q.nr && (live || wg_commit_queue_peek_date(&q) >= single_date)) {
		struct wg_commit_qent e = wg_commit_queue_pop(&q);
		/* the flags it has now: reached from the other side since it
		 * was queued, it spreads both */
		unsigned flags = wg_oidmap_get(&seen, &e.oid);
		struct wg_commit c;
		bool found;
		if (e.tag != BOTH)
			live--;
		if (flags != BOTH && e.date < single_date)
			single_date = e.date;
		err = wg_commit_read(odb, &e.oid, &c, &buf, &found);
		if (!err && found) {
			uint64_t date = wg_commit_date(&c);
			for (size_t i = 0; i < c.nparents && !err; i++)
				err = paint(&q, &seen, &c.parents[i], flags, date, &live);
		}
		wg_commit_release(&c);
		if (err)
			goto out;
	}
	for (size_t i = 0; i < seen.size; i++) {
		if (seen.flags[i] == LEFT)
			(*ahead)++;
		else if (seen.flags[i] == RIGHT)
			(*behind)++;
	}
out:
	wg_commit_queue_release(&q);
	wg_oidmap_release(&seen);
	wg_buf_release(&buf);
	return err;
}
