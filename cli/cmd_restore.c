/* webgit restore: index entries from a tree (--staged; HEAD unless
 * --source), working-tree files from the index or from --source
 * (--worktree, the default), for the paths a pathspec names. As git's
 * restore (no-overlay mode): a path the source lacks is removed. The
 * files are written by the checkout machinery (worktree/checkout.h:
 * streamed blobs, line-ending conversion, never through a link), as a
 * forced checkout of just these paths. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "remote_driver.h"
#include "index/index.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "worktree/checkout.h"
#include "worktree/index_tree.h"
#include "worktree/pathspec.h"

/* A copy of e for another index (stat data and flags too). */
static int copy_into(struct wg_index *to, const struct wg_index_entry *e)
{
	struct wg_index_entry *c = wg_index_entry_new(e->path, e->path_len, e->mode, &e->oid,
						      e->stage);
	if (!c)
		return wg_error_set(WG_ENOMEM, "out of memory");
	c->st = e->st;
	c->flags = e->flags;
	return wg_index_add(to, c);
}

/* Write the working-tree files of `want` over those of `have` (both
 * only the restored paths), as checkout --force of these paths alone;
 * the entries written, with their new stat data, go to *result. */
static int write_worktree(struct wg_index **result, struct wg_repo *repo, struct wg_index *have,
			  struct wg_index *want)
{
	struct wg_checkout_options opts = WG_CHECKOUT_OPTIONS_INIT;
	struct wg_checkout *co = NULL;
	struct wg_oid tree;
	const struct wg_oid *missing;
	int err;

	opts.force = true;
	opts.command = "checkout";
	opts.warn = cli_warn_plain;
	if (!(err = wg_index_write_tree(&tree, want, wg_repo_odb(repo))) &&
	    !(err = wg_checkout_plan(&co, repo, have, NULL, &tree, &opts))) {
		size_t n = wg_checkout_missing(co, &missing);
		if (!(err = cli_prefetch(repo, missing, n)))
			err = wg_checkout_run(co, result);
	}
	wg_checkout_free(co);
	return err;
}

int cmd_restore(int argc, char **argv)
{
	static const char usage[] = "webgit restore [-S | --staged] [-W | --worktree] "
				    "[-s <tree> | --source=<tree>] [--] <pathspec>...";
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL, *src = NULL, *want = NULL, *have = NULL, *written = NULL;
	struct wg_pathspec ps = { 0 };
	struct wg_buf path = WG_BUF_INIT, prefix = WG_BUF_INIT;
	const char *source = NULL, *v;
	const char **items = NULL;
	unsigned char *seen = NULL;
	size_t nitems = 0;
	bool staged = false, worktree = false, dashdash = false, unmatched = false;
	int rc = 0, i;

	if (!(items = wg_calloc((size_t)argc + 1, sizeof(*items))))
		return cli_fatal("out of memory");
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (dashdash || s[0] != '-' || !s[1])
			items[nitems++] = s;
		else if (!strcmp(s, "--"))
			dashdash = true;
		else if (!strcmp(s, "-S") || !strcmp(s, "--staged"))
			staged = true;
		else if (!strcmp(s, "-W") || !strcmp(s, "--worktree"))
			worktree = true;
		else if (!strcmp(s, "-q") || !strcmp(s, "--quiet") || !strcmp(s, "--no-overlay"))
			;
		else if ((v = cli_option_value(argc, argv, &i, "--source")) ||
			 (v = cli_option_value(argc, argv, &i, "-s")))
			source = v;
		else if (!strncmp(s, "-s", 2))
			source = s + 2;
		else {
			rc = cli_usage(usage);
			goto out;
		}
	}
	if (!nitems) {
		rc = cli_fatal("you must specify path(s) to restore");
		goto out;
	}
	if (!worktree && !staged)
		worktree = true;
	if (!source && staged)
		source = "HEAD";
	if ((rc = cli_open_repo(&repo)))
		goto out;
	if (!wg_repo_workdir(repo)) {
		rc = cli_fatal("this operation must be run in a work tree");
		goto out;
	}
	if (cli_read_index(&ix, repo) || cli_index_path(&path, repo)) {
		rc = cli_fatal("index file corrupt");
		goto out;
	}
	if (cli_cwd_prefix(&prefix, wg_repo_workdir(repo)) ||
	    wg_pathspec_init(&ps, wg_buf_cstr(&prefix), items, nitems)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (source) {
		struct wg_oid oid, tree;
		if (wg_revparse(&oid, repo, source) || wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE)) {
			wg_error_clear();
			rc = cli_fatal("could not resolve '%s'", source);
			goto out;
		}
		if (wg_index_new(&src, wg_repo_algo(repo)) ||
		    wg_index_read_tree(src, wg_repo_odb(repo), &tree)) {
			rc = cli_fatal_core();
			goto out;
		}
	}
	if (!(seen = wg_calloc(ps.nr ? ps.nr : 1, 1)) || wg_index_new(&want, wg_repo_algo(repo)) ||
	    wg_index_new(&have, wg_repo_algo(repo))) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	/* what the paths become (want) and what the index has for them */
	for (size_t k = 0; k < ix->nr; k++) {
		const struct wg_index_entry *e = ix->entries[k];
		if (!wg_pathspec_match(&ps, e->path, e->path_len, seen))
			continue;
		if (e->stage) {
			if (worktree && !source) {
				fprintf(stderr, "error: path '%s' is unmerged\n", e->path);
				unmatched = true;
			}
			continue;
		}
		if (copy_into(have, e) || (!source && copy_into(want, e))) {
			rc = cli_fatal_core();
			goto out;
		}
	}
	for (size_t k = 0; src && k < src->nr; k++) {
		const struct wg_index_entry *e = src->entries[k];
		if (wg_pathspec_match(&ps, e->path, e->path_len, seen) && copy_into(want, e)) {
			rc = cli_fatal_core();
			goto out;
		}
	}
	for (size_t k = 0; k < ps.nr; k++)
		if (!seen[k]) {
			fprintf(stderr, "error: pathspec '%s' did not match any file(s) known to git\n",
				ps.items[k].original);
			unmatched = true;
		}
	if (unmatched) {
		rc = 1;
		goto out;
	}
	if (worktree && write_worktree(&written, repo, have, want)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (staged) {
		/* the matching entries (every stage) give way to the source's */
		for (size_t k = ix->nr; k-- > 0;)
			if (wg_pathspec_match(&ps, ix->entries[k]->path, ix->entries[k]->path_len, NULL))
				wg_index_remove_at(ix, k);
		for (size_t k = 0; k < want->nr; k++) {
			struct wg_index_entry *e = want->entries[k];
			long pos = written ? wg_index_find(written, e->path, e->path_len, 0) : -1;
			long old = wg_index_find(have, e->path, e->path_len, 0);
			memset(&e->st, 0, sizeof(e->st));
			if (pos >= 0)
				e->st = written->entries[pos]->st;
			else if (old >= 0 && have->entries[old]->mode == e->mode &&
				 wg_oid_equal(&have->entries[old]->oid, &e->oid))
				e->st = have->entries[old]->st;
			if (copy_into(ix, e)) {
				rc = cli_fatal_core();
				goto out;
			}
		}
	} else if (!source && written) {
		/* files written from the index: their entries get the new stat data */
		for (size_t k = 0; k < written->nr; k++) {
			const struct wg_index_entry *w = written->entries[k];
			long pos = wg_index_find(ix, w->path, w->path_len, 0);
			if (pos >= 0 && ix->entries[pos]->mode == w->mode &&
			    wg_oid_equal(&ix->entries[pos]->oid, &w->oid))
				ix->entries[pos]->st = w->st;
		}
	}
	if ((staged || !source) && wg_index_write(ix, wg_buf_cstr(&path)))
		rc = cli_fatal_core();
out:
	wg_pathspec_release(&ps);
	wg_index_free(ix);
	wg_index_free(src);
	wg_index_free(want);
	wg_index_free(have);
	wg_index_free(written);
	wg_buf_release(&path);
	wg_buf_release(&prefix);
	wg_free(items);
	wg_free(seen);
	wg_repo_free(repo);
	return rc;
}
