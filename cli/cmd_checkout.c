/* webgit checkout / switch: move HEAD to a branch or a commit and the
 * working tree and index with it (git checkout <branch>, git checkout -b,
 * git checkout --detach, git switch [-c] [--detach]), with git's messages
 * and reflog entries. Paths (git checkout -- <path>) are not supported yet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "object/commit.h"
#include "refs/refname.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

struct co_args {
	bool is_switch, quiet, force, detach, new_force;
	const char *new_branch;  /* -b / -c */
	const char *target;      /* the argument as given, or NULL */
};

/* The subject of a commit as git's oneline format gives it: the first
 * paragraph's lines joined with spaces. */
static int subject(struct wg_buf *out, struct wg_repo *repo, const struct wg_oid *oid)
{
	struct wg_buf data = WG_BUF_INIT;
	struct wg_commit c;
	enum wg_object_type type;
	const char *p;
	int err;

	if ((err = wg_odb_read(wg_repo_odb(repo), oid, &type, &data)))
		return err;
	if ((err = wg_commit_parse(&c, wg_repo_algo(repo), data.data, data.len))) {
		wg_buf_release(&data);
		return err;
	}
	p = c.message;
	while (*p == '\n')
		p++;
	while (*p && !err) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		bool blank = true;
		for (size_t i = 0; i < n; i++)
			if (p[i] != ' ' && p[i] != '\t')
				blank = false;
		if (blank)
			break;
		if (out->len)
			err = wg_buf_addch(out, ' ');
		if (!err)
			err = wg_buf_add(out, p, n);
		p += n + (nl ? 1 : 0);
	}
	wg_commit_release(&c);
	wg_buf_release(&data);
	return err;
}

static void describe(struct wg_repo *repo, const char *msg, const struct wg_oid *oid)
{
	struct wg_buf s = WG_BUF_INIT;
	char ab[WG_MAX_HEXSZ + 1];
	cli_abbrev(ab, repo, oid);
	subject(&s, repo, oid);
	fprintf(stderr, "%s %s %s\n", msg, ab, wg_buf_cstr(&s));
	wg_buf_release(&s);
}

static int tree_of(struct wg_oid *out, struct wg_repo *repo, const struct wg_oid *commit)
{
	return wg_object_peel(out, repo, commit, WG_OBJ_TREE);
}

/* refs/remotes/<remote>/<name> when exactly one remote has it (git's
 * checkout DWIM); 0 with out empty when none or several. */
static int unique_remote_branch(struct wg_buf *out, struct wg_repo *repo, const char *name)
{
	struct wg_ref_iter *it;
	const struct wg_ref *r;
	int n = 0, err;
	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(repo), "refs/remotes/")))
		return err;
	while (!(err = wg_ref_iter_next(&r, it))) {
		const char *rest = r->name + 13, *slash = strchr(rest, '/');
		if (slash && !strcmp(slash + 1, name) && !r->symbolic) {
			if (!n++) {
				wg_buf_reset(out);
				err = wg_buf_adds(out, r->name);
				if (err)
					break;
			}
		}
	}
	wg_ref_iter_free(it);
	if (err != WG_ITEROVER)
		return err;
	wg_error_clear();
	if (n != 1)
		wg_buf_reset(out);
	return 0;
}

static int set_upstream(struct wg_repo *repo, const char *branch, const char *remote_ref)
{
	struct wg_config *cfg = wg_repo_config(repo);
	struct wg_buf k = WG_BUF_INIT, v = WG_BUF_INIT, path = WG_BUF_INIT;
	const char *rest = remote_ref + 13, *slash = strchr(rest, '/');
	int err;
	if ((err = wg_buf_printf(&k, "branch.%s.remote", branch)) ||
	    (err = wg_buf_add(&v, rest, (size_t)(slash - rest))) ||
	    (err = wg_config_set_string(cfg, wg_buf_cstr(&k), wg_buf_cstr(&v))))
		goto out;
	wg_buf_reset(&k);
	wg_buf_reset(&v);
	if ((err = wg_buf_printf(&k, "branch.%s.merge", branch)) ||
	    (err = wg_buf_printf(&v, "refs/heads/%s", slash + 1)) ||
	    (err = wg_config_set_string(cfg, wg_buf_cstr(&k), wg_buf_cstr(&v))) ||
	    (err = wg_fs_join(&path, wg_repo_gitdir(repo), "config")))
		goto out;
	err = wg_config_write_file(cfg, wg_buf_cstr(&path));
out:
	wg_buf_release(&k);
	wg_buf_release(&v);
	wg_buf_release(&path);
	return err;
}

/* git's report_tracking: where the branch stands against its upstream
 * (stdout). Nothing when it has none. */
static void report_tracking(struct wg_repo *repo, const char *branch)
{
	struct wg_buf base = WG_BUF_INIT, shortname = WG_BUF_INIT;
	size_t ahead, behind;
	int gone;

	if (cli_upstream(&base, &shortname, repo, branch) || !base.len)
		goto out;
	gone = cli_ahead_behind(repo, branch, wg_buf_cstr(&base), &ahead, &behind);
	if (gone < 0)
		goto out;
	if (gone) {
		printf("Your branch is based on '%s', but the upstream is gone.\n"
		       "  (use \"git branch --unset-upstream\" to fixup)\n", wg_buf_cstr(&shortname));
	} else if (!ahead && !behind) {
		printf("Your branch is up to date with '%s'.\n", wg_buf_cstr(&shortname));
	} else if (!behind) {
		printf("Your branch is ahead of '%s' by %zu commit%s.\n"
		       "  (use \"git push\" to publish your local commits)\n",
		       wg_buf_cstr(&shortname), ahead, ahead == 1 ? "" : "s");
	} else if (!ahead) {
		printf("Your branch is behind '%s' by %zu commit%s, and can be fast-forwarded.\n"
		       "  (use \"git pull\" to update your local branch)\n",
		       wg_buf_cstr(&shortname), behind, behind == 1 ? "" : "s");
	} else {
		printf("Your branch and '%s' have diverged,\n"
		       "and have %zu and %zu different commit%s each, respectively.\n"
		       "  (use \"git pull\" if you want to integrate the remote branch with yours)\n",
		       wg_buf_cstr(&shortname), ahead, behind, ahead + behind == 1 ? "" : "s");
	}
out:
	wg_error_clear();
	wg_buf_release(&base);
	wg_buf_release(&shortname);
}

static int run(struct co_args *a)
{
	struct wg_repo *repo = NULL;
	struct wg_refdb *refdb;
	struct wg_ref head = { 0 };
	struct wg_buf branch_ref = WG_BUF_INIT, msg = WG_BUF_INIT, track = WG_BUF_INIT;
	struct wg_oid old_commit, new_commit, old_tree, new_tree;
	bool has_old = false, to_branch = false, branch_exists = false;
	const char *old_branch = NULL, *new_name;
	char hex[WG_MAX_HEXSZ + 1];
	int rc, err;

	if ((rc = cli_open_repo(&repo)))
		return rc;
	refdb = wg_repo_refdb(repo);
	if (!wg_repo_workdir(repo)) {
		rc = cli_fatal("this operation must be run in a work tree");
		goto out;
	}
	/* where HEAD is now */
	if (wg_refdb_read(&head, refdb, "HEAD")) {
		rc = cli_fatal_core();
		goto out;
	}
	if (head.symbolic && !strncmp(head.target, "refs/heads/", 11))
		old_branch = head.target;
	if (!wg_refdb_resolve(&old_commit, NULL, refdb, "HEAD", 0))
		has_old = true;
	wg_error_clear();

	/* where it goes */
	new_name = a->target ? a->target : "HEAD";
	if (a->new_branch) {
		if (wg_buf_printf(&branch_ref, "refs/heads/%s", a->new_branch)) {
			rc = cli_fatal("out of memory");
			goto out;
		}
		if (!wg_refname_is_valid(wg_buf_cstr(&branch_ref), 0)) {
			rc = cli_fatal("'%s' is not a valid branch name", a->new_branch);
			goto out;
		}
		{
			struct wg_oid existing;
			branch_exists = !wg_refdb_resolve(&existing, NULL, refdb,
							 wg_buf_cstr(&branch_ref), 0);
			wg_error_clear();
		}
		if (branch_exists && !a->new_force) {
			rc = cli_fatal("a branch named '%s' already exists", a->new_branch);
			goto out;
		}
		if (wg_revparse(&new_commit, repo, new_name) ||
		    wg_object_peel(&new_commit, repo, &new_commit, WG_OBJ_COMMIT)) {
			rc = a->target ? cli_fatal("'%s' is not a commit and a branch '%s' cannot "
						   "be created from it", a->target, a->new_branch)
				       : cli_fatal("You are on a branch yet to be born");
			goto out;
		}
		to_branch = true;
	} else if (a->target && !a->detach &&
		   !wg_buf_printf(&branch_ref, "refs/heads/%s", a->target) &&
		   !wg_refdb_resolve(&new_commit, NULL, refdb, wg_buf_cstr(&branch_ref), 0)) {
		to_branch = true;
	} else {
		wg_error_clear();
		if (a->target && !a->detach && !unique_remote_branch(&track, repo, a->target) &&
		    track.len) {
			/* git's DWIM: a new branch that tracks the one remote
			 * branch of that name */
			if (wg_refdb_resolve(&new_commit, NULL, refdb, wg_buf_cstr(&track), 0)) {
				rc = cli_fatal_core();
				goto out;
			}
			a->new_branch = a->target;
			to_branch = true;
		} else if (wg_revparse(&new_commit, repo, new_name) ||
			   wg_object_peel(&new_commit, repo, &new_commit, WG_OBJ_COMMIT)) {
			wg_error_clear();
			if (a->is_switch)
				rc = cli_fatal("invalid reference: %s", new_name);
			else {
				fprintf(stderr, "error: pathspec '%s' did not match any file(s) known "
					"to git\n", new_name);
				rc = 1;
			}
			goto out;
		} else if (a->is_switch && !a->detach) {
			static const char *const rules[] = { "%s", "refs/%s", "refs/tags/%s",
				"refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD" };
			struct wg_buf full = WG_BUF_INIT;
			struct wg_oid ignored;
			const char *ref = NULL;
			for (size_t i = 0; i < sizeof(rules) / sizeof(*rules) && !ref; i++) {
				wg_buf_reset(&full);
				if (!wg_buf_printf(&full, rules[i], new_name) &&
				    wg_refdb_name_is_valid(wg_buf_cstr(&full)) &&
				    !wg_refdb_resolve(&ignored, NULL, refdb, wg_buf_cstr(&full), 0))
					ref = wg_buf_cstr(&full);
			}
			wg_error_clear();
			if (ref && !strncmp(ref, "refs/tags/", 10))
				cli_fatal("a branch is expected, got tag '%s'", ref + 10);
			else if (ref && !strncmp(ref, "refs/remotes/", 13))
				cli_fatal("a branch is expected, got remote branch '%s'", ref + 13);
			else if (ref)
				cli_fatal("a branch is expected, got '%s'", ref);
			else
				cli_fatal("a branch is expected, got commit '%s'", new_name);
			wg_buf_release(&full);
			fprintf(stderr, "hint: If you want to detach HEAD at the commit, try again "
				"with the --detach option.\n");
			rc = 128;
			goto out;
		}
	}

	/* the working tree and the index */
	if (tree_of(&new_tree, repo, &new_commit) ||
	    (has_old && tree_of(&old_tree, repo, &old_commit))) {
		rc = cli_fatal_core();
		goto out;
	}
	if ((rc = cli_checkout_tree(repo, has_old ? &old_tree : NULL, &new_tree, a->force,
				    !a->quiet)))
		goto out;

	/* the refs */
	if (has_old)
		wg_oid_to_hex(&old_commit, hex);
	if (wg_buf_printf(&msg, "checkout: moving from %s to %s",
			  old_branch ? old_branch + 11 : has_old ? hex : "(invalid)",
			  a->new_branch ? a->new_branch : to_branch ? a->target : new_name)) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	if (a->new_branch) {
		struct wg_buf bmsg = WG_BUF_INIT;
		wg_buf_reset(&branch_ref);
		err = wg_buf_printf(&branch_ref, "refs/heads/%s", a->new_branch);
		if (!err)
			err = track.len ? wg_buf_printf(&bmsg, "branch: Created from %s",
							wg_buf_cstr(&track) + 13)
					: branch_exists ? wg_buf_printf(&bmsg, "branch: Reset to %s",
									new_name)
							: wg_buf_printf(&bmsg, "branch: Created from %s",
									new_name);
		if (!err)
			err = wg_refdb_update(refdb, wg_buf_cstr(&branch_ref), &new_commit, NULL, 0,
					      wg_buf_cstr(&bmsg));
		wg_buf_release(&bmsg);
		if (err) {
			rc = cli_fatal_core();
			goto out;
		}
		if (track.len) {
			if (set_upstream(repo, a->new_branch, wg_buf_cstr(&track))) {
				rc = cli_fatal_core();
				goto out;
			}
			printf("branch '%s' set up to track '%s'.\n", a->new_branch,
			       wg_buf_cstr(&track) + 13);
		}
	}
	if (to_branch) {
		if (wg_refdb_symref_update(refdb, "HEAD", wg_buf_cstr(&branch_ref),
					   wg_buf_cstr(&msg))) {
			rc = cli_fatal("unable to update HEAD");
			goto out;
		}
	} else if (wg_refdb_update(refdb, "HEAD", &new_commit, NULL, WG_REF_NO_DEREF,
				   wg_buf_cstr(&msg))) {
		rc = cli_fatal_core();
		goto out;
	}

	if (a->quiet)
		goto out;
	if (!old_branch && has_old && !wg_oid_equal(&old_commit, &new_commit))
		describe(repo, "Previous HEAD position was", &old_commit);
	if (!to_branch) {
		if (old_branch && !a->detach)
			fprintf(stderr,
				"Note: switching to '%s'.\n"
				"\n"
				"You are in 'detached HEAD' state. You can look around, make experimental\n"
				"changes and commit them, and you can discard any commits you make in this\n"
				"state without impacting any branches by switching back to a branch.\n"
				"\n"
				"If you want to create a new branch to retain commits you create, you may\n"
				"do so (now or later) by using -c with the switch command. Example:\n"
				"\n"
				"  git switch -c <new-branch-name>\n"
				"\n"
				"Or undo this operation with:\n"
				"\n"
				"  git switch -\n"
				"\n"
				"Turn off this advice by setting config variable advice.detachedHead to false\n"
				"\n", new_name);
		describe(repo, "HEAD is now at", &new_commit);
	} else if (old_branch && !strcmp(old_branch, wg_buf_cstr(&branch_ref))) {
		fprintf(stderr, a->new_branch && branch_exists ? "Reset branch '%s'\n"
							       : "Already on '%s'\n",
			wg_buf_cstr(&branch_ref) + 11);
	} else if (a->new_branch) {
		fprintf(stderr, branch_exists ? "Switched to and reset branch '%s'\n"
					      : "Switched to a new branch '%s'\n", a->new_branch);
	} else {
		fprintf(stderr, "Switched to branch '%s'\n", wg_buf_cstr(&branch_ref) + 11);
	}
	/* git asks for the branch's upstream before a new branch has one */
	if (to_branch && !track.len)
		report_tracking(repo, wg_buf_cstr(&branch_ref) + 11);
out:
	wg_ref_release(&head);
	wg_buf_release(&branch_ref);
	wg_buf_release(&msg);
	wg_buf_release(&track);
	wg_repo_free(repo);
	return rc;
}

static int parse(int argc, char **argv, struct co_args *a, const char *usage)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "-q") || !strcmp(s, "--quiet"))
			a->quiet = true;
		else if (!strcmp(s, "-f") || !strcmp(s, "--force") ||
			 (a->is_switch && !strcmp(s, "--discard-changes")))
			a->force = true;
		else if (!strcmp(s, "--detach") || (a->is_switch && !strcmp(s, "-d")))
			a->detach = true;
		else if ((!strcmp(s, a->is_switch ? "-c" : "-b") ||
			  !strcmp(s, a->is_switch ? "-C" : "-B") ||
			  (a->is_switch && (!strcmp(s, "--create") || !strcmp(s, "--force-create")))) &&
			 i + 1 < argc) {
			a->new_force = s[1] == 'C' || s[1] == 'B' || !strcmp(s, "--force-create");
			a->new_branch = argv[++i];
		} else if (!strcmp(s, "--")) {
			if (i + 1 < argc)
				return cli_fatal("paths are not supported yet: '%s'", argv[i + 1]);
		} else if (s[0] == '-' && s[1]) {
			return cli_usage(usage);
		} else if (!a->target) {
			a->target = s;
		} else {
			return cli_fatal("paths are not supported yet: '%s'", s);
		}
	}
	if (!a->target && !a->new_branch && !a->detach)
		return cli_usage(usage);
	if (a->new_branch && a->detach)
		return cli_fatal("options '%s' and '%s' cannot be used together",
				 a->is_switch ? "-c" : "-b", "--detach");
	return 0;
}

int cmd_checkout(int argc, char **argv)
{
	static const char usage[] =
		"webgit checkout [-q] [-f] [--detach] [-b | -B <new-branch>] [<branch> | <commit>]";
	struct co_args a = { 0 };
	int rc = parse(argc, argv, &a, usage);
	return rc ? rc : run(&a);
}

int cmd_switch(int argc, char **argv)
{
	static const char usage[] =
		"webgit switch [-q] [-f | --discard-changes] [-d | --detach] [-c | -C <new-branch>] "
		"[<branch> | <commit>]";
	struct co_args a = { .is_switch = true };
	int rc = parse(argc, argv, &a, usage);
	return rc ? rc : run(&a);
}
