/* webgit refs: low-level ref storage operations (git refs verify). */
#include <string.h>

#include "cli.h"
#include "util/error.h"

static int print_problem(const char *name, const char *message, void *payload)
{
	(void)payload;
	fprintf(stderr, "error: %s: %s\n", name, message);
	return 0;
}

int cmd_refs(int argc, char **argv)
{
	static const char usage[] = "webgit refs verify [--strict] [--verbose]";
	struct wg_repo *repo = NULL;
	int i, rc, n;
	if (argc < 2 || strcmp(argv[1], "verify"))
		return cli_usage(usage);
	for (i = 2; i < argc; i++)
		if (strcmp(argv[i], "--strict") && strcmp(argv[i], "--verbose"))
			return cli_usage(usage);
	if ((rc = cli_open_repo(&repo)))
		return rc;
	n = wg_refdb_verify(wg_repo_refdb(repo), print_problem, NULL);
	if (n < 0)
		rc = cli_fatal_core();
	else if (n > 0)
		rc = 1;
	wg_repo_free(repo);
	return rc;
}
