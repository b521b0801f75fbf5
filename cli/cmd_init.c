/* webgit init: create an empty repository (git init). */
#include <string.h>

#include "cli.h"
#include "util/error.h"

int cmd_init(int argc, char **argv)
{
	static const char usage[] = "webgit init [-q] [--bare] [--object-format=<format>] "
				    "[--ref-format=<format>] [-b <branch-name>] [<directory>]";
	struct wg_repo_init_options opts = WG_REPO_INIT_OPTIONS_INIT;
	struct wg_repo *repo = NULL;
	const char *dir = NULL, *v;
	bool quiet = false, reinit;
	int i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet"))
			quiet = true;
		else if (!strcmp(arg, "--bare"))
			opts.bare = true;
		else if ((v = cli_option_value(argc, argv, &i, "--object-format")))
			opts.object_format = v;
		else if ((v = cli_option_value(argc, argv, &i, "--ref-format")))
			opts.ref_format = v;
		else if ((v = cli_option_value(argc, argv, &i, "--initial-branch")) ||
			 (v = cli_option_value(argc, argv, &i, "-b")))
			opts.initial_branch = v;
		else if (arg[0] == '-' && arg[1])
			return cli_usage(usage);
		else if (!dir)
			dir = arg;
		else
			return cli_usage(usage);
	}
	if (!dir)
		dir = ".";
	{
		/* Reinitialising keeps everything; git says so differently. */
		struct wg_repo *existing = NULL;
		reinit = wg_repo_open(&existing, dir) == 0;
		wg_repo_free(existing);
		wg_error_clear();
	}
	if (wg_repo_init(&repo, dir, &opts))
		return cli_fatal_core();
	if (!quiet)
		printf("%s %sGit repository in %s/\n", reinit ? "Reinitialized" : "Initialized",
		       reinit ? "existing " : "empty ", wg_repo_gitdir(repo));
	wg_repo_free(repo);
	return 0;
}
