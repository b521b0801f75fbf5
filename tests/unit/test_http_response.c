/* Unit tests for the native HTTP client's sans-IO response parser
 * (cli/http/response.h): every response is fed whole, byte by byte and
 * split in two at every offset, and each run must tell the same story —
 * the same events, heads, body bytes, trailers, leftover bytes, and on
 * malformed input the same error code and message. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "http/response.h"
#include "test.h"
#include "util/buf.h"

/* Feed `in` to a fresh parser: split == SIZE_MAX byte by byte, else two
 * chunks cut at `split`. Each chunk is a private copy freed right after
 * use, so a body event or a head still pointing into it would be caught by
 * ASan. With `close`, the connection ends after the last byte. The trace
 * records events, heads and body bytes (consecutive body events merged:
 * their boundaries depend on the chunking, their bytes must not). */
static int run(const char *in, size_t len, size_t split, unsigned flags,
	       const struct http_parser_limits *lim, bool close, struct wg_buf *trace,
	       char *msg, size_t msgsz)
{
	struct http_parser *p;
	struct wg_buf body = WG_BUF_INIT;
	size_t pos = 0, left_over = 0;
	int rc = 0;
	bool ended = false;

	msg[0] = '\0';
	if (http_parser_new(&p, flags, "http://test", lim))
		return WG_ENOMEM;
	while (pos < len && !rc && !ended) {
		size_t n = split == SIZE_MAX ? 1 : (pos < split ? split - pos : len - pos);
		unsigned char *chunk = malloc(n);
		const unsigned char *c = chunk;
		size_t cl = n;
		memcpy(chunk, in + pos, n);
		pos += n;
		for (;;) {
			struct http_event ev;
			rc = http_parser_feed(p, &c, &cl, &ev);
			if (rc == WG_ENEEDMORE) {
				CHECK(cl == 0);
				rc = 0;
				break;
			}
			if (rc < 0)
				break;
			if (rc == HTTP_EVENT_BODY) {
				/* handed out in place, never copied */
				CHECK(ev.data >= chunk && ev.data + ev.len <= chunk + n && ev.len > 0);
				wg_buf_add(&body, ev.data, ev.len);
				continue;
			}
			if (body.len) {
				wg_buf_printf(trace, "B[%s]", wg_buf_cstr(&body));
				wg_buf_reset(&body);
			}
			if (rc == HTTP_EVENT_END) {
				ended = true;
				left_over = cl;
				rc = 0;
				break;
			}
			{
				const struct http_head *h = http_parser_head(p);
				size_t i;
				wg_buf_printf(trace, "%s%d/%d[%s]", rc == HTTP_EVENT_HEAD ? "H" : "I",
					      h->status, h->version, h->reason);
				for (i = 0; i < h->nheaders; i++)
					wg_buf_printf(trace, " %s=%s", h->headers[i].name, h->headers[i].value);
				if (rc == HTTP_EVENT_HEAD)
					wg_buf_printf(trace, " framing=%d keep=%d;",
						      (int)http_parser_framing(p), http_parser_keep_alive(p));
				else
					wg_buf_adds(trace, ";");
			}
		}
		free(chunk);
	}
	if (!rc && !ended && close) {
		struct http_event ev;
		rc = http_parser_eof(p, &ev);
		if (rc == HTTP_EVENT_END)
			ended = true, rc = 0;
		else if (rc == 0)
			wg_buf_adds(trace, "NORESPONSE"), ended = true;
	}
	if (body.len)
		wg_buf_printf(trace, "B[%s]", wg_buf_cstr(&body));
	if (ended && !strcmp(wg_buf_cstr(trace), "NORESPONSE")) {
		/* nothing to add */
	} else if (ended) {
		const struct http_head *t = http_parser_trailers(p);
		size_t i;
		wg_buf_adds(trace, "END");
		for (i = 0; i < t->nheaders; i++)
			wg_buf_printf(trace, " T:%s=%s", t->headers[i].name, t->headers[i].value);
		wg_buf_printf(trace, " rest=%zu", left_over + (len - pos));
	} else if (!rc) {
		wg_buf_adds(trace, "MORE");
	}
	if (rc < 0) {
		snprintf(msg, msgsz, "%s", wg_error_message());
		/* sticky: the next call says the same */
		{
			struct http_event ev;
			const unsigned char *z = (const unsigned char *)"x";
			size_t zl = 1;
			CHECK(http_parser_feed(p, &z, &zl, &ev) == rc);
			CHECK_STR(wg_error_message(), msg);
		}
	}
	wg_buf_release(&body);
	http_parser_free(p);
	return rc;
}

static void check_splits_lim(const char *in, unsigned flags, const struct http_parser_limits *lim,
			     bool close, int want_rc, const char *want_trace, const char *want_msg)
{
	size_t len = strlen(in), split;
	struct wg_buf whole = WG_BUF_INIT, trace = WG_BUF_INIT;
	char whole_msg[512], msg[512];
	int rc = run(in, len, len, flags, lim, close, &whole, whole_msg, sizeof(whole_msg));

	CHECK(rc == want_rc);
	if (rc != want_rc)
		fprintf(stderr, "  input %.40s...: rc %d (%s), message: %s\n", in, rc,
			wg_error_name(rc), whole_msg);
	if (want_trace)
		CHECK_STR(wg_buf_cstr(&whole), want_trace);
	if (want_msg) {
		CHECK(strstr(whole_msg, want_msg) != NULL);
		if (!strstr(whole_msg, want_msg))
			fprintf(stderr, "  message was: %s\n", whole_msg);
	}
	for (split = 0; split <= len + 1; split++) {
		size_t s = split == len + 1 ? SIZE_MAX : split;
		wg_buf_reset(&trace);
		rc = run(in, len, s, flags, lim, close, &trace, msg, sizeof(msg));
		CHECK(rc == want_rc);
		CHECK_STR(wg_buf_cstr(&trace), wg_buf_cstr(&whole));
		CHECK_STR(msg, whole_msg);
	}
	wg_buf_release(&whole);
	wg_buf_release(&trace);
}

static void check_splits(const char *in, unsigned flags, bool close, int want_rc,
			 const char *want_trace, const char *want_msg)
{
	check_splits_lim(in, flags, NULL, close, want_rc, want_trace, want_msg);
}

/* --- well-formed responses ------------------------------------------------------ */

static void test_content_length(void)
{
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Name:  mock \r\n\r\nhello", 0, false,
		     0, "H200/11[OK] Content-Length=5 X-Name=mock framing=1 keep=1;B[hello]END rest=0",
		     NULL);
	/* the next response pipelined behind it is left alone */
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 204 No Content\r\n\r\n",
		     0, false, 0, "H200/11[OK] Content-Length=2 framing=1 keep=1;B[ok]END rest=27",
		     NULL);
	/* bare LF line endings, an empty reason, an obs-folded value */
	check_splits("HTTP/1.1 404\nContent-Length: 3\nX-Long: a\n  b\n\t c\n\nnot", 0, false, 0,
		     "H404/11[] Content-Length=3 X-Long=a b c framing=1 keep=1;B[not]END rest=0",
		     NULL);
	/* Content-Length: 0 and equal duplicates */
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 0\r\ncontent-length: 0\r\n\r\n", 0, false,
		     0, "H200/11[OK] Content-Length=0 content-length=0 framing=0 keep=1;END rest=0",
		     NULL);
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbye!", 0,
		     false, 0, "H200/11[OK] Content-Length=4 Connection=close framing=1 keep=0;"
		     "B[bye!]END rest=0", NULL);
}

static void test_chunked(void)
{
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		     "5;name=value\r\nhello\r\n7 ; a=\"b;c\"\r\n, world\r\n1\t\r\n!\r\n"
		     "0;last\r\nX-Checksum: abc\r\nX-More: 1\r\n  2\r\n\r\nnext", 0, false, 0,
		     "H200/11[OK] Transfer-Encoding=chunked framing=2 keep=1;B[hello, world!]END "
		     "T:X-Checksum=abc T:X-More=1 2 rest=4", NULL);
	/* upper-case hex, an empty body, a list of codings */
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n"
		     "A\r\n0123456789\r\n0\r\n\r\n", 0, false, 0,
		     "H200/11[OK] Transfer-Encoding=Chunked framing=2 keep=1;B[0123456789]END rest=0",
		     NULL);
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 0, false, 0,
		     "H200/11[OK] Transfer-Encoding=chunked framing=2 keep=1;END rest=0", NULL);
	/* with a Content-Length too: chunked wins, the connection is not reused */
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n"
		     "2\r\nab\r\n0\r\n\r\n", 0, false, 0, "H200/11[OK] Content-Length=100 "
		     "Transfer-Encoding=chunked framing=2 keep=0;B[ab]END rest=0", NULL);
}

static void test_close_delimited(void)
{
	check_splits("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end", 0, true,
		     0, "H200/11[OK] Content-Type=text/plain framing=3 keep=0;B[until the end]END "
		     "rest=0", NULL);
	check_splits("HTTP/1.0 200 OK\r\n\r\nold", 0, true, 0,
		     "H200/10[OK] framing=3 keep=0;B[old]END rest=0", NULL);
	/* still open: more may come */
	check_splits("HTTP/1.1 200 OK\r\n\r\nso far", 0, false, 0,
		     "H200/11[OK] framing=3 keep=0;B[so far]MORE", NULL);
	check_splits("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", 0,
		     false, 0, "H200/10[OK] Connection=keep-alive Content-Length=2 framing=1 keep=1;"
		     "B[ok]END rest=0", NULL);
}

static void test_interim(void)
{
	check_splits("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s>\r\n\r\n"
		     "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, false, 0,
		     "I100/11[Continue];I103/11[Early Hints] Link=</s>;"
		     "H200/11[OK] Content-Length=2 framing=1 keep=1;B[ok]END rest=0", NULL);
}

static void test_no_body(void)
{
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", HTTP_PARSE_HEAD, false, 0,
		     "H200/11[OK] Content-Length=100 framing=0 keep=1;END rest=0", NULL);
	check_splits("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\nHTTP/1.1", 0, false, 0,
		     "H204/11[No Content] Content-Length=9 framing=0 keep=1;END rest=8", NULL);
	check_splits("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", 0, false,
		     0, "H304/11[Not Modified] Transfer-Encoding=chunked framing=0 keep=1;END rest=0",
		     NULL);
	/* CONNECT: a 2xx starts the tunnel at once, what follows is not ours */
	check_splits("HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01", HTTP_PARSE_CONNECT,
		     false, 0, "H200/11[Connection established] framing=0 keep=1;END rest=3", NULL);
	/* ... but a refusal has a body like any response */
	check_splits("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 4\r\n\r\nauth",
		     HTTP_PARSE_CONNECT, false, 0, "H407/11[Proxy Authentication Required] "
		     "Content-Length=4 framing=1 keep=1;B[auth]END rest=0", NULL);
}

static void test_eof(void)
{
	check_splits("", 0, true, 0, "NORESPONSE", NULL);
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", 0, true, WG_EIO,
		     NULL, "connection to http://test closed after 3 of 5 body bytes");
	check_splits("HTTP/1.1 200 OK\r\nContent-Le", 0, true, WG_EIO, NULL,
		     "connection closed in the middle of the response headers from http://test");
	check_splits("HTTP/1.1 100 Continue\r\n\r\n", 0, true, WG_EIO, NULL,
		     "in the middle of the response headers");
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 0, true,
		     WG_EIO, NULL, "closed in the middle of a chunk");
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", 0,
		     true, WG_EIO, NULL, "closed before the end of the chunked body");
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello", 0, true,
		     WG_EIO, NULL, "closed in the middle of a chunk");
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n", 0,
		     true, WG_EIO, NULL, "in the middle of the trailers");
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1f", 0, true, WG_EIO,
		     NULL, "in the middle of the chunk size line");
	/* a complete message does not mind the close */
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, true, 0,
		     "H200/11[OK] Content-Length=2 framing=1 keep=1;B[ok]END rest=0", NULL);
}

/* --- malformed input --------------------------------------------------------------- */

static void test_malformed_head(void)
{
	check_splits("garbage\r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "malformed status line from http://test: 'garbage'");
	check_splits("HTTP/1.1 20 OK\r\n\r\n", 0, false, WG_ECORRUPT, NULL, "malformed status line");
	check_splits("HTTP/1.1 099 Low\r\n\r\n", 0, false, WG_ECORRUPT, NULL, "malformed status code");
	check_splits("HTTP/2.0 200 OK\r\n\r\n", 0, false, WG_EUNSUPPORTED, NULL, "only HTTP/1.x");
	check_splits("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", 0, false,
		     WG_EUNSUPPORTED, NULL, "switched protocols");
	check_splits("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "malformed header name in the response headers from http://test: 'Bad Name'");
	check_splits("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "malformed header line");
	check_splits("HTTP/1.1 200 OK\r\n: empty name\r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "malformed header line");
	check_splits("HTTP/1.1 200 OK\r\n folded\r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "continuation line without a header");
	check_splits("HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "stray CR or NUL in the response headers");
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "malformed Content-Length '1x'");
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "malformed Content-Length");
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", 0, false,
		     WG_ECORRUPT, NULL, "malformed Content-Length");
	check_splits("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 0, false,
		     WG_ECORRUPT, NULL, "conflicting Content-Length");
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 0, false,
		     WG_EUNSUPPORTED, NULL, "unsupported Transfer-Encoding 'gzip, chunked'");
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 0, false,
		     WG_EUNSUPPORTED, NULL, "unsupported Transfer-Encoding");
	check_splits("HTTP/1.1 200 OK\r\nTransfer-Encoding: \r\n\r\n", 0, false, WG_ECORRUPT, NULL,
		     "empty Transfer-Encoding");
}

static void test_malformed_chunks(void)
{
	static const struct { const char *body; int code; const char *msg; } cases[] = {
		{ "zz\r\nhello\r\n", WG_ECORRUPT, "malformed chunk size 'zz' in the response from "
		  "http://test" },
		{ "5x\r\nhello\r\n", WG_ECORRUPT, "malformed chunk size '5x'" },
		{ "-5\r\nhello\r\n", WG_ECORRUPT, "malformed chunk size '-5'" },
		{ " 5\r\nhello\r\n", WG_ECORRUPT, "malformed chunk size ' 5'" },
		{ "\r\nhello\r\n", WG_ECORRUPT, "malformed chunk size ''" },
		{ "5;\x01\r\nhello\r\n", WG_ECORRUPT, "malformed chunk size" },
		{ "1ffffffffffffffff\r\nhello\r\n", WG_ECORRUPT, "chunk size '1ffffffffffffffff' "
		  "from http://test is too large" },
		{ "5\nhello\r\n", WG_ECORRUPT, "chunk size line from http://test does not end in CRLF" },
		{ "3\r\nhello\r\n", WG_ECORRUPT, "longer than its declared size" },
		{ "5\r\nhello\n0\r\n\r\n", WG_ECORRUPT, "longer than its declared size" },
		{ "0\r\nBad Trailer: x\r\n\r\n", WG_ECORRUPT, "malformed header name in the trailers" },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wg_buf in = WG_BUF_INIT;
		wg_buf_printf(&in, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%s0\r\n\r\n",
			      cases[i].body);
		check_splits(wg_buf_cstr(&in), 0, false, cases[i].code, NULL, cases[i].msg);
		wg_buf_release(&in);
	}
}

/* --- limits --------------------------------------------------------------------------- */

static void test_limits(void)
{
	struct http_parser_limits lim = { 64, 32, 3, 8, 24 };
	struct wg_buf in = WG_BUF_INIT;
	size_t i;

	/* within every limit */
	check_splits_lim("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", HTTP_PARSE_HEAD, &lim,
			 false, 0, "H200/11[OK] A=1 B=2 C=3 framing=0 keep=1;END rest=0", NULL);
	check_splits_lim("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", 0, &lim, false,
			 WG_ELIMIT, NULL, "too many header fields in the response headers from "
			 "http://test (the limit is 3)");
	check_splits_lim("HTTP/1.1 200 OK\r\nX: 0123456789012345678901234567890\r\n\r\n", 0, &lim, false,
			 WG_ELIMIT, NULL, "a line of the response headers from http://test is too "
			 "long (the limit is 32 bytes)");
	check_splits_lim("HTTP/1.1 200 OK\r\nA: 01234567890123456789\r\nB: 01234567890123456789\r\n",
			 0, &lim, false, WG_ELIMIT, NULL, "too much data in the response headers "
			 "from http://test (the limit is 64 bytes)");
	/* a line that would cross both limits: the one its first byte too many
	 * crosses is named, however the input is split (found by fuzzing) */
	check_splits_lim("HTTP/1.1 200 OK\r\nA: 0123456789012345678901\r\n"
			 "B: 0123456789012345678901234567890123456\r\n\r\n", 0, &lim, false,
			 WG_ELIMIT, NULL, "too much data in the response headers");
	check_splits_lim("HTTP/1.1 200 OK\r\nA: 01234567\r\n"
			 "B: 01234567890123456789012345678901234\r\n\r\n", 0, &lim, false, WG_ELIMIT,
			 NULL, "a line of the response headers");
	/* interim responses count against the same budget */
	check_splits_lim("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"
			 "HTTP/1.1 200 OK\r\n\r\n", 0, &lim, true, WG_ELIMIT, NULL,
			 "too much data in the response headers");
	check_splits_lim("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;extension\r\nhello\r\n"
			 "0\r\n\r\n", 0, &lim, false, WG_ELIMIT, NULL,
			 "too much data in the chunk size line from http://test (the limit is 8 "
			 "bytes)");
	check_splits_lim("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
			 "T1: 123456789\r\nT2: 123456789\r\n\r\n", 0, &lim, false, WG_ELIMIT, NULL,
			 "too much data in the trailers");
	/* the defaults: an endless header stops at 64 KiB */
	wg_buf_adds(&in, "HTTP/1.1 200 OK\r\n");
	for (i = 0; i < 70; i++)
		wg_buf_printf(&in, "X-Filler-%zu: %01000d\r\n", i, 0);
	{
		struct wg_buf trace = WG_BUF_INIT;
		char msg[512];
		CHECK(run(wg_buf_cstr(&in), in.len, 1000, 0, NULL, false, &trace, msg,
			  sizeof(msg)) == WG_ELIMIT);
		CHECK(strstr(msg, "too much data in the response headers from http://test (the "
			      "limit is 65536 bytes)") != NULL);
		wg_buf_release(&trace);
	}
	wg_buf_release(&in);
}

/* A body is streamed, never held: a 4 MiB body in 64 KiB reads comes out
 * in place, and the parser's memory does not grow with it. */
static void test_streaming_large_body(void)
{
	static unsigned char chunk[65536];
	const char *head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
	struct http_parser *p;
	struct http_event ev;
	const unsigned char *in = (const unsigned char *)head;
	size_t in_len = strlen(head), i, total = 0;
	char frame[32];
	int rc;

	CHECK_OK(http_parser_new(&p, 0, "http://test", NULL));
	CHECK(http_parser_feed(p, &in, &in_len, &ev) == HTTP_EVENT_HEAD);
	memset(chunk, 'x', sizeof(chunk));
	for (i = 0; i < 64; i++) {
		snprintf(frame, sizeof(frame), "%s10000\r\n", i ? "\r\n" : "");
		in = (const unsigned char *)frame;
		in_len = strlen(frame);
		CHECK(http_parser_feed(p, &in, &in_len, &ev) == WG_ENEEDMORE);
		in = chunk;
		in_len = sizeof(chunk);
		while ((rc = http_parser_feed(p, &in, &in_len, &ev)) == HTTP_EVENT_BODY) {
			CHECK(ev.data >= chunk && ev.data + ev.len <= chunk + sizeof(chunk));
			total += ev.len;
		}
		CHECK(rc == WG_ENEEDMORE);
	}
	/* the end of a Content-Length body needs no more input: a driver that
	 * waited for bytes here would hang on a kept-alive connection */
	{
		struct http_parser *q;
		const unsigned char *r = (const unsigned char *)"HTTP/1.1 200 OK\r\n"
							      "Content-Length: 2\r\n\r\nok";
		size_t rl = strlen((const char *)r);
		CHECK_OK(http_parser_new(&q, 0, NULL, NULL));
		CHECK(http_parser_feed(q, &r, &rl, &ev) == HTTP_EVENT_HEAD);
		CHECK(http_parser_feed(q, &r, &rl, &ev) == HTTP_EVENT_BODY && ev.len == 2 && rl == 0);
		CHECK(http_parser_feed(q, &r, &rl, &ev) == HTTP_EVENT_END);
		http_parser_free(q);
	}
	in = (const unsigned char *)"\r\n0\r\n\r\n";
	in_len = 7;
	CHECK(http_parser_feed(p, &in, &in_len, &ev) == HTTP_EVENT_END);
	CHECK(total == 64 * sizeof(chunk));
	/* reset for the next response on the same connection */
	http_parser_reset(p, HTTP_PARSE_HEAD, "http://test");
	in = (const unsigned char *)"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n";
	in_len = strlen((const char *)in);
	CHECK(http_parser_feed(p, &in, &in_len, &ev) == HTTP_EVENT_HEAD);
	CHECK(http_parser_content_length(p) == 0 && http_parser_framing(p) == HTTP_FRAMING_NONE);
	CHECK(http_parser_feed(p, &in, &in_len, &ev) == HTTP_EVENT_END);
	{
		struct http_head h;
		http_parser_take_head(p, &h);
		CHECK(h.status == 200 && http_head_get(&h, "content-LENGTH") != NULL);
		CHECK(http_parser_head(p)->nheaders == 0);
		http_head_release(&h);
	}
	http_parser_free(p);
	http_parser_free(NULL);
}

static void test_tokens(void)
{
	CHECK(http_list_has_token("keep-alive, Close", "close"));
	CHECK(http_list_has_token(" close ", "close"));
	CHECK(!http_list_has_token("closed, x-close", "close"));
	CHECK(!http_list_has_token("", "close"));
	CHECK(http_is_tchar('~') && http_is_tchar('Z') && !http_is_tchar(' ') && !http_is_tchar(':'));
}

WG_TEST_MAIN("http_response",
	     WG_TEST(test_content_length),
	     WG_TEST(test_chunked),
	     WG_TEST(test_close_delimited),
	     WG_TEST(test_interim),
	     WG_TEST(test_no_body),
	     WG_TEST(test_eof),
	     WG_TEST(test_malformed_head),
	     WG_TEST(test_malformed_chunks),
	     WG_TEST(test_limits),
	     WG_TEST(test_streaming_large_body),
	     WG_TEST(test_tokens))
