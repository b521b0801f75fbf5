/* webgit update-index: change the index file itself (git update-index;
 * so far --index-version, which rewrites the index in another format
 * version, entries and extensions unchanged). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "repo/repo.h"
#include "util/error.h"

int cmd_update_index(int argc, char **argv)
{
	static const char usage[] = "webgit update-index --index-version <n>";
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_buf path = WG_BUF_INIT;
	long version = -1;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		const char *v;
		char *end;
		if ((v = cli_option_value(argc, argv, &i, "--index-version"))) {
			version = strtol(v, &end, 10);
			if (*end || !*v)
				return cli_usage(usage);
		} else {
			return cli_usage(usage);
		}
	}
	if (version < 0)
		return cli_usage(usage);
	if (version < 2 || version > 4)
		return cli_fatal("index-version %ld not in range: 2..4", version);
	if (cli_open_repo(&repo))
		return 128;
	if (cli_read_index(&ix, repo)) {
		rc = cli_fatal_core();
	} else {
		ix->version = (unsigned)version;
		if (cli_index_path(&path, repo) || wg_index_write(ix, wg_buf_cstr(&path)))
			rc = cli_fatal_core();
	}
	wg_buf_release(&path);
	wg_index_free(ix);
	wg_repo_free(repo);
	return rc;
}
