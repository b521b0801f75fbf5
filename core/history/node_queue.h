/* git's prio_queue over commit nodes: newest committer date first, and
 * among equal dates the one put first comes out first (git breaks ties
 * by insertion order, so scripted histories with equal dates come out
 * in git's order). With by_date false it is a stack, as git's queue
 * without a compare function is (the topological sort's graph order). */
#ifndef WG_HISTORY_NODE_QUEUE_H
#define WG_HISTORY_NODE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "history/commit_nodes.h"

struct wg_node_qent {
	struct wg_commit_node *node;
	uint64_t seq;
};

struct wg_node_queue {
	struct wg_node_qent *heap;
	size_t nr, alloc;
	uint64_t seq;
	bool stack;   /* last in, first out */
};
#define WG_NODE_QUEUE_INIT { NULL, 0, 0, 0, false }

int wg_node_queue_push(struct wg_node_queue *q, struct wg_commit_node *n);
/* The next node, NULL when empty. */
struct wg_commit_node *wg_node_queue_pop(struct wg_node_queue *q);
/* Reverse the stack's order (git's prio_queue_reverse; stacks only). */
void wg_node_queue_reverse(struct wg_node_queue *q);
void wg_node_queue_release(struct wg_node_queue *q);

#endif
