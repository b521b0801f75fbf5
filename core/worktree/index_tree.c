#include "worktree/index_tree.h"

#include <stdint.h>
#include <string.h>

#include "index/cache_tree.h"
#include "index/resolve_undo.h"
#include "odb/memory_backend.h"
#include "object/path.h"
#include "object/tree.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/limits.h"

/* git keeps a node's subtrees ordered by name length, then bytes
 * (cache-tree.c's subtree_name_cmp); the TREE extension lists them so. */
static int sub_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/* The subtree named name, made (in its place) when create. */
static struct wg_cache_tree *find_sub(struct wg_cache_tree *it, const char *name, size_t len,
				      bool create, int *err)
{
	size_t lo = 0, hi = it->nsub;
	struct wg_cache_tree *sub, **v;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = sub_cmp(name, len, it->sub[mid]->name, it->sub[mid]->name_len);
		if (!c)
			return it->sub[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (!create)
		return NULL;
	if (!(sub = wg_calloc(1, sizeof(*sub))) || !(sub->name = wg_strndup(name, len)) ||
	    !(v = wg_realloc(it->sub, (it->nsub + 1) * sizeof(*v)))) {
		if (sub)
			wg_free(sub->name);
		wg_free(sub);
		*err = wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	sub->name_len = len;
	sub->entry_count = -1;
	it->sub = v;
	memmove(v + lo + 1, v + lo, (it->nsub - lo) * sizeof(*v));
	v[lo] = sub;
	it->nsub++;
	return sub;
}

/* --- read-tree ---------------------------------------------------------------------- */

struct reader {
	struct wg_odb *odb;
	struct wg_index *ix;
	struct wg_buf path;
	uint32_t max_depth;
};

static int read_one(struct reader *r, const struct wg_oid *tree, struct wg_cache_tree *node,
		    unsigned depth)
{
	struct wg_buf data = WG_BUF_INIT;
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	enum wg_object_type type;
	size_t base = r->path.len;
	int count = 0, err;

	if (r->max_depth && depth > r->max_depth)
		return wg_error_set(WG_ELIMIT, "tree %s is nested deeper than %u trees",
				    wg_oid_hex(tree), r->max_depth);
	if ((err = wg_odb_read(r->odb, tree, &type, &data)))
		return err;
	if (type != WG_OBJ_TREE) {
		wg_buf_release(&data);
		return wg_error_set(WG_ECORRUPT, "object %s is not a tree", wg_oid_hex(tree));
	}
	wg_tree_iter_init(&it, wg_oid_algo(tree), data.data, data.len);
	while (!(err = wg_tree_iter_next(&it, &e))) {
		wg_buf_setlen(&r->path, base);
		if ((err = wg_buf_add(&r->path, e.name, e.namelen)))
			break;
		/* each name on its own: "a/b" as one entry is no path */
		if (wg_path_check_component(e.name, e.namelen, e.mode)) {
			err = wg_error_set(WG_EINVALID, "invalid path '%s'",
					   (const char *)r->path.data);
			break;
		}
		if (wg_tree_mode_type(e.mode) == WG_OBJ_TREE) {
			struct wg_cache_tree *sub = find_sub(node, e.name, e.namelen, true, &err);
			if (!sub || (err = wg_buf_addch(&r->path, '/')) ||
			    (err = read_one(r, &e.oid, sub, depth + 1)))
				break;
			count += sub->entry_count;
		} else {
			/* the index keeps git's four modes: a file is executable
			 * or not, whatever else its tree mode says */
			unsigned mode = (e.mode & WG_MODE_TYPE_MASK) == 0100000u
						? (e.mode & 0100 ? WG_MODE_EXEC : 0100644u)
						: e.mode & WG_MODE_TYPE_MASK;
			struct wg_index_entry *ie;
			if (wg_path_check((const char *)r->path.data, r->path.len, mode)) {
				err = wg_error_set(WG_EINVALID, "invalid path '%s'",
						   (const char *)r->path.data);
				break;
			}
			if (wg_index_find(r->ix, (const char *)r->path.data, r->path.len, 0) >= 0) {
				err = wg_error_set(WG_EINVALID, "tree %s has a duplicate entry '%s'",
						   wg_oid_hex(tree), (const char *)r->path.data);
				break;
			}
			if (!(ie = wg_index_entry_new((const char *)r->path.data, r->path.len, mode,
						      &e.oid, 0))) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				break;
			}
			if ((err = wg_index_add(r->ix, ie)))
				break;
			count++;
		}
	}
	wg_buf_setlen(&r->path, base);
	wg_buf_release(&data);
	if (err != WG_ITEROVER)
		return err;
	wg_error_clear();
	node->entry_count = count;
	node->oid = *tree;
	return 0;
}

int wg_index_read_tree(struct wg_index *ix, struct wg_odb *odb, const struct wg_oid *tree)
{
	struct reader r = { odb, NULL, WG_BUF_INIT, 0 };
	struct wg_cache_tree *root;
	const struct wg_limits *lim = wg_odb_limits(odb);
	int err;

	r.max_depth = lim ? lim->max_tree_depth : 0;
	/* built aside, so a refused tree leaves the index as it was */
	if ((err = wg_index_new(&r.ix, ix->algo)))
		return err;
	if (!(root = wg_calloc(1, sizeof(*root))) || !(root->name = wg_strdup(""))) {
		wg_free(root);
		wg_index_free(r.ix);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	err = read_one(&r, tree, root, 0);
	if (!err)
		err = wg_index_check_df(r.ix);
	wg_buf_release(&r.path);
	if (err) {
		wg_cache_tree_free(root);
		wg_index_free(r.ix);
		return err;
	}
	/* swap the new entries in; the version stays, resolve-undo goes */
	for (size_t i = 0; i < ix->nr; i++)
		wg_free(ix->entries[i]);
	wg_free(ix->entries);
	ix->entries = r.ix->entries;
	ix->nr = r.ix->nr;
	ix->alloc = r.ix->alloc;
	r.ix->entries = NULL;
	r.ix->nr = r.ix->alloc = 0;
	wg_index_free(r.ix);
	wg_cache_tree_free(ix->cache_tree);
	ix->cache_tree = root;
	wg_resolve_undo_free(ix->resolve_undo);
	ix->resolve_undo = NULL;
	return 0;
}

/* --- write-tree --------------------------------------------------------------------- */

struct writer {
	struct wg_odb *odb;
	struct wg_index *ix;
	struct wg_memory_backend *pretend;   /* trees go here, not to the disk */
};

/* The end of the entries from i below dir (a directory's path with its
 * '/'): the index keeps them together. */
static size_t end_below(const struct wg_index *ix, size_t i, const char *dir, size_t len)
{
	while (i < ix->nr && ix->entries[i]->path_len > len &&
	       !memcmp(ix->entries[i]->path, dir, len))
		i++;
	return i;
}

/* git's update_one: write the tree of the entries [start, end), all below
 * base, reusing a valid node whose tree exists and which covers exactly
 * those entries (a node from another writer that does not is rebuilt). */
static int update_one(struct writer *w, struct wg_cache_tree *it, size_t start, size_t end,
		      const char *base, size_t baselen)
{
	struct wg_buf buf = WG_BUF_INIT;
	bool to_invalidate = false;
	size_t i, j, k;
	int err = 0, have = 0;

	if (it->entry_count >= 0 && (size_t)it->entry_count == end - start &&
	    (have = wg_odb_exists(w->odb, &it->oid)) > 0)
		return 0;
	if (have < 0)
		return have;
	/* the subtrees first, each over its own entries */
	for (k = 0; k < it->nsub; k++)
		it->sub[k]->used = false;
	for (i = start; i < end; i = j) {
		const struct wg_index_entry *e = w->ix->entries[i];
		const char *name = e->path + baselen;
		const char *slash = memchr(name, '/', e->path_len - baselen);
		struct wg_cache_tree *sub;
		j = i + 1;
		if (!slash)
			continue;
		j = end_below(w->ix, i, e->path, (size_t)(slash - e->path) + 1);
		if (!(sub = find_sub(it, name, (size_t)(slash - name), true, &err)) ||
		    (err = update_one(w, sub, i, j, e->path, (size_t)(slash - e->path) + 1)))
			goto done;
		sub->used = true;
	}
	/* subtrees no entry names any more go */
	for (j = k = 0; j < it->nsub; j++) {
		if (it->sub[j]->used)
			it->sub[k++] = it->sub[j];
		else
			wg_cache_tree_free(it->sub[j]);
	}
	it->nsub = k;
	/* then this level's tree, in index order (which is tree order) */
	for (i = start; i < end; i = j) {
		const struct wg_index_entry *e = w->ix->entries[i];
		const char *name = e->path + baselen;
		const char *slash = memchr(name, '/', e->path_len - baselen);
		const struct wg_oid *oid;
		unsigned mode;
		size_t len;
		bool contains_ita = false;
		if (slash) {
			struct wg_cache_tree *sub;
			len = (size_t)(slash - name);
			j = end_below(w->ix, i, e->path, (size_t)(slash - e->path) + 1);
			sub = find_sub(it, name, len, false, &err);
			oid = &sub->oid;
			mode = 040000;
			contains_ita = sub->entry_count < 0;
			if (contains_ita)
				to_invalidate = true;
		} else {
			oid = &e->oid;
			mode = e->mode;
			len = e->path_len - baselen;
			j = i + 1;
		}
		if (wg_oid_is_null(oid) ||
		    (mode != WG_MODE_GITLINK && (have = wg_odb_exists(w->odb, oid)) <= 0)) {
			if (have < 0 && !wg_oid_is_null(oid))
				err = have;
			else
				err = wg_error_set(WG_ENOTFOUND, "invalid object %06o %s for '%.*s'",
						   mode, wg_oid_hex(oid), (int)(len + baselen), e->path);
			goto done;
		}
		/* intent-to-add: in the index, not in a tree */
		if (!slash && (e->flags & WG_INDEX_INTENT_TO_ADD)) {
			to_invalidate = true;
			continue;
		}
		if (contains_ita) {
			struct wg_oid empty;
			wg_oid_empty_tree(&empty, w->ix->algo);
			if (wg_oid_equal(oid, &empty))
				continue;
		}
		if ((err = wg_buf_printf(&buf, "%o ", mode)) || (err = wg_buf_add(&buf, name, len)) ||
		    (err = wg_buf_addch(&buf, '\0')) ||
		    (err = wg_buf_add(&buf, oid->hash, w->ix->algo->rawsz)))
			goto done;
	}
	if ((err = w->pretend
		   ? wg_memory_backend_add(w->pretend, WG_OBJ_TREE, buf.data, buf.len, &it->oid)
		   : wg_odb_write(w->odb, WG_OBJ_TREE, buf.data, buf.len, &it->oid)))
		goto done;
	it->entry_count = to_invalidate ? -1 : (int)(end - start);
done:
	wg_buf_release(&buf);
	return err;
}

static int write_tree(struct wg_oid *out, struct wg_index *ix, struct wg_odb *odb,
		      struct wg_memory_backend *pretend)
{
	struct writer w = { odb, ix, pretend };
	int err;

	for (size_t i = 0; i < ix->nr; i++)
		if (ix->entries[i]->stage)
			return wg_error_set(WG_EINVALID, "%s: unmerged (%s)", ix->entries[i]->path,
					    wg_oid_hex(&ix->entries[i]->oid));
	if (!ix->cache_tree) {
		if (!(ix->cache_tree = wg_calloc(1, sizeof(*ix->cache_tree))) ||
		    !(ix->cache_tree->name = wg_strdup(""))) {
			wg_free(ix->cache_tree);
			ix->cache_tree = NULL;
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		ix->cache_tree->entry_count = -1;
	}
	if (ix->nr > INT32_MAX)
		return wg_error_set(WG_ELIMIT, "too many index entries for a cache tree");
	if (!(err = update_one(&w, ix->cache_tree, 0, ix->nr, "", 0)))
		*out = ix->cache_tree->oid;
	return err;
}

int wg_index_write_tree(struct wg_oid *out, struct wg_index *ix, struct wg_odb *odb)
{
	return write_tree(out, ix, odb, NULL);
}

int wg_index_pretend_tree(struct wg_oid *out, struct wg_index *ix, struct wg_odb *odb,
			  struct wg_memory_backend *pretend)
{
	return write_tree(out, ix, odb, pretend);
}
