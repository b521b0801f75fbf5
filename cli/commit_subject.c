/* A commit named in a message: its short id and its subject, as git's
 * "HEAD is now at <abbrev> <subject>" lines show it. */
#include <string.h>

#include "cli.h"
#include "object/commit.h"
#include "util/error.h"

int cli_commit_subject(struct wg_buf *out, struct wg_repo *repo, const struct wg_oid *oid)
{
	struct wg_buf data = WG_BUF_INIT;
	struct wg_commit c;
	enum wg_object_type type;
	const char *p;
	size_t start = out->len;
	int err;

	if ((err = wg_odb_read(wg_repo_odb(repo), oid, &type, &data)))
		return err;
	if ((err = wg_commit_parse(&c, wg_repo_algo(repo), data.data, data.len))) {
		wg_buf_release(&data);
		return err;
	}
	p = c.message;
	while (*p == '\n')
		p++;
	while (*p && !err) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), n = len;
		/* git's is_blank_line: trailing whitespace does not count */
		while (n && strchr(" \t\r", p[n - 1]))
			n--;
		if (!n)
			break;
		/* lines join with a space; what out held before is not ours */
		if (out->len > start)
			err = wg_buf_addch(out, ' ');
		if (!err)
			err = wg_buf_add(out, p, n);
		p += len + (nl ? 1 : 0);
	}
	wg_commit_release(&c);
	wg_buf_release(&data);
	return err;
}

void cli_describe_commit(FILE *f, struct wg_repo *repo, const char *msg, const struct wg_oid *oid)
{
	struct wg_buf s = WG_BUF_INIT;
	char ab[WG_MAX_HEXSZ + 1];
	cli_abbrev(ab, repo, oid);
	cli_commit_subject(&s, repo, oid);
	wg_error_clear();
	fprintf(f, "%s %s %s\n", msg, ab, wg_buf_cstr(&s));
	wg_buf_release(&s);
}
