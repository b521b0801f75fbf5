/* webgit clone: a new repository from a smart-HTTP remote (git clone, made
 * without a checkout: webgit has no working-tree layer yet). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "worktree/switch.h"
#include "repo/revparse.h"
#include "remote/clone.h"
#include "remote_driver.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"

static const char usage_str[] =
	"webgit clone [--bare | --mirror] [--depth <n>] [--filter <spec>] [-b <branch>] "
	"[--revision=<id>] "
	"[--single-branch] [--shallow-since=<date>] [--shallow-exclude=<ref>] "
	"[--ref-format=<format>] [-c <key>=<value>]... [-q | --progress] <repository> "
	"[<directory>]";

/* git's "humanish" directory: the last path part without "/.git" or
 * ".git" (kept as "name.git" for bare clones). */
static char *default_dir(const char *url, bool bare)
{
	size_t n = strlen(url);
	const char *s;
	char *d;

	while (n && url[n - 1] == '/')
		n--;
	if (n >= 5 && !strncmp(url + n - 5, "/.git", 5))
		n -= 5;
	for (s = url + n; s > url && s[-1] != '/' && s[-1] != ':'; s--)
		;
	if ((size_t)(url + n - s) >= 4 && !strncmp(url + n - 4, ".git", 4))
		n -= 4;
	if (!(d = malloc((size_t)(url + n - s) + 5)))
		return NULL;
	snprintf(d, (size_t)(url + n - s) + 5, "%.*s%s", (int)(url + n - s), s, bare ? ".git" : "");
	return d;
}

/* git clone's checkout of HEAD into the new working tree. Returns 0, or
 * 128 with the error printed. */
static int checkout_head(struct wg_repo *repo)
{
	struct wg_switch_options so = { 0 };
	struct wg_switch *sw = NULL;
	const struct wg_oid *missing;
	size_t n;
	int err;

	struct wg_oid head;

	cli_install_lazy_fetch(repo);
	if (wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0)) {
		/* HEAD names a branch the remote does not have: git warns */
		wg_error_clear();
		fprintf(stderr, "warning: remote HEAD refers to nonexistent ref, unable to "
			"checkout\n");
		return 0;
	}
	so.checkout.warn = cli_warn_plain;
	so.warn_ignore = cli_warn_warning;
	err = wg_switch_begin(&sw, repo, &so);
	n = err ? 0 : wg_switch_missing(sw, &missing);
	if (err || cli_prefetch(repo, missing, n) || wg_switch_finish(sw))
		err = cli_fatal_core();
	wg_switch_free(sw);
	return err;
}

/* Check out and publish a clone made with defer_publish: the checkout
 * happens while the clone is still staged, so that a failed one leaves
 * nothing (the operation, freed unpublished, takes the clone back) where
 * git would leave a clone without its files. */
static int finish_clone(struct wg_remote_op *op, bool checkout)
{
	int rc;
	if (checkout && wg_clone_worktree_staged(op) && (rc = checkout_head(wg_clone_repo(op))))
		return rc;
	/* a signal during the checkout: not published, the clone goes */
	if (cli_remote_interrupted()) {
		cli_fatal("interrupted by signal %d", cli_remote_interrupted());
		return 128 + cli_remote_interrupted();
	}
	return wg_clone_publish(op) ? cli_fatal_core() : 0;
}

/* clone's -c settings as a config of their own, for the credential
 * settings of the transfer (the operation itself checks and writes them);
 * NULL when there are none or memory is short. */
static struct wg_config *clone_config(const char *const *config, size_t n)
{
	struct wg_config *cfg = NULL;
	if (!n || wg_config_new(&cfg))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(config[i], '=');
		char *key = eq ? wg_strndup(config[i], (size_t)(eq - config[i])) : NULL;
		if (key)
			wg_config_add(cfg, key, eq + 1);
		wg_free(key);
	}
	wg_error_clear();
	return cfg;
}

int cmd_clone(int argc, char **argv)
{
	struct wg_clone_options o = WG_CLONE_OPTIONS_INIT;
	struct cli_progress progress = { !cli_progress_default(), false };
	struct wg_remote_op *op = NULL;
	const char *url = NULL, *dir = NULL, *v;
	char *made = NULL, *shown = NULL;
	struct wg_config *extra;
	bool no_single_branch = false, checkout = true;
	const char *exclude[64], *config[64];
	size_t nexclude = 0, nconfig = 0;
	int i, err;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--bare"))
			o.bare = true;
		else if (!strcmp(argv[i], "--mirror"))
			o.mirror = true;
		else if (!strcmp(argv[i], "--single-branch"))
			o.single_branch = true;
		else if (!strcmp(argv[i], "--no-single-branch"))
			no_single_branch = true, o.single_branch = false;
		else if (!strcmp(argv[i], "--no-checkout") || !strcmp(argv[i], "-n"))
			checkout = false;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			progress.quiet = progress.silent = true;
		else if (!strcmp(argv[i], "--progress"))
			progress.quiet = false;
		else if ((v = cli_option_value(argc, argv, &i, "--depth"))) {
			char *end;
			long d = strtol(v, &end, 10);
			if (*end || d <= 0)
				return cli_fatal("depth %s is not a positive number", v);
			o.depth = (unsigned)d;
		} else if ((v = cli_option_value(argc, argv, &i, "--shallow-since"))) {
			o.shallow_since = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--shallow-exclude"))) {
			if (nexclude == sizeof(exclude) / sizeof(*exclude))
				return cli_fatal("too many --shallow-exclude");
			exclude[nexclude++] = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--filter")))
			o.filter = v;
		else if ((v = cli_option_value(argc, argv, &i, "--branch")) ||
			 (v = cli_option_value(argc, argv, &i, "-b")))
			o.branch = v;
		else if ((v = cli_option_value(argc, argv, &i, "--revision")))
			o.revision = v;
		else if ((v = cli_option_value(argc, argv, &i, "--ref-format")))
			o.ref_format = v;
		else if ((v = cli_option_value(argc, argv, &i, "--config")) ||
			 (v = cli_option_value(argc, argv, &i, "-c"))) {
			if (nconfig == sizeof(config) / sizeof(*config))
				return cli_fatal("too many --config");
			config[nconfig++] = v;
		} else
			return cli_usage(usage_str);
	}
	if (i >= argc || argc - i > 2)
		return cli_usage(usage_str);
	url = argv[i];
	/* What is shown, guessed from and connected to: the URL without its
	 * credentials (the operation sends those as an Authorization header). */
	if (!(shown = wg_url_redact_dup(url)))
		return cli_fatal("out of memory");
	dir = i + 1 < argc ? argv[i + 1] : (made = default_dir(shown, o.bare || o.mirror));
	if (!dir || !*dir) {
		free(made);
		cli_fatal("could not guess a directory name from '%s'", shown);
		wg_free(shown);
		return 128;
	}
	o.shallow_exclude = exclude;
	o.nshallow_exclude = nexclude;
	o.config = config;
	o.nconfig = nconfig;
	/* a shallow clone implies --single-branch, as in git */
	if ((o.depth || o.shallow_since || nexclude) && !no_single_branch)
		o.single_branch = true;
	o.defer_publish = checkout && !o.bare && !o.mirror;
	o.progress = cli_remote_progress;
	o.progress_payload = &progress;
	o.quiet = progress.quiet;
	/* git says these unless -q, terminal or not */
	if (!progress.silent)
		fprintf(stderr, "Cloning into %s'%s'...\n", o.bare || o.mirror ? "bare repository " : "",
			dir);
	/* caught from here to the end, so that a signal never ends the
	 * process between the transfer and the clone's own cleanup */
	cli_interrupt_catch();
	/* the new repository does not exist yet: credential.* settings come
	 * from the user's files and -c, as the new config would have them */
	extra = clone_config(config, nconfig);
	if (!(err = wg_clone_new(&op, url, dir, &o)))
		err = cli_remote_run_in(op, shown, NULL, extra);
	wg_config_free(extra);
	if (!err && !progress.silent && wg_clone_was_empty(op))
		fprintf(stderr, "warning: You appear to have cloned an empty repository.\n");
	if (err) {
		/* the message first: freeing the operation removes the directory */
		cli_fatal_core();
		wg_remote_op_free(op);
		free(made);
		wg_free(shown);
		cli_interrupt_release();
		return cli_remote_interrupted() ? 128 + cli_remote_interrupted() : 128;
	}
	err = finish_clone(op, checkout && !wg_clone_was_empty(op));
	wg_remote_op_free(op);
	cli_interrupt_release();
	free(made);
	wg_free(shown);
	return err;
}
