/* Running one credential helper (see helper.h): a child process through
 * "sh -c", as git's run_command() with use_shell runs it, the credential
 * on its standard input, its answer (for "get") on its standard output. */
#include "credential/helper.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/url.h"

/* More than any helper's answer; past it the helper is cut off. */
#define HELPER_MAX_ANSWER (1024 * 1024)

int cli_credential_helper_command(struct wg_buf *out, const char *spec, const char *action)
{
	int err;
	if (spec[0] == '!')
		err = wg_buf_adds(out, spec + 1);
	else if (spec[0] == '/')
		err = wg_buf_adds(out, spec);
	else
		err = wg_buf_printf(out, "git credential-%s", spec);
	if (!err)
		err = wg_buf_printf(out, " %s", action);
	return err ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

/* Write all of buf to fd; false if the helper stopped reading (it need
 * not read anything: git ignores that too). */
static bool write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Read the answer up to its blank line (git stops reading there), the
 * end of the stream, or the limit. */
static void read_answer(int fd, struct wg_buf *ans)
{
	char chunk[4096];
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || wg_buf_add(ans, chunk, (size_t)r))
			break;
		if (cli_credential_answer_complete((const char *)ans->data, ans->len) ||
		    ans->len > HELPER_MAX_ANSWER)
			break;
	}
	memset(chunk, 0, sizeof(chunk));
}

/* A pipe whose ends the child does not inherit past its dup2() (the
 * HTTP connection's socket is close-on-exec as well). */
static int cloexec_pipe(int fds[2])
{
	if (pipe(fds))
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

int cli_credential_helper_run(struct cli_credential *c, const char *spec, const char *action)
{
	struct wg_buf cmd = WG_BUF_INIT, in = WG_BUF_INIT, ans = WG_BUF_INIT;
	bool get = !strcmp(action, "get");
	int to_child[2] = { -1, -1 }, from_child[2] = { -1, -1 }, err, status;
	struct sigaction ign, old_pipe;
	pid_t pid;

	if ((err = cli_credential_helper_command(&cmd, spec, action)) ||
	    (err = cli_credential_write(c, &in, get ? CLI_CRED_OP_HELPER : CLI_CRED_OP_RESPONSE)))
		goto out;
	if (cloexec_pipe(to_child) || (get && cloexec_pipe(from_child))) {
		fprintf(stderr, "error: cannot run credential helper: %s\n", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "error: cannot run credential helper: %s\n", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		/* the child: stdin from us, stdout to us (or nowhere: git
		 * ignores what store and erase print), stderr ours */
		int devnull = get ? -1 : open("/dev/null", O_WRONLY);
		if (dup2(to_child[0], 0) < 0 ||
		    dup2(get ? from_child[1] : devnull, 1) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", wg_buf_cstr(&cmd), (char *)NULL);
		_exit(127);
	}
	close(to_child[0]);
	to_child[0] = -1;
	if (get) {
		close(from_child[1]);
		from_child[1] = -1;
	}
	/* a helper that does not read its input must not kill us */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);
	write_all(to_child[1], in.data, in.len);
	close(to_child[1]);
	to_child[1] = -1;
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (get) {
		read_answer(from_child[0], &ans);
		close(from_child[0]);
		from_child[0] = -1;
		err = cli_credential_read(c, (const char *)ans.data, ans.len, CLI_CRED_OP_HELPER);
		if (err == WG_ECORRUPT) {
			/* git warns and goes on with what was read */
			fprintf(stderr, "warning: %s\n", wg_error_message());
			wg_error_clear();
			err = 0;
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
out:
	for (int i = 0; i < 2; i++) {
		if (to_child[i] >= 0)
			close(to_child[i]);
		if (from_child[i] >= 0)
			close(from_child[i]);
	}
	wg_buf_release(&cmd);
	wg_url_release_secret(&in);
	wg_url_release_secret(&ans);
	return err;
}
