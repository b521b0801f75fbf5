/* One commit as log and show print it: its pretty format (cli/pretty.h),
 * then its diff against its first parent in the diff formats asked for,
 * with git's glue between them (log-tree.c): the terminator of oneline
 * and tformat formats, a blank line ("---" when both a stat and a patch
 * follow) before a diff unless the format is oneline, and nothing at all
 * when the diff is empty. Merges get no diff (git log without -m/--cc);
 * show's merges get the blank line its combined diff starts with. */
#ifndef WG_CLI_COMMIT_OUTPUT_H
#define WG_CLI_COMMIT_OUTPUT_H

#include <stdbool.h>

#include "diff_output.h"
#include "pretty.h"

struct cli_commit_output {
	struct cli_pretty pretty;
	struct cli_diff_options diff;
	bool diff_asked;            /* a diff format was given (show: always) */
	bool merge_separator;       /* show: a merge's combined-diff line */
	bool shown_one;             /* a commit was printed (separators) */
};

/* Append the commit id; mark is '<', '>' (--left-right) or 0. */
int cli_commit_output_add(struct wg_buf *out, struct wg_repo *repo, struct cli_commit_output *co,
			  const struct wg_oid *id, char mark);
/* The same with the diff already made (log --follow's, merges too: git
 * --first-parent shows theirs); renames are paired in it as co->diff
 * asks unless `paired` (the follow search found its pair). */
int cli_commit_output_add_diff(struct wg_buf *out, struct wg_repo *repo,
			       struct cli_commit_output *co, const struct wg_oid *id, char mark,
			       const struct wg_diff_changes *diff, bool paired);

#endif
