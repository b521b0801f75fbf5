#include "history/blame.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diff/line_diff.h"
#include "diff/rename.h"
#include "diff/tree_diff.h"
#include "hash/oidmap.h"
#include "object/ident.h"
#include "object/tree.h"
#include "odb/commit_queue.h"
#include "repo/revparse.h"
#include "repo/shallow.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"

/* git's blame_entry: num_lines lines from line lno of the blamed file
 * that are line s_lno on in the version of the suspect origin. Entries
 * are split where diffs cut them and never joined again until the end:
 * with -M/-C an entry's size decides whether it is worth looking for
 * elsewhere, so the pieces must be git's pieces. suspect -1: a part of
 * a split that does not exist. score: 0 until computed. */
struct entry {
	struct entry *next;
	long lno, s_lno, num_lines;
	long suspect;
	unsigned score;
};

struct origin {
	size_t commit;
	char *path;
	struct wg_oid blob;
	unsigned mode;
	struct entry *suspects;  /* sorted by s_lno while lines move on */
	long previous;          /* origin index, -1: none yet */
	bool guilty;
};

struct commit {
	struct wg_oid oid;
	struct wg_oid tree;
	struct wg_oid *parents;
	size_t nparents;
	uint64_t date;
	bool loaded, missing, boundary, queued;
	size_t *origins;
	size_t norigins;
	unsigned nguilty;
};

struct walk {
	struct wg_repo *repo;
	struct wg_odb *odb;
	const struct wg_blame_options *opts;
	unsigned move_score, copy_score;
	const char *final;          /* the blamed file, and where its lines start */
	size_t *line_starts;        /* nlines + 1 */
	struct wg_oidmap index;     /* commit id -> its index + 1 */
	struct wg_oidmap shallow;   /* the cut-off commits of a shallow clone */
	struct commit *commits;
	size_t ncommits, acommits;
	struct origin *origins;
	size_t norigins, aorigins;
	struct wg_commit_queue queue;
	struct entry *done;         /* lines that found their origin */
	struct wg_buf scratch;
	/* blaming the working tree's version: its commit (id all zeros) */
	const struct wg_blame_worktree *worktree;
	const char *worktree_path;
};

static int read_shallow(struct walk *w)
{
	return wg_repo_shallow_read(w->repo, &w->shallow);
}

/* The index of commit `oid` in w->commits, added unread if new. */
static int commit_at(struct walk *w, const struct wg_oid *oid, size_t *out)
{
	unsigned at = wg_oidmap_get(&w->index, oid);
	int err;

	if (at) {
		*out = at - 1;
		return 0;
	}
	if (w->ncommits >= UINT_MAX - 1)
		return wg_error_set(WG_ELIMIT, "blame: too many commits");
	if (w->ncommits == w->acommits) {
		size_t alloc = w->acommits ? 2 * w->acommits : 64;
		struct commit *v = wg_realloc(w->commits, alloc * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		w->commits = v;
		w->acommits = alloc;
	}
	memset(&w->commits[w->ncommits], 0, sizeof(w->commits[0]));
	w->commits[w->ncommits].oid = *oid;
	if ((err = wg_oidmap_set(&w->index, oid, (unsigned)w->ncommits + 1, NULL)))
		return err;
	*out = w->ncommits++;
	return 0;
}

/* Read the commit's tree, parents and date once. A missing commit (a
 * parent beyond what a clone has) is marked, not an error: git skips
 * parents it cannot parse. */
static int commit_load(struct walk *w, size_t at)
{
	struct commit *c = &w->commits[at];
	struct wg_commit parsed;
	bool found;
	int err;

	if (c->loaded)
		return 0;
	err = wg_commit_read(w->odb, &c->oid, &parsed, &w->scratch, &found);
	c = &w->commits[at];
	if (!err && !found)
		c->missing = true;
	if (!err && found) {
		c->tree = parsed.tree;
		c->date = wg_commit_date(&parsed);
		if (parsed.nparents && !wg_oidmap_get(&w->shallow, &c->oid)) {
			c->parents = parsed.parents;
			c->nparents = parsed.nparents;
			parsed.parents = NULL;
			parsed.nparents = 0;
		}
		c->boundary = !c->nparents && !w->opts->show_root;
	}
	c->loaded = !err;
	wg_commit_release(&parsed);
	return err;
}

/* The origin (commit, path), added with blob and mode if new (git's
 * get_origin: one origin per commit and path, so lines that reach it
 * along different ways meet again). */
static int origin_get(struct walk *w, size_t commit, const char *path, const struct wg_oid *blob,
		      unsigned mode, size_t *out)
{
	struct commit *c = &w->commits[commit];
	struct origin *o;
	size_t *list;
	size_t i;

	for (i = 0; i < c->norigins; i++)
		if (!strcmp(w->origins[c->origins[i]].path, path)) {
			*out = c->origins[i];
			return 0;
		}
	if (w->norigins == w->aorigins) {
		size_t alloc = w->aorigins ? 2 * w->aorigins : 64;
		struct origin *v = wg_realloc(w->origins, alloc * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		w->origins = v;
		w->aorigins = alloc;
	}
	list = wg_realloc(c->origins, (c->norigins + 1) * sizeof(*list));
	if (!list)
		return wg_error_set(WG_ENOMEM, "out of memory");
	c->origins = list;
	o = &w->origins[w->norigins];
	memset(o, 0, sizeof(*o));
	if (!(o->path = wg_strdup(path)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	o->commit = commit;
	o->blob = *blob;
	o->mode = mode;
	o->previous = -1;
	c->origins[c->norigins++] = w->norigins;
	*out = w->norigins++;
	return 0;
}


static int queue_commit(struct walk *w, size_t commit)
{
	struct commit *c = &w->commits[commit];
	int err;

	if (c->queued)
		return 0;
	if ((err = wg_commit_queue_push(&w->queue, &c->oid, c->date, (unsigned)commit)))
		return err;
	c->queued = true;
	return 0;
}

static struct entry *entry_new(const struct entry *from)
{
	struct entry *e = wg_malloc(sizeof(*e));

	if (e)
		*e = *from;
	return e;
}

static void entries_free(struct entry *e)
{
	while (e) {
		struct entry *next = e->next;
		wg_free(e);
		e = next;
	}
}

/* git's blame_merge: two lists sorted by s_lno into one, the first's
 * entries before the second's where they tie. */
static struct entry *entries_merge(struct entry *a, struct entry *b)
{
	struct entry *head = NULL, **tail = &head;

	while (a && b) {
		if (a->s_lno <= b->s_lno) {
			*tail = a;
			a = a->next;
		} else {
			*tail = b;
			b = b->next;
		}
		tail = &(*tail)->next;
	}
	*tail = a ? a : b;
	return head;
}

/* A stable merge sort of a list by (suspect, s_lno), as git's
 * distribute_blame sorts before it hands entries out. */
static bool entry_before(const struct entry *a, const struct entry *b)
{
	if (a->suspect != b->suspect)
		return a->suspect < b->suspect;
	return a->s_lno < b->s_lno;
}

static struct entry *entries_sort(struct entry *list)
{
	struct entry *a = NULL, *b = NULL, *head = NULL, **tail = &head;
	bool to_a = true;

	if (!list || !list->next)
		return list;
	while (list) {
		struct entry *next = list->next;
		struct entry **to = to_a ? &a : &b;
		list->next = *to;
		*to = list;
		to_a = !to_a;
		list = next;
	}
	/* the halves are reversed: sort them, then merge with ties
	 * going to the one that held the earlier entry */
	{
		struct entry *r = NULL;
		while (a) {
			struct entry *n = a->next;
			a->next = r;
			r = a;
			a = n;
		}
		a = r;
		r = NULL;
		while (b) {
			struct entry *n = b->next;
			b->next = r;
			r = b;
			b = n;
		}
		b = r;
	}
	a = entries_sort(a);
	b = entries_sort(b);
	while (a && b) {
		if (!entry_before(b, a)) {
			*tail = a;
			a = a->next;
		} else {
			*tail = b;
			b = b->next;
		}
		tail = &(*tail)->next;
	}
	*tail = a ? a : b;
	return head;
}

/* git's queue_blames: entries (sorted by s_lno) join the origin's
 * suspects; its commit is queued if it was not. */
static int queue_blames(struct walk *w, size_t to, struct entry *sorted)
{
	struct origin *o = &w->origins[to];

	if (!sorted)
		return 0;
	o->suspects = entries_merge(o->suspects, sorted);
	return queue_commit(w, o->commit);
}

/* git's distribute_blame: each entry to its suspect. */
static int distribute_blame(struct walk *w, struct entry *blamed)
{
	int err = 0;

	blamed = entries_sort(blamed);
	while (blamed) {
		struct entry *group = blamed, **tail = &blamed->next;
		long suspect = blamed->suspect;
		while (*tail && (*tail)->suspect == suspect)
			tail = &(*tail)->next;
		blamed = *tail;
		*tail = NULL;
		if (err)
			entries_free(group);
		else
			err = queue_blames(w, (size_t)suspect, group);
	}
	return err;
}

/* Lines the origin keeps: they are its own. */
static void keep(struct walk *w, size_t origin)
{
	struct entry *e = w->origins[origin].suspects, *last;

	if (!e)
		return;
	for (last = e; last->next; last = last->next)
		;
	last->next = w->done;
	w->done = e;
	w->origins[origin].suspects = NULL;
	if (!w->origins[origin].guilty) {
		w->origins[origin].guilty = true;
		w->commits[w->origins[origin].commit].nguilty++;
	}
}

static bool same_kind(unsigned a, unsigned b)
{
	return (a & 0170000) == (b & 0170000);
}

/* git's find_origin: the parent's version at the same path, if it has one
 * of the same kind (a file that was a symlink or a directory there has
 * no origin in it). */
static int find_origin(struct walk *w, size_t parent, size_t target, long *out)
{
	struct origin *t = &w->origins[target];
	struct commit *p = &w->commits[parent];
	struct wg_oid blob;
	unsigned mode;
	size_t i, at;
	int err;

	*out = -1;
	for (i = 0; i < p->norigins; i++)
		if (!strcmp(w->origins[p->origins[i]].path, t->path)) {
			*out = (long)p->origins[i];
			return 0;
		}
	err = wg_tree_lookup_path(&blob, &mode, w->repo, &p->tree, t->path);
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	if (err)
		return err;
	if (!same_kind(mode, w->origins[target].mode))
		return 0;
	if ((err = origin_get(w, parent, w->origins[target].path, &blob, mode, &at)))
		return err;
	*out = (long)at;
	return 0;
}

/* git's find_rename: the path was added since the parent; rename
 * detection between the parent's tree and the commit's, with this path
 * as the only destination and the parent's deleted files as sources. */
static int find_rename(struct walk *w, size_t parent, size_t target, long *out)
{
	struct wg_diff_changes changes = { 0 };
	struct wg_tree_diff_options topts = { .renames = false, .rename = WG_RENAME_OPTIONS_INIT };
	struct wg_rename_options ropts = WG_RENAME_OPTIONS_INIT;
	struct wg_rename_file *src = NULL, dst;
	size_t nsrc = 0, i, at;
	int src_of = -1, score = 0;
	bool limited = false, have_dst = false;
	struct wg_oid ptree = w->commits[parent].tree;
	struct wg_oid ctree = w->commits[w->origins[target].commit].tree;
	int err;

	*out = -1;
	if ((err = wg_diff_trees(&changes, w->odb, &ptree, &ctree, &topts)))
		goto out;
	if (changes.n && !(src = wg_calloc(changes.n, sizeof(*src)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < changes.n; i++) {
		struct wg_diff_change *c = &changes.v[i];
		if (c->status == 'D')
			src[nsrc++] = (struct wg_rename_file){ c->path, c->old_mode, c->old_oid, WG_RENAME_GONE };
		else if (c->status == 'A' && !strcmp(c->path, w->origins[target].path)) {
			dst = (struct wg_rename_file){ c->path, c->new_mode, c->new_oid, WG_RENAME_GONE };
			have_dst = true;
		}
	}
	if (!have_dst || !nsrc)
		goto out;
	if ((err = wg_detect_renames(w->odb, src, nsrc, &dst, 1, &ropts, &src_of, &score,
				     &limited)))
		goto out;
	if (src_of < 0)
		goto out;
	if ((err = origin_get(w, parent, src[src_of].path, &src[src_of].oid, src[src_of].mode,
			      &at)))
		goto out;
	*out = (long)at;
out:
	wg_free(src);
	wg_diff_changes_release(&changes);
	return err;
}

static int read_blob(struct walk *w, const struct wg_oid *oid, struct wg_buf *out)
{
	enum wg_object_type type;
	int err;

	wg_buf_reset(out);
	if ((err = wg_odb_read(w->odb, oid, &type, out)))
		return err;
	if (type != WG_OBJ_BLOB)
		return wg_error_set(WG_ECORRUPT, "%s is not a blob", wg_oid_hex(oid));
	return 0;
}

static long count_lines(const char *text, size_t size)
{
	long n = 0;
	size_t i;

	for (i = 0; i < size; i++)
		n += text[i] == '\n';
	return n + (size && text[size - 1] != '\n');
}

/* git's diff_hunks: the changes from a to b without context, a common
 * tail of whole blocks cut off first as git's xdi_diff does, each change
 * given to `hunk` as (start_a, count_a, start_b, count_b). */
typedef void hunk_fn(long start_a, long count_a, long start_b, long count_b, void *data);

static int diff_hunks(struct walk *w, const char *a, size_t alen, const char *b, size_t blen,
		      hunk_fn *hunk, void *data)
{
	struct wg_line_diff_options lo = WG_LINE_DIFF_OPTIONS_INIT;
	struct wg_line_diff d;
	size_t i;
	int err;

	wg_line_diff_trim_tail(a, &alen, b, &blen);
	lo.whitespace = w->opts->whitespace;
	if ((err = wg_line_diff_run_with(&d, a, alen, b, blen, &lo)))
		return err;
	for (i = 0; i < d.n; i++)
		hunk(d.v[i].i1, d.v[i].chg1, d.v[i].i2, d.v[i].chg2, data);
	wg_line_diff_release(&d);
	return 0;
}

static struct entry *reverse_list(struct entry *head, struct entry *tail)
{
	while (head) {
		struct entry *next = head->next;
		head->next = tail;
		tail = head;
		head = next;
	}
	return tail;
}

/* git's split_blame_at: e keeps its first len lines, the rest is a new
 * entry (NULL: out of memory). */
static struct entry *split_at(struct entry *e, long len, long suspect)
{
	struct entry *n = wg_calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->suspect = suspect;
	n->lno = e->lno + len;
	n->s_lno = e->s_lno + len;
	n->num_lines = e->num_lines - len;
	e->num_lines = len;
	e->score = 0;
	return n;
}

struct chunk_state {
	struct entry **dstq;    /* where lines passed to the parent go */
	struct entry **srcq;    /* the target's entries not yet looked at */
	long parent, offset;
	bool oom;
};

/* git's blame_chunk: the target's lines before tlno are the parent's
 * (offset moves them to its numbering); those from tlno to same differ
 * and stay. */
static void blame_chunk(struct chunk_state *s, long tlno, long offset, long same)
{
	struct entry *e = *s->srcq, *samep = NULL, *diffp = NULL;

	while (e && e->s_lno < tlno) {
		struct entry *next = e->next;
		if (e->s_lno + e->num_lines > tlno) {
			struct entry *n = split_at(e, tlno - e->s_lno, e->suspect);
			if (!n) {
				s->oom = true;
				return;
			}
			n->next = diffp;
			diffp = n;
		}
		e->suspect = s->parent;
		e->s_lno += offset;
		e->next = samep;
		samep = e;
		e = next;
	}
	if (samep) {
		*s->dstq = reverse_list(samep, *s->dstq);
		s->dstq = &samep->next;
	}
	e = reverse_list(diffp, e);
	samep = NULL;
	diffp = NULL;
	while (e && e->s_lno < same) {
		struct entry *next = e->next;
		if (e->s_lno + e->num_lines > same) {
			struct entry *n = split_at(e, same - e->s_lno, e->suspect);
			if (!n) {
				s->oom = true;
				return;
			}
			n->next = samep;
			samep = n;
		}
		e->next = diffp;
		diffp = e;
		e = next;
	}
	*s->srcq = reverse_list(diffp, reverse_list(samep, e));
	if (diffp)
		s->srcq = &diffp->next;
}

static void chunk_hunk(long start_a, long count_a, long start_b, long count_b, void *data)
{
	struct chunk_state *s = data;

	if (s->oom)
		return;
	blame_chunk(s, start_b, start_a - start_b, start_b + count_b);
	s->offset = start_a + count_a - (start_b + count_b);
}

/* git's pass_blame_to_parent: the lines the parent's version has in
 * common with the target's go to the parent. */
static int pass_blame_to_parent(struct walk *w, size_t target, size_t parent, struct wg_buf *tbuf,
				struct wg_buf *pbuf)
{
	struct entry *newdest = NULL;
	struct chunk_state s = { &newdest, &w->origins[target].suspects, (long)parent, 0, false };
	int err;

	if (!w->origins[target].suspects)
		return 0;
	if ((err = read_blob(w, &w->origins[parent].blob, pbuf)) ||
	    (err = diff_hunks(w, (const char *)pbuf->data, pbuf->len, (const char *)tbuf->data,
			      tbuf->len, chunk_hunk, &s)))
		return err;
	if (!s.oom)
		blame_chunk(&s, LONG_MAX, s.offset, LONG_MAX);
	*s.dstq = NULL;
	if (s.oom) {
		entries_free(newdest);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	return queue_blames(w, parent, newdest);
}

static bool ascii_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* git's blame_entry_score: one more than the letters and digits of the
 * entry's lines in the blamed file; a stretch of braces and blank lines
 * scores low and is not worth looking for elsewhere. */
static unsigned entry_score(const struct walk *w, struct entry *e)
{
	const char *cp, *ep;
	unsigned score = 1;

	if (e->score)
		return e->score;
	cp = w->final + w->line_starts[e->lno];
	ep = w->final + w->line_starts[e->lno + e->num_lines];
	for (; cp < ep; cp++)
		score += ascii_alnum((unsigned char)*cp);
	e->score = score;
	return score;
}

/* git's split_overlap: e split where lines tlno..same of its suspect's
 * version are line plno on of the parent's: before (split[0], stays),
 * the part the parent has (split[1]), after (split[2], stays). */
static void split_overlap(struct entry split[3], const struct entry *e, long tlno, long plno,
			  long same, long parent)
{
	long chunk_end_lno;

	memset(split, 0, 3 * sizeof(*split));
	split[0].suspect = split[1].suspect = split[2].suspect = -1;
	if (e->s_lno < tlno) {
		split[0].suspect = e->suspect;
		split[0].lno = e->lno;
		split[0].s_lno = e->s_lno;
		split[0].num_lines = tlno - e->s_lno;
		split[1].lno = e->lno + tlno - e->s_lno;
		split[1].s_lno = plno;
	} else {
		split[1].lno = e->lno;
		split[1].s_lno = plno + (e->s_lno - tlno);
	}
	if (same < e->s_lno + e->num_lines) {
		split[2].suspect = e->suspect;
		split[2].lno = e->lno + (same - e->s_lno);
		split[2].s_lno = e->s_lno + (same - e->s_lno);
		split[2].num_lines = e->s_lno + e->num_lines - same;
		chunk_end_lno = split[2].lno;
	} else {
		chunk_end_lno = e->lno + e->num_lines;
	}
	split[1].num_lines = chunk_end_lno - split[1].lno;
	if (split[1].num_lines >= 1)
		split[1].suspect = parent;
}

/* git's split_blame: e replaced by its parts; the parent's goes to
 * *blamed, the others to *unblamed (to be looked at again). */
static int split_blame(struct entry ***blamed, struct entry ***unblamed,
		       const struct entry split[3], struct entry *e)
{
	struct entry *n;

	if (split[0].suspect >= 0 && split[2].suspect >= 0) {
		if (!(n = entry_new(&split[2])))
			return wg_error_set(WG_ENOMEM, "out of memory");
		*e = split[0];
		e->next = **unblamed;
		**unblamed = e;
		*unblamed = &e->next;
		n->next = **unblamed;
		**unblamed = n;
		*unblamed = &n->next;
		e = NULL;
	} else if (split[0].suspect < 0 && split[2].suspect < 0) {
		*e = split[1];
		e->next = **blamed;
		**blamed = e;
		*blamed = &e->next;
		return 0;
	} else if (split[0].suspect >= 0) {
		*e = split[0];
		e->next = **unblamed;
		**unblamed = e;
		*unblamed = &e->next;
		e = NULL;
	} else {
		if (!(n = entry_new(&split[2])))
			return wg_error_set(WG_ENOMEM, "out of memory");
		*e = split[1];
		e->next = **blamed;
		**blamed = e;
		*blamed = &e->next;
		n->next = **unblamed;
		**unblamed = n;
		*unblamed = &n->next;
		return 0;
	}
	/* the parent's part of a split in three or of "me, then parent" */
	if (!(n = entry_new(&split[1])))
		return wg_error_set(WG_ENOMEM, "out of memory");
	n->next = **blamed;
	**blamed = n;
	*blamed = &n->next;
	return 0;
}

/* git's copy_split_if_better: the split whose parent part scores higher
 * (a tie goes to the later one). */
static void copy_split_if_better(const struct walk *w, struct entry best[3],
				 struct entry potential[3])
{
	if (potential[1].suspect < 0)
		return;
	if (best[1].suspect >= 0 && entry_score(w, &potential[1]) < entry_score(w, &best[1]))
		return;
	memcpy(best, potential, 3 * sizeof(*best));
}

struct copy_state {
	const struct walk *w;
	const struct entry *ent;
	long parent;
	struct entry *split;
	long plno, tlno;
};

/* git's handle_split: lines tlno..same of the entry (counted from its
 * start) are the parent's from plno on. */
static void handle_split(struct copy_state *s, long tlno, long plno, long same)
{
	struct entry potential[3];

	if (s->ent->num_lines <= tlno || tlno >= same)
		return;
	split_overlap(potential, s->ent, tlno + s->ent->s_lno, plno, same + s->ent->s_lno,
		      s->parent);
	copy_split_if_better(s->w, s->split, potential);
}

static void copy_hunk(long start_a, long count_a, long start_b, long count_b, void *data)
{
	struct copy_state *s = data;

	handle_split(s, s->tlno, s->plno, start_b);
	s->plno = start_a + count_a;
	s->tlno = start_b + count_b;
}

/* git's find_copy_in_blob: the best stretch of the entry's lines (as the
 * blamed file has them) that the parent's text `p` has too. */
static int find_copy_in_blob(struct walk *w, const struct entry *ent, long parent,
			     struct entry split[3], const struct wg_buf *p)
{
	struct copy_state s = { w, ent, parent, split, 0, 0 };
	const char *cp = w->final + w->line_starts[ent->lno];
	size_t len = w->line_starts[ent->lno + ent->num_lines] - w->line_starts[ent->lno];
	int err;

	memset(split, 0, 3 * sizeof(*split));
	split[0].suspect = split[1].suspect = split[2].suspect = -1;
	if ((err = diff_hunks(w, p->data ? (const char *)p->data : "", p->len, cp, len, copy_hunk,
			      &s)))
		return err;
	handle_split(&s, s.tlno, s.plno, ent->num_lines);
	return 0;
}

/* git's filter_small: entries of *source scoring score_min or less
 * move to the front of *small; returns the new link to the old head. */
static struct entry **filter_small(const struct walk *w, struct entry **small,
				   struct entry **source, unsigned score_min)
{
	struct entry *p = *source, *oldsmall = *small;

	while (p) {
		if (entry_score(w, p) <= score_min) {
			*small = p;
			small = &p->next;
			p = *small;
		} else {
			*source = p;
			source = &p->next;
			p = *source;
		}
	}
	*small = oldsmall;
	*source = NULL;
	return small;
}

/* git's find_move_in_parent: lines of the target found elsewhere in the
 * parent's version of the same file, scoring above the move threshold,
 * go to the parent; the parts around them are looked at again. */
static int find_move_in_parent(struct walk *w, struct entry ***blamed, struct entry **toosmall,
			       size_t target, size_t parent)
{
	struct entry *unblamed = w->origins[target].suspects, *leftover = NULL, *e, split[3];
	struct wg_buf pbuf = WG_BUF_INIT;
	int err = 0;

	if (!unblamed)
		return 0;
	if ((err = read_blob(w, &w->origins[parent].blob, &pbuf)))
		goto out;
	do {
		struct entry **unblamedtail = &unblamed, *next;
		for (e = unblamed; e; e = next) {
			next = e->next;
			if (!err)
				err = find_copy_in_blob(w, e, (long)parent, split, &pbuf);
			if (!err && split[1].suspect >= 0 &&
			    w->move_score < entry_score(w, &split[1])) {
				err = split_blame(blamed, &unblamedtail, split, e);
			} else {
				e->next = leftover;
				leftover = e;
			}
		}
		*unblamedtail = NULL;
		toosmall = filter_small(w, toosmall, &unblamed, w->move_score);
	} while (unblamed);
	w->origins[target].suspects = reverse_list(leftover, NULL);
out:
	wg_buf_release(&pbuf);
	return err;
}

/* The files of the parent that find_copy_in_parent looks in, as git's
 * diff queue lists them: the files changed or deleted since the parent,
 * or with "find copies harder" all of its files, in path order. */
static int copy_candidates(struct walk *w, size_t parent, size_t commit, bool harder,
			   struct wg_diff_changes *out)
{
	struct wg_tree_diff_options topts = { .renames = false, .rename = WG_RENAME_OPTIONS_INIT };
	struct wg_oid ptree = w->commits[parent].tree, ctree = w->commits[commit].tree;
	size_t i, n = 0;
	int err;

	if (harder)
		err = wg_diff_trees(out, w->odb, NULL, &ptree, &topts);
	else
		err = wg_diff_trees(out, w->odb, &ptree, &ctree, &topts);
	if (err)
		return err;
	for (i = 0; i < out->n; i++) {
		struct wg_diff_change *c = &out->v[i];
		if (harder) {
			/* the parent's tree on the "new" side: make it the old */
			c->old_mode = c->new_mode;
			c->old_oid = c->new_oid;
		}
		if (!c->old_mode || (c->old_mode & 0170000) == 0160000) {
			wg_free(c->path);
			wg_free(c->from);
			continue;
		}
		out->v[n++] = *c;
	}
	out->n = n;
	return 0;
}

struct blame_list {
	struct entry *ent;
	struct entry split[3];
};

/* git's find_copy_in_parent: lines of the target found in other files of
 * the parent (porigin, the parent's version of this file, was looked at
 * already), scoring above the copy threshold, go to the best of them. */
static int find_copy_in_parent(struct walk *w, struct entry ***blamed, struct entry **toosmall,
			       size_t target, size_t parent, long porigin)
{
	struct entry *unblamed = w->origins[target].suspects, *leftover = NULL, *e;
	struct wg_diff_changes cands = { 0 };
	struct wg_buf pbuf = WG_BUF_INIT;
	struct blame_list *list = NULL;
	bool harder;
	size_t i, j, n;
	int err = 0;

	if (!unblamed)
		return 0;
	harder = w->opts->copies >= 3 ||
		 (w->opts->copies == 2 &&
		  (porigin < 0 ||
		   strcmp(w->origins[target].path, w->origins[porigin].path)));
	if ((err = copy_candidates(w, parent, w->origins[target].commit, harder, &cands)))
		goto out;
	do {
		struct entry **unblamedtail = &unblamed;

		for (e = unblamed, n = 0; e; e = e->next)
			n++;
		wg_free(list);
		if (!(list = wg_calloc(n, sizeof(*list)))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			while (unblamed) {   /* kept by the target, to be freed */
				e = unblamed->next;
				unblamed->next = leftover;
				leftover = unblamed;
				unblamed = e;
			}
			break;
		}
		for (e = unblamed, i = 0; e; e = e->next, i++) {
			list[i].ent = e;
			list[i].split[0].suspect = list[i].split[1].suspect =
				list[i].split[2].suspect = -1;
		}
		for (i = 0; i < cands.n && !err; i++) {
			const struct wg_diff_change *c = &cands.v[i];
			size_t norigin;

			if (porigin >= 0 && !strcmp(c->path, w->origins[porigin].path))
				continue;   /* find_move_in_parent looked there */
			if ((err = origin_get(w, parent, c->path, &c->old_oid, c->old_mode,
					      &norigin)) ||
			    (err = read_blob(w, &c->old_oid, &pbuf)))
				break;
			for (j = 0; j < n && !err; j++) {
				struct entry potential[3];
				if (!(err = find_copy_in_blob(w, list[j].ent, (long)norigin,
							      potential, &pbuf)))
					copy_split_if_better(w, list[j].split, potential);
			}
		}
		for (j = 0; j < n; j++) {
			struct entry *split = list[j].split;
			if (!err && split[1].suspect >= 0 &&
			    w->copy_score < entry_score(w, &split[1])) {
				err = split_blame(blamed, &unblamedtail, split, list[j].ent);
			} else {
				list[j].ent->next = leftover;
				leftover = list[j].ent;
			}
		}
		*unblamedtail = NULL;
		toosmall = filter_small(w, toosmall, &unblamed, w->copy_score);
	} while (unblamed);
	w->origins[target].suspects = reverse_list(leftover, NULL);
out:
	wg_free(list);
	wg_buf_release(&pbuf);
	wg_diff_changes_release(&cands);
	return err;
}

/* git's pass_blame for one origin with suspects. */
static int pass_blame(struct walk *w, size_t target)
{
	size_t commit = w->origins[target].commit, np, i, j;
	long *porigin = NULL;
	struct entry *blames = NULL, **blametail = &blames, *toosmall = NULL;
	struct wg_buf tbuf = WG_BUF_INIT, pbuf = WG_BUF_INIT;
	bool moves = w->opts->moves || w->opts->copies;
	int pass, err = 0;

	np = w->commits[commit].nparents;
	if (w->commits[commit].boundary || !np)
		goto finish;
	if (!(porigin = wg_calloc(np, sizeof(*porigin)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto finish;
	}
	for (i = 0; i < np; i++)
		porigin[i] = -1;
	/* same path first in every parent, then renames; a parent with the
	 * very same blob takes everything */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < np; i++) {
			size_t p;
			long found;
			bool same = false;

			if (porigin[i] >= 0)
				continue;
			if ((err = commit_at(w, &w->commits[commit].parents[i], &p)) ||
			    (err = commit_load(w, p)))
				goto finish;
			if (w->commits[p].missing)
				continue;
			err = pass ? find_rename(w, p, target, &found) : find_origin(w, p, target, &found);
			if (err)
				goto finish;
			if (found < 0)
				continue;
			if (wg_oid_equal(&w->origins[found].blob, &w->origins[target].blob)) {
				struct entry *all = w->origins[target].suspects;
				w->origins[target].suspects = NULL;
				struct entry *e;
				for (e = all; e; e = e->next)
					e->suspect = found;
				err = queue_blames(w, (size_t)found, all);
				goto finish;
			}
			for (j = 0; j < i; j++)
				if (porigin[j] >= 0 &&
				    wg_oid_equal(&w->origins[porigin[j]].blob, &w->origins[found].blob))
					same = true;
			if (!same)
				porigin[i] = found;
		}
	}
	if ((err = read_blob(w, &w->origins[target].blob, &tbuf)))
		goto finish;
	for (i = 0; i < np; i++) {
		if (porigin[i] < 0)
			continue;
		if (w->origins[target].previous < 0)
			w->origins[target].previous = porigin[i];
		if ((err = pass_blame_to_parent(w, target, (size_t)porigin[i], &tbuf, &pbuf)))
			goto finish;
		if (!w->origins[target].suspects)
			goto finish;
	}
	if (moves) {
		filter_small(w, &toosmall, &w->origins[target].suspects, w->move_score);
		for (i = 0; i < np && w->origins[target].suspects; i++) {
			if (porigin[i] < 0)
				continue;
			if ((err = find_move_in_parent(w, &blametail, &toosmall, target,
						       (size_t)porigin[i])))
				goto finish;
		}
	}
	if (w->opts->copies) {
		if (w->copy_score > w->move_score) {
			filter_small(w, &toosmall, &w->origins[target].suspects, w->copy_score);
		} else if (w->copy_score < w->move_score) {
			w->origins[target].suspects =
				entries_merge(w->origins[target].suspects, toosmall);
			toosmall = NULL;
			filter_small(w, &toosmall, &w->origins[target].suspects, w->copy_score);
		}
		for (i = 0; i < np && w->origins[target].suspects; i++) {
			size_t p;
			if ((err = commit_at(w, &w->commits[commit].parents[i], &p)))
				goto finish;
			if (w->commits[p].missing)
				continue;
			if ((err = find_copy_in_parent(w, &blametail, &toosmall, target, p,
						       porigin[i])))
				goto finish;
		}
	}
finish:
	*blametail = NULL;
	if (!err)
		err = distribute_blame(w, blames);
	else
		entries_free(blames);
	if (toosmall) {
		struct entry **tail = &toosmall;
		while (*tail)
			tail = &(*tail)->next;
		*tail = w->origins[target].suspects;
		w->origins[target].suspects = toosmall;
	}
	wg_free(porigin);
	wg_buf_release(&tbuf);
	wg_buf_release(&pbuf);
	return err;
}

static int person_set(struct wg_blame_person *p, const char *ident)
{
	struct wg_ident id;

	if (!ident || wg_ident_parse(&id, ident, strlen(ident))) {
		p->name = wg_strdup("(unknown)");
		p->mail = wg_strdup("(unknown)");
		p->tz = wg_strdup("(unknown)");
		p->time = 0;
	} else {
		struct wg_buf mail = { 0 };
		p->name = wg_strndup(id.name, id.name_len);
		if (!wg_buf_addch(&mail, '<') && !wg_buf_add(&mail, id.email, id.email_len) &&
		    !wg_buf_addch(&mail, '>'))
			p->mail = wg_strdup(wg_buf_cstr(&mail));
		wg_buf_release(&mail);
		p->time = id.has_date ? id.timestamp : 0;
		p->tz = id.has_date ? wg_strndup(id.tz, id.tz_len) : wg_strdup("(unknown)");
	}
	if (!p->name || !p->mail || !p->tz)
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}

static bool blank_line(const char *p, size_t len)
{
	while (len && (p[len - 1] == ' ' || (p[len - 1] >= '\t' && p[len - 1] <= '\r')))
		len--;
	return !len;
}

/* git's find_commit_subject: the first line that is not blank. */
static int summary_set(char **out, const struct wg_commit *c)
{
	const char *p = c->message, *end = c->message ? c->message + strlen(c->message) : NULL;

	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
		if (!blank_line(p, len)) {
			*out = wg_strndup(p, len);
			return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	*out = NULL;
	return 0;
}

/* git's fake working tree commit: "Not Committed Yet" as author and
 * committer, now, and "Version of <path> from <path>" as its subject. */
static int worktree_info(struct walk *w, struct wg_blame_commit *out)
{
	const struct wg_blame_worktree *wt = w->worktree;
	struct wg_buf summary = WG_BUF_INIT;
	struct wg_blame_person *p[2] = { &out->author, &out->committer };
	int err;

	for (size_t i = 0; i < 2; i++) {
		p[i]->name = wg_strdup("Not Committed Yet");
		p[i]->mail = wg_strdup("<not.committed.yet>");
		p[i]->tz = wg_strdup(wt->tz);
		p[i]->time = wt->time;
		if (!p[i]->name || !p[i]->mail || !p[i]->tz)
			return wg_error_set(WG_ENOMEM, "out of memory");
	}
	if ((err = wg_buf_printf(&summary, "Version of %s from %s", w->worktree_path,
				 w->worktree_path))) {
		wg_buf_release(&summary);
		return err;
	}
	out->summary = (char *)wg_buf_detach(&summary, NULL);
	return out->summary ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

static int commit_info(struct walk *w, struct wg_blame_commit *out, const struct commit *c)
{
	struct wg_commit parsed;
	bool found;
	int err;

	out->oid = c->oid;
	out->boundary = c->boundary;
	out->several_paths = c->nguilty > 1;
	if (w->worktree && wg_oid_is_null(&c->oid))
		return worktree_info(w, out);
	if ((err = wg_commit_read(w->odb, &c->oid, &parsed, &w->scratch, &found)))
		goto out;
	if (!found) {
		err = wg_error_set(WG_ENOTFOUND, "commit %s is missing", wg_oid_hex(&c->oid));
		goto out;
	}
	if ((err = person_set(&out->author, parsed.author)) ||
	    (err = person_set(&out->committer, parsed.committer)) ||
	    (err = summary_set(&out->summary, &parsed)))
		goto out;
	if (!out->summary) {
		char hex[WG_MAX_HEXSZ + 1];
		size_t len = strlen(wg_oid_to_hex(&c->oid, hex));
		if (!(out->summary = wg_malloc(len + 3))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		}
		out->summary[0] = '(';
		memcpy(out->summary + 1, hex, len);
		out->summary[len + 1] = ')';
		out->summary[len + 2] = '\0';
	}
out:
	wg_commit_release(&parsed);
	return err;
}

static int entry_lno_cmp(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;
	return (x->lno > y->lno) - (x->lno < y->lno);
}

/* The lines that found their origin in line order, coalesced as git's
 * blame_coalesce does; only the origins and commits they name,
 * renumbered. */
static int collect(struct walk *w, struct wg_blame *out)
{
	struct entry **v = NULL, *e;
	size_t *onew = NULL, *cnew = NULL, i, n = 0;
	int err = 0;

	for (e = w->done; e; e = e->next)
		n++;
	if (!n)
		return 0;
	if (!(v = wg_calloc(n, sizeof(*v))) ||
	    !(onew = wg_calloc(w->norigins, sizeof(*onew))) ||
	    !(cnew = wg_calloc(w->ncommits, sizeof(*cnew))) ||
	    !(out->entries = wg_calloc(n, sizeof(*out->entries))) ||
	    !(out->origins = wg_calloc(w->norigins, sizeof(*out->origins))) ||
	    !(out->commits = wg_calloc(w->ncommits, sizeof(*out->commits)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (e = w->done, i = 0; e; e = e->next)
		v[i++] = e;
	qsort(v, n, sizeof(*v), entry_lno_cmp);
	for (i = 0; i < n && !err; i++) {
		struct wg_blame_entry *last = out->nentries ? &out->entries[out->nentries - 1] : NULL;
		size_t o = (size_t)v[i]->suspect;
		if (!v[i]->num_lines)
			continue;
		if (!onew[o]) {
			struct origin *src = &w->origins[o];
			struct wg_blame_origin *dst = &out->origins[out->norigins];
			if (!cnew[src->commit]) {
				err = commit_info(w, &out->commits[out->ncommits++],
						  &w->commits[src->commit]);
				cnew[src->commit] = out->ncommits;
				if (err)
					break;
			}
			dst->commit = cnew[src->commit] - 1;
			if (!(dst->path = wg_strdup(src->path))) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				break;
			}
			if (src->previous >= 0) {
				struct origin *prev = &w->origins[src->previous];
				dst->has_previous = true;
				dst->previous_commit = w->commits[prev->commit].oid;
				if (!(dst->previous_path = wg_strdup(prev->path))) {
					err = wg_error_set(WG_ENOMEM, "out of memory");
					break;
				}
			}
			onew[o] = ++out->norigins;
		}
		if (last && last->origin == onew[o] - 1 &&
		    last->lno + last->num_lines == v[i]->lno &&
		    last->s_lno + last->num_lines == v[i]->s_lno) {
			last->num_lines += v[i]->num_lines;
			continue;
		}
		out->entries[out->nentries++] = (struct wg_blame_entry){
			v[i]->lno, v[i]->s_lno, v[i]->num_lines, onew[o] - 1
		};
	}
out:
	wg_free(v);
	wg_free(onew);
	wg_free(cnew);
	return err;
}

static int ranges_check(const struct wg_blame_options *opts, long nlines)
{
	size_t i;

	for (i = 0; i < opts->nranges; i++)
		if (opts->ranges[2 * i] < 0 || opts->ranges[2 * i + 1] > nlines)
			return wg_error_set(WG_EINVALID, "file has only %ld line%s", nlines,
					    nlines == 1 ? "" : "s");
	return 0;
}

/* Where each line of the blamed file starts, and where it ends. */
static int line_starts_fill(struct walk *w, const struct wg_blame *b)
{
	size_t i;
	long n = 0;

	if (!(w->line_starts = wg_calloc((size_t)b->nlines + 1, sizeof(*w->line_starts))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (i = 0; i < b->size; i++)
		if (b->text[i] == '\n' && n < b->nlines)
			w->line_starts[++n] = i + 1;
	w->line_starts[b->nlines] = b->size;
	w->final = b->text;
	return 0;
}

/* The lines to blame, as one entry of the file's own origin. */
static int initial_entry(struct walk *w, size_t origin, long lno, long num)
{
	struct entry e = { NULL, lno, lno, num, (long)origin, 0 }, *n;

	if (num <= 0)
		return 0;
	if (!(n = entry_new(&e)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	/* ranges come in order: append */
	return queue_blames(w, origin, n);
}

/* Blame the file `path` whose version at commit `start` is `text` (blob
 * id `blob`), taking `text` over. */
static int blame_from(struct walk *w, struct wg_blame *out, size_t start, const char *path,
		      const struct wg_oid *blob, unsigned mode, struct wg_buf *text)
{
	size_t origin, i;
	int err;

	out->size = text->len;
	out->nlines = count_lines((const char *)text->data, text->len);
	if (!(out->text = (char *)wg_buf_detach(text, NULL)) && !(out->text = wg_strdup("")))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if ((err = ranges_check(w->opts, out->nlines)) ||
	    (err = origin_get(w, start, path, blob, mode, &origin)) ||
	    (err = line_starts_fill(w, out)))
		return err;
	w->move_score = w->opts->move_score ? w->opts->move_score : WG_BLAME_DEFAULT_MOVE_SCORE;
	w->copy_score = w->opts->copy_score ? w->opts->copy_score : WG_BLAME_DEFAULT_COPY_SCORE;
	if (w->opts->nranges) {
		for (i = 0; i < w->opts->nranges && !err; i++)
			err = initial_entry(w, origin, w->opts->ranges[2 * i],
					    w->opts->ranges[2 * i + 1] - w->opts->ranges[2 * i]);
	} else {
		err = initial_entry(w, origin, 0, out->nlines);
	}
	while (!err && w->queue.nr) {
		struct wg_commit_qent e = wg_commit_queue_pop(&w->queue);
		struct commit *c = &w->commits[e.tag];
		c->queued = false;
		/* origins may be added to the commit while its lines move on */
		for (i = 0; i < w->commits[e.tag].norigins && !err; i++) {
			size_t o = w->commits[e.tag].origins[i];
			if (w->origins[o].suspects && !(err = pass_blame(w, o)))
				keep(w, o);
		}
	}
	return err ? err : collect(w, out);
}

static void walk_init(struct walk *w, struct wg_repo *repo, const struct wg_blame_options *opts)
{
	static const struct wg_blame_options no_opts = { 0 };

	memset(w, 0, sizeof(*w));
	w->repo = repo;
	w->odb = wg_repo_odb(repo);
	w->opts = opts ? opts : &no_opts;
}

static void walk_release(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->norigins; i++) {
		wg_free(w->origins[i].path);
		entries_free(w->origins[i].suspects);
	}
	entries_free(w->done);
	wg_free(w->line_starts);
	for (i = 0; i < w->ncommits; i++) {
		wg_free(w->commits[i].parents);
		wg_free(w->commits[i].origins);
	}
	wg_free(w->origins);
	wg_free(w->commits);
	wg_oidmap_release(&w->index);
	wg_oidmap_release(&w->shallow);
	wg_commit_queue_release(&w->queue);
	wg_buf_release(&w->scratch);
}

int wg_blame_run(struct wg_blame *out, struct wg_repo *repo, const struct wg_oid *commit,
		 const char *path, const struct wg_blame_options *opts)
{
	struct walk w;
	struct wg_buf text = { 0 };
	struct wg_oid blob;
	unsigned mode;
	size_t start;
	int err;

	memset(out, 0, sizeof(*out));
	walk_init(&w, repo, opts);
	if ((err = read_shallow(&w)) || (err = commit_at(&w, commit, &start)) ||
	    (err = commit_load(&w, start)))
		goto out;
	if (w.commits[start].missing) {
		err = wg_error_set(WG_ENOTFOUND, "commit %s is missing", wg_oid_hex(commit));
		goto out;
	}
	err = wg_tree_lookup_path(&blob, &mode, repo, &w.commits[start].tree, path);
	if (!err && wg_tree_mode_type(mode) != WG_OBJ_BLOB)
		err = WG_ENOTFOUND;
	if (err == WG_ENOTFOUND) {
		err = wg_error_set(WG_ENOTFOUND, "no such path %s in %s", path, wg_oid_hex(commit));
		goto out;
	}
	if (!err && !(err = read_blob(&w, &blob, &text)))
		err = blame_from(&w, out, start, path, &blob, mode, &text);
out:
	walk_release(&w);
	wg_buf_release(&text);
	return err;
}

int wg_blame_run_worktree(struct wg_blame *out, struct wg_repo *repo,
			  const struct wg_blame_worktree *wt, const char *path,
			  const struct wg_blame_options *opts)
{
	struct walk w;
	struct wg_buf text = { 0 };
	struct wg_oid zero;
	struct commit *c;
	size_t start;
	int err;

	memset(out, 0, sizeof(*out));
	walk_init(&w, repo, opts);
	w.worktree = wt;
	w.worktree_path = path;
	wg_oid_null(&zero, wg_repo_algo(repo));
	if ((err = read_blob(&w, &wt->blob, &text)) || (err = read_shallow(&w)) ||
	    (err = commit_at(&w, &zero, &start)))
		goto out;
	c = &w.commits[start];
	c->loaded = true;
	c->tree = wt->tree;
	c->date = wt->time;
	if (wt->nparents) {
		if (!(c->parents = wg_malloc(wt->nparents * sizeof(*c->parents)))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(c->parents, wt->parents, wt->nparents * sizeof(*c->parents));
		c->nparents = wt->nparents;
	}
	err = blame_from(&w, out, start, path, &wt->blob, wt->mode, &text);
out:
	walk_release(&w);
	wg_buf_release(&text);
	return err;
}

static void person_release(struct wg_blame_person *p)
{
	wg_free(p->name);
	wg_free(p->mail);
	wg_free(p->tz);
}

void wg_blame_release(struct wg_blame *b)
{
	size_t i;

	for (i = 0; i < b->norigins; i++) {
		wg_free(b->origins[i].path);
		wg_free(b->origins[i].previous_path);
	}
	for (i = 0; i < b->ncommits; i++) {
		person_release(&b->commits[i].author);
		person_release(&b->commits[i].committer);
		wg_free(b->commits[i].summary);
	}
	wg_free(b->text);
	wg_free(b->entries);
	wg_free(b->origins);
	wg_free(b->commits);
	memset(b, 0, sizeof(*b));
}

int wg_blame_ranges_add(struct wg_blame_options *opts, long start, long end)
{
	size_t i, j;
	long *v;

	if (start < 0 || end < start)
		return wg_error_set(WG_EINVALID, "invalid line range");
	if (!(v = wg_realloc(opts->ranges, (opts->nranges + 1) * 2 * sizeof(*v))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	opts->ranges = v;
	/* insert in order of start, then merge what overlaps or touches */
	for (i = opts->nranges; i > 0 && v[2 * (i - 1)] > start; i--) {
		v[2 * i] = v[2 * (i - 1)];
		v[2 * i + 1] = v[2 * (i - 1) + 1];
	}
	v[2 * i] = start;
	v[2 * i + 1] = end;
	opts->nranges++;
	for (i = 0, j = 1; j < opts->nranges; j++) {
		if (v[2 * j] <= v[2 * i + 1]) {
			if (v[2 * j + 1] > v[2 * i + 1])
				v[2 * i + 1] = v[2 * j + 1];
		} else {
			i++;
			v[2 * i] = v[2 * j];
			v[2 * i + 1] = v[2 * j + 1];
		}
	}
	opts->nranges = i + 1;
	return 0;
}

void wg_blame_options_release(struct wg_blame_options *opts)
{
	wg_free(opts->ranges);
	opts->ranges = NULL;
	opts->nranges = 0;
}

