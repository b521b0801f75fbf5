/* Unit tests for diff/rename.h: -M<n> scores read as git reads them (the
 * digits are a fraction: "5" and "50" are both 50%), and rename pairing
 * on an object database in memory of a loose directory: exact before
 * inexact, the same basename preferred among identical sources, a source
 * used once, the minimum score and the limit; git's rename labels
 * ("a/{b => c}/d"); tree diffs (diff/tree_diff.h) with every kind of
 * change, a file becoming a directory, renames folded in, and a hostile
 * tree; copies (-C, -C -C): staying sources used several times, a
 * deleted source's last use its rename, unmodified sources only when
 * harder, the limit's fallback to modified sources. (The interop tests t26 and t29 check pairs, scores and labels
 * against git on many more cases.) */
#include <stdlib.h>
#include <string.h>

#include "diff/rename.h"
#include "diff/tree_diff.h"
#include "object/tree.h"
#include "fixtures.h"
#include "odb/loose.h"
#include "test.h"
#include "util/fs.h"

static void test_parse_score(void)
{
	CHECK(wg_rename_parse_score("50") == 30000);
	CHECK(wg_rename_parse_score("5") == 30000);
	CHECK(wg_rename_parse_score("50%") == 30000);
	CHECK(wg_rename_parse_score(".5") == 30000);
	CHECK(wg_rename_parse_score("0.5") == 30000);
	CHECK(wg_rename_parse_score("055") == 3300);
	CHECK(wg_rename_parse_score("100%") == 60000);
	CHECK(wg_rename_parse_score("9") == 54000);
	CHECK(wg_rename_parse_score("150%") == 60000);
	CHECK(wg_rename_parse_score("1") == 6000);
	CHECK(wg_rename_parse_score("") == 0);
	CHECK(wg_rename_parse_score("5x") == -1);
	CHECK(wg_rename_parse_score("50%%") == -1);
	CHECK(wg_rename_parse_score("1.2.3") == -1);
}

static struct wg_odb *new_odb(char *dir)
{
	struct wg_odb *odb = NULL;
	struct wg_odb_backend *loose = NULL;
	CHECK(mkdtemp(dir) != NULL);
	CHECK_OK(wg_odb_new(&odb, fx_sha1()));
	CHECK_OK(wg_odb_loose_new(&loose, dir, fx_sha1(), NULL));
	CHECK_OK(wg_odb_add_backend(odb, loose, 0));
	return odb;
}

static struct wg_rename_file put(struct wg_odb *odb, const char *path, unsigned mode,
				 const char *text)
{
	struct wg_rename_file f;
	memset(&f, 0, sizeof(f));
	f.path = path;
	f.mode = mode;
	CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, text, strlen(text), &f.oid));
	return f;
}

static void test_pairs(void)
{
	char dir[] = "/tmp/wg-test-rename-XXXXXX";
	struct wg_odb *odb = new_odb(dir);
	struct wg_rename_options ro = WG_RENAME_OPTIONS_INIT;
	const char *body = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
	struct wg_rename_file src[4], dst[4];
	int src_of[4], score[4];
	bool limited;

	/* two identical sources: the one with the destination's basename wins */
	src[0] = put(odb, "a/same.txt", 0100644, "identical\n");
	src[1] = put(odb, "b/other.txt", 0100644, "identical\n");
	src[2] = put(odb, "c/edit.txt", 0100644, body);
	src[3] = put(odb, "d/gone.txt", 0100644, "nothing like it\n");
	dst[0] = put(odb, "x/other.txt", 0100644, "identical\n");
	dst[1] = put(odb, "y/same.txt", 0100644, "identical\n");
	dst[2] = put(odb, "z/edited.txt", 0100644,
		     "one\ntwo\nthree\nfour\nFIVE\nsix\nseven\neight\nnine\nten\n");
	dst[3] = put(odb, "z/new.txt", 0120000, "identical\n");   /* a link: modes differ */
	CHECK_OK(wg_detect_renames(odb, src, 4, dst, 4, &ro, src_of, score, &limited));
	CHECK(!limited);
	CHECK(src_of[0] == 1 && score[0] == WG_RENAME_MAX_SCORE);
	CHECK(src_of[1] == 0 && score[1] == WG_RENAME_MAX_SCORE);
	CHECK(src_of[2] == 2 && score[2] > WG_RENAME_DEFAULT_SCORE && score[2] < WG_RENAME_MAX_SCORE);
	CHECK(src_of[3] == -1);

	/* a minimum above the edit's score leaves it unpaired */
	ro.min_score = score[2] + 1;
	CHECK_OK(wg_detect_renames(odb, src, 4, dst, 4, &ro, src_of, score, &limited));
	CHECK(src_of[2] == -1 && src_of[0] == 1);

	/* the limit skips the inexact pass, never the exact one */
	ro.min_score = 0;
	ro.limit = 1;
	CHECK_OK(wg_detect_renames(odb, src, 4, dst, 4, &ro, src_of, score, &limited));
	CHECK(limited);
	CHECK(src_of[0] == 1 && src_of[1] == 0 && src_of[2] == -1);

	/* one source, two identical destinations: used once */
	ro.limit = 0;
	CHECK_OK(wg_detect_renames(odb, src + 3, 1, dst, 2, &ro, src_of, score, &limited));
	CHECK(src_of[0] == -1 && src_of[1] == -1);
	CHECK_OK(wg_detect_renames(odb, src, 1, dst, 2, &ro, src_of, score, &limited));
	CHECK(src_of[0] == 0 && src_of[1] == -1);   /* the first destination takes it */
	wg_odb_free(odb);
	CHECK_OK(wg_fs_remove_tree(dir));
}


static void check_label(const char *a, const char *b, const char *want)
{
	struct wg_buf out = WG_BUF_INIT;
	CHECK_OK(wg_rename_label(&out, a, b));
	CHECK_STR(wg_buf_cstr(&out), want);
	wg_buf_release(&out);
}

static void test_label(void)
{
	check_label("bin/run.sh", "scripts/run.sh", "{bin => scripts}/run.sh");
	check_label("a/x.txt", "a/y.txt", "a/{x.txt => y.txt}");
	check_label("a/b/c", "a/c", "a/{b => }/c");
	check_label("a/c", "a/b/c", "a/{ => b}/c");
	check_label("old", "new", "old => new");
	check_label("same/dir/f", "same/dir/g", "same/dir/{f => g}");
	check_label("x/f", "y/g", "x/f => y/g");
	check_label("f", "dir/f", "f => dir/f");
	check_label("na\303\257ve", "dir/na\303\257ve", "\"na\\303\\257ve\" => \"dir/na\\303\\257ve\"");
}

/* A tree of (mode, name, id) entries, written to the odb. */
static struct wg_oid tree_of(struct wg_odb *odb, size_t n, const unsigned *modes,
			     const char *const *names, const struct wg_oid *oids)
{
	struct wg_tree_builder *b = NULL;
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_oid oid;
	CHECK_OK(wg_tree_builder_new(&b, fx_sha1()));
	for (size_t i = 0; i < n; i++)
		CHECK_OK(wg_tree_builder_add(b, modes[i], names[i], strlen(names[i]), &oids[i]));
	CHECK_OK(wg_tree_builder_write(b, &raw));
	CHECK_OK(wg_odb_write(odb, WG_OBJ_TREE, raw.data, raw.len, &oid));
	wg_tree_builder_free(b);
	wg_buf_release(&raw);
	return oid;
}

static struct wg_oid blob(struct wg_odb *odb, const char *text)
{
	struct wg_oid oid;
	CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, text, strlen(text), &oid));
	return oid;
}

static void test_tree_diff(void)
{
	char dir[] = "/tmp/wg-test-treediff-XXXXXX";
	struct wg_odb *odb = new_odb(dir);
	struct wg_tree_diff_options opts = { .renames = true, .rename = WG_RENAME_OPTIONS_INIT };
	struct wg_diff_changes c = { 0 };
	const char *body = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";
	struct wg_oid x = blob(odb, "x\n"), y = blob(odb, "y\n"), one = blob(odb, body);
	struct wg_oid two = blob(odb, "two\n"), t = blob(odb, "t\n"), n = blob(odb, "n\n");
	struct wg_oid same_sub, d_old, old_tree, moved, new_tree, empty;

	/* old: a, d/{f,g}, same/s, t; new: a (edited, executable), d (a file),
	 * moved/g (d/g, exact), n (new), same/s, t (a link now) */
	same_sub = tree_of(odb, 1, (unsigned[]){ 0100644 }, (const char *[]){ "s" }, &x);
	d_old = tree_of(odb, 2, (unsigned[]){ 0100644, 0100644 }, (const char *[]){ "f", "g" },
			(struct wg_oid[]){ two, one });
	old_tree = tree_of(odb, 4, (unsigned[]){ 0100644, 040000, 040000, 0100644 },
			   (const char *[]){ "a", "d", "same", "t" },
			   (struct wg_oid[]){ x, d_old, same_sub, t });
	moved = tree_of(odb, 1, (unsigned[]){ 0100644 }, (const char *[]){ "g" }, &one);
	new_tree = tree_of(odb, 6, (unsigned[]){ 0100755, 0100644, 040000, 0100644, 040000, 0120000 },
			   (const char *[]){ "a", "d", "moved", "n", "same", "t" },
			   (struct wg_oid[]){ y, x, moved, n, same_sub, t });
	CHECK_OK(wg_diff_trees(&c, odb, &old_tree, &new_tree, &opts));
	CHECK(c.n == 6);
	if (c.n == 6) {
		CHECK(c.v[0].status == 'M' && !strcmp(c.v[0].path, "a") && c.v[0].old_mode == 0100644 &&
		      c.v[0].new_mode == 0100755 && wg_oid_equal(&c.v[0].new_oid, &y));
		CHECK(c.v[1].status == 'A' && !strcmp(c.v[1].path, "d") && !c.v[1].old_mode);
		CHECK(c.v[2].status == 'D' && !strcmp(c.v[2].path, "d/f") && !c.v[2].new_mode);
		CHECK(c.v[3].status == 'R' && !strcmp(c.v[3].path, "moved/g") &&
		      !strcmp(c.v[3].from, "d/g") && c.v[3].score == WG_RENAME_MAX_SCORE);
		CHECK(c.v[4].status == 'A' && !strcmp(c.v[4].path, "n"));
		CHECK(c.v[5].status == 'T' && !strcmp(c.v[5].path, "t") && c.v[5].new_mode == 0120000);
	}
	wg_diff_changes_release(&c);

	/* without renames: the deletion and the addition */
	opts.renames = false;
	CHECK_OK(wg_diff_trees(&c, odb, &old_tree, &new_tree, &opts));
	CHECK(c.n == 7 && c.v[3].status == 'D' && !strcmp(c.v[3].path, "d/g") &&
	      c.v[4].status == 'A' && !strcmp(c.v[4].path, "moved/g"));
	wg_diff_changes_release(&c);

	/* from nothing and to nothing; a tree against itself */
	CHECK_OK(wg_diff_trees(&c, odb, NULL, &old_tree, &opts));
	CHECK(c.n == 5 && c.v[0].status == 'A' && !strcmp(c.v[3].path, "same/s"));
	wg_diff_changes_release(&c);
	CHECK_OK(wg_diff_trees(&c, odb, &old_tree, NULL, &opts));
	CHECK(c.n == 5 && c.v[4].status == 'D' && !strcmp(c.v[4].path, "t"));
	wg_diff_changes_release(&c);
	CHECK_OK(wg_diff_trees(&c, odb, &new_tree, &new_tree, &opts));
	CHECK(c.n == 0);
	empty = tree_of(odb, 0, NULL, NULL, NULL);
	CHECK_OK(wg_diff_trees(&c, odb, &empty, &empty, &opts));
	CHECK(c.n == 0);

	/* a "tree" that is a blob, and a missing one, are errors, not crashes */
	CHECK(wg_diff_trees(&c, odb, &old_tree, &x, &opts) == WG_ECORRUPT);
	wg_diff_changes_release(&c);
	{
		struct wg_oid missing = fx_oid_of(fx_sha1(), '7');
		CHECK(wg_diff_trees(&c, odb, &old_tree, &missing, &opts) != 0);
	}
	wg_diff_changes_release(&c);
	wg_odb_free(odb);
	CHECK_OK(wg_fs_remove_tree(dir));
}

static void test_copies(void)
{
	char dir[] = "/tmp/wg-test-copies-XXXXXX";
	struct wg_odb *odb = new_odb(dir);
	struct wg_rename_options ro = WG_RENAME_OPTIONS_INIT;
	const char *body = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
	const char *body2 = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
	const char *body3 = "k\nl\nm\nn\no\np\nq\nr\ns\nt\n";
	struct wg_rename_file src[3], dst[4];
	struct wg_rename_result res;
	int src_of[4], score[4];
	bool is_copy[4];

	src[0] = put(odb, "gone.txt", 0100644, body);          /* deleted */
	src[1] = put(odb, "kept.txt", 0100644, body2);         /* modified */
	src[1].kept = WG_RENAME_MODIFIED;
	src[2] = put(odb, "still.txt", 0100644, body3);        /* unchanged */
	src[2].kept = WG_RENAME_UNMODIFIED;
	dst[0] = put(odb, "x/gone.txt", 0100644, body);
	dst[1] = put(odb, "y/gone.txt", 0100644, body);
	dst[2] = put(odb, "k.txt", 0100644, "a\nb\nc\nd\ne\nf\ng\nh\ni\nJ\n");
	dst[3] = put(odb, "s.txt", 0100644, "k\nl\nm\nn\no\np\nq\nr\ns\nT\n");

	/* renames only: the deleted file once, the staying ones never */
	CHECK_OK(wg_detect_copies(odb, src, 3, dst, 4, &ro, src_of, score, is_copy, &res));
	CHECK(src_of[0] == 0 && !is_copy[0] && src_of[1] == -1 && src_of[2] == -1 &&
	      src_of[3] == -1);

	/* -C: the deleted file twice, its last use the rename; the modified
	 * file's use a copy; the unchanged file no source */
	ro.copies = WG_COPIES_MODIFIED;
	CHECK_OK(wg_detect_copies(odb, src, 3, dst, 4, &ro, src_of, score, is_copy, &res));
	CHECK(src_of[0] == 0 && is_copy[0] && score[0] == WG_RENAME_MAX_SCORE);
	CHECK(src_of[1] == 0 && !is_copy[1]);
	CHECK(src_of[2] == 1 && is_copy[2] && score[2] > WG_RENAME_DEFAULT_SCORE &&
	      score[2] < WG_RENAME_MAX_SCORE);
	CHECK(src_of[3] == -1);
	CHECK(!res.limited && !res.degraded && !res.needed);

	/* -C -C: the unchanged file too */
	ro.copies = WG_COPIES_HARDER;
	CHECK_OK(wg_detect_copies(odb, src, 3, dst, 4, &ro, src_of, score, is_copy, &res));
	CHECK(src_of[2] == 1 && src_of[3] == 2 && is_copy[3]);

	/* over the limit (3 sources x 2 destinations > 2 x 2), -C's two
	 * sources fit: the unchanged one is left out */
	ro.limit = 2;
	CHECK_OK(wg_detect_copies(odb, src, 3, dst, 4, &ro, src_of, score, is_copy, &res));
	CHECK(res.degraded && !res.limited && res.needed == 3);
	CHECK(src_of[2] == 1 && src_of[3] == -1);
	/* and when they do not fit either, no inexact pairs (exact ones stay) */
	ro.limit = 1;
	CHECK_OK(wg_detect_copies(odb, src, 3, dst, 4, &ro, src_of, score, is_copy, &res));
	CHECK(res.limited && !res.degraded && res.needed == 3);
	CHECK(src_of[0] == 0 && src_of[1] == 0 && src_of[2] == -1 && src_of[3] == -1);

	/* a minimum of 100%: exact copies only */
	ro.limit = 0;
	ro.min_score = WG_RENAME_MAX_SCORE;
	CHECK_OK(wg_detect_copies(odb, src, 3, dst, 4, &ro, src_of, score, is_copy, &res));
	CHECK(src_of[0] == 0 && src_of[1] == 0 && src_of[2] == -1 && src_of[3] == -1);
	wg_odb_free(odb);
	CHECK_OK(wg_fs_remove_tree(dir));
}

static void test_tree_copies(void)
{
	char dir[] = "/tmp/wg-test-treecopies-XXXXXX";
	struct wg_odb *odb = new_odb(dir);
	struct wg_tree_diff_options opts = { .renames = true, .rename = WG_RENAME_OPTIONS_INIT };
	struct wg_diff_changes c = { 0 };
	struct wg_oid a = blob(odb, "a1\na2\na3\na4\na5\na6\n");
	struct wg_oid a_new = blob(odb, "a1\na2\na3\na4\na5\na6\na7\n");
	struct wg_oid b = blob(odb, "b1\nb2\nb3\nb4\n");
	struct wg_oid old_sub, new_sub, old_tree, new_tree;

	/* old: a, sub/b; new: a (edited), c (old a), sub/b, sub/d (b) */
	old_sub = tree_of(odb, 1, (unsigned[]){ 0100644 }, (const char *[]){ "b" }, &b);
	new_sub = tree_of(odb, 2, (unsigned[]){ 0100644, 0100644 }, (const char *[]){ "b", "d" },
			  (struct wg_oid[]){ b, b });
	old_tree = tree_of(odb, 2, (unsigned[]){ 0100644, 040000 }, (const char *[]){ "a", "sub" },
			   (struct wg_oid[]){ a, old_sub });
	new_tree = tree_of(odb, 3, (unsigned[]){ 0100644, 0100644, 040000 },
			   (const char *[]){ "a", "c", "sub" }, (struct wg_oid[]){ a_new, a, new_sub });

	opts.rename.copies = WG_COPIES_MODIFIED;
	CHECK_OK(wg_diff_trees(&c, odb, &old_tree, &new_tree, &opts));
	CHECK(c.n == 3);
	if (c.n == 3) {
		CHECK(c.v[0].status == 'M' && !strcmp(c.v[0].path, "a"));
		CHECK(c.v[1].status == 'C' && !strcmp(c.v[1].path, "c") && !strcmp(c.v[1].from, "a") &&
		      c.v[1].score == WG_RENAME_MAX_SCORE && wg_oid_equal(&c.v[1].old_oid, &a));
		CHECK(c.v[2].status == 'A' && !strcmp(c.v[2].path, "sub/d"));
	}
	wg_diff_changes_release(&c);

	/* harder: the unchanged sub/b is a source; no '=' is left over */
	opts.rename.copies = WG_COPIES_HARDER;
	CHECK_OK(wg_diff_trees(&c, odb, &old_tree, &new_tree, &opts));
	CHECK(c.n == 3);
	if (c.n == 3)
		CHECK(c.v[2].status == 'C' && !strcmp(c.v[2].path, "sub/d") &&
		      !strcmp(c.v[2].from, "sub/b"));
	wg_diff_changes_release(&c);

	/* listed without pairing: the unchanged files as '=' */
	opts.renames = false;
	opts.unmodified = true;
	CHECK_OK(wg_diff_trees(&c, odb, &old_tree, &new_tree, &opts));
	CHECK(c.n == 4 && c.v[2].status == '=' && !strcmp(c.v[2].path, "sub/b"));
	wg_diff_changes_release(&c);
	wg_odb_free(odb);
	CHECK_OK(wg_fs_remove_tree(dir));
}

WG_TEST_MAIN("rename",
	WG_TEST(test_parse_score),
	WG_TEST(test_pairs),
	WG_TEST(test_label),
	WG_TEST(test_tree_diff),
	WG_TEST(test_copies),
	WG_TEST(test_tree_copies))
