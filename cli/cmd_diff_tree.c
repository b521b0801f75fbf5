/* webgit diff-tree: the changes between two trees, or a commit and its
 * first parent (its id first, as git prints it), raw by default, or as
 * patch and stats (cli/diff_output.h). Renames only with -M, copies with
 * -C, -C -C or --find-copies-harder, as git's plumbing. Without -r (and with only raw or name formats) the changes
 * are shown for the top level, a changed directory as one entry. A merge
 * given alone shows nothing, as git does without -m, -c or --cc: with -c
 * (raw by default) or --cc (a patch by default) its combined diff
 * (cli/combined_output.c) after its id, with -m a diff against each
 * parent it differs from, each after the id. */
#include <string.h>

#include "cli.h"
#include "diff_output.h"
#include "object/commit.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"

static const char usage[] =
	"webgit diff-tree [-p] [-r] [-M] [--root] [--stat | --numstat | --shortstat | --raw | "
	"--name-only | --name-status] <tree-ish> [<tree-ish>] [--] [<path>...]";

/* git's non-recursive view: each change under a directory becomes the
 * directory's own change, once */
static int collapse(struct wg_diff_changes *c, struct wg_repo *repo, const struct wg_oid *t1,
		    const struct wg_oid *t2)
{
	size_t w = 0, last_dir = (size_t)-1;   /* the entry a directory became */
	for (size_t i = 0; i < c->n; i++) {
		struct wg_diff_change *ch = &c->v[i];
		char *slash = strchr(ch->path, '/');
		if (!slash) {
			c->v[w++] = *ch;
			continue;
		}
		*slash = '\0';
		if (last_dir != (size_t)-1 && !strcmp(c->v[last_dir].path, ch->path)) {
			wg_free(ch->path);
			wg_free(ch->from);
			continue;
		}
		last_dir = w;
		{
			struct wg_diff_change d = { 0 };
			d.path = ch->path;
			wg_oid_null(&d.old_oid, wg_repo_algo(repo));
			d.new_oid = d.old_oid;
			if (t1 && wg_tree_lookup_path(&d.old_oid, &d.old_mode, repo, t1, d.path))
				wg_error_clear();
			if (t2 && wg_tree_lookup_path(&d.new_oid, &d.new_mode, repo, t2, d.path))
				wg_error_clear();
			if (d.old_mode != 0040000) {
				d.old_mode = 0;
				wg_oid_null(&d.old_oid, wg_repo_algo(repo));
			}
			if (d.new_mode != 0040000) {
				d.new_mode = 0;
				wg_oid_null(&d.new_oid, wg_repo_algo(repo));
			}
			d.status = !d.old_mode ? 'A' : !d.new_mode ? 'D' : 'M';
			wg_free(ch->from);
			c->v[w++] = d;
		}
	}
	c->n = w;
	return 0;
}

/* A merge's diffs: combined (-c, --cc) or against each parent (-m) */
static int diff_merge(struct wg_buf *out, struct wg_repo *repo, const struct wg_oid *id,
		      const struct wg_commit *c, struct cli_diff_options *o, int how)
{
	struct wg_oid *trees = wg_calloc(c->nparents, sizeof(*trees));
	int err = 0;
	if (!trees)
		return cli_fatal("out of memory");
	for (size_t k = 0; k < c->nparents && !err; k++)
		err = wg_object_peel(&trees[k], repo, &c->parents[k], WG_OBJ_TREE);
	if (!err && how != 'm') {
		/* its id in any case, then the combined diff */
		if (!o->formats)
			o->formats = how == 'C' ? CLI_DIFF_PATCH : CLI_DIFF_RAW;
		if (!(err = wg_buf_printf(out, "%s\n", wg_oid_hex(id))))
			err = cli_diff_print_combined(out, repo, &c->tree, trees, c->nparents, o,
						      how == 'C', false, false);
	}
	for (size_t k = 0; how == 'm' && k < c->nparents && !err; k++) {
		struct wg_diff_changes changes = { 0 };
		unsigned formats = o->formats ? o->formats : CLI_DIFF_RAW;
		bool recursive = o->recursive ||
				 (formats & ~(CLI_DIFF_RAW | CLI_DIFF_NAME_ONLY | CLI_DIFF_NAME_STATUS |
					      CLI_DIFF_NO_OUTPUT));
		err = cli_diff_tree_changes(&changes, repo, &trees[k], &c->tree, o, false);
		if (!err && !recursive)
			collapse(&changes, repo, &trees[k], &c->tree);
		if (!err && changes.n && !(err = wg_buf_printf(out, "%s\n", wg_oid_hex(id))))
			err = cli_diff_print(out, repo, &changes, o, CLI_DIFF_RAW);
		wg_diff_changes_release(&changes);
	}
	wg_free(trees);
	if (err)
		return cli_fatal_core();
	return cli_write_stdout(out->data, out->len);
}

int cmd_diff_tree(int argc, char **argv)
{
	struct cli_diff_options o;
	struct wg_repo *repo = NULL;
	struct wg_diff_changes changes = { 0 };
	struct wg_commit commit = { 0 };
	struct wg_buf out = WG_BUF_INIT;
	const char *revs[2];
	struct wg_oid oids[2], trees[2], commit_id;
	int nrevs = 0, rc = 0, r;
	bool one_commit = false, have_old = true;
	int merges = 0;   /* 'm' (-m), 'c' (-c), 'C' (--cc), 0: none */

	cli_diff_options_init(&o);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			o.paths = argv + i + 1;
			o.npaths = argc - i - 1;
			break;
		}
		if (!strcmp(argv[i], "-m") || !strcmp(argv[i], "-c") || !strcmp(argv[i], "--cc")) {
			merges = argv[i][1] == 'm' ? 'm' : argv[i][1] == 'c' ? 'c' : 'C';
			continue;
		}
		if ((r = cli_diff_parse_option(&o, argc, argv, &i)) == 1)
			continue;
		if (r)
			return r;
		if (argv[i][0] == '-' || nrevs == 2) {
			if (nrevs == 2 && argv[i][0] != '-') {
				/* paths without "--" */
				o.paths = argv + i;
				o.npaths = argc - i;
				break;
			}
			return cli_usage(usage);
		}
		revs[nrevs++] = argv[i];
	}
	if (!nrevs)
		return cli_usage(usage);
	if ((r = cli_diff_options_done(&o)))
		return r;
	if ((rc = cli_open_repo(&repo)))
		return rc;
	for (int k = 0; k < nrevs; k++) {
		if (wg_revparse(&oids[k], repo, revs[k]) ||
		    wg_object_peel(&trees[k], repo, &oids[k], WG_OBJ_TREE)) {
			rc = cli_fatal("ambiguous argument '%s': unknown revision", revs[k]);
			goto out;
		}
	}
	if (nrevs == 1) {
		struct wg_buf raw = WG_BUF_INIT;
		enum wg_object_type type;
		one_commit = true;
		if (wg_object_peel(&commit_id, repo, &oids[0], WG_OBJ_COMMIT) ||
		    wg_odb_read(wg_repo_odb(repo), &commit_id, &type, &raw) ||
		    wg_commit_parse(&commit, wg_oid_algo(&commit_id), raw.data, raw.len)) {
			wg_buf_release(&raw);
			rc = cli_fatal_core();
			goto out;
		}
		wg_buf_release(&raw);
		trees[1] = commit.tree;
		if (commit.nparents > 1) {
			rc = merges ? diff_merge(&out, repo, &commit_id, &commit, &o, merges) : 0;
			goto out;      /* a merge: nothing without -m, -c or --cc */
		}
		if (commit.nparents == 1) {
			if (wg_object_peel(&trees[0], repo, &commit.parents[0], WG_OBJ_TREE)) {
				rc = cli_fatal_core();
				goto out;
			}
		} else if (!o.root) {
			goto out;
		} else {
			have_old = false;
		}
	}
	{
		unsigned formats = o.formats ? o.formats : CLI_DIFF_RAW;
		bool recursive = o.recursive ||
				 (formats & ~(CLI_DIFF_RAW | CLI_DIFF_NAME_ONLY | CLI_DIFF_NAME_STATUS |
					      CLI_DIFF_NO_OUTPUT));
		if (cli_diff_tree_changes(&changes, repo, have_old ? &trees[0] : NULL, &trees[1], &o,
					  false)) {
			rc = cli_fatal_core();
			goto out;
		}
		if (!recursive)
			collapse(&changes, repo, have_old ? &trees[0] : NULL, &trees[1]);
		if (!changes.n)
			goto out;
		if (one_commit)
			wg_buf_printf(&out, "%s\n", wg_oid_hex(&commit_id));
		if (cli_diff_print(&out, repo, &changes, &o, CLI_DIFF_RAW)) {
			rc = cli_fatal_core();
			goto out;
		}
		if ((rc = cli_write_stdout(out.data, out.len)))
			goto out;
	}
out:
	fflush(stdout);
	if (!rc)
		cli_diff_warn_rename_limit();
	wg_buf_release(&out);
	wg_diff_changes_release(&changes);
	wg_commit_release(&commit);
	wg_repo_free(repo);
	return rc;
}
