#include "remote/negotiator.h"

#include <string.h>

#include "hash/oidmap.h"
#include "object/commit.h"
#include "odb/commit_queue.h"
#include "object/object.h"
#include "object/tag.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

enum { SEEN = 1, COMMON = 2, POPPED = 4 };

struct wg_negotiator {
	struct wg_odb *odb;
	struct wg_oidmap map;            /* every commit met, with its flags */
	struct wg_commit_queue queue;    /* to visit, newest first */
	struct wg_buf buf;
};

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory in the fetch negotiator");
}

/* Read a commit; a missing one, or something else than a commit, is just
 * not offered (*ok false). */
static int load(struct wg_negotiator *n, const struct wg_oid *oid, struct wg_commit *c, bool *ok)
{
	int err = wg_commit_read(n->odb, oid, c, &n->buf, ok);
	if (err == WG_ECORRUPT && !*ok) {
		wg_error_clear();
		return 0;
	}
	return err;
}

/* Meet `oid` (flags added); queue it if new. */
static int meet(struct wg_negotiator *n, const struct wg_oid *oid, unsigned flags)
{
	struct wg_commit c;
	unsigned old = wg_oidmap_get(&n->map, oid);
	bool ok;
	int err;

	if (old & SEEN)
		return flags ? wg_oidmap_set(&n->map, oid, flags, NULL) : 0;
	if ((err = load(n, oid, &c, &ok)) || !ok) {
		wg_commit_release(&c);
		return err;
	}
	err = wg_commit_queue_push(&n->queue, oid, wg_commit_date(&c), 0);
	wg_commit_release(&c);
	if (err)
		return err;
	return wg_oidmap_set(&n->map, oid, SEEN | flags, NULL);
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
	wg_oidmap_release(&n->map);
	wg_commit_queue_release(&n->queue);
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
	while (n->queue.nr) {
		struct wg_commit_qent q = wg_commit_queue_pop(&n->queue);
		unsigned common = wg_oidmap_get(&n->map, &q.oid) & COMMON;
		struct wg_commit c;
		bool ok;
		int err;

		if ((err = wg_oidmap_set(&n->map, &q.oid, POPPED, NULL)) ||
		    (err = load(n, &q.oid, &c, &ok))) {
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
		*out = q.oid;
		return 0;
	}
	return WG_ITEROVER;
}

/* Mark `oid` common, and the ancestors already met whose parents were
 * queued before we knew: none of them needs offering any more. */
int wg_negotiator_ack(struct wg_negotiator *n, const struct wg_oid *oid)
{
	struct wg_oid *stack = NULL;
	size_t nr = 0, alloc = 0;
	unsigned flags = wg_oidmap_get(&n->map, oid);
	int err;

	if (!(flags & SEEN) || (flags & COMMON))
		return 0;
	if ((err = wg_oidmap_set(&n->map, oid, COMMON, NULL)) || !(flags & POPPED))
		return err;
	/* Its parents are queued or met already: walk what we know. */
	if (!(stack = wg_malloc(16 * sizeof(*stack))))
		return nomem();
	alloc = 16;
	stack[nr++] = *oid;
	while (nr && !err) {
		struct wg_oid cur = stack[--nr];
		struct wg_commit c;
		bool ok;

		if ((err = load(n, &cur, &c, &ok))) {
			wg_commit_release(&c);
			break;
		}
		for (size_t i = 0; ok && i < c.nparents && !err; i++) {
			unsigned pf = wg_oidmap_get(&n->map, &c.parents[i]);
			if (!(pf & SEEN) || (pf & COMMON))
				continue;
			if ((err = wg_oidmap_set(&n->map, &c.parents[i], COMMON, NULL)) ||
			    !(pf & POPPED))
				continue;
			if (nr == alloc) {
				struct wg_oid *v = wg_realloc(stack, 2 * alloc * sizeof(*v));
				if (!v) {
					err = nomem();
					break;
				}
				stack = v;
				alloc *= 2;
			}
			stack[nr++] = c.parents[i];
		}
		wg_commit_release(&c);
	}
	wg_free(stack);
	return err;
}
