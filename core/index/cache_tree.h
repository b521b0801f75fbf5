/* The index's cache tree (the TREE extension, gitformat-index(5)): for
 * each directory, the tree object its span of index entries would write,
 * when known. It lets a commit skip rewriting unchanged trees, and a
 * comparison with a tree skip equal directories. A change under a
 * directory invalidates its node and every node above it (entry_count
 * -1), as git does; what git wrote is written back unchanged. */
#ifndef WG_INDEX_CACHE_TREE_H
#define WG_INDEX_CACHE_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "util/buf.h"

struct wg_cache_tree {
	char *name;                  /* this directory's name in its parent ("" at the top) */
	size_t name_len;
	int entry_count;             /* index entries below it; -1: invalid (no oid) */
	struct wg_oid oid;
	struct wg_cache_tree **sub;  /* in the order git keeps them (by name length, then bytes) */
	size_t nsub;
	bool used;                   /* scratch: write-tree marks the subtrees it keeps */
};

/* Parse the extension's data. WG_ECORRUPT if it is malformed. */
int wg_cache_tree_parse(struct wg_cache_tree **out, const struct wg_hash_algo *algo,
			const unsigned char *data, size_t len);
/* Append the extension's data (without its header). */
int wg_cache_tree_serialize(struct wg_buf *out, const struct wg_cache_tree *ct);
/* Invalidate the nodes along path (a file's path: its directories). */
void wg_cache_tree_invalidate(struct wg_cache_tree *ct, const char *path, size_t len);
void wg_cache_tree_free(struct wg_cache_tree *ct);

#endif
