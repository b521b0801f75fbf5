/* The commit node queue (see node_queue.h): a binary heap. */
#include "history/node_queue.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

/* Does a come out before b? */
static bool before(const struct wg_node_qent *a, const struct wg_node_qent *b)
{
	if (a->node->date != b->node->date)
		return a->node->date > b->node->date;
	return a->seq < b->seq;
}

int wg_node_queue_push(struct wg_node_queue *q, struct wg_commit_node *n)
{
	struct wg_node_qent e = { n, q->seq++ };
	size_t i;

	if (q->nr == q->alloc) {
		size_t a = q->alloc ? 2 * q->alloc : 64;
		struct wg_node_qent *h = wg_realloc(q->heap, a * sizeof(*h));
		if (!h)
			return wg_error_set(WG_ENOMEM, "out of memory in a history walk");
		q->heap = h;
		q->alloc = a;
	}
	if (q->stack) {
		q->heap[q->nr++] = e;
		return 0;
	}
	for (i = q->nr++; i && before(&e, &q->heap[(i - 1) / 2]); i = (i - 1) / 2)
		q->heap[i] = q->heap[(i - 1) / 2];
	q->heap[i] = e;
	return 0;
}

struct wg_commit_node *wg_node_queue_pop(struct wg_node_queue *q)
{
	struct wg_node_qent top, last;
	size_t i = 0;

	if (!q->nr)
		return NULL;
	if (q->stack)
		return q->heap[--q->nr].node;
	top = q->heap[0];
	last = q->heap[--q->nr];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->nr)
			break;
		if (c + 1 < q->nr && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->nr)
		q->heap[i] = last;
	return top.node;
}

void wg_node_queue_reverse(struct wg_node_queue *q)
{
	for (size_t i = 0, j = q->nr; i + 1 < j; i++, j--) {
		struct wg_node_qent t = q->heap[i];
		q->heap[i] = q->heap[j - 1];
		q->heap[j - 1] = t;
	}
}

void wg_node_queue_release(struct wg_node_queue *q)
{
	wg_free(q->heap);
	memset(q, 0, sizeof(*q));
}
