/* The native driver of the sans-IO remote operations: makes each request the
 * operation asks for with the blocking HTTP client and streams the
 * response body into it, and shows progress on a terminal (stderr). */
#include "remote_driver.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "credential/helper.h"
#include "http_client.h"
#include "remote/promisor_fetch.h"
#include "util/error.h"

/* SIGINT/SIGTERM during a network operation: the transfer stops at the
 * next chance, the operation is freed (which undoes it: a clone removes
 * its directory), and the command exits with 128 + the signal.
 *
 * Once a signal has come, the handler stays: timeout(1) and a terminal
 * send it to the whole process group, so the same signal can arrive
 * twice, the second time while the first one's cleanup runs; the default
 * action then would kill the process half way through removing what the
 * operation made. */
static volatile sig_atomic_t interrupted;
static struct sigaction old_int, old_term;
static int catch_depth;

static void on_signal(int sig)
{
	interrupted = sig;
}

static int cancelled(void)
{
	return interrupted != 0;
}

int cli_remote_interrupted(void)
{
	return interrupted;
}

void cli_interrupt_catch(void)
{
	struct sigaction sa;

	if (catch_depth++)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: blocked calls return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
}

void cli_interrupt_release(void)
{
	if (--catch_depth || interrupted)
		return;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
}

struct body_sink {
	struct wg_remote_op *op;
	int err;
};

static int on_body(void *payload, const void *data, size_t len)
{
	struct body_sink *s = payload;

	if (interrupted)
		return s->err = wg_error_set(WG_EIO, "interrupted");
	if ((s->err = wg_remote_op_feed(s->op, data, len)))
		return s->err;
	return 0;
}

/* git's message for refused credentials names the repository's URL with
 * a '/' at its end. */
static int auth_failed(const char *url)
{
	size_t n = strlen(url);
	return wg_error_set(WG_EAUTH, "Authentication failed for '%s%s'", url,
			    n && url[n - 1] == '/' ? "" : "/");
}

int cli_remote_run(struct wg_remote_op *op, const char *url)
{
	return cli_remote_run_in(op, url, NULL, NULL);
}

int cli_remote_run_in(struct wg_remote_op *op, const char *url, struct wg_repo *repo,
		      const struct wg_config *extra)
{
	struct http_client *client = NULL;
	const struct wg_http_request *req;
	const struct wg_config *layers[4] = { NULL, NULL, NULL, extra };
	struct wg_config *user[2] = { NULL, NULL };
	struct cli_cred_source creds;
	bool first;
	int err;

	if (repo) {
		wg_repo_config_files(repo, layers);
	} else {
		wg_user_config_read(user);
		layers[0] = user[0];
		layers[1] = user[1];
	}
	err = cli_cred_source_init(&creds, url, layers, 4);
	if (!err && (err = http_client_new(&client, url)))
		client = NULL;
	if (err) {
		cli_cred_source_release(&creds);
		wg_config_free(user[0]);
		wg_config_free(user[1]);
		return err;
	}
	http_client_set_cancel(client, cancelled);
	http_client_set_credential_source(client, &creds.hooks);
	cli_interrupt_catch();
	for (first = true; !(err = wg_remote_op_next_request(op, &req)); first = false) {
		struct http_request hr = HTTP_REQUEST_INIT;
		const struct http_response *resp;
		struct body_sink sink = { op, 0 };

		hr.method = req->method;
		hr.url = req->url;
		hr.headers = req->headers;
		hr.nheaders = req->nheaders;
		hr.body = req->body;
		hr.body_len = req->body_len;
		/* git compresses request bodies above 1 KiB as well */
		hr.gzip_body = req->body_len > 1024;
		/* The discovery follows a repository moved to another host, as
		 * git's http.followRedirects=initial; later requests go there. */
		hr.follow_other_origins = first;
		if ((err = http_client_send(client, &hr, &resp))) {
			if (err == WG_EAUTH && http_client_auth_refused(client))
				err = auth_failed(url);
			break;
		}
		if (resp->redirects && (err = wg_remote_op_response_url(op, resp->url)))
			break;
		if ((err = wg_remote_op_response_begin(op, resp->status,
						       http_response_header(resp, "Content-Type"))))
			break;
		err = http_client_read_body(client, on_body, &sink);
		if (sink.err) {
			err = sink.err;
			break;
		}
		if (err || (err = wg_remote_op_response_end(op)))
			break;
	}
	http_client_free(client);
	cli_cred_source_release(&creds);
	wg_config_free(user[0]);
	wg_config_free(user[1]);
	cli_interrupt_release();
	if (interrupted && err != WG_ITEROVER)
		err = wg_error_set(WG_EIO, "interrupted by signal %d", (int)interrupted);
	return err == WG_ITEROVER ? 0 : err;
}

/* git's progress lines: "Receiving objects:  42% (420/1000), 1.20 MiB". */
void cli_remote_progress(const struct wg_remote_progress *p, void *payload)
{
	struct cli_progress *cp = payload;
	char bytes[64] = "";

	if (p->warning && p->line) {
		/* git prints these with or without -q. */
		fprintf(stderr, "warning: %s\n", p->line);
		return;
	}
	if (p->notice && p->line) {
		/* ... and these without -q, terminal or not */
		if (!cp || !cp->silent)
			fprintf(stderr, "warning: %s\n", p->line);
		return;
	}
	if (!cp || cp->quiet)
		return;
	if (p->remote && p->line) {
		fprintf(stderr, "remote: %s%s", p->line, p->finished ? "\n" : "\r");
		return;
	}
	if (p->bytes) {
		double b = (double)p->bytes;
		if (b >= 1 << 30)
			snprintf(bytes, sizeof(bytes), ", %.2f GiB", b / (1 << 30));
		else if (b >= 1 << 20)
			snprintf(bytes, sizeof(bytes), ", %.2f MiB", b / (1 << 20));
		else
			snprintf(bytes, sizeof(bytes), ", %.2f KiB", b / 1024);
	}
	if (p->total)
		fprintf(stderr, "%s: %3u%% (%llu/%llu)%s%s%s", p->phase,
			(unsigned)(p->done * 100 / p->total), (unsigned long long)p->done,
			(unsigned long long)p->total, bytes, p->finished ? ", done." : "",
			p->finished ? "\n" : "\r");
	else
		fprintf(stderr, "%s: %llu%s%s%s", p->phase, (unsigned long long)p->done, bytes,
			p->finished ? ", done." : "", p->finished ? "\n" : "\r");
}

bool cli_progress_default(void)
{
	return isatty(2);
}

static int lazy_fetch(struct wg_odb *odb, const struct wg_oid *oid, void *payload)
{
	struct wg_repo *repo = payload;
	struct wg_remote_op *op = NULL;
	int err;

	(void)odb;
	if (!(err = wg_promisor_fetch_new(&op, repo, oid, 1)))
		err = cli_remote_run_in(op, wg_promisor_fetch_url(op), repo, NULL);
	wg_remote_op_free(op);
	if (err)
		return wg_error_prefix("could not fetch %s from the promisor remote",
				       wg_oid_hex(oid));
	return 0;
}

void cli_install_lazy_fetch(struct wg_repo *repo)
{
	if (wg_repo_promisor_remote(repo, NULL))
		wg_odb_set_missing_handler(wg_repo_odb(repo), lazy_fetch, repo);
}

int cli_prefetch(struct wg_repo *repo, const struct wg_oid *oids, size_t n)
{
	struct wg_remote_op *op = NULL;
	int err;

	if (!n || !wg_repo_promisor_remote(repo, NULL))
		return 0;
	if (!(err = wg_promisor_fetch_new(&op, repo, oids, n)))
		err = cli_remote_run_in(op, wg_promisor_fetch_url(op), repo, NULL);
	wg_remote_op_free(op);
	if (err)
		return wg_error_prefix("could not fetch %zu objects from the promisor remote", n);
	return 0;
}
