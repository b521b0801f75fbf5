/* http_fetch: a small driver over cli/http_client.h for the interop test
 * t11-http-client.sh.
 *
 *   http_fetch [options] URL...
 *
 * performs one request per URL, in order, on ONE client (opened for the
 * first URL's origin, so later URLs exercise keep-alive), writes each
 * response body to stdout and reports on stderr:
 *
 *   status <code>                      for every response
 *   redirects <n> <final-url>          when redirects were followed
 *   header <name>: <value>|(none)      for each --show-header
 *   connections <n> reused <n> retries <n>   at the end
 *   http_fetch: error: <message> (<code name>)   on failure (exit 1)
 *
 * Options (they apply to every URL):
 *   --method M          request method
 *   --header "N: V"     extra request header (repeatable)
 *   --data-file F       request body from file F
 *   --stream            send the body from a streaming source (chunked)
 *   --no-rewind         ... whose source cannot be rewound
 *   --gzip              gzip the request body
 *   --show-header NAME  print a response header (case-insensitive lookup)
 *   --abort-after N     stop each body after N bytes (callback abort)
 *   --fail              exit 22 if a status is 400 or more (as curl -f) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_client.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

struct file_source {
	FILE *f;
	const char *path;
};

static int source_read(void *payload, void *buf, size_t cap, size_t *out_len)
{
	struct file_source *s = payload;
	/* Hand out small pieces so the body goes out as many chunks. */
	size_t n = fread(buf, 1, cap > 1000 ? 1000 : cap, s->f);
	if (!n && ferror(s->f))
		return wg_error_set(WG_EIO, "error reading %s", s->path);
	*out_len = n;
	return 0;
}

static int source_rewind(void *payload)
{
	struct file_source *s = payload;
	if (fseek(s->f, 0, SEEK_SET))
		return wg_error_set(WG_EIO, "cannot rewind %s", s->path);
	return 0;
}

struct sink {
	size_t seen;
	long abort_after;  /* -1: never */
};

static int write_body(void *payload, const void *data, size_t len)
{
	struct sink *s = payload;
	if (s->abort_after >= 0 && s->seen + len > (size_t)s->abort_after) {
		size_t part = (size_t)s->abort_after - s->seen;
		fwrite(data, 1, part, stdout);
		s->seen += part;
		return 1;
	}
	s->seen += len;
	if (fwrite(data, 1, len, stdout) != len)
		return wg_error_set(WG_EIO, "write error on stdout");
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: http_fetch [--method M] [--header H]... [--data-file F] "
		"[--stream] [--no-rewind] [--gzip] [--show-header NAME]... [--abort-after N] "
		"[--fail] URL...\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char **headers = wg_calloc((size_t)argc, sizeof(*headers));
	const char **show = wg_calloc((size_t)argc, sizeof(*show));
	const char **urls = wg_calloc((size_t)argc, sizeof(*urls));
	size_t nheaders = 0, nshow = 0, nurls = 0, i, j;
	const char *method = NULL, *data_file = NULL;
	bool stream = false, gzip = false, fail = false, rewindable = true;
	long abort_after = -1;
	struct wg_buf body = WG_BUF_INIT;
	struct http_client *client = NULL;
	struct http_body_source src;
	struct file_source fs = { NULL, NULL };
	struct http_client_stats st;
	int rc = 0, status = 0, arg;

	if (!headers || !show || !urls)
		return 1;
	for (arg = 1; arg < argc; arg++) {
		const char *a = argv[arg];
		bool has_val = arg + 1 < argc;
		if (!strcmp(a, "--method") && has_val)
			method = argv[++arg];
		else if (!strcmp(a, "--header") && has_val)
			headers[nheaders++] = argv[++arg];
		else if (!strcmp(a, "--data-file") && has_val)
			data_file = argv[++arg];
		else if (!strcmp(a, "--show-header") && has_val)
			show[nshow++] = argv[++arg];
		else if (!strcmp(a, "--abort-after") && has_val)
			abort_after = atol(argv[++arg]);
		else if (!strcmp(a, "--stream"))
			stream = true;
		else if (!strcmp(a, "--no-rewind"))
			rewindable = false;
		else if (!strcmp(a, "--gzip"))
			gzip = true;
		else if (!strcmp(a, "--fail"))
			fail = true;
		else if (a[0] == '-' && a[1] == '-')
			return usage();
		else
			urls[nurls++] = a;
	}
	if (!nurls)
		return usage();

	if (data_file) {
		fs.path = data_file;
		fs.f = fopen(data_file, "rb");
		if (!fs.f) {
			fprintf(stderr, "http_fetch: cannot open %s\n", data_file);
			return 1;
		}
		if (!stream) {
			char tmp[65536];
			size_t n;
			while ((n = fread(tmp, 1, sizeof(tmp), fs.f)) > 0)
				if (wg_buf_add(&body, tmp, n))
					return 1;
		}
		src.read = source_read;
		src.rewind = rewindable ? source_rewind : NULL;
		src.payload = &fs;
	}

	rc = http_client_new(&client, urls[0]);
	for (i = 0; !rc && i < nurls; i++) {
		struct http_request req = HTTP_REQUEST_INIT;
		const struct http_response *resp = NULL;
		struct sink sink = { 0, abort_after };

		req.method = method;
		req.url = urls[i];
		req.headers = headers;
		req.nheaders = nheaders;
		req.gzip_body = gzip;
		if (data_file && stream) {
			if (i && (rc = source_rewind(&fs)))
				break;
			req.body_source = &src;
		} else if (data_file) {
			/* an empty file is still a body: a non-NULL pointer */
			req.body = body.data ? (const void *)body.data : (const void *)"";
			req.body_len = body.len;
		}
		rc = http_client_send(client, &req, &resp);
		if (resp) {
			fprintf(stderr, "status %d\n", resp->status);
			if (resp->redirects)
				fprintf(stderr, "redirects %u %s\n", resp->redirects, resp->url);
			for (j = 0; j < nshow; j++) {
				const char *v = http_response_header(resp, show[j]);
				fprintf(stderr, "header %s: %s\n", show[j], v ? v : "(none)");
			}
			if (resp->status >= 400 && !status)
				status = resp->status;
		}
		if (!rc)
			rc = http_client_read_body(client, write_body, &sink);
		fflush(stdout);
	}
	if (client) {
		http_client_get_stats(client, &st);
		fprintf(stderr, "connections %u reused %u retries %u\n", st.connects, st.reused,
			st.retries);
	}
	if (rc)
		fprintf(stderr, "http_fetch: error: %s (%s)\n", wg_error_message(), wg_error_name(rc));
	http_client_free(client);
	if (fs.f)
		fclose(fs.f);
	wg_buf_release(&body);
	wg_free(headers);
	wg_free(show);
	wg_free(urls);
	if (rc)
		return 1;
	return fail && status ? 22 : 0;
}
