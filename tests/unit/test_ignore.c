/* Unit tests for git's ignore rules (core/worktree/ignore.h): the pattern
 * syntax line by line, matching, precedence between lines, directories
 * and whole-repository files, the excluded-parent rule, case folding, a
 * source that fails, allocation failures and hostile bytes. The answers
 * are gitignore(5)'s; t23-ignore.sh checks the same engine against the
 * real git over a generated tree. */
#include <stdint.h>
#include <string.h>

#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "worktree/ignore.h"

/* --- an in-memory working tree ------------------------------------------- */

struct mem_file {
	const char *path;   /* "a/.gitignore" */
	const char *data;
	size_t len;         /* 0: strlen(data) */
};

struct mem_tree {
	const struct mem_file *files;
	const char *const *dirs;   /* the directories, NULL-terminated */
	int reads, types;          /* calls of each callback */
	const char *fail_on;       /* reading this path fails with WG_EIO */
	int warnings;
};

static int mem_read(void *payload, const char *path, struct wg_buf *out)
{
	struct mem_tree *t = payload;
	t->reads++;
	if (t->fail_on && !strcmp(path, t->fail_on))
		return wg_error_set(WG_EIO, "cannot read '%s'", path);
	for (const struct mem_file *f = t->files; f && f->path; f++)
		if (!strcmp(f->path, path))
			return wg_buf_add(out, f->data, f->len ? f->len : strlen(f->data));
	return wg_error_set(WG_ENOTFOUND, "no %s", path);
}

static enum wg_ignore_type mem_type(void *payload, const char *path)
{
	struct mem_tree *t = payload;
	size_t len = strlen(path);
	t->types++;
	if (len && path[len - 1] == '/')
		len--;
	for (const char *const *d = t->dirs; d && *d; d++)
		if (strlen(*d) == len && !memcmp(*d, path, len))
			return WG_IGNORE_TYPE_DIR;
	return WG_IGNORE_TYPE_OTHER;
}

static void mem_warn(void *payload, const char *message)
{
	struct mem_tree *t = payload;
	t->warnings++;
	CHECK(strstr(message, "ignoring excessively large pattern file") != NULL);
}

static struct wg_ignore *new_ignore(struct mem_tree *t, bool icase)
{
	struct wg_ignore_source src = { mem_read, mem_type, mem_warn, NULL, t };
	struct wg_ignore_options opts = WG_IGNORE_OPTIONS_INIT;
	struct wg_ignore *ig = NULL;
	opts.ignore_case = icase;
	CHECK_OK(wg_ignore_new(&ig, &src, &opts));
	return ig;
}

/* "src:line:pattern" of what decides path ("" for nothing), as
 * check-ignore -v prints it. */
static const char *decide(struct wg_ignore *ig, const char *path)
{
	static char out[512];
	const struct wg_ignore_pattern *pat = NULL;
	out[0] = '\0';
	CHECK_OK(wg_ignore_match(&pat, ig, path, WG_IGNORE_TYPE_UNKNOWN));
	if (pat)
		snprintf(out, sizeof(out), "%s:%u:%s%s%s", pat->list->src, pat->lineno,
			 pat->flags & WG_IGNORE_NEGATIVE ? "!" : "", pat->pattern,
			 pat->flags & WG_IGNORE_MUSTBEDIR ? "/" : "");
	return out;
}

static bool excluded(struct wg_ignore *ig, const char *path)
{
	bool ex = false;
	CHECK_OK(wg_ignore_is_excluded(&ex, ig, path, WG_IGNORE_TYPE_UNKNOWN));
	return ex;
}

static struct wg_ignore_list *parse(const char *data, size_t len)
{
	struct wg_ignore_list *list = NULL;
	CHECK_OK(wg_ignore_list_parse(&list, "f", "", data, len, 0));
	return list;
}

/* --- the syntax ------------------------------------------------------------ */

static void test_lines(void)
{
	static const char text[] = "# comment\n"
				   "\n"
				   "plain\n"
				   "trailing   \n"
				   "kept\\ \n"
				   "two\\  \n"
				   "tab\t\n"
				   "\\#hash\n"
				   "\\!bang\n"
				   "!neg\n"
				   "dir/\n"
				   "!/anchored/\n"
				   "  # not a comment\n"
				   "back\\\\  \n"
				   "last";
	struct wg_ignore_list *l = parse(text, sizeof(text) - 1);
	static const struct { const char *pattern; unsigned flags; unsigned line; } want[] = {
		{ "plain", WG_IGNORE_NODIR, 3 },
		{ "trailing", WG_IGNORE_NODIR, 4 },
		{ "kept\\ ", WG_IGNORE_NODIR, 5 },
		{ "two\\ ", WG_IGNORE_NODIR, 6 },
		{ "tab\t", WG_IGNORE_NODIR, 7 },
		{ "\\#hash", WG_IGNORE_NODIR, 8 },
		{ "\\!bang", WG_IGNORE_NODIR, 9 },
		{ "neg", WG_IGNORE_NODIR | WG_IGNORE_NEGATIVE, 10 },
		{ "dir", WG_IGNORE_NODIR | WG_IGNORE_MUSTBEDIR, 11 },
		{ "/anchored", WG_IGNORE_NEGATIVE | WG_IGNORE_MUSTBEDIR, 12 },
		{ "  # not a comment", WG_IGNORE_NODIR, 13 },
		{ "back\\\\", WG_IGNORE_NODIR, 14 },
		{ "last", WG_IGNORE_NODIR, 15 },
	};
	CHECK(l && l->nr == sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; l && i < l->nr && i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK_STR(l->patterns[i].pattern, want[i].pattern);
		CHECK(l->patterns[i].flags == want[i].flags);
		CHECK(l->patterns[i].lineno == want[i].line);
		CHECK(l->patterns[i].len == strlen(want[i].pattern));
	}
	wg_ignore_list_free(l);
}

/* CR, BOM and NUL as git's parser sees them: one CR before LF goes (and a
 * CR-only line is an empty pattern, not a blank line), a BOM only at the
 * very start, a NUL ends the pattern. */
static void test_hostile_lines(void)
{
	static const char text[] = "\xef\xbb\xbf#c\r\n"
				   "a\r\n"
				   "\r\n"
				   "b \r\n"
				   "c\r \n"
				   "d\r\r\n"
				   "e\0f\n"
				   "\0\n"
				   "\xef\xbb\xbfg\n";
	struct wg_ignore_list *l = parse(text, sizeof(text) - 1);
	static const char *const want[] = { "a", "", "b", "c\r", "d\r", "e", "", "\xef\xbb\xbfg" };
	CHECK(l && l->nr == 8);
	for (size_t i = 0; l && i < l->nr && i < 8; i++)
		CHECK_STR(l->patterns[i].pattern, want[i]);
	CHECK(l && l->patterns[0].lineno == 2);
	wg_ignore_list_free(l);

	/* nothing at all, only newlines, a lone '!' and '/' */
	l = parse("", 0);
	CHECK(l && l->nr == 0);
	wg_ignore_list_free(l);
	l = parse("\n\n\n", 3);
	CHECK(l && l->nr == 0);
	wg_ignore_list_free(l);
	l = parse("!\n/\n!/\n//\n", 10);
	CHECK(l && l->nr == 4);
	if (l && l->nr == 4) {
		CHECK(l->patterns[0].flags == (WG_IGNORE_NEGATIVE | WG_IGNORE_NODIR));
		CHECK(l->patterns[1].flags == (WG_IGNORE_MUSTBEDIR | WG_IGNORE_NODIR));
		CHECK(l->patterns[2].flags ==
		      (WG_IGNORE_NEGATIVE | WG_IGNORE_MUSTBEDIR | WG_IGNORE_NODIR));
		CHECK_STR(l->patterns[3].pattern, "/");
		CHECK(!(l->patterns[3].flags & WG_IGNORE_NODIR));
	}
	wg_ignore_list_free(l);
}

static void test_limits(void)
{
	struct wg_ignore_list *l = NULL;
	char buf[64];
	memset(buf, 'x', sizeof(buf));
	/* git counts the newline it adds: max - 1 bytes are the most */
	CHECK_ERR(wg_ignore_list_parse(&l, "big", "", buf, 16, 16), WG_ELIMIT);
	CHECK(l == NULL);
	CHECK(strstr(wg_error_message(), "ignoring excessively large pattern file: big") != NULL);
	CHECK_OK(wg_ignore_list_parse(&l, "ok", "", buf, 15, 16));
	CHECK(l && l->nr == 1 && l->patterns[0].len == 15);
	wg_ignore_list_free(l);
	wg_ignore_list_free(NULL);
	wg_ignore_free(NULL);
}

/* --- matching ---------------------------------------------------------------- */

static void test_basename_and_pathname(void)
{
	static const struct mem_file files[] = {
		{ ".gitignore", "*.o\nfoo\n/top\nmid/x\nsub/\n**/deep/f\nz/**\na/**/b\n"
				"*.[ch]~\nlit\\*\nend\\\n", 0 },
		{ "d/.gitignore", "/here\nrel/y\n", 0 },
		{ NULL, NULL, 0 },
	};
	static const char *const dirs[] = { "sub", "d/sub", "d", "a", "z", NULL };
	struct mem_tree t = { files, dirs, 0, 0, NULL, 0 };
	struct wg_ignore *ig = new_ignore(&t, false);

	CHECK(excluded(ig, "x.o") && excluded(ig, "d/e/x.o") && !excluded(ig, "x.oo"));
	CHECK(excluded(ig, "foo") && excluded(ig, "d/foo") && !excluded(ig, "foobar"));
	/* a leading or middle '/' anchors to the file's directory */
	CHECK(excluded(ig, "top") && !excluded(ig, "d/top"));
	CHECK(excluded(ig, "mid/x") && !excluded(ig, "d/mid/x"));
	CHECK(excluded(ig, "d/here") && !excluded(ig, "here") && !excluded(ig, "d/e/here"));
	CHECK(excluded(ig, "d/rel/y") && !excluded(ig, "rel/y"));
	/* a trailing '/' wants a directory */
	CHECK(excluded(ig, "sub") && excluded(ig, "d/sub") && !excluded(ig, "e/sub"));
	CHECK(excluded(ig, "sub/file"));
	/* ** */
	CHECK(excluded(ig, "deep/f") && excluded(ig, "x/y/deep/f") && !excluded(ig, "deepf"));
	CHECK(excluded(ig, "z/a") && excluded(ig, "z/a/b") && !excluded(ig, "z"));
	CHECK(excluded(ig, "a/b") && excluded(ig, "a/x/y/b") && !excluded(ig, "a/xb"));
	/* sets, escapes, a trailing backslash that never matches */
	CHECK(excluded(ig, "x.c~") && excluded(ig, "x.h~") && !excluded(ig, "x.o~"));
	CHECK(excluded(ig, "lit*") && !excluded(ig, "litx"));
	CHECK(!excluded(ig, "end") && !excluded(ig, "end\\"));
	CHECK_STR(decide(ig, "d/e/x.o"), ".gitignore:1:*.o");
	CHECK_STR(decide(ig, "d/here"), "d/.gitignore:1:/here");
	wg_ignore_free(ig);
}

/* The type is asked only when a directory-only pattern could decide, and
 * the caller's answer is used when it gives one. */
static void test_type_lazily(void)
{
	static const struct mem_file files[] = { { ".gitignore", "tmp/\n*.o\n", 0 }, { NULL, NULL, 0 } };
	static const char *const dirs[] = { "tmp", NULL };
	struct mem_tree t = { files, dirs, 0, 0, NULL, 0 };
	struct wg_ignore *ig = new_ignore(&t, false);
	const struct wg_ignore_pattern *pat;
	bool ex;

	CHECK(excluded(ig, "x.o"));
	CHECK(t.types == 0);
	CHECK(excluded(ig, "tmp") && t.types == 1);
	CHECK_OK(wg_ignore_is_excluded(&ex, ig, "tmp", WG_IGNORE_TYPE_OTHER));
	CHECK(!ex && t.types == 1);
	CHECK_OK(wg_ignore_match(&pat, ig, "e/tmp", WG_IGNORE_TYPE_DIR));
	CHECK(pat && pat->lineno == 1 && t.types == 1);
	/* a parent directory is a directory without asking */
	CHECK(excluded(ig, "tmp/a/b") && t.types == 1);
	wg_ignore_free(ig);
}

/* --- precedence ---------------------------------------------------------------- */

static void test_precedence(void)
{
	static const struct mem_file files[] = {
		{ ".gitignore", "*.log\n!keep.log\nboth\n!both\nx\n", 0 },
		{ "a/.gitignore", "!*.log\nkeep.log\n", 0 },
		{ "a/b/.gitignore", "*.log\n", 0 },
		{ NULL, NULL, 0 },
	};
	static const char *const dirs[] = { "a", "a/b", NULL };
	struct mem_tree t = { files, dirs, 0, 0, NULL, 0 };
	struct wg_ignore *ig = new_ignore(&t, false);

	CHECK(wg_ignore_add_file(ig, "excludes", "g1\ng2\nx\n", 9) == 0);
	CHECK(wg_ignore_add_file(ig, "info", "!g2\ng3\n", 7) == 0);
	/* later lines win within a file */
	CHECK_STR(decide(ig, "x.log"), ".gitignore:1:*.log");
	CHECK_STR(decide(ig, "keep.log"), ".gitignore:2:!keep.log");
	CHECK(!excluded(ig, "keep.log"));
	CHECK_STR(decide(ig, "both"), ".gitignore:4:!both");
	/* deeper files win over higher ones */
	CHECK_STR(decide(ig, "a/x.log"), "a/.gitignore:1:!*.log");
	CHECK_STR(decide(ig, "a/keep.log"), "a/.gitignore:2:keep.log");
	CHECK_STR(decide(ig, "a/b/keep.log"), "a/b/.gitignore:1:*.log");
	/* then info/exclude (added last), then the excludes file */
	CHECK_STR(decide(ig, "g1"), "excludes:1:g1");
	CHECK_STR(decide(ig, "a/g2"), "info:1:!g2");
	CHECK_STR(decide(ig, "g3"), "info:2:g3");
	CHECK_STR(decide(ig, "x"), ".gitignore:5:x");
	CHECK_STR(decide(ig, "nothing"), "");
	/* back and forth between directories: the frames follow */
	CHECK_STR(decide(ig, "a/b/keep.log"), "a/b/.gitignore:1:*.log");
	CHECK_STR(decide(ig, "keep.log"), ".gitignore:2:!keep.log");
	CHECK_STR(decide(ig, "a/keep.log"), "a/.gitignore:2:keep.log");
	wg_ignore_free(ig);
}

/* "It is not possible to re-include a file if a parent directory of that
 * file is excluded": the directory's pattern decides for everything below,
 * and its own .gitignore is never read. */
static void test_excluded_parent(void)
{
	static const struct mem_file files[] = {
		{ ".gitignore", "out/\n!out/keep\nlogs/*\n!logs/keep/\n", 0 },
		{ "out/.gitignore", "!*\n", 0 },
		{ "logs/keep/.gitignore", "drop\n", 0 },
		{ NULL, NULL, 0 },
	};
	static const char *const dirs[] = { "out", "out/sub", "logs", "logs/keep", "logs/x", NULL };
	struct mem_tree t = { files, dirs, 0, 0, NULL, 0 };
	struct wg_ignore *ig = new_ignore(&t, false);

	CHECK_STR(decide(ig, "out/keep"), ".gitignore:1:out/");
	CHECK_STR(decide(ig, "out/sub/deeper/f"), ".gitignore:1:out/");
	CHECK(t.reads == 1);   /* .gitignore only, never out/.gitignore */
	CHECK_STR(decide(ig, "logs/x/f"), ".gitignore:3:logs/*");
	CHECK_STR(decide(ig, "logs/keep"), ".gitignore:4:!logs/keep/");
	CHECK_STR(decide(ig, "logs/keep/f"), "");
	CHECK_STR(decide(ig, "logs/keep/drop"), "logs/keep/.gitignore:1:drop");
	CHECK_STR(decide(ig, "out/sub/f"), ".gitignore:1:out/");
	wg_ignore_free(ig);
}

static void test_ignore_case(void)
{
	static const struct mem_file files[] = {
		{ ".gitignore", "*.O\nBuild/\n/Top\nDocs/*.HTML\n[a-c]x\n", 0 },
		{ "SUB/.gitignore", "inner\n", 0 },
		{ NULL, NULL, 0 },
	};
	static const char *const dirs[] = { "build", "BUILD", NULL };
	struct mem_tree t = { files, dirs, 0, 0, NULL, 0 };
	struct wg_ignore *ig = new_ignore(&t, true), *cs = new_ignore(&t, false);

	CHECK(excluded(ig, "x.o") && !excluded(cs, "x.o"));
	CHECK(excluded(ig, "build/f") && excluded(ig, "BUILD") && !excluded(cs, "build/f"));
	CHECK(excluded(ig, "top") && excluded(ig, "TOP") && !excluded(cs, "top"));
	CHECK(excluded(ig, "docs/a.html") && !excluded(cs, "docs/a.html"));
	CHECK(excluded(ig, "Bx") && !excluded(cs, "Bx"));
	/* the file names themselves are looked up as the path spells them */
	CHECK(excluded(ig, "SUB/INNER") && !excluded(ig, "sub/inner"));
	wg_ignore_free(ig);
	wg_ignore_free(cs);
}

/* --- failures ------------------------------------------------------------------ */

static void test_source_errors(void)
{
	static const struct mem_file files[] = {
		{ ".gitignore", "*.o\n", 0 },
		{ "a/b/.gitignore", "x\n", 0 },
		{ NULL, NULL, 0 },
	};
	static const char *const dirs[] = { "a", "a/b", NULL };
	struct mem_tree t = { files, dirs, 0, 0, "a/b/.gitignore", 0 };
	struct wg_ignore *ig = new_ignore(&t, false);
	const struct wg_ignore_pattern *pat = NULL;

	CHECK_ERR(wg_ignore_match(&pat, ig, "a/b/x", WG_IGNORE_TYPE_UNKNOWN), WG_EIO);
	CHECK(pat == NULL);
	/* the failed directory is read again next time, the others kept */
	t.fail_on = NULL;
	t.reads = 0;
	CHECK_STR(decide(ig, "a/b/x"), "a/b/.gitignore:1:x");
	CHECK(t.reads == 1);
	CHECK_STR(decide(ig, "a/b/c.o"), ".gitignore:1:*.o");
	wg_ignore_free(ig);

	/* a per-directory file too large: a warning, then no patterns */
	{
		struct wg_ignore_source src = { mem_read, mem_type, mem_warn, NULL, &t };
		struct wg_ignore_options opts = WG_IGNORE_OPTIONS_INIT;
		opts.max_file_size = 4;
		t.warnings = 0;
		CHECK_OK(wg_ignore_new(&ig, &src, &opts));
		/* ".gitignore" holds 4 bytes: left out; a/b's 2 are fine */
		CHECK_STR(decide(ig, "a/b/x"), "a/b/.gitignore:1:x");
		CHECK_STR(decide(ig, "a/b/c.o"), "");
		CHECK(t.warnings == 1);
		CHECK_OK(wg_ignore_add_file(ig, "big", "12345\n", 6));
		CHECK(t.warnings == 2);
		wg_ignore_free(ig);
	}

	/* no source: whole-repository files only */
	CHECK_OK(wg_ignore_new(&ig, NULL, NULL));
	CHECK_OK(wg_ignore_add_file(ig, "info", "d/\n*.o\n", 7));
	CHECK_STR(decide(ig, "a/x.o"), "info:2:*.o");
	CHECK_STR(decide(ig, "d"), "");  /* not known to be a directory */
	CHECK_STR(decide(ig, "d/f"), "info:1:d/");
	CHECK_STR(decide(ig, ""), "");
	wg_ignore_free(ig);
}

static void test_out_of_memory(void)
{
	static const struct mem_file files[] = {
		{ ".gitignore", "*.o\n!keep.o\nd/\n", 0 },
		{ "a/.gitignore", "x\n", 0 },
		{ "a/b/.gitignore", "!x\n", 0 },
		{ NULL, NULL, 0 },
	};
	static const char *const dirs[] = { "a", "a/b", "d", NULL };
	int err = 0;

	for (fx_fail_at = 0; fx_fail_at < 200; fx_fail_at++) {
		struct mem_tree t = { files, dirs, 0, 0, NULL, 0 };
		struct wg_ignore_source src = { mem_read, mem_type, NULL, NULL, &t };
		struct wg_ignore *ig = NULL;
		const struct wg_ignore_pattern *pat = NULL;
		bool neg = false, in_a = false, third = false;

		fx_alloc_count = 0;
		wg_allocator_set(&fx_failing_allocator);
		err = wg_ignore_new(&ig, &src, NULL);
		if (!err)
			err = wg_ignore_add_file(ig, "info", "g\n", 2);
		/* a pattern lives until the next match: looked at at once */
		if (!err && !(err = wg_ignore_match(&pat, ig, "a/b/x", WG_IGNORE_TYPE_UNKNOWN)))
			neg = pat && pat->flags & WG_IGNORE_NEGATIVE;
		if (!err && !(err = wg_ignore_match(&pat, ig, "a/x", WG_IGNORE_TYPE_UNKNOWN)))
			in_a = pat && !strcmp(pat->list->src, "a/.gitignore");
		if (!err && !(err = wg_ignore_match(&pat, ig, "d/e/f", WG_IGNORE_TYPE_UNKNOWN)))
			third = pat && pat->lineno == 3;
		wg_allocator_set(NULL);
		if (!err) {
			CHECK(neg && in_a && third);
		} else {
			CHECK(err == WG_ENOMEM);
			/* after a failure the matcher still answers rightly */
			if (ig) {
				CHECK_STR(decide(ig, "a/b/x"), "a/b/.gitignore:1:!x");
				CHECK_STR(decide(ig, "a/x"), "a/.gitignore:1:x");
			}
		}
		wg_ignore_free(ig);
		if (!err)
			break;
	}
	CHECK(err == 0 && fx_fail_at < 200);
}

/* Arbitrary bytes as pattern files and as paths: no crash, and what
 * decides a path is a pattern of the lists. */
static void test_random_bytes(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	static const char alphabet[] = "ab/*?[]!\\# \r\n\0.-^";
	for (int round = 0; round < 300; round++) {
		char file[96], path[24];
		struct mem_file files[3] = { { ".gitignore", file, 0 }, { "a/.gitignore", file, 0 },
					     { NULL, NULL, 0 } };
		static const char *const dirs[] = { "a", "a/b", NULL };
		struct mem_tree t = { files, dirs, 0, 0, NULL, 0 };
		struct wg_ignore *ig = new_ignore(&t, round & 1);
		size_t flen, plen;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		flen = 1 + s % (sizeof(file) - 1);
		for (size_t i = 0; i < flen; i++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			file[i] = alphabet[s % (sizeof(alphabet) - 1)];
		}
		files[0].len = files[1].len = flen;
		for (int k = 0; k < 8; k++) {
			const struct wg_ignore_pattern *pat = NULL;
			plen = s % (sizeof(path) - 1);
			for (size_t i = 0; i < plen; i++) {
				s ^= s << 13, s ^= s >> 7, s ^= s << 17;
				path[i] = "ab/.*"[s % 5];
			}
			path[plen] = '\0';
			CHECK_OK(wg_ignore_match(&pat, ig, path, WG_IGNORE_TYPE_UNKNOWN));
			if (pat)
				CHECK(pat->pattern >= pat->list->text &&
				      pat->pattern + pat->len <= pat->list->text + flen);
		}
		wg_ignore_free(ig);
	}
}

WG_TEST_MAIN("ignore",
	WG_TEST(test_lines),
	WG_TEST(test_hostile_lines),
	WG_TEST(test_limits),
	WG_TEST(test_basename_and_pathname),
	WG_TEST(test_type_lazily),
	WG_TEST(test_precedence),
	WG_TEST(test_excluded_parent),
	WG_TEST(test_ignore_case),
	WG_TEST(test_source_errors),
	WG_TEST(test_out_of_memory),
	WG_TEST(test_random_bytes))
