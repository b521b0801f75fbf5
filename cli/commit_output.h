/* One commit as log and show print it: its pretty format (cli/pretty.h),
 * then its diff against its first parent in the diff formats asked for,
 * with git's glue between them (log-tree.c): the terminator of oneline
 * and tformat formats, a blank line ("---" when both a stat and a patch
 * follow) before a diff unless the format is oneline, and nothing at all
 * when the diff is empty. A merge gets the diff its --diff-merges mode
 * asks (git's diff-merges.c): none (log's default), its first parent's
 * (log --first-parent's default), or the combined diff
 * (cli/combined_output.c: show's default --cc, and -c). The separate
 * diffs against each parent (-m) are not done: such a merge gets none. */
#ifndef WG_CLI_COMMIT_OUTPUT_H
#define WG_CLI_COMMIT_OUTPUT_H

#include <stdbool.h>

#include "diff_output.h"
#include "pretty.h"

enum cli_diff_merges {
	CLI_MERGES_OFF = 0,
	CLI_MERGES_FIRST_PARENT,
	CLI_MERGES_SEPARATE,
	CLI_MERGES_COMBINED,
	CLI_MERGES_DENSE,
	CLI_MERGES_ON,           /* -m or "on": log.diffMerges, else separate */
};

struct cli_commit_output {
	struct cli_pretty pretty;
	struct cli_diff_options diff;
	bool diff_asked;            /* a diff format was given (show: always) */
	int merges;                 /* enum cli_diff_merges */
	bool merges_explicit;       /* a diff-merges option was given */
	bool merges_need_diff;      /* --diff-merges=<mode>: merges get a diff without -p */
	bool merges_imply_patch;    /* -c, --cc: every commit gets a patch */
	bool combined_all_paths;    /* --combined-all-paths: each parent's path too */
	bool shown_one;             /* a commit was printed (separators) */
	/* the walk that yields the commits (log), whose bytes of a commit it
	 * read lately are taken instead of reading it again; NULL: none */
	const struct wg_revwalk *walk;
};

struct wg_revwalk;

/* Append the commit id; mark is '<', '>' (--left-right) or 0. */
int cli_commit_output_add(struct wg_buf *out, struct wg_repo *repo, struct cli_commit_output *co,
			  const struct wg_oid *id, char mark);
/* The same with the diff already made (log --follow's, merges too: git
 * --first-parent shows theirs); renames are paired in it as co->diff
 * asks unless `paired` (the follow search found its pair). */
int cli_commit_output_add_diff(struct wg_buf *out, struct wg_repo *repo,
			       struct cli_commit_output *co, const struct wg_oid *id, char mark,
			       const struct wg_diff_changes *diff, bool paired);

/* Take argv[*i] if it is one of git's diff-merges options (-m, -c, --cc,
 * --dd, --no-diff-merges, --diff-merges=<mode>, --combined-all-paths): 1 taken, 0 not one, or
 * an exit code (> 1) after a message. */
int cli_commit_output_parse_merges(struct cli_commit_output *co, int argc, char **argv, int *i);
/* A --diff-merges mode's name (git's, "on" and "m" too): its enum
 * cli_diff_merges, or -1. */
int cli_diff_merges_parse(const char *v);
/* After the options, as git's setup: the mode of -m from log.diffMerges
 * (or separate), then the default when none was given (show: --cc; with
 * --first-parent: the first parent's diff, -m's too). Returns 0 or an exit
 * code after a message. */
int cli_commit_output_merges_done(struct cli_commit_output *co, struct wg_repo *repo,
				  bool is_show, bool first_parent);

#endif
