/* Unit tests for the ref database (files backend) and ref names. They need
 * no git binary, so they also run as WebAssembly under Node. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "refs/refdb.h"
#include "refs/refname.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"

/* Expectations recorded from `git check-ref-format [flag] NAME` (2.53). */
static const struct {
	const char *name, *flag;
	int git_rc;
} corpus[] = {
	{ "refs/heads/main", "", 0 },
	{ "refs/heads/main", "--allow-onelevel", 0 },
	{ "refs/heads/main", "--refspec-pattern", 0 },
	{ "heads/main", "", 0 },
	{ "heads/main", "--allow-onelevel", 0 },
	{ "heads/main", "--refspec-pattern", 0 },
	{ "main", "", 1 },
	{ "main", "--allow-onelevel", 0 },
	{ "main", "--refspec-pattern", 1 },
	{ "refs/heads/a..b", "", 1 },
	{ "refs/heads/a..b", "--allow-onelevel", 1 },
	{ "refs/heads/a..b", "--refspec-pattern", 1 },
	{ "refs/heads/.hidden", "", 1 },
	{ "refs/heads/.hidden", "--allow-onelevel", 1 },
	{ "refs/heads/.hidden", "--refspec-pattern", 1 },
	{ "refs/heads/a.lock", "", 1 },
	{ "refs/heads/a.lock", "--allow-onelevel", 1 },
	{ "refs/heads/a.lock", "--refspec-pattern", 1 },
	{ "refs/heads/a.lock/b", "", 1 },
	{ "refs/heads/a.lock/b", "--allow-onelevel", 1 },
	{ "refs/heads/a.lock/b", "--refspec-pattern", 1 },
	{ "refs/heads/a/", "", 1 },
	{ "refs/heads/a/", "--allow-onelevel", 1 },
	{ "refs/heads/a/", "--refspec-pattern", 1 },
	{ "/refs/heads/a", "", 1 },
	{ "/refs/heads/a", "--allow-onelevel", 1 },
	{ "/refs/heads/a", "--refspec-pattern", 1 },
	{ "refs//heads", "", 1 },
	{ "refs//heads", "--allow-onelevel", 1 },
	{ "refs//heads", "--refspec-pattern", 1 },
	{ "refs/heads/a.", "", 1 },
	{ "refs/heads/a.", "--allow-onelevel", 1 },
	{ "refs/heads/a.", "--refspec-pattern", 1 },
	{ "refs/heads/a@{b", "", 1 },
	{ "refs/heads/a@{b", "--allow-onelevel", 1 },
	{ "refs/heads/a@{b", "--refspec-pattern", 1 },
	{ "refs/heads/@", "", 0 },
	{ "refs/heads/@", "--allow-onelevel", 0 },
	{ "refs/heads/@", "--refspec-pattern", 0 },
	{ "@", "", 1 },
	{ "@", "--allow-onelevel", 1 },
	{ "@", "--refspec-pattern", 1 },
	{ "refs/heads/a b", "", 1 },
	{ "refs/heads/a b", "--allow-onelevel", 1 },
	{ "refs/heads/a b", "--refspec-pattern", 1 },
	{ "refs/heads/a~b", "", 1 },
	{ "refs/heads/a~b", "--allow-onelevel", 1 },
	{ "refs/heads/a~b", "--refspec-pattern", 1 },
	{ "refs/heads/a^b", "", 1 },
	{ "refs/heads/a^b", "--allow-onelevel", 1 },
	{ "refs/heads/a^b", "--refspec-pattern", 1 },
	{ "refs/heads/a:b", "", 1 },
	{ "refs/heads/a:b", "--allow-onelevel", 1 },
	{ "refs/heads/a:b", "--refspec-pattern", 1 },
	{ "refs/heads/a?b", "", 1 },
	{ "refs/heads/a?b", "--allow-onelevel", 1 },
	{ "refs/heads/a?b", "--refspec-pattern", 1 },
	{ "refs/heads/a[b", "", 1 },
	{ "refs/heads/a[b", "--allow-onelevel", 1 },
	{ "refs/heads/a[b", "--refspec-pattern", 1 },
	{ "refs/heads/a\\b", "", 1 },
	{ "refs/heads/a\\b", "--allow-onelevel", 1 },
	{ "refs/heads/a\\b", "--refspec-pattern", 1 },
	{ "refs/heads/*", "", 1 },
	{ "refs/heads/*", "--allow-onelevel", 1 },
	{ "refs/heads/*", "--refspec-pattern", 0 },
	{ "refs/heads/a*b*", "", 1 },
	{ "refs/heads/a*b*", "--allow-onelevel", 1 },
	{ "refs/heads/a*b*", "--refspec-pattern", 1 },
	{ "refs/heads/a.b", "", 0 },
	{ "refs/heads/a.b", "--allow-onelevel", 0 },
	{ "refs/heads/a.b", "--refspec-pattern", 0 },
	{ "refs/heads/-dash", "", 0 },
	{ "refs/heads/-dash", "--allow-onelevel", 0 },
	{ "refs/heads/-dash", "--refspec-pattern", 0 },
	{ "refs/heads/ü", "", 0 },
	{ "refs/heads/ü", "--allow-onelevel", 0 },
	{ "refs/heads/ü", "--refspec-pattern", 0 },
	{ "HEAD", "", 1 },
	{ "HEAD", "--allow-onelevel", 0 },
	{ "HEAD", "--refspec-pattern", 1 },
	{ "refs/heads/a.lockx", "", 0 },
	{ "refs/heads/a.lockx", "--allow-onelevel", 0 },
	{ "refs/heads/a.lockx", "--refspec-pattern", 0 },
	{ "refs/heads/..", "", 1 },
	{ "refs/heads/..", "--allow-onelevel", 1 },
	{ "refs/heads/..", "--refspec-pattern", 1 },
	{ "refs/tags/v1.0", "", 0 },
	{ "refs/tags/v1.0", "--allow-onelevel", 0 },
	{ "refs/tags/v1.0", "--refspec-pattern", 0 },
	{ "refs/heads/a@b", "", 0 },
	{ "refs/heads/a@b", "--allow-onelevel", 0 },
	{ "refs/heads/a@b", "--refspec-pattern", 0 },
	{ "refs/heads/a/.b", "", 1 },
	{ "refs/heads/a/.b", "--allow-onelevel", 1 },
	{ "refs/heads/a/.b", "--refspec-pattern", 1 },
	{ "a", "", 1 },
	{ "a", "--allow-onelevel", 0 },
	{ "a", "--refspec-pattern", 1 },
	{ "refs/heads/lock", "", 0 },
	{ "refs/heads/lock", "--allow-onelevel", 0 },
	{ "refs/heads/lock", "--refspec-pattern", 0 },
	{ ".refs/heads", "", 1 },
	{ ".refs/heads", "--allow-onelevel", 1 },
	{ ".refs/heads", "--refspec-pattern", 1 },
	{ "refs/heads/a..lock", "", 1 },
	{ "refs/heads/a..lock", "--allow-onelevel", 1 },
	{ "refs/heads/a..lock", "--refspec-pattern", 1 },
	{ "refs/heads/*/x", "", 1 },
	{ "refs/heads/*/x", "--allow-onelevel", 1 },
	{ "refs/heads/*/x", "--refspec-pattern", 0 },
	{ "*", "", 1 },
	{ "*", "--allow-onelevel", 1 },
	{ "*", "--refspec-pattern", 1 },
	{ "refs/heads/a/*", "", 1 },
	{ "refs/heads/a/*", "--allow-onelevel", 1 },
	{ "refs/heads/a/*", "--refspec-pattern", 0 },
	{ "refs/heads/x.lock", "", 1 },
	{ "refs/heads/x.lock", "--allow-onelevel", 1 },
	{ "refs/heads/x.lock", "--refspec-pattern", 1 },
	{ "", "", 1 },
	{ "", "--allow-onelevel", 1 },
	{ "", "--refspec-pattern", 1 },
};

static void test_refname_corpus(void)
{
	size_t i;
	for (i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		unsigned flags = !strcmp(corpus[i].flag, "--allow-onelevel") ?
				 WG_REFNAME_ALLOW_ONELEVEL :
				 !strcmp(corpus[i].flag, "--refspec-pattern") ?
				 WG_REFNAME_REFSPEC_PATTERN : 0;
		bool ok = wg_refname_is_valid(corpus[i].name, flags);
		if (ok != (corpus[i].git_rc == 0))
			fprintf(stderr, "refname '%s' %s: git says %s\n", corpus[i].name,
				corpus[i].flag, corpus[i].git_rc ? "invalid" : "valid");
		CHECK(ok == (corpus[i].git_rc == 0));
	}
}

static const struct wg_hash_algo *sha1(void)
{
	return wg_hash_algo_by_id(WG_HASH_SHA1);
}

static void oid_n(struct wg_oid *out, unsigned n)
{
	unsigned char raw[WG_MAX_RAWSZ];
	memset(raw, 0, sizeof(raw));
	raw[0] = (unsigned char)(n >> 8);
	raw[1] = (unsigned char)n;
	raw[2] = 1;
	wg_oid_from_raw(out, sha1(), raw);
}

/* wg_test_tmpdir() makes a new directory per call: remember ours. */
static char db_dir[4096];
/* The refdb tests below are a conformance suite: each runs on both
 * backends, with the few storage-specific checks switched on this. */
static enum wg_ref_format format;

static struct wg_refdb *open_db(const char *name)
{
	struct wg_refdb_options opts = WG_REFDB_OPTIONS_INIT;
	struct wg_refdb *db = NULL;
	const char *dir = wg_test_tmpdir(name);
	snprintf(db_dir, sizeof(db_dir), "%s", dir);
	opts.committer_name = "A U Thor";
	opts.committer_email = "author@example.com";
	opts.committer_date = "1700000000 +0000";
	CHECK_OK(wg_refdb_init(dir, format, sha1(), "refs/heads/main"));
	CHECK_OK(wg_refdb_open(&db, dir, format, sha1(), &opts));
	return db;
}

static int read_file(struct wg_buf *out, struct wg_refdb *db, const char *dir, const char *rel)
{
	struct wg_buf p = WG_BUF_INIT;
	int err;
	(void)db;
	wg_buf_printf(&p, "%s/%s", dir, rel);
	wg_buf_reset(out);
	err = wg_fs_read_file(out, (const char *)p.data);
	wg_buf_release(&p);
	return err;
}

static void test_update_read_resolve(void)
{
	struct wg_refdb *db = open_db("refs-basic");
	const char *dir = db_dir;
	struct wg_oid a, b, got, null;
	struct wg_ref ref;
	struct wg_buf buf = WG_BUF_INIT;
	char *resolved = NULL;
	(void)dir;
	oid_n(&a, 1);
	oid_n(&b, 2);
	wg_oid_null(&null, sha1());
	CHECK_ERR(wg_refdb_resolve(&got, NULL, db, "HEAD", 0), WG_ENOTFOUND);
	CHECK_OK(wg_refdb_resolve(&got, &resolved, db, "HEAD", WG_RESOLVE_ALLOW_MISSING));
	CHECK_STR(resolved, "refs/heads/main");
	CHECK(wg_oid_is_null(&got));
	wg_free(resolved);
	/* Through HEAD: the branch is written, both reflogs get the entry. */
	CHECK_OK(wg_refdb_update(db, "HEAD", &a, &null, 0, "first\n  commit"));
	CHECK_OK(wg_refdb_read(&ref, db, "refs/heads/main"));
	CHECK(!ref.symbolic && wg_oid_equal(&ref.oid, &a));
	wg_ref_release(&ref);
	CHECK_OK(wg_refdb_read(&ref, db, "HEAD"));
	CHECK(ref.symbolic);
	CHECK_STR(ref.target, "refs/heads/main");
	wg_ref_release(&ref);
	if (format == WG_REF_FORMAT_FILES) {
		CHECK_OK(read_file(&buf, db, dir, "logs/HEAD"));
		CHECK_STR((const char *)buf.data, "0000000000000000000000000000000000000000 "
			  "0001010000000000000000000000000000000000 A U Thor <author@example.com> "
			  "1700000000 +0000\tfirst commit\n");
	} else {
		struct wg_reflog_iter *it = NULL;
		const struct wg_reflog_entry *e;
		CHECK_OK(wg_reflog_iter_new(&it, db, "HEAD", 0));
		CHECK_OK(wg_reflog_iter_next(&e, it));
		CHECK(wg_oid_is_null(&e->old_oid) && wg_oid_equal(&e->new_oid, &a));
		CHECK_STR(e->committer, "A U Thor <author@example.com>");
		CHECK(e->time == 1700000000 && e->tz == 0);
		CHECK_STR(e->message, "first commit");
		CHECK_ERR(wg_reflog_iter_next(&e, it), WG_ITEROVER);
		wg_reflog_iter_free(it);
	}
	/* Wrong old value: refused with git's message, nothing changes. */
	CHECK_ERR(wg_refdb_update(db, "refs/heads/main", &b, &b, 0, NULL), WG_EEXISTS);
	CHECK(strstr(wg_error_message(), "cannot lock ref 'refs/heads/main': is at ") != NULL);
	CHECK_OK(wg_refdb_resolve(&got, NULL, db, "HEAD", 0));
	CHECK(wg_oid_equal(&got, &a));
	/* Create must not exist. */
	CHECK_ERR(wg_refdb_update(db, "refs/heads/main", &b, &null, 0, NULL), WG_EEXISTS);
	CHECK(strstr(wg_error_message(), "reference already exists") != NULL);
	/* Bad names are refused. */
	CHECK_ERR(wg_refdb_update(db, "refs/heads/a..b", &b, NULL, 0, NULL), WG_EINVALID);
	CHECK_ERR(wg_refdb_update(db, "lowercase", &b, NULL, 0, NULL), WG_EINVALID);
	wg_buf_release(&buf);
	wg_refdb_free(db);
}

static void test_transaction_atomic(void)
{
	struct wg_refdb *db = open_db("refs-atomic");
	struct wg_ref_transaction *tx = NULL;
	struct wg_ref_iter *it = NULL;
	const struct wg_ref *r;
	struct wg_oid a, b;
	char name[64];
	int i, n = 0, err;
	oid_n(&a, 1);
	oid_n(&b, 2);
	CHECK_OK(wg_ref_transaction_new(&tx, db));
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "refs/t/r%04d", i);
		CHECK_OK(wg_ref_transaction_create(tx, name, &a, 0, "bulk"));
	}
	CHECK_OK(wg_ref_transaction_commit(tx));
	wg_ref_transaction_free(tx);
	/* One bad expectation among many: nothing applied, no lock left. */
	CHECK_OK(wg_ref_transaction_new(&tx, db));
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "refs/t/r%04d", i);
		CHECK_OK(wg_ref_transaction_update(tx, name, &b, i == 321 ? &b : &a, 0, NULL));
	}
	CHECK_ERR(wg_ref_transaction_commit(tx), WG_EEXISTS);
	wg_ref_transaction_free(tx);
	CHECK_OK(wg_refdb_iter_new(&it, db, "refs/t/"));
	while (!(err = wg_ref_iter_next(&r, it))) {
		CHECK(wg_oid_equal(&r->oid, &a));
		n++;
	}
	CHECK_ERR(err, WG_ITEROVER);
	CHECK(n == 500);
	wg_ref_iter_free(it);
	{
		struct wg_buf p = WG_BUF_INIT;
		wg_buf_printf(&p, format == WG_REF_FORMAT_FILES ? "%s/refs/t/r0000.lock" :
			      "%s/reftable/tables.list.lock", db_dir);
		CHECK(!wg_fs_exists((const char *)p.data));
		/* A lock held by someone else refuses the update. */
		CHECK_OK(wg_fs_write_new_file((const char *)p.data, "", 0, 0666));
		CHECK_ERR(wg_refdb_update(db, "refs/t/r0000", &b, NULL, 0, NULL), WG_ELOCKED);
		CHECK(strstr(wg_error_message(), format == WG_REF_FORMAT_FILES ? "File exists" :
			     "cannot lock references") != NULL);
		unlink((const char *)p.data);
		wg_buf_release(&p);
	}
	/* Directory/file conflicts. */
	CHECK_ERR(wg_refdb_update(db, "refs/t/r0000/sub", &a, NULL, 0, NULL), WG_EEXISTS);
	CHECK(strstr(wg_error_message(), "'refs/t/r0000' exists; cannot create") != NULL);
	CHECK_ERR(wg_refdb_update(db, "refs/t", &a, NULL, 0, NULL), WG_EEXISTS);
	wg_refdb_free(db);
}

static void test_pack_and_delete(void)
{
	struct wg_refdb *db = open_db("refs-pack");
	struct wg_ref_iter *it = NULL;
	const struct wg_ref *r;
	struct wg_ref ref;
	struct wg_oid a, b;
	const char *names[] = { "refs/heads/a-b", "refs/heads/a/b", "refs/heads/b", "refs/tags/v1" };
	size_t i;
	int err;
	oid_n(&a, 1);
	oid_n(&b, 2);
	for (i = 0; i < 4; i++)
		CHECK_OK(wg_refdb_update(db, names[i], &a, NULL, 0, NULL));
	CHECK_OK(wg_refdb_pack(db, WG_REFDB_PACK_ALL | WG_REFDB_PACK_PRUNE));
	/* Loose overrides packed. */
	CHECK_OK(wg_refdb_update(db, "refs/heads/b", &b, &a, 0, NULL));
	CHECK_OK(wg_refdb_iter_new(&it, db, "refs/heads/"));
	for (i = 0; !(err = wg_ref_iter_next(&r, it)); i++) {
		CHECK(i < 3);
		if (i < 3)
			CHECK_STR(r->name, names[i]);
		CHECK(wg_oid_equal(&r->oid, i == 2 ? &b : &a));
	}
	CHECK_ERR(err, WG_ITEROVER);
	wg_ref_iter_free(it);
	CHECK_OK(wg_refdb_delete(db, "refs/heads/a/b", &a, 0, NULL));
	CHECK_ERR(wg_refdb_read(&ref, db, "refs/heads/a/b"), WG_ENOTFOUND);
	CHECK_OK(wg_refdb_read(&ref, db, "refs/tags/v1"));
	wg_ref_release(&ref);
	/* Now refs/heads/a can be created: its directory was pruned. */
	CHECK_OK(wg_refdb_update(db, "refs/heads/a", &a, NULL, 0, NULL));
	CHECK_OK(wg_refdb_verify(db, NULL, NULL));
	wg_refdb_free(db);
}

static void test_reflog_order(void)
{
	struct wg_refdb *db = open_db("refs-reflog");
	struct wg_reflog_iter *it = NULL;
	const struct wg_reflog_entry *e;
	struct wg_oid o[3];
	int i, err;
	for (i = 0; i < 3; i++)
		oid_n(&o[i], (unsigned)i + 1);
	CHECK_OK(wg_refdb_update(db, "refs/heads/x", &o[0], NULL, 0, "one"));
	CHECK_OK(wg_refdb_update(db, "refs/heads/x", &o[1], NULL, 0, "two"));
	CHECK_OK(wg_refdb_update(db, "refs/heads/x", &o[2], NULL, 0, "three"));
	CHECK_OK(wg_reflog_iter_new(&it, db, "refs/heads/x", 0));
	for (i = 2; !(err = wg_reflog_iter_next(&e, it)); i--) {
		CHECK(i >= 0 && wg_oid_equal(&e->new_oid, &o[i]));
		CHECK(e->time == 1700000000);
	}
	CHECK_ERR(err, WG_ITEROVER);
	wg_reflog_iter_free(it);
	CHECK_OK(wg_reflog_iter_new(&it, db, "refs/heads/x", WG_REFLOG_OLDEST_FIRST));
	CHECK_OK(wg_reflog_iter_next(&e, it));
	CHECK_STR(e->message, "one");
	CHECK_STR(e->committer, "A U Thor <author@example.com>");
	wg_reflog_iter_free(it);
	/* refs/tags is not logged by default. */
	CHECK_OK(wg_refdb_update(db, "refs/tags/t", &o[0], NULL, 0, "tag"));
	CHECK(wg_refdb_reflog_exists(db, "refs/tags/t") == 0);
	CHECK_OK(wg_refdb_update(db, "refs/tags/u", &o[0], NULL, WG_REF_FORCE_REFLOG, "tag"));
	CHECK(wg_refdb_reflog_exists(db, "refs/tags/u") == 1);
	wg_refdb_free(db);
}

static void run_suite(enum wg_ref_format f)
{
	format = f;
	test_update_read_resolve();
	test_transaction_atomic();
	test_pack_and_delete();
	test_reflog_order();
}

static void test_files_backend(void) { run_suite(WG_REF_FORMAT_FILES); }
static void test_reftable_backend(void) { run_suite(WG_REF_FORMAT_REFTABLE); }

WG_TEST_MAIN("refs",
	WG_TEST(test_refname_corpus),
	WG_TEST(test_files_backend),
	WG_TEST(test_reftable_backend))
