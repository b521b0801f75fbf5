/* last-modified (see last_modified.h), in the steps of git's
 * builtin/last-modified.c. */
#include "history/last_modified.h"

#include <stdint.h>
#include <string.h>

#include "diff/tree_diff.h"
#include "history/commit_nodes.h"
#include "history/node_queue.h"
#include "object/object.h"
#include "object/tree.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/pathspec.h"

#define QUEUED 1u         /* git's PARENT1: in the queue once */
#define DONE 2u           /* popped: bits handed to it later are lost, as in git */
#define PARENTS_READ 4u

struct path_ent {
	char *path;
	uint32_t hash;        /* git's strhash (FNV-1) */
	long slot;            /* its bit: the position in git's iteration order */
};

struct lm {
	struct wg_commit_nodes set;
	const struct wg_last_modified_options *o;
	struct path_ent *v;
	size_t n, alloc;
	long *lookup;         /* open addressing over v, by hash */
	size_t lookup_size;
	size_t *order;        /* slot -> index in v */
	size_t words;         /* of each commit's bitmap */
	uint64_t *scratch;
	struct wg_buf path;
	struct wg_diff_changes changes;
};

static uint32_t strhash(const char *s)
{
	uint32_t h = 0x811c9dc5u;
	for (; *s; s++)
		h = (h * 0x01000193u) ^ (unsigned char)*s;
	return h;
}

static int add_path(struct lm *m, const char *path)
{
	if (m->n == m->alloc) {
		size_t a = m->alloc ? 2 * m->alloc : 64;
		struct path_ent *v = wg_realloc(m->v, a * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		m->v = v;
		m->alloc = a;
	}
	if (!(m->v[m->n].path = wg_strdup(path)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	m->v[m->n].hash = strhash(path);
	m->n++;
	return 0;
}

/* The entries of the tree below m->path, in the order git's diff of the
 * empty tree against it lists them: trees before what they hold (-t),
 * only files with -r, only this level without. */
static int list_tree(struct lm *m, const struct wg_oid *tree, unsigned depth)
{
	struct wg_buf data = WG_BUF_INIT;
	enum wg_object_type type;
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	size_t base = m->path.len;
	int err, r;

	if (depth > 4096)
		return wg_error_set(WG_ELIMIT, "trees nested too deep");
	if ((err = wg_odb_read(m->set.odb, tree, &type, &data)))
		return err;
	if (type != WG_OBJ_TREE) {
		wg_buf_release(&data);
		return wg_error_set(WG_ECORRUPT, "%s is not a tree", wg_oid_hex(tree));
	}
	wg_tree_iter_init(&it, wg_oid_algo(tree), data.data, data.len);
	while (!(r = wg_tree_iter_next(&it, &e))) {
		bool is_tree = wg_tree_mode_type(e.mode) == WG_OBJ_TREE;
		const char *p;
		wg_buf_setlen(&m->path, base);
		if ((err = wg_buf_add(&m->path, e.name, e.namelen)))
			break;
		p = wg_buf_cstr(&m->path);
		if (m->o->paths && m->o->paths->nr &&
		    !(is_tree ? wg_pathspec_may_match_below(m->o->paths, p, m->path.len)
			      : wg_pathspec_match(m->o->paths, p, m->path.len, NULL)))
			continue;
		if ((!is_tree || !m->o->recursive || m->o->show_trees) && (err = add_path(m, p)))
			break;
		if (is_tree && m->o->recursive) {
			if ((err = wg_buf_addch(&m->path, '/')) ||
			    (err = list_tree(m, &e.oid, depth + 1)))
				break;
		}
	}
	if (!err && r != WG_ITEROVER)
		err = r;
	wg_buf_setlen(&m->path, base);
	wg_buf_release(&data);
	return err;
}

/* git's hashmap (64 buckets, four times more past 80% full, new entries
 * at a bucket's head, rehashed bucket by bucket): the order it iterates
 * the paths in, which is the order git reports a commit's paths in. */
static int git_hashmap_order(struct lm *m)
{
	size_t size = 64, grow_at = 64 * 80 / 100;
	long *table = wg_calloc(size, sizeof(*table)), *next = wg_calloc(m->n + 1, sizeof(*next));
	size_t k = 0;
	int err = 0;

	if (!table || !next || !(m->order = wg_calloc(m->n + 1, sizeof(*m->order)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < size; i++)
		table[i] = -1;
	for (size_t i = 0; i < m->n; i++) {
		size_t b = m->v[i].hash & (size - 1);
		next[i] = table[b];
		table[b] = (long)i;
		if (i + 1 > grow_at) {
			size_t nsize = size << 2;
			long *nt = wg_calloc(nsize, sizeof(*nt));
			if (!nt) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				goto out;
			}
			for (size_t j = 0; j < nsize; j++)
				nt[j] = -1;
			for (size_t j = 0; j < size; j++) {
				for (long e = table[j]; e >= 0;) {
					long nx = next[e];
					size_t nb = m->v[e].hash & (nsize - 1);
					next[e] = nt[nb];
					nt[nb] = e;
					e = nx;
				}
			}
			wg_free(table);
			table = nt;
			size = nsize;
			grow_at = nsize * 80 / 100;
		}
	}
	for (size_t j = 0; j < size; j++)
		for (long e = table[j]; e >= 0; e = next[e]) {
			m->v[e].slot = (long)k;
			m->order[k++] = (size_t)e;
		}
out:
	wg_free(table);
	wg_free(next);
	return err;
}

static int build_lookup(struct lm *m)
{
	m->lookup_size = 64;
	while (m->lookup_size < 2 * m->n)
		m->lookup_size *= 2;
	if (!(m->lookup = wg_calloc(m->lookup_size, sizeof(*m->lookup))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->lookup_size; i++)
		m->lookup[i] = -1;
	for (size_t i = 0; i < m->n; i++) {
		size_t s = m->v[i].hash & (m->lookup_size - 1);
		while (m->lookup[s] >= 0)
			s = (s + 1) & (m->lookup_size - 1);
		m->lookup[s] = (long)i;
	}
	return 0;
}

/* The bit of path (len bytes), or -1 if it is not one of ours. */
static long slot_of(const struct lm *m, const char *path, size_t len)
{
	uint32_t h = 0x811c9dc5u;
	for (size_t i = 0; i < len; i++)
		h = (h * 0x01000193u) ^ (unsigned char)path[i];
	for (size_t s = h & (m->lookup_size - 1); m->lookup[s] >= 0;
	     s = (s + 1) & (m->lookup_size - 1)) {
		const struct path_ent *e = &m->v[m->lookup[s]];
		if (e->hash == h && !strncmp(e->path, path, len) && !e->path[len])
			return e->slot;
	}
	return -1;
}

static bool bit(const uint64_t *b, long i)
{
	return (b[i / 64] >> (i % 64)) & 1;
}

static bool empty(const struct lm *m, const uint64_t *b)
{
	for (size_t i = 0; i < m->words; i++)
		if (b[i])
			return false;
	return true;
}

static uint64_t *bits_of(struct lm *m, struct wg_commit_node *n)
{
	if (!n->util)
		n->util = wg_calloc(m->words, sizeof(uint64_t));
	return n->util;
}

static void free_bits(struct wg_commit_node *n)
{
	wg_free(n->util);
	n->util = NULL;
}

/* Parse n; parents the repository lacks (a shallow boundary) dropped. */
static int parse_node(struct lm *m, struct wg_commit_node *n)
{
	uint32_t kept = 0;
	int err;

	if (n->flags & PARENTS_READ)
		return 0;
	if ((err = wg_commit_nodes_parse(&m->set, n)))
		return err;
	n->flags |= PARENTS_READ;
	for (uint32_t i = 0; i < n->nparents; i++) {
		if ((err = wg_commit_nodes_parse(&m->set, n->parents[i])))
			return err;
		if (!n->parents[i]->missing)
			n->parents[kept++] = n->parents[i];
	}
	n->nparents = kept;
	return 0;
}

/* Mark in m->scratch the active paths of c that differ in parent p: a
 * changed path, or a tree above one. */
static int changed_paths(struct lm *m, struct wg_commit_node *p, struct wg_commit_node *c,
			 const uint64_t *active_c)
{
	struct wg_tree_diff_options o = { 0 };
	int err;

	memset(m->scratch, 0, m->words * sizeof(uint64_t));
	if (wg_oid_equal(&p->tree, &c->tree))
		return 0;
	o.paths = m->o->paths;
	if ((err = wg_diff_trees(&m->changes, m->set.odb, &p->tree, &c->tree, &o)))
		goto out;
	for (size_t i = 0; i < m->changes.n; i++) {
		const char *path = m->changes.v[i].path;
		size_t len = strlen(path);
		/* the path, then each directory above it */
		for (;;) {
			long s = slot_of(m, path, len);
			if (s >= 0 && bit(active_c, s))
				m->scratch[s / 64] |= UINT64_C(1) << (s % 64);
			while (len && path[len - 1] != '/')
				len--;
			if (!len)
				break;
			len--;
		}
	}
out:
	wg_diff_changes_release(&m->changes);
	return err;
}

static int walk(struct lm *m, struct wg_commit_node *start, wg_last_modified_fn fn,
		void *payload)
{
	struct wg_node_queue q = WG_NODE_QUEUE_INIT;
	struct wg_commit_node *c;
	int err = 0;

	if (!bits_of(m, start))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->n; i++)
		((uint64_t *)start->util)[i / 64] |= UINT64_C(1) << (i % 64);
	start->flags |= QUEUED;
	if ((err = wg_node_queue_push(&q, start)))
		goto out;
	while (!err && (c = wg_node_queue_pop(&q))) {
		uint64_t *active_c = bits_of(m, c);
		if (!active_c) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		c->flags |= DONE;
		if ((err = parse_node(m, c)))
			break;
		for (uint32_t k = 0; k < c->nparents && !err; k++) {
			struct wg_commit_node *p = c->parents[k];
			uint64_t *active_p;
			if ((err = changed_paths(m, p, c, active_c)))
				break;
			if (!(active_p = bits_of(m, p))) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				break;
			}
			/* what p has unchanged is p's to answer for */
			for (size_t w = 0; w < m->words; w++) {
				uint64_t pass = active_c[w] & ~m->scratch[w];
				active_c[w] &= ~pass;
				active_p[w] |= pass;
			}
			if (!empty(m, active_p) && !(p->flags & QUEUED)) {
				p->flags |= QUEUED;
				err = wg_node_queue_push(&q, p);
			}
			if (!(p->flags & QUEUED))
				free_bits(p);
			if (empty(m, active_c))
				break;
		}
		/* what c still holds, c changed */
		for (size_t s = 0; !err && s < m->n; s++)
			if (bit(active_c, (long)s))
				err = fn(payload, m->v[m->order[s]].path, &c->oid);
		free_bits(c);
	}
out:
	while ((c = wg_node_queue_pop(&q)))
		free_bits(c);
	wg_node_queue_release(&q);
	return err;
}

int wg_last_modified(struct wg_odb *odb, const struct wg_oid *commit,
		     const struct wg_last_modified_options *opts, wg_last_modified_fn fn,
		     void *payload)
{
	struct wg_last_modified_options none = { 0 };
	struct lm m = { 0 };
	struct wg_commit_node *start;
	int err;

	m.o = opts ? opts : &none;
	m.path = (struct wg_buf)WG_BUF_INIT;
	wg_commit_nodes_init(&m.set, odb);
	m.set.shallow = m.o->shallow;
	if ((err = wg_commit_nodes_get(&m.set, commit, &start)) ||
	    (err = wg_commit_nodes_parse(&m.set, start)))
		goto out;
	if (start->missing) {
		err = wg_error_set(WG_ENOTFOUND, "bad object %s", wg_oid_hex(commit));
		goto out;
	}
	if ((err = list_tree(&m, &start->tree, 1)) || (err = git_hashmap_order(&m)) ||
	    (err = build_lookup(&m)))
		goto out;
	m.words = m.n / 64 + 1;
	if (!(m.scratch = wg_calloc(m.words, sizeof(uint64_t)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	if (m.n)
		err = walk(&m, start, fn, payload);
out:
	for (size_t i = 0; i < m.set.size; i++)
		if (m.set.slots && m.set.slots[i])
			free_bits(m.set.slots[i]);
	for (size_t i = 0; i < m.n; i++)
		wg_free(m.v[i].path);
	wg_free(m.v);
	wg_free(m.lookup);
	wg_free(m.order);
	wg_free(m.scratch);
	wg_buf_release(&m.path);
	wg_diff_changes_release(&m.changes);
	wg_commit_nodes_release(&m.set);
	return err;
}
