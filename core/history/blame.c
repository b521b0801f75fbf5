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

/* Lines still to be placed: num lines from line lno of the blamed file,
 * line s_lno on in the origin holding them. */
struct run {
	long lno, s_lno, num;
};

struct runs {
	struct run *v;
	size_t n, alloc;
};

struct origin {
	size_t commit;
	char *path;
	struct wg_oid blob;
	unsigned mode;
	struct runs pending;
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

struct placed {
	struct run r;
	size_t origin;
};

struct walk {
	struct wg_repo *repo;
	struct wg_odb *odb;
	const struct wg_blame_options *opts;
	struct wg_oidmap index;     /* commit id -> its index + 1 */
	struct wg_oidmap shallow;   /* the cut-off commits of a shallow clone */
	struct commit *commits;
	size_t ncommits, acommits;
	struct origin *origins;
	size_t norigins, aorigins;
	struct wg_commit_queue queue;
	struct placed *placed;      /* lines that found their origin */
	size_t nplaced, aplaced;
	struct wg_buf scratch;
};

static int runs_add(struct runs *r, long lno, long s_lno, long num)
{
	if (num <= 0)
		return 0;
	if (r->n && r->v[r->n - 1].lno + r->v[r->n - 1].num == lno &&
	    r->v[r->n - 1].s_lno + r->v[r->n - 1].num == s_lno) {
		r->v[r->n - 1].num += num;
		return 0;
	}
	if (r->n == r->alloc) {
		size_t alloc = r->alloc ? 2 * r->alloc : 8;
		struct run *v = wg_realloc(r->v, alloc * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		r->v = v;
		r->alloc = alloc;
	}
	r->v[r->n++] = (struct run){ lno, s_lno, num };
	return 0;
}

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

/* Hand lines to origin `to`, queueing its commit. */
static int give(struct walk *w, size_t to, long lno, long s_lno, long num)
{
	int err;

	if (!w->origins[to].pending.n && (err = queue_commit(w, w->origins[to].commit)))
		return err;
	return runs_add(&w->origins[to].pending, lno, s_lno, num);
}

/* Lines the origin keeps: they are its own. */
static int keep(struct walk *w, size_t origin, const struct run *r)
{
	if (w->nplaced == w->aplaced) {
		size_t alloc = w->aplaced ? 2 * w->aplaced : 64;
		struct placed *v = wg_realloc(w->placed, alloc * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		w->placed = v;
		w->aplaced = alloc;
	}
	w->placed[w->nplaced++] = (struct placed){ *r, origin };
	if (!w->origins[origin].guilty) {
		w->origins[origin].guilty = true;
		w->commits[w->origins[origin].commit].nguilty++;
	}
	return 0;
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

/* For each line of the target, the parent's line it is the same as, or
 * -1 for lines the diff marks as changed. As git's blame diffs: no
 * context, so a common tail of whole blocks is cut off first and its
 * lines map by the last offset. */
static int line_map(const char *ptext, size_t psize, const char *ttext, size_t tsize, long *map,
		    long tn, unsigned whitespace)
{
	struct wg_line_diff_options lo = WG_LINE_DIFF_OPTIONS_INIT;
	struct wg_line_diff d;
	size_t plen = psize, tlen = tsize, i;
	long t = 0, offset = 0;
	int err;

	wg_line_diff_trim_tail(ptext, &plen, ttext, &tlen);
	lo.whitespace = whitespace;
	if ((err = wg_line_diff_run_with(&d, ptext, plen, ttext, tlen, &lo)))
		return err;
	for (i = 0; i < d.n; i++) {
		const struct wg_line_change *c = &d.v[i];
		for (; t < c->i2 && t < tn; t++)
			map[t] = t + offset;
		for (; t < c->i2 + c->chg2 && t < tn; t++)
			map[t] = -1;
		offset = c->i1 + c->chg1 - (c->i2 + c->chg2);
	}
	for (; t < tn; t++)
		map[t] = t + offset;
	wg_line_diff_release(&d);
	return 0;
}

/* Offer the target's pending lines `in` to the parent origin: lines the
 * parent has too go to it, the rest to `left`. */
static int pass_to_parent(struct walk *w, size_t target, size_t porigin, const struct runs *in,
			  struct runs *left, struct wg_buf *tbuf, struct wg_buf *pbuf)
{
	long tn = count_lines((const char *)tbuf->data, tbuf->len);
	long *map;
	size_t i;
	int err;

	(void)target;
	if ((err = read_blob(w, &w->origins[porigin].blob, pbuf)))
		return err;
	if (!(map = wg_calloc(tn ? (size_t)tn : 1, sizeof(*map))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if ((err = line_map((const char *)pbuf->data, pbuf->len, (const char *)tbuf->data,
			    tbuf->len, map, tn, w->opts->whitespace)))
		goto out;
	for (i = 0; i < in->n && !err; i++) {
		const struct run *r = &in->v[i];
		long k = 0;
		while (k < r->num && !err) {
			long m = map[r->s_lno + k], len = 1;
			if (m < 0) {
				while (k + len < r->num && map[r->s_lno + k + len] < 0)
					len++;
				err = runs_add(left, r->lno + k, r->s_lno + k, len);
			} else {
				while (k + len < r->num && map[r->s_lno + k + len] == m + len)
					len++;
				err = give(w, porigin, r->lno + k, m, len);
			}
			k += len;
		}
	}
out:
	wg_free(map);
	return err;
}

/* git's pass_blame for one origin with pending lines. */
static int pass_blame(struct walk *w, size_t target)
{
	struct runs in = w->origins[target].pending, left = { 0 };
	size_t commit = w->origins[target].commit, np, i, j;
	long *porigin = NULL;
	struct wg_buf tbuf = { 0 }, pbuf = { 0 };
	int pass, err = 0;

	memset(&w->origins[target].pending, 0, sizeof(in));
	np = w->commits[commit].nparents;
	if (w->commits[commit].boundary || !np)
		goto keep_all;
	if (!(porigin = wg_calloc(np, sizeof(*porigin)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
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
				goto out;
			if (w->commits[p].missing)
				continue;
			err = pass ? find_rename(w, p, target, &found) : find_origin(w, p, target, &found);
			if (err)
				goto out;
			if (found < 0)
				continue;
			if (wg_oid_equal(&w->origins[found].blob, &w->origins[target].blob)) {
				for (j = 0; j < in.n && !err; j++)
					err = give(w, (size_t)found, in.v[j].lno, in.v[j].s_lno,
						   in.v[j].num);
				goto out;
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
		goto out;
	for (i = 0; i < np && in.n; i++) {
		if (porigin[i] < 0)
			continue;
		if (w->origins[target].previous < 0)
			w->origins[target].previous = porigin[i];
		left.n = 0;
		if ((err = pass_to_parent(w, target, (size_t)porigin[i], &in, &left, &tbuf, &pbuf)))
			goto out;
		/* what is left is offered to the next parent */
		{
			struct runs swap = in;
			in = left;
			left = swap;
		}
	}
keep_all:
	for (j = 0; j < in.n && !err; j++)
		err = keep(w, target, &in.v[j]);
out:
	wg_free(porigin);
	wg_free(in.v);
	wg_free(left.v);
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

static int commit_info(struct walk *w, struct wg_blame_commit *out, const struct commit *c)
{
	struct wg_commit parsed;
	bool found;
	int err;

	out->oid = c->oid;
	out->boundary = c->boundary;
	out->several_paths = c->nguilty > 1;
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

static int placed_cmp(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	return (x->r.lno > y->r.lno) - (x->r.lno < y->r.lno);
}

/* The placed lines in line order, coalesced; only the origins and
 * commits they name, renumbered. */
static int collect(struct walk *w, struct wg_blame *out)
{
	struct placed *v = w->placed;
	size_t *onew = NULL, *cnew = NULL, i, n = w->nplaced;
	int err = 0;

	if (!n)
		return 0;
	if (!(onew = wg_calloc(w->norigins, sizeof(*onew))) ||
	    !(cnew = wg_calloc(w->ncommits, sizeof(*cnew))) ||
	    !(out->entries = wg_calloc(n, sizeof(*out->entries))) ||
	    !(out->origins = wg_calloc(w->norigins, sizeof(*out->origins))) ||
	    !(out->commits = wg_calloc(w->ncommits, sizeof(*out->commits)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	qsort(v, n, sizeof(*v), placed_cmp);
	for (i = 0; i < n && !err; i++) {
		struct wg_blame_entry *last = out->nentries ? &out->entries[out->nentries - 1] : NULL;
		size_t o = v[i].origin;
		if (!v[i].r.num)
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
		    last->lno + last->num_lines == v[i].r.lno &&
		    last->s_lno + last->num_lines == v[i].r.s_lno) {
			last->num_lines += v[i].r.num;
			continue;
		}
		out->entries[out->nentries++] =
			(struct wg_blame_entry){ v[i].r.lno, v[i].r.s_lno, v[i].r.num, onew[o] - 1 };
	}
out:
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

int wg_blame_run(struct wg_blame *out, struct wg_repo *repo, const struct wg_oid *commit,
		 const char *path, const struct wg_blame_options *opts)
{
	static const struct wg_blame_options no_opts = { 0 };
	struct walk w;
	struct wg_buf text = { 0 };
	struct wg_oid blob;
	unsigned mode;
	size_t start, origin, i;
	int err;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	w.repo = repo;
	w.odb = wg_repo_odb(repo);
	w.opts = opts ? opts : &no_opts;
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
	if (err || (err = read_blob(&w, &blob, &text)))
		goto out;
	out->size = text.len;
	out->nlines = count_lines((const char *)text.data, text.len);
	if (!(out->text = (char *)wg_buf_detach(&text, NULL))) {
		if (!(out->text = wg_strdup(""))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		}
	}
	if ((err = ranges_check(w.opts, out->nlines)) ||
	    (err = origin_get(&w, start, path, &blob, mode, &origin)))
		goto out;
	if (w.opts->nranges) {
		for (i = 0; i < w.opts->nranges && !err; i++)
			err = give(&w, origin, w.opts->ranges[2 * i], w.opts->ranges[2 * i],
				   w.opts->ranges[2 * i + 1] - w.opts->ranges[2 * i]);
	} else {
		err = give(&w, origin, 0, 0, out->nlines);
	}
	while (!err && w.queue.nr) {
		struct wg_commit_qent e = wg_commit_queue_pop(&w.queue);
		struct commit *c = &w.commits[e.tag];
		c->queued = false;
		/* origins may be added to the commit while its lines move on */
		for (i = 0; i < w.commits[e.tag].norigins && !err; i++) {
			size_t o = w.commits[e.tag].origins[i];
			if (w.origins[o].pending.n)
				err = pass_blame(&w, o);
		}
	}
	if (!err)
		err = collect(&w, out);
out:
	for (i = 0; i < w.norigins; i++) {
		wg_free(w.origins[i].path);
		wg_free(w.origins[i].pending.v);
	}
	for (i = 0; i < w.ncommits; i++) {
		wg_free(w.commits[i].parents);
		wg_free(w.commits[i].origins);
	}
	wg_free(w.origins);
	wg_free(w.commits);
	wg_free(w.placed);
	wg_oidmap_release(&w.index);
	wg_oidmap_release(&w.shallow);
	wg_commit_queue_release(&w.queue);
	wg_buf_release(&w.scratch);
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
