/* webgit reword and webgit split: history edits as Jujutsu makes them
 * (jj describe, jj split), over core/worktree/history_edit.h. git has no
 * such commands (its way is rebase -i with "reword" or "edit"); the
 * commits these make are the ones that rebase makes, byte for byte, for
 * a linear history (tests/interop/t44-history-edit.sh checks it).
 *
 *   webgit reword [-q] [--allow-published] (-m <msg> | -F <file>)... <commit>
 *   webgit split [-q] [--allow-published] [-m <msg>] [--first-message <msg>]
 *                [--hunks <path>:<n>[,<n>]...]... <commit> [--] [<pathspec>...]
 *
 * A split's first commit takes the changes of the paths the pathspecs
 * match and the hunks --hunks names (numbered from 0 as git diff -U0
 * shows them); the second, the rest. -m gives the second commit's
 * message, --first-message the first's; each keeps the commit's own
 * message without. Paths and pathspecs are relative to the current
 * directory, as git's are. What moved is printed on stdout unless -q;
 * every refusal is "fatal: <why>" and exit code 128, with nothing
 * changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/pathspec.h"
#include "worktree/history_edit.h"

struct edit_args {
	bool split, quiet, allow_published, have_message, have_first;
	struct wg_buf message, first_message;
	const char *file;
	const char *commit;
	const char **pathspecs;
	size_t npathspecs;
	/* --hunks, as given: "<path>:<n>,<n>..." */
	const char **hunks;
	size_t nhunks;
};

static const char reword_usage[] =
	"webgit reword [-q] [--allow-published] (-m <msg> | -F <file>)... <commit>";
static const char split_usage[] =
	"webgit split [-q] [--allow-published] [-m <msg>] [--first-message <msg>] "
	"[--hunks <path>:<n>[,<n>]...]... <commit> [--] [<pathspec>...]";

static int parse_args(struct edit_args *a, int argc, char **argv)
{
	const char *usage = a->split ? split_usage : reword_usage;
	const char *v;
	bool dashdash = false;
	int i;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (dashdash || s[0] != '-' || !s[1]) {
			if (!a->commit) {
				a->commit = s;
			} else if (a->split) {
				a->pathspecs[a->npathspecs++] = s;
			} else {
				return cli_usage(usage);
			}
		} else if ((v = cli_option_value(argc, argv, &i, "-m")) ||
			   (v = cli_option_value(argc, argv, &i, "--message")) ||
			   (!strncmp(s, "-m", 2) && s[2] && (v = s + 2))) {
			int rc = cli_message_add_paragraph(&a->message, v);
			if (rc)
				return rc;
			a->have_message = true;
		} else if (a->split && (v = cli_option_value(argc, argv, &i, "--first-message"))) {
			int rc = cli_message_add_paragraph(&a->first_message, v);
			if (rc)
				return rc;
			a->have_first = true;
		} else if (!a->split && ((v = cli_option_value(argc, argv, &i, "-F")) ||
					 (v = cli_option_value(argc, argv, &i, "--file")))) {
			a->file = v;
		} else if (a->split && (v = cli_option_value(argc, argv, &i, "--hunks"))) {
			a->hunks[a->nhunks++] = v;
		} else if (!strcmp(s, "--allow-published")) {
			a->allow_published = true;
		} else if (!strcmp(s, "-q") || !strcmp(s, "--quiet")) {
			a->quiet = true;
		} else if (!strcmp(s, "--")) {
			dashdash = true;
		} else {
			return cli_usage(usage);
		}
	}
	if (!a->commit)
		return cli_usage(usage);
	if (a->have_message && a->file)
		return cli_fatal("options '%s' and '%s' cannot be used together", "-m", "-F");
	if (!a->split && !a->have_message && !a->file)
		return cli_fatal("no message: webgit runs no editor; give one with -m or -F");
	return 0;
}

/* "<path>:<n>,<n>..." (the path up to the last colon) into one hunk
 * selection; the path is taken from the current directory. */
static int parse_hunks(struct wg_split_hunks *out, const char *spec, const char *prefix)
{
	const char *colon = strrchr(spec, ':');
	unsigned *ns = NULL;
	size_t n = 0;
	char *path = NULL;

	if (!colon || colon == spec || !colon[1])
		return wg_error_set(WG_EINVALID, "--hunks wants <path>:<n>[,<n>...], not '%s'", spec);
	for (const char *p = colon + 1; *p;) {
		char *end;
		unsigned long k;
		if (*p < '0' || *p > '9')
			goto bad;
		k = strtoul(p, &end, 10);
		if (k > 0xffffffffUL || (*end && *end != ','))
			goto bad;
		unsigned *grown = realloc(ns, (n + 1) * sizeof(*ns));
		if (!grown) {
			free(ns);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		ns = grown;
		ns[n++] = (unsigned)k;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			goto bad;
	}
	{
		struct wg_buf rel = WG_BUF_INIT, top = WG_BUF_INIT;
		int r = wg_buf_add(&rel, spec, (size_t)(colon - spec));
		if (!r)
			r = wg_path_normalize(&top, prefix, wg_buf_cstr(&rel));
		wg_buf_release(&rel);
		if (r) {
			wg_buf_release(&top);
			free(ns);
			return r < 0 ? wg_error_set(WG_ENOMEM, "out of memory") :
			       wg_error_set(WG_EINVALID, "'%.*s' is outside repository",
					    (int)(colon - spec), spec);
		}
		if (!top.len) {
			wg_buf_release(&top);
			free(ns);
			return wg_error_set(WG_EINVALID, "--hunks wants a file, not '%.*s'",
					    (int)(colon - spec), spec);
		}
		path = (char *)wg_buf_detach(&top, NULL);
		if (!path) {
			free(ns);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
	}
	out->path = path;
	out->hunks = ns;
	out->n = n;
	return 0;
bad:
	free(ns);
	return wg_error_set(WG_EINVALID, "--hunks wants <path>:<n>[,<n>...], not '%s'", spec);
}

static void print_result(struct wg_repo *repo, const struct edit_args *a,
			 const struct wg_history_rewrite *rw)
{
	struct wg_buf subject = WG_BUF_INIT;
	char old[WG_MAX_HEXSZ + 1], first[WG_MAX_HEXSZ + 1], second[WG_MAX_HEXSZ + 1];

	cli_abbrev(old, repo, &rw->old_ids[0]);
	cli_abbrev(second, repo, &rw->new_ids[0]);
	if (a->split) {
		cli_abbrev(first, repo, &rw->first);
		printf("Split %s into %s and %s\n", old, first, second);
	} else {
		cli_commit_subject(&subject, repo, &rw->new_ids[0]);
		printf("Reworded %s as %s: %s\n", old, second, wg_buf_cstr(&subject));
	}
	if (rw->nr > 1)
		printf("Rebased %zu descendant commit%s\n", rw->nr - 1, rw->nr > 2 ? "s" : "");
	for (size_t i = 0; i < rw->nrefs; i++)
		printf("Updated %s\n", rw->refs[i]);
	wg_buf_release(&subject);
}

static int run(int argc, char **argv, bool split)
{
	struct edit_args a = { .split = split, .message = WG_BUF_INIT, .first_message = WG_BUF_INIT };
	struct wg_buf committer = WG_BUF_INIT, prefix = WG_BUF_INIT;
	struct wg_history_edit_options opts = { 0 };
	struct wg_history_rewrite rw = { 0 };
	struct wg_split_hunks *hunks = NULL;
	struct wg_pathspec ps = { 0 };
	struct wg_repo *repo = NULL;
	struct wg_oid commit;
	size_t nhunks = 0;
	int rc, err;

	/* at most one of each per argument */
	a.pathspecs = calloc((size_t)argc + 1, sizeof(*a.pathspecs));
	a.hunks = calloc((size_t)argc + 1, sizeof(*a.hunks));
	if (!a.pathspecs || !a.hunks) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	if ((rc = parse_args(&a, argc, argv)))
		goto out;
	if (a.file && (rc = cli_message_read_file(&a.message, a.file)))
		goto out;
	if ((rc = cli_open_repo(&repo)))
		goto out;
	if (wg_revparse(&commit, repo, a.commit) ||
	    wg_object_peel(&commit, repo, &commit, WG_OBJ_COMMIT)) {
		rc = cli_fatal_core();
		goto out;
	}
	if ((rc = cli_ident(&committer, repo, "COMMITTER")))
		goto out;
	if (wg_repo_workdir(repo) && cli_cwd_prefix(&prefix, wg_repo_workdir(repo))) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	opts.committer = wg_buf_cstr(&committer);
	opts.allow_published = a.allow_published;
	if (a.have_message || a.file) {
		opts.message = wg_buf_cstr(&a.message);
		opts.message_len = a.message.len;
	}
	if (split) {
		if (a.nhunks && !(hunks = calloc(a.nhunks, sizeof(*hunks)))) {
			rc = cli_fatal("out of memory");
			goto out;
		}
		for (; nhunks < a.nhunks; nhunks++) {
			if (parse_hunks(&hunks[nhunks], a.hunks[nhunks], wg_buf_cstr(&prefix))) {
				rc = cli_fatal_core();
				goto out;
			}
		}
		if (wg_pathspec_init(&ps, wg_buf_cstr(&prefix), a.pathspecs, a.npathspecs)) {
			rc = cli_fatal_core();
			goto out;
		}
		opts.paths = &ps;
		opts.hunks = hunks;
		opts.nhunks = nhunks;
		if (a.have_first) {
			opts.first_message = wg_buf_cstr(&a.first_message);
			opts.first_message_len = a.first_message.len;
		}
		err = wg_history_split(&rw, repo, &commit, &opts);
	} else {
		err = wg_history_reword(&rw, repo, &commit, &opts);
	}
	if (err) {
		rc = cli_fatal_core();
		if (err == WG_EINVALID && strstr(wg_error_message(), "published history"))
			fputs("hint: --allow-published rewrites it anyway (a push of it must then be forced)\n",
			      stderr);
		goto out;
	}
	if (!a.quiet)
		print_result(repo, &a, &rw);
out:
	for (size_t i = 0; i < nhunks; i++) {
		wg_free((char *)hunks[i].path);
		free((unsigned *)hunks[i].hunks);
	}
	free(hunks);
	wg_pathspec_release(&ps);
	wg_history_rewrite_release(&rw);
	wg_buf_release(&committer);
	wg_buf_release(&prefix);
	wg_buf_release(&a.message);
	wg_buf_release(&a.first_message);
	free(a.pathspecs);
	free(a.hunks);
	wg_repo_free(repo);
	return rc;
}

int cmd_reword(int argc, char **argv)
{
	return run(argc, argv, false);
}

int cmd_split(int argc, char **argv)
{
	return run(argc, argv, true);
}
