/* webgit status: git status's short and porcelain formats (v1 and v2,
 * with --branch, -z, -u<mode>, --ignored) and its long format for the
 * common states, from worktree/status.h. As git status, it writes the
 * index back when it refreshed stat data (if it can take the lock). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "diff/rename.h"
#include "repo/detached_head.h"
#include "repo/upstream.h"
#include "index/index.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"
#include "worktree/ignore_files.h"
#include "worktree/status.h"

enum format { LONG, SHORT, PORCELAIN_V1, PORCELAIN_V2 };

struct status_args {
	enum format format;
	bool branch, nul, ignored;
	enum wg_status_untracked untracked;
	int renames, rename_score;   /* as wg_status_options */
};

struct head_info {
	bool born;
	struct wg_oid commit;
	char *branch;  /* short name, NULL when detached */
	struct wg_buf up_full, up_short;
	int up_state;  /* 0 known, 1 gone, -1 none */
	size_t ahead, behind;
	char *detached_from;  /* what a detached HEAD was checked out as */
	bool detached_at;     /* ...and HEAD is still there */
	bool merging;         /* MERGE_HEAD exists */
};

/* The detached HEAD's label (repo/detached_head.h), abbreviated here. */
static void detached_from(struct wg_repo *repo, struct head_info *h)
{
	struct wg_buf name = WG_BUF_INIT;
	struct wg_oid oid;
	if (wg_detached_head_label(&name, &oid, &h->detached_at, repo, &h->commit) == 1) {
		if (name.len) {
			h->detached_from = wg_strdup(wg_buf_cstr(&name));
		} else {
			char ab[WG_MAX_HEXSZ + 1];
			cli_abbrev(ab, repo, &oid);
			h->detached_from = wg_strdup(ab);
		}
	}
	wg_error_clear();
	wg_buf_release(&name);
}

static void put_path_sp(const char *path, bool nul, bool quote_sp)
{
	struct wg_buf q = WG_BUF_INIT;
	if (nul) {
		fputs(path, stdout);
		return;
	}
	if (!wg_quote_c_style(&q, path, strlen(path))) {
		if (quote_sp && q.len && q.data[0] != '"' && strchr(path, ' '))
			printf("\"%s\"", wg_buf_cstr(&q));
		else
			fputs(wg_buf_cstr(&q), stdout);
	}
	wg_buf_release(&q);
}

static void put_path(const char *path, bool nul)
{
	put_path_sp(path, nul, false);
}

static char sp(char c)
{
	return c == '.' ? ' ' : c;
}

static void branch_line_v1(const struct head_info *h, bool nul)
{
	if (!h->born)
		printf("## No commits yet on %s", h->branch ? h->branch : "HEAD");
	else if (!h->branch)
		printf("## HEAD (no branch)");
	else {
		printf("## %s", h->branch);
		if (h->up_state >= 0) {
			printf("...%s", wg_buf_cstr(&h->up_short));
			if (h->up_state == 1)
				printf(" [gone]");
			else if (h->ahead && h->behind)
				printf(" [ahead %zu, behind %zu]", h->ahead, h->behind);
			else if (h->ahead)
				printf(" [ahead %zu]", h->ahead);
			else if (h->behind)
				printf(" [behind %zu]", h->behind);
		}
	}
	putchar(nul ? '\0' : '\n');
}

static void print_v1(const struct wg_status *st, const struct status_args *a)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct wg_status_entry *e = &st->v[i];
		if (e->x == '?' || e->x == '!') {
			printf("%c%c ", e->x, e->x);
			put_path_sp(e->path, a->nul, true);
			putchar(a->nul ? '\0' : '\n');
			continue;
		}
			printf("%c%c ", sp(e->x), sp(e->y));
		if (e->from && !a->nul) {
			put_path_sp(e->from, false, true);
			fputs(" -> ", stdout);
		}
		put_path_sp(e->path, a->nul, true);
		putchar(a->nul ? '\0' : '\n');
		if (e->from && a->nul) {
			fputs(e->from, stdout);
			putchar('\0');
		}
	}
}

static void print_v2(const struct wg_status *st, const struct status_args *a,
		     const struct head_info *h)
{
	char eol = a->nul ? '\0' : '\n';
	if (a->branch) {
		if (h->born)
			printf("# branch.oid %s%c", wg_oid_hex(&h->commit), eol);
		else
			printf("# branch.oid (initial)%c", eol);
		printf("# branch.head %s%c", h->branch ? h->branch : "(detached)", eol);
		if (h->branch && h->up_state >= 0) {
			printf("# branch.upstream %s%c", wg_buf_cstr(&h->up_short), eol);
			if (h->up_state == 0)
				printf("# branch.ab +%zu -%zu%c", h->ahead, h->behind, eol);
		}
	}
	/* git prints the ordinary changes, then the unmerged ones, then the rest */
	for (int pass = 0; pass < 3; pass++)
	for (size_t i = 0; i < st->n; i++) {
		const struct wg_status_entry *e = &st->v[i];
		int kind = e->x == '?' || e->x == '!' ? 2 : e->unmerged ? 1 : 0;
		if (kind != pass)
			continue;
		if (e->x == '?' || e->x == '!') {
			printf("%c ", e->x);
		} else if (e->unmerged) {
			printf("u %c%c N... %06o %06o %06o %06o ", e->x, e->y, e->stage_mode[0],
			       e->stage_mode[1], e->stage_mode[2], e->mode_worktree);
			printf("%s ", wg_oid_hex(&e->stage_oid[0]));
			printf("%s ", wg_oid_hex(&e->stage_oid[1]));
			printf("%s ", wg_oid_hex(&e->stage_oid[2]));
		} else {
			unsigned mw = e->y == 'D' ? 0 : e->y == '.' ? e->mode_index : e->mode_worktree;
			printf("%c %c%c N... %06o %06o %06o ", e->from ? '2' : '1', e->x, e->y,
			       e->mode_head, e->mode_index, mw);
			printf("%s ", wg_oid_hex(&e->oid_head));
			printf("%s ", wg_oid_hex(&e->oid_index));
			if (e->from)
				printf("%c%d ", e->x, e->score);
		}
		put_path(e->path, a->nul);
		if (e->from) {
			putchar(a->nul ? '\0' : '\t');
			put_path(e->from, a->nul);
		}
		putchar(eol);
	}
}

/* --- the long format ------------------------------------------------------------- */

static const char *what(char c)
{
	switch (c) {
	case 'M': return "modified:   ";
	case 'A': return "new file:   ";
	case 'D': return "deleted:    ";
	case 'T': return "typechange: ";
	case 'R': return "renamed:    ";
	default: return "unknown:    ";
	}
}

static const char *unmerged_what(const struct wg_status_entry *e)
{
	char k[3] = { e->x, e->y, 0 };
	if (!strcmp(k, "DD")) return "both deleted:    ";
	if (!strcmp(k, "AU")) return "added by us:     ";
	if (!strcmp(k, "UD")) return "deleted by them: ";
	if (!strcmp(k, "UA")) return "added by them:   ";
	if (!strcmp(k, "DU")) return "deleted by us:   ";
	if (!strcmp(k, "AA")) return "both added:      ";
	return "both modified:   ";
}

static void long_path(const char *label, const char *path)
{
	printf("\t%s", label);
	put_path(path, false);
	putchar('\n');
}

static void long_rename(const char *from, const char *path)
{
	printf("\t%s", what('R'));
	put_path(from, false);
	fputs(" -> ", stdout);
	put_path(path, false);
	putchar('\n');
}

static void print_long(const struct wg_status *st, const struct status_args *a,
		       const struct head_info *h)
{
	bool staged = false, unstaged = false, unmerged = false, untracked = false, ignored = false;
	bool worktree_deletion = false, both_deleted = false, del_mod = false, not_deleted = false;

	if (h->branch)
		printf("On branch %s\n", h->branch);
	else if (h->detached_from)
		printf("HEAD detached %s %s\n", h->detached_at ? "at" : "from", h->detached_from);
	else
		printf("Not currently on any branch.\n");
	if (h->branch && h->born && h->up_state >= 0) {
		const char *u = wg_buf_cstr(&h->up_short);
		if (h->up_state == 1)
			printf("Your branch is based on '%s', but the upstream is gone.\n"
			       "  (use \"git branch --unset-upstream\" to fixup)\n", u);
		else if (!h->ahead && !h->behind)
			printf("Your branch is up to date with '%s'.\n", u);
		else if (!h->behind)
			printf("Your branch is ahead of '%s' by %zu commit%s.\n"
			       "  (use \"git push\" to publish your local commits)\n", u, h->ahead,
			       h->ahead == 1 ? "" : "s");
		else if (!h->ahead)
			printf("Your branch is behind '%s' by %zu commit%s, and can be fast-forwarded.\n"
			       "  (use \"git pull\" to update your local branch)\n", u, h->behind,
			       h->behind == 1 ? "" : "s");
		else
			printf("Your branch and '%s' have diverged,\n"
			       "and have %zu and %zu different commits each, respectively.\n"
			       "  (use \"git pull\" if you want to integrate the remote branch with yours)\n",
			       u, h->ahead, h->behind);
		putchar('\n');
	}
	for (size_t i = 0; i < st->n; i++) {
		const struct wg_status_entry *e = &st->v[i];
		if (e->unmerged) {
			static const char *const how[8] = { "", "DD", "AU", "UD", "UA", "DU", "AA", "UU" };
			int mask = 0;
			for (int k = 1; k < 8; k++)
				if (e->x == how[k][0] && e->y == how[k][1])
					mask = k;
			if (mask == 1)
				both_deleted = true;
			else if (mask == 3 || mask == 5)
				del_mod = true;
			else
				not_deleted = true;
			unmerged = true;
		}
		else if (e->x == '?')
			untracked = true;
		else if (e->x == '!')
			ignored = true;
		else {
			if (e->x != '.')
				staged = true;
			if (e->y != '.')
				unstaged = true;
			if (e->y == 'D')
				worktree_deletion = true;
		}
	}
	if (h->merging) {
		if (unmerged)
			printf("You have unmerged paths.\n  (fix conflicts and run \"git commit\")\n"
			       "  (use \"git merge --abort\" to abort the merge)\n\n");
		else
			printf("All conflicts fixed but you are still merging.\n"
			       "  (use \"git commit\" to conclude merge)\n\n");
	}
	if (!h->born)
		printf("\nNo commits yet\n\n");
	if (staged) {
		printf("Changes to be committed:\n");
		if (!h->merging)
			printf(h->born ? "  (use \"git restore --staged <file>...\" to unstage)\n"
				       : "  (use \"git rm --cached <file>...\" to unstage)\n");
		for (size_t i = 0; i < st->n; i++)
			if (!st->v[i].unmerged && st->v[i].x != '?' && st->v[i].x != '!' &&
			    st->v[i].x != '.') {
				if (st->v[i].from)
					long_rename(st->v[i].from, st->v[i].path);
				else
					long_path(what(st->v[i].x), st->v[i].path);
			}
		putchar('\n');
	}
	if (unmerged) {
		printf("Unmerged paths:\n");
		if (!h->merging)
			printf(h->born ? "  (use \"git restore --staged <file>...\" to unstage)\n"
				       : "  (use \"git rm --cached <file>...\" to unstage)\n");
		if (!both_deleted)
			printf(!del_mod ? "  (use \"git add <file>...\" to mark resolution)\n"
					: "  (use \"git add/rm <file>...\" as appropriate to mark "
					  "resolution)\n");
		else if (!del_mod && !not_deleted)
			printf("  (use \"git rm <file>...\" to mark resolution)\n");
		else
			printf("  (use \"git add/rm <file>...\" as appropriate to mark resolution)\n");
		for (size_t i = 0; i < st->n; i++)
			if (st->v[i].unmerged)
				long_path(unmerged_what(&st->v[i]), st->v[i].path);
		putchar('\n');
	}
	if (unstaged) {
		printf("Changes not staged for commit:\n");
		printf(worktree_deletion ? "  (use \"git add/rm <file>...\" to update what will be "
					   "committed)\n"
					 : "  (use \"git add <file>...\" to update what will be "
					   "committed)\n");
		printf("  (use \"git restore <file>...\" to discard changes in working directory)\n");
		for (size_t i = 0; i < st->n; i++)
			if (!st->v[i].unmerged && st->v[i].x != '?' && st->v[i].x != '!' &&
			    st->v[i].y != '.')
				long_path(what(st->v[i].y), st->v[i].path);
		putchar('\n');
	}
	if (a->untracked != WG_UNTRACKED_NO) {
		if (untracked) {
			printf("Untracked files:\n");
			printf("  (use \"git add <file>...\" to include in what will be committed)\n");
			for (size_t i = 0; i < st->n; i++)
				if (st->v[i].x == '?')
					long_path("", st->v[i].path);
			putchar('\n');
		}
		if (ignored) {
			printf("Ignored files:\n");
			printf("  (use \"git add -f <file>...\" to include in what will be committed)\n");
			for (size_t i = 0; i < st->n; i++)
				if (st->v[i].x == '!')
					long_path("", st->v[i].path);
			putchar('\n');
		}
	} else if (staged) {
		printf("Untracked files not listed (use -u option to show untracked files)\n");
	}
	if (staged)
		return;
	if (unstaged || unmerged)
		printf("no changes added to commit (use \"git add\" and/or \"git commit -a\")\n");
	else if (untracked && a->untracked != WG_UNTRACKED_NO)
		printf("nothing added to commit but untracked files present (use \"git add\" to "
		       "track)\n");
	else if (!h->born)
		printf("nothing to commit (create/copy files and use \"git add\" to track)\n");
	else if (a->untracked == WG_UNTRACKED_NO)
		printf("nothing to commit (use -u to show untracked files)\n");
	else
		printf("nothing to commit, working tree clean\n");
}

static void warn_line(void *payload, const char *line)
{
	(void)payload;
	fprintf(stderr, "%s\n", line);
}

static int parse(int argc, char **argv, struct status_args *a)
{
	static const char usage[] = "webgit status [-s | --short] [--porcelain[=<version>]] "
		"[-b | --branch] [-z] [-u<mode> | --untracked-files[=<mode>]] [--ignored]";
	bool short_given = false;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i], *m = NULL;
		if (!strcmp(s, "-s") || !strcmp(s, "--short")) {
			if (a->format == LONG)
				a->format = SHORT;
			short_given = true;
		} else if (!strcmp(s, "--porcelain") || !strcmp(s, "--porcelain=v1")) {
			a->format = PORCELAIN_V1;
		} else if (!strcmp(s, "--porcelain=v2") || !strcmp(s, "--porcelain=2")) {
			a->format = PORCELAIN_V2;
		} else if (!strcmp(s, "--long")) {
			a->format = LONG;
		} else if (!strcmp(s, "-b") || !strcmp(s, "--branch")) {
			a->branch = true;
		} else if (!strcmp(s, "-z")) {
			a->nul = true;
		} else if (!strcmp(s, "--no-renames")) {
			a->renames = 0;
		} else if (!strcmp(s, "--renames")) {
			a->renames = 1;
		} else if (!strncmp(s, "--find-renames", 14) && (!s[14] || s[14] == '=')) {
			a->renames = 1;
			if (s[14] && (a->rename_score = wg_rename_parse_score(s + 15)) < 0)
				return cli_fatal("invalid argument to --find-renames: %s", s + 15);
		} else if (!strcmp(s, "--ignored") || !strcmp(s, "--ignored=traditional")) {
			a->ignored = true;
		} else if (!strcmp(s, "-u") || !strcmp(s, "--untracked-files")) {
			a->untracked = WG_UNTRACKED_ALL;
		} else if ((!strncmp(s, "-u", 2) && (m = s + 2)) ||
			   (!strncmp(s, "--untracked-files=", 18) && (m = s + 18))) {
			if (!strcmp(m, "no"))
				a->untracked = WG_UNTRACKED_NO;
			else if (!strcmp(m, "normal"))
				a->untracked = WG_UNTRACKED_NORMAL;
			else if (!strcmp(m, "all"))
				a->untracked = WG_UNTRACKED_ALL;
			else
				return cli_fatal("Invalid untracked files mode '%s'", m);
		} else {
			return cli_usage(usage);
		}
	}
	/* -z without a format is the porcelain v1 format */
	if (a->nul && a->format == LONG && !short_given)
		a->format = PORCELAIN_V1;
	return 0;
}

int cmd_status(int argc, char **argv)
{
	struct status_args a = { LONG, false, false, false, WG_UNTRACKED_NORMAL, -1, 0 };
	struct wg_status_options so = WG_STATUS_OPTIONS_INIT;
	struct head_info h = { .up_full = WG_BUF_INIT, .up_short = WG_BUF_INIT, .up_state = -1 };
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_ignore *ig = NULL;
	struct wg_status *st = NULL;
	struct wg_buf path = WG_BUF_INIT;
	struct wg_ref head = { 0 };
	struct wg_oid tree;
	int rc;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (wg_repo_require_workdir(repo)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (cli_read_index(&ix, repo) || cli_index_path(&path, repo)) {
		rc = cli_fatal("index file corrupt");
		goto out;
	}
	if (!wg_refdb_read(&head, wg_repo_refdb(repo), "HEAD") && head.symbolic &&
	    !strncmp(head.target, "refs/heads/", 11))
		h.branch = head.target + 11;
	h.born = !wg_refdb_resolve(&h.commit, NULL, wg_repo_refdb(repo), "HEAD", 0);
	wg_error_clear();
	if (h.born && wg_object_peel(&tree, repo, &h.commit, WG_OBJ_TREE)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (!h.branch && h.born)
		detached_from(repo, &h);
	{
		struct wg_buf mh = WG_BUF_INIT;
		h.merging = !wg_fs_join(&mh, wg_repo_gitdir(repo), "MERGE_HEAD") &&
			    wg_fs_exists(wg_buf_cstr(&mh));
		wg_buf_release(&mh);
	}
	if (h.branch && !wg_branch_upstream(&h.up_full, &h.up_short, repo, h.branch) && h.up_full.len)
		h.up_state = cli_ahead_behind(repo, h.branch, wg_buf_cstr(&h.up_full), &h.ahead,
					      &h.behind) == 1 ? 1 : 0;
	if (wg_ignore_open(&ig, repo, NULL, cli_warn_warning, NULL)) {
		rc = cli_fatal_core();
		goto out;
	}
	so.untracked = a.untracked;
	so.ignored = a.ignored;
	so.renames = a.renames;
	so.rename_score = a.rename_score;
	so.ignore = ig;
	so.warn = warn_line;
	if (wg_status_collect(&st, repo, ix, h.born ? &tree : NULL, &so)) {
		rc = cli_fatal_core();
		goto out;
	}
	/* as git status: refreshed stat data is written back when the lock
	 * can be had, silently not otherwise */
	if (st->refreshed && wg_index_write(ix, wg_buf_cstr(&path)))
		wg_error_clear();
	switch (a.format) {
	case PORCELAIN_V2:
		print_v2(st, &a, &h);
		break;
	case PORCELAIN_V1:
	case SHORT:
		if (a.branch)
			branch_line_v1(&h, a.nul);
		print_v1(st, &a);
		break;
	default:
		print_long(st, &a, &h);
		break;
	}
	if (fflush(stdout))
		rc = cli_fatal("write error");
out:
	wg_status_free(st);
	wg_ignore_free(ig);
	wg_index_free(ix);
	wg_ref_release(&head);
	wg_buf_release(&path);
	wg_buf_release(&h.up_full);
	wg_buf_release(&h.up_short);
	wg_free(h.detached_from);
	wg_repo_free(repo);
	return rc;
}
