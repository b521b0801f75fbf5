/* Unit tests for diff/rename.h: -M<n> scores read as git reads them (the
 * digits are a fraction: "5" and "50" are both 50%), and rename pairing
 * on an object database in memory of a loose directory: exact before
 * inexact, the same basename preferred among identical sources, a source
 * used once, the minimum score and the limit. (The interop test t26 checks
 * the pairs and scores against git status on many more cases.) */
#include <stdlib.h>
#include <string.h>

#include "diff/rename.h"
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

WG_TEST_MAIN("rename",
	WG_TEST(test_parse_score),
	WG_TEST(test_pairs))
