/* webgit ls-remote: list a remote repository's refs (git ls-remote). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "remote/ls_remote.h"
#include "remote_driver.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"

static const char usage_str[] =
	"webgit ls-remote [--heads] [--tags] [--refs] [--symref] <repository> [<patterns>...]";

/* git's tail match: "<pattern>" matches when the glob "*" "/<pattern>"
 * matches "/<ref>" ('*' also matching '/'). */
static bool matches(const char *name, char **patterns, int n)
{
	char glob[4096], path[4096];
	if (!n)
		return true;
	snprintf(path, sizeof(path), "/%s", name);
	for (int i = 0; i < n; i++) {
		snprintf(glob, sizeof(glob), "*/%s", patterns[i]);
		if (!fnmatch(glob, path, 0))
			return true;
	}
	return false;
}

int cmd_ls_remote(int argc, char **argv)
{
	struct wg_ls_remote_options o = WG_LS_REMOTE_OPTIONS_INIT;
	struct cli_progress progress = { true, false };
	const char *prefixes[2];
	struct wg_remote_op *op = NULL;
	const struct wg_remote_ref_list *refs;
	struct wg_repo *repo = NULL;
	bool heads = false, tags = false, refs_only = false, symref = false;
	const char *url = NULL;
	char *shown;
	int i, rc = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--heads") || !strcmp(argv[i], "--branches"))
			heads = true;
		else if (!strcmp(argv[i], "--tags"))
			tags = true;
		else if (!strcmp(argv[i], "--refs"))
			refs_only = true;
		else if (!strcmp(argv[i], "--symref"))
			symref = true;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			;
		else
			return cli_usage(usage_str);
	}
	if (i >= argc)
		return cli_usage(usage_str);
	url = argv[i++];
	if (heads)
		prefixes[o.nprefixes++] = "refs/heads/";
	if (tags)
		prefixes[o.nprefixes++] = "refs/tags/";
	o.prefixes = prefixes;
	/* no progress, but git's notices (-q does not silence those here) */
	o.progress = cli_remote_progress;
	o.progress_payload = &progress;
	if (!(shown = wg_url_redact_dup(url)))
		return cli_fatal("out of memory");
	/* inside a repository its credential.* settings apply, as in git */
	if (wg_repo_discover(&repo, ".")) {
		repo = NULL;
		wg_error_clear();
	}
	/* the credentials in the URL go with the operation's requests */
	if (wg_ls_remote_new(&op, url, &o) || cli_remote_run_in(op, shown, repo, NULL)) {
		wg_remote_op_free(op);
		wg_repo_free(repo);
		wg_free(shown);
		return cli_fatal_core();
	}
	wg_repo_free(repo);
	wg_free(shown);
	refs = wg_ls_remote_refs(op);
	for (size_t k = 0; k < refs->nr && !rc; k++) {
		const struct wg_remote_ref *r = &refs->refs[k];
		char hex[WG_MAX_HEXSZ + 1];
		if ((refs_only || heads || tags) && strncmp(r->name, "refs/", 5))
			continue;
		if (!matches(r->name, argv + i, argc - i) || r->unborn)
			continue;
		if (symref && r->symref_target)
			printf("ref: %s\t%s\n", r->symref_target, r->name);
		printf("%s\t%s\n", wg_oid_to_hex(&r->oid, hex), r->name);
		if (r->has_peeled && !refs_only)
			printf("%s\t%s^{}\n", wg_oid_to_hex(&r->peeled, hex), r->name);
	}
	wg_remote_op_free(op);
	return rc;
}
