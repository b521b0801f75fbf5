/* The commits a history query has met, one node each, found by id: what
 * git keeps in its parsed-object table. A node holds what walks ask of a
 * commit again and again (its date, its parents as nodes, the walk's
 * flags), so each commit is read from the object database once per
 * query however often the walk meets it. */
#ifndef WG_HISTORY_COMMIT_NODES_H
#define WG_HISTORY_COMMIT_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "hash/oidmap.h"
#include "odb/odb.h"
#include "util/buf.h"

struct wg_commit_node {
	struct wg_oid oid;
	uint64_t date;                  /* committer date; 0 if none */
	struct wg_oid tree;
	struct wg_commit_node **parents;
	uint32_t nparents;
	unsigned flags;                 /* the walk's */
	bool parsed;                    /* date, tree and parents are set */
	bool missing;                   /* not in the object database */
	void *util;                     /* the walk's */
};

struct wg_commit_nodes {
	struct wg_odb *odb;
	struct wg_commit_node **slots;  /* open addressing, a power of two */
	size_t size, nr;
	struct wg_buf scratch;
	/* a shallow clone's cut-off commits: parsed as having no parents
	 * (NULL: none) */
	const struct wg_oidmap *shallow;
	/* arena of nodes and parent arrays */
	char **blocks;
	size_t nblocks, block_used, block_size;
	/* the bytes of the last commits parsed, a ring (none unless
	 * wg_commit_nodes_keep_recent asked for it) */
	struct wg_commit_recent *recent;
	size_t nrecent, recent_next;
};

struct wg_commit_recent {
	struct wg_oid oid;
	struct wg_buf buf;
};

static inline struct wg_odb *wg_commit_nodes_odb(const struct wg_commit_nodes *set)
{
	return set->odb;
}

void wg_commit_nodes_init(struct wg_commit_nodes *set, struct wg_odb *odb);
void wg_commit_nodes_release(struct wg_commit_nodes *set);

/* The node of `oid`, made (unparsed) on first sight. */
int wg_commit_nodes_get(struct wg_commit_nodes *set, const struct wg_oid *oid,
			struct wg_commit_node **out);
/* Keep the bytes of the last n commits parsed (a walk yields a commit
 * soon after it parsed it: the parents of the one it yielded before), so
 * that a walk that prints what it yields reads each commit once, not
 * twice; git keeps every parsed commit's buffer for the same reason. */
int wg_commit_nodes_keep_recent(struct wg_commit_nodes *set, size_t n);
/* The bytes of commit oid if it is among those kept, else NULL. */
const struct wg_buf *wg_commit_nodes_recent(const struct wg_commit_nodes *set,
					    const struct wg_oid *oid);
/* Read the commit behind n once. An object that is missing (a shallow
 * clone's boundary) leaves n->missing set and is not an error; one that
 * is not a commit is WG_ECORRUPT. */
int wg_commit_nodes_parse(struct wg_commit_nodes *set, struct wg_commit_node *n);

#endif
