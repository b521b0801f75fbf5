/* How log and show print a commit: git's pretty formats (medium, the
 * default; oneline, short, full, fuller, raw) and user formats
 * (--format / --pretty=format: / tformat:) with the placeholders editors
 * and scripts use: %H %h %T %t %P %p, %an %ae %al %ad %aD %at %ai %aI %as
 * (and %c... for the committer), %s %f %b %B %e %n %m %% %xNN, with
 * git's %+x / %-x / "% x" modifiers. Not here: %d/%D decorations,
 * relative dates, colours, padding and wrapping (refused, not ignored). */
#ifndef WG_CLI_PRETTY_H
#define WG_CLI_PRETTY_H

#include <stdbool.h>

#include "hash/oid.h"
#include "object/commit.h"
#include "repo/repo.h"
#include "util/buf.h"
#include "util/date.h"

enum cli_pretty_kind {
	CLI_PRETTY_MEDIUM = 0,
	CLI_PRETTY_ONELINE,
	CLI_PRETTY_SHORT,
	CLI_PRETTY_FULL,
	CLI_PRETTY_FULLER,
	CLI_PRETTY_RAW,
	CLI_PRETTY_USER,
};

struct cli_pretty {
	enum cli_pretty_kind kind;
	const char *format;        /* CLI_PRETTY_USER */
	bool terminator;           /* each entry ends with a newline (oneline,
				    * tformat) instead of a blank line between */
	bool abbrev_commit;        /* --abbrev-commit, --oneline */
	enum wg_date_mode date_mode;
	/* a merge's separate diff against this parent (-m): git's
	 * " (from <parent>)" after the id; NULL: none */
	const struct wg_oid *from_parent;
};

/* Take argv[*i] if it is a format option (--pretty[=x], --format=x,
 * --oneline, --abbrev-commit, --no-abbrev-commit, --date=x): 1 taken, 0
 * not one, or an exit code (> 1) after a message. */
int cli_pretty_parse_option(struct cli_pretty *p, int argc, char **argv, int *i);

/* Whether the commit's contents are needed to print it as p says: not
 * for a user format of ids and literal text only (--format=%H, what
 * scripts list commits with), so that log need not read each commit a
 * second time after the walk did. */
bool cli_pretty_needs_commit(const struct cli_pretty *p);

/* Append the commit `id` (parsed as c) as p says, without the separator
 * between commits (the caller's). left_right: '<', '>' or 0 (for %m). */
int cli_pretty_commit(struct wg_buf *out, struct wg_repo *repo, const struct cli_pretty *p,
		      const struct wg_oid *id, const struct wg_commit *c, const char *raw,
		      size_t rawlen, char left_right);

#endif
