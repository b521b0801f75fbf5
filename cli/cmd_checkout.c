/* webgit checkout / switch: move HEAD to a branch or a commit and the
 * working tree and index with it (git checkout <branch>, git checkout -b,
 * git checkout --detach, git switch [-c] [--detach]), with git's messages
 * and reflog entries. Paths (git checkout -- <path>) are not supported yet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "remote_driver.h"
#include "index/index.h"
#include "refs/refname.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "repo/upstream.h"
#include "util/fs.h"
#include "worktree/switch.h"

struct co_args {
	bool is_switch, quiet, force, detach, new_force;
	const char *new_branch;  /* -b / -c */
	const char *target;      /* the argument as given, or NULL */
};

/* git's report_tracking: where the branch stands against its upstream
 * (stdout). Nothing when it has none. */
static void report_tracking(struct wg_repo *repo, const char *branch)
{
	struct wg_buf base = WG_BUF_INIT, shortname = WG_BUF_INIT;
	size_t ahead, behind;
	int gone;

	if (wg_branch_upstream(&base, &shortname, repo, branch) || !base.len)
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

/* What git prints once HEAD moved. */
static void report(struct wg_repo *repo, const struct co_args *a, const struct wg_switch_info *in)
{
	const char *new_name = a->target ? a->target : "HEAD";
	if (!in->old_branch && in->has_old && !wg_oid_equal(&in->old_commit, &in->new_commit))
		cli_describe_commit(stderr, repo, "Previous HEAD position was", &in->old_commit);
	if (!in->new_branch_ref) {
		if (in->old_branch && !a->detach)
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
		cli_describe_commit(stderr, repo, "HEAD is now at", &in->new_commit);
	} else if (in->old_branch && !strcmp(in->old_branch, in->new_branch_ref)) {
		fprintf(stderr, in->created && in->existed ? "Reset branch '%s'\n"
							   : "Already on '%s'\n",
			in->new_branch_ref + 11);
	} else if (in->created && !in->tracking) {
		fprintf(stderr, in->existed ? "Switched to and reset branch '%s'\n"
					    : "Switched to a new branch '%s'\n", in->new_branch_ref + 11);
	} else {
		fprintf(stderr, in->tracking ? "Switched to a new branch '%s'\n"
					     : "Switched to branch '%s'\n", in->new_branch_ref + 11);
	}
	/* git asks for the branch's upstream before a new branch has one */
	if (in->new_branch_ref && !in->tracking)
		report_tracking(repo, in->new_branch_ref + 11);
}

static int run(struct co_args *a)
{
	struct wg_switch_options so = { 0 };
	struct wg_switch *sw = NULL;
	struct wg_repo *repo = NULL;
	struct wg_buf index_path = WG_BUF_INIT;
	const struct wg_switch_info *in;
	const struct wg_oid *missing;
	struct wg_oid new_tree;
	size_t nmissing;
	int rc, err;

	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (wg_repo_require_workdir(repo)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (cli_index_path(&index_path, repo)) {
		rc = cli_fatal_core();
		goto out;
	}
	so.target = a->target;
	so.new_branch = a->new_branch;
	so.force_create = a->new_force;
	so.detach = a->detach;
	so.require_branch = a->is_switch;
	so.force = a->force;
	so.index_path = wg_buf_cstr(&index_path);
	so.checkout.warn = cli_warn_plain;
	so.warn_ignore = cli_warn_warning;
	err = wg_switch_begin(&sw, repo, &so);
	if (err == WG_EEXISTS && sw) {
		rc = cli_print_checkout_refusal(wg_switch_checkout(sw));
		goto out;
	}
	if (err == WG_ENOTFOUND && !a->is_switch && !a->new_branch && a->target) {
		/* git checkout takes an unknown name for a path */
		wg_error_clear();
		fprintf(stderr, "error: pathspec '%s' did not match any file(s) known to git\n",
			a->target);
		rc = 1;
		goto out;
	}
	if (err) {
		bool hint = err == WG_EINVALID && a->is_switch &&
			    !strncmp(wg_error_message(), "a branch is expected", 20);
		rc = cli_fatal_core();
		if (hint)
			fprintf(stderr, "hint: If you want to detach HEAD at the commit, try again "
				"with the --detach option.\n");
		goto out;
	}
	nmissing = wg_switch_missing(sw, &missing);
	if (cli_prefetch(repo, missing, nmissing) || wg_switch_finish(sw)) {
		rc = cli_fatal_core();
		goto out;
	}
	in = wg_switch_info(sw);
	if (!a->quiet && !a->force &&
	    (wg_object_peel(&new_tree, repo, &in->new_commit, WG_OBJ_TREE) ||
	     cli_show_local_changes(repo, wg_switch_index(sw), &new_tree))) {
		rc = cli_fatal_core();
		goto out;
	}
	if (in->tracking)
		printf("branch '%s' set up to track '%s'.\n", in->new_branch_ref + 11,
		       in->tracking + 13);
	if (!a->quiet)
		report(repo, a, in);
out:
	wg_switch_free(sw);
	wg_buf_release(&index_path);
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
