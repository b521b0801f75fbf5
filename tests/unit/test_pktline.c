/* Unit tests for pkt-line framing (core/protocol/pktline.h): the writer,
 * and the sans-IO reader fed whole, byte by byte and split at every
 * offset, with the malformed inputs a hostile server could send. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "protocol/pktline.h"
#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"

/* --- helpers ----------------------------------------------------------------- */

/* Describe a packet in a trace: "F", "D", "R" for specials, "[payload]"
 * (C-escaped) for data. */
static void trace_pkt(struct wg_buf *trace, const struct wg_pkt *pkt)
{
	char q[70000 * 4 / 3 + 1024];
	switch (pkt->type) {
	case WG_PKT_FLUSH: wg_buf_adds(trace, "F"); break;
	case WG_PKT_DELIM: wg_buf_adds(trace, "D"); break;
	case WG_PKT_RESPONSE_END: wg_buf_adds(trace, "R"); break;
	case WG_PKT_DATA:
		CHECK(pkt->data != NULL);
		wg_buf_printf(trace, "[%s]", wg_pkt_quote(q, sizeof(q), pkt->data, pkt->len, false));
		break;
	}
}

/* Feed `in` to a fresh reader in chunks: split == SIZE_MAX means byte by
 * byte, otherwise two chunks cut at `split`. Each chunk is a private copy
 * freed right after use, so a packet that still pointed into an old chunk
 * would be caught by ASan. Returns the code that stopped the run (0 if
 * the input ended cleanly, per wg_pkt_reader_finish) and the trace. */
static int run_reader(const unsigned char *in, size_t len, size_t split, unsigned flags,
		      struct wg_buf *trace, char *errmsg, size_t errsz)
{
	struct wg_pkt_reader *r;
	size_t pos = 0;
	int rc = 0;
	CHECK_OK(wg_pkt_reader_new(&r, flags));
	if (errmsg)
		errmsg[0] = '\0';
	while (pos < len || (split != SIZE_MAX && pos == 0 && len == 0)) {
		size_t n = split == SIZE_MAX ? 1 : (pos < split ? split - pos : len - pos);
		unsigned char *chunk = malloc(n ? n : 1);
		const unsigned char *p = chunk;
		size_t left = n;
		memcpy(chunk, in + pos, n);
		pos += n;
		for (;;) {
			struct wg_pkt pkt;
			rc = wg_pkt_reader_read(r, &pkt, &p, &left);
			if (rc == WG_ENEEDMORE) {
				CHECK(left == 0);
				rc = 0;
				break;
			}
			if (rc)
				break;
			trace_pkt(trace, &pkt);
		}
		free(chunk);
		if (rc)
			break;
		if (len == 0)
			break;
	}
	if (!rc)
		rc = wg_pkt_reader_finish(r);
	if (rc && errmsg)
		snprintf(errmsg, errsz, "%s", wg_error_message());
	wg_pkt_reader_free(r);
	return rc;
}

/* Run every chunking and check each gives the expected code and trace
 * (and, on error, the same message as the whole run). */
static void check_all_splits(const void *data, size_t len, unsigned flags, int want_rc,
			     const char *want_trace, const char *want_msg_part)
{
	const unsigned char *in = data;
	char whole_msg[1024], msg[1024];
	struct wg_buf trace = WG_BUF_INIT;
	size_t split;
	int rc = run_reader(in, len, len, flags, &trace, whole_msg, sizeof(whole_msg));
	CHECK(rc == want_rc);
	CHECK_STR(wg_buf_cstr(&trace), want_trace);
	if (want_msg_part) {
		CHECK(strstr(whole_msg, want_msg_part) != NULL);
		if (!strstr(whole_msg, want_msg_part))
			fprintf(stderr, "  message was: %s\n", whole_msg);
	}
	for (split = 0; split <= len + 1; split++) {
		size_t s = split == len + 1 ? SIZE_MAX : split;
		wg_buf_reset(&trace);
		rc = run_reader(in, len, s, flags, &trace, msg, sizeof(msg));
		CHECK(rc == want_rc);
		CHECK_STR(wg_buf_cstr(&trace), want_trace);
		if (want_rc)
			CHECK_STR(msg, whole_msg);
	}
	wg_buf_release(&trace);
}

/* --- writer ---------------------------------------------------------------- */

static void test_write_spec_examples(void)
{
	struct wg_buf b = WG_BUF_INIT;
	/* gitprotocol-common(5) examples. */
	CHECK_OK(wg_pkt_writes(&b, "a\n"));
	CHECK_OK(wg_pkt_writes(&b, "a"));
	CHECK_OK(wg_pkt_writes(&b, "foobar\n"));
	CHECK_OK(wg_pkt_writes(&b, ""));
	CHECK_OK(wg_pkt_write_flush(&b));
	CHECK_OK(wg_pkt_write_delim(&b));
	CHECK_OK(wg_pkt_write_response_end(&b));
	CHECK_OK(wg_pkt_printf(&b, "want %s %d\n", "x", 7));
	CHECK_STR(wg_buf_cstr(&b), "0006a\n0005a000bfoobar\n0004000000010002000dwant x 7\n");
	/* 8-bit clean. */
	wg_buf_reset(&b);
	CHECK_OK(wg_pkt_write(&b, "\0\xff\n", 3));
	CHECK(b.len == 7);
	CHECK_MEM(b.data, "0007\0\xff\n", 7);
	wg_buf_release(&b);
}

static void test_write_limits(void)
{
	struct wg_buf b = WG_BUF_INIT;
	unsigned char *big = malloc(WG_PKT_MAX_PAYLOAD + 2);
	char *fmt_big = malloc(WG_PKT_MAX_PAYLOAD + 2);
	memset(big, 'x', WG_PKT_MAX_PAYLOAD + 1);
	memset(fmt_big, 'y', WG_PKT_MAX_PAYLOAD + 1);
	fmt_big[WG_PKT_MAX_PAYLOAD + 1] = '\0';

	CHECK_OK(wg_pkt_writes(&b, "keep"));
	CHECK_ERR(wg_pkt_write(&b, big, WG_PKT_MAX_PAYLOAD + 1), WG_EINVALID);
	CHECK(strstr(wg_error_message(), "65516") != NULL);
	CHECK_STR(wg_buf_cstr(&b), "0008keep");
	CHECK_ERR(wg_pkt_printf(&b, "%s", fmt_big), WG_EINVALID);
	CHECK_STR(wg_buf_cstr(&b), "0008keep");
	CHECK(b.len == 8);

	/* Exactly the maximum is fine: total length 65520 = "fff0". */
	wg_buf_reset(&b);
	CHECK_OK(wg_pkt_write(&b, big, WG_PKT_MAX_PAYLOAD));
	CHECK(b.len == WG_PKT_MAX_SIZE);
	CHECK_MEM(b.data, "fff0", 4);
	fmt_big[WG_PKT_MAX_PAYLOAD] = '\0';
	wg_buf_reset(&b);
	CHECK_OK(wg_pkt_printf(&b, "%s", fmt_big));
	CHECK(b.len == WG_PKT_MAX_SIZE);
	CHECK_MEM(b.data, "fff0", 4);
	wg_buf_release(&b);
	free(big);
	free(fmt_big);
}

/* --- reader ---------------------------------------------------------------- */

static void test_read_spec_examples(void)
{
	static const char in[] = "0006a\n0005a000bfoobar\n0004000000010002000dwant x 7\n";
	check_all_splits(in, sizeof(in) - 1, 0, 0, "[a\\n][a][foobar\\n][]FDR[want x 7\\n]", NULL);
	/* Binary payload, NUL included. */
	check_all_splits("0007\0\xff\n0000", 11, 0, 0, "[\\x00\\xff\\n]F", NULL);
	/* Upper-case hex digits in the length are accepted, as git does. */
	check_all_splits("000Aabcdef", 10, 0, 0, "[abcdef]", NULL);
	/* Empty input is a clean end. */
	check_all_splits("", 0, 0, 0, "", NULL);
}

static void test_read_zero_copy_and_buffered(void)
{
	static const unsigned char in[] = "0009hello0000";
	struct wg_pkt_reader *r;
	struct wg_pkt pkt;
	const unsigned char *p = in;
	size_t left = sizeof(in) - 1;
	CHECK_OK(wg_pkt_reader_new(&r, 0));
	CHECK_OK(wg_pkt_reader_read(r, &pkt, &p, &left));
	/* A packet whole in the input is handed out in place. */
	CHECK(pkt.type == WG_PKT_DATA && pkt.len == 5 && pkt.data == in + 4);
	CHECK(p == in + 9 && left == 4);
	CHECK(!wg_pkt_reader_pending(r));
	CHECK_OK(wg_pkt_reader_read(r, &pkt, &p, &left));
	CHECK(pkt.type == WG_PKT_FLUSH && pkt.len == 0 && pkt.data != NULL);
	CHECK_ERR(wg_pkt_reader_read(r, &pkt, &p, &left), WG_ENEEDMORE);
	/* Empty input: nothing to do, not an error. */
	CHECK_ERR(wg_pkt_reader_read(r, &pkt, &p, &left), WG_ENEEDMORE);
	CHECK_OK(wg_pkt_reader_finish(r));

	/* Split: the reader buffers, and says so. */
	p = in;
	left = 6;
	CHECK_ERR(wg_pkt_reader_read(r, &pkt, &p, &left), WG_ENEEDMORE);
	CHECK(left == 0 && wg_pkt_reader_pending(r));
	CHECK_ERR(wg_pkt_reader_finish(r), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "truncated") != NULL);
	left = 3;
	CHECK_OK(wg_pkt_reader_read(r, &pkt, &p, &left));
	CHECK(pkt.len == 5 && !memcmp(pkt.data, "hello", 5));
	CHECK(!wg_pkt_reader_pending(r));
	wg_pkt_reader_free(r);
	wg_pkt_reader_free(NULL);
}

static void test_read_max_packet(void)
{
	struct wg_buf b = WG_BUF_INIT, want = WG_BUF_INIT;
	unsigned char *payload = malloc(WG_PKT_MAX_PAYLOAD);
	size_t i;
	for (i = 0; i < WG_PKT_MAX_PAYLOAD; i++)
		payload[i] = (unsigned char)('a' + i % 26);
	CHECK_OK(wg_pkt_write(&b, payload, WG_PKT_MAX_PAYLOAD));
	CHECK_OK(wg_pkt_write_flush(&b));
	/* Whole and byte by byte (every split would take too long here). */
	{
		struct wg_buf t1 = WG_BUF_INIT, t2 = WG_BUF_INIT;
		CHECK_OK(run_reader(b.data, b.len, b.len, 0, &t1, NULL, 0));
		CHECK_OK(run_reader(b.data, b.len, SIZE_MAX, 0, &t2, NULL, 0));
		CHECK_OK(run_reader(b.data, b.len, 5, 0, &want, NULL, 0));
		CHECK_STR(wg_buf_cstr(&t1), wg_buf_cstr(&t2));
		CHECK_STR(wg_buf_cstr(&t1), wg_buf_cstr(&want));
		CHECK(t1.len > WG_PKT_MAX_PAYLOAD);
		wg_buf_release(&t1);
		wg_buf_release(&t2);
	}
	wg_buf_release(&b);
	wg_buf_release(&want);
	free(payload);
}

static void test_read_bad_lengths(void)
{
	/* 0003 is not special, and is too short for a data packet. */
	check_all_splits("0006a\n0003", 10, 0, WG_ECORRUPT, "[a\\n]", "'0003'");
	check_all_splits("0003abc", 7, 0, WG_ECORRUPT, "", "invalid pkt-line length '0003'");
	/* Non-hex length digits, quoted safely in the message. */
	check_all_splits("00x1hello", 9, 0, WG_ECORRUPT, "", "bad pkt-line length '00x1'");
	check_all_splits("\x01\x02\xff" "0", 4, 0, WG_ECORRUPT, "", "'\\x01\\x02\\xff0'");
	check_all_splits("+001", 4, 0, WG_ECORRUPT, "", "'+001'");
	check_all_splits(" 004", 4, 0, WG_ECORRUPT, "", "' 004'");
	check_all_splits("0000ZZZZ", 8, 0, WG_ECORRUPT, "F", "'ZZZZ'");
	/* Longer than 65520 in total. */
	check_all_splits("fff1", 4, 0, WG_ECORRUPT, "", "65521");
	check_all_splits("ffffabc", 7, 0, WG_ECORRUPT, "", "exceeds the maximum of 65520");
	/* Truncated: in the length, and in the payload. */
	check_all_splits("000", 3, 0, WG_ECORRUPT, "", "after 3 of 4 length bytes ('000')");
	check_all_splits("0009abc", 7, 0, WG_ECORRUPT, "", "announces 5 payload bytes but the "
			 "input ended after 3");
	check_all_splits("0004000", 7, 0, WG_ECORRUPT, "[]", "truncated");
}

static void test_read_error_is_sticky(void)
{
	static const unsigned char in[] = "0003" "0006a\n";
	struct wg_pkt_reader *r;
	struct wg_pkt pkt;
	const unsigned char *p = in;
	size_t left = sizeof(in) - 1;
	CHECK_OK(wg_pkt_reader_new(&r, 0));
	CHECK_ERR(wg_pkt_reader_read(r, &pkt, &p, &left), WG_ECORRUPT);
	/* The framing is lost: a valid-looking packet after it is refused. */
	p = in + 4;
	left = 6;
	CHECK_ERR(wg_pkt_reader_read(r, &pkt, &p, &left), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "out of sync") != NULL);
	CHECK_ERR(wg_pkt_reader_finish(r), WG_ECORRUPT);
	wg_pkt_reader_free(r);
}

static void test_read_err_packets(void)
{
	static const char in[] = "0006a\n0016ERR access denied\n0006b\n";
	struct wg_pkt_reader *r;
	struct wg_pkt pkt;
	const unsigned char *p = (const unsigned char *)in;
	size_t left = sizeof(in) - 1;

	/* Without the flag an ERR packet is plain data. */
	check_all_splits(in, sizeof(in) - 1, 0, 0, "[a\\n][ERR access denied\\n][b\\n]", NULL);
	/* With it, the run stops with the remote's message, LF stripped. */
	check_all_splits(in, sizeof(in) - 1, WG_PKT_READ_ERR_PACKETS, WG_ERROR, "[a\\n]",
			 "remote error: access denied");
	CHECK_STR(wg_error_message(), "remote error: access denied");

	/* The ERR packet is consumed; the reader stays in sync. */
	CHECK_OK(wg_pkt_reader_new(&r, WG_PKT_READ_ERR_PACKETS));
	CHECK_OK(wg_pkt_reader_read(r, &pkt, &p, &left));
	CHECK_ERR(wg_pkt_reader_read(r, &pkt, &p, &left), WG_ERROR);
	CHECK_OK(wg_pkt_reader_read(r, &pkt, &p, &left));
	CHECK(pkt.len == 2 && !memcmp(pkt.data, "b\n", 2));
	wg_pkt_reader_free(r);

	/* A hostile message cannot smuggle terminal escapes into ours. */
	check_all_splits("0013ERR \x1b[2J\r\ngone\n", 19, WG_PKT_READ_ERR_PACKETS, WG_ERROR, "",
			 "remote error: \\x1b[2J\\r\\ngone");
	/* "ERR" without the space, or mid-payload, is data. */
	check_all_splits("0007ERR0008xERR", 15, WG_PKT_READ_ERR_PACKETS, 0, "[ERR][xERR]", NULL);
}





static void test_endless_stream_bounded(void)
{
	const struct wg_allocator al = fx_tracking_allocator;
	enum { CHUNK = 4096, PIECE = 4093, ROUNDS = 512 };  /* 2 MiB of flushes */
	unsigned char *chunk = malloc(CHUNK);
	struct wg_buf big = WG_BUF_INIT;
	struct wg_pkt_reader *r;
	size_t i, off = 0, flushes = 0, datas = 0;
	unsigned char *payload;
	int rc;
	for (i = 0; i < CHUNK; i += 4)
		memcpy(chunk + i, "0000", 4);
	memset(&fx_tracked, 0, sizeof(fx_tracked));
	wg_allocator_set(&al);
	CHECK_OK(wg_pkt_reader_new(&r, WG_PKT_READ_ERR_PACKETS));
	/* The stream is "0000" forever; pieces of an odd size keep packets
	 * straddling the pieces. */
	for (i = 0; i < ROUNDS; i++) {
		const unsigned char *p = chunk + off % 4;
		size_t left = PIECE, calls = 0;
		struct wg_pkt pkt;
		while ((rc = wg_pkt_reader_read(r, &pkt, &p, &left)) == 0) {
			CHECK(pkt.type == WG_PKT_FLUSH);
			flushes++;
			/* Each call makes progress: a packet takes 4 bytes. */
			calls++;
		}
		CHECK(rc == WG_ENEEDMORE);
		CHECK(calls <= PIECE / 4 + 1);
		off += PIECE;
	}
	CHECK(flushes == (size_t)ROUNDS * PIECE / 4);
	/* Nothing but the reader itself is held. */
	CHECK(fx_tracked.peak < 256);

	/* Maximal packets, fed in 7-byte pieces: one packet's worth of
	 * buffer, never more. */
	wg_allocator_set(NULL);
	payload = malloc(WG_PKT_MAX_PAYLOAD);
	memset(payload, 'p', WG_PKT_MAX_PAYLOAD);
	for (i = 0; i < 8; i++)
		CHECK_OK(wg_pkt_write(&big, payload, WG_PKT_MAX_PAYLOAD));
	wg_allocator_set(&al);
	fx_tracked.peak = fx_tracked.live;
	for (i = 0; i < big.len; i += 7) {
		const unsigned char *p = big.data + i;
		size_t left = big.len - i < 7 ? big.len - i : 7;
		struct wg_pkt pkt;
		while ((rc = wg_pkt_reader_read(r, &pkt, &p, &left)) == 0) {
			CHECK(pkt.len == WG_PKT_MAX_PAYLOAD);
			datas++;
		}
		CHECK(rc == WG_ENEEDMORE);
	}
	CHECK(datas == 8);
	CHECK(fx_tracked.peak < WG_PKT_MAX_SIZE + 256);
	wg_pkt_reader_free(r);
	CHECK(fx_tracked.live == 0);
	wg_allocator_set(NULL);
	wg_buf_release(&big);
	free(payload);
	free(chunk);
}

static int fail_budget;

static void *failing_malloc(size_t n, void *p)
{
	(void)p;
	return fail_budget-- > 0 ? malloc(n ? n : 1) : NULL;
}

static void *failing_realloc(void *ptr, size_t n, void *p)
{
	(void)p;
	return fail_budget-- > 0 ? realloc(ptr, n ? n : 1) : NULL;
}

static void failing_free(void *ptr, void *p)
{
	(void)p;
	free(ptr);
}

static void test_out_of_memory(void)
{
	static const struct wg_allocator al = { failing_malloc, failing_realloc, failing_free, NULL };
	static const unsigned char in[] = "0009hello";
	struct wg_pkt_reader *r = (struct wg_pkt_reader *)1;
	struct wg_pkt pkt;
	const unsigned char *p = in;
	size_t left = 5;
	wg_allocator_set(&al);
	fail_budget = 0;
	CHECK_ERR(wg_pkt_reader_new(&r, 0), WG_ENOMEM);
	CHECK(r == NULL);
	fail_budget = 1;
	CHECK_OK(wg_pkt_reader_new(&r, 0));
	/* The payload buffer cannot be had: a clean error, input kept. */
	CHECK_ERR(wg_pkt_reader_read(r, &pkt, &p, &left), WG_ENOMEM);
	CHECK(left == 1);
	fail_budget = 1;
	CHECK_ERR(wg_pkt_reader_read(r, &pkt, &p, &left), WG_ENEEDMORE);
	left = 4;
	CHECK_OK(wg_pkt_reader_read(r, &pkt, &p, &left));
	CHECK(pkt.len == 5 && !memcmp(pkt.data, "hello", 5));
	wg_pkt_reader_free(r);
	wg_allocator_set(NULL);
}

/* --- helpers ----------------------------------------------------------------- */

static void test_chomp_and_is(void)
{
	struct wg_pkt pkt = { WG_PKT_DATA, (const unsigned char *)"version 2\n", 10 };
	struct wg_pkt flush = { WG_PKT_FLUSH, (const unsigned char *)"", 0 };
	CHECK(wg_pkt_is(&pkt, "version 2"));
	CHECK(!wg_pkt_is(&pkt, "version 1"));
	CHECK(!wg_pkt_is(&pkt, "version"));
	CHECK(!wg_pkt_is(&flush, ""));
	wg_pkt_chomp(&pkt);
	CHECK(pkt.len == 9);
	CHECK(wg_pkt_is(&pkt, "version 2"));
	/* Only one LF goes. */
	pkt.data = (const unsigned char *)"x\n\n";
	pkt.len = 3;
	wg_pkt_chomp(&pkt);
	CHECK(pkt.len == 2);
	wg_pkt_chomp(&flush);
	CHECK(flush.len == 0);
}

static void test_quote(void)
{
	char out[16];
	CHECK_STR(wg_pkt_quote(out, sizeof(out), "a\tb\\\x7f", 5, false), "a\\tb\\\\\\x7f");
	CHECK_STR(wg_pkt_quote(out, sizeof(out), "\xc3\xbc", 2, true), "\xc3\xbc");
	CHECK_STR(wg_pkt_quote(out, sizeof(out), "\xc3\xbc", 2, false), "\\xc3\\xbc");
	/* Exactly fitting: no ellipsis. */
	CHECK_STR(wg_pkt_quote(out, sizeof(out), "0123456789abcde", 15, false), "0123456789abcde");
	/* Too long: cut with "...", never past the buffer. */
	CHECK_STR(wg_pkt_quote(out, sizeof(out), "0123456789abcdef", 16, false), "0123456789ab...");
	CHECK_STR(wg_pkt_quote(out, sizeof(out), "\x01\x01\x01\x01\x01", 5, false),
		  "\\x01\\x01\\x01...");
	CHECK(strlen(wg_pkt_quote(out, 3, "abcdef", 6, false)) <= 2);
	CHECK_STR(wg_pkt_quote(out, sizeof(out), "", 0, false), "");
}

WG_TEST_MAIN("pktline",
	WG_TEST(test_write_spec_examples),
	WG_TEST(test_write_limits),
	WG_TEST(test_read_spec_examples),
	WG_TEST(test_read_zero_copy_and_buffered),
	WG_TEST(test_read_max_packet),
	WG_TEST(test_read_bad_lengths),
	WG_TEST(test_read_error_is_sticky),
	WG_TEST(test_read_err_packets),
	WG_TEST(test_endless_stream_bounded),
	WG_TEST(test_out_of_memory),
	WG_TEST(test_chomp_and_is),
	WG_TEST(test_quote))
