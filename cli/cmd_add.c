/* webgit add: stage working-tree files (git add: -A/--all, --no-all,
 * -u/--update, -f/--force, -N/--intent-to-add, -n/--dry-run,
 * -v/--verbose), with git's output, messages and exit codes, over
 * worktree/index_update.h. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "repo/config.h"
#include "repo/repo.h"
#include "util/alloc.h"
#include "util/error.h"
#include "worktree/ignore_files.h"
#include "worktree/index_update.h"

struct add_state {
	struct wg_repo *repo;
	bool verbose;           /* -v or -n: "add '<path>'" lines */
	size_t ignored;
	bool embedded_advised;
};

/* Is advice.<name> on (the default)? */
static bool advice_on(struct wg_repo *repo, const char *name)
{
	bool on = true;
	char key[64];
	snprintf(key, sizeof(key), "advice.%s", name);
	if (wg_config_get_bool(wg_repo_config(repo), key, &on))
		on = true;
	wg_error_clear();
	return on;
}

static void add_report(void *payload, char action, const char *path)
{
	struct add_state *s = payload;
	switch (action) {
	case 'a':
		if (s->verbose)
			printf("add '%s'\n", path);
		break;
	case 'r':
		if (s->verbose)
			printf("remove '%s'\n", path);
		break;
	case 'i':
		if (!s->ignored++)
			fputs("The following paths are ignored by one of your .gitignore files:\n",
			      stderr);
		fprintf(stderr, "%s\n", path);
		break;
	case 'e':
		fprintf(stderr, "warning: adding embedded git repository: %s\n", path);
		if (!s->embedded_advised && advice_on(s->repo, "addembeddedrepo")) {
			s->embedded_advised = true;
			fprintf(stderr,
				"hint: You've added another git repository inside your current repository.\n"
				"hint: Clones of the outer repository will not contain the contents of\n"
				"hint: the embedded repository and will not know how to obtain it.\n"
				"hint: If you meant to add a submodule, use:\n"
				"hint:\n"
				"hint: \tgit submodule add <url> %s\n"
				"hint:\n"
				"hint: If you added this path by mistake, you can remove it from the\n"
				"hint: index with:\n"
				"hint:\n"
				"hint: \tgit rm --cached %s\n"
				"hint:\n"
				"hint: See \"git help submodule\" for more information.\n"
				"hint: Disable this message with \"git config set advice.addEmbeddedRepo false\"\n",
				path, path);
		}
		break;
	}
}

int cmd_add(int argc, char **argv)
{
	static const char usage[] = "webgit add [-n] [-v] [-f] [-A | -u | --no-all] [-N] [--] "
				    "[<pathspec>...]";
	struct wg_index_update_options opts = { 0 };
	struct add_state st = { 0 };
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_ignore *ig = NULL;
	struct wg_buf path = WG_BUF_INIT, prefix = WG_BUF_INIT;
	int addremove_explicit = -1, rc = 0, err, i;
	bool update = false, verbose = false;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--all") || !strcmp(a, "--no-ignore-removal"))
			addremove_explicit = 1;
		else if (!strcmp(a, "--no-all") || !strcmp(a, "--ignore-removal"))
			addremove_explicit = 0;
		else if (!strcmp(a, "--update"))
			update = true;
		else if (!strcmp(a, "--force"))
			opts.force = true;
		else if (!strcmp(a, "--intent-to-add"))
			opts.intent_to_add = true;
		else if (!strcmp(a, "--dry-run"))
			opts.dry_run = true;
		else if (!strcmp(a, "--verbose"))
			verbose = true;
		else if (a[1] == '-')
			return cli_usage(usage);
		else
			for (const char *c = a + 1; *c; c++) {
				switch (*c) {
				case 'A': addremove_explicit = 1; break;
				case 'u': update = true; break;
				case 'f': opts.force = true; break;
				case 'N': opts.intent_to_add = true; break;
				case 'n': opts.dry_run = true; break;
				case 'v': verbose = true; break;
				default: return cli_usage(usage);
				}
			}
	}
	if (update && addremove_explicit > 0)
		return cli_fatal("options '%s' and '%s' cannot be used together", "-A", "-u");
	if (cli_open_repo(&repo))
		return 128;
	if (wg_repo_require_workdir(repo)) {
		wg_repo_free(repo);
		return cli_fatal_core();
	}
	if (i >= argc && !update && addremove_explicit <= 0) {
		fputs("Nothing specified, nothing added.\n", stderr);
		if (advice_on(repo, "addemptypathspec"))
			fputs("hint: Maybe you wanted to say 'git add .'?\n"
			      "hint: Disable this message with \"git config set advice.addEmptyPathspec "
			      "false\"\n",
			      stderr);
		wg_repo_free(repo);
		return 0;
	}
	st.repo = repo;
	st.verbose = verbose || opts.dry_run;
	opts.update_only = update;
	opts.all = addremove_explicit < 0 ? !update : addremove_explicit > 0;
	opts.report = add_report;
	opts.warn = cli_warn_warning;
	opts.payload = &st;
	if (cli_cwd_prefix(&prefix, wg_repo_workdir(repo))) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	opts.prefix = wg_buf_cstr(&prefix);
	if (cli_read_index(&ix, repo) || wg_ignore_open(&ig, repo, NULL, cli_warn_warning, NULL)) {
		rc = cli_fatal_core();
		goto out;
	}
	opts.ignore = ig;
	err = wg_index_add_paths(repo, ix, (const char *const *)argv + i, (size_t)(argc - i), &opts);
	fflush(stdout);
	if (err) {
		const char *msg = wg_error_message();
		if (err == WG_EINVALID && strstr(msg, "is outside repository")) {
			rc = cli_fatal("%s at '%s'", msg, wg_repo_workdir(repo));
		} else if (strstr(msg, "known to git")) {
			fprintf(stderr, "error: %s\n", msg);
			rc = 128;
		} else if (strstr(msg, "does not have a commit checked out") ||
			   strstr(msg, "can only add")) {
			const char *q = strchr(msg, '\''), *end = q ? strchr(q + 1, '\'') : NULL;
			fprintf(stderr, "error: %s\n", msg);
			/* git names the nested repository once more */
			if (*msg == '\'' && end)
				fprintf(stderr, "error: unable to index file '%.*s'\n",
					(int)(end - q - 1), q + 1);
			rc = cli_fatal("adding files failed");
		} else {
			rc = cli_fatal_core();
		}
		goto out;
	}
	if (st.ignored) {
		if (advice_on(repo, "addignoredfile"))
			fputs("hint: Use -f if you really want to add them.\n"
			      "hint: Disable this message with \"git config set advice.addIgnoredFile "
			      "false\"\n",
			      stderr);
		rc = 1;
	}
	if (!opts.dry_run &&
	    (cli_index_path(&path, repo) || wg_index_write(ix, wg_buf_cstr(&path))))
		rc = cli_fatal_core();
out:
	wg_buf_release(&path);
	wg_buf_release(&prefix);
	wg_ignore_free(ig);
	wg_index_free(ix);
	wg_repo_free(repo);
	return rc;
}
