/* Unit tests for blame (core/history/blame.h) on histories built in a
 * fresh SHA-1 repository without git: lines kept and changed along a
 * line of commits, a merge whose sides changed different lines, a
 * rename with an edit, a commit that leaves the file alone, -L ranges
 * (and how they merge), the shallow boundary, coalescing, idents and
 * subjects as git blame shows them, the errors; and -M and -C: blocks
 * moved within a file, lines copied from a changed file, into a new file
 * and from a file the commit left alone, each below and above its
 * threshold. */
#include <stdio.h>
#include <string.h>

#include "history/blame.h"
#include "object/commit.h"
#include "odb/odb.h"
#include "repo/repo.h"
#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"

static struct wg_repo *repo;
static struct wg_odb *odb;

static void open_repo(const char *name)
{
	repo = fx_init_bare_repo(name);
	odb = wg_repo_odb(repo);
}

static void close_repo(void)
{
	wg_repo_free(repo);
	repo = NULL;
}

/* A commit of one file `path`, by `who` at 1700000000 + date. */
static struct wg_oid commit_as(const char *path, const char *text, const struct wg_oid *parents,
			       size_t n, int date, const char *who, const char *msg)
{
	return fx_commit_file(odb, path, text, parents, n, who, 1700000000 + date, "+0130", msg);
}

static struct wg_oid commit(const char *text, const struct wg_oid *parents, size_t n, int date)
{
	return fx_commit_file(odb, "file", text, parents, n, "A U Thor <a@example.com>",
			      1700000000 + date, "+0130", "subject\n");
}

/* Entry i: lno, s_lno, num_lines, and its commit. */
static void check_entry(const struct wg_blame *b, size_t i, long lno, long s_lno, long num,
			const struct wg_oid *c)
{
	CHECK(i < b->nentries);
	if (i >= b->nentries)
		return;
	CHECK(b->entries[i].lno == lno);
	CHECK(b->entries[i].s_lno == s_lno);
	CHECK(b->entries[i].num_lines == num);
	CHECK(wg_oid_equal(&b->commits[b->origins[b->entries[i].origin].commit].oid, c));
}

static const struct wg_blame_commit *commit_of(const struct wg_blame *b, size_t entry)
{
	return &b->commits[b->origins[b->entries[entry].origin].commit];
}

/* a: 1 2 3; b: 1 X 3 4; c: 0 1 X 3 4 (no final newline) */
static void test_linear(void)
{
	struct wg_blame b;
	struct wg_blame_options o = { 0 };
	struct wg_oid a, bb, c;

	open_repo("blame-linear");
	a = commit_as("file", "1\n2\n3\n", NULL, 0, 1, "Ann  <ann@x>",
		      "\n  \nfirst line after blanks\nbody\n");
	bb = commit("1\nX\n3\n4\n", &a, 1, 2);
	c = commit("0\n1\nX\n3\n4", &bb, 1, 3);

	CHECK_OK(wg_blame_run(&b, repo, &c, "file", NULL));
	CHECK(b.nlines == 5 && b.size == 9);
	CHECK(b.nentries == 5);
	check_entry(&b, 0, 0, 0, 1, &c);
	check_entry(&b, 1, 1, 0, 1, &a);
	check_entry(&b, 2, 2, 1, 1, &bb);
	check_entry(&b, 3, 3, 2, 1, &a);
	/* "4" has no newline in c: a changed line, c's */
	check_entry(&b, 4, 4, 4, 1, &c);
	CHECK(b.ncommits == 3);
	CHECK(commit_of(&b, 1)->boundary);
	CHECK(!commit_of(&b, 0)->boundary && !commit_of(&b, 2)->boundary);
	/* idents and subjects as git blame shows them */
	CHECK_STR(commit_of(&b, 1)->author.name, "Ann");
	CHECK_STR(commit_of(&b, 1)->author.mail, "<ann@x>");
	CHECK_STR(commit_of(&b, 1)->author.tz, "+0130");
	CHECK(commit_of(&b, 1)->author.time == 1700000001);
	CHECK_STR(commit_of(&b, 1)->summary, "first line after blanks");
	CHECK_STR(commit_of(&b, 0)->summary, "subject");
	/* the first parent version compared with, for porcelain's "previous" */
	CHECK(b.origins[b.entries[0].origin].has_previous);
	CHECK(wg_oid_equal(&b.origins[b.entries[0].origin].previous_commit, &bb));
	CHECK_STR(b.origins[b.entries[0].origin].previous_path, "file");
	CHECK(!b.origins[b.entries[1].origin].has_previous);
	wg_blame_release(&b);

	/* --root: the root commit is no boundary */
	o.show_root = true;
	CHECK_OK(wg_blame_run(&b, repo, &c, "file", &o));
	CHECK(b.nentries == 5 && !commit_of(&b, 1)->boundary);
	wg_blame_release(&b);

	/* -L 2,3 and -L 5: ranges of the final file only */
	CHECK_OK(wg_blame_ranges_add(&o, 1, 3));
	CHECK_OK(wg_blame_ranges_add(&o, 4, 5));
	CHECK_OK(wg_blame_run(&b, repo, &c, "file", &o));
	CHECK(b.nentries == 3);
	check_entry(&b, 0, 1, 0, 1, &a);
	check_entry(&b, 1, 2, 1, 1, &bb);
	check_entry(&b, 2, 4, 4, 1, &c);
	wg_blame_release(&b);
	wg_blame_options_release(&o);

	/* a range past the end, a missing path */
	CHECK_OK(wg_blame_ranges_add(&o, 3, 9));
	CHECK_ERR(wg_blame_run(&b, repo, &c, "file", &o), WG_EINVALID);
	wg_blame_release(&b);
	wg_blame_options_release(&o);
	CHECK_ERR(wg_blame_run(&b, repo, &c, "nope", NULL), WG_ENOTFOUND);
	wg_blame_release(&b);
	close_repo();
}

/* base: a b c; left: A b c; right: a b C; merge: A b C. Each side keeps
 * the line it changed; the unchanged middle goes back to base. A commit
 * with the very same file passes everything on. */
static void test_merge(void)
{
	struct wg_blame b;
	struct wg_oid base, left, right, m, same, p[2];

	open_repo("blame-merge");
	base = commit("a\nb\nc\n", NULL, 0, 1);
	left = commit("A\nb\nc\n", &base, 1, 2);
	right = commit("a\nb\nC\n", &base, 1, 3);
	p[0] = left;
	p[1] = right;
	m = commit("A\nb\nC\n", p, 2, 4);
	same = commit_as("file", "A\nb\nC\n", &m, 1, 5, "B <b@x>", "no change\n");

	CHECK_OK(wg_blame_run(&b, repo, &same, "file", NULL));
	CHECK(b.nentries == 3);
	check_entry(&b, 0, 0, 0, 1, &left);
	check_entry(&b, 1, 1, 1, 1, &base);
	check_entry(&b, 2, 2, 2, 1, &right);
	CHECK(b.ncommits == 3);
	wg_blame_release(&b);

	/* an evil merge line is the merge's own */
	m = commit("A\nM\nC\n", p, 2, 6);
	CHECK_OK(wg_blame_run(&b, repo, &m, "file", NULL));
	CHECK(b.nentries == 3);
	check_entry(&b, 1, 1, 1, 1, &m);
	CHECK(b.origins[b.entries[1].origin].has_previous);
	CHECK(wg_oid_equal(&b.origins[b.entries[1].origin].previous_commit, &left));
	wg_blame_release(&b);
	close_repo();
}

/* old.c (five lines) renamed to new.c with its last line changed: the
 * first four lines are old.c's in the root. */
static void test_rename(void)
{
	struct wg_blame b;
	struct wg_oid a, c;
	const char *text = "int one;\nint two;\nint three;\nint four;\nint five;\n";

	open_repo("blame-rename");
	a = commit_as("old.c", text, NULL, 0, 1, "A <a@x>", "old\n");
	c = commit_as("new.c", "int one;\nint two;\nint three;\nint four;\nint FIVE;\n", &a, 1, 2,
		      "A <a@x>", "moved\n");
	CHECK_OK(wg_blame_run(&b, repo, &c, "new.c", NULL));
	CHECK(b.nentries == 2);
	check_entry(&b, 0, 0, 0, 4, &a);
	check_entry(&b, 1, 4, 4, 1, &c);
	CHECK_STR(b.origins[b.entries[0].origin].path, "old.c");
	CHECK_STR(b.origins[b.entries[1].origin].path, "new.c");
	CHECK_STR(b.origins[b.entries[1].origin].previous_path, "old.c");
	wg_blame_release(&b);

	/* a file unlike anything before it is all the child's */
	c = commit_as("new.c", "x\ny\n", &a, 1, 3, "A <a@x>", "new\n");
	CHECK_OK(wg_blame_run(&b, repo, &c, "new.c", NULL));
	CHECK(b.nentries == 1);
	check_entry(&b, 0, 0, 0, 2, &c);
	CHECK(!b.origins[0].has_previous);
	wg_blame_release(&b);
	close_repo();
}

/* A shallow clone's cut-off commit takes what is left as a boundary; an
 * empty file has nothing to blame. */
static void test_shallow_and_empty(void)
{
	struct wg_blame b;
	struct wg_oid a, c, d, e;
	struct wg_buf path = WG_BUF_INIT;
	FILE *f;

	open_repo("blame-shallow");
	a = commit("1\n2\n", NULL, 0, 1);
	c = commit("1\n2\n3\n", &a, 1, 2);
	d = commit("1\n2\n3\n4\n", &c, 1, 3);
	wg_buf_printf(&path, "%s/shallow", wg_repo_gitdir(repo));
	CHECK((f = fopen(wg_buf_cstr(&path), "w")) != NULL);
	if (f) {
		fprintf(f, "%s\n", wg_oid_hex(&c));
		fclose(f);
	}
	CHECK_OK(wg_blame_run(&b, repo, &d, "file", NULL));
	CHECK(b.nentries == 2);
	check_entry(&b, 0, 0, 0, 3, &c);
	check_entry(&b, 1, 3, 3, 1, &d);
	CHECK(commit_of(&b, 0)->boundary && !commit_of(&b, 1)->boundary);
	wg_blame_release(&b);
	wg_buf_release(&path);

	e = commit("", &d, 1, 4);
	CHECK_OK(wg_blame_run(&b, repo, &e, "file", NULL));
	CHECK(b.nlines == 0 && b.nentries == 0 && b.ncommits == 0);
	wg_blame_release(&b);
	close_repo();
}

/* -L ranges are kept sorted, merged where they overlap or touch. */
static void test_ranges(void)
{
	struct wg_blame_options o = { 0 };

	CHECK_OK(wg_blame_ranges_add(&o, 10, 12));
	CHECK_OK(wg_blame_ranges_add(&o, 0, 2));
	CHECK_OK(wg_blame_ranges_add(&o, 2, 4));
	CHECK_OK(wg_blame_ranges_add(&o, 11, 20));
	CHECK_OK(wg_blame_ranges_add(&o, 6, 7));
	CHECK(o.nranges == 3);
	CHECK(o.ranges[0] == 0 && o.ranges[1] == 4);
	CHECK(o.ranges[2] == 6 && o.ranges[3] == 7);
	CHECK(o.ranges[4] == 10 && o.ranges[5] == 20);
	CHECK_OK(wg_blame_ranges_add(&o, 3, 11));
	CHECK(o.nranges == 1 && o.ranges[0] == 0 && o.ranges[1] == 20);
	CHECK_ERR(wg_blame_ranges_add(&o, 5, 2), WG_EINVALID);
	CHECK_ERR(wg_blame_ranges_add(&o, -1, 2), WG_EINVALID);
	wg_blame_options_release(&o);
	CHECK(o.nranges == 0 && o.ranges == NULL);
}

/* A commit of two files (names in tree order), by A at 1700000000 +
 * date. */
static struct wg_oid commit_two(const char *p1, const char *t1, const char *p2, const char *t2,
				const struct wg_oid *parents, size_t n, int date)
{
	struct fx_tree_entry e[2] = { { .name = p1 }, { .name = p2 } };
	char ident[64];

	CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, t1, strlen(t1), &e[0].oid));
	CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, t2, strlen(t2), &e[1].oid));
	snprintf(ident, sizeof(ident), "A <a@x> %d +0000", 1700000000 + date);
	return fx_commit_tree(odb, e, 2, parents, n, ident, "two\n");
}

/* Two lines of 12 letters each score 25 (one more than the letters and
 * digits): above -M's 20, below -M30. */
#define ALPHA "alpha line one\nalpha line two\n"
#define BETA "beta line one\nbeta line two\n"

/* a: ALPHA BETA; c: BETA x ALPHA. The diff keeps one block; the other
 * moved, and only -M finds it in a. */
static void test_move_within(void)
{
	struct wg_blame b;
	struct wg_blame_options o = { 0 };
	struct wg_oid a, c;

	open_repo("blame-move");
	a = commit(ALPHA BETA, NULL, 0, 1);
	c = commit(BETA "x\n" ALPHA, &a, 1, 2);

	CHECK_OK(wg_blame_run(&b, repo, &c, "file", &o));
	CHECK(b.nentries == 2);
	check_entry(&b, 0, 0, 2, 2, &a);
	check_entry(&b, 1, 2, 2, 3, &c);
	wg_blame_release(&b);

	o.moves = true;
	CHECK_OK(wg_blame_run(&b, repo, &c, "file", &o));
	CHECK(b.nentries == 3);
	check_entry(&b, 0, 0, 2, 2, &a);
	check_entry(&b, 1, 2, 2, 1, &c);
	check_entry(&b, 2, 3, 0, 2, &a);
	CHECK_STR(b.origins[b.entries[2].origin].path, "file");
	wg_blame_release(&b);

	/* a stretch must score more than the threshold */
	o.move_score = 25;
	CHECK_OK(wg_blame_run(&b, repo, &c, "file", &o));
	CHECK(b.nentries == 2);
	wg_blame_release(&b);
	o.move_score = 24;
	CHECK_OK(wg_blame_run(&b, repo, &c, "file", &o));
	CHECK(b.nentries == 3);
	wg_blame_release(&b);
	close_repo();
}

/* Lines copied between files: from a file the commit changed (-C), into
 * a new file (-C -C), from a file the commit left alone (-C -C -C). */
static void test_copies(void)
{
	struct wg_blame b;
	struct wg_blame_options o = { 0 };
	struct wg_oid root, cut, fresh, old;

	open_repo("blame-copy");
	root = commit_two("a.c", ALPHA BETA ALPHA "end of a\n", "b.c", "b one\nb two\n", NULL, 0,
			  1);
	/* BETA cut from a.c into b.c */
	cut = commit_two("a.c", ALPHA ALPHA "end of a\n", "b.c", "b one\n" BETA "b two\n", &root,
			 1, 2);
	o.moves = true;
	CHECK_OK(wg_blame_run(&b, repo, &cut, "b.c", &o));
	CHECK(b.nentries == 3);
	check_entry(&b, 1, 1, 1, 2, &cut);
	wg_blame_release(&b);
	/* BETA scores 23: more than -C20, not more than -C's 40 */
	o.copies = 1;
	CHECK_OK(wg_blame_run(&b, repo, &cut, "b.c", &o));
	CHECK(b.nentries == 3);
	check_entry(&b, 1, 1, 1, 2, &cut);
	wg_blame_release(&b);
	o.copy_score = 20;
	CHECK_OK(wg_blame_run(&b, repo, &cut, "b.c", &o));
	CHECK(b.nentries == 3);
	check_entry(&b, 1, 1, 2, 2, &root);
	CHECK_STR(b.origins[b.entries[1].origin].path, "a.c");
	CHECK(!b.origins[b.entries[1].origin].has_previous);
	CHECK_STR(b.origins[b.entries[0].origin].path, "b.c");
	CHECK(b.commits[b.origins[b.entries[1].origin].commit].several_paths);
	wg_blame_release(&b);

	/* c.c new, with ALPHA BETA from a.c, which did not change */
	fresh = commit_two("a.c", ALPHA BETA ALPHA "end of a\n", "c.c", "c\n" ALPHA BETA, &root, 1,
			   3);
	o.copies = 1;
	CHECK_OK(wg_blame_run(&b, repo, &fresh, "c.c", &o));
	CHECK(b.nentries == 1);
	check_entry(&b, 0, 0, 0, 5, &fresh);
	wg_blame_release(&b);
	o.copies = 2;
	CHECK_OK(wg_blame_run(&b, repo, &fresh, "c.c", &o));
	CHECK(b.nentries == 2);
	check_entry(&b, 0, 0, 0, 1, &fresh);
	check_entry(&b, 1, 1, 0, 4, &root);
	CHECK_STR(b.origins[b.entries[1].origin].path, "a.c");
	wg_blame_release(&b);

	/* b.c changed, with BETA from a.c, which did not change: only
	 * -C -C -C looks in a.c */
	old = commit_two("a.c", ALPHA BETA ALPHA "end of a\n", "b.c", "b one\n" BETA "b two\n",
			 &root, 1, 4);
	CHECK_OK(wg_blame_run(&b, repo, &old, "b.c", &o));
	check_entry(&b, 1, 1, 1, 2, &old);
	wg_blame_release(&b);
	o.copies = 3;
	CHECK_OK(wg_blame_run(&b, repo, &old, "b.c", &o));
	CHECK(b.nentries == 3);
	check_entry(&b, 1, 1, 2, 2, &root);
	CHECK_STR(b.origins[b.entries[1].origin].path, "a.c");
	wg_blame_release(&b);
	close_repo();
}

WG_TEST_MAIN("blame",
	WG_TEST(test_linear),
	WG_TEST(test_merge),
	WG_TEST(test_rename),
	WG_TEST(test_shallow_and_empty),
	WG_TEST(test_ranges),
	WG_TEST(test_move_within),
	WG_TEST(test_copies))
