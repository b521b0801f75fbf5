/* webgit reset: move HEAD (and its branch) to a commit, with the index
 * (--mixed, the default) and the working tree (--hard) following, or
 * only reset index entries of some paths from a tree (reset [<tree-ish>]
 * [--] <paths>). git's messages, reflog entries ("reset: moving to
 * <rev>") and ORIG_HEAD; --merge, --keep, -p and -N are not supported. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "refs/refdb.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/index_tree.h"
#include "worktree/pathspec.h"
#include "worktree/status.h"

enum reset_type { NONE, MIXED, SOFT, HARD };
static const char *const type_names[] = { "", "mixed", "soft", "hard" };

/* What a --mixed reset leaves differing between the index and the
 * working tree (git's refresh_index in porcelain mode), and the stat
 * data it refreshes on the way. */
static int list_unstaged(struct wg_repo *repo, struct wg_index *ix, bool quiet)
{
	struct wg_status_options so = WG_STATUS_OPTIONS_INIT;
	struct wg_status *st = NULL;
	bool first = true;
	int err;

	so.untracked = WG_UNTRACKED_NO;
	so.warn = cli_warn_plain;
	if ((err = wg_status_collect(&st, repo, ix, NULL, &so)))
		return err;
	for (size_t i = 0; i < st->n && !quiet; i++) {
		const struct wg_status_entry *e = &st->v[i];
		char c = e->unmerged ? 'U' : e->y;
		if (c == '.')
			continue;
		if (first)
			printf("Unstaged changes after reset:\n");
		first = false;
		printf("%c\t%s\n", c, e->path);
	}
	wg_status_free(st);
	return 0;
}

/* Entries of the tree replace the index's: all of them, or those the
 * pathspec matches. Unchanged entries keep their stat data, so that the
 * next status reads nothing (git's one-way merge keeps them too). */
static int read_from_tree(struct wg_index **ixp, struct wg_repo *repo, const struct wg_oid *tree,
			  const struct wg_pathspec *ps)
{
	struct wg_index *old = *ixp, *nx = NULL;
	int err;

	if ((err = wg_index_new(&nx, wg_repo_algo(repo))) ||
	    (err = wg_index_read_tree(nx, wg_repo_odb(repo), tree)))
		goto fail;
	if (ps) {
		/* only matching paths change: the old entries elsewhere stay */
		for (size_t i = nx->nr; i-- > 0;)
			if (!wg_pathspec_match(ps, nx->entries[i]->path, nx->entries[i]->path_len, NULL))
				wg_index_remove_at(nx, i);
		for (size_t i = 0; i < old->nr; i++) {
			struct wg_index_entry *e = old->entries[i], *c;
			if (wg_pathspec_match(ps, e->path, e->path_len, NULL))
				continue;
			if (!(c = wg_index_entry_new(e->path, e->path_len, e->mode, &e->oid, e->stage))) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				goto fail;
			}
			c->st = e->st;
			c->flags = e->flags;
			if ((err = wg_index_add(nx, c)))
				goto fail;
		}
	}
	for (size_t i = 0; i < nx->nr; i++) {
		struct wg_index_entry *e = nx->entries[i];
		long pos = wg_index_find(old, e->path, e->path_len, 0);
		if (pos >= 0 && old->entries[pos]->mode == e->mode &&
		    wg_oid_equal(&old->entries[pos]->oid, &e->oid) &&
		    !(old->entries[pos]->flags & WG_INDEX_INTENT_TO_ADD)) {
			e->st = old->entries[pos]->st;
			e->flags |= old->entries[pos]->flags & (WG_INDEX_ASSUME_VALID |
								 WG_INDEX_SKIP_WORKTREE);
		}
	}
	nx->version = old->version;
	nx->mtime_sec = old->mtime_sec;
	nx->mtime_nsec = old->mtime_nsec;
	wg_index_free(old);
	*ixp = nx;
	return 0;
fail:
	wg_index_free(nx);
	return err;
}

/* git's remove_branch_state: what an unfinished merge or pick left. */
static void remove_branch_state(struct wg_repo *repo)
{
	static const char *const files[] = { "MERGE_HEAD", "MERGE_RR", "MERGE_MSG", "MERGE_MODE",
					     "SQUASH_MSG", "CHERRY_PICK_HEAD", "REVERT_HEAD" };
	struct wg_buf p = WG_BUF_INIT;
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		wg_buf_reset(&p);
		if (!wg_fs_join(&p, wg_repo_gitdir(repo), files[i]) && wg_fs_exists(wg_buf_cstr(&p)))
			wg_fs_unlink(wg_buf_cstr(&p));
	}
	wg_error_clear();
	wg_buf_release(&p);
}

/* git's reset_refs: ORIG_HEAD takes the old HEAD, HEAD the commit. */
static int reset_refs(struct wg_repo *repo, const char *rev, const struct wg_oid *oid)
{
	struct wg_refdb *refdb = wg_repo_refdb(repo);
	struct wg_oid orig, old_orig;
	struct wg_buf msg = WG_BUF_INIT;
	bool have_old_orig = !wg_refdb_resolve(&old_orig, NULL, refdb, "ORIG_HEAD", 0);
	bool have_orig = !wg_refdb_resolve(&orig, NULL, refdb, "HEAD", 0);
	int err = 0;

	wg_error_clear();
	if (have_orig)
		err = wg_refdb_update(refdb, "ORIG_HEAD", &orig, have_old_orig ? &old_orig : NULL, 0,
				      "reset: updating ORIG_HEAD");
	else if (have_old_orig)
		err = wg_refdb_delete(refdb, "ORIG_HEAD", &old_orig, 0, NULL);
	if (!err)
		err = wg_buf_printf(&msg, "reset: moving to %s", rev);
	if (!err)
		err = wg_refdb_update(refdb, "HEAD", oid, have_orig ? &orig : NULL, 0,
				      wg_buf_cstr(&msg));
	wg_buf_release(&msg);
	return err;
}

static bool is_rev(struct wg_repo *repo, const char *s, enum wg_object_type type)
{
	struct wg_oid oid;
	bool ok = !wg_revparse(&oid, repo, s) && !wg_object_peel(&oid, repo, &oid, type);
	wg_error_clear();
	return ok;
}

int cmd_reset(int argc, char **argv)
{
	static const char usage[] = "webgit reset [--soft | --mixed | --hard] [-q] [<commit>] | "
				    "reset [<tree-ish>] [--] <pathspec>...";
	enum reset_type type = NONE;
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_pathspec ps = { 0 };
	struct wg_buf path = WG_BUF_INIT, prefix = WG_BUF_INIT;
	struct wg_oid oid, head, head_tree, tree;
	const char *rev = "HEAD";
	const char **args = NULL;
	size_t nargs = 0, npaths;
	bool quiet = false, dashdash = false, unborn, have_head;
	int rc = 0, i;

	if (!(args = wg_calloc((size_t)argc + 1, sizeof(*args))))
		return cli_fatal("out of memory");
	/* options anywhere before "--", as git's parse_options */
	for (i = 1; i < argc && !rc; i++) {
		const char *s = argv[i];
		if (dashdash || s[0] != '-' || !s[1] || !strcmp(s, "--")) {
			dashdash = dashdash || !strcmp(s, "--");
			args[nargs++] = s;
		} else if (!strcmp(s, "--soft")) {
			type = SOFT;
		} else if (!strcmp(s, "--mixed")) {
			type = MIXED;
		} else if (!strcmp(s, "--hard")) {
			type = HARD;
		} else if (!strcmp(s, "-q") || !strcmp(s, "--quiet")) {
			quiet = true;
		} else if (strcmp(s, "--no-refresh")) {
			rc = cli_usage(usage);
		}
	}
	if (rc || (rc = cli_open_repo(&repo))) {
		wg_free(args);
		return rc;
	}
	/* git's parse_args: [<rev>] [--] [<paths>] */
	{
		size_t k = 0;
		if (nargs && !strcmp(args[0], "--")) {
			k = 1;
		} else if (nargs > 1 && !strcmp(args[1], "--")) {
			rev = args[0];
			k = 2;
		} else if (nargs && ((nargs == 1 && is_rev(repo, args[0], WG_OBJ_COMMIT)) ||
				     (nargs > 1 && is_rev(repo, args[0], WG_OBJ_TREE)))) {
			rev = args[0];
			k = 1;
		} else if (nargs) {
			struct stat st;
			const char *top = wg_repo_workdir(repo);
			struct wg_buf f = WG_BUF_INIT;
			bool exists = top && !wg_fs_join(&f, ".", args[0]) &&
				      !wg_fs_lstat(wg_buf_cstr(&f), &st);
			wg_buf_release(&f);
			wg_error_clear();
			if (!exists) {
				rc = cli_fatal("ambiguous argument '%s': unknown revision or path not "
					       "in the working tree.\nUse '--' to separate paths from "
					       "revisions, like this:\n'git <command> [<revision>...] -- "
					       "[<file>...]'", args[0]);
				goto out;
			}
		}
		npaths = nargs - k;
		if (npaths) {
			if (!wg_repo_workdir(repo) || cli_cwd_prefix(&prefix, wg_repo_workdir(repo)) ||
			    wg_pathspec_init(&ps, wg_buf_cstr(&prefix), args + k, npaths)) {
				rc = cli_fatal_core();
				goto out;
			}
		}
	}
	have_head = !wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0);
	wg_error_clear();
	unborn = !strcmp(rev, "HEAD") && !have_head;
	if (unborn) {
		wg_oid_empty_tree(&tree, wg_repo_algo(repo));
	} else if (!npaths) {
		if (wg_revparse(&oid, repo, rev) || wg_object_peel(&oid, repo, &oid, WG_OBJ_COMMIT)) {
			rc = cli_fatal("Failed to resolve '%s' as a valid revision.", rev);
			goto out;
		}
		if (wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE)) {
			rc = cli_fatal("Could not parse object '%s'.", rev);
			goto out;
		}
	} else if (wg_revparse(&oid, repo, rev) || wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE)) {
		rc = cli_fatal("Failed to resolve '%s' as a valid tree.", rev);
		goto out;
	}
	wg_error_clear();
	if (npaths) {
		if (type == MIXED)
			fprintf(stderr, "warning: --mixed with paths is deprecated; use 'git reset -- "
				"<paths>' instead.\n");
		else if (type != NONE) {
			rc = cli_fatal("Cannot do %s reset with paths.", type_names[type]);
			goto out;
		}
	}
	if (type == NONE)
		type = MIXED;
	if (type != SOFT && !wg_repo_workdir(repo)) {
		rc = type == MIXED ? cli_fatal("mixed reset is not allowed in a bare repository")
				   : cli_fatal("this operation must be run in a work tree");
		goto out;
	}
	if (cli_read_index(&ix, repo) || cli_index_path(&path, repo)) {
		rc = cli_fatal("index file corrupt");
		goto out;
	}
	if (type == SOFT) {
		struct wg_buf mh = WG_BUF_INIT;
		bool merging = !wg_fs_join(&mh, wg_repo_gitdir(repo), "MERGE_HEAD") &&
			       wg_fs_exists(wg_buf_cstr(&mh));
		wg_buf_release(&mh);
		for (size_t k = 0; k < ix->nr; k++)
			merging = merging || ix->entries[k]->stage;
		if (merging) {
			rc = cli_fatal("Cannot do a soft reset in the middle of a merge.");
			goto out;
		}
	} else if (type == MIXED) {
		if (read_from_tree(&ix, repo, &tree, npaths ? &ps : NULL) ||
		    list_unstaged(repo, ix, quiet) || wg_index_write(ix, wg_buf_cstr(&path))) {
			rc = cli_fatal_core();
			goto out;
		}
	} else {
		bool have_tree = have_head && !wg_object_peel(&head_tree, repo, &head, WG_OBJ_TREE);
		wg_error_clear();
		if ((rc = cli_checkout_tree(repo, have_tree ? &head_tree : NULL, &tree, true, false))) {
			if (rc == 1)
				rc = cli_fatal("Could not reset index file to revision '%s'.", rev);
			goto out;
		}
	}
	if (!npaths && !unborn) {
		if (reset_refs(repo, rev, &oid)) {
			fprintf(stderr, "error: %s\n", wg_error_message());
			wg_error_clear();
			rc = 1;
		} else if (type == HARD && !quiet) {
			struct wg_buf s = WG_BUF_INIT;
			char ab[WG_MAX_HEXSZ + 1];
			cli_abbrev(ab, repo, &oid);
			cli_commit_subject(&s, repo, &oid);
			wg_error_clear();
			printf("HEAD is now at %s%s%s\n", ab, s.len ? " " : "", wg_buf_cstr(&s));
			wg_buf_release(&s);
		}
	}
	if (!npaths)
		remove_branch_state(repo);
	if (fflush(stdout))
		rc = cli_fatal("write error");
out:
	wg_pathspec_release(&ps);
	wg_index_free(ix);
	wg_buf_release(&path);
	wg_buf_release(&prefix);
	wg_free(args);
	wg_repo_free(repo);
	return rc;
}
