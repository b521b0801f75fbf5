/* Unit tests for the hunk walk (diff/unified.h) that both the patch text
 * and the JavaScript diff's structured hunks come from: the numbers and
 * function lines it hands out are those of git's headers (git diff
 * --no-index -U1 of the same texts printed "@@ -2,3 +2,3 @@ alpha()" and
 * "@@ -9,2 +9,2 @@ beta()"), each line carries its numbers on both sides,
 * the text sink prints git's bytes, and a sink's error stops the walk. */
#include <string.h>

#include "diff/unified.h"
#include "util/error.h"
#include "test.h"

static const char old_text[] = "alpha()\n one\n two\n three\nbeta()\n four\n five\n six\n seven\n end";
static const char new_text[] = "alpha()\n one\n TWO\n three\nbeta()\n four\n five\n six\n seven\n END";

struct seen {
	struct wg_buf log;
	int stop_after;       /* fail on this call (0: never) */
	int calls;
};

static int seen_hunk(void *payload, const struct wg_hunk *h)
{
	struct seen *s = payload;
	if (++s->calls == s->stop_after)
		return wg_error_set(WG_EINVALID, "stop");
	return wg_buf_printf(&s->log, "H %ld %ld %ld %ld [%.*s] [%s]\n", h->old_start, h->old_count,
			     h->new_start, h->new_count, (int)h->func_len, h->header + h->func_at,
			     h->header);
}

static int seen_line(void *payload, char type, const struct wg_line *l, long old_no, long new_no)
{
	struct seen *s = payload;
	bool eol = l->size && l->ptr[l->size - 1] == '\n';
	if (++s->calls == s->stop_after)
		return wg_error_set(WG_EINVALID, "stop");
	return wg_buf_printf(&s->log, "%c %ld %ld %.*s%s\n", type, old_no, new_no,
			     (int)(l->size - eol), l->ptr, eol ? "" : " (no eol)");
}

static void test_walk_numbers(void)
{
	struct wg_unified_options o = { 1, 0 };
	struct seen s = { WG_BUF_INIT, 0, 0 };
	struct wg_hunk_sink sink = { seen_hunk, seen_line, &s };
	struct wg_line_diff d;
	CHECK_OK(wg_line_diff_run(&d, old_text, strlen(old_text), new_text, strlen(new_text)));
	CHECK_OK(wg_unified_walk(&d, &o, &sink));
	CHECK_STR(wg_buf_cstr(&s.log), "H 2 3 2 3 [alpha()] [@@ -2,3 +2,3 @@ alpha()]\n"
				       "  2 2  one\n"
				       "- 3 0  two\n"
				       "+ 0 3  TWO\n"
				       "  4 4  three\n"
				       "H 9 2 9 2 [beta()] [@@ -9,2 +9,2 @@ beta()]\n"
				       "  9 9  seven\n"
				       "- 10 0  end (no eol)\n"
				       "+ 0 10  END (no eol)\n");
	wg_buf_release(&s.log);
	wg_line_diff_release(&d);
}

static void test_text_is_gits(void)
{
	struct wg_unified_options o = { 1, 0 };
	struct wg_buf out = WG_BUF_INIT;
	struct wg_line_diff d;
	CHECK_OK(wg_line_diff_run(&d, old_text, strlen(old_text), new_text, strlen(new_text)));
	CHECK_OK(wg_unified_hunks(&out, &d, &o));
	CHECK_STR(wg_buf_cstr(&out), "@@ -2,3 +2,3 @@ alpha()\n"
				     "  one\n"
				     "- two\n"
				     "+ TWO\n"
				     "  three\n"
				     "@@ -9,2 +9,2 @@ beta()\n"
				     "  seven\n"
				     "- end\n"
				     "\\ No newline at end of file\n"
				     "+ END\n"
				     "\\ No newline at end of file\n");
	wg_buf_release(&out);
	wg_line_diff_release(&d);
}

/* a long function line is cut to git's 80 bytes (git diff -U0 printed a
 * 92-byte header for these texts) */
static void test_long_function_line(void)
{
	struct wg_unified_options o = { 0, 0 };
	struct seen s = { WG_BUF_INIT, 0, 0 };
	struct wg_hunk_sink sink = { seen_hunk, seen_line, &s };
	struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT, want = WG_BUF_INIT;
	struct wg_line_diff d;
	for (int i = 0; i < 200; i++)
		CHECK_OK(wg_buf_addch(&a, 'f'));
	CHECK_OK(wg_buf_adds(&a, "\nx\n"));
	CHECK_OK(wg_buf_add(&b, a.data, 201));
	CHECK_OK(wg_buf_adds(&b, "y\n"));
	CHECK_OK(wg_line_diff_run(&d, (const char *)a.data, a.len, (const char *)b.data, b.len));
	CHECK_OK(wg_unified_walk(&d, &o, &sink));
	/* git keeps 80 bytes of a function line */
	/* git keeps 80 bytes of a function line: "@@ -2 +2 @@ " and 80 'f' */
	CHECK_OK(wg_buf_adds(&want, "H 2 1 2 1 ["));
	for (int i = 0; i < 80; i++)
		CHECK_OK(wg_buf_addch(&want, 'f'));
	CHECK_OK(wg_buf_adds(&want, "] [@@ -2 +2 @@ "));
	CHECK_OK(wg_buf_add(&want, a.data, 80));
	CHECK_OK(wg_buf_adds(&want, "]\n- 2 0 x\n+ 0 2 y\n"));
	CHECK_STR(wg_buf_cstr(&s.log), wg_buf_cstr(&want));
	wg_buf_release(&want);
	wg_buf_release(&s.log);
	wg_buf_release(&a);
	wg_buf_release(&b);
	wg_line_diff_release(&d);
}

static void test_sink_error_stops(void)
{
	struct wg_unified_options o = { 1, 0 };
	struct wg_line_diff d;
	CHECK_OK(wg_line_diff_run(&d, old_text, strlen(old_text), new_text, strlen(new_text)));
	for (int stop = 1; stop <= 9; stop++) {
		struct seen s = { WG_BUF_INIT, stop, 0 };
		struct wg_hunk_sink sink = { seen_hunk, seen_line, &s };
		CHECK_ERR(wg_unified_walk(&d, &o, &sink), WG_EINVALID);
		CHECK(s.calls == stop);
		wg_buf_release(&s.log);
	}
	wg_line_diff_release(&d);
}

WG_TEST_MAIN("hunk_walk", WG_TEST(test_walk_numbers), WG_TEST(test_text_is_gits),
	     WG_TEST(test_long_function_line), WG_TEST(test_sink_error_stops))
