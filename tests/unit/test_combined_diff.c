/* Unit tests for combined diffs (core/diff/combined.h) on small merges.
 * Every expected text was printed by git 2.53 (`git show --format= --cc`
 * or `-c` of a merge made with commit-tree from these blobs, the lines
 * after the ---/+++ header) and is hard-coded here. */
#include <string.h>

#include "diff/combined.h"
#include "test.h"
#include "util/buf.h"

/* The hunks of result against the parents (NULL-terminated) are want,
 * and there are some exactly when want is not empty. */
static void check_hunks_ws(const char *result, const char *const *parents, bool dense,
			   long context, unsigned whitespace, const char *want)
{
	struct wg_combined_blob r = { result, strlen(result) }, p[8];
	struct wg_combined_options o = WG_COMBINED_OPTIONS_INIT;
	struct wg_buf out = WG_BUF_INIT;
	bool shown = false;
	size_t n = 0;
	for (; parents[n]; n++) {
		p[n].data = parents[n];
		p[n].len = strlen(parents[n]);
	}
	o.dense = dense;
	o.context = context;
	o.lines.whitespace = whitespace;
	CHECK_OK(wg_combined_hunks(&out, &shown, &r, p, n, &o));
	CHECK_STR(wg_buf_cstr(&out), want);
	CHECK(shown == (*want != 0));
	wg_buf_release(&out);
}

static void check_hunks(const char *result, const char *const *parents, bool dense, long context,
			const char *want)
{
	check_hunks_ws(result, parents, dense, context, 0, want);
}

/* lines from both sides, an evil line, lines lost from each */
static void test_two_parents(void)
{
	static const char *const parents[] = {
		"int f(void)\n{\n\ta = 1;\n\tb = 0;\n\tc = 0;\n}\n",
		"int f(void)\n{\n\ta = 0;\n\tb = 2;\n\tc = 3;\n}\n", NULL
	};
	static const char want[] =
		"@@@ -1,6 -1,6 +1,7 @@@\n"
		"  int f(void)\n"
		"  {\n"
		" -\ta = 0;\n"
		" +\ta = 1;\n"
		"- \tb = 0;\n"
		"- \tc = 0;\n"
		"+ \tb = 2;\n"
		"++\tevil();\n"
		"+ \tc = 3;\n"
		"  }\n";
	const char *result = "int f(void)\n{\n\ta = 1;\n\tb = 2;\n\tevil();\n\tc = 3;\n}\n";
	check_hunks(result, parents, true, 3, want);
	check_hunks(result, parents, false, 3, want);
}

/* a line both parents lost shows once, with both columns */
static void test_lost_by_both(void)
{
	static const char *const parents[] = {
		"one\ntwo\nthree\nfour\nsix\n", "one\ntwo\nthree\nfive\nsix\nseven\n", NULL
	};
	static const char want[] =
		"@@@ -1,5 -1,6 +1,4 @@@\n"
		"  one\n"
		"  two\n"
		"--three\n"
		"- four\n"
		" -five\n"
		"  six\n"
		"+ seven\n";
	check_hunks("one\ntwo\nsix\nseven\n", parents, true, 3, want);
	check_hunks("one\ntwo\nsix\nseven\n", parents, false, 3, want);
}

/* an octopus whose hunks each take one side: --cc drops them all, -c
 * shows them; parents 2 and 3 are the same text */
static void test_octopus(void)
{
	static const char *const parents[] = {
		"a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n",
		"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n",
		"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n", NULL
	};
	const char *result = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
	check_hunks(result, parents, true, 3, "");
	check_hunks(result, parents, false, 3,
		    "@@@@ -1,6 -1,6 -1,6 +1,6 @@@@\n"
		    "   a\n"
		    "   b\n"
		    "-  C\n"
		    "+  c\n"
		    "   d\n"
		    "   e\n"
		    "   f\n"
		    "@@@@ -9,5 -9,5 -9,5 +9,5 @@@@\n"
		    "   i\n"
		    "   j\n"
		    "   k\n"
		    " --L\n"
		    " ++l\n"
		    "   m\n");
}

/* no newline at the end: no marker; -U0 prints no context at all */
static void test_no_newline_and_no_context(void)
{
	static const char *const parents[] = { "x\n", "x\nz", NULL };
	check_hunks("x\ny", parents, true, 3,
		    "@@@ -1,1 -1,2 +1,2 @@@\n"
		    "  x\n"
		    " -z\n"
		    "++y\n");
	check_hunks("x\ny", parents, true, 0,
		    "@@@ -2,0 -2,1 +2,1 @@@\n"
		    " -z\n"
		    "++y\n");
}

/* the function line: 40 bytes at most, its last non-space byte left out */
static void test_function_line(void)
{
	static const char *const parents[] = {
		"static int function_with_a_long_name(int argument, int other)  \n{\n\t1;\n\t2;\n"
		"\t3;\n\t4;\n\tone;\n}\n",
		"static int function_with_a_long_name(int argument, int other)  \n{\n\t1;\n\t2;\n"
		"\t3;\n\t4;\n\ttwo;\n}\n",
		NULL
	};
	check_hunks("static int function_with_a_long_name(int argument, int other)  \n{\n\t1;\n"
		    "\t2;\n\t3;\n\t4;\n\tboth;\n}\n",
		    parents, true, 3,
		    "@@@ -4,5 -4,5 +4,5 @@@ static int function_with_a_long_name(in\n"
		    "  \t2;\n"
		    "  \t3;\n"
		    "  \t4;\n"
		    "- \tone;\n"
		    " -\ttwo;\n"
		    "++\tboth;\n"
		    "  }\n");
}

/* with -b or -w, lost lines merge as git compares them: runs of
 * whitespace are skipped from the end, but the first byte of a line is
 * compared as it is (a tab and a space there differ) */
static void test_whitespace(void)
{
	static const char *const parents[] = { "a\n\tx  y\nq\nb\n", "a\n x y\nb\n", NULL };
	static const char *const same_start[] = { "a\n x\t y \nb\n", "a\n x y\nb\n", NULL };
	check_hunks_ws("a\nnew\nb\n", parents, true, 3, WG_DIFF_IGNORE_SPACE_CHANGE,
		       "@@@ -1,4 -1,3 +1,3 @@@\n"
		       "  a\n"
		       "- \tx  y\n"
		       "- q\n"
		       " - x y\n"
		       "++new\n"
		       "  b\n");
	check_hunks_ws("a\nnew\nb\n", same_start, true, 3, WG_DIFF_IGNORE_SPACE_CHANGE,
		       "@@@ -1,3 -1,3 +1,3 @@@\n"
		       "  a\n"
		       "-- x\t y \n"
		       "++new\n"
		       "  b\n");
}

static void test_parent_count(void)
{
	struct wg_combined_blob r = { "", 0 };
	struct wg_combined_options o = WG_COMBINED_OPTIONS_INIT;
	struct wg_buf out = WG_BUF_INIT;
	bool shown;
	CHECK_ERR(wg_combined_hunks(&out, &shown, &r, &r, 0, &o), WG_EINVALID);
	CHECK(out.len == 0);
	wg_buf_release(&out);
}

WG_TEST_MAIN("combined_diff", WG_TEST(test_two_parents), WG_TEST(test_lost_by_both),
	     WG_TEST(test_octopus), WG_TEST(test_no_newline_and_no_context),
	     WG_TEST(test_function_line), WG_TEST(test_whitespace), WG_TEST(test_parent_count))
