/* What log and rev-list share: the walk options, the revisions and the
 * paths of their command lines, read as git's setup_revisions reads
 * them, and the walk they make (core/history/revwalk.h). */
#ifndef WG_CLI_REV_OPTIONS_H
#define WG_CLI_REV_OPTIONS_H

#include <stdbool.h>

#include "history/revwalk.h"
#include "repo/repo.h"
#include "util/pathspec.h"

struct cli_rev_options {
	struct wg_revwalk_options walk;
	bool left_right;              /* --left-right */
	const char **revs;            /* as given, "--not" and "--all" included */
	int nrevs;
	char **paths;                 /* after "--", or args that are no revision */
	int npaths;
	bool dashdash;                /* "--" was given */
	struct wg_pathspec pathspec;
	struct wg_oidmap shallow;     /* the repository's cut-off commits */
	/* log.follow: --follow when the paths come to exactly one (git's
	 * default_follow_renames); --follow itself is walk.follow */
	bool follow_one_path;
};

void cli_rev_options_init(struct cli_rev_options *r, int argc);
void cli_rev_options_release(struct cli_rev_options *r);
/* Take argv[*i] if it is a walk option or "--" (which takes the rest as
 * paths): 1 taken, 0 not one, or an exit code (> 1) after a message. */
int cli_rev_options_parse(struct cli_rev_options *r, int argc, char **argv, int *i);
/* A revision argument (anything else not starting with '-'). */
void cli_rev_options_add_rev(struct cli_rev_options *r, const char *arg);
/* Build the walk: the revisions (HEAD when there are none), the paths as
 * a pathspec from the current directory. Args that name no revision but
 * an existing file are paths, as git's; others are git's "ambiguous
 * argument" error. Returns 0 or an exit code after a message. */
int cli_rev_options_walk(struct cli_rev_options *r, struct wg_repo *repo,
			 struct wg_revwalk **out);

#endif
