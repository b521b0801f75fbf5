/* Unit tests for the line diff (diff/line_diff.h) and its unified hunks
 * (diff/unified.h): hunks as git 2.53 prints them for a few shapes (the
 * indent heuristic placing an insertion between blocks, a last line
 * without newline, function lines above hunks, a creation, a moved block),
 * then random edits whose changes must turn one text into the other. */
#include <stdlib.h>
#include <string.h>

#include "diff/line_diff.h"
#include "diff/unified.h"
#include "test.h"

struct hunk_case {
	const char *name, *a, *b, *hunks;
};

/* made with: git diff --no-index a b (the text from the first "@@") */
static const struct hunk_case cases[] = {
	{ "indent",
	  "int f(void)\n"
	  "{\n"
	  "\tif (a) {\n"
	  "\t\tx();\n"
	  "\t}\n"
	  "\n"
	  "\treturn 0;\n"
	  "}\n"
	  "",
	  "int f(void)\n"
	  "{\n"
	  "\tif (a) {\n"
	  "\t\tx();\n"
	  "\t}\n"
	  "\n"
	  "\tif (b) {\n"
	  "\t\ty();\n"
	  "\t}\n"
	  "\n"
	  "\treturn 0;\n"
	  "}\n"
	  "",
	  "@@ -4,5 +4,9 @@ int f(void)\n"
	  " \t\tx();\n"
	  " \t}\n"
	  " \n"
	  "+\tif (b) {\n"
	  "+\t\ty();\n"
	  "+\t}\n"
	  "+\n"
	  " \treturn 0;\n"
	  " }\n"
	  "" },
	{ "noeol",
	  "a\n"
	  "b\n"
	  "c",
	  "a\n"
	  "B\n"
	  "c",
	  "@@ -1,3 +1,3 @@\n"
	  " a\n"
	  "-b\n"
	  "+B\n"
	  " c\n"
	  "\\ No newline at end of file\n"
	  "" },
	{ "func",
	  "func_0(void)\n"
	  "line 1\n"
	  "line 2\n"
	  "line 3\n"
	  "line 4\n"
	  "line 5\n"
	  "line 6\n"
	  "line 7\n"
	  "line 8\n"
	  "line 9\n"
	  "func_10(void)\n"
	  "line 11\n"
	  "line 12\n"
	  "line 13\n"
	  "line 14\n"
	  "line 15\n"
	  "line 16\n"
	  "line 17\n"
	  "line 18\n"
	  "line 19\n"
	  "func_20(void)\n"
	  "line 21\n"
	  "line 22\n"
	  "line 23\n"
	  "line 24\n"
	  "line 25\n"
	  "line 26\n"
	  "line 27\n"
	  "line 28\n"
	  "line 29\n"
	  "func_30(void)\n"
	  "line 31\n"
	  "line 32\n"
	  "line 33\n"
	  "line 34\n"
	  "line 35\n"
	  "line 36\n"
	  "line 37\n"
	  "line 38\n"
	  "line 39\n"
	  "",
	  "func_0(void)\n"
	  "line 1\n"
	  "line 2\n"
	  "line 3\n"
	  "line 4\n"
	  "line 5\n"
	  "line 6\n"
	  "line 7\n"
	  "line 8\n"
	  "line 9\n"
	  "func_10(void)\n"
	  "line 11\n"
	  "line 12\n"
	  "line 13\n"
	  "line 14\n"
	  "changed 15\n"
	  "line 16\n"
	  "line 17\n"
	  "line 18\n"
	  "line 19\n"
	  "func_20(void)\n"
	  "line 21\n"
	  "line 22\n"
	  "line 23\n"
	  "line 24\n"
	  "line 25\n"
	  "line 26\n"
	  "line 27\n"
	  "line 28\n"
	  "line 29\n"
	  "func_30(void)\n"
	  "line 31\n"
	  "line 32\n"
	  "changed 33\n"
	  "line 34\n"
	  "line 35\n"
	  "line 36\n"
	  "line 37\n"
	  "line 38\n"
	  "line 39\n"
	  "",
	  "@@ -13,7 +13,7 @@ line 11\n"
	  " line 12\n"
	  " line 13\n"
	  " line 14\n"
	  "-line 15\n"
	  "+changed 15\n"
	  " line 16\n"
	  " line 17\n"
	  " line 18\n"
	  "@@ -31,7 +31,7 @@ line 29\n"
	  " func_30(void)\n"
	  " line 31\n"
	  " line 32\n"
	  "-line 33\n"
	  "+changed 33\n"
	  " line 34\n"
	  " line 35\n"
	  " line 36\n"
	  "" },
	{ "empty_to",
	  "",
	  "one\n"
	  "two\n"
	  "",
	  "@@ -0,0 +1,2 @@\n"
	  "+one\n"
	  "+two\n"
	  "" },
	{ "moved",
	  "a\n"
	  "b\n"
	  "c\n"
	  "d\n"
	  "e\n"
	  "f\n"
	  "g\n"
	  "h\n"
	  "",
	  "e\n"
	  "f\n"
	  "g\n"
	  "a\n"
	  "b\n"
	  "c\n"
	  "d\n"
	  "h\n"
	  "",
	  "@@ -1,8 +1,8 @@\n"
	  "+e\n"
	  "+f\n"
	  "+g\n"
	  " a\n"
	  " b\n"
	  " c\n"
	  " d\n"
	  "-e\n"
	  "-f\n"
	  "-g\n"
	  " h\n"
	  "" },
};

static void test_git_hunks(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hunk_case *c = &cases[i];
		struct wg_unified_options uo = WG_UNIFIED_OPTIONS_INIT;
		struct wg_line_diff d;
		struct wg_buf out = WG_BUF_INIT;
		CHECK_OK(wg_line_diff_run(&d, c->a, strlen(c->a), c->b, strlen(c->b)));
		CHECK_OK(wg_unified_hunks(&out, &d, &uo));
		CHECK_STR(wg_buf_cstr(&out), c->hunks);
		wg_line_diff_release(&d);
		wg_buf_release(&out);
	}
}

static unsigned rng = 2024;
static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* a text of n lines drawn from a small vocabulary (many repeats) */
static void make_text(struct wg_buf *t, int n, int vocab)
{
	for (int i = 0; i < n; i++)
		wg_buf_printf(t, "%sline %u\n", next() % 3 ? "\t" : "", next() % (unsigned)vocab);
}

/* the unchanged lines of both sides pair up in order, and the changes
 * cover exactly the changed flags */
static void check_consistent(const struct wg_line_diff *d)
{
	long i1 = 0, i2 = 0;
	size_t k = 0;
	while (i1 < d->a.n || i2 < d->b.n) {
		if (k < d->n && d->v[k].i1 == i1 && d->v[k].i2 == i2) {
			for (long j = 0; j < d->v[k].chg1; j++)
				CHECK(d->a.changed[i1 + j]);
			for (long j = 0; j < d->v[k].chg2; j++)
				CHECK(d->b.changed[i2 + j]);
			i1 += d->v[k].chg1;
			i2 += d->v[k].chg2;
			k++;
			continue;
		}
		CHECK(i1 < d->a.n && i2 < d->b.n);
		if (i1 >= d->a.n || i2 >= d->b.n)
			return;
		CHECK(!d->a.changed[i1] && !d->b.changed[i2]);
		CHECK(d->a.lines[i1].size == d->b.lines[i2].size &&
		      !memcmp(d->a.lines[i1].ptr, d->b.lines[i2].ptr, d->a.lines[i1].size));
		i1++;
		i2++;
	}
	CHECK(k == d->n);
}

static void test_random_edits(void)
{
	for (int round = 0; round < 200; round++) {
		struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT;
		struct wg_line_diff d;
		int vocab = round % 2 ? 8 : 400;
		make_text(&a, (int)(next() % 300), vocab);
		/* b: a with some lines dropped and some inserted */
		for (const char *p = wg_buf_cstr(&a); *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = (size_t)(nl - p) + 1;
			unsigned r = next() % 10;
			if (r == 0)
				make_text(&b, (int)(next() % 5), vocab);
			if (r != 1)
				wg_buf_add(&b, p, len);
			p += len;
		}
		CHECK_OK(wg_line_diff_run(&d, (const char *)a.data, a.len, (const char *)b.data, b.len));
		check_consistent(&d);
		wg_line_diff_release(&d);
		wg_buf_release(&a);
		wg_buf_release(&b);
	}
}

/* a large input where every line differs: the cost limit keeps it quick */
static void test_large_disjoint(void)
{
	struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT;
	struct wg_line_diff d;
	for (int i = 0; i < 20000; i++) {
		wg_buf_printf(&a, "a%d\n", i % 50);
		wg_buf_printf(&b, "%s%d\n", i % 3 ? "a" : "b", (i * 7) % 50);
	}
	CHECK_OK(wg_line_diff_run(&d, (const char *)a.data, a.len, (const char *)b.data, b.len));
	check_consistent(&d);
	wg_line_diff_release(&d);
	wg_buf_release(&a);
	wg_buf_release(&b);
}

static void test_trim_tail(void)
{
	struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT;
	size_t al, bl;
	wg_buf_adds(&a, "x\n");
	wg_buf_adds(&b, "y\n");
	for (int i = 0; i < 600; i++) {
		wg_buf_adds(&a, "tail\n");
		wg_buf_adds(&b, "tail\n");
	}
	al = a.len;
	bl = b.len;
	wg_line_diff_trim_tail((const char *)a.data, &al, (const char *)b.data, &bl);
	/* two blocks of 1024 go, but for the rest of the line they cut into */
	CHECK(al == a.len - 2048 + 3 && bl == b.len - 2048 + 3);
	CHECK(a.data[al - 1] == '\n');
	wg_buf_release(&a);
	wg_buf_release(&b);
}

WG_TEST_MAIN("line_diff", WG_TEST(test_git_hunks), WG_TEST(test_random_edits),
	     WG_TEST(test_large_disjoint), WG_TEST(test_trim_tail))
