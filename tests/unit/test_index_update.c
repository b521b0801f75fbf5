/* Unit tests for staging (core/worktree/index_update.h) and the pathspec
 * matcher under it (core/worktree/pathspec.h): git's matching rules
 * (exact, directory, glob crossing '/', ":(top)", "..", the empty
 * pathspec), then add and rm on a repository made in a temporary
 * directory: new, modified and deleted files, the executable bit, what
 * is reported and in which order, ignored paths, -N, dry runs, a
 * pathspec that matches nothing, and rm's refusals leaving the index as
 * it was. t28-add-rm-mv.sh compares the same against the real git. */
#include <string.h>
#include <sys/stat.h>

#include "fixtures.h"
#include "test.h"
#include "index/index.h"
#include "object/object.h"
#include "odb/odb.h"
#include "repo/repo.h"
#include "util/buf.h"
#include "util/fs.h"
#include "worktree/ignore.h"
#include "worktree/index_update.h"
#include "util/pathspec.h"
#include "worktree/workfile.h"

/* --- pathspecs ----------------------------------------------------------- */

static int match(const char *prefix, const char *item, const char *path)
{
	struct wg_pathspec ps;
	int m;
	if (wg_pathspec_init(&ps, prefix, &item, 1))
		return -1;
	m = (int)wg_pathspec_match_item(&ps, 0, path, strlen(path));
	wg_pathspec_release(&ps);
	return m;
}

static void test_pathspec_match(void)
{
	CHECK(match("", "a", "a") == WG_PATHSPEC_EXACTLY);
	CHECK(match("", "a", "a/b") == WG_PATHSPEC_RECURSIVELY);
	CHECK(match("", "a/", "a/b") == WG_PATHSPEC_RECURSIVELY);
	CHECK(match("", "a", "ab") == WG_PATHSPEC_NONE);
	CHECK(match("", "a/b", "a") == WG_PATHSPEC_NONE);
	CHECK(match("", ".", "x/y") == WG_PATHSPEC_RECURSIVELY);
	CHECK(match("", "*.c", "d/e.c") == WG_PATHSPEC_FNMATCH);   /* '*' crosses '/' */
	CHECK(match("", "d/*", "d/e/f") == WG_PATHSPEC_FNMATCH);
	CHECK(match("", "d/*", "e/f") == WG_PATHSPEC_NONE);
	CHECK(match("", "?", "ab") == WG_PATHSPEC_NONE);
	CHECK(match("", "[ab]", "b") == WG_PATHSPEC_FNMATCH);
	CHECK(match("sub/", "x", "sub/x") == WG_PATHSPEC_EXACTLY);
	CHECK(match("sub/", "../x", "x") == WG_PATHSPEC_EXACTLY);
	CHECK(match("sub/", "./x/../y", "sub/y") == WG_PATHSPEC_EXACTLY);
	CHECK(match("sub/", ":(top)x", "x") == WG_PATHSPEC_EXACTLY);
	CHECK(match("sub/", ":/x", "x") == WG_PATHSPEC_EXACTLY);
	CHECK(match("sub/", ".", "sub/q") == WG_PATHSPEC_RECURSIVELY);
	CHECK(match("sub/", ".", "subq") == WG_PATHSPEC_NONE);
	CHECK(match("", "a//b", "a/b") == WG_PATHSPEC_EXACTLY);
	CHECK(match("", "..", "a") == -1);
	CHECK(wg_error_code() == WG_EINVALID);
	CHECK(strstr(wg_error_message(), "'..' is outside repository") != NULL);
	CHECK(match("a/", "../../x", "x") == -1);
}

static void test_pathspec_below(void)
{
	const char *items[] = { "a/b/c", "d/*.c", "e" };
	struct wg_pathspec ps;
	unsigned char seen[3] = { 0 };
	CHECK_OK(wg_pathspec_init(&ps, "", items, 3));
	CHECK(wg_pathspec_may_match_below(&ps, "a", 1));
	CHECK(wg_pathspec_may_match_below(&ps, "a/b", 3));
	CHECK(!wg_pathspec_may_match_below(&ps, "a/bc", 4));
	CHECK(!wg_pathspec_may_match_below(&ps, "ab", 2));
	CHECK(wg_pathspec_may_match_below(&ps, "d/x", 3));  /* the glob may match below */
	CHECK(!wg_pathspec_may_match_below(&ps, "dd", 2));
	CHECK(wg_pathspec_may_match_below(&ps, "e", 1));
	CHECK(wg_pathspec_may_match_below(&ps, "e/f", 3));
	CHECK(!wg_pathspec_may_match_below(&ps, "f", 1));
	CHECK(wg_pathspec_match(&ps, "e/f", 3, seen));
	CHECK(wg_pathspec_match(&ps, "d/q/r.c", 7, seen));
	CHECK(!wg_pathspec_match(&ps, "a/b", 3, seen));
	CHECK(seen[0] == 0 && seen[1] == WG_PATHSPEC_FNMATCH && seen[2] == WG_PATHSPEC_RECURSIVELY);
	wg_pathspec_release(&ps);
	CHECK_OK(wg_pathspec_init(&ps, "", NULL, 0));
	CHECK(wg_pathspec_match(&ps, "anything", 8, NULL));  /* no pathspec: everything */
	CHECK(wg_pathspec_may_match_below(&ps, "x", 1));
	wg_pathspec_release(&ps);
}

/* --- add and rm on a repository ------------------------------------------ */

struct log {
	struct wg_buf text;   /* "a:path\n" per report */
	int warnings;
};

static void on_report(void *payload, char action, const char *path)
{
	struct log *l = payload;
	wg_buf_printf(&l->text, "%c:%s\n", action, path);
}

static void on_warn(void *payload, const char *line)
{
	struct log *l = payload;
	(void)line;
	l->warnings++;
}

static const struct wg_index_entry *entry(const struct wg_index *ix, const char *path)
{
	long pos = wg_index_find(ix, path, strlen(path), 0);
	return pos >= 0 ? ix->entries[pos] : NULL;
}

static struct wg_repo *make_repo(const char *name, const char *format)
{
	struct wg_repo_init_options o = WG_REPO_INIT_OPTIONS_INIT;
	struct wg_repo *repo = NULL;
	o.object_format = format;
	o.ref_format = "files";
	CHECK_OK(wg_repo_init(&repo, wg_test_tmpdir(name), &o));
	return repo;
}

static void add_and_remove(const char *format)
{
	struct wg_repo *repo = make_repo(strcmp(format, "sha1") ? "ixup-256" : "ixup-1", format);
	struct wg_index *ix = NULL;
	struct log log = { WG_BUF_INIT, 0 };
	struct wg_index_update_options o = { .all = true, .report = on_report, .warn = on_warn,
					     .payload = &log };
	struct wg_ignore *ig = NULL;
	struct wg_ignore_options io = WG_IGNORE_OPTIONS_INIT;
	struct wg_oid empty;
	const char *all[] = { "." }, *none[] = { "nothere" }, *glob[] = { "*.o" };
	const char *dir[] = { "d" }, *named[] = { "x.o", "c" };
	struct wg_buf path = WG_BUF_INIT;

	if (!repo)
		return;
	CHECK_OK(wg_index_new(&ix, fx_sha1()));
	if (strcmp(format, "sha1")) {
		wg_index_free(ix);
		ix = NULL;
		CHECK_OK(wg_index_new(&ix, fx_sha256()));
	}
	CHECK_OK(wg_workfile_write(repo, "a", "a\n", 2, 0));
	CHECK_OK(wg_workfile_write(repo, "d/b", "b\n", 2, 0100755));
	CHECK_OK(wg_workfile_write(repo, "d/e/c", "c\n", 2, 0));
	CHECK_OK(wg_workfile_write(repo, "x.o", "o\n", 2, 0));
	CHECK_OK(wg_ignore_new(&ig, NULL, &io));
	CHECK_OK(wg_ignore_add_file(ig, ".git/info/exclude", "*.o\n", 4));
	o.ignore = ig;

	/* a pathspec that matches nothing changes nothing */
	CHECK_ERR(wg_index_add_paths(repo, ix, none, 1, &o), WG_ENOTFOUND);
	CHECK_STR(wg_error_message(), "pathspec 'nothere' did not match any files");
	CHECK_ERR(wg_index_add_paths(repo, ix, glob, 1, &o), WG_ENOTFOUND);
	CHECK(ix->nr == 0 && log.text.len == 0);

	/* a dry run reports and changes nothing */
	o.dry_run = true;
	CHECK_OK(wg_index_add_paths(repo, ix, all, 1, &o));
	CHECK_STR(wg_buf_cstr(&log.text), "a:a\na:d/b\na:d/e/c\n");
	CHECK(ix->nr == 0);
	o.dry_run = false;
	wg_buf_reset(&log.text);

	/* everything but the ignored file; the executable bit; stat data */
	CHECK_OK(wg_index_add_paths(repo, ix, NULL, 0, &o));
	CHECK_STR(wg_buf_cstr(&log.text), "a:a\na:d/b\na:d/e/c\n");
	CHECK(ix->nr == 3);
	CHECK(entry(ix, "d/b") && entry(ix, "d/b")->mode == 0100755);
	CHECK(entry(ix, "a") && entry(ix, "a")->mode == 0100644 && entry(ix, "a")->st.size == 2 &&
	      entry(ix, "a")->st.mtime_sec != 0);
	CHECK(!entry(ix, "x.o"));
	CHECK(wg_odb_exists(wg_repo_odb(repo), &entry(ix, "a")->oid) == 1);

	/* an ignored file named: reported, the rest added */
	wg_buf_reset(&log.text);
	CHECK_OK(wg_workfile_write(repo, "c", "c\n", 2, 0));
	CHECK_OK(wg_index_add_paths(repo, ix, named, 2, &o));
	CHECK_STR(wg_buf_cstr(&log.text), "i:x.o\na:c\n");
	CHECK(entry(ix, "c") && !entry(ix, "x.o"));
	o.force = true;
	wg_buf_reset(&log.text);
	CHECK_OK(wg_index_add_paths(repo, ix, named, 2, &o));
	CHECK_STR(wg_buf_cstr(&log.text), "a:x.o\n");
	o.force = false;

	/* a deletion and a change under d: -A removes, --no-all keeps */
	CHECK_OK(wg_workfile_remove(repo, "d/e/c"));
	CHECK_OK(wg_workfile_write(repo, "d/b", "B\n", 2, 0100644));
	o.all = false;
	wg_buf_reset(&log.text);
	CHECK_OK(wg_index_add_paths(repo, ix, dir, 1, &o));
	CHECK_STR(wg_buf_cstr(&log.text), "a:d/b\n");
	CHECK(entry(ix, "d/e/c") && entry(ix, "d/b")->mode == 0100644);
	o.all = true;
	wg_buf_reset(&log.text);
	CHECK_OK(wg_index_add_paths(repo, ix, dir, 1, &o));
	CHECK_STR(wg_buf_cstr(&log.text), "r:d/e/c\n");
	CHECK(!entry(ix, "d/e/c"));

	/* -N: the empty blob, flagged; a tracked path stays */
	CHECK_OK(wg_workfile_write(repo, "n", "new\n", 4, 0));
	{
		const char *n[] = { "n" };
		o.intent_to_add = true;
		CHECK_OK(wg_index_add_paths(repo, ix, n, 1, &o));
		o.intent_to_add = false;
		CHECK_OK(wg_object_hash(&empty, ix->algo, WG_OBJ_BLOB, "", 0));
		CHECK(entry(ix, "n") && wg_oid_equal(&entry(ix, "n")->oid, &empty) &&
		      (entry(ix, "n")->flags & WG_INDEX_INTENT_TO_ADD));
	}

	/* rm: no -r for a directory, local changes refused, nothing changed */
	{
		const char *d[] = { "d" }, *a[] = { "a" }, *c[] = { "c" };
		size_t before = ix->nr;
		CHECK_ERR(wg_index_remove_paths(repo, ix, d, 1, false, false, false, &o), WG_EINVALID);
		CHECK_STR(wg_error_message(), "not removing 'd' recursively without -r");
		CHECK_OK(wg_workfile_write(repo, "a", "changed\n", 8, 0));
		log.warnings = 0;
		CHECK_ERR(wg_index_remove_paths(repo, ix, a, 1, false, false, false, &o), WG_EEXISTS);
		CHECK(log.warnings == 1 && ix->nr == before);
		CHECK_OK(wg_fs_join(&path, wg_repo_workdir(repo), "a"));
		CHECK(wg_fs_exists(wg_buf_cstr(&path)));
		/* --cached keeps the file (no HEAD: staged content alone is fine) */
		CHECK_ERR(wg_index_remove_paths(repo, ix, a, 1, true, false, false, &o), WG_EEXISTS);
		CHECK_OK(wg_index_remove_paths(repo, ix, a, 1, true, false, true, &o));
		CHECK(!entry(ix, "a") && wg_fs_exists(wg_buf_cstr(&path)));
		/* -r -f removes the files and the directories left empty */
		wg_buf_reset(&log.text);
		CHECK_OK(wg_index_remove_paths(repo, ix, d, 1, false, true, true, &o));
		CHECK_STR(wg_buf_cstr(&log.text), "r:d/b\n");
		CHECK_OK(wg_fs_join(&path, wg_repo_workdir(repo), "d"));
		CHECK(!wg_fs_exists(wg_buf_cstr(&path)));
		/* a dry run reports only */
		wg_buf_reset(&log.text);
		o.dry_run = true;
		CHECK_OK(wg_index_remove_paths(repo, ix, c, 1, false, false, true, &o));
		o.dry_run = false;
		CHECK_STR(wg_buf_cstr(&log.text), "r:c\n");
		CHECK(entry(ix, "c"));
	}

	wg_buf_release(&path);
	wg_buf_release(&log.text);
	wg_ignore_free(ig);
	wg_index_free(ix);
	wg_repo_free(repo);
}

static void test_add_remove_sha1(void)
{
	add_and_remove("sha1");
}

static void test_add_remove_sha256(void)
{
	add_and_remove("sha256");
}

WG_TEST_MAIN("index_update",
	WG_TEST(test_pathspec_match),
	WG_TEST(test_pathspec_below),
	WG_TEST(test_add_remove_sha1),
	WG_TEST(test_add_remove_sha256))
