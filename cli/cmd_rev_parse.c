/* webgit rev-parse: resolve revisions and answer questions about the
 * repository (git rev-parse, the commonly scripted subset). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "repo/revparse.h"
#include "util/error.h"

/* Shortest unique prefix of at least min_len digits, as --short prints. */
static void print_short(struct wg_repo *repo, const struct wg_oid *oid, size_t min_len)
{
	const char *hex = wg_oid_hex(oid);
	size_t len, hexsz = wg_repo_algo(repo)->hexsz;
	for (len = min_len < 4 ? 4 : min_len; len < hexsz; len++) {
		struct wg_oid found;
		int err = wg_odb_resolve_prefix(wg_repo_odb(repo), hex, len, &found);
		if (err != WG_EAMBIGUOUS)
			break;
	}
	wg_error_clear();
	printf("%.*s\n", (int)len, hex);
}

static void print_git_dir(struct wg_repo *repo, bool absolute)
{
	const char *gitdir = wg_repo_gitdir(repo);
	char cwd[PATH_MAX];
	size_t n;
	if (!absolute && getcwd(cwd, sizeof(cwd))) {
		n = strlen(cwd);
		if (!strcmp(gitdir, cwd)) {
			printf(".\n");
			return;
		}
		if (!strncmp(gitdir, cwd, n) && !strcmp(gitdir + n, "/.git")) {
			printf(".git\n");
			return;
		}
	}
	printf("%s\n", gitdir);
}

static bool cwd_inside(const char *dir)
{
	char cwd[PATH_MAX];
	size_t n = strlen(dir);
	char *real;
	bool inside;
	if (!getcwd(cwd, sizeof(cwd)))
		return false;
	real = realpath(cwd, NULL);
	inside = real && !strncmp(real, dir, n) && (real[n] == '\0' || real[n] == '/');
	free(real);
	return inside;
}

int cmd_rev_parse(int argc, char **argv)
{
	struct wg_repo *repo = NULL;
	bool verify = false, quiet = false, no_more_opts = false;
	size_t short_len = 0;
	int i, rc, nrevs = 0;

	if ((rc = cli_open_repo(&repo)))
		return rc;
	for (i = 1; i < argc && !rc; i++) {
		const char *a = argv[i];
		if (!no_more_opts && !strcmp(a, "--")) {
			no_more_opts = true;
		} else if (!no_more_opts && !strcmp(a, "--verify")) {
			verify = true;
		} else if (!no_more_opts && (!strcmp(a, "-q") || !strcmp(a, "--quiet"))) {
			quiet = true;
		} else if (!no_more_opts && !strcmp(a, "--short")) {
			short_len = 7;
		} else if (!no_more_opts && !strncmp(a, "--short=", 8)) {
			short_len = (size_t)strtoul(a + 8, NULL, 10);
		} else if (!no_more_opts && !strcmp(a, "--git-dir")) {
			print_git_dir(repo, false);
		} else if (!no_more_opts && !strcmp(a, "--absolute-git-dir")) {
			print_git_dir(repo, true);
		} else if (!no_more_opts && !strcmp(a, "--show-toplevel")) {
			if (wg_repo_require_workdir(repo))
				rc = cli_fatal_core();
			else
				printf("%s\n", wg_repo_workdir(repo));
		} else if (!no_more_opts && !strcmp(a, "--is-bare-repository")) {
			printf("%s\n", wg_repo_is_bare(repo) ? "true" : "false");
		} else if (!no_more_opts && !strcmp(a, "--is-inside-work-tree")) {
			printf("%s\n", wg_repo_workdir(repo) && cwd_inside(wg_repo_workdir(repo)) &&
			       !cwd_inside(wg_repo_gitdir(repo)) ? "true" : "false");
		} else if (!no_more_opts && !strcmp(a, "--is-inside-git-dir")) {
			printf("%s\n", cwd_inside(wg_repo_gitdir(repo)) ? "true" : "false");
		} else if (!no_more_opts && (!strcmp(a, "--show-object-format") ||
					     !strncmp(a, "--show-object-format=", 21))) {
			printf("%s\n", wg_repo_algo(repo)->name);
		} else if (!no_more_opts && !strcmp(a, "--show-ref-format")) {
			printf("%s\n", wg_repo_ref_format(repo) == WG_REF_FORMAT_REFTABLE
			       ? "reftable" : "files");
		} else if (!no_more_opts && a[0] == '-' && a[1]) {
			rc = cli_fatal("unsupported rev-parse option '%s'", a);
		} else {
			struct wg_oid oid;
			int err = wg_revparse(&oid, repo, a);
			nrevs++;
			if (verify && nrevs > 1) {
				rc = quiet ? 1 : cli_fatal("Needed a single revision");
			} else if (err) {
				if (verify)
					rc = quiet ? 1 : cli_fatal("Needed a single revision");
				else if (err == WG_ENOTFOUND)
					rc = cli_fatal("ambiguous argument '%s': unknown revision "
						       "or path not in the working tree.", a);
				else
					rc = cli_fatal_core();
			} else if (short_len) {
				print_short(repo, &oid, short_len);
			} else {
				printf("%s\n", wg_oid_hex(&oid));
			}
		}
	}
	if (!rc && verify && nrevs != 1)
		rc = quiet ? 1 : cli_fatal("Needed a single revision");
	wg_repo_free(repo);
	return rc;
}
