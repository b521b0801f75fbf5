/* webgit show: commits in git show's default (medium) format, each with
 * its diff against its parent (a patch by default, or the formats of
 * cli/diff_output.h; "---" before a stat that a patch follows, as git).
 * A merge shows its header only (and the blank line git's combined diff
 * starts with): the combined diff itself (--cc) is not done here; for a
 * merge without conflict resolutions it is empty in git too.
 * Other objects than commits are refused. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff_output.h"
#include "diff/abbrev_len.h"
#include "object/commit.h"
#include "object/ident.h"
#include "repo/revparse.h"
#include "util/date.h"
#include "util/error.h"

static const char usage[] = "webgit show [<diff options>] [<commit>...] [--] [<path>...]";

static int add_ident(struct wg_buf *out, const char *label, const char *value)
{
	struct wg_ident id;
	if (!value || wg_ident_parse(&id, value, strlen(value)))
		return 0;
	wg_buf_printf(out, "%s: %.*s <%.*s>\n", label, (int)id.name_len, id.name,
		      (int)id.email_len, id.email);
	if (!strcmp(label, "Author")) {
		wg_buf_adds(out, "Date:   ");
		wg_date_format_normal(out, id.timestamp, id.tz_offset);
		wg_buf_addch(out, '\n');
	}
	return 0;
}

/* the message, each line indented by four columns and its tabs expanded
 * to stops of 8 as git log does; leading blank lines dropped */
static void add_message(struct wg_buf *out, const char *msg, size_t len)
{
	const char *p = msg, *end = msg + len;
	bool first = true;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		bool blank = true;
		for (const char *q = p; q < le; q++)
			if (*q != ' ' && *q != '\t' && *q != '\r')
				blank = false;
		if (!(blank && first)) {
			size_t col = 0;
			first = false;
			wg_buf_adds(out, "    ");
			for (const char *q = p; q < le; q++) {
				if (*q == '\t') {
					do
						wg_buf_addch(out, ' ');
					while (++col % 8);
				} else {
					wg_buf_addch(out, *q);
					if (((unsigned char)*q & 0xc0) != 0x80)
						col++;
				}
			}
			wg_buf_addch(out, '\n');
		}
		p = nl ? nl + 1 : end;
	}
}

static int show_commit(struct wg_buf *out, struct wg_repo *repo, const struct wg_oid *id,
		       const struct cli_diff_options *o)
{
	struct wg_commit c = { 0 };
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_diff_changes changes = { 0 };
	enum wg_object_type type;
	struct wg_oid parent_tree;
	int err;

	if ((err = wg_odb_read(wg_repo_odb(repo), id, &type, &raw)) ||
	    (err = wg_commit_parse(&c, wg_oid_algo(id), raw.data, raw.len)))
		goto out;
	wg_buf_printf(out, "commit %s\n", wg_oid_hex(id));
	if (c.nparents > 1) {
		int len = wg_default_abbrev_len(repo);
		wg_buf_adds(out, "Merge:");
		for (size_t k = 0; k < c.nparents; k++) {
			char ab[WG_MAX_HEXSZ + 1];
			wg_diff_abbrev(ab, wg_repo_odb(repo), &c.parents[k], len);
			wg_buf_printf(out, " %s", ab);
		}
		wg_buf_addch(out, '\n');
	}
	add_ident(out, "Author", c.author);
	wg_buf_addch(out, '\n');
	add_message(out, c.message, c.message_len);
	if (c.nparents > 1) {
		/* git's combined diff prints its separator in any case */
		if (!(o->formats & CLI_DIFF_NO_OUTPUT))
			wg_buf_addch(out, '\n');
		goto out;
	}
	if (c.nparents == 1 &&
	    (err = wg_object_peel(&parent_tree, repo, &c.parents[0], WG_OBJ_TREE)))
		goto out;
	if ((err = cli_diff_tree_changes(&changes, repo, c.nparents ? &parent_tree : NULL, &c.tree,
					 o, true)))
		goto out;
	if (changes.n && !(o->formats & CLI_DIFF_NO_OUTPUT)) {
		unsigned f = o->formats ? o->formats : CLI_DIFF_PATCH;
		if ((f & (CLI_DIFF_STAT | CLI_DIFF_PATCH)) == (CLI_DIFF_STAT | CLI_DIFF_PATCH))
			wg_buf_adds(out, "---");
		wg_buf_addch(out, '\n');
		err = cli_diff_print(out, repo, &changes, o, CLI_DIFF_PATCH);
	}
out:
	wg_diff_changes_release(&changes);
	wg_commit_release(&c);
	wg_buf_release(&raw);
	return err;
}

int cmd_show(int argc, char **argv)
{
	struct cli_diff_options o;
	struct wg_repo *repo = NULL;
	struct wg_buf out = WG_BUF_INIT;
	const char **revs = NULL;
	int nrevs = 0, rc = 0, r;

	cli_diff_options_init(&o);
	o.raw_abbrev = -1;   /* porcelain: abbreviated ids in --raw */
	o.ui_config = true;   /* porcelain: diff.algorithm applies */
	revs = (const char **)calloc((size_t)argc + 1, sizeof(*revs));
	if (!revs)
		return cli_fatal("out of memory");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			o.paths = argv + i + 1;
			o.npaths = argc - i - 1;
			break;
		}
		if ((r = cli_diff_parse_option(&o, argc, argv, &i)) == 1)
			continue;
		if (r) {
			free(revs);
			return r;
		}
		if (argv[i][0] == '-') {
			free(revs);
			return cli_usage(usage);
		}
		revs[nrevs++] = argv[i];
	}
	if (!nrevs)
		revs[nrevs++] = "HEAD";
	if ((rc = cli_open_repo(&repo)))
		goto out;
	for (int k = 0; k < nrevs; k++) {
		struct wg_oid oid, commit;
		if (wg_revparse(&oid, repo, revs[k])) {
			rc = cli_fatal("ambiguous argument '%s': unknown revision or path not in the "
				       "working tree.", revs[k]);
			goto out;
		}
		if (wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT)) {
			rc = cli_fatal("webgit show shows commits only: '%s' is not one", revs[k]);
			goto out;
		}
		if (k)
			wg_buf_addch(&out, '\n');
		if (show_commit(&out, repo, &commit, &o)) {
			rc = cli_fatal_core();
			goto out;
		}
		if ((rc = cli_write_stdout(out.data, out.len)))
			goto out;
		wg_buf_reset(&out);
	}
out:
	fflush(stdout);
	free(revs);
	wg_buf_release(&out);
	wg_repo_free(repo);
	return rc;
}
