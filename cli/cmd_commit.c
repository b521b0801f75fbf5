/* webgit commit: the index (after -a, the tracked files' changes) as a
 * commit on HEAD, with git's summary ("[main abc1234] subject" and its
 * diffstat), git's refusals and exit codes (worktree/commit_index.h).
 * There is no editor: the message comes from -m or -F, or with --amend
 * from the amended commit (git's --no-edit). Hooks are never run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "diff_output.h"
#include "diff/tree_diff.h"
#include "index/index.h"
#include "object/commit.h"
#include "object/ident.h"
#include "refs/refdb.h"
#include "repo/revparse.h"
#include "util/date.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"
#include "worktree/commit_index.h"
#include "worktree/index_tree.h"
#include "worktree/index_update.h"
#include "worktree/line_count.h"

struct commit_args {
	struct wg_buf msg;
	bool have_m, amend, allow_empty, allow_empty_message, quiet, all;
	const char *file, *author;
};


static void summary_line(struct wg_buf *sum, const char *what, unsigned mode, const char *path)
{
	wg_buf_printf(sum, " %s mode %06o ", what, mode);
	wg_quote_c_style(sum, path, strlen(path));
	wg_buf_addch(sum, '\n');
}

/* diff.c's diff_summary for one change. */
static void summarize(struct wg_buf *sum, const struct wg_diff_change *ch)
{
	bool mode_changed = ch->old_mode && ch->new_mode && ch->old_mode != ch->new_mode;

	if (ch->status == 'A') {
		summary_line(sum, "create", ch->new_mode, ch->path);
	} else if (ch->status == 'D') {
		summary_line(sum, "delete", ch->old_mode, ch->path);
	} else if (ch->status == 'R') {
		wg_buf_adds(sum, " rename ");
		wg_rename_label(sum, ch->from, ch->path);
		wg_buf_printf(sum, " (%d%%)\n", (int)((int64_t)ch->score * 100 / WG_RENAME_MAX_SCORE));
		if (mode_changed)
			wg_buf_printf(sum, " mode change %06o => %06o\n", ch->old_mode, ch->new_mode);
	} else if (mode_changed) {
		wg_buf_printf(sum, " mode change %06o => %06o ", ch->old_mode, ch->new_mode);
		wg_quote_c_style(sum, ch->path, strlen(ch->path));
		wg_buf_addch(sum, '\n');
	}
}

/* git's --shortstat --summary of the commit against its first parent
 * (everything added for a root commit), renames paired. */
static int print_stat(struct wg_repo *repo, const struct wg_oid *old_tree,
		      const struct wg_oid *new_tree)
{
	struct wg_tree_diff_options opts = { 0 };
	struct wg_diff_changes changes = { 0 };
	struct wg_buf sum = WG_BUF_INIT, x = WG_BUF_INIT, y = WG_BUF_INIT;
	size_t ins = 0, del = 0;
	int err;

	bool configured;

	/* git's print_commit_summary looks for renames whatever diff.renames
	 * says; the limit is still diff.renameLimit */
	opts.rename = (struct wg_rename_options)WG_RENAME_OPTIONS_INIT;
	opts.renames = true;
	if ((err = wg_diff_rename_config(repo, NULL, &configured, &opts.rename.limit)) ||
	    (err = wg_diff_trees(&changes, wg_repo_odb(repo), old_tree, new_tree, &opts)))
		goto out;
	for (size_t i = 0; i < changes.n; i++) {
		const struct wg_diff_change *ch = &changes.v[i];
		size_t added = 0, removed = 0;
		wg_buf_reset(&x);
		wg_buf_reset(&y);
		if (!wg_oid_equal(&ch->old_oid, &ch->new_oid) || ch->old_mode != ch->new_mode) {
			if ((err = cli_diff_side_bytes(&x, repo, ch->old_mode, &ch->old_oid)) ||
			    (err = cli_diff_side_bytes(&y, repo, ch->new_mode, &ch->new_oid)))
				break;
		}
		if (!wg_diff_is_binary(x.data, x.len) && !wg_diff_is_binary(y.data, y.len)) {
			if ((err = wg_diff_line_count(x.data, x.len, y.data, y.len, &added, &removed)))
				break;
			ins += added;
			del += removed;
		}
		summarize(&sum, ch);
	}
	if (err || !changes.n)
		goto out;
	/* diff.c's print_stat_summary */
	printf(" %zu file%s changed", changes.n, changes.n == 1 ? "" : "s");
	if (ins || !del)
		printf(", %zu insertion%s(+)", ins, ins == 1 ? "" : "s");
	if (del || !ins)
		printf(", %zu deletion%s(-)", del, del == 1 ? "" : "s");
	putchar('\n');
	if (sum.len)
		fwrite(sum.data, 1, sum.len, stdout);
out:
	wg_diff_changes_release(&changes);
	wg_buf_release(&sum);
	wg_buf_release(&x);
	wg_buf_release(&y);
	return err;
}

/* git's print_commit_summary. */
static int print_summary(struct wg_repo *repo, const struct wg_oid *oid, bool initial,
			 bool show_date_line)
{
	struct wg_buf raw = WG_BUF_INIT, subj = WG_BUF_INIT, date = WG_BUF_INIT;
	struct wg_commit c;
	struct wg_ident au, co;
	struct wg_ref head = { 0 };
	struct wg_oid parent_tree;
	enum wg_object_type type;
	char ab[WG_MAX_HEXSZ + 1];
	const char *where = "detached HEAD";
	int err;

	wg_commit_init(&c);
	if ((err = wg_odb_read(wg_repo_odb(repo), oid, &type, &raw)) ||
	    (err = wg_commit_parse(&c, wg_repo_algo(repo), raw.data, raw.len)) ||
	    (err = cli_commit_subject(&subj, repo, oid)) ||
	    (err = wg_ident_parse(&au, c.author, strlen(c.author))) ||
	    (err = wg_ident_parse(&co, c.committer, strlen(c.committer))) ||
	    (err = wg_refdb_read(&head, wg_repo_refdb(repo), "HEAD")))
		goto out;
	if (head.symbolic)
		where = !strncmp(head.target, "refs/heads/", 11) ? head.target + 11 : head.target;
	cli_abbrev(ab, repo, oid);
	printf("[%s%s %s] %s\n", where, initial ? " (root-commit)" : "", ab, wg_buf_cstr(&subj));
	if (au.name_len != co.name_len || au.email_len != co.email_len ||
	    memcmp(au.name, co.name, au.name_len) || memcmp(au.email, co.email, au.email_len))
		printf(" Author: %.*s <%.*s>\n", (int)au.name_len, au.name, (int)au.email_len,
		       au.email);
	if (show_date_line) {
		wg_date_format_normal(&date, au.timestamp, au.tz_offset);
		printf(" Date: %s\n", wg_buf_cstr(&date));
	}
	if (c.nparents && (err = wg_object_peel(&parent_tree, repo, &c.parents[0], WG_OBJ_TREE)))
		goto out;
	err = print_stat(repo, c.nparents ? &parent_tree : NULL, &c.tree);
out:
	wg_commit_release(&c);
	wg_ref_release(&head);
	wg_buf_release(&raw);
	wg_buf_release(&subj);
	wg_buf_release(&date);
	return err;
}

/* --author="Name <email>" (git also searches history for a partial name:
 * not here), dated GIT_AUTHOR_DATE, or with --amend (`date` not NULL) the
 * amended commit's author date, which git keeps. */
static int author_ident(struct wg_buf *out, const char *arg, const char *date)
{
	const char *lt = strchr(arg, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	struct wg_buf name = WG_BUF_INIT, email = WG_BUF_INIT;
	int rc = 0;
	if (!lt || !gt) {
		return cli_fatal("--author '%s' is not 'Name <email>' and matches no existing "
				 "author", arg);
	}
	if (wg_buf_add(&name, arg, (size_t)(lt - arg)) ||
	    wg_buf_add(&email, lt + 1, (size_t)(gt - lt - 1)) ||
	    wg_ident_format(out, wg_buf_cstr(&name), wg_buf_cstr(&email),
			    date ? date : getenv("GIT_AUTHOR_DATE")))
		rc = cli_fatal_core();
	wg_buf_release(&name);
	wg_buf_release(&email);
	return rc;
}

/* --author with --amend: the new name and email, HEAD's author date. */
static int amend_author(struct wg_buf *out, struct wg_repo *repo, const char *arg)
{
	struct wg_buf raw = WG_BUF_INIT, date = WG_BUF_INIT;
	struct wg_commit c;
	struct wg_ident id;
	struct wg_oid head;
	enum wg_object_type type;
	int rc;

	wg_commit_init(&c);
	if (wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0)) {
		wg_error_clear();
		return cli_fatal("You have nothing to amend.");
	}
	if (wg_odb_read(wg_repo_odb(repo), &head, &type, &raw) ||
	    wg_commit_parse(&c, wg_repo_algo(repo), raw.data, raw.len) || !c.author ||
	    wg_ident_parse(&id, c.author, strlen(c.author)) ||
	    wg_buf_printf(&date, "%.*s %.*s", (int)id.date_len, id.date, (int)id.tz_len, id.tz))
		rc = cli_fatal_core();
	else
		rc = author_ident(out, arg, id.has_date ? wg_buf_cstr(&date) : NULL);
	wg_commit_release(&c);
	wg_buf_release(&raw);
	wg_buf_release(&date);
	return rc;
}

static int parse(int argc, char **argv, struct commit_args *a)
{
	static const char usage[] = "webgit commit [-q] [-a] [--amend] [--allow-empty] "
		"[--allow-empty-message] [--author=<author>] (-m <msg> | -F <file>)...";
	const char *v;
	bool dashdash = false;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (dashdash || s[0] != '-' || !s[1])
			return cli_fatal("paths with commit are not supported yet: '%s'", s);
		if ((v = cli_option_value(argc, argv, &i, "-m")) ||
		    (v = cli_option_value(argc, argv, &i, "--message")) ||
		    (!strncmp(s, "-m", 2) && s[2] && (v = s + 2))) {
			int rc = cli_message_add_paragraph(&a->msg, v);
			if (rc)
				return rc;
			a->have_m = true;
		} else if ((v = cli_option_value(argc, argv, &i, "-F")) ||
			   (v = cli_option_value(argc, argv, &i, "--file"))) {
			a->file = v;
		} else if ((v = cli_option_value(argc, argv, &i, "--author"))) {
			a->author = v;
		} else if (!strcmp(s, "--amend")) {
			a->amend = true;
		} else if (!strcmp(s, "--allow-empty")) {
			a->allow_empty = true;
		} else if (!strcmp(s, "--allow-empty-message")) {
			a->allow_empty_message = true;
		} else if (!strcmp(s, "-q") || !strcmp(s, "--quiet")) {
			a->quiet = true;
		} else if (!strcmp(s, "-a") || !strcmp(s, "--all")) {
			a->all = true;
		} else if (!strcmp(s, "-n") || !strcmp(s, "--no-verify") || !strcmp(s, "--no-edit")) {
			/* hooks are never run; no editor is ever started */
		} else if (!strcmp(s, "--")) {
			dashdash = true;
		} else {
			return cli_usage(usage);
		}
	}
	if (a->have_m && a->file)
		return cli_fatal("options '%s' and '%s' cannot be used together", "-m", "-F");
	if (!a->have_m && !a->file && !a->amend)
		return cli_fatal("no commit message: webgit runs no editor; give one with -m or -F");
	return 0;
}

/* git commit's status when there is nothing to commit: git status's
 * long format in its commit-template variant, which says "Initial
 * commit" for "No commits yet", leaves out the push/pull advice of an
 * ahead or behind branch, and with --amend ends "No changes". Taken from
 * webgit status's own output, so that the two never drift apart. */
static void commit_status(bool amend)
{
	static const char *const advice[] = {
		"  (use \"git push\" to publish your local commits)\n",
		"  (use \"git pull\" to update your local branch)\n",
		"  (use \"git pull\" if you want to integrate the remote branch with yours)\n",
	};
	char *sv[] = { "status", NULL };
	struct wg_buf out = WG_BUF_INIT;
	FILE *tmp = tmpfile();
	int saved = -1;

	fflush(stdout);
	if (tmp && (saved = dup(STDOUT_FILENO)) >= 0 && dup2(fileno(tmp), STDOUT_FILENO) >= 0) {
		cmd_status(1, sv);
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		rewind(tmp);
		cli_read_stream(tmp, &out);
	} else {
		cmd_status(1, sv);  /* the plain status, better than nothing */
	}
	if (saved >= 0)
		close(saved);
	if (tmp)
		fclose(tmp);
	for (size_t i = 0; i < out.len;) {
		const char *line = (const char *)out.data + i;
		const char *nl = memchr(line, '\n', out.len - i);
		size_t n = nl ? (size_t)(nl - line) + 1 : out.len - i;
		bool last = i + n == out.len, skip = false;
		for (size_t k = 0; k < sizeof(advice) / sizeof(*advice); k++)
			skip = skip || (n == strlen(advice[k]) && !memcmp(line, advice[k], n));
		if (skip)
			;
		else if (n == 15 && !memcmp(line, "No commits yet\n", 15))
			fputs("Initial commit\n", stdout);
		else if (last && amend && (!strncmp(line, "nothing ", 8) ||
					   !strncmp(line, "no changes added", 16)))
			fputs("No changes\n", stdout);
		else
			fwrite(line, 1, n, stdout);
		i += n;
	}
	fflush(stdout);
	wg_buf_release(&out);
}

static void unmerged_refusal(const struct wg_index *ix)
{
	/* git's refresh of the index lists them first (stdout) */
	for (size_t i = 0; i < ix->nr; i++)
		if (ix->entries[i]->stage &&
		    (!i || strcmp(ix->entries[i - 1]->path, ix->entries[i]->path)))
			printf("U\t%s\n", ix->entries[i]->path);
	fflush(stdout);
	fprintf(stderr, "error: Committing is not possible because you have unmerged files.\n"
		"hint: Fix them up in the work tree, and then use 'git add/rm <file>'\n"
		"hint: as appropriate to mark resolution and make a commit.\n"
		"fatal: Exiting because of an unresolved conflict.\n");
}

int cmd_commit(int argc, char **argv)
{
	struct commit_args a = { .msg = WG_BUF_INIT };
	struct wg_commit_index_options co = { 0 };
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_buf committer = WG_BUF_INIT, author = WG_BUF_INIT, path = WG_BUF_INIT;
	struct wg_oid oid, head;
	bool initial;
	int rc, err;

	if ((rc = parse(argc, argv, &a)))
		goto done;
	if ((rc = cli_open_repo(&repo)))
		goto done;
	if (wg_repo_require_workdir(repo)) {
		rc = cli_fatal_core();
		goto done;
	}
	if (a.file && (rc = cli_message_read_file(&a.msg, a.file)))
		goto done;
	if (cli_read_index(&ix, repo) || cli_index_path(&path, repo)) {
		rc = cli_fatal("index file corrupt");
		goto done;
	}
	for (size_t i = 0; i < ix->nr; i++)
		if (ix->entries[i]->stage) {
			unmerged_refusal(ix);
			rc = 128;
			goto done;
		}
	if (a.all) {
		struct wg_index_update_options uo = { 0 };
		uo.update_only = true;
		uo.warn = cli_warn_warning;
		if (wg_index_add_paths(repo, ix, NULL, 0, &uo)) {
			rc = cli_fatal_core();
			goto done;
		}
	}
	if ((rc = cli_ident(&committer, repo, "COMMITTER")))
		goto done;
	if (a.author && a.amend)
		rc = amend_author(&author, repo, a.author);
	else if (a.author)
		rc = author_ident(&author, a.author, NULL);
	else if (!a.amend)
		rc = cli_ident(&author, repo, "AUTHOR");
	if (rc)
		goto done;
	initial = wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0) != 0;
	wg_error_clear();
	co.message = a.have_m || a.file ? (const char *)a.msg.data : NULL;
	co.message_len = a.msg.len;
	if (co.message == NULL && (a.have_m || a.file))
		co.message = "";
	co.author = author.len ? wg_buf_cstr(&author) : NULL;
	co.committer = wg_buf_cstr(&committer);
	co.amend = a.amend;
	co.allow_empty = a.allow_empty;
	co.allow_empty_message = a.allow_empty_message;
	co.warn = cli_warn_plain;
	err = wg_commit_index(&oid, repo, ix, &co);
	if (err == WG_COMMIT_NOTHING) {
		wg_error_clear();
		commit_status(a.amend);
		if (a.amend)
			fputs("You asked to amend the most recent commit, but doing so would make\n"
			      "it empty. You can repeat your command with --allow-empty, or you can\n"
			      "remove the commit entirely with \"git reset HEAD^\".\n", stderr);
		rc = 1;
		goto done;
	}
	if (err == WG_COMMIT_EMPTY_MESSAGE) {
		fprintf(stderr, "%s\n", wg_error_message());
		wg_error_clear();
		rc = 1;
		goto done;
	}
	if (err == WG_COMMIT_UNMERGED) {
		unmerged_refusal(ix);
		rc = 128;
		goto done;
	}
	if (err) {
		rc = cli_fatal_core();
		goto done;
	}
	if (wg_index_write(ix, wg_buf_cstr(&path))) {
		rc = cli_fatal("repository has been updated, but unable to write\n"
			       "new index file. Check that disk is not full and quota is\n"
			       "not exceeded, and then \"git restore --staged :/\" to recover.");
		goto done;
	}
	/* git shows the author date when it was kept from the amended commit */
	if (!a.quiet && print_summary(repo, &oid, initial, a.amend))
		rc = cli_fatal_core();
	if (fflush(stdout))
		rc = cli_fatal("write error");
done:
	wg_buf_release(&a.msg);
	wg_buf_release(&committer);
	wg_buf_release(&author);
	wg_buf_release(&path);
	wg_index_free(ix);
	wg_repo_free(repo);
	return rc;
}
