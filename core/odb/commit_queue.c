#include "odb/commit_queue.h"

#include <string.h>

#include "object/ident.h"
#include "util/alloc.h"
#include "util/error.h"

int wg_commit_read(struct wg_odb *odb, const struct wg_oid *oid, struct wg_commit *c,
		   struct wg_buf *buf, bool *found)
{
	enum wg_object_type type;
	int err;

	*found = false;
	wg_commit_init(c);
	err = wg_odb_read(odb, oid, &type, buf);
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	if (err)
		return err;
	if (type != WG_OBJ_COMMIT)
		return wg_error_set(WG_ECORRUPT, "%s is a %s, not a commit", wg_oid_hex(oid),
				    wg_object_type_name(type));
	if ((err = wg_commit_parse(c, wg_odb_algo(odb), buf->data, buf->len)))
		return err;
	*found = true;
	return 0;
}

uint64_t wg_commit_date(const struct wg_commit *c)
{
	struct wg_ident who;

	if (c->committer && !wg_ident_parse(&who, c->committer, strlen(c->committer)) &&
	    who.has_date)
		return who.timestamp;
	return 0;
}

int wg_commit_queue_push(struct wg_commit_queue *q, const struct wg_oid *oid, uint64_t date,
			 unsigned tag)
{
	size_t i;

	if (q->nr == q->alloc) {
		size_t a = q->alloc ? 2 * q->alloc : 64;
		struct wg_commit_qent *h = wg_realloc(q->heap, a * sizeof(*h));
		if (!h)
			return wg_error_set(WG_ENOMEM, "out of memory in a commit walk");
		q->heap = h;
		q->alloc = a;
	}
	for (i = q->nr++; i && q->heap[(i - 1) / 2].date < date; i = (i - 1) / 2)
		q->heap[i] = q->heap[(i - 1) / 2];
	q->heap[i].oid = *oid;
	q->heap[i].date = date;
	q->heap[i].tag = tag;
	return 0;
}

struct wg_commit_qent wg_commit_queue_pop(struct wg_commit_queue *q)
{
	struct wg_commit_qent top = q->heap[0], last = q->heap[--q->nr];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->nr)
			break;
		if (c + 1 < q->nr && q->heap[c + 1].date > q->heap[c].date)
			c++;
		if (q->heap[c].date <= last.date)
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->nr)
		q->heap[i] = last;
	return top;
}

void wg_commit_queue_release(struct wg_commit_queue *q)
{
	wg_free(q->heap);
	memset(q, 0, sizeof(*q));
}
