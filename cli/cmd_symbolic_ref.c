/* webgit symbolic-ref: read, change or delete a symbolic ref (git
 * symbolic-ref). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "refs/refname.h"
#include "util/alloc.h"
#include "util/error.h"

int cmd_symbolic_ref(int argc, char **argv)
{
	static const char usage[] = "webgit symbolic-ref [-m <reason>] <name> <ref>\n"
		"   or: webgit symbolic-ref [-q] [--short] [--no-recurse] <name>\n"
		"   or: webgit symbolic-ref --delete [-q] <name>";
	struct wg_repo *repo = NULL;
	const char *msg = NULL, *args[2];
	bool quiet = false, short_ = false, del = false, recurse = true;
	int i, n = 0, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			quiet = true;
		else if (!strcmp(a, "--short"))
			short_ = true;
		else if (!strcmp(a, "-d") || !strcmp(a, "--delete"))
			del = true;
		else if (!strcmp(a, "--no-recurse"))
			recurse = false;
		else if (!strcmp(a, "--recurse"))
			recurse = true;
		else if (!strcmp(a, "-m") && i + 1 < argc)
			msg = argv[++i];
		else if (a[0] == '-' && a[1])
			return cli_usage(usage);
		else if (n < 2)
			args[n++] = a;
		else
			return cli_usage(usage);
	}
	if (!n || (del && n != 1))
		return cli_usage(usage);
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (del) {
		struct wg_ref ref;
		int err = wg_refdb_read(&ref, wg_repo_refdb(repo), args[0]);
		if (err || !ref.symbolic) {
			rc = quiet ? 1 : cli_fatal("Cannot delete %s, not a symbolic ref", args[0]);
		} else if (!strcmp(args[0], "HEAD")) {
			rc = cli_fatal("deleting '%s' is not allowed", args[0]);
		} else if (wg_refdb_delete(wg_repo_refdb(repo), args[0], NULL, WG_REF_NO_DEREF,
					   msg)) {
			rc = cli_fatal_core();
		}
		wg_ref_release(&ref);
	} else if (n == 2) {
		if (!strcmp(args[0], "HEAD") && strncmp(args[1], "refs/", 5))
			rc = cli_fatal("Refusing to point HEAD outside of refs/");
		else if (!wg_refdb_name_is_valid(args[1]))
			rc = cli_fatal("Refusing to set '%s' to invalid ref '%s'", args[0], args[1]);
		else if (wg_refdb_symref_update(wg_repo_refdb(repo), args[0], args[1], msg))
			rc = cli_fatal_core();
	} else {
		struct wg_ref ref;
		char *cur = wg_strdup(args[0]);
		int depth, err = 0;
		bool first = true;
		for (depth = 0; cur && depth <= WG_SYMREF_MAX_DEPTH; depth++) {
			err = wg_refdb_read(&ref, wg_repo_refdb(repo), cur);
			if (err || !ref.symbolic) {
				wg_ref_release(&ref);
				break;
			}
			wg_free(cur);
			cur = ref.target;
			ref.target = NULL;
			wg_ref_release(&ref);
			first = false;
			if (!recurse)
				break;
		}
		if (first) {
			rc = quiet ? 1 : cli_fatal(err == WG_ENOTFOUND || !err ?
						   "ref %s is not a symbolic ref" : "%s",
						   err && err != WG_ENOTFOUND ? wg_error_message() :
						   args[0]);
		} else {
			struct wg_buf shown = WG_BUF_INIT;
			if (short_ ? wg_refname_shorten(&shown, cur) : wg_buf_adds(&shown, cur))
				rc = cli_fatal_core();
			else
				printf("%s\n", wg_buf_cstr(&shown));
			wg_buf_release(&shown);
		}
		wg_free(cur);
		wg_error_clear();
	}
	wg_repo_free(repo);
	return rc;
}
