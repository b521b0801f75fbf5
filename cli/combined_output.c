/* A merge's combined diff as show and log print it (diff_output.h): git's
 * diff_tree_combined. The paths are those that differ from every parent
 * (each parent's diff with renames as configured, intersected by the
 * result's path); a stat, numstat, shortstat or summary is the first
 * parent's diff; raw, name-only and name-status list the paths with a
 * column per parent; the patch is each path's combined hunks
 * (diff/combined.h) under git's "diff --cc" header. */
#include <string.h>

#include "diff_output.h"
#include "diff/abbrev_len.h"
#include "diff/combined.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/quote.h"

/* One path of the combined diff: the change from each parent */
struct combined_path {
	const struct wg_diff_change **from;   /* np entries */
};

static int add_quoted_with(struct wg_buf *out, const char *prefix, const char *path)
{
	struct wg_buf whole = WG_BUF_INIT;
	int err = wg_buf_adds(&whole, prefix);
	if (!err && !(err = wg_buf_adds(&whole, path)))
		err = wg_quote_c_style(out, wg_buf_cstr(&whole), whole.len);
	wg_buf_release(&whole);
	return err;
}

static void abbrev(char *hex, struct wg_repo *repo, unsigned mode, const struct wg_oid *oid,
		   int len)
{
	struct wg_oid null;
	if (!mode) {
		wg_oid_null(&null, wg_repo_algo(repo));
		oid = &null;
	}
	wg_diff_abbrev(hex, len ? wg_repo_odb(repo) : NULL, oid, len);
}

/* git's show_raw_diff: "::<modes> <ids> <statuses>\t<path>" */
static int print_raw(struct wg_buf *out, struct wg_repo *repo, const struct combined_path *p,
		     size_t np, const struct cli_diff_options *o, unsigned formats, bool all_paths)
{
	const struct wg_diff_change *r = p->from[0];
	char hex[WG_MAX_HEXSZ + 1];
	int len = o->raw_abbrev < 0 ? wg_default_abbrev_len(repo) : o->raw_abbrev;
	int err = 0;
	if (formats & CLI_DIFF_RAW) {
		for (size_t n = 0; n < np && !err; n++)
			err = wg_buf_addch(out, ':');
		for (size_t n = 0; n < np && !err; n++)
			err = wg_buf_printf(out, "%06o ", p->from[n]->old_mode);
		if (!err)
			err = wg_buf_printf(out, "%06o", r->new_mode);
		for (size_t n = 0; n < np && !err; n++) {
			abbrev(hex, repo, p->from[n]->old_mode, &p->from[n]->old_oid, len);
			err = wg_buf_printf(out, " %s", hex);
		}
		abbrev(hex, repo, r->new_mode, &r->new_oid, len);
		if (!err)
			err = wg_buf_printf(out, " %s ", hex);
	}
	if (!err && (formats & (CLI_DIFF_RAW | CLI_DIFF_NAME_STATUS))) {
		for (size_t n = 0; n < np && !err; n++)
			err = wg_buf_addch(out, p->from[n]->status);
		if (!err)
			err = wg_buf_addch(out, '\t');
	}
	for (size_t n = 0; all_paths && n < np && !err; n++) {
		const char *path = p->from[n]->from ? p->from[n]->from : p->from[n]->path;
		if (!(err = wg_quote_c_style(out, path, strlen(path))))
			err = wg_buf_addch(out, '\t');
	}
	if (!err && !(err = wg_quote_c_style(out, r->path, strlen(r->path))))
		err = wg_buf_addch(out, '\n');
	return err;
}

/* git's show_combined_header; *added and *deleted as it decides them */
static int print_header(struct wg_buf *out, struct wg_repo *repo, const struct combined_path *p,
			size_t np, bool dense, bool all_paths, bool mode_differs, bool file_header)
{
	const struct wg_diff_change *r = p->from[0];
	char hex[WG_MAX_HEXSZ + 1];
	int len = wg_default_abbrev_len(repo);
	bool added = false, deleted = false;
	int err = wg_buf_adds(out, dense ? "diff --cc " : "diff --combined ");
	if (!err && !(err = wg_quote_c_style(out, r->path, strlen(r->path))))
		err = wg_buf_adds(out, "\nindex ");
	for (size_t n = 0; n < np && !err; n++) {
		abbrev(hex, repo, p->from[n]->old_mode, &p->from[n]->old_oid, len);
		err = wg_buf_printf(out, "%s%s", n ? "," : "", hex);
	}
	abbrev(hex, repo, r->new_mode, &r->new_oid, len);
	if (!err)
		err = wg_buf_printf(out, "..%s\n", hex);
	if (!err && mode_differs) {
		deleted = !r->new_mode;
		added = !deleted;
		for (size_t n = 0; n < np; n++)
			if (p->from[n]->status != 'A')
				added = false;
		if (added) {
			err = wg_buf_printf(out, "new file mode %06o", r->new_mode);
		} else {
			err = wg_buf_adds(out, deleted ? "deleted file mode " : "mode ");
			for (size_t n = 0; n < np && !err; n++)
				err = wg_buf_printf(out, "%s%06o", n ? "," : "", p->from[n]->old_mode);
			if (!err && r->new_mode)
				err = wg_buf_printf(out, "..%06o", r->new_mode);
		}
		if (!err)
			err = wg_buf_addch(out, '\n');
	}
	if (err || !file_header)
		return err;
	for (size_t n = 0; all_paths && n < np && !err; n++) {
		const char *path = p->from[n]->from ? p->from[n]->from : p->from[n]->path;
		if (!(err = wg_buf_adds(out, "--- ")) &&
		    !(err = p->from[n]->status == 'A' ? wg_buf_adds(out, "/dev/null")
						      : add_quoted_with(out, "a/", path)))
			err = wg_buf_addch(out, '\n');
	}
	if (err || (!all_paths &&
		    ((err = wg_buf_adds(out, "--- ")) ||
		     (err = added ? wg_buf_adds(out, "/dev/null") : add_quoted_with(out, "a/", r->path)) ||
		     (err = wg_buf_addch(out, '\n')))))
		return err;
	if ((err = wg_buf_adds(out, "+++ ")) ||
	    (err = deleted ? wg_buf_adds(out, "/dev/null") : add_quoted_with(out, "b/", r->path)))
		return err;
	return wg_buf_addch(out, '\n');
}

/* git's show_patch_diff for a path of a commit */
static int print_patch(struct wg_buf *out, struct wg_repo *repo, const struct combined_path *p,
		       size_t np, const struct cli_diff_options *o, bool dense, bool all_paths)
{
	const struct wg_diff_change *r = p->from[0];
	struct wg_buf result = WG_BUF_INIT, hunks = WG_BUF_INIT, *pb;
	struct wg_combined_blob res, *pv = NULL;
	struct wg_combined_options co = WG_COMBINED_OPTIONS_INIT;
	bool mode_differs = false, binary, shown = false;
	int err;

	if (!(pb = wg_calloc(np, sizeof(*pb))) || !(pv = wg_calloc(np, sizeof(*pv)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	if ((err = cli_diff_side_bytes(&result, repo, r->new_mode, &r->new_oid)))
		goto out;
	binary = wg_diff_is_binary(result.data, result.len);
	for (size_t n = 0; n < np && !err; n++) {
		const struct wg_diff_change *c = p->from[n];
		mode_differs = mode_differs || c->old_mode != r->new_mode;
		if (!(err = cli_diff_side_bytes(&pb[n], repo, c->old_mode, &c->old_oid))) {
			pv[n].data = (const char *)pb[n].data;
			pv[n].len = pb[n].len;
			binary = binary || wg_diff_is_binary(pb[n].data, pb[n].len);
		}
	}
	if (err)
		goto out;
	if (binary) {
		if (!(err = print_header(out, repo, p, np, dense, all_paths, mode_differs, false)))
			err = wg_buf_adds(out, "Binary files differ\n");
		goto out;
	}
	res.data = (const char *)result.data;
	res.len = result.len;
	co.context = o->context;
	co.dense = dense;
	if ((err = cli_diff_line_options(repo, o, &co.lines)) ||
	    (err = wg_combined_hunks(&hunks, &shown, &res, pv, np, &co)))
		goto out;
	if ((shown || mode_differs) &&
	    !(err = print_header(out, repo, p, np, dense, all_paths, mode_differs, true)))
		err = wg_buf_add(out, hunks.data, hunks.len);
out:
	for (size_t n = 0; pb && n < np; n++)
		wg_buf_release(&pb[n]);
	wg_free(pb);
	wg_free(pv);
	wg_buf_release(&result);
	wg_buf_release(&hunks);
	return err;
}

int cli_diff_print_combined(struct wg_buf *out, struct wg_repo *repo, const struct wg_oid *tree,
			    const struct wg_oid *parent_trees, size_t np,
			    const struct cli_diff_options *o, bool dense, bool all_paths,
			    bool rename_default)
{
	const unsigned stats = CLI_DIFF_STAT | CLI_DIFF_NUMSTAT | CLI_DIFF_SHORTSTAT |
			       CLI_DIFF_SUMMARY;
	unsigned formats = o->formats ? o->formats : CLI_DIFF_PATCH;
	struct wg_diff_changes *ch;
	struct combined_path *paths = NULL;
	const struct wg_diff_change **cells = NULL;
	size_t npaths = 0;
	bool sep = false;
	int err = 0;

	if (formats & CLI_DIFF_NO_OUTPUT)
		return 0;
	if (!np || np > WG_COMBINED_MAX_PARENTS)
		return wg_error_set(WG_EUNSUPPORTED, "a combined diff of %zu parents", np);
	if (!(ch = wg_calloc(np, sizeof(*ch))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t n = 0; n < np && !err; n++)
		err = cli_diff_tree_changes(&ch[n], repo, &parent_trees[n], tree, o,
					    rename_default);
	if (err)
		goto out;
	/* a stat and its kin: against the first parent */
	if (formats & stats) {
		struct cli_diff_options first = *o;
		first.formats = formats & stats;
		if ((err = cli_diff_print(out, repo, &ch[0], &first, first.formats)))
			goto out;
	}
	/* the paths every parent's diff has, in its order */
	if (!(paths = wg_calloc(ch[0].n + 1, sizeof(*paths))) ||
	    !(cells = wg_calloc((ch[0].n + 1) * np, sizeof(*cells)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < ch[0].n; k++) {
		paths[npaths].from = cells + npaths * np;
		paths[npaths++].from[0] = &ch[0].v[k];
	}
	for (size_t n = 1; n < np; n++) {
		size_t w = 0, q = 0;
		for (size_t k = 0; k < npaths; k++) {
			int cmp = -1;
			while (q < ch[n].n &&
			       (cmp = strcmp(paths[k].from[0]->path, ch[n].v[q].path)) > 0)
				q++;
			if (q >= ch[n].n || cmp < 0)
				continue;   /* the same as parent n: not shown */
			/* keep the row's cells with it */
			if (w != k)
				memmove(cells + w * np, paths[k].from, np * sizeof(*cells));
			paths[w].from = cells + w * np;
			paths[w++].from[n] = &ch[n].v[q++];
		}
		npaths = w;
	}
	if (npaths && (formats & (CLI_DIFF_RAW | CLI_DIFF_NAME_ONLY | CLI_DIFF_NAME_STATUS))) {
		for (size_t k = 0; k < npaths && !err; k++)
			err = print_raw(out, repo, &paths[k], np, o, formats, all_paths);
		sep = true;
	} else if (npaths && (formats & stats)) {
		sep = true;
	}
	if (!err && npaths && (formats & CLI_DIFF_PATCH)) {
		if (sep)
			err = wg_buf_addch(out, '\n');
		for (size_t k = 0; k < npaths && !err; k++)
			err = print_patch(out, repo, &paths[k], np, o, dense, all_paths);
	}
out:
	for (size_t n = 0; n < np; n++)
		wg_diff_changes_release(&ch[n]);
	wg_free(ch);
	wg_free(paths);
	wg_free(cells);
	return err;
}
