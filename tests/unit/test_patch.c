/* Unit tests for one file's patch (diff/patch.h), against what git 2.53
 * printed for the same pairs (git diff -M in a SHA-1 repository): a
 * creation without final newline, a binary deletion, a rename with a mode
 * change and a name with a space (the tab after the label), and the line
 * counts of --numstat. */
#include <string.h>

#include "diff/patch.h"
#include "diff/rename.h"
#include "hash/hash.h"
#include "object/object.h"
#include "test.h"

static struct wg_diff_file side(char status, const char *old_path, const char *new_path,
				unsigned old_mode, const char *old_data, size_t old_len,
				unsigned new_mode, const char *new_data, size_t new_len)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct wg_diff_file f;
	memset(&f, 0, sizeof(f));
	f.status = status;
	f.old_path = old_path;
	f.new_path = new_path;
	f.old_mode = old_mode;
	f.new_mode = new_mode;
	f.old_data = old_data;
	f.old_len = old_len;
	f.new_data = new_data;
	f.new_len = new_len;
	if (old_mode)
		wg_object_hash(&f.old_oid, algo, WG_OBJ_BLOB, old_data, old_len);
	else
		wg_oid_null(&f.old_oid, algo);
	if (new_mode)
		wg_object_hash(&f.new_oid, algo, WG_OBJ_BLOB, new_data, new_len);
	else
		wg_oid_null(&f.new_oid, algo);
	return f;
}

static void check_patch(const struct wg_diff_file *f, const char *expected)
{
	struct wg_patch_options po = WG_PATCH_OPTIONS_INIT;
	struct wg_buf out = WG_BUF_INIT;
	CHECK_OK(wg_diff_patch(&out, f, &po));
	CHECK_STR(wg_buf_cstr(&out), expected);
	wg_buf_release(&out);
}

static void test_creation(void)
{
	struct wg_diff_file f = side('A', "created", "created", 0, NULL, 0, 0100644, "x", 1);
	check_patch(&f, "diff --git a/created b/created\n"
			"new file mode 100644\n"
			"index 0000000..c1b0730\n"
			"--- /dev/null\n"
			"+++ b/created\n"
			"@@ -0,0 +1 @@\n"
			"+x\n"
			"\\ No newline at end of file\n");
}

static void test_binary_deletion(void)
{
	struct wg_diff_file f = side('D', "gone.bin", "gone.bin", 0100644, "bin\0x", 5, 0, NULL, 0);
	check_patch(&f, "diff --git a/gone.bin b/gone.bin\n"
			"deleted file mode 100644\n"
			"index e899662..0000000\n"
			"Binary files a/gone.bin and /dev/null differ\n");
}

static void test_rename_with_mode(void)
{
	static const char a[] = "one\ntwo\nthree\n", b[] = "one\ntwo\nthree\nfour";
	struct wg_diff_file f = side('R', "old name", "new", 0100644, a, strlen(a), 0100755, b,
				     strlen(b));
	size_t added, deleted;
	bool binary;
	f.score = WG_RENAME_MAX_SCORE * 77 / 100;
	check_patch(&f, "diff --git a/old name b/new\n"
			"old mode 100644\n"
			"new mode 100755\n"
			"similarity index 77%\n"
			"rename from old name\n"
			"rename to new\n"
			"index 4cb29ea..c40a3bd\n"
			"--- a/old name\t\n"
			"+++ b/new\n"
			"@@ -1,3 +1,4 @@\n"
			" one\n"
			" two\n"
			" three\n"
			"+four\n"
			"\\ No newline at end of file\n");
	CHECK_OK(wg_diff_count_lines(&f, 3, NULL, &added, &deleted, &binary));
	CHECK(added == 1 && deleted == 0 && !binary);
}

static void test_binary_guess(void)
{
	CHECK(wg_diff_is_binary("a\0b", 3));
	CHECK(!wg_diff_is_binary("ab", 2));
	CHECK(!wg_diff_is_binary(NULL, 0));
}

WG_TEST_MAIN("patch", WG_TEST(test_creation), WG_TEST(test_binary_deletion),
	     WG_TEST(test_rename_with_mode), WG_TEST(test_binary_guess))
