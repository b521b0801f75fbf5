/* webgit push: update a remote's refs over smart HTTP (git push). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "remote/remote_push.h"
#include "remote_driver.h"
#include "util/error.h"

static const char usage_str[] =
	"webgit push [-f | --force] [--atomic] [-o <option>]... [-q | --progress] [-d | --delete] "
	"<remote> | <url> <refspec>...";

static const char *short_ref(const char *name)
{
	if (!name)
		return "";
	if (!strncmp(name, "refs/heads/", 11))
		return name + 11;
	if (!strncmp(name, "refs/tags/", 10))
		return name + 10;
	return name;
}

static void report(struct wg_remote_op *op, const char *url)
{
	const struct wg_remote_push_result *r;
	size_t n = wg_remote_push_results(op, &r);
	bool all_up_to_date = true;

	for (size_t i = 0; i < n; i++)
		if (r[i].state != WG_REMOTE_PUSH_UP_TO_DATE)
			all_up_to_date = false;
	if (all_up_to_date) {
		fprintf(stderr, "Everything up-to-date\n");
		return;
	}
	fprintf(stderr, "To %s\n", url);
	for (size_t i = 0; i < n; i++) {
		char a[WG_MAX_HEXSZ + 1], b[WG_MAX_HEXSZ + 1], range[40];
		const char *src = short_ref(r[i].src), *dst = short_ref(r[i].dst);
		wg_oid_to_hex(&r[i].old_oid, a);
		wg_oid_to_hex(&r[i].new_oid, b);
		snprintf(range, sizeof(range), "%.7s%s%.7s", a, r[i].forced ? "..." : "..", b);
		switch (r[i].state) {
		case WG_REMOTE_PUSH_UP_TO_DATE:
			break;
		case WG_REMOTE_PUSH_OK:
			if (r[i].deleted)
				fprintf(stderr, " - %-17s %s\n", "[deleted]", dst);
			else if (r[i].created)
				fprintf(stderr, " * %-17s %s -> %s\n", !strncmp(r[i].dst, "refs/tags/", 10) ?
					"[new tag]" : "[new branch]", src, dst);
			else
				fprintf(stderr, " %c %-17s %s -> %s%s\n", r[i].forced ? '+' : ' ', range,
					src, dst, r[i].forced ? " (forced update)" : "");
			break;
		case WG_REMOTE_PUSH_REJECTED_NONFF:
			fprintf(stderr, " ! %-17s %s -> %s (non-fast-forward)\n", "[rejected]", src, dst);
			break;
		case WG_REMOTE_PUSH_REJECTED_FETCH_FIRST:
			fprintf(stderr, " ! %-17s %s -> %s (fetch first)\n", "[rejected]", src, dst);
			break;
		case WG_REMOTE_PUSH_REMOTE_REJECTED:
			fprintf(stderr, " ! %-17s %s -> %s (%s)\n", "[remote rejected]", src, dst,
				r[i].reason ? r[i].reason : "rejected");
			break;
		case WG_REMOTE_PUSH_ATOMIC_FAILED:
			fprintf(stderr, " ! %-17s %s -> %s (atomic push failed)\n", "[rejected]", src,
				dst);
			break;
		}
	}
}

int cmd_push(int argc, char **argv)
{
	struct wg_remote_push_options o = WG_REMOTE_PUSH_OPTIONS_INIT;
	struct cli_progress progress = { !cli_progress_default(), false };
	struct wg_remote_op *op = NULL;
	struct wg_repo *repo;
	const char *push_options[64], *specs[256], *v;
	char delete_specs[256][1024];
	bool delete = false;
	int i, rc;
	size_t nspecs = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force"))
			o.force = true;
		else if (!strcmp(argv[i], "--atomic"))
			o.atomic = true;
		else if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "--delete"))
			delete = true;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			progress.quiet = progress.silent = true;
		else if (!strcmp(argv[i], "--progress"))
			progress.quiet = false;
		else if ((v = cli_option_value(argc, argv, &i, "--push-option")) ||
			 (v = cli_option_value(argc, argv, &i, "-o"))) {
			if (o.npush_options == sizeof(push_options) / sizeof(*push_options))
				return cli_fatal("too many push options");
			push_options[o.npush_options++] = v;
		} else
			return cli_usage(usage_str);
	}
	if (argc - i < 2 || argc - i - 1 > 256)
		return cli_usage(usage_str);
	for (int k = i + 1; k < argc; k++) {
		if (delete) {
			snprintf(delete_specs[nspecs], sizeof(delete_specs[nspecs]), ":%s", argv[k]);
			specs[nspecs] = delete_specs[nspecs];
			nspecs++;
		} else {
			specs[nspecs++] = argv[k];
		}
	}
	o.push_options = push_options;
	if ((rc = cli_open_repo(&repo)))
		return rc;
	o.progress = cli_remote_progress;
	o.progress_payload = &progress;
	o.quiet = progress.quiet;
	if (wg_remote_push_new(&op, repo, argv[i], specs, nspecs, &o) ||
	    cli_remote_run_in(op, wg_remote_push_url(op), repo, NULL)) {
		rc = cli_fatal_core();
		wg_remote_op_free(op);
		wg_repo_free(repo);
		return rc;
	}
	report(op, wg_remote_push_url(op));
	if (!wg_remote_push_all_ok(op)) {
		fprintf(stderr, "error: failed to push some refs to '%s'\n", wg_remote_push_url(op));
		rc = 1;
	}
	wg_remote_op_free(op);
	wg_repo_free(repo);
	return rc;
}
