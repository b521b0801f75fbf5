/* Unit tests for history edits (core/worktree/history_edit.h): a reword
 * and a split (by paths, by hunks) on a repository of each ref format,
 * made here with wg_commit_index, with an allocation failure at every
 * allocation and an I/O failure (EIO, ENOSPC) at every call that changes
 * the disk: each fails with its error and leaves every ref and reflog as
 * it was; the run without a failure moves the branches.
 * tests/js/edit.test.mjs checks the commits byte for byte against the
 * real git. */
#include <string.h>

#include "fixtures.h"
#include "test.h"
#include "index/index.h"
#include "object/commit.h"
#include "refs/refdb.h"
#include "repo/repo.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs_fault.h"
#include "util/pathspec.h"
#include "worktree/commit_index.h"
#include "worktree/history_edit.h"

#define WHO "C O Mitter <c@example.com> 1700000000 +0000"

static void stage(struct wg_repo *repo, struct wg_index *ix, const char *path, const char *text)
{
	struct wg_oid oid;
	struct wg_index_entry *e;
	CHECK_OK(wg_odb_write(wg_repo_odb(repo), WG_OBJ_BLOB, text, strlen(text), &oid));
	e = wg_index_entry_new(path, strlen(path), 0100644, &oid, 0);
	CHECK(e != NULL);
	if (e)
		CHECK_OK(wg_index_add(ix, e));
}

static void commit(struct wg_repo *repo, struct wg_index *ix, const char *msg, struct wg_oid *out)
{
	struct wg_commit_index_options co = { 0 };
	co.committer = WHO;
	co.message = msg;
	co.message_len = strlen(msg);
	CHECK_OK(wg_commit_index(out, repo, ix, &co));
}

/* every ref and the newest entry of each reflog, as one string */
static void snapshot(struct wg_repo *repo, struct wg_buf *out)
{
	static const char *const logs[] = { "HEAD", "refs/heads/main", "refs/heads/side" };
	struct wg_ref_iter *it = NULL;
	const struct wg_ref *r;
	wg_buf_reset(out);
	CHECK_OK(wg_refdb_iter_new(&it, wg_repo_refdb(repo), ""));
	while (it && !wg_ref_iter_next(&r, it))
		CHECK_OK(wg_buf_printf(out, "%s %s\n", r->name,
				       r->symbolic ? r->target : wg_oid_hex(&r->oid)));
	wg_ref_iter_free(it);
	wg_error_clear();
	for (size_t i = 0; i < 3; i++) {
		struct wg_reflog_iter *li = NULL;
		const struct wg_reflog_entry *e;
		CHECK_OK(wg_reflog_iter_new(&li, wg_repo_refdb(repo), logs[i], 0));
		if (li && !wg_reflog_iter_next(&e, li))
			CHECK_OK(wg_buf_printf(out, "%s: %s\n", logs[i], e->message));
		wg_reflog_iter_free(li);
	}
}

/* main: one - two (a, b changed) - three; side branches off at two */
static struct wg_repo *make_repo(const char *name, const char *ref_format, struct wg_oid *two)
{
	struct wg_repo_init_options o = WG_REPO_INIT_OPTIONS_INIT;
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_oid one, three;
	o.object_format = "sha1";
	o.ref_format = ref_format;
	CHECK_OK(wg_repo_init(&repo, wg_test_tmpdir(name), &o));
	if (!repo)
		return NULL;
	CHECK_OK(wg_index_new(&ix, wg_repo_algo(repo)));
	stage(repo, ix, "a", "1\n");
	commit(repo, ix, "one\n", &one);
	stage(repo, ix, "a", "2\n");
	stage(repo, ix, "b", "2\n");
	commit(repo, ix, "two\n", two);
	CHECK_OK(wg_refdb_update(wg_repo_refdb(repo), "refs/heads/side", two, NULL, 0, "branch"));
	stage(repo, ix, "c", "3\n");
	commit(repo, ix, "three\n", &three);
	wg_index_free(ix);
	return repo;
}

enum fault { ALLOC, EIO_AT, ENOSPC_AT };

enum edit_kind { REWORD, SPLIT_PATHS, SPLIT_HUNKS };

static int run(struct wg_repo *repo, const struct wg_oid *two, enum edit_kind kind,
	       const struct wg_pathspec *ps, struct wg_history_rewrite *rw)
{
	static const unsigned first_hunk[] = { 0 };
	static const struct wg_split_hunks hunks = { "a", first_hunk, 1 };
	struct wg_history_edit_options opts = { 0 };
	int err;
	opts.committer = "E Ditor <e@example.com> 1700000100 +0000";
	if (kind != REWORD) {
		if (kind == SPLIT_PATHS) {
			opts.paths = ps;
		} else {
			opts.hunks = &hunks;
			opts.nhunks = 1;
		}
		opts.first_message = "two: b\n";
		opts.first_message_len = 7;
		err = wg_history_split(rw, repo, two, &opts);
	} else {
		opts.message = "two, reworded\n";
		opts.message_len = 14;
		err = wg_history_reword(rw, repo, two, &opts);
	}
	return err;
}

/* Fail at each point in turn until the edit succeeds. */
static void faults(const char *name, const char *ref_format, enum edit_kind edit, enum fault kind)
{
	struct wg_buf before = WG_BUF_INIT, after = WG_BUF_INIT;
	struct wg_history_rewrite rw;
	struct wg_oid two, main_tip;
	struct wg_repo *repo = make_repo(name, ref_format, &two);
	struct wg_pathspec ps = { 0 };
	const char *items[] = { "b" };
	unsigned long at;
	int err = 0;

	if (!repo)
		return;
	CHECK_OK(wg_pathspec_init(&ps, "", items, 1));
	snapshot(repo, &before);
	for (at = 1; at < 2000; at++) {
		struct wg_fs_fault spec = { 0 };
		if (kind == ALLOC) {
			fx_fail_at = (int)at - 1;
			fx_alloc_count = 0;
			wg_allocator_set(&fx_failing_allocator);
		} else {
			spec.fail_at = at;
			spec.action = kind == EIO_AT ? WG_FS_FAULT_EIO : WG_FS_FAULT_ENOSPC;
			wg_fs_fault_install(&spec);
		}
		err = run(repo, &two, edit, &ps, &rw);
		if (kind == ALLOC)
			wg_allocator_set(NULL);
		else
			wg_fs_fault_remove();
		if (!err)
			break;
		CHECK(err == (kind == ALLOC ? WG_ENOMEM : WG_EIO));
		if (err != (kind == ALLOC ? WG_ENOMEM : WG_EIO))
			fprintf(stderr, "  failure %lu: %d %s\n", at, err, wg_error_message());
		wg_error_clear();
		/* nothing moved, no reflog entry added */
		snapshot(repo, &after);
		CHECK_STR(wg_buf_cstr(&after), wg_buf_cstr(&before));
		if (strcmp(wg_buf_cstr(&after), wg_buf_cstr(&before)))
			break;
	}
	CHECK_OK(err);
	CHECK(at > 1);  /* the loop did fail somewhere first */
	CHECK(rw.nr == 2 && rw.nrefs == 2);
	CHECK(wg_oid_equal(&rw.old_ids[0], &two));
	CHECK_OK(wg_refdb_resolve(&main_tip, NULL, wg_repo_refdb(repo), "refs/heads/main", 0));
	CHECK(wg_oid_equal(&main_tip, &rw.new_ids[1]));
	snapshot(repo, &after);
	CHECK(strstr(wg_buf_cstr(&after), edit != REWORD ? "HEAD: split: two: b\n"
		     : "HEAD: reword: two, reworded\n"));
	wg_history_rewrite_release(&rw);
	wg_pathspec_release(&ps);
	wg_buf_release(&before);
	wg_buf_release(&after);
	wg_repo_free(repo);
}

static void test_reword_alloc(void) { faults("he-rw-alloc", "files", REWORD, ALLOC); }
static void test_split_alloc(void) { faults("he-sp-alloc", "reftable", SPLIT_PATHS, ALLOC); }
static void test_split_hunks_alloc(void) { faults("he-sh-alloc", "files", SPLIT_HUNKS, ALLOC); }
static void test_reword_eio_files(void) { faults("he-rw-eio-f", "files", REWORD, EIO_AT); }
static void test_reword_eio_reftable(void) { faults("he-rw-eio-r", "reftable", REWORD, EIO_AT); }
static void test_split_enospc_files(void) { faults("he-sp-nospc-f", "files", SPLIT_PATHS, ENOSPC_AT); }
static void test_split_hunks_eio(void) { faults("he-sh-eio", "reftable", SPLIT_HUNKS, EIO_AT); }
static void test_split_enospc_reftable(void) { faults("he-sp-nospc-r", "reftable", SPLIT_PATHS, ENOSPC_AT); }

WG_TEST_MAIN("history_edit",
	WG_TEST(test_reword_alloc),
	WG_TEST(test_split_alloc),
	WG_TEST(test_split_hunks_alloc),
	WG_TEST(test_split_hunks_eio),
	WG_TEST(test_reword_eio_files),
	WG_TEST(test_reword_eio_reftable),
	WG_TEST(test_split_enospc_files),
	WG_TEST(test_split_enospc_reftable))
