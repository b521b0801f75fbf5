/* The listing filters of git branch and git tag: --contains, --no-contains,
 * --merged and --no-merged, each with a commit (HEAD when the option is the
 * last argument). A ref is listed when its commit contains one of the
 * --contains commits (if any are given), none of the --no-contains ones,
 * is merged into (reachable from) one of the --merged ones (if any) and
 * into none of the --no-merged ones: ref-filter's rules. */
#ifndef WG_CLI_REACH_FILTER_H
#define WG_CLI_REACH_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "repo/repo.h"

enum cli_reach_kind { CLI_CONTAINS, CLI_NO_CONTAINS, CLI_MERGED, CLI_NO_MERGED };

struct cli_reach {
	enum cli_reach_kind kind;
	const char *spec;      /* as given */
	struct wg_oid commit;  /* once resolved */
};

struct cli_reach_filter {
	struct cli_reach *v;   /* in the order given */
	size_t n;
};

/* Room for as many filters as there are arguments; -1 out of memory. */
int cli_reach_init(struct cli_reach_filter *f, int argc);
void cli_reach_release(struct cli_reach_filter *f);

/* Take argv[*i] (and its value) if it is one of the four options. */
bool cli_reach_option(struct cli_reach_filter *f, int argc, char **argv, int *i);

/* The option git names when the filters are not allowed: "--contains"
 * if one was given, else "--no-contains", "--merged", "--no-merged". */
const char *cli_reach_first_option(const struct cli_reach_filter *f);

/* Resolve each commit, in order, as git does while parsing its options:
 * a name that resolves to nothing or to no commit ends the command with
 * git's messages; returns the exit code (0: all resolved). */
int cli_reach_resolve(struct cli_reach_filter *f, struct wg_repo *repo);

/* Does the filter keep a ref at `tip` (peeled to its commit; a ref whose
 * object is no commit is kept only by an empty filter)? */
bool cli_reach_keeps(const struct cli_reach_filter *f, struct wg_repo *repo,
		     const struct wg_oid *tip);

#endif
