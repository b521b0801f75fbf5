/* webgit fetch: update a repository from a configured remote (git fetch). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "remote/remote_fetch.h"
#include "remote_driver.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/url.h"

static const char usage_str[] =
	"webgit fetch [--prune] [--no-tags] [-q | --progress] [<remote> | <url> [<refspec>...]]";

/* "refs/remotes/origin/main" -> "origin/main", as git's summary shows. */
static const char *shorten(const char *name)
{
	static const char *const prefixes[] = { "refs/heads/", "refs/tags/", "refs/remotes/" };
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return name + strlen(prefixes[i]);
	return name;
}

static void summary(struct wg_remote_op *op, const char *url)
{
	const struct wg_remote_fetch_update *u;
	size_t n = wg_remote_fetch_updates(op, &u);
	bool header = false;

	for (size_t i = 0; i < n; i++) {
		char a[WG_MAX_HEXSZ + 1], b[WG_MAX_HEXSZ + 1], range[40];
		const char *what;
		if (!u[i].local_name || u[i].flag == '=')
			continue;
		if (!header) {
			fprintf(stderr, "From %s\n", url);
			header = true;
		}
		wg_oid_to_hex(&u[i].old_oid, a);
		wg_oid_to_hex(&u[i].new_oid, b);
		snprintf(range, sizeof(range), "%.7s%s%.7s", a, u[i].flag == '+' ? "..." : "..", b);
		switch (u[i].flag) {
		case '*':
			what = !strncmp(u[i].remote_name, "refs/tags/", 10) ? "[new tag]" :
			       "[new branch]";
			break;
		case '!':
			what = "[rejected]";
			break;
		default:
			what = range;
		}
		fprintf(stderr, " %c %-17s %-10s -> %s%s\n", u[i].flag, what,
			shorten(u[i].remote_name), shorten(u[i].local_name),
			u[i].flag == '+' ? "  (forced update)" :
			u[i].flag == '!' ? "  (non-fast-forward)" : "");
	}
}

int cmd_fetch(int argc, char **argv)
{
	struct wg_remote_fetch_options o = WG_REMOTE_FETCH_OPTIONS_INIT;
	struct cli_progress progress = { !cli_progress_default(), false };
	struct wg_remote_op *op = NULL;
	struct wg_repo *repo;
	const char *remote = "origin", *url = NULL;
	struct wg_buf action = WG_BUF_INIT;
	bool quiet = false;
	int i, rc;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--prune") || !strcmp(argv[i], "-p"))
			o.prune = true;
		else if (!strcmp(argv[i], "--no-tags") || !strcmp(argv[i], "-n"))
			o.no_tags = true;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			quiet = progress.quiet = progress.silent = true;
		else if (!strcmp(argv[i], "--progress"))
			progress.quiet = false;
		else
			return cli_usage(usage_str);
	}
	if (i < argc)
		remote = argv[i++];
	if (i < argc) {
		o.refspecs = (const char *const *)argv + i;
		o.nrefspecs = (size_t)(argc - i);
	}
	if ((rc = cli_open_repo(&repo)))
		return rc;
	/* git's reflog messages name its command line: "fetch --prune", with
	 * any URL in it without its credentials. */
	for (int k = 0; k < argc; k++)
		if (wg_buf_adds(&action, k ? " " : "") || wg_url_redact(&action, argv[k]))
			return cli_fatal("out of memory");
	o.reflog_action = wg_buf_cstr(&action);
	o.progress = cli_remote_progress;
	o.progress_payload = &progress;
	o.quiet = progress.quiet;
	if (wg_remote_fetch_new(&op, repo, remote, &o) ||
	    cli_remote_run_in(op, (url = wg_remote_fetch_url(op)), repo, NULL)) {
		rc = cli_fatal_core();
		wg_remote_op_free(op);
		wg_repo_free(repo);
		wg_buf_release(&action);
		return rc;
	}
	if (!quiet)
		summary(op, url);
	{
		const struct wg_remote_fetch_update *u;
		size_t n = wg_remote_fetch_updates(op, &u);
		for (size_t k = 0; k < n; k++)
			if (u[k].flag == '!') {
				fprintf(stderr, "error: some local refs could not be updated\n");
				rc = 1;
				break;
			}
	}
	wg_remote_op_free(op);
	wg_repo_free(repo);
	wg_buf_release(&action);
	return rc;
}
