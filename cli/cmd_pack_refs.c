/* webgit pack-refs: move loose refs into packed-refs (git pack-refs). */
#include <string.h>

#include "cli.h"
#include "util/error.h"

int cmd_pack_refs(int argc, char **argv)
{
	static const char usage[] = "webgit pack-refs [--all] [--no-prune]";
	struct wg_repo *repo = NULL;
	unsigned flags = WG_REFDB_PACK_PRUNE;  /* git prunes unless --no-prune */
	int i, rc;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--all"))
			flags |= WG_REFDB_PACK_ALL;
		else if (!strcmp(argv[i], "--prune"))
			flags |= WG_REFDB_PACK_PRUNE;
		else if (!strcmp(argv[i], "--no-prune"))
			flags &= ~WG_REFDB_PACK_PRUNE;
		else
			return cli_usage(usage);
	}
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (wg_refdb_pack(wg_repo_refdb(repo), flags))
		rc = cli_fatal_core();
	wg_repo_free(repo);
	return rc;
}
