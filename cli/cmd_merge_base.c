/* webgit merge-base: git's merge-base over core/history/merge_base.h:
 * the best common ancestor (all of them with --all), --octopus,
 * --independent and --is-ancestor, with git's exit codes (1: none, or
 * not an ancestor) and messages. --fork-point (which reads reflogs) is
 * not here. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "history/merge_base.h"
#include "object/object.h"
#include "repo/revparse.h"
#include "util/error.h"

static const char usage[] =
	"webgit merge-base [-a | --all] <commit> <commit>...\n"
	"   or: webgit merge-base [-a | --all] --octopus <commit>...\n"
	"   or: webgit merge-base --is-ancestor <commit> <commit>\n"
	"   or: webgit merge-base --independent <commit>...";

/* git's get_commit_reference */
static int commit_of(struct wg_oid *out, struct wg_repo *repo, const char *arg)
{
	struct wg_oid oid;
	if (wg_revparse(&oid, repo, arg))
		return cli_fatal("Not a valid object name %s", arg);
	if (wg_object_peel(out, repo, &oid, WG_OBJ_COMMIT))
		return cli_fatal("Not a valid commit name %s", arg);
	return 0;
}

int cmd_merge_base(int argc, char **argv)
{
	struct wg_repo *repo = NULL;
	struct wg_oid *revs = NULL;
	struct wg_oid_list res = { 0 };
	bool all = false;
	char mode = 0;
	int n = 0, rc = 0, i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		char m = 0;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-a") || !strcmp(a, "--all"))
			all = true;
		else if (!strcmp(a, "--octopus"))
			m = 'o';
		else if (!strcmp(a, "--independent"))
			m = 'r';
		else if (!strcmp(a, "--is-ancestor"))
			m = 'a';
		else
			return cli_usage(usage);
		if (m && mode && m != mode)
			return cli_fatal("options '--%s' and '--%s' cannot be used together",
					 mode == 'o' ? "octopus" : mode == 'r' ? "independent" : "is-ancestor",
					 a + 2);
		if (m)
			mode = m;
	}
	n = argc - i;
	if (mode == 'a') {
		if (n < 2)
			return cli_usage(usage);
		if (all)
			return cli_fatal("options '%s' and '%s' cannot be used together",
					 "--is-ancestor", "--all");
		if (n != 2)
			return cli_fatal("--is-ancestor takes exactly two commits");
	} else if (mode == 'r' && all) {
		return cli_fatal("options '%s' and '%s' cannot be used together", "--independent",
				 "--all");
	} else if (!mode && n < 2) {
		return cli_usage(usage);
	}
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (!(revs = calloc((size_t)n + 1, sizeof(*revs)))) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	for (int k = 0; k < n; k++)
		if ((rc = commit_of(&revs[k], repo, argv[i + k])))
			goto out;
	if (mode == 'a') {
		bool yes;
		if (wg_is_ancestor(wg_repo_odb(repo), &revs[0], &revs[1], &yes))
			rc = cli_fatal_core();
		else
			rc = yes ? 0 : 1;
		goto out;
	}
	if (mode == 'o' ? wg_merge_bases_octopus(&res, wg_repo_odb(repo), revs, (size_t)n)
	    : mode == 'r' ? wg_independent_commits(&res, wg_repo_odb(repo), revs, (size_t)n)
			  : wg_merge_bases(&res, wg_repo_odb(repo), &revs[0], revs + 1, (size_t)n - 1)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (!res.n) {
		rc = 1;
		goto out;
	}
	for (size_t k = 0; k < res.n; k++) {
		printf("%s\n", wg_oid_hex(&res.v[k]));
		if (!all && mode != 'r')
			break;
	}
out:
	fflush(stdout);
	wg_oid_list_release(&res);
	free(revs);
	wg_repo_free(repo);
	return rc;
}
