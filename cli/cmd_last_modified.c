/* webgit last-modified: git 2.52's last-modified over
 * core/history/last_modified.h: "<commit>\t<path>" for each entry of the
 * tree (the files below it with -r, and its trees too with -t), path
 * quoted as git quotes it, in git's order. One revision (default HEAD);
 * ranges and --max-count are not taken. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "history/last_modified.h"
#include "object/object.h"
#include "repo/revparse.h"
#include "repo/shallow.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/pathspec.h"
#include "util/quote.h"

static const char usage[] =
	"webgit last-modified [--recursive] [--show-trees] [<revision>] [[--] <path>...]";

struct out {
	struct wg_buf buf;
	int rc;
};

static int emit(void *payload, const char *path, const struct wg_oid *commit)
{
	struct out *o = payload;
	int err;

	if ((err = wg_buf_printf(&o->buf, "%s\t", wg_oid_hex(commit))) ||
	    (err = wg_quote_c_style(&o->buf, path, strlen(path))) || (err = wg_buf_addch(&o->buf, '\n')))
		return err;
	if (o->buf.len > 65536) {
		if ((o->rc = cli_write_stdout(o->buf.data, o->buf.len)))
			return WG_EIO;
		wg_buf_reset(&o->buf);
	}
	return 0;
}

int cmd_last_modified(int argc, char **argv)
{
	struct wg_last_modified_options lo = { 0 };
	struct wg_pathspec ps = { 0 };
	struct wg_oidmap shallow = WG_OIDMAP_INIT;
	struct wg_repo *repo = NULL;
	struct wg_buf prefix = WG_BUF_INIT;
	struct out o = { WG_BUF_INIT, 0 };
	const char *rev = NULL;
	char **paths = NULL;
	int npaths = 0, rc = 0, i;
	struct wg_oid oid, commit;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			paths = argv + i + 1;
			npaths = argc - i - 1;
			break;
		}
		if (!strcmp(a, "-r") || !strcmp(a, "--recursive"))
			lo.recursive = true;
		else if (!strcmp(a, "-t") || !strcmp(a, "--show-trees"))
			lo.show_trees = true;
		else if (a[0] == '-')
			return cli_usage(usage);
		else if (rev)
			return cli_fatal("last-modified can only operate on one tree at a time");
		else
			rev = a;
	}
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (wg_revparse(&oid, repo, rev ? rev : "HEAD") ||
	    wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT)) {
		rc = cli_fatal("ambiguous argument '%s': unknown revision or path not in the working "
			       "tree.", rev ? rev : "HEAD");
		goto out;
	}
	if (npaths) {
		if (wg_repo_workdir(repo) && cli_cwd_prefix(&prefix, wg_repo_workdir(repo))) {
			rc = cli_fatal("out of memory");
			goto out;
		}
		if (wg_pathspec_init(&ps, wg_buf_cstr(&prefix), (const char *const *)paths,
				     (size_t)npaths)) {
			rc = cli_fatal("%s", wg_error_message());
			goto out;
		}
		lo.paths = &ps;
	}
	if (wg_repo_shallow_read(repo, &shallow)) {
		rc = cli_fatal_core();
		goto out;
	}
	lo.shallow = &shallow;
	if (wg_last_modified(wg_repo_odb(repo), &commit, &lo, emit, &o)) {
		rc = o.rc ? o.rc : cli_fatal_core();
		goto out;
	}
	rc = cli_write_stdout(o.buf.data, o.buf.len);
out:
	fflush(stdout);
	wg_pathspec_release(&ps);
	wg_oidmap_release(&shallow);
	wg_buf_release(&prefix);
	wg_buf_release(&o.buf);
	wg_repo_free(repo);
	return rc;
}
