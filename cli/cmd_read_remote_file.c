/* webgit read-remote-file: print one file at a ref of a repository on a
 * static web host (no Git server: the files of a bare repository with
 * `git update-server-info` run), reading only the byte ranges it needs
 * (core/remote/static_read.h). No git equivalent: git's dumb HTTP client
 * downloads whole packs. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "remote/static_read.h"
#include "remote_driver.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"

static const char usage_str[] =
	"webgit read-remote-file [--static] [--stats] <url> <ref> <path>";

int cmd_read_remote_file(int argc, char **argv)
{
	struct wg_static_read_options o = WG_STATIC_READ_OPTIONS_INIT;
	struct wg_static_read_stats st;
	struct wg_remote_op *op = NULL;
	const unsigned char *data;
	bool stats = false;
	char *shown;
	size_t len;
	int i, err;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--static"))
			o.no_probe = true;
		else if (!strcmp(argv[i], "--stats"))
			stats = true;
		else if (!strcmp(argv[i], "--"))
			{ i++; break; }
		else
			return cli_usage(usage_str);
	}
	if (argc - i != 3)
		return cli_usage(usage_str);
	if (!(shown = wg_url_redact_dup(argv[i])))
		return cli_fatal("out of memory");
	err = wg_static_read_new(&op, argv[i], argv[i + 1], argv[i + 2], &o);
	if (!err)
		err = cli_remote_run(op, shown);
	wg_free(shown);
	if (op && stats) {
		/* for measurements: what the read cost, on stderr */
		wg_static_read_stats(op, &st);
		fprintf(stderr, "requests %u bytes %llu objects %u deltas %u\n",
			(unsigned)st.requests, (unsigned long long)st.bytes,
			(unsigned)st.objects, (unsigned)st.deltas);
	}
	if (err) {
		wg_remote_op_free(op);
		if (cli_remote_interrupted())
			return 128 + cli_remote_interrupted();
		return cli_fatal_core();
	}
	data = wg_static_read_data(op, &len);
	if (len && fwrite(data, 1, len, stdout) != len) {
		wg_remote_op_free(op);
		return cli_fatal("could not write to standard output");
	}
	wg_remote_op_free(op);
	return fflush(stdout) ? cli_fatal("could not write to standard output") : 0;
}
