/* Branches (see branch.h), after git's builtin/branch.c and branch.c. */
#include "repo/branch.h"

#include <string.h>

#include "odb/ahead_behind.h"
#include "refs/refname.h"
#include "refs/refspec.h"
#include "repo/revparse.h"
#include "repo/upstream.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory");
}

int wg_branch_name_check(const char *name)
{
	/* git's strbuf_check_branch_ref: and not "HEAD" */
	int ok = strcmp(name, "HEAD") ? wg_refname_short_is_valid("refs/heads/", name) : 0;
	if (ok < 0)
		return nomem();
	if (!ok)
		return wg_error_set(WG_EINVALID, "'%s' is not a valid branch name", name);
	return 0;
}

int wg_branch_current(struct wg_buf *out, struct wg_repo *repo)
{
	struct wg_ref head;
	int err;
	wg_buf_reset(out);
	if ((err = wg_refdb_read(&head, wg_repo_refdb(repo), "HEAD"))) {
		if (err != WG_ENOTFOUND)
			return err;
		wg_error_clear();
		return 0;
	}
	if (head.symbolic && !strncmp(head.target, "refs/heads/", 11))
		err = wg_buf_adds(out, head.target + 11);
	wg_ref_release(&head);
	return err;
}

/* The directory git names in "used by worktree at '<path>'". */
static const char *worktree_path(struct wg_repo *repo, struct wg_buf *buf)
{
	const char *w = wg_repo_workdir(repo);
	wg_buf_reset(buf);
	wg_buf_adds(buf, w ? w : wg_repo_gitdir(repo));
	while (buf->len > 1 && buf->data[buf->len - 1] == '/')
		wg_buf_setlen(buf, buf->len - 1);
	return wg_buf_cstr(buf);
}

static int write_config(struct wg_repo *repo)
{
	struct wg_buf path = WG_BUF_INIT;
	int err = wg_fs_join(&path, wg_repo_gitdir(repo), "config");
	if (!err)
		err = wg_config_write_file(wg_repo_config(repo), wg_buf_cstr(&path));
	wg_buf_release(&path);
	return err;
}

/* git's dwim_ref for a start point: the first of git's lookup rules that
 * names an existing ref; `full` stays empty for anything else. */
static int dwim_ref(struct wg_buf *full, struct wg_repo *repo, const char *name)
{
	const char *const *rules = wg_ref_dwim_rules;
	struct wg_oid oid;
	char *resolved = NULL;
	wg_buf_reset(full);
	for (size_t i = 0; i < WG_REF_DWIM_RULES; i++) {
		int err;
		wg_buf_reset(full);
		if (wg_buf_printf(full, rules[i], name))
			return nomem();
		if (!wg_refdb_name_is_valid(wg_buf_cstr(full)) ||
		    (!strcmp(rules[i], "%s") && strncmp(name, "refs/", 5) &&
		     !wg_refname_is_root(name)))
			continue;
		err = wg_refdb_resolve(&oid, &resolved, wg_repo_refdb(repo), wg_buf_cstr(full), 0);
		if (!err) {
			/* A symref counts as the ref it names (origin/HEAD). */
			wg_buf_reset(full);
			err = wg_buf_adds(full, resolved);
			wg_free(resolved);
			return err;
		}
		if (err != WG_ENOTFOUND && err != WG_EINVALID)
			return err;
		wg_error_clear();
	}
	wg_buf_reset(full);
	return 0;
}

struct find_remote {
	const char *ref;        /* refs/remotes/... */
	struct wg_buf *remote, *merge;
};

/* git's find_tracked_branch: the remote whose fetch refspec stores into
 * `ref`, and the remote ref it comes from (the refspec reversed). */
static int find_remote_cb(const char *key, const char *value, void *payload)
{
	struct find_remote *f = payload;
	const char *dot;
	size_t klen = strlen(key);
	struct wg_refspec rs, rev;
	if (f->remote->len || !value || strncmp(key, "remote.", 7) || klen < 13 ||
	    strcmp(key + klen - 6, ".fetch") || wg_refspec_parse(&rs, value)) {
		wg_error_clear();
		return 0;
	}
	dot = key + klen - 6;
	if (rs.dst) {
		rev = rs;
		rev.src = rs.dst;
		rev.dst = rs.src;
		if (wg_refspec_map(&rev, f->ref, f->merge) == 1 &&
		    wg_buf_add(f->remote, key + 7, (size_t)(dot - key - 7))) {
			wg_refspec_release(&rs);
			return nomem();
		}
	}
	wg_refspec_release(&rs);
	return 0;
}

/* Set branch.<branch>.remote/.merge for the full ref `ref`; 0 and empty
 * `upstream` when `ref` is no branch at all. */
static int setup_tracking(struct wg_repo *repo, const char *branch, const char *ref,
			  bool local_too, struct wg_buf *upstream)
{
	struct wg_buf remote = WG_BUF_INIT, merge = WG_BUF_INIT, key = WG_BUF_INIT;
	struct wg_config *cfg = wg_repo_config(repo);
	int err = 0;

	if (!strncmp(ref, "refs/heads/", 11)) {
		if (!local_too)
			goto out;
		if ((err = wg_buf_adds(&remote, ".")) || (err = wg_buf_adds(&merge, ref)))
			goto out;
	} else if (!strncmp(ref, "refs/remotes/", 13)) {
		struct find_remote f = { ref, &remote, &merge };
		if ((err = wg_config_foreach(cfg, find_remote_cb, &f)))
			goto out;
		if (!remote.len)
			goto out;
	} else {
		goto out;
	}
	if ((err = wg_buf_printf(&key, "branch.%s.remote", branch)) ||
	    (err = wg_config_set_string(cfg, wg_buf_cstr(&key), wg_buf_cstr(&remote))))
		goto out;
	wg_buf_reset(&key);
	if ((err = wg_buf_printf(&key, "branch.%s.merge", branch)) ||
	    (err = wg_config_set_string(cfg, wg_buf_cstr(&key), wg_buf_cstr(&merge))) ||
	    (err = write_config(repo)))
		goto out;
	if (upstream)
		err = wg_refname_shorten(upstream, ref);
out:
	wg_buf_release(&remote);
	wg_buf_release(&merge);
	wg_buf_release(&key);
	return err;
}

/* The commit a start point names: git's "not a valid object name" and
 * "not a valid branch point" messages. */
static int start_commit(struct wg_oid *out, struct wg_repo *repo, const char *start)
{
	int err = wg_revparse(out, repo, start);
	if (err == WG_ENOTFOUND || err == WG_EINVALID || err == WG_EAMBIGUOUS)
		return wg_error_set(WG_ENOTFOUND, "not a valid object name: '%s'", start);
	if (err)
		return err;
	if (wg_object_peel(out, repo, out, WG_OBJ_COMMIT))
		return wg_error_set(WG_EINVALID, "not a valid branch point: '%s'", start);
	return 0;
}

/* branch.autoSetupMerge: "always" tracks local branches too, false
 * nothing. */
static enum wg_branch_track auto_setup_merge(struct wg_repo *repo, bool *local_too)
{
	const char *v = NULL;
	bool b = true;
	*local_too = false;
	if (wg_repo_config_get(repo, "branch.autosetupmerge", &v)) {
		wg_error_clear();
		return WG_BRANCH_TRACK_AUTO;
	}
	if (v && !strcmp(v, "always")) {
		*local_too = true;
		return WG_BRANCH_TRACK_ALWAYS;
	}
	if (wg_config_bool_value("branch.autosetupmerge", v, &b) || !b) {
		wg_error_clear();
		return b ? WG_BRANCH_TRACK_AUTO : WG_BRANCH_TRACK_NEVER;
	}
	return WG_BRANCH_TRACK_AUTO;
}

int wg_branch_create(struct wg_repo *repo, const char *name, const char *start,
		     const struct wg_branch_create_options *opts, struct wg_buf *upstream)
{
	static const struct wg_branch_create_options defaults = WG_BRANCH_CREATE_OPTIONS_INIT;
	struct wg_buf ref = WG_BUF_INIT, cur = WG_BUF_INIT, msg = WG_BUF_INIT,
		      full = WG_BUF_INIT, wt = WG_BUF_INIT;
	struct wg_oid oid, old;
	enum wg_branch_track track;
	bool exists, local_too = false;
	int err;

	if (!opts)
		opts = &defaults;
	if (upstream)
		wg_buf_reset(upstream);
	if (!start)
		start = "HEAD";
	if ((err = wg_branch_name_check(name)) ||
	    (err = wg_buf_printf(&ref, "refs/heads/%s", name)))
		goto out;
	err = wg_refdb_resolve(&old, NULL, wg_repo_refdb(repo), wg_buf_cstr(&ref), 0);
	if (err && err != WG_ENOTFOUND)
		goto out;
	exists = !err;
	wg_error_clear();
	if (exists && !opts->force) {
		err = wg_error_set(WG_EEXISTS, "a branch named '%s' already exists", name);
		goto out;
	}
	if ((err = wg_branch_current(&cur, repo)))
		goto out;
	if (exists && !strcmp(wg_buf_cstr(&cur), name)) {
		err = wg_error_set(WG_EINVALID, "cannot force update the branch '%s' used by "
				   "worktree at '%s'", name, worktree_path(repo, &wt));
		goto out;
	}
	if ((err = start_commit(&oid, repo, start)))
		goto out;
	track = opts->track;
	if (track == WG_BRANCH_TRACK_AUTO)
		track = auto_setup_merge(repo, &local_too);
	else
		local_too = track == WG_BRANCH_TRACK_ALWAYS;
	if (track != WG_BRANCH_TRACK_NEVER && (err = dwim_ref(&full, repo, start)))
		goto out;
	if (opts->track == WG_BRANCH_TRACK_ALWAYS && strncmp(wg_buf_cstr(&full), "refs/heads/", 11) &&
	    strncmp(wg_buf_cstr(&full), "refs/remotes/", 13)) {
		err = wg_error_set(WG_EINVALID, "cannot set up tracking information; starting "
				   "point '%s' is not a branch", start);
		goto out;
	}
	if ((err = wg_buf_printf(&msg, "branch: %s %s", exists ? "Reset to" : "Created from",
				 start)) ||
	    (err = wg_refdb_update(wg_repo_refdb(repo), wg_buf_cstr(&ref), &oid,
				   exists ? &old : NULL, 0, wg_buf_cstr(&msg))))
		goto out;
	if (track != WG_BRANCH_TRACK_NEVER && full.len)
		err = setup_tracking(repo, name, wg_buf_cstr(&full), local_too, upstream);
out:
	wg_buf_release(&ref);
	wg_buf_release(&cur);
	wg_buf_release(&msg);
	wg_buf_release(&full);
	wg_buf_release(&wt);
	return err;
}

int wg_branch_track(struct wg_repo *repo, const char *branch, const char *start,
		    struct wg_buf *upstream)
{
	struct wg_buf full = WG_BUF_INIT, ref = WG_BUF_INIT, up = WG_BUF_INIT;
	struct wg_oid oid;
	int err;

	if ((err = wg_buf_printf(&ref, "refs/heads/%s", branch)))
		goto out;
	if (wg_refdb_resolve(&oid, NULL, wg_repo_refdb(repo), wg_buf_cstr(&ref), 0)) {
		err = wg_error_set(WG_ENOTFOUND, "branch '%s' does not exist", branch);
		goto out;
	}
	if ((err = dwim_ref(&full, repo, start)))
		goto out;
	if (!full.len) {
		err = wg_error_set(WG_ENOTFOUND, "the requested upstream branch '%s' does not "
				   "exist", start);
		goto out;
	}
	if ((err = setup_tracking(repo, branch, wg_buf_cstr(&full), true, &up)))
		goto out;
	if (!up.len)
		err = wg_error_set(WG_EINVALID, "cannot set up tracking information; starting "
				   "point '%s' is not a branch", start);
	else if (upstream)
		err = wg_buf_adds(upstream, wg_buf_cstr(&up));
out:
	wg_buf_release(&full);
	wg_buf_release(&ref);
	wg_buf_release(&up);
	return err;
}

int wg_branch_unset_upstream(struct wg_repo *repo, const char *branch)
{
	struct wg_config *cfg = wg_repo_config(repo);
	struct wg_buf key = WG_BUF_INIT;
	const char *v;
	int err;

	if ((err = wg_buf_printf(&key, "branch.%s.merge", branch)))
		goto out;
	if (wg_config_get_string(cfg, wg_buf_cstr(&key), &v)) {
		err = wg_error_set(WG_ENOTFOUND, "branch '%s' has no upstream information", branch);
		goto out;
	}
	if ((err = wg_config_unset_all(cfg, wg_buf_cstr(&key))))
		goto out;
	wg_buf_reset(&key);
	if ((err = wg_buf_printf(&key, "branch.%s.remote", branch)))
		goto out;
	if (wg_config_unset_all(cfg, wg_buf_cstr(&key)))
		wg_error_clear();
	err = write_config(repo);
out:
	wg_buf_release(&key);
	return err;
}

/* Is `rev` reachable from `ref`? */
static int merged_into(struct wg_repo *repo, const struct wg_oid *rev, const struct wg_oid *ref)
{
	size_t ahead, behind;
	int err = wg_ahead_behind(wg_repo_odb(repo), rev, ref, &ahead, &behind);
	return err ? err : ahead == 0;
}

/* git's branch_merged: against the upstream when the branch has one that
 * exists, else HEAD; warns when HEAD would have said otherwise. */
static int branch_merged(struct wg_repo *repo, const char *name, bool remote,
			 const struct wg_oid *rev, wg_branch_warn_fn warn, void *payload)
{
	struct wg_buf full = WG_BUF_INIT, shortname = WG_BUF_INIT, line = WG_BUF_INIT;
	struct wg_oid head, up;
	bool have_head, have_up = false;
	int merged = 0, expect;

	have_head = !wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0) &&
		    !wg_object_peel(&head, repo, &head, WG_OBJ_COMMIT);
	wg_error_clear();
	if (!remote && !wg_branch_upstream(&full, &shortname, repo, name) && full.len &&
	    !wg_refdb_resolve(&up, NULL, wg_repo_refdb(repo), wg_buf_cstr(&full), 0) &&
	    !wg_object_peel(&up, repo, &up, WG_OBJ_COMMIT))
		have_up = true;
	wg_error_clear();
	if (have_up)
		merged = merged_into(repo, rev, &up);
	else if (have_head)
		merged = merged_into(repo, rev, &head);
	if (merged < 0)
		goto out;
	if (have_up && !(have_head && wg_oid_equal(&head, &up))) {
		expect = have_head ? merged_into(repo, rev, &head) : 0;
		if (expect < 0) {
			merged = expect;
			goto out;
		}
		if (expect != merged && warn) {
			if (merged)
				wg_buf_printf(&line, "deleting branch '%s' that has been merged to\n"
					      "         '%s', but not yet merged to HEAD", name,
					      wg_buf_cstr(&full));
			else
				wg_buf_printf(&line, "not deleting branch '%s' that is not yet "
					      "merged to\n         '%s', even though it is merged "
					      "to HEAD", name, wg_buf_cstr(&full));
			warn(payload, wg_buf_cstr(&line));
		}
	}
out:
	wg_buf_release(&full);
	wg_buf_release(&shortname);
	wg_buf_release(&line);
	return merged;
}

int wg_branch_delete(struct wg_repo *repo, const char *name, unsigned flags,
		     struct wg_oid *was, wg_branch_warn_fn warn, void *payload)
{
	bool remote = flags & WG_BRANCH_REMOTE;
	struct wg_buf ref = WG_BUF_INIT, cur = WG_BUF_INIT, wt = WG_BUF_INIT, sec = WG_BUF_INIT;
	struct wg_ref raw;
	struct wg_oid commit;
	int err, m;

	memset(&raw, 0, sizeof(raw));
	if ((err = wg_buf_printf(&ref, remote ? "refs/remotes/%s" : "refs/heads/%s", name)))
		goto out;
	if (!remote) {
		if ((err = wg_branch_current(&cur, repo)))
			goto out;
		if (!strcmp(wg_buf_cstr(&cur), name)) {
			err = wg_error_set(WG_EINVALID, "cannot delete branch '%s' used by worktree "
					   "at '%s'", name, worktree_path(repo, &wt));
			goto out;
		}
	}
	if (!wg_refdb_name_is_valid(wg_buf_cstr(&ref)) ||
	    wg_refdb_read(&raw, wg_repo_refdb(repo), wg_buf_cstr(&ref))) {
		err = wg_error_set(WG_ENOTFOUND, "%sbranch '%s' not found", remote ?
				   "remote-tracking " : "", name);
		goto out;
	}
	if (raw.symbolic) {
		/* git deletes a symref without looking at what it names. */
		wg_oid_null(was, wg_repo_algo(repo));
	} else {
		*was = raw.oid;
		if (!(flags & WG_BRANCH_FORCE)) {
			if (wg_object_peel(&commit, repo, &raw.oid, WG_OBJ_COMMIT)) {
				err = wg_error_set(WG_ECORRUPT, "couldn't look up commit object for "
						   "'%s'", wg_buf_cstr(&ref));
				goto out;
			}
			m = branch_merged(repo, name, remote, &commit, warn, payload);
			if (m < 0) {
				err = m;
				goto out;
			}
			if (!m) {
				wg_error_set(WG_EINVALID, "the branch '%s' is not fully merged", name);
				err = 1;
				goto out;
			}
		}
	}
	if ((err = wg_refdb_delete(wg_repo_refdb(repo), wg_buf_cstr(&ref),
				   raw.symbolic ? NULL : &raw.oid, WG_REF_NO_DEREF, NULL)))
		goto out;
	if (!remote) {
		if ((err = wg_buf_printf(&sec, "branch.%s", name)))
			goto out;
		m = wg_config_rename_section(wg_repo_config(repo), wg_buf_cstr(&sec), NULL);
		if (m > 0)
			err = write_config(repo);
		else if (m < 0)
			wg_error_clear();  /* a name git's config cannot hold */
	}
out:
	wg_ref_release(&raw);
	wg_buf_release(&ref);
	wg_buf_release(&cur);
	wg_buf_release(&wt);
	wg_buf_release(&sec);
	return err;
}

int wg_branch_rename(struct wg_repo *repo, const char *old_name, const char *new_name,
		     unsigned flags)
{
	bool copy = flags & WG_BRANCH_COPY, force = flags & WG_BRANCH_FORCE;
	struct wg_buf oldref = WG_BUF_INIT, newref = WG_BUF_INIT, cur = WG_BUF_INIT,
		      msg = WG_BUF_INIT, wt = WG_BUF_INIT, os = WG_BUF_INIT, ns = WG_BUF_INIT;
	struct wg_refdb *db = wg_repo_refdb(repo);
	struct wg_oid oid;
	bool old_exists, new_exists, is_head;
	int err, m;

	if ((err = wg_buf_printf(&oldref, "refs/heads/%s", old_name)) ||
	    (err = wg_buf_printf(&newref, "refs/heads/%s", new_name)))
		goto out;
	if (!wg_refname_is_valid(wg_buf_cstr(&oldref), 0)) {
		err = wg_error_set(WG_EINVALID, "invalid branch name: '%s'", old_name);
		goto out;
	}
	if ((err = wg_branch_current(&cur, repo)))
		goto out;
	is_head = !strcmp(wg_buf_cstr(&cur), old_name);
	old_exists = !wg_refdb_resolve(&oid, NULL, db, wg_buf_cstr(&oldref), 0);
	wg_error_clear();
	if (!old_exists && !is_head) {
		err = wg_error_set(WG_ENOTFOUND, "no branch named '%s'", old_name);
		goto out;
	}
	if ((err = wg_branch_name_check(new_name)))
		goto out;
	new_exists = !wg_refdb_resolve(&oid, NULL, db, wg_buf_cstr(&newref), 0);
	wg_error_clear();
	if (!strcmp(old_name, new_name)) {
		/* git copies a branch onto itself as a no-op, and renames it
		 * onto itself as any rename (the reflogs show it). */
		if (copy)
			goto out;
		new_exists = false;
	}
	if (new_exists && !force) {
		err = wg_error_set(WG_EEXISTS, "a branch named '%s' already exists", new_name);
		goto out;
	}
	if (new_exists && !strcmp(wg_buf_cstr(&cur), new_name)) {
		err = wg_error_set(WG_EINVALID, "cannot force update the branch '%s' used by "
				   "worktree at '%s'", new_name, worktree_path(repo, &wt));
		goto out;
	}
	if ((err = wg_buf_printf(&msg, "Branch: %s %s to %s", copy ? "copied" : "renamed",
				 wg_buf_cstr(&oldref), wg_buf_cstr(&newref))))
		goto out;
	if (old_exists && (err = wg_refdb_rename(db, wg_buf_cstr(&oldref), wg_buf_cstr(&newref),
						 WG_REF_RENAME_FORCE |
						 (copy ? WG_REF_RENAME_COPY : 0),
						 wg_buf_cstr(&msg))))
		goto out;
	if (!copy && is_head &&
	    (err = wg_refdb_symref_update(db, "HEAD", wg_buf_cstr(&newref), wg_buf_cstr(&msg))))
		goto out;
	if ((err = wg_buf_printf(&os, "branch.%s", old_name)) ||
	    (err = wg_buf_printf(&ns, "branch.%s", new_name)))
		goto out;
	m = copy ? wg_config_copy_section(wg_repo_config(repo), wg_buf_cstr(&os), wg_buf_cstr(&ns)) :
		   wg_config_rename_section(wg_repo_config(repo), wg_buf_cstr(&os), wg_buf_cstr(&ns));
	if (m > 0)
		m = write_config(repo);
	if (m < 0)
		err = wg_error_set(m, "Branch is %s, but update of config-file failed",
				   copy ? "copied" : "renamed");
out:
	wg_buf_release(&oldref);
	wg_buf_release(&newref);
	wg_buf_release(&cur);
	wg_buf_release(&msg);
	wg_buf_release(&wt);
	wg_buf_release(&os);
	wg_buf_release(&ns);
	return err;
}

static int list_prefix(struct wg_repo *repo, const char *prefix, bool remote, const char *head,
		       wg_branch_list_fn cb, void *payload)
{
	struct wg_ref_iter *it;
	const struct wg_ref *r;
	struct wg_buf target = WG_BUF_INIT;
	int err;

	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(repo), prefix)))
		return err;
	while (!(err = wg_ref_iter_next(&r, it))) {
		struct wg_branch_info info;
		memset(&info, 0, sizeof(info));
		info.refname = r->name;
		info.name = r->name + strlen(prefix);
		info.remote = remote;
		info.head = !remote && head && !strcmp(head, info.name);
		if (r->symbolic) {
			wg_buf_reset(&target);
			if (wg_refname_shorten(&target, r->target)) {
				err = nomem();
				break;
			}
			info.symref = wg_buf_cstr(&target);
			if (wg_refdb_resolve(&info.oid, NULL, wg_repo_refdb(repo), r->name, 0)) {
				wg_error_clear();
				wg_oid_null(&info.oid, wg_repo_algo(repo));
			}
		} else {
			info.oid = r->oid;
		}
		if ((err = cb(&info, payload)))
			break;
	}
	wg_ref_iter_free(it);
	wg_buf_release(&target);
	if (err == WG_ITEROVER) {
		wg_error_clear();
		err = 0;
	}
	return err;
}

int wg_branch_foreach(struct wg_repo *repo, unsigned kinds, wg_branch_list_fn cb, void *payload)
{
	struct wg_buf cur = WG_BUF_INIT;
	int err;
	if ((err = wg_branch_current(&cur, repo)))
		return err;
	if (kinds & WG_BRANCH_LIST_LOCAL)
		err = list_prefix(repo, "refs/heads/", false, wg_buf_cstr(&cur), cb, payload);
	if (!err && (kinds & WG_BRANCH_LIST_REMOTE))
		err = list_prefix(repo, "refs/remotes/", true, NULL, cb, payload);
	wg_buf_release(&cur);
	return err;
}
