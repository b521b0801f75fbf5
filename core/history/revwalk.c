/* The revision walk (see revwalk.h), in the steps of git's revision.c:
 * process_parents, try_to_simplify_commit, limit_list,
 * sort_in_topological_order and get_commit_action. */
#include "history/revwalk.h"

#include <stdint.h>
#include <string.h>

#include "diff/tree_diff.h"
#include "history/merge_base.h"
#include "history/node_queue.h"
#include "object/object.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/pathspec.h"

enum {
	SEEN = 1u << 0,          /* queued once */
	ADDED = 1u << 1,         /* its parents were queued */
	UNINTERESTING = 1u << 2, /* hidden */
	BOTTOM = 1u << 3,        /* hidden by the caller (a boundary of a range) */
	TREESAME = 1u << 4,      /* changed nothing the paths match */
	LEFT = 1u << 5,          /* reached from the left of a...b */
	IN_QUEUE = 1u << 6,
	SHOWN = 1u << 7,
	PARENTS_READ = 1u << 8,  /* its parents are parsed, the missing dropped */
};

/* git's SLOP: commits walked after all left are hidden, for clock skew */
#define SLOP 5

struct node_vec {
	struct wg_commit_node **v;
	size_t n, alloc;
};

struct wg_revwalk {
	struct wg_commit_nodes set;
	struct wg_revwalk_options o;
	struct node_vec starts;          /* in the order given */
	struct wg_node_queue queue;
	bool prepared, limited, symmetric;
	struct node_vec list;            /* limited: the commits to consider */
	size_t list_at;
	struct node_vec reversed;        /* --reverse: all that is shown */
	size_t skipped, shown;
	struct wg_diff_changes changes;  /* scratch for tree compares */
	bool follow;                     /* o.follow, set up */
	struct wg_follow follower;
	struct wg_diff_changes follow_changes;  /* the last yielded commit's diff */
	bool follow_found;
	struct wg_commit_node *follow_retry;    /* its diff failed: tried again next */
};

static int vec_add(struct node_vec *v, struct wg_commit_node *n)
{
	if (v->n == v->alloc) {
		size_t a = v->alloc ? 2 * v->alloc : 64;
		struct wg_commit_node **p = wg_realloc(v->v, a * sizeof(*p));
		if (!p)
			return wg_error_set(WG_ENOMEM, "out of memory in a history walk");
		v->v = p;
		v->alloc = a;
	}
	v->v[v->n++] = n;
	return 0;
}

int wg_revwalk_new(struct wg_revwalk **out, struct wg_odb *odb,
		   const struct wg_revwalk_options *opts)
{
	struct wg_revwalk *w = wg_calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return wg_error_set(WG_ENOMEM, "out of memory");
	wg_commit_nodes_init(&w->set, odb);
	/* what a log prints of a commit it yields, without reading it again */
	if (wg_commit_nodes_keep_recent(&w->set, 128)) {
		wg_free(w);
		return WG_ENOMEM;
	}
	if (opts) {
		w->o = *opts;
		w->set.shallow = opts->shallow;
	} else {
		w->o.max_parents = -1;
		w->o.max_count = SIZE_MAX;
	}
	if (w->o.follow) {
		int err;
		if (!w->o.paths || w->o.paths->nr != 1) {
			wg_revwalk_free(w);
			return wg_error_set(WG_EINVALID, "--follow requires exactly one pathspec");
		}
		if ((err = wg_follow_init(&w->follower, w->o.paths->items[0].match, w->o.follow_score,
					  w->o.follow_limit))) {
			wg_revwalk_free(w);
			return err;
		}
		w->follow = true;
		w->o.paths = NULL;   /* no pruning: the path changes */
	}
	*out = w;
	return 0;
}

void wg_revwalk_free(struct wg_revwalk *w)
{
	if (!w)
		return;
	wg_free(w->starts.v);
	wg_free(w->list.v);
	wg_free(w->reversed.v);
	wg_node_queue_release(&w->queue);
	wg_diff_changes_release(&w->changes);
	wg_diff_changes_release(&w->follow_changes);
	if (w->follow)
		wg_follow_release(&w->follower);
	wg_commit_nodes_release(&w->set);
	wg_free(w);
}

/* Parse n (git's parse_commit: its parents are known, not read), and
 * drop the parents that are not in the repository: a shallow clone's
 * boundary commit has none as far as a walk is concerned. */
static int parse_node(struct wg_revwalk *w, struct wg_commit_node *n)
{
	int err;
	uint32_t kept = 0;

	if (n->flags & PARENTS_READ)
		return 0;
	if ((err = wg_commit_nodes_parse(&w->set, n)))
		return err;
	n->flags |= PARENTS_READ;
	for (uint32_t i = 0; i < n->nparents; i++) {
		struct wg_commit_node *p = n->parents[i];
		if (!p->parsed && !p->missing) {
			int r = wg_odb_exists(wg_commit_nodes_odb(&w->set), &p->oid);
			if (r < 0)
				return r;
			p->missing = r == 0;
		}
		if (!p->missing)
			n->parents[kept++] = p;
	}
	n->nparents = kept;
	return 0;
}

static int mark_parents_uninteresting(struct wg_revwalk *w, struct wg_commit_node *c);

int wg_revwalk_push(struct wg_revwalk *w, const struct wg_oid *commit, unsigned how)
{
	struct wg_commit_node *n;
	int err;

	if ((err = wg_commit_nodes_get(&w->set, commit, &n)) || (err = parse_node(w, n)))
		return err;
	if (n->missing)
		return wg_error_set(WG_ENOTFOUND, "bad object %s", wg_oid_hex(commit));
	if (how & WG_REVWALK_HIDE) {
		n->flags |= UNINTERESTING | BOTTOM;
		w->limited = true;
		if ((err = mark_parents_uninteresting(w, n)))
			return err;
	}
	if (how & WG_REVWALK_LEFT)
		n->flags |= LEFT;
	if (n->flags & SEEN)
		return 0;
	n->flags |= SEEN;
	return vec_add(&w->starts, n);
}

static int resolve_commit(struct wg_oid *out, struct wg_repo *repo, const char *spec)
{
	struct wg_oid oid;
	int err;

	if ((err = wg_revparse(&oid, repo, spec)) ||
	    (err = wg_object_peel(out, repo, &oid, WG_OBJ_COMMIT))) {
		if (err != WG_ENOMEM)
			err = wg_error_set(WG_ENOTFOUND, "bad revision '%s'", spec);
		return err;
	}
	return 0;
}

int wg_revwalk_push_arg(struct wg_revwalk *w, struct wg_repo *repo, const char *arg, bool not)
{
	const char *dots = strstr(arg, "..");
	unsigned hide = not ? WG_REVWALK_HIDE : 0;
	int err;

	if (dots) {
		bool sym = dots[2] == '.';
		char *a = wg_strndup(arg, (size_t)(dots - arg));
		const char *bs = dots + (sym ? 3 : 2);
		struct wg_oid ao, bo;
		if (!a)
			return wg_error_set(WG_ENOMEM, "out of memory");
		err = resolve_commit(&ao, repo, *a ? a : "HEAD");
		wg_free(a);
		if (err || (err = resolve_commit(&bo, repo, *bs ? bs : "HEAD")))
			return err;
		if (sym) {
			struct wg_oid_list bases = { 0 };
			w->symmetric = true;
			err = wg_merge_bases_in(&bases, &w->set, &ao, &bo, 1);
			for (size_t i = 0; i < bases.n && !err; i++)
				err = wg_revwalk_push(w, &bases.v[i], hide ^ WG_REVWALK_HIDE);
			wg_oid_list_release(&bases);
			if (err || (err = wg_revwalk_push(w, &ao, hide | WG_REVWALK_LEFT)))
				return err;
			return wg_revwalk_push(w, &bo, hide);
		}
		if ((err = wg_revwalk_push(w, &ao, hide ^ WG_REVWALK_HIDE)))
			return err;
		return wg_revwalk_push(w, &bo, hide);
	}
	if (*arg == '^') {
		arg++;
		hide ^= WG_REVWALK_HIDE;
	}
	{
		struct wg_oid oid;
		if ((err = resolve_commit(&oid, repo, arg)))
			return err;
		return wg_revwalk_push(w, &oid, hide);
	}
}

bool wg_revwalk_symmetric(const struct wg_revwalk *w)
{
	return w->symmetric;
}

bool wg_revwalk_is_left(const struct wg_commit_node *n)
{
	return (n->flags & LEFT) != 0;
}

void wg_revwalk_rebind(struct wg_revwalk *w, struct wg_odb *odb)
{
	w->set.odb = odb;
}

static int queue_push(struct wg_revwalk *w, struct wg_commit_node *n)
{
	n->flags |= IN_QUEUE;
	return wg_node_queue_push(&w->queue, n);
}

static struct wg_commit_node *queue_pop(struct wg_revwalk *w)
{
	struct wg_commit_node *n = wg_node_queue_pop(&w->queue);
	if (n)
		n->flags &= ~IN_QUEUE;
	return n;
}

/* git's mark_parents_uninteresting: the parents already read, and
 * theirs, depth first. */
static int mark_parents_uninteresting(struct wg_revwalk *w, struct wg_commit_node *c)
{
	struct node_vec stack = { 0 };
	int err = 0;

	for (uint32_t i = 0; i < c->nparents && !err; i++)
		err = vec_add(&stack, c->parents[i]);
	while (!err && stack.n) {
		struct wg_commit_node *p = stack.v[--stack.n];
		if (p->flags & UNINTERESTING)
			continue;
		p->flags |= UNINTERESTING;
		if (p->parsed)
			for (uint32_t i = 0; i < p->nparents && !err; i++)
				err = vec_add(&stack, p->parents[i]);
	}
	wg_free(stack.v);
	return err;
}

static bool relevant(const struct wg_commit_node *n)
{
	return (n->flags & (UNINTERESTING | BOTTOM)) != UNINTERESTING;
}

/* Did anything the paths match change from `from` (NULL: the empty
 * tree) to `to`? */
static int paths_changed(struct wg_revwalk *w, const struct wg_oid *from, const struct wg_oid *to,
			 bool *changed)
{
	struct wg_tree_diff_options o = { 0 };
	int err;

	o.paths = w->o.paths;
	o.quick = true;
	w->changes.rename_limit_needed = 0;
	err = wg_diff_trees(&w->changes, wg_commit_nodes_odb(&w->set), from, to, &o);
	*changed = w->changes.n > 0;
	wg_diff_changes_release(&w->changes);
	return err;
}

/* git's try_to_simplify_commit. */
static int simplify(struct wg_revwalk *w, struct wg_commit_node *c)
{
	unsigned relevant_parents = 0;
	bool relevant_change = false, irrelevant_change = false, changed;
	int err;

	if (!w->o.paths || !w->o.paths->nr)
		return 0;
	if (!c->nparents) {
		if ((err = paths_changed(w, NULL, &c->tree, &changed)))
			return err;
		if (!changed)
			c->flags |= TREESAME;
		return 0;
	}
	for (uint32_t k = 0; k < c->nparents; k++) {
		struct wg_commit_node *p = c->parents[k];
		if (relevant(p))
			relevant_parents++;
		if (k == 1 && w->o.first_parent)
			break;
		if ((err = parse_node(w, p)) ||
		    (err = paths_changed(w, &p->tree, &c->tree, &changed)))
			return err;
		if (!changed) {
			if (w->o.full_history || !relevant(p))
				continue;
			/* follow only the parent it is the same as */
			c->parents[0] = p;
			c->nparents = 1;
			c->flags |= TREESAME;
			return 0;
		}
		if (relevant(p))
			relevant_change = true;
		else
			irrelevant_change = true;
	}
	if (relevant_parents ? !relevant_change : !irrelevant_change)
		c->flags |= TREESAME;
	return 0;
}

/* git's process_parents: queue the parents of c once. */
static int process_parents(struct wg_revwalk *w, struct wg_commit_node *c)
{
	int err;

	if (c->flags & ADDED)
		return 0;
	c->flags |= ADDED;
	if ((err = parse_node(w, c)))
		return err;
	if (c->flags & UNINTERESTING) {
		for (uint32_t i = 0; i < c->nparents; i++) {
			struct wg_commit_node *p = c->parents[i];
			p->flags |= UNINTERESTING;
			if ((err = parse_node(w, p)))
				return err;
			if (p->nparents && (err = mark_parents_uninteresting(w, p)))
				return err;
			if (p->flags & SEEN)
				continue;
			p->flags |= SEEN;
			if ((err = queue_push(w, p)))
				return err;
		}
		return 0;
	}
	if ((err = simplify(w, c)))
		return err;
	for (uint32_t i = 0; i < c->nparents; i++) {
		struct wg_commit_node *p = c->parents[i];
		if ((err = parse_node(w, p)))
			return err;
		p->flags |= c->flags & LEFT;
		if (!(p->flags & SEEN)) {
			p->flags |= SEEN;
			if ((err = queue_push(w, p)))
				return err;
		}
		if (w->o.first_parent)
			break;
	}
	return 0;
}

/* Is a commit in the queue not hidden? (git's everybody_uninteresting,
 * with its cache of the last one found) */
static bool anybody_interesting(struct wg_revwalk *w, struct wg_commit_node **cache)
{
	if (*cache && ((*cache)->flags & (IN_QUEUE | UNINTERESTING)) == IN_QUEUE)
		return true;
	for (size_t i = 0; i < w->queue.nr; i++) {
		struct wg_commit_node *n = w->queue.heap[i].node;
		if (!(n->flags & UNINTERESTING)) {
			*cache = n;
			return true;
		}
	}
	return false;
}

/* git's still_interesting: how much slop is left. */
static int still_interesting(struct wg_revwalk *w, uint64_t date, int slop,
			     struct wg_commit_node **cache)
{
	if (!w->queue.nr)
		return 0;
	if (date <= w->queue.heap[0].node->date)
		return SLOP;
	if (anybody_interesting(w, cache))
		return SLOP;
	return slop - 1;
}

/* git's limit_list: the whole walk, up front. */
static int limit_list(struct wg_revwalk *w)
{
	struct wg_commit_node *c, *cache = NULL;
	uint64_t date = UINT64_MAX;
	int slop = SLOP, err;

	while ((c = queue_pop(w))) {
		if ((err = process_parents(w, c)))
			return err;
		if (c->flags & UNINTERESTING) {
			if ((err = mark_parents_uninteresting(w, c)))
				return err;
			if ((slop = still_interesting(w, date, slop, &cache)))
				continue;
			break;
		}
		date = c->date;
		if ((err = vec_add(&w->list, c)))
			return err;
	}
	return 0;
}

/* git's sort_in_topological_order; the indegree is kept in util. */
static int topo_sort(struct wg_revwalk *w)
{
	struct wg_node_queue q = WG_NODE_QUEUE_INIT;
	struct node_vec out = { 0 };
	struct wg_commit_node *c;
	int err = 0;

	q.stack = w->o.order == WG_REVWALK_ORDER_TOPO;
	for (size_t i = 0; i < w->list.n; i++)
		w->list.v[i]->util = (void *)(uintptr_t)1;
	for (size_t i = 0; i < w->list.n; i++) {
		c = w->list.v[i];
		for (uint32_t k = 0; k < c->nparents; k++) {
			struct wg_commit_node *p = c->parents[k];
			if (p->util)
				p->util = (void *)((uintptr_t)p->util + 1);
		}
	}
	for (size_t i = 0; i < w->list.n && !err; i++)
		if ((uintptr_t)w->list.v[i]->util == 1)
			err = wg_node_queue_push(&q, w->list.v[i]);
	if (q.stack)
		wg_node_queue_reverse(&q);
	while (!err && (c = wg_node_queue_pop(&q))) {
		for (uint32_t k = 0; k < c->nparents && !err; k++) {
			struct wg_commit_node *p = c->parents[k];
			uintptr_t d = (uintptr_t)p->util;
			if (!d)
				continue;
			p->util = (void *)(d - 1);
			if (d - 1 == 1)
				err = wg_node_queue_push(&q, p);
		}
		c->util = NULL;
		if (!err)
			err = vec_add(&out, c);
	}
	wg_node_queue_release(&q);
	if (err) {
		wg_free(out.v);
		return err;
	}
	wg_free(w->list.v);
	w->list = out;
	return 0;
}

/* git's stable sort of the starting commits by date. */
static void sort_starts(struct node_vec *v)
{
	for (size_t i = 1; i < v->n; i++) {
		struct wg_commit_node *c = v->v[i];
		size_t j = i;
		for (; j && v->v[j - 1]->date < c->date; j--)
			v->v[j] = v->v[j - 1];
		v->v[j] = c;
	}
}

static int prepare(struct wg_revwalk *w)
{
	int err;

	w->prepared = true;
	if (w->o.order != WG_REVWALK_ORDER_DEFAULT)
		w->limited = true;
	sort_starts(&w->starts);
	for (size_t i = 0; i < w->starts.n; i++)
		if ((err = queue_push(w, w->starts.v[i])))
			return err;
	if (!w->limited)
		return 0;
	if ((err = limit_list(w)))
		return err;
	if (w->o.order != WG_REVWALK_ORDER_DEFAULT && (err = topo_sort(w)))
		return err;
	return 0;
}

/* git's get_commit_action: is c shown? */
static bool shown(const struct wg_revwalk *w, const struct wg_commit_node *c)
{
	if (c->flags & (UNINTERESTING | SHOWN))
		return false;
	if ((w->o.min_parents && c->nparents < w->o.min_parents) ||
	    (w->o.max_parents >= 0 && c->nparents > (unsigned)w->o.max_parents))
		return false;
	if (w->o.paths && w->o.paths->nr && (c->flags & TREESAME))
		return false;
	return true;
}

/* The next commit git's get_revision_1 would return. */
static int next_shown(struct wg_revwalk *w, struct wg_commit_node **out)
{
	struct wg_commit_node *c;
	int err;

	for (;;) {
		if (w->limited) {
			if (w->list_at == w->list.n)
				return 0;
			c = w->list.v[w->list_at++];
		} else {
			if (!(c = queue_pop(w)))
				return 0;
			if ((err = process_parents(w, c)))
				return err;
		}
		if (shown(w, c)) {
			c->flags |= SHOWN;
			*out = c;
			return 1;
		}
	}
}

/* With --skip applied, and -n when `limit` (with follow, -n counts
 * the commits shown, not those walked; see next_followed). */
static int next_counted(struct wg_revwalk *w, struct wg_commit_node **out, bool limit)
{
	int r;

	if (limit && w->shown >= w->o.max_count)
		return 0;
	for (;;) {
		if ((r = next_shown(w, out)) <= 0)
			return r;
		if (w->skipped < w->o.skip) {
			w->skipped++;
			continue;
		}
		if (limit)
			w->shown++;
		return 1;
	}
}

/* git's log_tree_diff under --follow: does c have a diff to show? Its
 * diff is left in follow_changes. */
static int follow_shows(struct wg_revwalk *w, struct wg_commit_node *c, bool *shows)
{
	const struct wg_oid *parent_tree = NULL;
	int err;

	*shows = false;
	wg_diff_changes_release(&w->follow_changes);
	w->follow_found = false;
	if ((err = parse_node(w, c)))
		return err;
	/* git log shows merges no diff, but --first-parent diffs them
	 * against that parent */
	if (c->nparents > 1 && !w->o.first_parent)
		return 0;
	if (c->nparents) {
		struct wg_commit_node *p = c->parents[0];
		if ((err = parse_node(w, p)))
			return err;
		parent_tree = &p->tree;
	}
	if ((err = wg_follow_diff(&w->follower, wg_commit_nodes_odb(&w->set), parent_tree, &c->tree,
				  &w->follow_changes, &w->follow_found)))
		return err;
	*shows = w->follow_changes.n > 0;
	return 0;
}

/* The next commit with a diff under --follow, from the walk or the
 * reversed list. git's cmd_log_walk gives back the -n a commit without
 * a diff took, unless the list was already reversed. */
static int next_followed(struct wg_revwalk *w, struct wg_commit_node **out)
{
	struct wg_commit_node *c;
	bool shows;
	int r, err;

	for (;;) {
		if (w->follow_retry) {
			c = w->follow_retry;
			w->follow_retry = NULL;
		} else if (w->o.reverse) {
			if (!w->reversed.n)
				return 0;
			c = w->reversed.v[--w->reversed.n];
		} else {
			if (w->shown >= w->o.max_count)
				return 0;
			if ((r = next_counted(w, &c, false)) <= 0)
				return r;
		}
		if ((err = follow_shows(w, c, &shows))) {
			/* a blob-less clone's driver may fetch and call again */
			w->follow_retry = c;
			return err;
		}
		if (shows) {
			if (!w->o.reverse)
				w->shown++;
			*out = c;
			return 1;
		}
	}
}

int wg_revwalk_next(struct wg_revwalk *w, struct wg_commit_node **out)
{
	int err, r;

	if (!w->prepared) {
		if ((err = prepare(w)))
			return err;
		if (w->o.reverse) {
			struct wg_commit_node *c;
			while ((r = next_counted(w, &c, true)) > 0)
				if ((err = vec_add(&w->reversed, c)))
					return err;
			if (r < 0)
				return r;
		}
	}
	if (w->follow)
		return next_followed(w, out);
	if (w->o.reverse) {
		if (!w->reversed.n)
			return 0;
		*out = w->reversed.v[--w->reversed.n];
		return 1;
	}
	return next_counted(w, out, true);
}

const struct wg_diff_changes *wg_revwalk_follow_changes(const struct wg_revwalk *w, bool *found)
{
	if (found)
		*found = w->follow_found;
	return &w->follow_changes;
}

const struct wg_buf *wg_revwalk_commit_bytes(const struct wg_revwalk *w, const struct wg_oid *oid)
{
	return wg_commit_nodes_recent(&w->set, oid);
}

const struct wg_oid *wg_revwalk_follow_missing(const struct wg_revwalk *w, size_t *n)
{
	*n = 0;
	return w->follow ? wg_follow_missing(&w->follower, n) : NULL;
}

const char *wg_revwalk_follow_path(const struct wg_revwalk *w)
{
	return w->follow ? wg_follow_path(&w->follower) : NULL;
}

int wg_revwalk_count(struct wg_revwalk *w, size_t *total, size_t *left, size_t *right)
{
	struct wg_commit_node *c;
	size_t t = 0, l = 0;
	int r;

	while ((r = wg_revwalk_next(w, &c)) > 0) {
		t++;
		if (c->flags & LEFT)
			l++;
	}
	if (r < 0)
		return r;
	if (total)
		*total = t;
	if (left)
		*left = l;
	if (right)
		*right = t - l;
	return 0;
}
