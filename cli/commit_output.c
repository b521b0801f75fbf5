/* Commits with their diffs (see commit_output.h). */
#include "commit_output.h"

#include "object/commit.h"
#include "object/object.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"

static int add_commit(struct wg_buf *out, struct wg_repo *repo, struct cli_commit_output *co,
		      const struct wg_oid *id, char mark, const struct wg_diff_changes *given,
		      bool paired)
{
	struct wg_commit c = { 0 };
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_diff_changes changes = { 0 };
	const struct cli_diff_options *o = &co->diff;
	enum wg_object_type type;
	struct wg_oid parent_tree;
	bool empty_format = co->pretty.kind == CLI_PRETTY_USER && !*co->pretty.format;
	int err;

	if ((err = wg_odb_read(wg_repo_odb(repo), id, &type, &raw)))
		goto out;
	if (type != WG_OBJ_COMMIT) {
		err = wg_error_set(WG_EINVALID, "%s is not a commit", wg_oid_hex(id));
		goto out;
	}
	if ((err = wg_commit_parse(&c, wg_oid_algo(id), raw.data, raw.len)))
		goto out;
	if (co->shown_one && !co->pretty.terminator)
		wg_buf_addch(out, '\n');
	co->shown_one = true;
	if ((err = cli_pretty_commit(out, repo, &co->pretty, id, &c, (const char *)raw.data,
				     raw.len, mark)))
		goto out;
	if (co->pretty.terminator && !empty_format)
		wg_buf_addch(out, '\n');
	if (!co->diff_asked || (o->formats & CLI_DIFF_NO_OUTPUT))
		goto out;
	if (given) {
		/* a copy: the caller's list stays as it is */
		for (size_t i = 0; i < given->n && !err; i++) {
			const struct wg_diff_change *g = &given->v[i];
			err = wg_diff_changes_add(&changes, g->status, g->path, g->old_mode, &g->old_oid,
						  g->new_mode, &g->new_oid);
			if (!err && g->from) {
				struct wg_diff_change *ch = &changes.v[changes.n - 1];
				ch->score = g->score;
				if (!(ch->from = wg_strdup(g->from)))
					err = wg_error_set(WG_ENOMEM, "out of memory");
			}
		}
		if (err || (!paired && (err = cli_diff_find_renames(&changes, repo, o, true))))
			goto out;
	} else if (c.nparents > 1) {
		/* git's combined diff prints its separator in any case */
		if (co->merge_separator && co->pretty.kind != CLI_PRETTY_ONELINE && !empty_format)
			wg_buf_addch(out, '\n');
	} else {
		if (c.nparents == 1 &&
		    (err = wg_object_peel(&parent_tree, repo, &c.parents[0], WG_OBJ_TREE)))
			goto out;
		if ((err = cli_diff_tree_changes(&changes, repo, c.nparents ? &parent_tree : NULL,
						 &c.tree, o, true)))
			goto out;
	}
	if (changes.n) {
		unsigned f = o->formats ? o->formats : CLI_DIFF_PATCH;
		if (co->pretty.kind != CLI_PRETTY_ONELINE && !empty_format) {
			if ((f & (CLI_DIFF_STAT | CLI_DIFF_PATCH)) == (CLI_DIFF_STAT | CLI_DIFF_PATCH))
				wg_buf_adds(out, "---");
			wg_buf_addch(out, '\n');
		}
		err = cli_diff_print(out, repo, &changes, o, CLI_DIFF_PATCH);
	}
out:
	wg_diff_changes_release(&changes);
	wg_commit_release(&c);
	wg_buf_release(&raw);
	return err;
}

int cli_commit_output_add(struct wg_buf *out, struct wg_repo *repo, struct cli_commit_output *co,
			  const struct wg_oid *id, char mark)
{
	return add_commit(out, repo, co, id, mark, NULL, false);
}

int cli_commit_output_add_diff(struct wg_buf *out, struct wg_repo *repo,
			       struct cli_commit_output *co, const struct wg_oid *id, char mark,
			       const struct wg_diff_changes *diff, bool paired)
{
	return add_commit(out, repo, co, id, mark, diff, paired);
}
