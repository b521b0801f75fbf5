/* The current directory below the working tree, for commands that take
 * paths relative to where they run (git's setup prefix). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/buf.h"

int cli_cwd_prefix(struct wg_buf *out, const char *workdir)
{
	char *cwd = realpath(".", NULL), *top = realpath(workdir, NULL);
	size_t tl = top ? strlen(top) : 0;
	int err = 0;

	if (!cwd || !top)
		err = -1;
	else if (!strncmp(cwd, top, tl) && cwd[tl] == '/')
		err = wg_buf_printf(out, "%s/", cwd + tl + 1);
	free(cwd);
	free(top);
	return err;
}
