/* wildmatch_tool: for t22-wildmatch.sh, match each line of stdin,
 * "<mode>\t<text>\t<pattern>", and print 1 or 0. Modes are git's
 * test-tool names: wildmatch (pathname rules), iwildmatch (and without
 * case), pathmatch (no pathname rules), ipathmatch. */
#include <stdio.h>
#include <string.h>

#include "util/wildmatch.h"

int main(void)
{
	char line[8192];

	while (fgets(line, sizeof(line), stdin)) {
		char *text, *pattern;
		unsigned flags;
		line[strcspn(line, "\n")] = '\0';
		if (!(text = strchr(line, '\t')) || !(pattern = strchr(text + 1, '\t'))) {
			fprintf(stderr, "wildmatch_tool: bad line: %s\n", line);
			return 2;
		}
		*text++ = '\0';
		*pattern++ = '\0';
		if (!strcmp(line, "wildmatch"))
			flags = WG_WM_PATHNAME;
		else if (!strcmp(line, "iwildmatch"))
			flags = WG_WM_PATHNAME | WG_WM_CASEFOLD;
		else if (!strcmp(line, "pathmatch"))
			flags = 0;
		else if (!strcmp(line, "ipathmatch"))
			flags = WG_WM_CASEFOLD;
		else {
			fprintf(stderr, "wildmatch_tool: bad mode: %s\n", line);
			return 2;
		}
		printf("%d\n", wg_wildmatch(pattern, text, flags) ? 1 : 0);
	}
	return 0;
}
