/* Merge bases (see merge_base.h), in git's steps and order. */
#include "history/merge_base.h"

#include <string.h>

#include "history/commit_nodes.h"
#include "history/node_queue.h"
#include "util/alloc.h"
#include "util/error.h"

/* high bits: a walk sharing the node set keeps the low ones */
enum { PARENT1 = 1u << 16, PARENT2 = 1u << 17, STALE = 1u << 18, RESULT = 1u << 19 };
#define ALL_FLAGS (PARENT1 | PARENT2 | STALE | RESULT)

void wg_oid_list_release(struct wg_oid_list *l)
{
	wg_free(l->v);
	memset(l, 0, sizeof(*l));
}

static int oid_list_add(struct wg_oid_list *l, const struct wg_oid *oid)
{
	if (l->n == l->alloc) {
		size_t a = l->alloc ? 2 * l->alloc : 8;
		struct wg_oid *v = wg_realloc(l->v, a * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		l->v = v;
		l->alloc = a;
	}
	l->v[l->n++] = *oid;
	return 0;
}

struct node_list {
	struct wg_commit_node **v;
	size_t n, alloc;
};

static int node_list_add(struct node_list *l, struct wg_commit_node *c)
{
	if (l->n == l->alloc) {
		size_t a = l->alloc ? 2 * l->alloc : 8;
		struct wg_commit_node **v = wg_realloc(l->v, a * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		l->v = v;
		l->alloc = a;
	}
	l->v[l->n++] = c;
	return 0;
}

static void clear_flags(struct wg_commit_nodes *set)
{
	for (size_t i = 0; i < set->size; i++)
		if (set->slots[i])
			set->slots[i]->flags &= ~ALL_FLAGS;
}

/* git's commit_list_sort_by_date: newest first, stable. */
static void sort_by_date(struct node_list *l)
{
	for (size_t i = 1; i < l->n; i++) {
		struct wg_commit_node *c = l->v[i];
		size_t j = i;
		for (; j && l->v[j - 1]->date < c->date; j--)
			l->v[j] = l->v[j - 1];
		l->v[j] = c;
	}
}

static bool queue_has_nonstale(const struct wg_node_queue *q)
{
	for (size_t i = 0; i < q->nr; i++)
		if (!(q->heap[i].node->flags & STALE))
			return true;
	return false;
}

/* Paint down from one (PARENT1) and the twos (PARENT2); *result gets the
 * commits both reach first, newest first (some may be STALE: reached
 * through another result). */
static int paint_down_to_common(struct wg_commit_nodes *set, struct wg_commit_node *one,
				struct wg_commit_node **twos, size_t n, struct node_list *result)
{
	struct wg_node_queue q = WG_NODE_QUEUE_INIT;
	int err = 0;

	one->flags |= PARENT1;
	if (!n)
		return node_list_add(result, one);
	if ((err = wg_node_queue_push(&q, one)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		twos[i]->flags |= PARENT2;
		if ((err = wg_node_queue_push(&q, twos[i])))
			goto out;
	}
	while (queue_has_nonstale(&q)) {
		struct wg_commit_node *c = wg_node_queue_pop(&q);
		unsigned flags = c->flags & (PARENT1 | PARENT2 | STALE);

		if (flags == (PARENT1 | PARENT2)) {
			if (!(c->flags & RESULT)) {
				c->flags |= RESULT;
				if ((err = node_list_add(result, c)))
					goto out;
			}
			flags |= STALE;   /* the parents of a base are not bases */
		}
		for (uint32_t k = 0; k < c->nparents; k++) {
			struct wg_commit_node *p = c->parents[k];
			if ((p->flags & flags) == flags)
				continue;
			if ((err = wg_commit_nodes_parse(set, p)))
				goto out;
			if (p->missing)
				continue;
			p->flags |= flags;
			if ((err = wg_node_queue_push(&q, p)))
				goto out;
		}
	}
	sort_by_date(result);
out:
	wg_node_queue_release(&q);
	return err;
}

/* git's remove_redundant: drop each commit another one reaches, keeping
 * the order. */
static int remove_redundant(struct wg_commit_nodes *set, struct node_list *l)
{
	struct wg_commit_node **work = NULL;
	size_t *at = NULL;
	unsigned char *redundant = NULL;
	size_t cnt = l->n, w;
	int err = 0;

	if (cnt < 2)
		return 0;
	work = wg_calloc(cnt, sizeof(*work));
	at = wg_calloc(cnt, sizeof(*at));
	redundant = wg_calloc(cnt, 1);
	if (!work || !at || !redundant) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < cnt; i++) {
		struct node_list common = { 0 };
		if (redundant[i])
			continue;
		w = 0;
		for (size_t j = 0; j < cnt; j++) {
			if (i == j || redundant[j])
				continue;
			at[w] = j;
			work[w++] = l->v[j];
		}
		clear_flags(set);
		err = paint_down_to_common(set, l->v[i], work, w, &common);
		wg_free(common.v);
		if (err)
			goto out;
		if (l->v[i]->flags & PARENT2)
			redundant[i] = 1;
		for (size_t j = 0; j < w; j++)
			if (work[j]->flags & PARENT1)
				redundant[at[j]] = 1;
	}
	clear_flags(set);
	w = 0;
	for (size_t i = 0; i < cnt; i++)
		if (!redundant[i])
			l->v[w++] = l->v[i];
	l->n = w;
out:
	wg_free(work);
	wg_free(at);
	wg_free(redundant);
	return err;
}

static int nodes_of(struct wg_commit_nodes *set, const struct wg_oid *oids, size_t n,
		    struct node_list *out)
{
	for (size_t i = 0; i < n; i++) {
		struct wg_commit_node *c;
		int err;
		if ((err = wg_commit_nodes_get(set, &oids[i], &c)) ||
		    (err = wg_commit_nodes_parse(set, c)))
			return err;
		if (c->missing)
			return wg_error_set(WG_ENOTFOUND, "could not parse commit %s",
					    wg_oid_hex(&oids[i]));
		if ((err = node_list_add(out, c)))
			return err;
	}
	return 0;
}

/* git's get_merge_bases_many_0, on nodes. */
static int merge_bases(struct wg_commit_nodes *set, struct wg_commit_node *one,
		       struct wg_commit_node **twos, size_t n, struct node_list *out)
{
	struct node_list list = { 0 };
	int err;

	for (size_t i = 0; i < n; i++)
		if (one == twos[i])
			return node_list_add(out, one);
	clear_flags(set);
	if ((err = paint_down_to_common(set, one, twos, n, &list)))
		goto out;
	{
		size_t w = 0;
		for (size_t i = 0; i < list.n; i++)
			if (!(list.v[i]->flags & STALE))
				list.v[w++] = list.v[i];
		list.n = w;
	}
	clear_flags(set);
	if (list.n > 1) {
		if ((err = remove_redundant(set, &list)))
			goto out;
		sort_by_date(&list);
	}
	for (size_t i = 0; i < list.n && !err; i++)
		err = node_list_add(out, list.v[i]);
out:
	wg_free(list.v);
	return err;
}

static int nodes_to_oids(struct wg_oid_list *out, const struct node_list *l)
{
	int err = 0;
	for (size_t i = 0; i < l->n && !err; i++)
		err = oid_list_add(out, &l->v[i]->oid);
	return err;
}

int wg_merge_bases_in(struct wg_oid_list *out, struct wg_commit_nodes *set,
		      const struct wg_oid *one, const struct wg_oid *twos, size_t ntwos)
{
	struct node_list a = { 0 }, b = { 0 }, res = { 0 };
	int err;

	if (!(err = nodes_of(set, one, 1, &a)) && !(err = nodes_of(set, twos, ntwos, &b)) &&
	    !(err = merge_bases(set, a.v[0], b.v, b.n, &res)))
		err = nodes_to_oids(out, &res);
	clear_flags(set);
	wg_free(a.v);
	wg_free(b.v);
	wg_free(res.v);
	return err;
}

int wg_merge_bases(struct wg_oid_list *out, struct wg_odb *odb, const struct wg_oid *one,
		   const struct wg_oid *twos, size_t ntwos)
{
	struct wg_commit_nodes set;
	int err;

	wg_commit_nodes_init(&set, odb);
	err = wg_merge_bases_in(out, &set, one, twos, ntwos);
	wg_commit_nodes_release(&set);
	return err;
}

/* git's reduce_heads: duplicates dropped (the first kept), then the
 * redundant ones, in order. */
static int reduce_heads(struct wg_commit_nodes *set, struct node_list *l)
{
	size_t w = 0;

	clear_flags(set);
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i]->flags & STALE)
			continue;
		l->v[i]->flags |= STALE;
		l->v[w++] = l->v[i];
	}
	l->n = w;
	clear_flags(set);
	return remove_redundant(set, l);
}

int wg_merge_bases_octopus(struct wg_oid_list *out, struct wg_odb *odb,
			   const struct wg_oid *commits, size_t n)
{
	struct wg_commit_nodes set;
	struct node_list in = { 0 }, ret = { 0 }, next = { 0 };
	int err;

	wg_commit_nodes_init(&set, odb);
	if ((err = nodes_of(&set, commits, n, &in)) || !n)
		goto out;
	/* git's get_octopus_merge_bases: the bases of each new commit with
	 * each base so far */
	if ((err = node_list_add(&ret, in.v[0])))
		goto out;
	for (size_t i = 1; i < in.n; i++) {
		next.n = 0;
		for (size_t j = 0; j < ret.n; j++)
			if ((err = merge_bases(&set, in.v[i], &ret.v[j], 1, &next)))
				goto out;
		{
			struct node_list t = ret;
			ret = next;
			next = t;
		}
	}
	if (!(err = reduce_heads(&set, &ret)))
		err = nodes_to_oids(out, &ret);
out:
	wg_free(in.v);
	wg_free(ret.v);
	wg_free(next.v);
	wg_commit_nodes_release(&set);
	return err;
}

int wg_is_ancestor(struct wg_odb *odb, const struct wg_oid *ancestor, const struct wg_oid *tip,
		   bool *yes)
{
	struct wg_commit_nodes set;
	struct node_list a = { 0 }, b = { 0 }, res = { 0 };
	int err;

	*yes = false;
	wg_commit_nodes_init(&set, odb);
	if (!(err = nodes_of(&set, ancestor, 1, &a)) && !(err = nodes_of(&set, tip, 1, &b)) &&
	    !(err = paint_down_to_common(&set, a.v[0], b.v, 1, &res)))
		*yes = (a.v[0]->flags & PARENT2) != 0;
	wg_free(a.v);
	wg_free(b.v);
	wg_free(res.v);
	wg_commit_nodes_release(&set);
	return err;
}

int wg_independent_commits(struct wg_oid_list *out, struct wg_odb *odb,
			   const struct wg_oid *commits, size_t n)
{
	struct wg_commit_nodes set;
	struct node_list l = { 0 };
	int err;

	wg_commit_nodes_init(&set, odb);
	if (!(err = nodes_of(&set, commits, n, &l)) && !(err = reduce_heads(&set, &l)))
		err = nodes_to_oids(out, &l);
	wg_free(l.v);
	wg_commit_nodes_release(&set);
	return err;
}
