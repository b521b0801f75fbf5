/* Who makes a commit, as git's commit-tree and commit take it from the
 * environment and the config. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "object/ident.h"
#include "util/error.h"

int cli_ident(struct wg_buf *out, struct wg_repo *repo, const char *who)
{
	char var[32];
	const char *name, *email, *date;
	snprintf(var, sizeof(var), "GIT_%s_NAME", who);
	name = getenv(var);
	snprintf(var, sizeof(var), "GIT_%s_EMAIL", who);
	email = getenv(var);
	snprintf(var, sizeof(var), "GIT_%s_DATE", who);
	date = getenv(var);
	if (!name && wg_repo_config_get(repo, "user.name", &name))
		name = NULL;
	if (!email && wg_repo_config_get(repo, "user.email", &email))
		email = getenv("EMAIL");
	wg_error_clear();
	if (!name || !*name || !email)
		return cli_fatal("%s identity unknown: set user.name and user.email in the "
				 "config, or GIT_%s_NAME and GIT_%s_EMAIL",
				 who[0] == 'A' ? "Author" : "Committer", who, who);
	if (wg_ident_format(out, name, email, date))
		return cli_fatal_core();
	return 0;
}
