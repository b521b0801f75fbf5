#include "odb/reachable.h"

#include <string.h>

#include "hash/oidmap.h"
#include "odb/commit_queue.h"
#include "object/commit.h"
#include "object/ident.h"
#include "object/tag.h"
#include "object/tree.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

enum {
	SEEN = 1,          /* queued once */
	UNINTERESTING = 2, /* the receiver has it */
	SENT = 4,          /* emitted (trees and blobs) */
	INTERESTING = 8,   /* reached from a tip */
	SHALLOW = 16,      /* a shallow boundary: its parents are not here */
};

struct walk {
	struct wg_odb *odb;
	struct wg_oidmap map;
	struct wg_commit_queue queue;  /* tag 1: counted in interesting_queued */
	size_t interesting_queued;     /* queue entries not UNINTERESTING */
	struct wg_oid *commits;        /* interesting commits, walk order */
	size_t ncommits, commits_alloc;
	struct wg_buf buf, path;
	wg_reachable_fn fn;
	wg_boundary_fn boundary;
	void *payload;
	bool promisor;                 /* missing trees and blobs are promised */
};

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory walking objects");
}

static void walk_release(struct walk *w)
{
	wg_commit_queue_release(&w->queue);
	wg_free(w->commits);
	wg_buf_release(&w->buf);
	wg_buf_release(&w->path);
	wg_oidmap_release(&w->map);
}

static int read_commit(struct walk *w, const struct wg_oid *oid, struct wg_commit *c, bool *found)
{
	return wg_commit_read(w->odb, oid, c, &w->buf, found);
}

static int push(struct walk *w, const struct wg_oid *oid, uint64_t date, bool counted)
{
	int err = wg_commit_queue_push(&w->queue, oid, date, counted);
	if (!err && counted)
		w->interesting_queued++;
	return err;
}

/* Queue a commit with `bits` (INTERESTING or UNINTERESTING). */
static int queue(struct walk *w, const struct wg_oid *oid, unsigned bits, bool must_exist)
{
	struct wg_commit c;
	unsigned old;
	bool found;
	int err;

	if ((err = wg_oidmap_set(&w->map, oid, bits, &old)))
		return err;
	if (old & SEEN) {
		/* Already queued or walked; an UNINTERESTING mark still
		 * spreads when the commit is popped or was popped (below). */
		return 0;
	}
	if ((err = read_commit(w, oid, &c, &found)))
		goto done;
	if (!found) {
		if (must_exist)
			err = wg_error_set(WG_ENOTFOUND, "object %s not found", wg_oid_hex(oid));
		goto done;
	}
	if ((err = wg_oidmap_set(&w->map, oid, SEEN, NULL)) ||
	    (err = push(w, oid, wg_commit_date(&c), !(bits & UNINTERESTING))))
		goto done;
done:
	wg_commit_release(&c);
	return err;
}

/* Trees are walked with an explicit stack, never by recursion, so a tree
 * nested thousands deep costs heap, not C stack (in WebAssembly a deep
 * recursion would overflow it); the depth is bounded by max_tree_depth
 * (core.maxTreeDepth). */
struct tree_frame {
	struct wg_buf data;
	struct wg_tree_iter it;
	size_t base;           /* length of w->path for this tree */
};

struct tree_stack {
	struct tree_frame *v;
	size_t nr, alloc;
};

static void tree_stack_release(struct tree_stack *st)
{
	while (st->nr)
		wg_buf_release(&st->v[--st->nr].data);
	wg_free(st->v);
	st->v = NULL;
	st->alloc = 0;
}

/* Read `tree` and push it. *pushed is false (and 0 returned) when it is
 * missing and that is allowed (`missing_ok`). */
static int tree_stack_push(struct walk *w, struct tree_stack *st, const struct wg_oid *tree,
			   size_t base, bool missing_ok, bool *pushed)
{
	struct tree_frame *f;
	enum wg_object_type type;
	int err;

	*pushed = false;
	if ((err = wg_limits_check_tree_depth(wg_odb_limits(w->odb), st->nr, wg_oid_hex(tree))))
		return err;
	if (st->nr == st->alloc) {
		size_t a = st->alloc ? 2 * st->alloc : 16;
		struct tree_frame *v = wg_realloc(st->v, a * sizeof(*v));
		if (!v)
			return nomem();
		st->v = v;
		st->alloc = a;
	}
	f = &st->v[st->nr];
	memset(f, 0, sizeof(*f));
	if ((err = wg_odb_read(w->odb, tree, &type, &f->data))) {
		wg_buf_release(&f->data);
		if (err == WG_ENOTFOUND && missing_ok) {
			wg_error_clear();
			return 0;
		}
		return err;
	}
	/* The iterator points into the buffer's heap memory, which stays put
	 * when the frame array moves. */
	wg_tree_iter_init(&f->it, wg_odb_algo(w->odb), f->data.data, f->data.len);
	f->base = base;
	st->nr++;
	*pushed = true;
	return 0;
}

static void tree_stack_pop(struct tree_stack *st)
{
	wg_buf_release(&st->v[--st->nr].data);
}

/* Mark a tree and everything in it as the receiver's. Missing trees (under
 * a have) are simply not walked. */
static int mark_tree_entries(struct walk *w, const struct wg_oid *tree)
{
	struct tree_stack st = { NULL, 0, 0 };
	bool pushed;
	int err;

	if ((err = tree_stack_push(w, &st, tree, 0, true, &pushed)))
		goto done;
	while (st.nr) {
		struct wg_tree_entry e;
		enum wg_object_type t;
		unsigned old;
		err = wg_tree_iter_next(&st.v[st.nr - 1].it, &e);
		if (err == WG_ITEROVER) {
			tree_stack_pop(&st);
			err = 0;
			continue;
		}
		if (err)
			break;
		t = wg_tree_mode_type(e.mode);
		if (t == WG_OBJ_TREE) {
			if ((err = wg_oidmap_set(&w->map, &e.oid, UNINTERESTING, &old)))
				break;
			if (!(old & UNINTERESTING) &&
			    (err = tree_stack_push(w, &st, &e.oid, 0, true, &pushed)))
				break;
		} else if (t == WG_OBJ_BLOB &&
			   (err = wg_oidmap_set(&w->map, &e.oid, UNINTERESTING, NULL))) {
			break;
		}
	}
done:
	tree_stack_release(&st);
	return err;
}

static int mark_tree(struct walk *w, const struct wg_oid *tree)
{
	unsigned old;
	int err;

	if ((err = wg_oidmap_set(&w->map, tree, UNINTERESTING, &old)) || (old & UNINTERESTING))
		return err;
	return mark_tree_entries(w, tree);
}

static int walk_commits(struct walk *w)
{
	int err = 0;

	/* Stop once only commits the receiver has are left to walk. */
	while (w->queue.nr && w->interesting_queued && !err) {
		struct wg_commit_qent q = wg_commit_queue_pop(&w->queue);
		unsigned flags = wg_oidmap_get(&w->map, &q.oid);
		bool found, unint = flags & UNINTERESTING;
		struct wg_commit c;

		if (q.tag)
			w->interesting_queued--;
		if ((err = read_commit(w, &q.oid, &c, &found)) || !found) {
			wg_commit_release(&c);
			break;
		}
		if (unint) {
			err = mark_tree(w, &c.tree);
		} else {
			if (w->ncommits == w->commits_alloc) {
				size_t a = w->commits_alloc ? 2 * w->commits_alloc : 64;
				struct wg_oid *v = wg_realloc(w->commits, a * sizeof(*v));
				if (!v) {
					wg_commit_release(&c);
					return nomem();
				}
				w->commits = v;
				w->commits_alloc = a;
			}
			w->commits[w->ncommits++] = q.oid;
		}
		for (size_t i = 0; i < c.nparents && !err && !(flags & SHALLOW); i++) {
			unsigned pf = wg_oidmap_get(&w->map, &c.parents[i]);
			if (unint && (pf & SEEN) && !(pf & UNINTERESTING)) {
				/* It was queued as interesting: now it is not. */
				err = wg_oidmap_set(&w->map, &c.parents[i], UNINTERESTING, NULL);
				continue;
			}
			err = queue(w, &c.parents[i], unint ? UNINTERESTING : INTERESTING, !unint);
		}
		wg_commit_release(&c);
	}
	return err;
}

/* A tree met at w->path: report it as a boundary, or mark it sent, emit it
 * and push it to be walked. */
static int visit_tree(struct walk *w, struct tree_stack *st, const struct wg_oid *tree)
{
	unsigned old, f = wg_oidmap_get(&w->map, tree);
	bool pushed;
	int err;

	if (f & (UNINTERESTING | SENT)) {
		if ((f & UNINTERESTING) && w->boundary)
			return w->boundary(tree, wg_buf_cstr(&w->path), w->payload);
		return 0;
	}
	if ((err = wg_oidmap_set(&w->map, tree, SENT, &old)) ||
	    (err = tree_stack_push(w, st, tree, w->path.len, w->promisor, &pushed)) || !pushed)
		return err;
	return w->fn(tree, WG_OBJ_TREE, wg_buf_cstr(&w->path), w->payload);
}

/* Emit a tree and everything in it not yet sent nor the receiver's, each
 * with the path it was reached by. */
static int emit_tree(struct walk *w, const struct wg_oid *tree)
{
	struct tree_stack st = { NULL, 0, 0 };
	size_t keep = w->path.len;
	int err;

	err = visit_tree(w, &st, tree);
	while (!err && st.nr) {
		struct tree_frame *top = &st.v[st.nr - 1];
		struct wg_tree_entry e;
		enum wg_object_type t;
		unsigned f;

		err = wg_tree_iter_next(&top->it, &e);
		if (err == WG_ITEROVER) {
			tree_stack_pop(&st);
			err = 0;
			continue;
		}
		if (err)
			break;
		t = wg_tree_mode_type(e.mode);
		if (t == WG_OBJ_COMMIT)
			continue;   /* a submodule's commit lives elsewhere */
		wg_buf_setlen(&w->path, top->base);
		if ((top->base && (err = wg_buf_addch(&w->path, '/'))) ||
		    (err = wg_buf_add(&w->path, e.name, e.namelen)))
			break;
		if (t == WG_OBJ_TREE) {
			err = visit_tree(w, &st, &e.oid);
		} else {
			f = wg_oidmap_get(&w->map, &e.oid);
			if (f & UNINTERESTING)
				err = w->boundary ? w->boundary(&e.oid, wg_buf_cstr(&w->path),
								w->payload) : 0;
			else if (!(f & SENT) &&
				 !(err = wg_oidmap_set(&w->map, &e.oid, SENT, NULL)))
				err = w->fn(&e.oid, WG_OBJ_BLOB, wg_buf_cstr(&w->path), w->payload);
		}
	}
	tree_stack_release(&st);
	wg_buf_setlen(&w->path, keep);
	return err;
}

/* Annotated tags among the tips: send them, walk what they point at. */
static int peel_tip(struct walk *w, const struct wg_oid *tip, struct wg_oid *commit, bool *is_commit)
{
	struct wg_oid cur = *tip;
	enum wg_object_type type;
	int err;

	*is_commit = false;
	for (int depth = 0; depth < 16; depth++) {
		struct wg_tag tag;
		if ((err = wg_odb_read(w->odb, &cur, &type, &w->buf)))
			return err;
		if (type != WG_OBJ_TAG)
			break;
		if (!(wg_oidmap_get(&w->map, &cur) & SENT)) {
			if ((err = wg_oidmap_set(&w->map, &cur, SENT, NULL)) ||
			    (err = w->fn(&cur, WG_OBJ_TAG, "", w->payload)))
				return err;
		}
		wg_tag_init(&tag);
		if ((err = wg_odb_read(w->odb, &cur, &type, &w->buf)) ||
		    (err = wg_tag_parse(&tag, wg_odb_algo(w->odb), w->buf.data, w->buf.len))) {
			wg_tag_release(&tag);
			return err;
		}
		cur = tag.object;
		wg_tag_release(&tag);
	}
	if (type == WG_OBJ_COMMIT) {
		*commit = cur;
		*is_commit = true;
		return 0;
	}
	if (type == WG_OBJ_TREE)
		return emit_tree(w, &cur);
	if (!(wg_oidmap_get(&w->map, &cur) & (SENT | UNINTERESTING)) &&
	    !(err = wg_oidmap_set(&w->map, &cur, SENT, NULL)))
		return w->fn(&cur, type, "", w->payload);
	return 0;
}

/* What the receiver has: a commit joins the walk as uninteresting; tags
 * are peeled; a tree or blob is marked with everything below it. Objects
 * we do not have are skipped (we cannot use them anyway). */
static int mark_have(struct walk *w, const struct wg_oid *have)
{
	struct wg_oid cur = *have;
	enum wg_object_type type;
	int err;

	for (int depth = 0; depth < 16; depth++) {
		struct wg_tag tag;
		err = wg_odb_read(w->odb, &cur, &type, &w->buf);
		if (err == WG_ENOTFOUND) {
			wg_error_clear();
			return 0;
		}
		if (err)
			return err;
		if ((err = wg_oidmap_set(&w->map, &cur, UNINTERESTING, NULL)))
			return err;
		if (type != WG_OBJ_TAG)
			break;
		wg_tag_init(&tag);
		err = wg_tag_parse(&tag, wg_odb_algo(w->odb), w->buf.data, w->buf.len);
		cur = tag.object;
		wg_tag_release(&tag);
		if (err)
			return err;
	}
	if (type == WG_OBJ_COMMIT)
		return queue(w, &cur, UNINTERESTING, false);
	if (type == WG_OBJ_TREE)
		return mark_tree_entries(w, &cur);   /* the tree itself is marked above */
	return 0;
}

static int run_walk(struct walk *wp, const struct wg_oid *tips, size_t ntips,
		    const struct wg_oid *haves, size_t nhaves)
{
	struct walk w = *wp;
	struct wg_odb *odb = w.odb;
	wg_reachable_fn fn = w.fn;
	void *payload = w.payload;
	struct wg_oid *later = NULL;
	size_t nlater = 0;
	int err = 0;

	for (size_t i = 0; i < nhaves && !err; i++)
		err = mark_have(&w, &haves[i]);
	if (!err && !(later = wg_calloc(ntips ? ntips : 1, sizeof(*later))))
		err = nomem();
	/* Tags and non-commit tips wait until the walk knows what the
	 * receiver has; commits join the walk now. */
	for (size_t i = 0; i < ntips && !err; i++) {
		enum wg_object_type type;
		size_t size;
		if ((err = wg_odb_read_header(odb, &tips[i], &type, &size)))
			break;
		if (type == WG_OBJ_COMMIT)
			err = queue(&w, &tips[i], INTERESTING, true);
		else
			later[nlater++] = tips[i];
	}
	for (size_t i = 0; i < nlater && !err; i++) {
		struct wg_oid c;
		bool is_commit;
		/* a tag's commit joins the walk too */
		if (!(err = peel_tip(&w, &later[i], &c, &is_commit)) && is_commit)
			err = queue(&w, &c, INTERESTING, true);
	}
	if (!err)
		err = walk_commits(&w);
	/* Commits first (git's order), then their trees and blobs. */
	for (size_t i = 0; i < w.ncommits && !err; i++)
		if (!(wg_oidmap_get(&w.map, &w.commits[i]) & UNINTERESTING))
			err = fn(&w.commits[i], WG_OBJ_COMMIT, "", payload);
	for (size_t i = 0; i < w.ncommits && !err; i++) {
		struct wg_commit c;
		bool found;
		if (wg_oidmap_get(&w.map, &w.commits[i]) & UNINTERESTING)
			continue;
		if (!(err = read_commit(&w, &w.commits[i], &c, &found)) && found) {
			wg_buf_reset(&w.path);
			err = emit_tree(&w, &c.tree);
		}
		wg_commit_release(&c);
	}
	wg_free(later);
	walk_release(&w);
	return err;
}

int wg_odb_reachable(struct wg_odb *odb, const struct wg_oid *tips, size_t ntips,
		     const struct wg_oid *haves, size_t nhaves, wg_reachable_fn fn,
		     wg_boundary_fn boundary, void *payload)
{
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.odb = odb;
	w.fn = fn;
	w.boundary = boundary;
	w.payload = payload;
	return run_walk(&w, tips, ntips, haves, nhaves);
}

struct connected {
	struct wg_odb *odb;
	bool promisor;
};

static int check_present(const struct wg_oid *oid, enum wg_object_type type, const char *path,
			 void *payload)
{
	struct connected *c = payload;
	int have;

	(void)path;
	if (type != WG_OBJ_BLOB)
		return 0;   /* commits, trees and tags were read to get here */
	have = wg_odb_exists(c->odb, oid);
	if (have < 0)
		return have;
	if (!have && !c->promisor)
		return wg_error_set(WG_ENOTFOUND, "object %s not found", wg_oid_hex(oid));
	return 0;
}

int wg_odb_check_connected(struct wg_odb *odb, const struct wg_oid *tips, size_t ntips,
			   const struct wg_oid *haves, size_t nhaves,
			   const struct wg_oid *shallows, size_t nshallows, bool promisor)
{
	struct connected c = { odb, promisor };
	struct walk w;
	int err = 0;

	memset(&w, 0, sizeof(w));
	w.odb = odb;
	w.fn = check_present;
	w.payload = &c;
	w.promisor = promisor;
	for (size_t i = 0; i < nshallows && !err; i++)
		err = wg_oidmap_set(&w.map, &shallows[i], SHALLOW, NULL);
	if (!err)
		err = run_walk(&w, tips, ntips, haves, nhaves);
	else
		wg_oidmap_release(&w.map);
	if (err == WG_ENOTFOUND || err == WG_ECORRUPT)
		return wg_error_prefix("the remote did not send all necessary objects");
	return err;
}

int wg_odb_is_ancestor(struct wg_odb *odb, const struct wg_oid *ancestor,
		       const struct wg_oid *descendant, bool *out)
{
	struct walk w;
	int err;

	memset(&w, 0, sizeof(w));
	w.odb = odb;
	*out = false;
	err = queue(&w, descendant, INTERESTING, true);
	while (!err && w.queue.nr && !*out) {
		struct wg_commit_qent q = wg_commit_queue_pop(&w.queue);
		struct wg_commit c;
		bool found;
		if (wg_oid_equal(&q.oid, ancestor)) {
			*out = true;
			break;
		}
		if ((err = read_commit(&w, &q.oid, &c, &found)) || !found) {
			wg_commit_release(&c);
			break;
		}
		for (size_t i = 0; i < c.nparents && !err; i++)
			err = queue(&w, &c.parents[i], INTERESTING, false);
		wg_commit_release(&c);
	}
	walk_release(&w);
	return err;
}
