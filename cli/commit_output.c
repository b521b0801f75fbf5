/* Commits with their diffs (see commit_output.h). */
#include "commit_output.h"

#include <string.h>

#include "cli.h"

#include "history/revwalk.h"
#include "object/commit.h"
#include "object/object.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"

/* The commit's header as its format prints it, with the separator from
 * the previous one; `from`: the parent of a separate diff (-m), which
 * git names after the id. */
static int add_header(struct wg_buf *out, struct wg_repo *repo, struct cli_commit_output *co,
		      const struct wg_oid *id, const struct wg_commit *c, const struct wg_buf *raw,
		      char mark, const struct wg_oid *from)
{
	struct cli_pretty p = co->pretty;
	bool empty_format = p.kind == CLI_PRETTY_USER && !*p.format;
	int err;
	if (co->shown_one && !p.terminator)
		wg_buf_addch(out, '\n');
	co->shown_one = true;
	p.from_parent = from;
	if ((err = cli_pretty_commit(out, repo, &p, id, c, (const char *)raw->data, raw->len, mark)))
		return err;
	if (p.terminator && !empty_format)
		wg_buf_addch(out, '\n');
	return 0;
}

/* A diff after its header: nothing when it is empty, else a blank line
 * ("---" when a stat and a patch follow) unless the format is oneline,
 * and the formats asked. */
static int add_changes(struct wg_buf *out, struct wg_repo *repo, struct cli_commit_output *co,
		       const struct wg_diff_changes *changes)
{
	const struct cli_diff_options *o = &co->diff;
	bool empty_format = co->pretty.kind == CLI_PRETTY_USER && !*co->pretty.format;
	unsigned f = o->formats ? o->formats : CLI_DIFF_PATCH;
	if (!changes->n || (f & CLI_DIFF_NO_OUTPUT))
		return 0;
	if (co->pretty.kind != CLI_PRETTY_ONELINE && !empty_format) {
		if ((f & (CLI_DIFF_STAT | CLI_DIFF_PATCH)) == (CLI_DIFF_STAT | CLI_DIFF_PATCH))
			wg_buf_adds(out, "---");
		wg_buf_addch(out, '\n');
	}
	return cli_diff_print(out, repo, changes, o, CLI_DIFF_PATCH);
}

/* git's separate diffs of a merge (-m): a header and a diff for each
 * parent it differs from, the header alone when it differs from none */
static int add_separate(struct wg_buf *out, struct wg_repo *repo, struct cli_commit_output *co,
			const struct wg_oid *id, const struct wg_commit *c, const struct wg_buf *raw,
			char mark)
{
	bool any = false;
	int err = 0;
	for (size_t k = 0; k < c->nparents && !err; k++) {
		struct wg_diff_changes changes = { 0 };
		struct wg_oid tree;
		if (!(err = wg_object_peel(&tree, repo, &c->parents[k], WG_OBJ_TREE)) &&
		    !(err = cli_diff_tree_changes(&changes, repo, &tree, &c->tree, &co->diff, true)) &&
		    changes.n) {
			any = true;
			if (!(err = add_header(out, repo, co, id, c, raw, mark, &c->parents[k])))
				err = add_changes(out, repo, co, &changes);
		}
		wg_diff_changes_release(&changes);
	}
	if (!err && !any)
		err = add_header(out, repo, co, id, c, raw, mark, NULL);
	return err;
}

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
	const struct wg_buf *kept;
	bool empty_format = co->pretty.kind == CLI_PRETTY_USER && !*co->pretty.format;
	bool merge, want;
	int err;

	if (!given && !co->diff_asked && !co->merges_need_diff &&
	    !cli_pretty_needs_commit(&co->pretty)) {
		/* ids only: the walk read the commit already */
		c.message = "";
		err = add_header(out, repo, co, id, &c, &raw, mark, NULL);
		c.message = NULL;
		goto out;
	}
	if ((kept = co->walk ? wg_revwalk_commit_bytes(co->walk, id) : NULL)) {
		/* the walk read it a moment ago */
		type = WG_OBJ_COMMIT;
		err = wg_buf_add(&raw, kept->data, kept->len);
	} else {
		err = wg_odb_read(wg_repo_odb(repo), id, &type, &raw);
	}
	if (err)
		goto out;
	if (type != WG_OBJ_COMMIT) {
		err = wg_error_set(WG_EINVALID, "%s is not a commit", wg_oid_hex(id));
		goto out;
	}
	if ((err = wg_commit_parse(&c, wg_oid_algo(id), raw.data, raw.len)))
		goto out;
	merge = c.nparents > 1 && !given;
	want = co->diff_asked || (merge && co->merges_need_diff);
	if (want && merge && co->merges == CLI_MERGES_SEPARATE) {
		err = add_separate(out, repo, co, id, &c, &raw, mark);
		goto out;
	}
	if ((err = add_header(out, repo, co, id, &c, &raw, mark, NULL)))
		goto out;
	if (!want || (o->formats & CLI_DIFF_NO_OUTPUT))
		goto out;
	if (merge && (co->merges == CLI_MERGES_COMBINED || co->merges == CLI_MERGES_DENSE)) {
		struct wg_oid *trees = wg_calloc(c.nparents, sizeof(*trees));
		if (!trees) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t k = 0; k < c.nparents && !err; k++)
			err = wg_object_peel(&trees[k], repo, &c.parents[k], WG_OBJ_TREE);
		/* git's combined diff prints its separator in any case,
		 * after a oneline too */
		if (!err && !empty_format)
			err = wg_buf_addch(out, '\n');
		if (!err)
			err = cli_diff_print_combined(out, repo, &c.tree, trees, c.nparents, o,
						      co->merges == CLI_MERGES_DENSE,
						      co->combined_all_paths, true);
		wg_free(trees);
		goto out;
	}
	if (merge && co->merges != CLI_MERGES_FIRST_PARENT)
		goto out;   /* none */
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
	} else {
		if (c.nparents >= 1 &&
		    (err = wg_object_peel(&parent_tree, repo, &c.parents[0], WG_OBJ_TREE)))
			goto out;
		if ((err = cli_diff_tree_changes(&changes, repo, c.nparents ? &parent_tree : NULL,
						 &c.tree, o, true)))
			goto out;
	}
	err = add_changes(out, repo, co, &changes);
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

int cli_commit_output_parse_merges(struct cli_commit_output *co, int argc, char **argv, int *i)
{
	const char *s = argv[*i], *v;
	int mode;
	bool need_diff = false, imply_patch = false;
	if (!strcmp(s, "-m")) {
		mode = CLI_MERGES_ON;
	} else if (!strcmp(s, "-c")) {
		mode = CLI_MERGES_COMBINED;
		imply_patch = true;
	} else if (!strcmp(s, "--cc")) {
		mode = CLI_MERGES_DENSE;
		imply_patch = true;
	} else if (!strcmp(s, "--dd")) {
		mode = CLI_MERGES_FIRST_PARENT;
		imply_patch = true;
	} else if (!strcmp(s, "--no-diff-merges")) {
		mode = CLI_MERGES_OFF;
	} else if (!strcmp(s, "--combined-all-paths")) {
		/* each mode above turns it off again, as git's */
		co->combined_all_paths = true;
		co->merges_explicit = true;
		return 1;
	} else if ((v = cli_option_value(argc, argv, i, "--diff-merges"))) {
		if ((mode = cli_diff_merges_parse(v)) < 0)
			return cli_fatal("invalid value for '--diff-merges': '%s'", v);
		need_diff = mode != CLI_MERGES_OFF;
	} else {
		return 0;
	}
	co->merges = mode;
	co->combined_all_paths = false;
	co->merges_need_diff = need_diff;
	co->merges_imply_patch = imply_patch;
	co->merges_explicit = true;
	return 1;
}

int cli_diff_merges_parse(const char *v)
{
	static const struct {
		const char *name;
		int mode;
	} names[] = {
		{ "off", CLI_MERGES_OFF }, { "none", CLI_MERGES_OFF },
		{ "1", CLI_MERGES_FIRST_PARENT }, { "first-parent", CLI_MERGES_FIRST_PARENT },
		{ "separate", CLI_MERGES_SEPARATE },
		{ "c", CLI_MERGES_COMBINED }, { "combined", CLI_MERGES_COMBINED },
		{ "cc", CLI_MERGES_DENSE }, { "dense-combined", CLI_MERGES_DENSE },
		{ "m", CLI_MERGES_ON }, { "on", CLI_MERGES_ON },
	};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(v, names[k].name))
			return names[k].mode;
	return -1;
}

int cli_commit_output_merges_done(struct cli_commit_output *co, struct wg_repo *repo,
				  bool is_show, bool first_parent)
{
	if (co->combined_all_paths && co->merges != CLI_MERGES_COMBINED &&
	    co->merges != CLI_MERGES_DENSE)
		return cli_fatal("--combined-all-paths makes no sense without -c or --cc");
	if (co->merges == CLI_MERGES_ON) {
		const char *v;
		int mode = CLI_MERGES_SEPARATE;
		if (!wg_repo_config_get(repo, "log.diffMerges", &v)) {
			if ((mode = cli_diff_merges_parse(v)) < 0)
				return cli_fatal("bad log.diffMerges value '%s'", v);
			if (mode == CLI_MERGES_ON)
				mode = CLI_MERGES_SEPARATE;
		}
		wg_error_clear();
		co->merges = mode;
	}
	if (first_parent) {
		if (!co->merges_explicit)
			co->merges = CLI_MERGES_SEPARATE;
		if (co->merges == CLI_MERGES_SEPARATE)
			co->merges = CLI_MERGES_FIRST_PARENT;
	} else if (is_show && !co->merges_explicit) {
		co->merges = CLI_MERGES_DENSE;
	}
	if (co->merges_imply_patch)
		co->diff_asked = true;
	return 0;
}
