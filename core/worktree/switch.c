/* Switching branches with the working tree (see switch.h). */
#include "worktree/switch.h"

#include <string.h>

#include "refs/refdb.h"
#include "refs/refname.h"
#include "repo/upstream.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/ignore_files.h"
#include "worktree/index_file.h"

struct wg_switch {
	struct wg_repo *repo;
	struct wg_switch_options opts;
	struct wg_switch_info info;
	struct wg_buf old_branch, branch_ref, tracking, index_path, start;
	struct wg_buf target, new_branch;   /* the options' strings: the caller's may go */
	bool move_head;                 /* false: a clone's checkout of HEAD as it is */
	struct wg_ignore *ignore;
	struct wg_index *index, *result;
	struct wg_checkout *checkout;
};

/* refs/remotes/<remote>/<name> when exactly one remote has it (git's
 * checkout.guess); out stays empty when none or several do. */
static int unique_remote_branch(struct wg_buf *out, struct wg_repo *repo, const char *name)
{
	struct wg_ref_iter *it;
	const struct wg_ref *r;
	int n = 0, err;

	wg_buf_reset(out);
	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(repo), "refs/remotes/")))
		return err;
	while (!(err = wg_ref_iter_next(&r, it))) {
		const char *rest = r->name + 13, *slash = strchr(rest, '/');
		if (slash && !strcmp(slash + 1, name) && !r->symbolic && !n++ &&
		    (err = wg_buf_adds(out, r->name)))
			break;
	}
	wg_ref_iter_free(it);
	if (err != WG_ITEROVER)
		return err;
	wg_error_clear();
	if (n != 1)
		wg_buf_reset(out);
	return 0;
}

/* git switch's refusal of a non-branch, naming what the target is. */
static int not_a_branch(struct wg_repo *repo, const char *name)
{
	const char *const *rules = wg_ref_dwim_rules;
	struct wg_buf full = WG_BUF_INIT;
	struct wg_oid ignored;
	const char *ref = NULL;
	int err;

	for (size_t i = 0; i < WG_REF_DWIM_RULES && !ref; i++) {
		wg_buf_reset(&full);
		if (!wg_buf_printf(&full, rules[i], name) &&
		    wg_refdb_name_is_valid(wg_buf_cstr(&full)) &&
		    !wg_refdb_resolve(&ignored, NULL, wg_repo_refdb(repo), wg_buf_cstr(&full), 0))
			ref = wg_buf_cstr(&full);
	}
	wg_error_clear();
	if (ref && !strncmp(ref, "refs/tags/", 10))
		err = wg_error_set(WG_EINVALID, "a branch is expected, got tag '%s'", ref + 10);
	else if (ref && !strncmp(ref, "refs/remotes/", 13))
		err = wg_error_set(WG_EINVALID, "a branch is expected, got remote branch '%s'",
				   ref + 13);
	else if (ref)
		err = wg_error_set(WG_EINVALID, "a branch is expected, got '%s'", ref);
	else
		err = wg_error_set(WG_EINVALID, "a branch is expected, got commit '%s'", name);
	wg_buf_release(&full);
	return err;
}

static int commit_of(struct wg_oid *out, struct wg_repo *repo, const char *spec)
{
	int err = wg_revparse(out, repo, spec);
	if (!err)
		err = wg_object_peel(out, repo, out, WG_OBJ_COMMIT);
	return err;
}

/* Where HEAD goes: info.new_commit, branch_ref (empty: detached), and
 * for a guessed branch the ref it tracks. */
static int resolve_target(struct wg_switch *sw)
{
	const struct wg_switch_options *o = &sw->opts;
	struct wg_refdb *refdb = wg_repo_refdb(sw->repo);
	const char *name = o->target ? o->target : "HEAD";
	struct wg_oid existing;
	int err;

	if (o->new_branch) {
		if ((err = wg_buf_printf(&sw->branch_ref, "refs/heads/%s", o->new_branch)))
			return err;
		if (!wg_refname_is_valid(wg_buf_cstr(&sw->branch_ref), 0))
			return wg_error_set(WG_EINVALID, "'%s' is not a valid branch name",
					    o->new_branch);
		sw->info.existed = !wg_refdb_resolve(&existing, NULL, refdb,
						     wg_buf_cstr(&sw->branch_ref), 0);
		wg_error_clear();
		if (sw->info.existed && !o->force_create)
			return wg_error_set(WG_EEXISTS, "a branch named '%s' already exists",
					    o->new_branch);
		if (commit_of(&sw->info.new_commit, sw->repo, name)) {
			wg_error_clear();
			if (o->target)
				return wg_error_set(WG_ENOTFOUND, "'%s' is not a commit and a branch "
						    "'%s' cannot be created from it", o->target,
						    o->new_branch);
			return wg_error_set(WG_ENOTFOUND, "You are on a branch yet to be born");
		}
		sw->info.created = true;
		return wg_buf_adds(&sw->start, name);
	}
	if (!o->target && !o->detach) {
		/* a clone's checkout: HEAD's commit, HEAD untouched */
		sw->move_head = false;
		if (wg_refdb_resolve(&sw->info.new_commit, NULL, refdb, "HEAD", 0))
			return wg_error_set(WG_ENOTFOUND, "remote HEAD refers to nonexistent ref, "
					    "unable to checkout");
		if (sw->old_branch.len)
			return wg_buf_adds(&sw->branch_ref, wg_buf_cstr(&sw->old_branch));
		return 0;
	}
	if (!o->target)
		goto detach;   /* --detach alone: HEAD's commit */
	if (!o->detach && !(err = wg_buf_printf(&sw->branch_ref, "refs/heads/%s", o->target)) &&
	    wg_refname_is_valid(wg_buf_cstr(&sw->branch_ref), 0) &&
	    !wg_refdb_resolve(&sw->info.new_commit, NULL, refdb, wg_buf_cstr(&sw->branch_ref), 0))
		return 0;
	wg_error_clear();
	wg_buf_reset(&sw->branch_ref);
	if (!o->detach && (err = unique_remote_branch(&sw->tracking, sw->repo, o->target)))
		return err;
	if (sw->tracking.len) {
		/* git's guess: a new branch tracking the one remote branch of
		 * that name */
		if ((err = wg_refdb_resolve(&sw->info.new_commit, NULL, refdb,
					    wg_buf_cstr(&sw->tracking), 0)) ||
		    (err = wg_buf_printf(&sw->branch_ref, "refs/heads/%s", o->target)) ||
		    (err = wg_buf_adds(&sw->start, wg_buf_cstr(&sw->tracking) + 13)))
			return err;
		sw->info.created = true;
		sw->info.tracking = wg_buf_cstr(&sw->tracking);
		return 0;
	}
detach:
	if (commit_of(&sw->info.new_commit, sw->repo, name)) {
		wg_error_clear();
		return wg_error_set(WG_ENOTFOUND, "invalid reference: %s", name);
	}
	if (o->require_branch && !o->detach)
		return not_a_branch(sw->repo, o->target);
	return 0;
}

int wg_switch_begin(struct wg_switch **out, struct wg_repo *repo,
		    const struct wg_switch_options *opts)
{
	struct wg_refdb *refdb = wg_repo_refdb(repo);
	struct wg_checkout_options co;
	struct wg_ref head = { 0 };
	struct wg_oid old_tree, new_tree;
	struct wg_switch *sw;
	int err;

	*out = NULL;
	if ((err = wg_repo_require_workdir(repo)))
		return err;
	if (!(sw = wg_calloc(1, sizeof(*sw))))
		return WG_ENOMEM;
	sw->repo = repo;
	sw->opts = *opts;
	sw->move_head = true;
	sw->old_branch = sw->branch_ref = sw->tracking = sw->index_path = sw->start =
		sw->target = sw->new_branch = (struct wg_buf)WG_BUF_INIT;
	if ((opts->target && (err = wg_buf_adds(&sw->target, opts->target))) ||
	    (opts->new_branch && (err = wg_buf_adds(&sw->new_branch, opts->new_branch))))
		goto fail;
	sw->opts.target = opts->target ? wg_buf_cstr(&sw->target) : NULL;
	sw->opts.new_branch = opts->new_branch ? wg_buf_cstr(&sw->new_branch) : NULL;
	sw->opts.index_path = NULL;

	/* where HEAD is now */
	if ((err = wg_refdb_read(&head, refdb, "HEAD")))
		goto fail;
	if (head.symbolic && !strncmp(head.target, "refs/heads/", 11) &&
	    (err = wg_buf_adds(&sw->old_branch, head.target)))
		goto fail;
	wg_ref_release(&head);
	sw->info.old_branch = sw->old_branch.len ? wg_buf_cstr(&sw->old_branch) : NULL;
	sw->info.has_old = !wg_refdb_resolve(&sw->info.old_commit, NULL, refdb, "HEAD", 0);
	wg_error_clear();

	if ((err = resolve_target(sw)))
		goto fail;
	sw->info.new_branch_ref = sw->branch_ref.len ? wg_buf_cstr(&sw->branch_ref) : NULL;

	/* the plan */
	if (opts->index_path)
		err = wg_buf_adds(&sw->index_path, opts->index_path);
	else
		err = wg_repo_index_path(&sw->index_path, repo);
	if (err || (err = wg_repo_index_read(&sw->index, repo, wg_buf_cstr(&sw->index_path))) ||
	    (err = wg_ignore_open(&sw->ignore, repo, NULL, opts->warn_ignore,
				  opts->checkout.payload)) ||
	    (err = wg_object_peel(&new_tree, repo, &sw->info.new_commit, WG_OBJ_TREE)) ||
	    (sw->info.has_old && sw->move_head &&
	     (err = wg_object_peel(&old_tree, repo, &sw->info.old_commit, WG_OBJ_TREE))))
		goto fail;
	co = opts->checkout;
	co.force = opts->force;
	co.initial = !wg_fs_exists(wg_buf_cstr(&sw->index_path));
	co.ignore = sw->ignore;
	err = wg_checkout_plan(&sw->checkout, repo, sw->index,
			       sw->info.has_old && sw->move_head ? &old_tree : NULL, &new_tree, &co);
	*out = sw;
	return err;
fail:
	wg_ref_release(&head);
	wg_switch_free(sw);
	return err;
}

const struct wg_switch_info *wg_switch_info(const struct wg_switch *sw)
{
	return &sw->info;
}

const struct wg_checkout *wg_switch_checkout(const struct wg_switch *sw)
{
	return sw->checkout;
}

size_t wg_switch_missing(const struct wg_switch *sw, const struct wg_oid **oids)
{
	*oids = NULL;
	return sw->checkout ? wg_checkout_missing(sw->checkout, oids) : 0;
}

struct wg_index *wg_switch_index(struct wg_switch *sw)
{
	return sw->result;
}

/* The refs after the files: the new branch, its upstream, then HEAD. */
static int move_refs(struct wg_switch *sw)
{
	struct wg_refdb *refdb = wg_repo_refdb(sw->repo);
	const struct wg_switch_info *in = &sw->info;
	struct wg_buf msg = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];
	const char *to;
	int err = 0;

	if (in->created) {
		err = wg_buf_printf(&msg, in->existed && !in->tracking ? "branch: Reset to %s"
								       : "branch: Created from %s",
				    wg_buf_cstr(&sw->start));
		if (!err)
			err = wg_refdb_update(refdb, in->new_branch_ref, &in->new_commit, NULL, 0,
					      wg_buf_cstr(&msg));
		if (!err && in->tracking)
			err = wg_branch_set_upstream(sw->repo, in->new_branch_ref + 11,
						     in->tracking);
		if (err)
			goto out;
	}
	if (in->has_old)
		wg_oid_to_hex(&in->old_commit, hex);
	to = sw->opts.new_branch ? sw->opts.new_branch
	     : in->new_branch_ref ? in->new_branch_ref + 11
	     : sw->opts.target ? sw->opts.target : "HEAD";
	wg_buf_reset(&msg);
	if ((err = wg_buf_printf(&msg, "checkout: moving from %s to %s",
				 in->old_branch ? in->old_branch + 11
				 : in->has_old ? hex : "(invalid)", to)))
		goto out;
	if (in->new_branch_ref)
		err = wg_refdb_symref_update(refdb, "HEAD", in->new_branch_ref, wg_buf_cstr(&msg));
	else
		err = wg_refdb_update(refdb, "HEAD", &in->new_commit, NULL, WG_REF_NO_DEREF,
				      wg_buf_cstr(&msg));
out:
	wg_buf_release(&msg);
	return err;
}

int wg_switch_finish(struct wg_switch *sw)
{
	int err;
	if (!sw->checkout)
		return wg_error_set(WG_EINVALID, "the switch was refused");
	if ((err = wg_checkout_run(sw->checkout, &sw->result)) ||
	    (err = wg_index_write(sw->result, wg_buf_cstr(&sw->index_path))))
		return err;
	return sw->move_head ? move_refs(sw) : 0;
}

void wg_switch_free(struct wg_switch *sw)
{
	if (!sw)
		return;
	wg_checkout_free(sw->checkout);
	wg_ignore_free(sw->ignore);
	wg_index_free(sw->index);
	wg_index_free(sw->result);
	wg_buf_release(&sw->old_branch);
	wg_buf_release(&sw->branch_ref);
	wg_buf_release(&sw->tracking);
	wg_buf_release(&sw->index_path);
	wg_buf_release(&sw->start);
	wg_buf_release(&sw->target);
	wg_buf_release(&sw->new_branch);
	wg_free(sw);
}
