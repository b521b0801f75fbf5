/* A commit message from the command line, as git commit takes it: each -m
 * a paragraph, -F a file ("-": standard input). webgit commit, reword and
 * split share these, so that their messages never differ in form. */
#include <string.h>

#include "cli.h"
#include "util/error.h"
#include "util/fs.h"

int cli_message_add_paragraph(struct wg_buf *msg, const char *text)
{
	/* builtin/commit.c's opt_parse_m: a blank line between paragraphs,
	 * each ending with a newline */
	if ((msg->len && wg_buf_addch(msg, '\n')) || wg_buf_adds(msg, text) ||
	    (msg->len && msg->data[msg->len - 1] != '\n' && wg_buf_addch(msg, '\n')))
		return cli_fatal("out of memory");
	return 0;
}

int cli_message_read_file(struct wg_buf *msg, const char *file)
{
	struct wg_buf f = WG_BUF_INIT;
	int err = !strcmp(file, "-") ? cli_read_stream(stdin, &f) : wg_fs_read_file(&f, file);
	if (err) {
		wg_buf_release(&f);
		/* git names only the system's reason: the end of ours */
		const char *why = strrchr(wg_error_message(), ':');
		return cli_fatal("could not read log file '%s': %s", file,
				 why ? why + 2 : wg_error_message());
	}
	wg_buf_release(msg);
	*msg = f;
	return 0;
}
