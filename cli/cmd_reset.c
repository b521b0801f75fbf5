/* webgit reset: move HEAD (and its branch) to a commit, with the index
 * (--mixed, the default) and the working tree (--hard) following, or
 * only reset index entries of some paths from a tree (reset [<tree-ish>]
 * [--] <paths>). git's messages, reflog entries ("reset: moving to
 * <rev>") and ORIG_HEAD; --merge, --keep, -p and -N are not supported. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "remote_driver.h"
#include "index/index.h"
#include "refs/refdb.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/index_tree.h"
#include "util/pathspec.h"
#include "worktree/reset.h"
#include "worktree/status.h"

enum reset_type { NONE, MIXED, SOFT, HARD };
static const char *const type_names[] = { "", "mixed", "soft", "hard" };

/* git's "Unstaged changes after reset" list (its refresh_index in
 * porcelain mode). */
static void list_unstaged(const struct wg_status *st)
{
	bool first = true;
	for (size_t i = 0; st && i < st->n; i++) {
		const struct wg_status_entry *e = &st->v[i];
		char c = e->unmerged ? 'U' : e->y;
		if (c == '.')
			continue;
		if (first)
			printf("Unstaged changes after reset:\n");
		first = false;
		printf("%c\t%s\n", c, e->path);
	}
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
	struct wg_reset *reset = NULL;
	struct wg_status *unstaged = NULL;
	struct wg_status_options so = WG_STATUS_OPTIONS_INIT;
	struct wg_pathspec ps = { 0 };
	struct wg_buf path = WG_BUF_INIT, prefix = WG_BUF_INIT;
	struct wg_oid oid, head, tree;
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
	so.untracked = WG_UNTRACKED_NO;
	so.warn = cli_warn_plain;
	if (npaths) {
		/* only index entries change: no ref moves, no branch state goes */
		if (type != SOFT && !wg_repo_workdir(repo)) {
			rc = cli_fatal("mixed reset is not allowed in a bare repository");
			goto out;
		}
		if (cli_read_index(&ix, repo) || cli_index_path(&path, repo)) {
			rc = cli_fatal("index file corrupt");
			goto out;
		}
		if (wg_index_reset_from_tree(&ix, repo, &tree, &ps) ||
		    wg_status_collect(&unstaged, repo, ix, NULL, &so) ||
		    wg_index_write(ix, wg_buf_cstr(&path))) {
			rc = cli_fatal_core();
			goto out;
		}
		if (!quiet)
			list_unstaged(unstaged);
	} else {
		struct wg_reset_options ro = { 0 };
		const struct wg_oid *missing;
		size_t nmissing;
		int err;
		ro.mode = type == SOFT ? WG_RESET_SOFT : type == HARD ? WG_RESET_HARD : WG_RESET_MIXED;
		ro.commit = unborn ? NULL : &oid;
		ro.rev = rev;
		ro.warn = cli_warn_plain;
		ro.checkout.warn = cli_warn_plain;
		if (cli_index_path(&path, repo)) {
			rc = cli_fatal_core();
			goto out;
		}
		ro.index_path = wg_buf_cstr(&path);
		if ((err = wg_reset_begin(&reset, repo, &ro))) {
			rc = err == WG_ECORRUPT ? cli_fatal("index file corrupt") : cli_fatal_core();
			goto out;
		}
		nmissing = wg_reset_missing(reset, &missing);
		if (cli_prefetch(repo, missing, nmissing)) {
			rc = cli_fatal_core();
			goto out;
		}
		if (wg_reset_finish(reset)) {
			/* the refs are the last step: a failure there is git's error, not fatal */
			fprintf(stderr, "error: %s\n", wg_error_message());
			wg_error_clear();
			rc = 1;
			goto out;
		}
		if (type == MIXED && !quiet)
			list_unstaged(wg_reset_unstaged(reset));
		if (type == HARD && !quiet && !unborn) {
			struct wg_buf s = WG_BUF_INIT;
			char ab[WG_MAX_HEXSZ + 1];
			cli_abbrev(ab, repo, &oid);
			cli_commit_subject(&s, repo, &oid);
			wg_error_clear();
			printf("HEAD is now at %s%s%s\n", ab, s.len ? " " : "", wg_buf_cstr(&s));
			wg_buf_release(&s);
		}
	}
	if (fflush(stdout))
		rc = cli_fatal("write error");
out:
	wg_reset_free(reset);
	wg_status_free(unstaged);
	wg_pathspec_release(&ps);
	wg_index_free(ix);
	wg_buf_release(&path);
	wg_buf_release(&prefix);
	wg_free(args);
	wg_repo_free(repo);
	return rc;
}
