/* Unit tests for core/protocol above pkt-line: side-band demultiplexing,
 * progress text, capabilities, the info/refs advertisement and ls-refs.
 * Every streaming parser is fed whole, byte by byte and split at every
 * offset, and must give the same answer each time; the adversarial cases
 * are what a hostile or broken server could send. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "protocol/advertisement.h"
#include "protocol/capabilities.h"
#include "protocol/ls_refs.h"
#include "protocol/pktline.h"
#include "protocol/progress.h"
#include "protocol/sideband.h"
#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"





/* --- side-band ------------------------------------------------------------------ */

static void test_sideband_demux(void)
{
	struct wg_sideband_msg m;
	struct wg_pkt p = { WG_PKT_DATA, (const unsigned char *)"\1PACK", 5 };
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K));
	CHECK(m.kind == WG_SIDEBAND_DATA && m.len == 4 && !memcmp(m.data, "PACK", 4));
	p.data = (const unsigned char *)"\2Counting\r";
	p.len = 10;
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND));
	CHECK(m.kind == WG_SIDEBAND_PROGRESS && m.len == 9 && !memcmp(m.data, "Counting\r", 9));
	/* The keepalive of sideband-all: band 2, nothing in it. */
	p.data = (const unsigned char *)"\2";
	p.len = 1;
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K));
	CHECK(m.kind == WG_SIDEBAND_PROGRESS && m.len == 0 && m.data != NULL);

	/* Band 3: the server's message becomes ours. */
	p.data = (const unsigned char *)"\3fatal: not our ref\n";
	p.len = 20;
	CHECK_ERR(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K), WG_ERROR);
	CHECK_STR(wg_error_message(), "remote error: fatal: not our ref");
	p.data = (const unsigned char *)"\3\x1b]0;pwned\a";
	p.len = 11;
	CHECK_ERR(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K), WG_ERROR);
	CHECK_STR(wg_error_message(), "remote error: \\x1b]0;pwned\\x07");

	/* Unknown bands and an empty packet. */
	p.data = (const unsigned char *)"\0x";
	p.len = 2;
	CHECK_ERR(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "bad side-band number 0") != NULL);
	p.data = (const unsigned char *)"\4x";
	CHECK_ERR(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K), WG_ECORRUPT);
	p.data = (const unsigned char *)"\xff";
	p.len = 1;
	CHECK_ERR(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "255") != NULL);
	p.len = 0;
	CHECK_ERR(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "missing band") != NULL);

	/* Specials pass through. */
	p.type = WG_PKT_FLUSH;
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND));
	CHECK(m.kind == WG_SIDEBAND_FLUSH && m.len == 0);
	p.type = WG_PKT_DELIM;
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND));
	CHECK(m.kind == WG_SIDEBAND_DELIM);
	p.type = WG_PKT_RESPONSE_END;
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND));
	CHECK(m.kind == WG_SIDEBAND_RESPONSE_END);
}

static void test_sideband_limits(void)
{
	unsigned char *buf = malloc(WG_PKT_MAX_PAYLOAD);
	struct wg_pkt p = { WG_PKT_DATA, buf, 0 };
	struct wg_sideband_msg m;
	memset(buf, 'x', WG_PKT_MAX_PAYLOAD);
	buf[0] = 1;
	/* side-band: 1000 bytes in all, header included. */
	p.len = WG_SIDEBAND_MAX_PKT - WG_PKT_HEADER_SIZE;
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND));
	CHECK(m.len == WG_SIDEBAND_MAX_PKT - WG_PKT_HEADER_SIZE - 1);
	p.len++;
	CHECK_ERR(wg_sideband_demux(&m, &p, WG_SIDEBAND), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "1001") && strstr(wg_error_message(), "1000"));
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K));
	/* side-band-64k: the pkt-line maximum. */
	p.len = WG_PKT_MAX_PAYLOAD;
	CHECK_OK(wg_sideband_demux(&m, &p, WG_SIDEBAND_64K));
	CHECK(m.len == WG_PKT_MAX_PAYLOAD - 1);
	CHECK_ERR(wg_sideband_demux(&m, &p, (enum wg_sideband_mode)7), WG_EINVALID);
	free(buf);
}

/* Trace one side-band run: "P[...]" progress, "1[...]" data, F/D/R. */
static int run_sideband(const struct wg_buf *in, size_t split, enum wg_sideband_mode mode,
			struct wg_buf *trace, char *msg, size_t msgsz)
{
	struct wg_sideband_reader *r;
	struct fx_chunker c;
	unsigned char *chunk;
	size_t n;
	int rc = 0;
	CHECK_OK(wg_sideband_reader_new(&r, mode));
	fx_chunker_init(&c, in->data, in->len, split);
	msg[0] = '\0';
	while (!rc && (chunk = fx_chunker_next(&c, &n))) {
		const unsigned char *p = chunk;
		struct wg_sideband_msg m;
		char q[WG_PKT_QUOTE_MAX * 4];
		while ((rc = wg_sideband_reader_read(r, &m, &p, &n)) == 0) {
			switch (m.kind) {
			case WG_SIDEBAND_DATA:
			case WG_SIDEBAND_PROGRESS:
				wg_buf_printf(trace, "%c[%s]", m.kind == WG_SIDEBAND_DATA ? '1' : 'P',
					      wg_pkt_quote(q, sizeof(q), m.data, m.len, false));
				break;
			case WG_SIDEBAND_FLUSH: wg_buf_adds(trace, "F"); break;
			case WG_SIDEBAND_DELIM: wg_buf_adds(trace, "D"); break;
			case WG_SIDEBAND_RESPONSE_END: wg_buf_adds(trace, "R"); break;
			}
		}
		if (rc == WG_ENEEDMORE)
			rc = 0;
		free(chunk);
	}
	if (!rc)
		rc = wg_sideband_reader_finish(r);
	if (rc)
		snprintf(msg, msgsz, "%s", wg_error_message());
	wg_sideband_reader_free(r);
	return rc;
}

static void check_sideband(const struct wg_buf *in, enum wg_sideband_mode mode, int want_rc,
			   const char *want_trace, const char *want_msg)
{
	struct wg_buf trace = WG_BUF_INIT;
	char msg[1024];
	size_t s;
	for (s = 0; s <= in->len + 1; s++) {
		int rc;
		wg_buf_reset(&trace);
		rc = run_sideband(in, s == in->len + 1 ? FX_BYTEWISE : s, mode, &trace, msg, sizeof(msg));
		CHECK(rc == want_rc);
		CHECK_STR(wg_buf_cstr(&trace), want_trace);
		if (want_msg)
			CHECK(strstr(msg, want_msg) != NULL);
	}
	wg_buf_release(&trace);
}

static void test_sideband_stream(void)
{
	struct wg_buf in = WG_BUF_INIT;
	/* A v1 fetch response after negotiation: progress, pack, flush. */
	fx_pkt(&in, "\2Enumerating objects: 3, done.\n");
	fx_pkt(&in, "\2Counting objects:  33%% (1/3)\r");
	fx_pkt(&in, "\1PACK%c%c%c\2", 0, 0, 0);
	fx_pkt(&in, "\2");
	fx_pkt(&in, "\1\xff%c", 0);
	fx_flush(&in);
	check_sideband(&in, WG_SIDEBAND_64K, 0,
		       "P[Enumerating objects: 3, done.\\n]P[Counting objects:  33% (1/3)\\r]"
		       "1[PACK\\x00\\x00\\x00\\x02]P[]1[\\xff\\x00]F", NULL);
	check_sideband(&in, WG_SIDEBAND, 0,
		       "P[Enumerating objects: 3, done.\\n]P[Counting objects:  33% (1/3)\\r]"
		       "1[PACK\\x00\\x00\\x00\\x02]P[]1[\\xff\\x00]F", NULL);

	/* v2 with sideband-all: section headers arrive on band 1 too. */
	wg_buf_reset(&in);
	fx_pkt(&in, "\1acknowledgments\n");
	fx_pkt(&in, "\1ready\n");
	CHECK_OK(wg_pkt_write_delim(&in));
	fx_pkt(&in, "\1packfile\n");
	fx_pkt(&in, "\2");
	fx_flush(&in);
	CHECK_OK(wg_pkt_write_response_end(&in));
	check_sideband(&in, WG_SIDEBAND_64K, 0,
		       "1[acknowledgments\\n]1[ready\\n]D1[packfile\\n]P[]FR", NULL);

	/* A band-3 error stops the stream with the server's words. */
	wg_buf_reset(&in);
	fx_pkt(&in, "\1PACK");
	fx_pkt(&in, "\3upload-pack: not our ref %s\n", fx_hexid(fx_sha1(), 'a'));
	fx_pkt(&in, "\1more");
	check_sideband(&in, WG_SIDEBAND_64K, WG_ERROR, "1[PACK]", "remote error: upload-pack: not our ref");

	/* So does an ERR packet, which is never a valid side-band packet. */
	wg_buf_reset(&in);
	fx_pkt(&in, "\2hi\n");
	fx_pkt(&in, "ERR no such repository\n");
	check_sideband(&in, WG_SIDEBAND_64K, WG_ERROR, "P[hi\\n]", "remote error: no such repository");

	/* Unknown band, bad framing, truncation. */
	wg_buf_reset(&in);
	fx_pkt(&in, "\1ok");
	fx_pkt(&in, "\5??");
	check_sideband(&in, WG_SIDEBAND_64K, WG_ECORRUPT, "1[ok]", "bad side-band number 5");
	wg_buf_reset(&in);
	fx_pkt(&in, "\1ok");
	CHECK_OK(wg_buf_adds(&in, "0003"));
	check_sideband(&in, WG_SIDEBAND_64K, WG_ECORRUPT, "1[ok]", "'0003'");
	wg_buf_reset(&in);
	fx_pkt(&in, "\1ok");
	CHECK_OK(wg_buf_adds(&in, "0009\1abc"));
	check_sideband(&in, WG_SIDEBAND_64K, WG_ECORRUPT, "1[ok]", "truncated");
	/* An empty data packet has no band. */
	wg_buf_reset(&in);
	CHECK_OK(wg_buf_adds(&in, "0004"));
	check_sideband(&in, WG_SIDEBAND_64K, WG_ECORRUPT, "", "missing band");
	wg_buf_release(&in);
}

static void test_sideband_endless_flushes(void)
{
	/* Each flush is handed out; the reader never spins or piles up. */
	enum { N = 50000 };
	struct wg_buf in = WG_BUF_INIT;
	struct wg_sideband_reader *r;
	struct wg_sideband_msg m;
	const unsigned char *p;
	size_t n, i, count = 0;
	int rc;
	for (i = 0; i < N; i++)
		fx_flush(&in);
	CHECK_OK(wg_sideband_reader_new(&r, WG_SIDEBAND_64K));
	p = in.data;
	n = in.len;
	while ((rc = wg_sideband_reader_read(r, &m, &p, &n)) == 0) {
		CHECK(m.kind == WG_SIDEBAND_FLUSH);
		if (++count > N)
			break;
	}
	CHECK(rc == WG_ENEEDMORE);
	CHECK(count == N);
	wg_sideband_reader_free(r);
	wg_sideband_reader_free(NULL);
	CHECK_ERR(wg_sideband_reader_new(&r, (enum wg_sideband_mode)0), WG_EINVALID);
	wg_buf_release(&in);
}

/* --- progress ------------------------------------------------------------------- */

static void trace_progress(struct wg_buf *t, const struct wg_progress_event *ev)
{
	if (ev->kind == WG_PROGRESS_MESSAGE)
		wg_buf_printf(t, "M%s|%s\n", ev->eol ? "" : "~", ev->line);
	else
		wg_buf_printf(t, "U%s|%s|%llu/%llu|%llu|%llu|%s|%s\n", ev->eol ? "" : "~", ev->phase,
			      (unsigned long long)ev->done, (unsigned long long)ev->total,
			      (unsigned long long)ev->bytes, (unsigned long long)ev->rate,
			      ev->finished ? "done" : "", ev->line);
}

static void run_progress(const void *data, size_t len, size_t split, struct wg_buf *t)
{
	struct wg_progress_parser *p;
	struct wg_progress_event ev;
	struct fx_chunker c;
	unsigned char *chunk;
	size_t n;
	int rc;
	CHECK_OK(wg_progress_parser_new(&p));
	fx_chunker_init(&c, data, len, split);
	while ((chunk = fx_chunker_next(&c, &n))) {
		const unsigned char *in = chunk;
		while ((rc = wg_progress_parser_next(p, &ev, &in, &n)) == 0)
			trace_progress(t, &ev);
		CHECK(rc == WG_ENEEDMORE && n == 0);
		free(chunk);
	}
	while ((rc = wg_progress_parser_finish(p, &ev)) == 0)
		trace_progress(t, &ev);
	CHECK(rc == WG_ITEROVER);
	wg_progress_parser_free(p);
}

static void check_progress(const char *in, const char *want)
{
	struct wg_buf t = WG_BUF_INIT;
	size_t len = strlen(in), s;
	for (s = 0; s <= len + 1; s++) {
		wg_buf_reset(&t);
		run_progress(in, len, s == len + 1 ? FX_BYTEWISE : s, &t);
		CHECK_STR(wg_buf_cstr(&t), want);
	}
	wg_buf_release(&t);
}

static void test_progress_server_fetch(void)
{
	/* What upload-pack relays from pack-objects, padding included. */
	check_progress(
		"Enumerating objects: 12, done.\n"
		"Counting objects:   8% (1/12)\rCounting objects:  50% (6/12)\r"
		"Counting objects: 100% (12/12)\rCounting objects: 100% (12/12), done.\n"
		"Compressing objects:  10% (1/10)   \rCompressing objects: 100% (10/10), done.\n"
		"Total 12 (delta 3), reused 0 (delta 0), pack-reused 0 (from 0)\n",
		"U|Enumerating objects|12/0|0|0|done|Enumerating objects: 12, done.\n"
		"U~|Counting objects|1/12|0|0||Counting objects:   8% (1/12)\n"
		"U~|Counting objects|6/12|0|0||Counting objects:  50% (6/12)\n"
		"U~|Counting objects|12/12|0|0||Counting objects: 100% (12/12)\n"
		"U|Counting objects|12/12|0|0|done|Counting objects: 100% (12/12), done.\n"
		"U~|Compressing objects|1/10|0|0||Compressing objects:  10% (1/10)\n"
		"U|Compressing objects|10/10|0|0|done|Compressing objects: 100% (10/10), done.\n"
		"U|Total|12/12|0|0|done|Total 12 (delta 3), reused 0 (delta 0), pack-reused 0 (from 0)\n");
	/* Older git's summary, without "(from N)". */
	check_progress("Total 3 (delta 0), reused 0 (delta 0), pack-reused 0\n",
		       "U|Total|3/3|0|0|done|Total 3 (delta 0), reused 0 (delta 0), pack-reused 0\n");
}

static void test_progress_throughput(void)
{
	check_progress(
		"Receiving objects:  42% (5/12), 1.20 MiB | 2.00 MiB/s\r"
		"Receiving objects: 100% (12/12), 1.20 MiB | 2.00 MiB/s, done.\n"
		"Resolving deltas: 100% (3/3), completed with 2 local objects.\n"
		"Writing objects: 100% (3/3), 250 bytes | 250.00 KiB/s, done.\n"
		"Receiving objects: 100% (1/1), 1 byte | 1 byte/s, done.\n"
		"Receiving objects:  50% (1/2), 3.50 GiB | 12.5 KiB/s\r",
		"U~|Receiving objects|5/12|1258291|2097152||"
		"Receiving objects:  42% (5/12), 1.20 MiB | 2.00 MiB/s\n"
		"U|Receiving objects|12/12|1258291|2097152|done|"
		"Receiving objects: 100% (12/12), 1.20 MiB | 2.00 MiB/s, done.\n"
		"U|Resolving deltas|3/3|0|0|done|Resolving deltas: 100% (3/3), completed with 2 local "
		"objects.\n"
		"U|Writing objects|3/3|250|256000|done|"
		"Writing objects: 100% (3/3), 250 bytes | 250.00 KiB/s, done.\n"
		"U|Receiving objects|1/1|1|1|done|Receiving objects: 100% (1/1), 1 byte | 1 byte/s, done.\n"
		"U~|Receiving objects|1/2|3758096384|12800||"
		"Receiving objects:  50% (1/2), 3.50 GiB | 12.5 KiB/s\n");
}

static void test_progress_messages_and_odd_lines(void)
{
	check_progress(
		"warning: ignoring broken ref refs/heads/x\n"
		"\r\n\n\r"                                   /* empty lines: nothing */
		"Counting objects: 99999999999999999999999, done.\n"  /* overflow: text */
		"Counting objects: 12 (1/2)\n"               /* no '%': not a counter */
		"Counting objects: 50% (1/2), \n"            /* dangling tail */
		"Counting objects:  50% (1/2)x\n"
		": 5\n"                                       /* no title */
		"hello\x1b[31mred\x07\x7f\tend\n"            /* controls neutralised */
		"Counting objects: 3",                        /* unterminated at the end */
		"M|warning: ignoring broken ref refs/heads/x\n"
		"M|Counting objects: 99999999999999999999999, done.\n"
		"M|Counting objects: 12 (1/2)\n"
		"M|Counting objects: 50% (1/2),\n"
		"M|Counting objects:  50% (1/2)x\n"
		"M|: 5\n"
		"M|hello?[31mred??\tend\n"
		"U~|Counting objects|3/0|0|0||Counting objects: 3\n");
	/* git's two-line display on a narrow terminal. */
	check_progress(
		"Receiving objects:                  \n  42% (5/12)\r  100% (12/12), done.\n"
		"  7% (1/14)\n",
		"M|Receiving objects:\n"
		"U~|Receiving objects|5/12|0|0||  42% (5/12)\n"
		"U|Receiving objects|12/12|0|0|done|  100% (12/12), done.\n"
		"M|  7% (1/14)\n");
	/* A NUL is not a line end, and does not end the C string early. */
	{
		struct wg_buf t = WG_BUF_INIT;
		run_progress("a\0b\n", 4, 4, &t);
		CHECK_STR(wg_buf_cstr(&t), "M|a?b\n");
		wg_buf_release(&t);
	}
}

static void test_progress_long_line_bounded(void)
{
	/* A megabyte without a line end comes out in pieces of the maximum. */
	enum { LEN = 1 << 20 };
	char *in = malloc(LEN + 3);
	struct wg_progress_parser *p;
	struct wg_progress_event ev;
	const unsigned char *cur = (const unsigned char *)in;
	size_t n = LEN + 1, events = 0, total = 0;
	int rc;
	memset(in, 'a', LEN);
	in[LEN] = '\n';
	CHECK_OK(wg_progress_parser_new(&p));
	while ((rc = wg_progress_parser_next(p, &ev, &cur, &n)) == 0) {
		size_t l = strlen(ev.line);
		CHECK(l <= WG_PROGRESS_LINE_MAX);
		CHECK(ev.kind == WG_PROGRESS_MESSAGE);
		total += l;
		events++;
	}
	CHECK(rc == WG_ENEEDMORE);
	CHECK(total == LEN);
	CHECK(events == (LEN + WG_PROGRESS_LINE_MAX - 1) / WG_PROGRESS_LINE_MAX);
	CHECK_ERR(wg_progress_parser_finish(p, &ev), WG_ITEROVER);
	wg_progress_parser_free(p);
	wg_progress_parser_free(NULL);

	/* At the limit, the cut does not depend on where the chunks end. */
	memset(in, 'b', WG_PROGRESS_LINE_MAX + 1);
	in[WG_PROGRESS_LINE_MAX] = '\n';
	in[WG_PROGRESS_LINE_MAX + 1] = '\0';
	{
		struct wg_buf want = WG_BUF_INIT;
		wg_buf_printf(&want, "M|%.*s\n", WG_PROGRESS_LINE_MAX, in);
		check_progress(in, wg_buf_cstr(&want));
		in[WG_PROGRESS_LINE_MAX] = 'c';
		in[WG_PROGRESS_LINE_MAX + 1] = '\r';
		in[WG_PROGRESS_LINE_MAX + 2] = '\0';
		wg_buf_reset(&want);
		wg_buf_printf(&want, "M~|%.*s\nM~|c\n", WG_PROGRESS_LINE_MAX, in);
		check_progress(in, wg_buf_cstr(&want));
		wg_buf_release(&want);
	}
	free(in);
}

/* --- capabilities --------------------------------------------------------------- */

static void test_caps_v1(void)
{
	static const char list[] =
		"multi_ack thin-pack side-band side-band-64k ofs-delta shallow  deepen-since "
		"no-progress include-tag multi_ack_detailed no-done symref=HEAD:refs/heads/main "
		"symref=refs/remotes/o/HEAD:refs/remotes/o/x filter object-format=sha1 "
		"agent=git/2.53.0 empty= ";
	const struct wg_hash_algo *algo;
	struct wg_caps *caps;
	CHECK_OK(wg_caps_parse_v1(&caps, list, sizeof(list) - 1));
	CHECK(wg_caps_version(caps) == 1);
	CHECK(wg_caps_count(caps) == 17);
	CHECK(wg_caps_has(caps, "side-band-64k"));
	CHECK(wg_caps_has(caps, "multi_ack"));
	CHECK(!wg_caps_has(caps, "side-band-6"));
	CHECK(!wg_caps_has(caps, "multi"));
	CHECK(wg_caps_has(caps, "agent"));
	CHECK_STR(wg_caps_get(caps, "agent", 0), "git/2.53.0");
	CHECK(wg_caps_get(caps, "agent", 1) == NULL);
	CHECK(wg_caps_get(caps, "thin-pack", 0) == NULL);
	CHECK_STR(wg_caps_get(caps, "symref", 0), "HEAD:refs/heads/main");
	CHECK_STR(wg_caps_get(caps, "symref", 1), "refs/remotes/o/HEAD:refs/remotes/o/x");
	CHECK(wg_caps_get(caps, "symref", 2) == NULL);
	CHECK_STR(wg_caps_get(caps, "empty", 0), "");
	CHECK_STR(wg_caps_name_at(caps, 0), "multi_ack");
	CHECK(wg_caps_value_at(caps, 0) == NULL);
	CHECK(wg_caps_name_at(caps, 17) == NULL);
	CHECK_OK(wg_caps_hash_algo(caps, &algo));
	CHECK(algo == fx_sha1());
	wg_caps_free(caps);

	/* No object-format: SHA-1. sha256 when said; unknown: unsupported. */
	CHECK_OK(wg_caps_parse_v1(&caps, "", 0));
	CHECK(wg_caps_count(caps) == 0);
	CHECK_OK(wg_caps_hash_algo(caps, &algo));
	CHECK(algo == fx_sha1());
	wg_caps_free(caps);
	CHECK_OK(wg_caps_parse_v1(&caps, "object-format=sha256 object-format=sha1", 39));
	CHECK_OK(wg_caps_hash_algo(caps, &algo));
	CHECK(algo == fx_sha256());
	wg_caps_free(caps);
	CHECK_OK(wg_caps_parse_v1(&caps, "object-format=sha512", 20));
	CHECK_ERR(wg_caps_hash_algo(caps, &algo), WG_EUNSUPPORTED);
	CHECK(strstr(wg_error_message(), "sha512") != NULL);
	wg_caps_free(caps);

	/* Malformed lists. */
	CHECK_ERR(wg_caps_parse_v1(&caps, "a =b", 4), WG_ECORRUPT);
	CHECK(caps == NULL);
	CHECK_ERR(wg_caps_parse_v1(&caps, "a\nb", 3), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "a\\nb") != NULL);
	CHECK_ERR(wg_caps_parse_v1(&caps, "a\0b", 3), WG_ECORRUPT);
	wg_caps_free(NULL);
}

static void test_caps_v2(void)
{
	static const char *const lines[] = {
		"agent=git/2.53.0\n", "ls-refs=unborn\n", "fetch=shallow wait-for-done filter\n",
		"server-option\n", "object-format=sha256\n", "object-info", "bundle-uri\n",
		"session-id=abc\n", "promisor-remote=name=a,url=https://x/y;name=b\n",
	};
	const struct wg_hash_algo *algo;
	struct wg_caps *caps;
	size_t i;
	CHECK_OK(wg_caps_new(&caps, 2));
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		CHECK_OK(wg_caps_add_v2_line(caps, lines[i], strlen(lines[i])));
	CHECK(wg_caps_version(caps) == 2);
	CHECK(wg_caps_count(caps) == 9);
	CHECK(wg_caps_has(caps, "ls-refs"));
	CHECK(wg_caps_has(caps, "server-option"));
	CHECK(wg_caps_has(caps, "object-info"));
	CHECK(wg_caps_has_feature(caps, "fetch", "filter"));
	CHECK(wg_caps_has_feature(caps, "fetch", "shallow"));
	CHECK(wg_caps_has_feature(caps, "fetch", "wait-for-done"));
	CHECK(!wg_caps_has_feature(caps, "fetch", "wait"));
	CHECK(!wg_caps_has_feature(caps, "fetch", "sideband-all"));
	CHECK(!wg_caps_has_feature(caps, "fetch", ""));
	CHECK(wg_caps_has_feature(caps, "ls-refs", "unborn"));
	CHECK(!wg_caps_has_feature(caps, "server-option", "x"));
	CHECK(!wg_caps_has_feature(caps, "push", "filter"));
	CHECK_STR(wg_caps_get(caps, "promisor-remote", 0), "name=a,url=https://x/y;name=b");
	CHECK_STR(wg_caps_get(caps, "fetch", 0), "shallow wait-for-done filter");
	CHECK_OK(wg_caps_hash_algo(caps, &algo));
	CHECK(algo == fx_sha256());

	CHECK_ERR(wg_caps_add_v2_line(caps, "bad key=1\n", 10), WG_ECORRUPT);
	CHECK_ERR(wg_caps_add_v2_line(caps, "=v\n", 3), WG_ECORRUPT);
	CHECK_ERR(wg_caps_add_v2_line(caps, "\n", 1), WG_ECORRUPT);
	CHECK_ERR(wg_caps_add_v2_line(caps, "k=a\x01" "b", 5), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "k=a\\x01b") != NULL);
	CHECK_ERR(wg_caps_add_v2_line(caps, "k\0=1", 4), WG_ECORRUPT);
	CHECK(wg_caps_count(caps) == 9);
	wg_caps_free(caps);
	CHECK_ERR(wg_caps_new(&caps, 3), WG_EINVALID);
}

/* --- the info/refs advertisement --------------------------------------------------- */

static void summarize_refs(struct wg_buf *s, const struct wg_remote_ref_list *refs)
{
	size_t i;
	for (i = 0; i < refs->nr; i++) {
		const struct wg_remote_ref *r = &refs->refs[i];
		wg_buf_printf(s, "%s%s=%.8s", i ? ";" : "", r->name, wg_oid_hex(&r->oid));
		if (r->has_peeled)
			wg_buf_printf(s, "^%.8s", wg_oid_hex(&r->peeled));
		if (r->symref_target)
			wg_buf_printf(s, "->%s", r->symref_target);
		if (r->unborn)
			wg_buf_adds(s, "(unborn)");
		CHECK(wg_oid_algo(&r->oid) == wg_oid_algo(&refs->refs[0].oid));
	}
}

/* Everything the parser learned, as one string to compare across runs. */
static void summarize_adv(struct wg_buf *s, const struct wg_advertisement *adv)
{
	const struct wg_caps *caps = wg_advertisement_caps(adv);
	const struct wg_oid *oids;
	size_t n, i;
	wg_buf_printf(s, "v%d %s caps=%zu {", wg_advertisement_version(adv),
		      wg_advertisement_hash_algo(adv)->name, caps ? wg_caps_count(caps) : 99);
	summarize_refs(s, wg_advertisement_refs(adv));
	wg_buf_adds(s, "}");
	oids = wg_advertisement_shallows(adv, &n);
	for (i = 0; i < n; i++)
		wg_buf_printf(s, " shallow=%.8s", wg_oid_hex(&oids[i]));
	oids = wg_advertisement_haves(adv, &n);
	for (i = 0; i < n; i++)
		wg_buf_printf(s, " have=%.8s", wg_oid_hex(&oids[i]));
}

/* Feed one chunking; returns the final code (0: complete and finished). */
static int run_adv(const struct wg_buf *in, size_t split, const char *service,
		   const struct wg_hash_algo *expected, struct wg_buf *summary, char *msg,
		   size_t msgsz)
{
	struct wg_advertisement *adv;
	struct fx_chunker c;
	unsigned char *chunk;
	size_t n;
	int rc = WG_ENEEDMORE;
	CHECK_OK(wg_advertisement_new(&adv, service, expected));
	fx_chunker_init(&c, in->data, in->len, split);
	msg[0] = '\0';
	/* Completion reported before the end would show up as an error for
	 * the bytes after it. */
	while ((chunk = fx_chunker_next(&c, &n))) {
		rc = wg_advertisement_feed(adv, chunk, n);
		free(chunk);
		if (rc != 0 && rc != WG_ENEEDMORE)
			break;
	}
	if (rc == 0 || rc == WG_ENEEDMORE)
		rc = wg_advertisement_finish(adv);
	if (rc) {
		snprintf(msg, msgsz, "%s", wg_error_message());
		/* Sticky: a later call says the same. */
		CHECK_ERR(wg_advertisement_feed(adv, "0000", 4), rc);
		CHECK_STR(wg_error_message(), msg);
		CHECK_ERR(wg_advertisement_finish(adv), rc);
	} else {
		summarize_adv(summary, adv);
	}
	wg_advertisement_free(adv);
	return rc;
}

static void check_adv(const struct wg_buf *in, const char *service,
		      const struct wg_hash_algo *expected, int want_rc, const char *want)
{
	struct wg_buf summary = WG_BUF_INIT;
	char msg[1024], first[1024] = "";
	size_t s;
	for (s = 0; s <= in->len + 1; s++) {
		int rc;
		wg_buf_reset(&summary);
		rc = run_adv(in, s == in->len + 1 ? FX_BYTEWISE : s, service, expected, &summary, msg,
			     sizeof(msg));
		CHECK(rc == want_rc);
		if (want_rc == 0) {
			CHECK_STR(wg_buf_cstr(&summary), want);
		} else {
			if (!strstr(msg, want)) {
				CHECK(strstr(msg, want) != NULL);
				fprintf(stderr, "  split %zu: message was: %s\n", s, msg);
			}
			/* The same message however the bytes arrived. */
			if (!first[0])
				memcpy(first, msg, sizeof(first));
			CHECK_STR(msg, first);
		}
		if (rc != want_rc) {
			fprintf(stderr, "  split %zu: rc %d: %s\n", s, rc, msg);
			break;
		}
	}
	wg_buf_release(&summary);
}

static void header(struct wg_buf *b)
{
	fx_pkt(b, "# service=git-upload-pack\n");
	fx_flush(b);
}

static void test_adv_v0(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_buf in = WG_BUF_INIT;
	header(&in);
	fx_pkt(&in, "%s HEAD%cmulti_ack side-band-64k ofs-delta symref=HEAD:refs/heads/main "
	    "object-format=sha1 agent=git/2.53.0\n", fx_hexid(h, 'a'), 0);
	fx_pkt(&in, "%s refs/heads/main\n", fx_hexid(h, 'a'));
	fx_pkt(&in, "%s refs/heads/topic", fx_hexid(h, 'b'));  /* no LF: fine */
	fx_pkt(&in, "%s refs/tags/v1\n", fx_hexid(h, 'c'));
	fx_pkt(&in, "%s refs/tags/v1^{}\n", fx_hexid(h, 'D'));  /* upper case: case-insensitive */
	fx_pkt(&in, "%s refs/tags/light\n", fx_hexid(h, 'e'));
	fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'f'));
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, 0,
		  "v0 sha1 caps=6 {HEAD=aaaaaaaa->refs/heads/main;refs/heads/main=aaaaaaaa;"
		  "refs/heads/topic=bbbbbbbb;refs/tags/v1=cccccccc^dddddddd;refs/tags/light=eeeeeeee}"
		  " shallow=ffffffff");
	check_adv(&in, "git-upload-pack", fx_sha1(), 0,
		  "v0 sha1 caps=6 {HEAD=aaaaaaaa->refs/heads/main;refs/heads/main=aaaaaaaa;"
		  "refs/heads/topic=bbbbbbbb;refs/tags/v1=cccccccc^dddddddd;refs/tags/light=eeeeeeee}"
		  " shallow=ffffffff");
	/* The local repository is SHA-256: no exchange possible. */
	check_adv(&in, "git-upload-pack", fx_sha256(), WG_EUNSUPPORTED,
		  "the remote repository uses sha1 object ids but the local repository uses sha256");
	/* The same without the smart-HTTP header (git://, ssh). */
	wg_buf_reset(&in);
	fx_pkt(&in, "%s refs/heads/main%cagent=x symref=HEAD:refs/heads/main\n", fx_hexid(h, '1'), 0);
	fx_pkt(&in, "%s .have\n", fx_hexid(h, '2'));
	fx_pkt(&in, "%s refs/heads/x%cignored caps\n", fx_hexid(h, '3'), 0);
	fx_flush(&in);
	check_adv(&in, NULL, NULL, 0,
		  "v0 sha1 caps=2 {refs/heads/main=11111111;refs/heads/x=33333333} have=22222222");
	wg_buf_release(&in);
}

static void test_adv_v1_sha256_and_empty(void)
{
	const struct wg_hash_algo *h = fx_sha256();
	struct wg_buf in = WG_BUF_INIT;
	header(&in);
	fx_pkt(&in, "version 1\n");
	fx_pkt(&in, "%s HEAD%cobject-format=sha256 symref=HEAD:refs/heads/trunk\n", fx_hexid(h, '7'), 0);
	fx_pkt(&in, "%s refs/heads/trunk\n", fx_hexid(h, '7'));
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, 0,
		  "v1 sha256 caps=2 {HEAD=77777777->refs/heads/trunk;refs/heads/trunk=77777777}");
	check_adv(&in, "git-upload-pack", fx_sha256(), 0,
		  "v1 sha256 caps=2 {HEAD=77777777->refs/heads/trunk;refs/heads/trunk=77777777}");
	check_adv(&in, "git-upload-pack", fx_sha1(), WG_EUNSUPPORTED, "uses sha256 object ids");

	/* An empty repository: the capabilities^{} placeholder. */
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s capabilities^{}%cobject-format=sha256 agent=git/2.53.0\n", fx_hexid(h, '0'), 0);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, 0, "v0 sha256 caps=2 {}");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s capabilities^{}%cagent=git/2.53.0\n", fx_hexid(fx_sha1(), '0'), 0);
	fx_pkt(&in, "shallow %s\n", fx_hexid(fx_sha1(), '9'));
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, 0, "v0 sha1 caps=1 {} shallow=99999999");
	/* Not even that: a bare flush. */
	wg_buf_reset(&in);
	header(&in);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, 0, "v0 sha1 caps=0 {}");
	/* Extra header lines before the flush are ignored, as git does. */
	wg_buf_reset(&in);
	fx_pkt(&in, "# service=git-receive-pack\n");
	fx_pkt(&in, "# some future metadata\n");
	fx_flush(&in);
	fx_pkt(&in, "%s refs/heads/main%creport-status delete-refs\n", fx_hexid(fx_sha1(), '4'), 0);
	fx_flush(&in);
	check_adv(&in, "git-receive-pack", NULL, 0, "v0 sha1 caps=2 {refs/heads/main=44444444}");
	wg_buf_release(&in);
}

static void test_adv_v2(void)
{
	struct wg_buf in = WG_BUF_INIT, hdr = WG_BUF_INIT;
	/* git http-backend sends v2 straight away... */
	fx_pkt(&in, "version 2\n");
	fx_pkt(&in, "agent=git/2.53.0\n");
	fx_pkt(&in, "ls-refs=unborn\n");
	fx_pkt(&in, "fetch=shallow wait-for-done filter\n");
	fx_pkt(&in, "server-option\n");
	fx_pkt(&in, "object-format=sha1\n");
	fx_pkt(&in, "object-info\n");
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, 0, "v2 sha1 caps=6 {}");
	check_adv(&in, NULL, fx_sha1(), 0, "v2 sha1 caps=6 {}");
	check_adv(&in, "git-upload-pack", fx_sha256(), WG_EUNSUPPORTED, "uses sha1 object ids");
	/* ...other servers after the service header. */
	header(&hdr);
	CHECK_OK(wg_buf_add(&hdr, in.data, in.len));
	check_adv(&hdr, "git-upload-pack", NULL, 0, "v2 sha1 caps=6 {}");
	{
		struct wg_advertisement *adv;
		const struct wg_caps *caps;
		CHECK_OK(wg_advertisement_new(&adv, "git-upload-pack", NULL));
		CHECK_OK(wg_advertisement_feed(adv, hdr.data, hdr.len));
		CHECK_OK(wg_advertisement_finish(adv));
		caps = wg_advertisement_caps(adv);
		CHECK(wg_caps_version(caps) == 2);
		CHECK(wg_caps_has_feature(caps, "fetch", "filter"));
		CHECK(wg_caps_has_feature(caps, "ls-refs", "unborn"));
		CHECK(wg_advertisement_refs(adv)->nr == 0);
		wg_advertisement_free(adv);
		wg_advertisement_free(NULL);
	}
	wg_buf_reset(&in);
	fx_pkt(&in, "version 2\n");
	fx_pkt(&in, "object-format=sha256\n");
	fx_flush(&in);
	check_adv(&in, NULL, NULL, 0, "v2 sha256 caps=1 {}");
	/* A broken capability line. */
	wg_buf_reset(&in);
	fx_pkt(&in, "version 2\n");
	fx_pkt(&in, "fetch shallow\n");
	fx_flush(&in);
	check_adv(&in, NULL, NULL, WG_ECORRUPT, "invalid capability name");
	wg_buf_reset(&in);
	fx_pkt(&in, "version 2\n");
	CHECK_OK(wg_pkt_write_delim(&in));
	check_adv(&in, NULL, NULL, WG_ECORRUPT, "unexpected delim");
	wg_buf_release(&in);
	wg_buf_release(&hdr);
}

/* One bad line after a good first ref, with and without the header. */
static void check_bad_ref_line(const char *line, size_t len, int want_rc, const char *want)
{
	struct wg_buf in = WG_BUF_INIT;
	header(&in);
	fx_pkt(&in, "%s HEAD%cagent=x\n", fx_hexid(fx_sha1(), 'a'), 0);
	CHECK_OK(wg_pkt_write(&in, line, len));
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, want_rc, want);
	wg_buf_release(&in);
}

static void test_adv_bad_refs(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	char line[512];
	int n;
#define BAD_NAME(name, why) do { \
		n = snprintf(line, sizeof(line), "%s %s\n", fx_hexid(h, 'b'), name); \
		check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, why); \
	} while (0)
	BAD_NAME("refs/heads/a..b", "invalid ref name 'refs/heads/a..b': contains '..'");
	BAD_NAME("refs/heads/a\x01" "b", "invalid ref name 'refs/heads/a\\x01b': control character");
	BAD_NAME("refs/heads/a\x1b[2Jb", "'refs/heads/a\\x1b[2Jb'");
	BAD_NAME("refs/heads/a\x7f", "'refs/heads/a\\x7f'");
	BAD_NAME("refs/heads/.hidden", "begins with '.'");
	BAD_NAME("refs/heads/x.lock", ".lock");
	BAD_NAME("refs/heads/a b", "'refs/heads/a b'");
	BAD_NAME("refs/heads/a~1", "invalid ref name");
	BAD_NAME("refs/heads/a@{1}", "invalid ref name");
	BAD_NAME("refs/heads/", "invalid ref name");
	BAD_NAME("refs//heads/x", "invalid ref name");
	BAD_NAME("refs/heads/a\\b", "invalid ref name");
	BAD_NAME("config", "not HEAD and not under refs/");
	BAD_NAME("../../config", "not HEAD and not under refs/");
	BAD_NAME("/refs/heads/x", "not HEAD and not under refs/");
	BAD_NAME("FETCH_HEAD", "not HEAD and not under refs/");
	BAD_NAME("", "invalid ref name ''");
	/* A NUL in the name ends it there (capabilities after the first
	 * line are ignored, as git does), so this one is valid... */
	n = snprintf(line, sizeof(line), "%s refs/heads/ok", fx_hexid(h, 'b'));
	line[n] = '\0';
	memcpy(line + n + 1, "junk\n", 5);
	check_bad_ref_line(line, (size_t)n + 6, 0,
			   "v0 sha1 caps=1 {HEAD=aaaaaaaa;refs/heads/ok=bbbbbbbb}");
	/* ...but a peeled line must name the ref just before it. */
	n = snprintf(line, sizeof(line), "%s refs/tags/v9^{}\n", fx_hexid(h, 'b'));
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "a peeled ref that does not follow its tag");
	n = snprintf(line, sizeof(line), "%s HEAD^{}\n", fx_hexid(h, 'b'));
	check_bad_ref_line(line, (size_t)n, 0,
			   "v0 sha1 caps=1 {HEAD=aaaaaaaa^bbbbbbbb}");
	/* capabilities^{} belongs on the first line, alone. */
	n = snprintf(line, sizeof(line), "%s capabilities^{}\n", fx_hexid(h, '0'));
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "'capabilities^{}' after the first line");

	/* Object ids: wrong length, not hex, the other hash. */
	n = snprintf(line, sizeof(line), "%.*s refs/heads/x\n", (int)h->hexsz - 1, fx_hexid(h, 'b'));
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "has 39 hex digits; sha1 ids have 40");
	n = snprintf(line, sizeof(line), "%sb refs/heads/x\n", fx_hexid(h, 'b'));
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "has 41 hex digits");
	n = snprintf(line, sizeof(line), "%.*sg refs/heads/x\n", (int)h->hexsz - 1, fx_hexid(h, 'b'));
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "is not hexadecimal");
	n = snprintf(line, sizeof(line), "%s refs/heads/x\n", fx_hexid(fx_sha256(), 'b'));
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT,
			   "has 64 hex digits, a sha256 id, but the sha1 object format is in use");
	n = snprintf(line, sizeof(line), "%s\n", fx_hexid(h, 'b'));
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "expected '<object id> <ref name>'");
	n = snprintf(line, sizeof(line), " refs/heads/x\n");
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "has 0 hex digits");
	/* Shallow lines come last and carry a full id. */
	n = snprintf(line, sizeof(line), "shallow %.8s\n", fx_hexid(h, 'b'));
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "has 8 hex digits");
	n = snprintf(line, sizeof(line), "version 1\n");
	check_bad_ref_line(line, (size_t)n, WG_ECORRUPT, "object id 'version' is not hexadecimal");
#undef BAD_NAME
}

static void test_adv_bad_structure(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_buf in = WG_BUF_INIT;

	/* The remote refuses. */
	fx_pkt(&in, "ERR access denied or repository not exported: /x.git\n");
	check_adv(&in, "git-upload-pack", NULL, WG_ERROR,
		  "remote error: access denied or repository not exported: /x.git");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "ERR upload-pack: repository is corrupt\n");
	check_adv(&in, "git-upload-pack", NULL, WG_ERROR, "remote error: upload-pack: repository is");

	/* Not a smart-HTTP reply at all. */
	wg_buf_reset(&in);
	wg_buf_printf(&in, "%s\trefs/heads/maint\n", fx_hexid(h, '9'));
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "not a smart-HTTP git-upload-pack response");
	wg_buf_reset(&in);
	wg_buf_adds(&in, "<!DOCTYPE html><html>sign in</html>");
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "bad pkt-line length '<!DO'");
	/* A v0 ref where the header belongs, or a v1 reply without it. */
	wg_buf_reset(&in);
	fx_pkt(&in, "%s HEAD%cagent=x\n", fx_hexid(h, '0'), 0);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "not a smart-HTTP git-upload-pack");
	wg_buf_reset(&in);
	fx_pkt(&in, "version 1\n");
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT,
		  "invalid smart-HTTP response: expected '# service=git-upload-pack', got 'version 1'");
	wg_buf_reset(&in);
	fx_pkt(&in, "# service=git-upload-pack");  /* no flush after it */
	fx_pkt(&in, "version 2");
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "ended before its final flush");
	/* Shorter than the smart-HTTP check. */
	wg_buf_reset(&in);
	CHECK_OK(wg_buf_adds(&in, "0000"));
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "got a flush packet");
	wg_buf_reset(&in);
	CHECK_OK(wg_buf_adds(&in, "001"));
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "truncated pkt-line");
	wg_buf_reset(&in);
	CHECK_OK(wg_buf_adds(&in, "0004"));
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "got ''");
	wg_buf_reset(&in);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "got a flush packet");
	wg_buf_reset(&in);
	header(&in);
	fx_flush(&in);
	check_adv(&in, "git-receive-pack", NULL, WG_ECORRUPT, "for another service: "
		  "'# service=git-upload-pack'");

	/* Cut short, or nothing at all. */
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s HEAD%cagent=x\n", fx_hexid(h, 'a'), 0);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "ended before its final flush packet");
	wg_buf_reset(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "empty response");
	wg_buf_reset(&in);
	header(&in);
	CHECK_OK(wg_buf_adds(&in, "00"));
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "truncated pkt-line");

	/* Data after the end: one more flush, or anything. */
	wg_buf_reset(&in);
	header(&in);
	fx_flush(&in);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT,
		  "unexpected data after the final flush packet of the ref advertisement");

	/* Out-of-place packets and lines. */
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s HEAD%cagent=x\n", fx_hexid(h, 'a'), 0);
	CHECK_OK(wg_pkt_write_delim(&in));
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "unexpected delim (0001) packet");
	wg_buf_reset(&in);
	header(&in);
	CHECK_OK(wg_pkt_write_response_end(&in));
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "unexpected response-end (0002)");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "version 3\n");
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "unsupported protocol version: 'version 3'");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s capabilities^{}%cagent=x\n", fx_hexid(h, '1'), 0);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "'capabilities^{}' with a non-zero");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s capabilities^{}%cagent=x\n", fx_hexid(h, '0'), 0);
	fx_pkt(&in, "%s refs/heads/main\n", fx_hexid(h, '1'));
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "unexpected line in the ref advertisement");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s HEAD%cagent=x\n", fx_hexid(h, 'a'), 0);
	fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'b'));
	fx_pkt(&in, "%s refs/heads/late\n", fx_hexid(h, 'c'));
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "unexpected line in the ref advertisement");

	/* A tag peeled twice. */
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s refs/tags/t%cagent=x\n", fx_hexid(h, 'a'), 0);
	fx_pkt(&in, "%s refs/tags/t^{}\n", fx_hexid(h, 'b'));
	fx_pkt(&in, "%s refs/tags/t^{}\n", fx_hexid(h, 'c'));
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "a peeled ref that does not follow its tag");

	/* Capabilities that lie. */
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s HEAD%csymref=HEAD:refs/heads/a..b\n", fx_hexid(h, 'a'), 0);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "invalid ref name 'refs/heads/a..b'");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s HEAD%csymref=HEAD\n", fx_hexid(h, 'a'), 0);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "malformed symref capability");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s HEAD%cobject-format=sha512\n", fx_hexid(h, 'a'), 0);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_EUNSUPPORTED, "object format 'sha512'");
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s HEAD%cagent=a\x01z\n", fx_hexid(h, 'a'), 0);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "control character in the capability list");
	/* A sha256 server that does not say so. */
	wg_buf_reset(&in);
	header(&in);
	fx_pkt(&in, "%s HEAD%cagent=x\n", fx_hexid(fx_sha256(), 'a'), 0);
	fx_flush(&in);
	check_adv(&in, "git-upload-pack", NULL, WG_ECORRUPT, "a sha256 id, but the sha1 object format");
	wg_buf_release(&in);
}

/* --- ls-refs ---------------------------------------------------------------------- */

/* Expected request bytes, framed independently of wg_pkt_write. */
static void want_pkt(struct wg_buf *b, const char *s)
{
	wg_buf_printf(b, "%04zx%s", strlen(s) + 4, s);
}

static struct wg_caps *v2_caps(const char *const *lines)
{
	struct wg_caps *caps;
	CHECK_OK(wg_caps_new(&caps, 2));
	for (; *lines; lines++)
		CHECK_OK(wg_caps_add_v2_line(caps, *lines, strlen(*lines)));
	return caps;
}

static void test_ls_refs_request(void)
{
	static const char *const prefixes[] = { "HEAD", "refs/heads/", "refs/tags/" };
	static const char *const server_options[] = { "trace=1", "x y" };
	static const char *const full[] = { "agent=git/2.53.0", "ls-refs=unborn", "fetch=filter",
					    "server-option", "object-format=sha256", NULL };
	static const char *const bare[] = { "ls-refs", "fetch", NULL };
	static const char *const no_ls_refs[] = { "fetch", "agent=x", NULL };
	struct wg_ls_refs_options opts = WG_LS_REFS_OPTIONS_INIT;
	struct wg_buf out = WG_BUF_INIT, want = WG_BUF_INIT;
	struct wg_caps *caps;

	/* Without server capabilities: everything asked for. */
	opts.agent = "webgit/0.1";
	opts.algo = fx_sha256();
	opts.prefixes = prefixes;
	opts.prefix_count = 3;
	opts.server_options = server_options;
	opts.server_option_count = 2;
	CHECK_OK(wg_ls_refs_request(&out, NULL, &opts));
	want_pkt(&want, "command=ls-refs\n");
	want_pkt(&want, "agent=webgit/0.1\n");
	want_pkt(&want, "object-format=sha256\n");
	want_pkt(&want, "server-option=trace=1\n");
	want_pkt(&want, "server-option=x y\n");
	wg_buf_adds(&want, "0001");
	want_pkt(&want, "peel\n");
	want_pkt(&want, "symrefs\n");
	want_pkt(&want, "unborn\n");
	want_pkt(&want, "ref-prefix HEAD\n");
	want_pkt(&want, "ref-prefix refs/heads/\n");
	want_pkt(&want, "ref-prefix refs/tags/\n");
	wg_buf_adds(&want, "0000");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));

	/* A server that advertises it all: the same, object-format its own. */
	caps = v2_caps(full);
	opts.algo = NULL;
	wg_buf_reset(&out);
	CHECK_OK(wg_ls_refs_request(&out, caps, &opts));
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));
	opts.algo = fx_sha1();
	wg_buf_reset(&out);
	CHECK_ERR(wg_ls_refs_request(&out, caps, &opts), WG_EUNSUPPORTED);
	CHECK(strstr(wg_error_message(), "uses sha256 object ids but sha1 was requested") != NULL);
	CHECK(out.len == 0);
	wg_caps_free(caps);

	/* A minimal server: no agent, no unborn, no object-format line. */
	caps = v2_caps(bare);
	opts.server_option_count = 0;
	opts.prefix_count = 0;
	opts.algo = fx_sha1();
	opts.peel = false;
	wg_buf_reset(&out);
	CHECK_OK(wg_ls_refs_request(&out, caps, &opts));
	wg_buf_reset(&want);
	want_pkt(&want, "command=ls-refs\n");
	wg_buf_adds(&want, "0001");
	want_pkt(&want, "symrefs\n");
	wg_buf_adds(&want, "0000");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));
	opts.algo = fx_sha256();
	CHECK_ERR(wg_ls_refs_request(&out, caps, &opts), WG_EUNSUPPORTED);
	opts.algo = NULL;
	opts.server_option_count = 1;
	CHECK_ERR(wg_ls_refs_request(&out, caps, &opts), WG_EUNSUPPORTED);
	CHECK(strstr(wg_error_message(), "server options") != NULL);
	opts.server_option_count = 0;
	wg_caps_free(caps);
	caps = v2_caps(no_ls_refs);
	CHECK_ERR(wg_ls_refs_request(&out, caps, &opts), WG_EUNSUPPORTED);
	CHECK(strstr(wg_error_message(), "ls-refs") != NULL);
	wg_caps_free(caps);
	CHECK_OK(wg_caps_parse_v1(&caps, "ls-refs", 7));
	CHECK_ERR(wg_ls_refs_request(&out, caps, &opts), WG_EINVALID);
	wg_caps_free(caps);

	/* Option values that would break the framing or the protocol. */
	wg_buf_reset(&out);
	CHECK_OK(wg_buf_adds(&out, "keep"));
	opts.agent = "web git";
	CHECK_ERR(wg_ls_refs_request(&out, NULL, &opts), WG_EINVALID);
	opts.agent = "web\x01git";
	CHECK_ERR(wg_ls_refs_request(&out, NULL, &opts), WG_EINVALID);
	opts.agent = "";
	CHECK_ERR(wg_ls_refs_request(&out, NULL, &opts), WG_EINVALID);
	opts.agent = NULL;
	{
		static const char *const bad_prefix[] = { "refs/heads/\nref-prefix x" };
		static const char *const null_prefix[] = { NULL };
		opts.prefixes = bad_prefix;
		opts.prefix_count = 1;
		CHECK_ERR(wg_ls_refs_request(&out, NULL, &opts), WG_EINVALID);
		opts.prefixes = null_prefix;
		CHECK_ERR(wg_ls_refs_request(&out, NULL, &opts), WG_EINVALID);
		opts.prefix_count = 0;
		opts.server_options = bad_prefix;
		opts.server_option_count = 1;
		CHECK_ERR(wg_ls_refs_request(&out, NULL, &opts), WG_EINVALID);
	}
	CHECK_STR(wg_buf_cstr(&out), "keep");
	wg_buf_release(&out);
	wg_buf_release(&want);
}

static int run_ls_refs(const struct wg_buf *in, size_t split, const struct wg_hash_algo *algo,
		       struct wg_buf *summary, char *msg, size_t msgsz)
{
	struct wg_ls_refs_parser *p;
	struct fx_chunker c;
	unsigned char *chunk;
	size_t n;
	int rc = WG_ENEEDMORE;
	CHECK_OK(wg_ls_refs_parser_new(&p, algo));
	fx_chunker_init(&c, in->data, in->len, split);
	msg[0] = '\0';
	while ((chunk = fx_chunker_next(&c, &n))) {
		rc = wg_ls_refs_parser_feed(p, chunk, n);
		free(chunk);
		if (rc != 0 && rc != WG_ENEEDMORE)
			break;
	}
	if (rc == 0 || rc == WG_ENEEDMORE)
		rc = wg_ls_refs_parser_finish(p);
	if (rc) {
		snprintf(msg, msgsz, "%s", wg_error_message());
		CHECK_ERR(wg_ls_refs_parser_feed(p, "0000", 4), rc);
		CHECK_STR(wg_error_message(), msg);
	} else {
		summarize_refs(summary, wg_ls_refs_parser_refs(p));
	}
	wg_ls_refs_parser_free(p);
	return rc;
}

static void check_ls_refs(const struct wg_buf *in, const struct wg_hash_algo *algo, int want_rc,
			  const char *want)
{
	struct wg_buf summary = WG_BUF_INIT;
	char msg[1024];
	size_t s;
	for (s = 0; s <= in->len + 1; s++) {
		int rc;
		wg_buf_reset(&summary);
		rc = run_ls_refs(in, s == in->len + 1 ? FX_BYTEWISE : s, algo, &summary, msg, sizeof(msg));
		CHECK(rc == want_rc);
		if (want_rc == 0)
			CHECK_STR(wg_buf_cstr(&summary), want);
		else if (!strstr(msg, want)) {
			CHECK(strstr(msg, want) != NULL);
			fprintf(stderr, "  split %zu: message was: %s\n", s, msg);
		}
		if (rc != want_rc)
			break;
	}
	wg_buf_release(&summary);
}

static void test_ls_refs_response(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_buf in = WG_BUF_INIT;
	fx_pkt(&in, "%s HEAD symref-target:refs/heads/main\n", fx_hexid(h, 'a'));
	fx_pkt(&in, "%s refs/heads/main\n", fx_hexid(h, 'a'));
	fx_pkt(&in, "%s refs/tags/v1 peeled:%s\n", fx_hexid(h, 'c'), fx_hexid(h, 'd'));
	/* Attributes in any order; unknown ones ignored. */
	fx_pkt(&in, "%s refs/tags/v2 future:x peeled:%s symref-target:refs/tags/v1", fx_hexid(h, 'e'),
	    fx_hexid(h, 'd'));
	fx_flush(&in);
	check_ls_refs(&in, h, 0,
		      "HEAD=aaaaaaaa->refs/heads/main;refs/heads/main=aaaaaaaa;"
		      "refs/tags/v1=cccccccc^dddddddd;refs/tags/v2=eeeeeeee^dddddddd->refs/tags/v1");
	/* A stateless response may end with 0002 after the flush. */
	CHECK_OK(wg_pkt_write_response_end(&in));
	check_ls_refs(&in, h, 0,
		      "HEAD=aaaaaaaa->refs/heads/main;refs/heads/main=aaaaaaaa;"
		      "refs/tags/v1=cccccccc^dddddddd;refs/tags/v2=eeeeeeee^dddddddd->refs/tags/v1");

	/* An empty repository, sha256. */
	wg_buf_reset(&in);
	fx_pkt(&in, "unborn HEAD symref-target:refs/heads/main\n");
	fx_flush(&in);
	check_ls_refs(&in, fx_sha256(), 0, "HEAD=00000000->refs/heads/main(unborn)");
	wg_buf_reset(&in);
	fx_flush(&in);
	check_ls_refs(&in, fx_sha256(), 0, "");
	wg_buf_release(&in);
}

static void check_bad_ls_refs_line(const char *line, int want_rc, const char *want)
{
	struct wg_buf in = WG_BUF_INIT;
	fx_pkt(&in, "%s refs/heads/ok\n", fx_hexid(fx_sha1(), 'a'));
	CHECK_OK(wg_pkt_write(&in, line, strlen(line)));
	fx_flush(&in);
	check_ls_refs(&in, fx_sha1(), want_rc, want);
	wg_buf_release(&in);
}

static void test_ls_refs_adversarial(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_remote_ref_list list = WG_REMOTE_REF_LIST_INIT;
	struct wg_buf in = WG_BUF_INIT;
	char line[512];
#define BAD(rc, want, ...) do { \
		snprintf(line, sizeof(line), __VA_ARGS__); \
		check_bad_ls_refs_line(line, rc, want); \
	} while (0)
	BAD(WG_ECORRUPT, "invalid ref name 'refs/heads/a..b'", "%s refs/heads/a..b\n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "'refs/heads/\\x01'", "%s refs/heads/\x01\n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "not HEAD and not under refs/", "%s ORIG_HEAD\n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "has 39 hex digits", "%.39s refs/heads/x\n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "a sha256 id", "%s refs/heads/x\n", fx_hexid(fx_sha256(), 'b'));
	BAD(WG_ECORRUPT, "not hexadecimal", "%.39sz refs/heads/x\n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "not hexadecimal", "%s refs/tags/x peeled:%.39sz\n", fx_hexid(h, 'b'),
	    fx_hexid(h, 'c'));
	BAD(WG_ECORRUPT, "has 41 hex digits", "%s refs/tags/x peeled:%sc\n", fx_hexid(h, 'b'),
	    fx_hexid(h, 'c'));
	BAD(WG_ECORRUPT, "invalid ref name 'refs/heads/x.lock'",
	    "%s HEAD symref-target:refs/heads/x.lock\n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "empty field", "%s  refs/heads/x\n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "empty field", "%s refs/heads/x \n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "expected '<object id> <ref name>'", "%s\n", fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "empty field", "\n");
	BAD(WG_ECORRUPT, "two symref-target", "%s HEAD symref-target:refs/a/b symref-target:refs/a/c",
	    fx_hexid(h, 'b'));
	BAD(WG_ECORRUPT, "two peeled", "%s refs/tags/t peeled:%s peeled:%s", fx_hexid(h, 'b'),
	    fx_hexid(h, 'c'), fx_hexid(h, 'd'));
	BAD(WG_ECORRUPT, "an unborn ref cannot be peeled", "unborn HEAD peeled:%s", fx_hexid(h, 'c'));
	BAD(WG_ERROR, "remote error: ls-refs failed", "ERR ls-refs failed\n");
	/* Framing: delim or response-end before the flush, data after it. */
	fx_pkt(&in, "%s refs/heads/ok\n", fx_hexid(h, 'a'));
	CHECK_OK(wg_pkt_write_delim(&in));
	check_ls_refs(&in, h, WG_ECORRUPT, "expected a flush packet after the ref listing, got delim");
	wg_buf_reset(&in);
	CHECK_OK(wg_pkt_write_response_end(&in));
	check_ls_refs(&in, h, WG_ECORRUPT, "got response-end");
	wg_buf_reset(&in);
	fx_flush(&in);
	CHECK_OK(wg_pkt_write_response_end(&in));
	CHECK_OK(wg_pkt_write_response_end(&in));
	check_ls_refs(&in, h, WG_ECORRUPT, "unexpected data after the end of the ls-refs response");
	wg_buf_reset(&in);
	fx_flush(&in);
	fx_flush(&in);
	check_ls_refs(&in, h, WG_ECORRUPT, "unexpected data after the end");
	wg_buf_reset(&in);
	fx_pkt(&in, "%s refs/heads/ok\n", fx_hexid(h, 'a'));
	check_ls_refs(&in, h, WG_ECORRUPT, "ended before its final flush packet");
	wg_buf_reset(&in);
	CHECK_OK(wg_buf_adds(&in, "0000000"));
	check_ls_refs(&in, h, WG_ECORRUPT, "truncated");
	wg_buf_reset(&in);
	CHECK_OK(wg_buf_adds(&in, "zzzz"));
	check_ls_refs(&in, h, WG_ECORRUPT, "bad pkt-line length 'zzzz'");

	/* The line parser alone; a failure leaves the list as it was. */
	snprintf(line, sizeof(line), "%s refs/heads/a\n", fx_hexid(h, '5'));
	CHECK_OK(wg_ls_refs_parse_line(&list, h, line, strlen(line)));
	snprintf(line, sizeof(line), "%s refs/heads/b symref-target:refs/x/y peeled:%.5s", fx_hexid(h, '6'),
		 fx_hexid(h, '6'));
	CHECK_ERR(wg_ls_refs_parse_line(&list, h, line, strlen(line)), WG_ECORRUPT);
	CHECK(list.nr == 1);
	CHECK(wg_remote_ref_list_find(&list, "refs/heads/a") != NULL);
	CHECK(wg_remote_ref_list_find(&list, "refs/heads/b") == NULL);
	wg_remote_ref_list_release(&list);
	wg_remote_ref_list_release(&list);
	{
		struct wg_ls_refs_parser *p;
		CHECK_ERR(wg_ls_refs_parser_new(&p, NULL), WG_EINVALID);
		wg_ls_refs_parser_free(NULL);
	}
	wg_buf_release(&in);
#undef BAD
}

static void test_remote_ref_helpers(void)
{
	struct wg_oid oid;
	char *name;
	CHECK_OK(wg_remote_refname_dup(&name, "HEADxyz", 4));
	CHECK_STR(name, "HEAD");
	wg_free(name);
	CHECK_OK(wg_remote_refname_dup(&name, "refs/heads/ü", strlen("refs/heads/ü")));
	wg_free(name);
	CHECK_ERR(wg_remote_refname_dup(&name, "HEAD\0", 5), WG_ECORRUPT);
	CHECK(name == NULL);
	CHECK(strstr(wg_error_message(), "'HEAD\\x00': contains a NUL byte") != NULL);
	CHECK_ERR(wg_remote_refname_dup(&name, "refs", 4), WG_ECORRUPT);
	CHECK_ERR(wg_remote_refname_dup(&name, "refs/x", 6), 0);
	wg_free(name);
	CHECK_ERR(wg_remote_refname_dup(&name, "refs/heads/*", 12), WG_ECORRUPT);
	/* Found by fuzz_refname: a name so long that the rule it breaks was
	 * cut off the end of the error message was taken as valid. Every
	 * length around the message buffer's size must still be refused. */
	{
		struct wg_buf long_name = WG_BUF_INIT;
		int refused = 0, total = 0;
		for (size_t n = 900; n < 1200; n++) {
			wg_buf_reset(&long_name);
			wg_buf_adds(&long_name, "refs/heads/");
			while (long_name.len < n)
				wg_buf_addch(&long_name, 'a');
			wg_buf_adds(&long_name, "/../x");
			name = NULL;
			total++;
			if (wg_remote_refname_dup(&name, (const char *)long_name.data,
						  long_name.len) == WG_ECORRUPT && !name)
				refused++;
			wg_free(name);
		}
		CHECK(refused == total);
		wg_buf_release(&long_name);
	}
	CHECK_OK(wg_remote_oid_parse(&oid, fx_sha256(), fx_hexid(fx_sha256(), 'A'), fx_sha256()->hexsz));
	CHECK(wg_oid_algo(&oid) == fx_sha256());
	CHECK_STR(wg_oid_hex(&oid), fx_hexid(fx_sha256(), 'a'));
	CHECK_ERR(wg_remote_oid_parse(&oid, fx_sha256(), fx_hexid(fx_sha1(), 'a'), fx_sha1()->hexsz), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "a sha1 id, but the sha256 object format is in use") != NULL);
}

WG_TEST_MAIN("protocol",
	WG_TEST(test_sideband_demux),
	WG_TEST(test_sideband_limits),
	WG_TEST(test_sideband_stream),
	WG_TEST(test_sideband_endless_flushes),
	WG_TEST(test_progress_server_fetch),
	WG_TEST(test_progress_throughput),
	WG_TEST(test_progress_messages_and_odd_lines),
	WG_TEST(test_progress_long_line_bounded),
	WG_TEST(test_caps_v1),
	WG_TEST(test_caps_v2),
	WG_TEST(test_adv_v0),
	WG_TEST(test_adv_v1_sha256_and_empty),
	WG_TEST(test_adv_v2),
	WG_TEST(test_adv_bad_refs),
	WG_TEST(test_adv_bad_structure),
	WG_TEST(test_ls_refs_request),
	WG_TEST(test_ls_refs_response),
	WG_TEST(test_ls_refs_adversarial),
	WG_TEST(test_remote_ref_helpers))
