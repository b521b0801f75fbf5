/* Trees into the index and the index into trees: what `git read-tree
 * <tree>` and `git write-tree` do, Git-exact (the same entries, the same
 * cache tree, the same tree objects).
 *
 * Reading a tree replaces the entries (stat data zero: nothing is checked
 * out) and primes the cache tree from the tree itself, as git does for a
 * single tree; resolve-undo is cleared, the format version kept. Every
 * path is checked as git's verify_path does (object/path.h) before the
 * index changes: a tree with ".git" or ".." in it is refused.
 *
 * Writing the index as trees reuses each valid cache-tree node whose tree
 * exists, writes the others (loose objects), and leaves the cache tree
 * valid for what it wrote. Intent-to-add entries are left out of the
 * trees (their directories stay invalid in the cache tree, as in git);
 * conflict stages are refused. */
#ifndef WG_WORKTREE_INDEX_TREE_H
#define WG_WORKTREE_INDEX_TREE_H

#include "hash/oid.h"
#include "index/index.h"
#include "odb/odb.h"

int wg_index_read_tree(struct wg_index *ix, struct wg_odb *odb, const struct wg_oid *tree);
int wg_index_write_tree(struct wg_oid *out, struct wg_index *ix, struct wg_odb *odb);
/* The same, with the trees it writes added to `pretend` (a memory backend
 * attached to odb, odb/memory_backend.h) instead of the repository: the
 * tree a state of the index would have (the working tree's version of a
 * file staged in a copy of the index, for a blame), written nowhere. */
struct wg_memory_backend;
int wg_index_pretend_tree(struct wg_oid *out, struct wg_index *ix, struct wg_odb *odb,
			  struct wg_memory_backend *pretend);

#endif
