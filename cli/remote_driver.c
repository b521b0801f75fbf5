/* The native driver of the sans-IO remote operations: makes each request the
 * operation asks for with the blocking HTTP client and streams the
 * response body into it, and shows progress on a terminal (stderr). */
#include "remote_driver.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "http_client.h"
#include "util/error.h"

struct body_sink {
	struct wg_remote_op *op;
	int err;
};

static int on_body(void *payload, const void *data, size_t len)
{
	struct body_sink *s = payload;

	if ((s->err = wg_remote_op_feed(s->op, data, len)))
		return s->err;
	return 0;
}

int cli_remote_run(struct wg_remote_op *op, const char *url)
{
	struct http_client *client = NULL;
	const struct wg_http_request *req;
	int err;

	if ((err = http_client_new(&client, url)))
		return err;
	while (!(err = wg_remote_op_next_request(op, &req))) {
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
		if ((err = http_client_send(client, &hr, &resp)))
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
	return err == WG_ITEROVER ? 0 : err;
}

/* git's progress lines: "Receiving objects:  42% (420/1000), 1.20 MiB". */
void cli_remote_progress(const struct wg_remote_progress *p, void *payload)
{
	struct cli_progress *cp = payload;
	char bytes[64] = "";

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
