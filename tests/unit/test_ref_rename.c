/* Unit tests for wg_refdb_rename (git branch -m / -c underneath) on both
 * ref backends, and for the config section edits that go with it. The
 * expected reflogs are what git 2.53 writes for the same steps (checked
 * by tests/interop/t30-branch-tag.sh against git itself). */
#include <stdio.h>
#include <string.h>

#include "refs/refdb.h"
#include "repo/config.h"
#include "test.h"
#include "util/buf.h"

static enum wg_ref_format format;

static const struct wg_hash_algo *sha1(void)
{
	return wg_hash_algo_by_id(WG_HASH_SHA1);
}

static void oid_n(struct wg_oid *out, unsigned n)
{
	unsigned char raw[WG_MAX_RAWSZ];
	memset(raw, 0, sizeof(raw));
	raw[0] = (unsigned char)n;
	raw[2] = 1;
	wg_oid_from_raw(out, sha1(), raw);
}

static struct wg_refdb *open_db(const char *name)
{
	struct wg_refdb_options opts = WG_REFDB_OPTIONS_INIT;
	struct wg_refdb *db = NULL;
	const char *dir = wg_test_tmpdir(name);
	opts.committer_name = "A U Thor";
	opts.committer_email = "author@example.com";
	opts.committer_date = "1700000000 +0000";
	CHECK_OK(wg_refdb_init(dir, format, sha1(), "refs/heads/main"));
	CHECK_OK(wg_refdb_open(&db, dir, format, sha1(), &opts));
	return db;
}

/* The reflog of `name`, newest first, as "old>new msg" lines with the ids
 * reduced to their first byte (0 for null). */
static void reflog_text(struct wg_buf *out, struct wg_refdb *db, const char *name)
{
	struct wg_reflog_iter *it;
	const struct wg_reflog_entry *e;
	wg_buf_reset(out);
	if (wg_reflog_iter_new(&it, db, name, 0)) {
		wg_buf_adds(out, "none");
		return;
	}
	while (!wg_reflog_iter_next(&e, it)) {
		/* reftable hides existence markers; both hide nothing else */
		wg_buf_printf(out, "%u>%u %s\n", wg_oid_is_null(&e->old_oid) ? 0u :
			      (unsigned)e->old_oid.hash[0], wg_oid_is_null(&e->new_oid) ? 0u :
			      (unsigned)e->new_oid.hash[0], e->message);
	}
	wg_reflog_iter_free(it);
}

static void test_rename_branch(void)
{
	struct wg_refdb *db = open_db("rename-branch");
	struct wg_buf log = WG_BUF_INIT;
	struct wg_oid a, b, got;
	struct wg_ref ref;

	oid_n(&a, 1);
	oid_n(&b, 2);
	CHECK_OK(wg_refdb_update(db, "refs/heads/main", &a, NULL, 0, "commit: one"));
	CHECK_OK(wg_refdb_update(db, "refs/heads/side", &b, NULL, 0, "branch: Created"));
	CHECK_OK(wg_refdb_rename(db, "refs/heads/side", "refs/heads/new", 0,
				 "Branch: renamed refs/heads/side to refs/heads/new"));
	CHECK_ERR(wg_refdb_read(&ref, db, "refs/heads/side"), WG_ENOTFOUND);
	CHECK_OK(wg_refdb_resolve(&got, NULL, db, "refs/heads/new", 0));
	CHECK(wg_oid_equal(&got, &b));
	CHECK(wg_refdb_reflog_exists(db, "refs/heads/side") == 0);
	reflog_text(&log, db, "refs/heads/new");
	if (format == WG_REF_FORMAT_FILES)
		CHECK_STR(wg_buf_cstr(&log), "2>2 Branch: renamed refs/heads/side to refs/heads/new\n"
			  "0>2 branch: Created\n");
	else
		CHECK_STR(wg_buf_cstr(&log), "0>2 Branch: renamed refs/heads/side to refs/heads/new\n"
			  "2>0 Branch: renamed refs/heads/side to refs/heads/new\n"
			  "0>2 branch: Created\n");
	/* HEAD names main: renaming main logs the deletion to HEAD. */
	CHECK_OK(wg_refdb_rename(db, "refs/heads/main", "refs/heads/main/sub", 0, "mv"));
	reflog_text(&log, db, "HEAD");
	CHECK_STR(wg_buf_cstr(&log), "1>0 mv\n0>1 commit: one\n");
	reflog_text(&log, db, "refs/heads/main/sub");
	CHECK(strstr(wg_buf_cstr(&log), "commit: one") != NULL);
	/* ...and back out of the directory it made. */
	CHECK_OK(wg_refdb_rename(db, "refs/heads/main/sub", "refs/heads/main", 0, "back"));
	CHECK_OK(wg_refdb_resolve(&got, NULL, db, "refs/heads/main", 0));
	CHECK(wg_oid_equal(&got, &a));
	wg_buf_release(&log);
	wg_refdb_free(db);
}

static void test_rename_refusals(void)
{
	struct wg_refdb *db = open_db("rename-refuse");
	struct wg_buf log = WG_BUF_INIT;
	struct wg_oid a, b, got;

	oid_n(&a, 1);
	oid_n(&b, 2);
	CHECK_OK(wg_refdb_update(db, "refs/heads/a", &a, NULL, 0, "a"));
	CHECK_OK(wg_refdb_update(db, "refs/heads/b", &b, NULL, 0, "b"));
	CHECK_ERR(wg_refdb_rename(db, "refs/heads/a", "refs/heads/b", 0, "x"), WG_EEXISTS);
	CHECK_STR(wg_error_message(), "cannot lock ref 'refs/heads/b': reference already exists");
	CHECK_ERR(wg_refdb_rename(db, "refs/heads/nope", "refs/heads/c", 0, "x"), WG_ENOTFOUND);
	CHECK_STR(wg_error_message(), "refname refs/heads/nope not found");
	CHECK_OK(wg_refdb_symref_update(db, "refs/heads/sym", "refs/heads/a", NULL));
	CHECK_ERR(wg_refdb_rename(db, "refs/heads/sym", "refs/heads/c", 0, "x"), WG_EINVALID);
	CHECK_ERR(wg_refdb_rename(db, "refs/heads/a", "refs/heads/a..b", 0, "x"), WG_EINVALID);
	/* Nothing moved. */
	CHECK_OK(wg_refdb_resolve(&got, NULL, db, "refs/heads/a", 0));
	CHECK(wg_oid_equal(&got, &a));
	/* Forced: b takes a's value and reflog. */
	CHECK_OK(wg_refdb_rename(db, "refs/heads/a", "refs/heads/b", WG_REF_RENAME_FORCE, "f"));
	CHECK_OK(wg_refdb_resolve(&got, NULL, db, "refs/heads/b", 0));
	CHECK(wg_oid_equal(&got, &a));
	reflog_text(&log, db, "refs/heads/b");
	CHECK(strstr(wg_buf_cstr(&log), "0>1 a\n") != NULL);
	wg_buf_release(&log);
	wg_refdb_free(db);
}

static void test_copy(void)
{
	struct wg_refdb *db = open_db("rename-copy");
	struct wg_buf log = WG_BUF_INIT;
	struct wg_oid a, got;

	oid_n(&a, 3);
	CHECK_OK(wg_refdb_update(db, "refs/heads/a", &a, NULL, 0, "made"));
	CHECK_OK(wg_refdb_rename(db, "refs/heads/a", "refs/heads/c", WG_REF_RENAME_COPY, "cp"));
	CHECK_OK(wg_refdb_resolve(&got, NULL, db, "refs/heads/a", 0));
	CHECK(wg_oid_equal(&got, &a));
	CHECK_OK(wg_refdb_resolve(&got, NULL, db, "refs/heads/c", 0));
	CHECK(wg_oid_equal(&got, &a));
	reflog_text(&log, db, "refs/heads/a");
	CHECK_STR(wg_buf_cstr(&log), "0>3 made\n");
	reflog_text(&log, db, "refs/heads/c");
	CHECK_STR(wg_buf_cstr(&log), format == WG_REF_FORMAT_FILES ? "3>3 cp\n0>3 made\n" :
		  "0>3 cp\n0>3 made\n");
	wg_buf_release(&log);
	wg_refdb_free(db);
}

static void run_suite(enum wg_ref_format f)
{
	format = f;
	test_rename_branch();
	test_rename_refusals();
	test_copy();
}

static void test_files_backend(void) { run_suite(WG_REF_FORMAT_FILES); }
static void test_reftable_backend(void) { run_suite(WG_REF_FORMAT_REFTABLE); }

static void check_edit(const char *in, const char *old_name, const char *new_name, bool copy,
		       int found, const char *want)
{
	struct wg_config *cfg = NULL;
	struct wg_buf out = WG_BUF_INIT;
	CHECK_OK(wg_config_parse(&cfg, in, strlen(in), NULL));
	CHECK(found == (copy ? wg_config_copy_section(cfg, old_name, new_name) :
			wg_config_rename_section(cfg, old_name, new_name)));
	CHECK_OK(wg_config_serialize(cfg, &out));
	CHECK_STR(wg_buf_cstr(&out), want);
	wg_buf_release(&out);
	wg_config_free(cfg);
}

/* Expectations recorded from git 2.53's branch -m/-c/-D on these files. */
static void test_config_sections(void)
{
	static const char base[] = "[core]\n\tx = y\n[branch \"side\"]\n\tremote = origin\n"
		"\tmerge = refs/heads/side\n[other]\n\tk = v\n";
	check_edit(base, "branch.side", "branch.new", false, 1,
		   "[core]\n\tx = y\n[branch \"new\"]\n\tremote = origin\n"
		   "\tmerge = refs/heads/side\n[other]\n\tk = v\n");
	check_edit(base, "branch.side", "branch.cp", true, 1,
		   "[core]\n\tx = y\n[branch \"side\"]\n\tremote = origin\n"
		   "\tmerge = refs/heads/side\n[branch \"cp\"]\n\tremote = origin\n"
		   "\tmerge = refs/heads/side\n[other]\n\tk = v\n");
	check_edit(base, "branch.side", NULL, false, 1, "[core]\n\tx = y\n[other]\n\tk = v\n");
	check_edit(base, "branch.nope", NULL, false, 0, base);
	/* An entry on the header line moves to a line of its own. */
	check_edit("[branch \"a\"] remote = o\n", "branch.a", "branch.b", false, 1,
		   "[branch \"b\"]\n\tremote = o\n");
	/* Copied at the end of the file too. */
	check_edit("[branch \"a\"]\n\tremote = o\n", "branch.a", "branch.b", true, 1,
		   "[branch \"a\"]\n\tremote = o\n[branch \"b\"]\n\tremote = o\n");
}

WG_TEST_MAIN("ref_rename",
	WG_TEST(test_files_backend),
	WG_TEST(test_reftable_backend),
	WG_TEST(test_config_sections))
