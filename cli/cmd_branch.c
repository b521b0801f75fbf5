/* webgit branch: list, create, delete, rename and copy branches, and set
 * their upstream (git branch), on repo/branch.h. Colour is never used. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "reach_filter.h"
#include "repo/branch.h"
#include "repo/detached_head.h"
#include "repo/upstream.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/wildmatch.h"

static const char usage[] =
	"webgit branch [-v [-v]] [-a | -r] [--list] [--contains [<commit>]] [--no-contains [<commit>]]\n"
	"              [--merged [<commit>]] [--no-merged [<commit>]] [<pattern>...]\n"
	"   or: webgit branch [-f] [-t | --track | --no-track] <branch-name> [<start-point>]\n"
	"   or: webgit branch (-d | -D) [-r] <branch-name>...\n"
	"   or: webgit branch (-m | -M | -c | -C) [<old-branch>] <new-branch>\n"
	"   or: webgit branch (-u <upstream> | --unset-upstream) [<branch-name>]\n"
	"   or: webgit branch --show-current";

/* git's message for a bad new branch name, with its two hints. */
static int bad_name(void)
{
	int rc = cli_fatal_core();
	fputs("hint: See 'git help check-ref-format'\n"
	      "hint: Disable this message with \"git config set advice.refSyntax false\"\n",
	      stderr);
	return rc;
}

static int core_fatal(int err)
{
	if (err == WG_EINVALID && strstr(wg_error_message(), "is not a valid branch name"))
		return bad_name();
	return cli_fatal_core();
}

static void warn_cb(void *payload, const char *line)
{
	(void)payload;
	fprintf(stderr, "warning: %s\n", line);
}

/* --- listing ----------------------------------------------------------------- */

struct item {
	char *name;            /* as shown: "main", "remotes/origin/main", "(HEAD ...)" */
	char *branch;          /* a local branch's short name, else NULL */
	char *symref;
	struct wg_oid oid;
	bool head;
};

struct list {
	struct item *v;
	size_t n, alloc;
	const char *const *patterns;
	size_t npatterns;
	bool all;              /* -a: remote names get "remotes/" */
};

static int add_item(struct list *l, const char *name, const char *branch, const char *symref,
		    const struct wg_oid *oid, bool head)
{
	struct item *it;
	if (l->n == l->alloc) {
		size_t na = l->alloc ? 2 * l->alloc : 16;
		struct item *nv = wg_realloc(l->v, na * sizeof(*nv));
		if (!nv)
			return wg_error_set(WG_ENOMEM, "out of memory");
		l->v = nv;
		l->alloc = na;
	}
	it = &l->v[l->n];
	memset(it, 0, sizeof(*it));
	it->name = wg_strdup(name);
	it->branch = branch ? wg_strdup(branch) : NULL;
	it->symref = symref ? wg_strdup(symref) : NULL;
	it->oid = *oid;
	it->head = head;
	l->n++;
	if (!it->name || (branch && !it->branch) || (symref && !it->symref))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}

static int collect(const struct wg_branch_info *info, void *payload)
{
	struct list *l = payload;
	struct wg_buf shown = WG_BUF_INIT;
	bool match = !l->npatterns;
	int err;
	for (size_t i = 0; i < l->npatterns && !match; i++)
		match = wg_wildmatch(l->patterns[i], info->name, 0);
	if (!match)
		return 0;
	if ((err = wg_buf_printf(&shown, "%s%s", info->remote && l->all ? "remotes/" : "",
				 info->name)))
		return err;
	err = add_item(l, wg_buf_cstr(&shown), info->remote ? NULL : info->name, info->symref,
		       &info->oid, info->head);
	wg_buf_release(&shown);
	return err;
}

/* "[origin/main: ahead 1, behind 2] " (-vv) or "[ahead 1] " (-v). */
static void tracking_info(struct wg_buf *out, struct wg_repo *repo, const char *branch,
			  int verbose)
{
	struct wg_buf full = WG_BUF_INIT, shortname = WG_BUF_INIT;
	size_t ahead = 0, behind = 0;
	int state;
	if (wg_branch_upstream(&full, &shortname, repo, branch) || !full.len)
		goto out;
	state = cli_ahead_behind(repo, branch, wg_buf_cstr(&full), &ahead, &behind);
	if (state < 0)
		goto out;
	if (state == 1) {
		if (verbose > 1)
			wg_buf_printf(out, "[%s: gone] ", wg_buf_cstr(&shortname));
		else
			wg_buf_adds(out, "[gone] ");
		goto out;
	}
	if (!ahead && !behind) {
		if (verbose > 1)
			wg_buf_printf(out, "[%s] ", wg_buf_cstr(&shortname));
		goto out;
	}
	wg_buf_addch(out, '[');
	if (verbose > 1)
		wg_buf_printf(out, "%s: ", wg_buf_cstr(&shortname));
	if (ahead)
		wg_buf_printf(out, "ahead %zu", ahead);
	if (ahead && behind)
		wg_buf_adds(out, ", ");
	if (behind)
		wg_buf_printf(out, "behind %zu", behind);
	wg_buf_adds(out, "] ");
out:
	wg_error_clear();
	wg_buf_release(&full);
	wg_buf_release(&shortname);
}

static int list_branches(struct wg_repo *repo, unsigned kinds, bool all, int verbose,
			 const char *const *patterns, size_t npatterns,
			 const struct cli_reach_filter *filter)
{
	struct list l;
	struct wg_buf cur = WG_BUF_INIT, line = WG_BUF_INIT;
	struct wg_oid head;
	size_t width = 0;
	int rc = 0;

	memset(&l, 0, sizeof(l));
	l.patterns = patterns;
	l.npatterns = npatterns;
	l.all = all;
	/* A detached HEAD comes first, labelled as git status labels it. */
	if ((kinds & WG_BRANCH_LIST_LOCAL) && !wg_branch_current(&cur, repo) && !cur.len &&
	    !wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0)) {
		struct wg_buf name = WG_BUF_INIT, label = WG_BUF_INIT;
		struct wg_oid from;
		bool at = false;
		char ab[WG_MAX_HEXSZ + 1];
		if (wg_detached_head_label(&name, &from, &at, repo, &head) == 1) {
			if (!name.len) {
				cli_abbrev(ab, repo, &from);
				wg_buf_adds(&name, ab);
			}
			wg_buf_printf(&label, "(HEAD detached %s %s)", at ? "at" : "from",
				      wg_buf_cstr(&name));
		} else {
			cli_abbrev(ab, repo, &head);
			wg_buf_printf(&label, "(HEAD detached at %s)", ab);
		}
		if (add_item(&l, wg_buf_cstr(&label), NULL, NULL, &head, true))
			rc = cli_fatal_core();
		wg_buf_release(&name);
		wg_buf_release(&label);
	}
	wg_error_clear();
	if (!rc && wg_branch_foreach(repo, kinds, collect, &l))
		rc = cli_fatal_core();
	if (filter->n) {
		size_t kept = 0;
		for (size_t i = 0; i < l.n; i++) {
			if (cli_reach_keeps(filter, repo, &l.v[i].oid)) {
				l.v[kept++] = l.v[i];
				continue;
			}
			wg_free(l.v[i].name);
			wg_free(l.v[i].branch);
			wg_free(l.v[i].symref);
		}
		l.n = kept;
	}
	for (size_t i = 0; i < l.n; i++)
		if (strlen(l.v[i].name) > width)
			width = strlen(l.v[i].name);
	for (size_t i = 0; !rc && i < l.n; i++) {
		const struct item *it = &l.v[i];
		char ab[WG_MAX_HEXSZ + 1];
		wg_buf_reset(&line);
		wg_buf_adds(&line, it->head ? "* " : "  ");
		if (it->symref) {
			wg_buf_printf(&line, "%s -> %s", it->name, it->symref);
		} else if (!verbose) {
			wg_buf_adds(&line, it->name);
		} else {
			cli_abbrev(ab, repo, &it->oid);
			wg_buf_printf(&line, "%-*s %s ", (int)width, it->name, ab);
			if (it->branch)
				tracking_info(&line, repo, it->branch, verbose);
			cli_commit_subject(&line, repo, &it->oid);
			wg_error_clear();
		}
		wg_buf_addch(&line, '\n');
		rc = cli_write_stdout(line.data, line.len) ? 128 : 0;
	}
	for (size_t i = 0; i < l.n; i++) {
		wg_free(l.v[i].name);
		wg_free(l.v[i].branch);
		wg_free(l.v[i].symref);
	}
	wg_free(l.v);
	wg_buf_release(&cur);
	wg_buf_release(&line);
	return rc;
}

/* --- the rest ----------------------------------------------------------------- */

static int delete_branches(struct wg_repo *repo, char **names, int n, bool force, bool remote)
{
	int rc = 0;
	if (!n)
		return cli_fatal("branch name required");
	for (int i = 0; i < n; i++) {
		struct wg_oid was;
		char ab[WG_MAX_HEXSZ + 1];
		int err = wg_branch_delete(repo, names[i], (force ? WG_BRANCH_FORCE : 0) |
					   (remote ? WG_BRANCH_REMOTE : 0), &was, warn_cb, NULL);
		if (err) {
			fprintf(stderr, "error: %s\n", wg_error_message());
			if (err == 1)
				fprintf(stderr, "hint: If you are sure you want to delete it, run "
					"'git branch -D %s'\nhint: Disable this message with \"git "
					"config set advice.forceDeleteBranch false\"\n", names[i]);
			wg_error_clear();
			rc = 1;
			continue;
		}
		cli_abbrev(ab, repo, &was);
		printf("Deleted %sbranch %s (was %s).\n", remote ? "remote-tracking " : "",
		       names[i], ab);
	}
	return rc;
}

int cmd_branch(int argc, char **argv)
{
	struct wg_repo *repo = NULL;
	struct wg_branch_create_options co = WG_BRANCH_CREATE_OPTIONS_INIT;
	struct wg_buf cur = WG_BUF_INIT, up = WG_BUF_INIT;
	const char *upstream = NULL;
	char **args = wg_calloc((size_t)argc + 1, sizeof(*args));
	int i, n = 0, rc = 0, verbose = 0, err;
	bool del = false, force = false, remote = false, all = false, list = false;
	bool rename = false, copy = false, show_current = false, unset_upstream = false;
	bool quiet = false, ddash = false;
	struct cli_reach_filter filter;

	if (!args || cli_reach_init(&filter, argc)) {
		wg_free(args);
		return cli_fatal("out of memory");
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (ddash || a[0] != '-' || !a[1])
			args[n++] = argv[i];
		else if (!strcmp(a, "--"))
			ddash = true;
		else if (!strcmp(a, "-d") || !strcmp(a, "--delete"))
			del = true;
		else if (!strcmp(a, "-D"))
			del = force = true;
		else if (!strcmp(a, "-m") || !strcmp(a, "--move"))
			rename = true;
		else if (!strcmp(a, "-M"))
			rename = force = true;
		else if (!strcmp(a, "-c") || !strcmp(a, "--copy"))
			copy = true;
		else if (!strcmp(a, "-C"))
			copy = force = true;
		else if (!strcmp(a, "-f") || !strcmp(a, "--force"))
			force = true;
		else if (!strcmp(a, "-r") || !strcmp(a, "--remotes"))
			remote = true;
		else if (!strcmp(a, "-a") || !strcmp(a, "--all"))
			all = true;
		else if (!strcmp(a, "-l") || !strcmp(a, "--list"))
			list = true;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
			verbose++;
		else if (!strcmp(a, "-vv"))
			verbose += 2;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			quiet = true;
		else if (!strcmp(a, "-t") || !strcmp(a, "--track") || !strcmp(a, "--track=direct"))
			co.track = WG_BRANCH_TRACK_ALWAYS;
		else if (!strcmp(a, "--no-track"))
			co.track = WG_BRANCH_TRACK_NEVER;
		else if (!strcmp(a, "--show-current"))
			show_current = true;
		else if (!strcmp(a, "--unset-upstream"))
			unset_upstream = true;
		else if (!strcmp(a, "--no-color") || !strcmp(a, "--color=never"))
			;
		else if (!strcmp(a, "-u") && i + 1 < argc)
			upstream = argv[++i];
		else if (!strncmp(a, "-u", 2) && a[2])
			upstream = a + 2;
		else if ((v = cli_option_value(argc, argv, &i, "--set-upstream-to")))
			upstream = v;
		else if (cli_reach_option(&filter, argc, argv, &i))
			list = true; /* each implies --list */
		else {
			wg_free(args);
			cli_reach_release(&filter);
			return cli_usage(usage);
		}
	}
	if (filter.n && (del || rename || copy || show_current || upstream || unset_upstream)) {
		wg_free(args);
		cli_reach_release(&filter);
		return cli_usage(usage);
	}
	if ((rc = cli_open_repo(&repo))) {
		wg_free(args);
		cli_reach_release(&filter);
		return rc;
	}
	if ((rc = cli_reach_resolve(&filter, repo)))
		goto out;
	if (wg_branch_current(&cur, repo)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (del) {
		rc = delete_branches(repo, args, n, force, remote);
	} else if (rename || copy) {
		const char *from = n == 2 ? args[0] : wg_buf_cstr(&cur);
		const char *to = n == 2 ? args[1] : n == 1 ? args[0] : NULL;
		if (!n)
			rc = cli_fatal("branch name required");
		else if (n > 2)
			rc = cli_fatal("too many arguments for a %s operation", copy ? "copy" : "rename");
		else if (n == 1 && !cur.len)
			rc = cli_fatal("cannot %s the current branch while not on any",
				       copy ? "copy" : "rename");
		else if ((err = wg_branch_rename(repo, from, to, (force ? WG_BRANCH_FORCE : 0) |
						 (copy ? WG_BRANCH_COPY : 0))))
			rc = core_fatal(err);
	} else if (show_current) {
		if (cur.len)
			printf("%s\n", wg_buf_cstr(&cur));
	} else if (upstream) {
		const char *b = n ? args[0] : wg_buf_cstr(&cur);
		if (n > 1)
			rc = cli_fatal("too many arguments to set new upstream");
		else if (!*b)
			rc = cli_fatal("could not set upstream of HEAD to %s when it does not point "
				       "to any branch", upstream);
		else if (wg_branch_track(repo, b, upstream, &up))
			rc = cli_fatal_core();
		else if (!quiet)
			printf("branch '%s' set up to track '%s'.\n", b, wg_buf_cstr(&up));
	} else if (unset_upstream) {
		const char *b = n ? args[0] : wg_buf_cstr(&cur);
		if (n > 1)
			rc = cli_fatal("too many arguments to unset upstream");
		else if (!*b)
			rc = cli_fatal("could not unset upstream of HEAD when it does not point to "
				       "any branch");
		else if (wg_branch_unset_upstream(repo, b))
			rc = cli_fatal_core();
	} else if (list || !n) {
		unsigned kinds = all ? WG_BRANCH_LIST_LOCAL | WG_BRANCH_LIST_REMOTE :
				 remote ? WG_BRANCH_LIST_REMOTE : WG_BRANCH_LIST_LOCAL;
		rc = list_branches(repo, kinds, all, verbose, (const char *const *)args, (size_t)n,
				   &filter);
	} else if (n > 2) {
		rc = cli_fatal("too many arguments");
	} else {
		co.force = force;
		if ((err = wg_branch_create(repo, args[0], n == 2 ? args[1] : NULL, &co, &up)))
			rc = core_fatal(err);
		else if (up.len && !quiet)
			printf("branch '%s' set up to track '%s'.\n", args[0], wg_buf_cstr(&up));
	}
out:
	wg_buf_release(&cur);
	wg_buf_release(&up);
	wg_free(args);
	cli_reach_release(&filter);
	wg_repo_free(repo);
	return rc;
}
