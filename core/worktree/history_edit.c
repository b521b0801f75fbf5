/* Reword and split with descendants rewritten (see history_edit.h). */
#include "worktree/history_edit.h"

#include <stdint.h>
#include <string.h>

#include "diff/hunk_select.h"
#include "diff/patch.h"
#include "diff/tree_diff.h"
#include "hash/oidmap.h"
#include "history/merge_base.h"
#include "history/revwalk.h"
#include "index/index.h"
#include "object/commit.h"
#include "odb/commit_queue.h"
#include "refs/refdb.h"
#include "repo/revparse.h"
#include "repo/shallow.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/pathspec.h"
#include "worktree/commit_index.h"
#include "worktree/index_tree.h"

void wg_history_rewrite_release(struct wg_history_rewrite *rw)
{
	if (!rw)
		return;
	wg_free(rw->old_ids);
	wg_free(rw->new_ids);
	for (size_t i = 0; i < rw->nrefs; i++)
		wg_free(rw->refs[i]);
	wg_free(rw->refs);
	memset(rw, 0, sizeof(*rw));
}

/* A local tip: a branch, or HEAD when detached. */
struct tip {
	char *name;
	struct wg_oid oid;
};

struct edit {
	struct wg_repo *repo;
	const struct wg_history_edit_options *opts;
	struct wg_history_rewrite *rw;
	size_t alloc;
	/* old id -> its index in rw + 1 (each set once, so the OR of
	 * wg_oidmap_set is a plain store) */
	struct wg_oidmap index_of;
	struct tip *tips;
	size_t ntips;
	char *head_branch;   /* what HEAD points to, NULL when detached */
	struct wg_buf scratch;
};

static void edit_release(struct edit *e)
{
	wg_oidmap_release(&e->index_of);
	for (size_t i = 0; i < e->ntips; i++)
		wg_free(e->tips[i].name);
	wg_free(e->tips);
	wg_free(e->head_branch);
	wg_buf_release(&e->scratch);
}

/* Append (name, oid) to the list *v of *n tips. */
static int add_tip(struct tip **v, size_t *n, const char *name, const struct wg_oid *oid)
{
	struct tip *t;
	if (!(t = wg_realloc(*v, (*n + 1) * sizeof(*t))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	*v = t;
	t += *n;
	if (!(t->name = wg_strdup(name)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	t->oid = *oid;
	++*n;
	return 0;
}

/* The local branches and a detached HEAD. */
static int read_tips(struct edit *e)
{
	struct wg_refdb *refdb = wg_repo_refdb(e->repo);
	struct wg_ref_iter *it;
	const struct wg_ref *r;
	struct wg_ref head = { 0 };
	int err;

	if ((err = wg_refdb_iter_new(&it, refdb, "refs/heads/")))
		return err;
	while (!(err = wg_ref_iter_next(&r, it)))
		if (!r->symbolic && (err = add_tip(&e->tips, &e->ntips, r->name, &r->oid)))
			break;
	wg_ref_iter_free(it);
	if (err != WG_ITEROVER)
		return err;
	wg_error_clear();
	if ((err = wg_refdb_read(&head, refdb, "HEAD"))) {
		if (err != WG_ENOTFOUND)
			return err;
		wg_error_clear();
		return 0;
	}
	if (head.symbolic)
		err = (e->head_branch = wg_strdup(head.target)) ? 0
			: wg_error_set(WG_ENOMEM, "out of memory");
	else
		err = add_tip(&e->tips, &e->ntips, "HEAD", &head.oid);
	wg_ref_release(&head);
	return err;
}

/* The first remote-tracking branch or tag that holds `commit` (the
 * commit it peels to has it as an ancestor), into *holder (NULL: none).
 * One walk from them all, hiding the commit's parents, finds whether any
 * does; only then is each asked, for the message. */
static int published_by(char **holder, struct edit *e, const struct wg_commit *c,
			const struct wg_oid *commit)
{
	static const char *const prefixes[] = { "refs/remotes/", "refs/tags/" };
	struct wg_odb *odb = wg_repo_odb(e->repo);
	struct wg_revwalk_options wo = { 0 };
	struct wg_revwalk *w = NULL;
	struct wg_commit_node *n;
	struct tip *held = NULL;
	size_t nheld = 0;
	bool found = false;
	int err;

	*holder = NULL;
	wo.max_parents = -1;
	wo.max_count = SIZE_MAX;
	for (size_t p = 0; p < 2; p++) {
		struct wg_ref_iter *it;
		const struct wg_ref *r;
		if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(e->repo), prefixes[p])))
			goto out;
		while (!(err = wg_ref_iter_next(&r, it))) {
			struct wg_oid tip;
			if (r->symbolic)
				continue;
			/* a tag of a tree or a blob holds no commit */
			if (wg_object_peel(&tip, e->repo, &r->oid, WG_OBJ_COMMIT)) {
				wg_error_clear();
				continue;
			}
			if ((err = add_tip(&held, &nheld, r->name, &tip)))
				break;
		}
		wg_ref_iter_free(it);
		if (err != WG_ITEROVER)
			goto out;
		wg_error_clear();
		err = 0;
	}
	if (!nheld)
		goto out;
	if ((err = wg_revwalk_new(&w, odb, &wo)))
		goto out;
	for (size_t i = 0; i < c->nparents && !err; i++)
		err = wg_revwalk_push(w, &c->parents[i], WG_REVWALK_HIDE);
	for (size_t i = 0; i < nheld && !err; i++)
		err = wg_revwalk_push(w, &held[i].oid, 0);
	while (!err && !found && (err = wg_revwalk_next(w, &n)) == 1) {
		err = 0;
		found = wg_oid_equal(&n->oid, commit);
	}
	if (err < 0)
		goto out;
	err = 0;
	for (size_t i = 0; found && i < nheld && !*holder && !err; i++) {
		bool yes = false;
		if (!(err = wg_is_ancestor(odb, commit, &held[i].oid, &yes)) && yes &&
		    !(*holder = wg_strdup(held[i].name)))
			err = wg_error_set(WG_ENOMEM, "out of memory");
	}
out:
	wg_revwalk_free(w);
	for (size_t i = 0; i < nheld; i++)
		wg_free(held[i].name);
	wg_free(held);
	return err;
}

static int record(struct edit *e, const struct wg_oid *old_id, const struct wg_oid *new_id)
{
	struct wg_history_rewrite *rw = e->rw;
	int err;
	if (rw->nr == e->alloc) {
		size_t n = e->alloc ? 2 * e->alloc : 16;
		struct wg_oid *o = wg_realloc(rw->old_ids, n * sizeof(*o)), *m;
		if (!o)
			return wg_error_set(WG_ENOMEM, "out of memory");
		rw->old_ids = o;
		if (!(m = wg_realloc(rw->new_ids, n * sizeof(*m))))
			return wg_error_set(WG_ENOMEM, "out of memory");
		rw->new_ids = m;
		e->alloc = n;
	}
	if ((err = wg_oidmap_set(&e->index_of, old_id, (unsigned)rw->nr + 1, NULL)))
		return err;
	rw->old_ids[rw->nr] = *old_id;
	rw->new_ids[rw->nr++] = *new_id;
	return 0;
}

/* The replacement of `old_id`, or NULL when it was not rewritten. */
static const struct wg_oid *replacement(const struct edit *e, const struct wg_oid *old_id)
{
	unsigned i = wg_oidmap_get(&e->index_of, old_id);
	return i ? &e->rw->new_ids[i - 1] : NULL;
}

static int read_commit(struct edit *e, const struct wg_oid *oid, struct wg_commit *c)
{
	bool found;
	int err = wg_commit_read(wg_repo_odb(e->repo), oid, c, &e->scratch, &found);
	if (!err && !found)
		err = wg_error_set(WG_ENOTFOUND, "commit %s is missing", wg_oid_hex(oid));
	return err;
}

/* A new commit from `old`: the given tree (NULL: old's), parents
 * (NULL: old's, each mapped to its replacement), message (NULL: old's);
 * old's author and extra headers without signatures, the committer of
 * the edit. */
static int write_commit(struct wg_oid *out, struct edit *e, const struct wg_commit *old,
			const struct wg_oid *tree, const struct wg_oid *parents, size_t nparents,
			const struct wg_buf *message)
{
	struct wg_commit c;
	struct wg_buf raw = WG_BUF_INIT;
	int err = 0;

	wg_commit_init(&c);
	c.tree = tree ? *tree : old->tree;
	if (!parents) {
		parents = old->parents;
		nparents = old->nparents;
		for (size_t i = 0; i < nparents && !err; i++) {
			const struct wg_oid *p = replacement(e, &parents[i]);
			err = wg_commit_add_parent(&c, p ? p : &parents[i]);
		}
	} else {
		for (size_t i = 0; i < nparents && !err; i++)
			err = wg_commit_add_parent(&c, &parents[i]);
	}
	if (!err && old->author)
		err = wg_commit_set_author(&c, old->author);
	if (!err)
		err = wg_commit_set_committer(&c, e->opts->committer);
	if (!err && old->encoding && !message)
		err = wg_commit_set_encoding(&c, old->encoding);
	for (size_t i = 0; i < old->nheaders && !err; i++)
		if (strcmp(old->headers[i].name, "gpgsig") &&
		    strcmp(old->headers[i].name, "gpgsig-sha256"))
			err = wg_commit_add_header(&c, old->headers[i].name, old->headers[i].value);
	if (!err)
		err = message ? wg_commit_set_message(&c, message->data, message->len)
			: wg_commit_set_message(&c, old->message, old->message_len);
	if (!err)
		err = wg_commit_serialize(&c, &raw);
	if (!err)
		err = wg_odb_write(wg_repo_odb(e->repo), WG_OBJ_COMMIT, raw.data, raw.len, out);
	wg_commit_release(&c);
	wg_buf_release(&raw);
	return err;
}

/* A message as git commit -m stores it; an empty one is refused. */
static int clean_message(struct wg_buf *out, const char *msg, size_t len)
{
	bool converted;
	int err = wg_buf_add(out, msg, len);
	if (!err)
		err = wg_commit_message_cleanup(out);
	if (!err && wg_commit_message_is_empty((const char *)out->data, out->len))
		err = wg_error_set(WG_EINVALID, "Aborting commit due to empty commit message.");
	if (!err)
		err = wg_commit_message_utf8(out, &converted);
	return err;
}

static int add_ref_name(struct wg_history_rewrite *rw, const char *name)
{
	char **v = wg_realloc(rw->refs, (rw->nrefs + 1) * sizeof(*v));
	if (!v)
		return wg_error_set(WG_ENOMEM, "out of memory");
	rw->refs = v;
	if (!(v[rw->nrefs] = wg_strdup(name)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	rw->nrefs++;
	return 0;
}

/* Rewrite the descendants of `edited` (already recorded) parents first,
 * then move the refs. */
static int rewrite_descendants(struct edit *e, const struct wg_oid *edited, const char *action,
			       const char *subject, size_t subject_len)
{
	struct wg_revwalk_options wo = { 0 };
	struct wg_revwalk *w = NULL;
	struct wg_oidmap shallow = WG_OIDMAP_INIT;
	struct wg_commit_node *n;
	struct wg_ref_transaction *tx = NULL;
	struct wg_buf msg = WG_BUF_INIT;
	bool reached = false;
	int err;

	wo.order = WG_REVWALK_ORDER_TOPO;
	wo.reverse = true;
	wo.max_parents = -1;
	wo.max_count = SIZE_MAX;
	if ((err = wg_repo_shallow_read(e->repo, &shallow)))
		goto out;
	wo.shallow = shallow.nr ? &shallow : NULL;
	if ((err = wg_revwalk_new(&w, wg_repo_odb(e->repo), &wo)) ||
	    (err = wg_revwalk_push(w, edited, WG_REVWALK_HIDE)))
		goto out;
	for (size_t i = 0; i < e->ntips; i++) {
		if (wg_oid_equal(&e->tips[i].oid, edited))
			reached = true;
		else if ((err = wg_revwalk_push(w, &e->tips[i].oid, 0)))
			goto out;
	}
	/* parents first: a commit whose parent was rewritten is rewritten */
	while ((err = wg_revwalk_next(w, &n)) == 1) {
		struct wg_commit c;
		struct wg_oid new_id;
		bool touched = false;
		wg_commit_init(&c);
		if (!(err = read_commit(e, &n->oid, &c))) {
			for (size_t i = 0; i < c.nparents && !touched; i++)
				touched = replacement(e, &c.parents[i]) != NULL;
			if (touched) {
				reached = true;
				if (!(err = write_commit(&new_id, e, &c, NULL, NULL, 0, NULL)))
					err = record(e, &n->oid, &new_id);
			}
		}
		wg_commit_release(&c);
		if (err)
			goto out;
	}
	if (err < 0)
		goto out;
	if (!reached) {
		err = wg_error_set(WG_ENOTFOUND, "commit %s is not on a local branch",
				   wg_oid_hex(edited));
		goto out;
	}

	if ((err = wg_buf_printf(&msg, "%s: ", action)) ||
	    (err = wg_buf_add(&msg, subject, subject_len)) ||
	    (err = wg_ref_transaction_new(&tx, wg_repo_refdb(e->repo))) ||
	    (err = wg_ref_transaction_set_committer(tx, e->opts->committer)))
		goto out;
	for (size_t i = 0; i < e->ntips; i++) {
		const struct tip *t = &e->tips[i];
		const struct wg_oid *to = replacement(e, &t->oid);
		bool via_head = e->head_branch && !strcmp(e->head_branch, t->name);
		if (!to)
			continue;
		/* the branch HEAD is on moves through HEAD: both reflogs */
		if ((err = wg_ref_transaction_update(tx, via_head ? "HEAD" : t->name, to, &t->oid,
						     !strcmp(t->name, "HEAD") ? WG_REF_NO_DEREF : 0,
						     wg_buf_cstr(&msg))))
			goto out;
		if ((err = add_ref_name(e->rw, t->name)))
			goto out;
	}
	err = wg_ref_transaction_commit(tx);
out:
	wg_ref_transaction_free(tx);
	wg_revwalk_free(w);
	wg_oidmap_release(&shallow);
	wg_buf_release(&msg);
	return err;
}

/* The first line of a message. */
static size_t subject_len(const char *msg, size_t len)
{
	const char *nl = memchr(msg, '\n', len);
	return nl ? (size_t)(nl - msg) : len;
}

static int begin(struct edit *e, struct wg_history_rewrite *out, struct wg_repo *repo,
		 const struct wg_oid *commit, const struct wg_history_edit_options *opts,
		 struct wg_commit *c)
{
	int err;
	memset(out, 0, sizeof(*out));
	memset(e, 0, sizeof(*e));
	e->repo = repo;
	e->opts = opts;
	e->rw = out;
	e->index_of = (struct wg_oidmap)WG_OIDMAP_INIT;
	e->scratch = (struct wg_buf)WG_BUF_INIT;
	wg_commit_init(c);
	if (!opts || !opts->committer)
		return wg_error_set(WG_EINVALID, "a committer is required");
	if ((err = read_commit(e, commit, c)) || (err = read_tips(e)))
		return err;
	if (!opts->allow_published) {
		char *holder;
		if ((err = published_by(&holder, e, c, commit)))
			return err;
		if (holder) {
			err = wg_error_set(WG_EINVALID, "commit %s is in published history (%s "
					   "holds it): rewriting it would need a forced push",
					   wg_oid_hex(commit), holder);
			wg_free(holder);
			return err;
		}
	}
	return 0;
}

int wg_history_reword(struct wg_history_rewrite *out, struct wg_repo *repo,
		      const struct wg_oid *commit, const struct wg_history_edit_options *opts)
{
	struct edit e;
	struct wg_commit c;
	struct wg_buf msg = WG_BUF_INIT;
	struct wg_oid new_id;
	int err = begin(&e, out, repo, commit, opts, &c);

	if (!err && !opts->message)
		err = wg_error_set(WG_EINVALID, "reword: a message is required");
	if (!err)
		err = clean_message(&msg, opts->message, opts->message_len);
	if (!err)
		err = write_commit(&new_id, &e, &c, NULL, NULL, 0, &msg);
	if (!err)
		err = record(&e, commit, &new_id);
	if (!err)
		err = rewrite_descendants(&e, commit, "reword", (const char *)msg.data,
					  subject_len((const char *)msg.data, msg.len));
	wg_commit_release(&c);
	wg_buf_release(&msg);
	edit_release(&e);
	if (err)
		wg_history_rewrite_release(out);
	return err;
}

static bool is_regular(unsigned mode)
{
	return !mode || (mode & 0170000) == 0100000;
}

/* The file of `ch` with only the hunks `h` names taken from its new
 * version: into *blob (written), or *remove when a deletion is taken
 * whole. */
static int take_hunks(struct wg_oid *blob, bool *remove, struct edit *e,
		      const struct wg_diff_change *ch, const struct wg_split_hunks *h)
{
	struct wg_odb *odb = wg_repo_odb(e->repo);
	struct wg_buf old = WG_BUF_INIT, new = WG_BUF_INIT, out = WG_BUF_INIT;
	struct wg_hunk_select hs = { 0 };
	enum wg_object_type type;
	bool *take = NULL;
	size_t taken = 0;
	int err = 0;

	*remove = false;
	if (!is_regular(ch->old_mode) || !is_regular(ch->new_mode))
		return wg_error_set(WG_EINVALID, "split: '%s' is not a regular file on both sides: "
				    "it can only be taken whole", ch->path);
	if ((ch->old_mode && (err = wg_odb_read(odb, &ch->old_oid, &type, &old))) ||
	    (ch->new_mode && (err = wg_odb_read(odb, &ch->new_oid, &type, &new))))
		goto out;
	if (wg_diff_is_binary(old.data, old.len) || wg_diff_is_binary(new.data, new.len)) {
		err = wg_error_set(WG_EINVALID, "split: '%s' is binary: it can only be taken whole",
				   ch->path);
		goto out;
	}
	if ((err = wg_hunk_select_init(&hs, (const char *)old.data, old.len,
				       (const char *)new.data, new.len)))
		goto out;
	if (!(take = wg_calloc(hs.n ? hs.n : 1, sizeof(*take)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < h->n; i++) {
		if (h->hunks[i] >= hs.n) {
			err = wg_error_set(WG_EINVALID, "split: '%s' has %zu hunk(s), no hunk %u",
					   ch->path, hs.n, h->hunks[i]);
			goto out;
		}
		taken += !take[h->hunks[i]];
		take[h->hunks[i]] = true;
	}
	if (!ch->new_mode && taken == hs.n) {
		*remove = true;
		goto out;
	}
	if (!(err = wg_hunk_select_apply(&out, &hs, take)))
		err = wg_odb_write(odb, WG_OBJ_BLOB, out.data, out.len, blob);
out:
	wg_free(take);
	wg_hunk_select_release(&hs);
	wg_buf_release(&old);
	wg_buf_release(&new);
	wg_buf_release(&out);
	return err;
}

/* The entry of the first commit's index for `path`: (mode, oid), or
 * none when mode is 0. */
static int set_entry(struct wg_index *ix, const char *path, unsigned mode, const struct wg_oid *oid)
{
	size_t len = strlen(path);
	long pos = wg_index_find(ix, path, len, 0);
	struct wg_index_entry *ent;
	if (pos >= 0)
		wg_index_remove_at(ix, (size_t)pos);
	if (!mode)
		return 0;
	if (!(ent = wg_index_entry_new(path, len, mode, oid, 0)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return wg_index_add(ix, ent);
}

/* The first commit's tree: the parent's, with the changes to the paths
 * opts->paths matches and the hunks opts->hunks names taken from the
 * commit's. *ntaken: how many changes it took from. */
static int first_tree(struct wg_oid *out, size_t *ntaken, struct edit *e,
		      const struct wg_oid *commit, const struct wg_commit *c,
		      const struct wg_oid *parent_tree)
{
	const struct wg_history_edit_options *o = e->opts;
	struct wg_odb *odb = wg_repo_odb(e->repo);
	struct wg_tree_diff_options dopts = { 0 };
	struct wg_diff_changes changes = { 0 };
	struct wg_index *ix = NULL;
	size_t used = 0;
	int err;

	*ntaken = 0;
	/* with parts of files, every change is looked at */
	dopts.paths = o->nhunks ? NULL : o->paths;
	if ((err = wg_diff_trees(&changes, odb, parent_tree, &c->tree, &dopts)) ||
	    (err = wg_index_new(&ix, wg_repo_algo(e->repo))) ||
	    (parent_tree && (err = wg_index_read_tree(ix, odb, parent_tree))))
		goto out;
	for (size_t i = 0; i < changes.n && !err; i++) {
		const struct wg_diff_change *ch = &changes.v[i];
		const struct wg_split_hunks *h = NULL;
		for (size_t j = 0; j < o->nhunks && !h; j++)
			if (!strcmp(o->hunks[j].path, ch->path))
				h = &o->hunks[j];
		if (h) {
			struct wg_oid blob;
			bool remove;
			used++;
			if (!h->n)
				continue;
			if (!(err = take_hunks(&blob, &remove, e, ch, h)))
				err = set_entry(ix, ch->path, remove ? 0
						: ch->new_mode ? ch->new_mode : ch->old_mode, &blob);
			++*ntaken;
		} else if (!o->nhunks || (o->paths && o->paths->nr &&
					  wg_pathspec_match(o->paths, ch->path, strlen(ch->path), NULL))) {
			err = set_entry(ix, ch->path, ch->new_mode, &ch->new_oid);
			++*ntaken;
		}
	}
	if (!err && used < o->nhunks) {
		for (size_t j = 0; j < o->nhunks; j++) {
			bool found = false;
			for (size_t i = 0; i < changes.n && !found; i++)
				found = !strcmp(o->hunks[j].path, changes.v[i].path);
			if (!found) {
				err = wg_error_set(WG_EINVALID, "split: '%s' is not changed by %s",
						   o->hunks[j].path, wg_oid_hex(commit));
				break;
			}
		}
	}
	/* "a" kept as a file while "a/b" is taken, or the reverse */
	if (!err)
		err = wg_index_check_df(ix);
	if (!err)
		err = wg_index_write_tree(out, ix, odb);
out:
	wg_diff_changes_release(&changes);
	wg_index_free(ix);
	return err;
}

int wg_history_split(struct wg_history_rewrite *out, struct wg_repo *repo,
		     const struct wg_oid *commit, const struct wg_history_edit_options *opts)
{
	struct edit e;
	struct wg_commit c, parent;
	struct wg_buf first_msg = WG_BUF_INIT, second_msg = WG_BUF_INIT;
	struct wg_oid tree, first, second;
	const struct wg_oid *parent_tree = NULL;
	const char *subject;
	size_t nchanges = 0;
	int err = begin(&e, out, repo, commit, opts, &c);

	wg_commit_init(&parent);
	if (err)
		goto out;
	if (c.nparents > 1) {
		err = wg_error_set(WG_EUNSUPPORTED, "split: %s is a merge", wg_oid_hex(commit));
		goto out;
	}
	if ((!opts->paths || !opts->paths->nr) && !opts->nhunks) {
		err = wg_error_set(WG_EINVALID, "split: no paths given for the first commit");
		goto out;
	}
	if (c.nparents) {
		if ((err = read_commit(&e, &c.parents[0], &parent)))
			goto out;
		parent_tree = &parent.tree;
	}
	if ((err = first_tree(&tree, &nchanges, &e, commit, &c, parent_tree)))
		goto out;
	if (!nchanges) {
		err = wg_error_set(WG_EINVALID, "split: no change of %s matches the paths given",
				   wg_oid_hex(commit));
		goto out;
	}
	if (wg_oid_equal(&tree, &c.tree)) {
		err = wg_error_set(WG_EINVALID, "split: every change of %s matches the paths "
				   "given: the second commit would be empty", wg_oid_hex(commit));
		goto out;
	}
	if (opts->first_message &&
	    (err = clean_message(&first_msg, opts->first_message, opts->first_message_len)))
		goto out;
	if (opts->message && (err = clean_message(&second_msg, opts->message, opts->message_len)))
		goto out;
	if ((err = write_commit(&first, &e, &c, &tree, c.parents, c.nparents,
				opts->first_message ? &first_msg : NULL)) ||
	    (err = write_commit(&second, &e, &c, NULL, &first, 1,
				opts->message ? &second_msg : NULL)) ||
	    (err = record(&e, commit, &second)))
		goto out;
	out->first = first;
	subject = opts->first_message ? (const char *)first_msg.data : c.message;
	err = rewrite_descendants(&e, commit, "split", subject,
				  subject_len(subject, opts->first_message ? first_msg.len
					      : c.message_len));
out:
	wg_commit_release(&c);
	wg_commit_release(&parent);
	wg_buf_release(&first_msg);
	wg_buf_release(&second_msg);
	edit_release(&e);
	if (err)
		wg_history_rewrite_release(out);
	return err;
}
