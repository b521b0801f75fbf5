/* The output of diff, diff-tree and show: a list of changes (diff/tree_diff.h)
 * printed in the formats git prints, in git's order (raw, name-only or
 * name-status, then numstat, stat, shortstat, then the patch after a blank
 * line), with the options these commands share. */
#ifndef WG_CLI_DIFF_OUTPUT_H
#define WG_CLI_DIFF_OUTPUT_H

#include <stdbool.h>

#include "diff/patch.h"
#include "diff/tree_diff.h"
#include "repo/repo.h"
#include "util/buf.h"
#include "util/pathspec.h"

enum {
	CLI_DIFF_PATCH = 1 << 0,
	CLI_DIFF_STAT = 1 << 1,
	CLI_DIFF_NUMSTAT = 1 << 2,
	CLI_DIFF_SHORTSTAT = 1 << 3,
	CLI_DIFF_NAME_ONLY = 1 << 4,
	CLI_DIFF_NAME_STATUS = 1 << 5,
	CLI_DIFF_RAW = 1 << 6,
	CLI_DIFF_NO_OUTPUT = 1 << 7,   /* -s */
	CLI_DIFF_SUMMARY = 1 << 8,
};

struct cli_diff_options {
	unsigned formats;          /* 0: the command's default */
	long context, inter_hunk;
	/* the last -M (1) or --no-renames (0); -1: the command's default
	 * (diff.renames for the porcelain commands) */
	int renames;
	int copies;                /* -C given since: one is -C, two -C -C */
	bool copies_harder;        /* --find-copies-harder */
	int rename_score;          /* 0: 50% */
	bool recursive;            /* -r (diff-tree) */
	bool root;                 /* --root (diff-tree) */
	int raw_abbrev;            /* digits of ids in --raw; 0 full, -1 git's default */
	int stat_width;            /* total columns for --stat (0: COLUMNS or 80) */
	int algorithm;             /* enum wg_diff_algorithm; -1: diff.algorithm or myers */
	int indent_heuristic;      /* -1: diff.indentHeuristic or on, 0 off, 1 on */
	unsigned whitespace;       /* WG_DIFF_IGNORE_* of diff/line_diff.h */
	bool ui_config;            /* diff.algorithm applies (diff, show, log; not diff-tree) */
	char **paths;              /* after "--": prefixes that limit the diff */
	int npaths;
	/* git's pathspec (globs too) instead of the prefixes, when set */
	const struct wg_pathspec *pathspec;
};

void cli_diff_options_init(struct cli_diff_options *o);
/* Take argv[*i] if it is a shared diff option: 1 taken (advancing *i when a
 * value followed), 0 not one, or the exit code of an error (> 1). */
int cli_diff_parse_option(struct cli_diff_options *o, int argc, char **argv, int *i);
/* After the last option, as git's diff_setup_done: --name-only,
 * --name-status and -s exclude one another (128 with git's message),
 * and each drops the other formats (--name-status -p shows no patch). */
int cli_diff_options_done(struct cli_diff_options *o);

/* Whether path is within the paths (all paths when there are none). */
bool cli_diff_path_matches(const struct cli_diff_options *o, const char *path);

/* The changes between two trees (NULL: empty), limited to the paths, with
 * renames as asked (rename_default when o->renames is -1). */
int cli_diff_tree_changes(struct wg_diff_changes *out, struct wg_repo *repo,
			  const struct wg_oid *old_tree, const struct wg_oid *new_tree,
			  const struct cli_diff_options *o, bool rename_default);
/* Pair deletions with additions among changes already listed (copies
 * too when asked). */
int cli_diff_find_renames(struct wg_diff_changes *c, struct wg_repo *repo,
			  const struct cli_diff_options *o, bool rename_default);
/* git's diff_warn_rename_limit at the end of a command: when a diff of
 * this process skipped renames (or -C -C's unmodified sources) for
 * diff.renameLimit, the warnings on stderr. */
void cli_diff_warn_rename_limit(void);

/* Print the changes in o's formats (default_formats when none was
 * asked) to out. Returns 0 or a core error. */
int cli_diff_print(struct wg_buf *out, struct wg_repo *repo, const struct wg_diff_changes *c,
		   const struct cli_diff_options *o, unsigned default_formats);

/* The line diff's options for o: the command line's, else the config's
 * (diff.algorithm for the porcelain commands, diff.indentHeuristic),
 * else git's defaults. */
int cli_diff_line_options(struct wg_repo *repo, const struct cli_diff_options *o,
			  struct wg_line_diff_options *out);

/* A merge's combined diff (cli/combined_output.c): the tree of the merge
 * against its parents' trees, in o's formats (a patch when none), dense
 * (--cc) or not (-c), as git's diff_tree_combined prints it; all_paths
 * (--combined-all-paths): each parent's path too (a rename's source) in
 * the raw and name formats and a "--- a/<path>" line per parent.
 * Renames as cli_diff_tree_changes finds them with rename_default. */
int cli_diff_print_combined(struct wg_buf *out, struct wg_repo *repo, const struct wg_oid *tree,
			    const struct wg_oid *parent_trees, size_t np,
			    const struct cli_diff_options *o, bool dense, bool all_paths,
			    bool rename_default);

/* The bytes a diff compares for one side: the blob, for a submodule the
 * line git shows ("Subproject commit <hex>\n"), nothing when absent
 * (mode 0). */
int cli_diff_side_bytes(struct wg_buf *out, struct wg_repo *repo, unsigned mode,
			const struct wg_oid *oid);

#endif
