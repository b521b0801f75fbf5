/* The native HTTP client's response parser (cli/http/response.c): the
 * first byte picks the request kind (HEAD, CONNECT) and whether the
 * connection closes after the input; the rest is the response. It is
 * parsed in one piece and in input-derived pieces, and both runs must agree
 * on every event, head field, body byte, trailer, the bytes left after the
 * message and, on failure, the error code and message. Small limits in one
 * run of each pair let the fuzzer reach them. */
#include "fuzz.h"

#include "http/response.h"
#include "util/buf.h"
#include "util/error.h"

static void trace_head(struct wg_buf *t, const char *kind, const struct http_head *h)
{
	FUZZ_ASSERT(h->status >= 100 && h->status <= 999);
	FUZZ_ASSERT(h->version == 10 || h->version == 11);
	FUZZ_ASSERT(h->reason != NULL);
	wg_buf_printf(t, "%s%d/%d[%s]", kind, h->status, h->version, h->reason);
	for (size_t i = 0; i < h->nheaders; i++) {
		FUZZ_ASSERT(h->headers[i].name[0] != '\0');
		wg_buf_printf(t, "|%s=%s", h->headers[i].name, h->headers[i].value);
	}
	wg_buf_addch(t, ';');
}

/* Parse; the trace goes to *t. Returns the final code. */
static int run(const uint8_t *data, size_t size, unsigned flags, bool close, uint64_t seed,
	       const struct http_parser_limits *lim, struct wg_buf *t)
{
	struct http_parser *p;
	struct fz_chunks ch;
	struct wg_buf body = WG_BUF_INIT;
	const uint8_t *chunk;
	size_t n, left = 0;
	int rc = 0;
	bool ended = false;

	if (http_parser_new(&p, flags, "http://fuzz", lim))
		return WG_ENOMEM;
	fz_chunks_init(&ch, data, size, seed);
	while (!rc && !ended && (chunk = fz_chunks_next(&ch, &n))) {
		const unsigned char *in = chunk;
		size_t in_len = n;
		for (;;) {
			struct http_event ev;
			rc = http_parser_feed(p, &in, &in_len, &ev);
			if (rc == WG_ENEEDMORE) {
				FUZZ_ASSERT(in_len == 0);
				rc = 0;
				break;
			}
			if (rc < 0)
				break;
			FUZZ_ASSERT(in_len <= n && in >= chunk && in <= chunk + n);
			if (rc == HTTP_EVENT_BODY) {
				FUZZ_ASSERT(ev.len > 0 && ev.data >= chunk && ev.data + ev.len <= chunk + n);
				wg_buf_add(&body, ev.data, ev.len);
				continue;
			}
			if (body.len) {
				wg_buf_printf(t, "B%zu:", body.len);
				wg_buf_add(t, body.data, body.len);
				wg_buf_reset(&body);
			}
			if (rc == HTTP_EVENT_END) {
				ended = true;
				left = in_len;
				/* it stays ended, consuming nothing */
				FUZZ_ASSERT(http_parser_feed(p, &in, &in_len, &ev) == HTTP_EVENT_END);
				FUZZ_ASSERT(in_len == left);
				rc = 0;
				break;
			}
			trace_head(t, rc == HTTP_EVENT_HEAD ? "H" : "I", http_parser_head(p));
			if (rc == HTTP_EVENT_HEAD)
				wg_buf_printf(t, "f%dk%d;", (int)http_parser_framing(p),
					      http_parser_keep_alive(p));
		}
	}
	if (!rc && !ended && close) {
		struct http_event ev;
		rc = http_parser_eof(p, &ev);
		if (rc == HTTP_EVENT_END) {
			ended = true;
			rc = 0;
		} else if (rc == 0) {
			FUZZ_ASSERT(!http_parser_started(p));
			wg_buf_adds(t, "NORESPONSE;");
		}
	}
	if (body.len) {
		wg_buf_printf(t, "B%zu:", body.len);
		wg_buf_add(t, body.data, body.len);
	}
	/* what was not consumed: the rest of this chunk and every later one */
	while (ended && fz_chunks_next(&ch, &n))
		left += n;
	fz_chunks_release(&ch);
	if (ended) {
		const struct http_head *tr = http_parser_trailers(p);
		wg_buf_adds(t, "END");
		for (size_t i = 0; i < tr->nheaders; i++)
			wg_buf_printf(t, "|%s=%s", tr->headers[i].name, tr->headers[i].value);
		wg_buf_printf(t, ";rest=%zu", left);
	}
	if (rc < 0) {
		FUZZ_ASSERT(rc != WG_ENEEDMORE && wg_error_message()[0] != '\0');
		wg_buf_printf(t, "ERR%d:%s", rc, wg_error_message());
	}
	http_parser_free(p);
	wg_buf_release(&body);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct http_parser_limits small = { 256, 64, 8, 16, 64 };
	struct wg_buf whole = WG_BUF_INIT, pieces = WG_BUF_INIT;
	uint64_t seed;
	unsigned flags;
	bool close;
	uint8_t *copy;

	if (size < 1)
		return 0;
	flags = data[0] & (HTTP_PARSE_HEAD | HTTP_PARSE_CONNECT);
	close = data[0] & 4;
	const struct http_parser_limits *lim = (data[0] & 8) ? &small : NULL;
	copy = fz_dup(data + 1, size - 1);
	seed = fz_hash(data, size);
	/* mode 0 of fz_chunks is "whole": force it for the reference run */
	run(copy, size - 1, flags, close, 4, lim, &whole);
	run(copy, size - 1, flags, close, seed, lim, &pieces);
	if (whole.len != pieces.len || (whole.len && memcmp(whole.data, pieces.data, whole.len))) {
		/* say how they differ before failing */
		fprintf(stderr, "whole:  %s\npieces: %s\n", wg_buf_cstr(&whole),
			wg_buf_cstr(&pieces));
		FUZZ_ASSERT(0);
	}
	wg_buf_release(&whole);
	wg_buf_release(&pieces);
	free(copy);
	return 0;
}
