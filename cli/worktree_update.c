/* Moving the working tree and the index from one tree to another, for the
 * verbs that do it (checkout, switch, clone): the core's plan, git's
 * refusal messages, the blobs a partial clone lacks fetched in one
 * request, then the run and the new index. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "odb/ahead_behind.h"
#include "refs/refname.h"
#include "refs/refspec.h"
#include "remote_driver.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"
#include "worktree/checkout.h"
#include "worktree/ignore_files.h"
#include "worktree/status.h"

void cli_warn_plain(void *payload, const char *line)
{
	(void)payload;
	fprintf(stderr, "%s\n", line);
}

void cli_warn_warning(void *payload, const char *line)
{
	(void)payload;
	fprintf(stderr, "warning: %s\n", line);
}

static void print_change(char status, const char *path)
{
	struct wg_buf q = WG_BUF_INIT;
	if (!wg_quote_c_style(&q, path, strlen(path)))
		printf("%c\t%s\n", status, wg_buf_cstr(&q));
	wg_buf_release(&q);
}

/* git checkout's list of the local changes it carried over: the new
 * tree against the working tree (git diff-index --name-status <tree>),
 * on stdout, read off the status of the tracked paths. */
int cli_show_local_changes(struct wg_repo *repo, struct wg_index *ix, const struct wg_oid *tree)
{
	struct wg_status_options so = WG_STATUS_OPTIONS_INIT;
	struct wg_status *st = NULL;
	int err;

	so.untracked = WG_UNTRACKED_NO;
	so.renames = 0;   /* the list as t25 checks it against git: no rename pairs */
	if ((err = wg_status_collect(&st, repo, ix, tree, &so)))
		return err;
	for (size_t i = 0; i < st->n; i++) {
		const struct wg_status_entry *e = &st->v[i];
		if (e->unmerged)
			print_change('U', e->path);
		else if (e->x == 'D' || (e->y == 'D' && e->x != 'A'))
			print_change('D', e->path);  /* gone from the index or the tree */
		else if (e->x == 'A') {
			if (e->y != 'D')
				print_change('A', e->path);  /* only in the index, and on disk */
		} else if (e->y != 'D')
			print_change((e->mode_worktree ^ e->mode_head) & 0170000 ? 'T' : 'M', e->path);
	}
	wg_status_free(st);
	return 0;
}

int cli_print_checkout_refusal(const struct wg_checkout *co)
{
	struct wg_buf msg = WG_BUF_INIT;
	for (int k = 0; k < WG_CHECKOUT_REJECT_KINDS; k++) {
		wg_buf_reset(&msg);
		wg_checkout_reject_message(co, (enum wg_checkout_reject)k, &msg);
		if (msg.len)
			fprintf(stderr, "error: %s\n", wg_buf_cstr(&msg));
	}
	fprintf(stderr, "Aborting\n");
	wg_buf_release(&msg);
	return 1;
}

/* Move index and working tree from old_tree (NULL: none) to new_tree.
 * Returns 0, 1 (refused: git's messages printed) or 128. */
int cli_checkout_tree(struct wg_repo *repo, const struct wg_oid *old_tree,
		      const struct wg_oid *new_tree, bool force, bool show_changes)
{
	struct wg_checkout_options opts = WG_CHECKOUT_OPTIONS_INIT;
	struct wg_checkout *co = NULL;
	struct wg_index *ix = NULL, *result = NULL;
	struct wg_ignore *ig = NULL;
	struct wg_buf path = WG_BUF_INIT;
	const struct wg_oid *missing;
	size_t nmissing;
	int err, rc = 0;

	if (cli_index_path(&path, repo) || cli_read_index(&ix, repo)) {
		rc = cli_fatal("index file corrupt");
		goto out;
	}
	opts.force = force;
	opts.initial = !wg_fs_exists(wg_buf_cstr(&path));
	opts.warn = cli_warn_plain;
	if (wg_ignore_open(&ig, repo, NULL, cli_warn_warning, NULL)) {
		rc = cli_fatal_core();
		goto out;
	}
	opts.ignore = ig;
	err = wg_checkout_plan(&co, repo, ix, old_tree, new_tree, &opts);
	if (err == WG_EEXISTS && co) {
		rc = cli_print_checkout_refusal(co);
		goto out;
	}
	nmissing = err ? 0 : wg_checkout_missing(co, &missing);
	if (err || cli_prefetch(repo, missing, nmissing) || wg_checkout_run(co, &result) ||
	    wg_index_write(result, wg_buf_cstr(&path)))
		rc = cli_fatal_core();
	else if (show_changes && !force && cli_show_local_changes(repo, result, new_tree))
		rc = cli_fatal_core();
out:
	wg_checkout_free(co);
	wg_ignore_free(ig);
	wg_index_free(ix);
	wg_index_free(result);
	wg_buf_release(&path);
	return rc;
}

int cli_ahead_behind(struct wg_repo *repo, const char *branch, const char *upstream,
		     size_t *ahead, size_t *behind)
{
	struct wg_buf key = WG_BUF_INIT;
	struct wg_oid ours, theirs;
	int rc = -1;
	if (!wg_buf_printf(&key, "refs/heads/%s", branch) &&
	    !wg_refdb_resolve(&ours, NULL, wg_repo_refdb(repo), wg_buf_cstr(&key), 0)) {
		if (wg_refdb_resolve(&theirs, NULL, wg_repo_refdb(repo), upstream, 0))
			rc = 1;
		else if (!wg_ahead_behind(wg_repo_odb(repo), &ours, &theirs, ahead, behind))
			rc = 0;
	}
	wg_error_clear();
	wg_buf_release(&key);
	return rc;
}
