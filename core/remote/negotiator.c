#include "remote/negotiator.h"

#include <string.h>

#include "object/commit.h"
#include "object/ident.h"
#include "object/object.h"
#include "object/tag.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

enum { SEEN = 1, COMMON = 2, POPPED = 4 };

struct entry {
	struct wg_oid oid;
	uint64_t date;
	unsigned flags;
};

struct wg_negotiator {
	struct wg_odb *odb;
	struct entry *entries;       /* every commit met */
	size_t nr, alloc;
	size_t *table;               /* open addressing: index + 1, 0 = empty */
	size_t table_size;
	size_t *heap;                /* entries to visit, newest first */
	size_t heap_nr, heap_alloc;
	struct wg_buf buf;
};

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory in the fetch negotiator");
}

static size_t hash_of(const struct wg_oid *oid)
{
	size_t h;
	memcpy(&h, oid->hash, sizeof(h));  /* ids are uniformly distributed */
	return h;
}

static int grow_table(struct wg_negotiator *n)
{
	size_t size = n->table_size ? 2 * n->table_size : 1024;
	size_t *t = wg_calloc(size, sizeof(*t));
	if (!t)
		return nomem();
	for (size_t i = 0; i < n->nr; i++) {
		size_t j = hash_of(&n->entries[i].oid) & (size - 1);
		while (t[j])
			j = (j + 1) & (size - 1);
		t[j] = i + 1;
	}
	wg_free(n->table);
	n->table = t;
	n->table_size = size;
	return 0;
}

/* The entry of `oid`, or SIZE_MAX. */
static size_t find(const struct wg_negotiator *n, const struct wg_oid *oid)
{
	size_t j;
	if (!n->table_size)
		return SIZE_MAX;
	for (j = hash_of(oid) & (n->table_size - 1); n->table[j]; j = (j + 1) & (n->table_size - 1))
		if (wg_oid_equal(&n->entries[n->table[j] - 1].oid, oid))
			return n->table[j] - 1;
	return SIZE_MAX;
}

static bool newer(const struct wg_negotiator *n, size_t a, size_t b)
{
	return n->entries[a].date > n->entries[b].date;
}

static int heap_push(struct wg_negotiator *n, size_t e)
{
	size_t i;
	if (n->heap_nr == n->heap_alloc) {
		size_t a = n->heap_alloc ? 2 * n->heap_alloc : 64;
		size_t *h = wg_realloc(n->heap, a * sizeof(*h));
		if (!h)
			return nomem();
		n->heap = h;
		n->heap_alloc = a;
	}
	for (i = n->heap_nr++; i && newer(n, e, n->heap[(i - 1) / 2]); i = (i - 1) / 2)
		n->heap[i] = n->heap[(i - 1) / 2];
	n->heap[i] = e;
	return 0;
}

static size_t heap_pop(struct wg_negotiator *n)
{
	size_t top = n->heap[0], last = n->heap[--n->heap_nr], i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n->heap_nr)
			break;
		if (c + 1 < n->heap_nr && newer(n, n->heap[c + 1], n->heap[c]))
			c++;
		if (!newer(n, n->heap[c], last))
			break;
		n->heap[i] = n->heap[c];
		i = c;
	}
	if (n->heap_nr)
		n->heap[i] = last;
	return top;
}

/* Read a commit's date and parents; missing or non-commit: *ok false. */
static int load(struct wg_negotiator *n, const struct wg_oid *oid, struct wg_commit *c,
		bool *ok, uint64_t *date)
{
	enum wg_object_type type;
	struct wg_ident who;
	int err;

	*ok = false;
	wg_commit_init(c);
	err = wg_odb_read(n->odb, oid, &type, &n->buf);
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	if (err)
		return err;
	if (type != WG_OBJ_COMMIT)
		return 0;
	if ((err = wg_commit_parse(c, wg_oid_algo(oid), n->buf.data, n->buf.len)))
		return err;
	*date = c->committer && !wg_ident_parse(&who, c->committer, strlen(c->committer)) &&
		who.has_date ? who.timestamp : 0;
	*ok = true;
	return 0;
}

/* Meet `oid` (flags added); queue it if new. */
static int meet(struct wg_negotiator *n, const struct wg_oid *oid, unsigned flags)
{
	size_t e = find(n, oid);
	struct wg_commit c;
	uint64_t date = 0;
	bool ok;
	int err;

	if (e != SIZE_MAX) {
		n->entries[e].flags |= flags;
		return 0;
	}
	if ((err = load(n, oid, &c, &ok, &date)) || !ok) {
		wg_commit_release(&c);
		return err;
	}
	wg_commit_release(&c);
	if (n->nr == n->alloc) {
		size_t a = n->alloc ? 2 * n->alloc : 256;
		struct entry *v = wg_realloc(n->entries, a * sizeof(*v));
		if (!v)
			return nomem();
		n->entries = v;
		n->alloc = a;
	}
	if (2 * (n->nr + 1) > n->table_size && (err = grow_table(n)))
		return err;
	e = n->nr++;
	n->entries[e].oid = *oid;
	n->entries[e].date = date;
	n->entries[e].flags = SEEN | flags;
	{
		size_t j = hash_of(oid) & (n->table_size - 1);
		while (n->table[j])
			j = (j + 1) & (n->table_size - 1);
		n->table[j] = e + 1;
	}
	return heap_push(n, e);
}

int wg_negotiator_new(struct wg_negotiator **out, struct wg_odb *odb)
{
	struct wg_negotiator *n = wg_calloc(1, sizeof(*n));
	if (!n)
		return nomem();
	n->odb = odb;
	*out = n;
	return 0;
}

void wg_negotiator_free(struct wg_negotiator *n)
{
	if (!n)
		return;
	wg_free(n->entries);
	wg_free(n->table);
	wg_free(n->heap);
	wg_buf_release(&n->buf);
	wg_free(n);
}

int wg_negotiator_add_tip(struct wg_negotiator *n, const struct wg_oid *oid)
{
	struct wg_oid cur = *oid;
	enum wg_object_type type;
	int err, depth;

	/* Peel annotated tags (a few levels: a tag of a tag). */
	for (depth = 0; depth < 8; depth++) {
		struct wg_tag tag;
		err = wg_odb_read(n->odb, &cur, &type, &n->buf);
		if (err == WG_ENOTFOUND) {
			wg_error_clear();
			return 0;
		}
		if (err)
			return err;
		if (type != WG_OBJ_TAG)
			break;
		wg_tag_init(&tag);
		err = wg_tag_parse(&tag, wg_oid_algo(&cur), n->buf.data, n->buf.len);
		if (!err)
			cur = tag.object;
		wg_tag_release(&tag);
		if (err) {
			wg_error_clear();
			return 0;
		}
	}
	return type == WG_OBJ_COMMIT ? meet(n, &cur, 0) : 0;
}

int wg_negotiator_next(struct wg_negotiator *n, struct wg_oid *out)
{
	while (n->heap_nr) {
		size_t e = heap_pop(n);
		struct entry *en = &n->entries[e];
		struct wg_commit c;
		struct wg_oid oid = en->oid;
		unsigned common = en->flags & COMMON;
		uint64_t date;
		bool ok;
		int err;

		en->flags |= POPPED;
		if ((err = load(n, &oid, &c, &ok, &date))) {
			wg_commit_release(&c);
			return err;
		}
		for (size_t i = 0; ok && i < c.nparents && !err; i++)
			err = meet(n, &c.parents[i], common);
		wg_commit_release(&c);
		if (err)
			return err;
		if (common)
			continue;       /* the server has it: say nothing */
		*out = oid;
		return 0;
	}
	return WG_ITEROVER;
}

/* Mark `oid` common, and the ancestors already met whose parents were
 * queued before we knew: none of them needs offering any more. */
int wg_negotiator_ack(struct wg_negotiator *n, const struct wg_oid *oid)
{
	size_t *stack = NULL, nr = 0, alloc = 0, e = find(n, oid);
	int err = 0;

	if (e == SIZE_MAX || (n->entries[e].flags & COMMON))
		return 0;
	n->entries[e].flags |= COMMON;
	if (!(n->entries[e].flags & POPPED))
		return 0;
	/* Its parents are queued or met already: walk what we know. */
	if (!(stack = wg_malloc(16 * sizeof(*stack))))
		return nomem();
	alloc = 16;
	stack[nr++] = e;
	while (nr && !err) {
		struct wg_commit c;
		uint64_t date;
		bool ok;
		struct wg_oid cur = n->entries[stack[--nr]].oid;

		if ((err = load(n, &cur, &c, &ok, &date))) {
			wg_commit_release(&c);
			break;
		}
		for (size_t i = 0; ok && i < c.nparents; i++) {
			size_t p = find(n, &c.parents[i]);
			if (p == SIZE_MAX || (n->entries[p].flags & COMMON))
				continue;
			n->entries[p].flags |= COMMON;
			if (!(n->entries[p].flags & POPPED))
				continue;
			if (nr == alloc) {
				size_t *v = wg_realloc(stack, 2 * alloc * sizeof(*v));
				if (!v) {
					err = nomem();
					break;
				}
				stack = v;
				alloc *= 2;
			}
			stack[nr++] = p;
		}
		wg_commit_release(&c);
	}
	wg_free(stack);
	return err;
}
