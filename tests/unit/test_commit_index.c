/* Unit tests for git commit from the index (core/worktree/commit_index.h)
 * and the line counts of its summary (core/worktree/line_count.h): git's
 * message cleanup without an editor and its "empty" rule, the UTF-8
 * conversion, minimal line counts (edits, a missing last newline, moved
 * lines), then commits on a repository of each ref format: the initial
 * commit and its reflog, nothing to commit, --allow-empty, an empty
 * message, conflict stages, --amend (parents, author and message kept)
 * and amend on an unborn branch. t29-commit-reset.sh compares the same
 * against the real git. */
#include <string.h>

#include "test.h"
#include "index/index.h"
#include "object/commit.h"
#include "refs/refdb.h"
#include "repo/repo.h"
#include "util/buf.h"
#include "worktree/commit_index.h"
#include "worktree/line_count.h"

static void cleaned(const char *in, const char *want)
{
	struct wg_buf b = WG_BUF_INIT;
	CHECK_OK(wg_buf_adds(&b, in));
	CHECK_OK(wg_commit_message_cleanup(&b));
	CHECK_STR(wg_buf_cstr(&b), want);
	wg_buf_release(&b);
}

static void test_cleanup(void)
{
	cleaned("", "");
	cleaned("\n\n \t\n", "");
	cleaned("subject", "subject\n");
	cleaned("  subject  \n", "  subject\n");
	cleaned("\n\nsubj \r\n\n\n\n body\t\n\n\nend", "subj\n\n body\n\nend\n");
	cleaned("a\n#not a comment here\n", "a\n#not a comment here\n");
	CHECK(wg_commit_message_is_empty("", 0));
	CHECK(wg_commit_message_is_empty(" \n\t\n", 4));
	CHECK(wg_commit_message_is_empty("Signed-off-by: A <a@x>\n", 23));
	CHECK(!wg_commit_message_is_empty("Signed-off-by: A <a@x>\nx\n", 25));
	CHECK(!wg_commit_message_is_empty("Signed-off-by:\n", 15));  /* no space: text */
}

static void test_utf8(void)
{
	struct wg_buf b = WG_BUF_INIT;
	bool changed = true;
	CHECK_OK(wg_buf_adds(&b, "caf\xc3\xa9\n"));
	CHECK_OK(wg_commit_message_utf8(&b, &changed));
	CHECK(!changed);
	CHECK_STR(wg_buf_cstr(&b), "caf\xc3\xa9\n");
	wg_buf_reset(&b);
	CHECK_OK(wg_buf_adds(&b, "caf\xe9 \xed\xa0\x80\n"));  /* Latin-1, a surrogate */
	CHECK_OK(wg_commit_message_utf8(&b, &changed));
	CHECK(changed);
	CHECK_STR(wg_buf_cstr(&b), "caf\xc3\xa9 \xc3\xad\xc2\xa0\xc2\x80\n");
	wg_buf_release(&b);
}

static void counts(const char *a, const char *b, size_t add, size_t del)
{
	size_t x = 99, y = 99;
	CHECK_OK(wg_diff_line_count(a, strlen(a), b, strlen(b), &x, &y));
	CHECK(x == add && y == del);
	if (x != add || y != del)
		fprintf(stderr, "  '%s' -> '%s': +%zu -%zu, want +%zu -%zu\n", a, b, x, y, add, del);
}

static void test_line_count(void)
{
	counts("", "", 0, 0);
	counts("", "a\nb\n", 2, 0);
	counts("a\nb\n", "", 0, 2);
	counts("a\nb\nc\n", "a\nB\nc\n", 1, 1);
	counts("a\nb", "a\nb\n", 1, 1);          /* the last line gained its newline */
	counts("a\nb\n", "b\na\n", 1, 1);
	counts("1\n2\n3\n4\n5\n", "1\nTWO\n3\n5\n6\n7", 3, 2);
	counts("x\ny\nx\ny\nx\n", "y\nx\ny\nx\ny\n", 1, 1);
	CHECK(wg_diff_is_binary("a\0b", 3));
	CHECK(!wg_diff_is_binary("ab", 2));
	CHECK(!wg_diff_is_binary(NULL, 0));
}

static int add_blob(struct wg_repo *repo, struct wg_index *ix, const char *path,
		    const char *content, unsigned stage)
{
	struct wg_oid oid;
	struct wg_index_entry *e;
	int err = wg_odb_write(wg_repo_odb(repo), WG_OBJ_BLOB, content, strlen(content), &oid);
	if (err)
		return err;
	if (!(e = wg_index_entry_new(path, strlen(path), 0100644, &oid, stage)))
		return WG_ENOMEM;
	return wg_index_add(ix, e);
}

static void read_commit(struct wg_commit *c, struct wg_repo *repo, const struct wg_oid *oid)
{
	struct wg_buf raw = WG_BUF_INIT;
	enum wg_object_type type;
	wg_commit_init(c);
	CHECK_OK(wg_odb_read(wg_repo_odb(repo), oid, &type, &raw));
	CHECK_OK(wg_commit_parse(c, wg_repo_algo(repo), raw.data, raw.len));
	wg_buf_release(&raw);
}

static void newest_reflog(struct wg_repo *repo, const char *ref, const char *want)
{
	struct wg_reflog_iter *it = NULL;
	const struct wg_reflog_entry *e;
	CHECK_OK(wg_reflog_iter_new(&it, wg_repo_refdb(repo), ref, 0));
	if (it && !wg_reflog_iter_next(&e, it))
		CHECK_STR(e->message, want);
	else
		CHECK(!"a reflog entry");
	wg_reflog_iter_free(it);
}

static void commits(const char *name, const char *ref_format)
{
	struct wg_repo_init_options o = WG_REPO_INIT_OPTIONS_INIT;
	struct wg_commit_index_options co = { 0 };
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_oid first, second, amended, head, tmp;
	struct wg_commit c;

	o.object_format = "sha1";
	o.ref_format = ref_format;
	CHECK_OK(wg_repo_init(&repo, wg_test_tmpdir(name), &o));
	if (!repo)
		return;
	CHECK_OK(wg_index_new(&ix, wg_repo_algo(repo)));
	co.committer = "C O Mitter <c@example.com> 1700000000 +0000";
	co.message = "first\n";
	co.message_len = 6;

	/* nothing staged on an unborn branch; amend has nothing to amend */
	CHECK_ERR(wg_commit_index(&first, repo, ix, &co), WG_COMMIT_NOTHING);
	co.amend = true;
	CHECK_ERR(wg_commit_index(&first, repo, ix, &co), WG_ENOTFOUND);
	co.amend = false;

	CHECK_OK(add_blob(repo, ix, "a", "a\n", 0));
	CHECK_OK(wg_commit_index(&first, repo, ix, &co));
	CHECK_OK(wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0));
	CHECK(wg_oid_equal(&head, &first));
	newest_reflog(repo, "HEAD", "commit (initial): first");
	newest_reflog(repo, "refs/heads/main", "commit (initial): first");
	read_commit(&c, repo, &first);
	CHECK(c.nparents == 0);
	CHECK_STR(c.author, co.committer);  /* no author: the committer */
	wg_commit_release(&c);

	/* the same tree again */
	CHECK_ERR(wg_commit_index(&tmp, repo, ix, &co), WG_COMMIT_NOTHING);
	co.allow_empty = true;
	co.message = "  \n\t\nSigned-off-by: X <x@x>\n";
	co.message_len = strlen(co.message);
	CHECK_ERR(wg_commit_index(&tmp, repo, ix, &co), WG_COMMIT_EMPTY_MESSAGE);
	co.author = "A U Thor <a@example.com> 1600000000 +0200";
	co.message = "\n\nsecond  \n\n\nbody";
	co.message_len = strlen(co.message);
	CHECK_OK(wg_commit_index(&second, repo, ix, &co));
	read_commit(&c, repo, &second);
	CHECK(c.nparents == 1 && wg_oid_equal(&c.parents[0], &first));
	CHECK(c.message_len == 13 && !memcmp(c.message, "second\n\nbody\n", 13));
	CHECK_STR(c.author, co.author);
	wg_commit_release(&c);
	newest_reflog(repo, "HEAD", "commit: second");

	/* conflict stages are refused, the index left as it was */
	CHECK_OK(add_blob(repo, ix, "c", "one\n", 1));
	CHECK_OK(add_blob(repo, ix, "c", "two\n", 2));
	CHECK_ERR(wg_commit_index(&tmp, repo, ix, &co), WG_COMMIT_UNMERGED);
	CHECK(ix->nr == 3);
	wg_index_remove_at(ix, 2);
	wg_index_remove_at(ix, 1);

	/* amend: the parents of HEAD, its author and message unless given */
	co.amend = true;
	co.allow_empty = false;
	co.author = NULL;
	co.message = NULL;
	co.committer = "C O Mitter <c@example.com> 1700000100 +0000";
	CHECK_ERR(wg_commit_index(&tmp, repo, ix, &co), WG_COMMIT_NOTHING);  /* tree = HEAD^'s */
	CHECK_OK(add_blob(repo, ix, "b", "b\n", 0));
	CHECK_OK(wg_commit_index(&amended, repo, ix, &co));
	read_commit(&c, repo, &amended);
	CHECK(c.nparents == 1 && wg_oid_equal(&c.parents[0], &first));
	CHECK_STR(c.author, "A U Thor <a@example.com> 1600000000 +0200");
	CHECK(c.message_len == 13 && !memcmp(c.message, "second\n\nbody\n", 13));
	wg_commit_release(&c);
	newest_reflog(repo, "HEAD", "commit (amend): second");
	newest_reflog(repo, "refs/heads/main", "commit (amend): second");

	wg_index_free(ix);
	wg_repo_free(repo);
}

static void test_commit_files(void)
{
	commits("commit-files", "files");
}

static void test_commit_reftable(void)
{
	commits("commit-reftable", "reftable");
}

WG_TEST_MAIN("commit_index",
	WG_TEST(test_cleanup),
	WG_TEST(test_utf8),
	WG_TEST(test_line_count),
	WG_TEST(test_commit_files),
	WG_TEST(test_commit_reftable))
