/* Unit tests for revision diffs (diff/rev_diff.h) in a repository made
 * here: a commit is diffed against its first parent and a root commit
 * against the empty tree (which no repository needs to store), as is a
 * shallow clone's boundary; a tree
 * needs `from`; paths limit the changes; renames are paired once asked;
 * the blobs a partial clone would lack are listed once each, submodule
 * commits left out; each file loads and prints with its hunks teed to a
 * sink. */
#include <string.h>

#include "diff/rev_diff.h"
#include "object/commit.h"
#include "object/tree.h"
#include "repo/repo.h"
#include "util/fs.h"
#include "util/error.h"
#include "fixtures.h"
#include "test.h"

#define IDENT "A U Thor <a@example.com> 1700000000 +0000"

struct entry {
	const char *name;
	unsigned mode;
	const char *data;     /* NULL: the id in oid */
	struct wg_oid oid;
};

static struct wg_oid write_tree(struct wg_repo *repo, struct entry *e, size_t n)
{
	struct wg_tree_builder *tb = NULL;
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_oid oid;
	memset(&oid, 0, sizeof(oid));
	CHECK_OK(wg_tree_builder_new(&tb, wg_repo_algo(repo)));
	for (size_t i = 0; tb && i < n; i++) {
		if (e[i].data)
			CHECK_OK(wg_odb_write(wg_repo_odb(repo), WG_OBJ_BLOB, e[i].data,
					      strlen(e[i].data), &e[i].oid));
		CHECK_OK(wg_tree_builder_add(tb, e[i].mode, e[i].name, strlen(e[i].name), &e[i].oid));
	}
	CHECK_OK(wg_tree_builder_write(tb, &raw));
	CHECK_OK(wg_odb_write(wg_repo_odb(repo), WG_OBJ_TREE, raw.data, raw.len, &oid));
	wg_tree_builder_free(tb);
	wg_buf_release(&raw);
	return oid;
}

static struct wg_oid write_commit(struct wg_repo *repo, const struct wg_oid *tree,
				  const struct wg_oid *parent)
{
	struct wg_commit c;
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_oid oid;
	memset(&oid, 0, sizeof(oid));
	wg_commit_init(&c);
	c.tree = *tree;
	if (parent)
		CHECK_OK(wg_commit_add_parent(&c, parent));
	CHECK_OK(wg_commit_set_author(&c, IDENT));
	CHECK_OK(wg_commit_set_committer(&c, IDENT));
	CHECK_OK(wg_commit_set_message(&c, "m\n", 2));
	CHECK_OK(wg_commit_serialize(&c, &raw));
	CHECK_OK(wg_odb_write(wg_repo_odb(repo), WG_OBJ_COMMIT, raw.data, raw.len, &oid));
	wg_commit_release(&c);
	wg_buf_release(&raw);
	return oid;
}

static char hex1[WG_MAX_HEXSZ + 1], hex2[WG_MAX_HEXSZ + 1];

/* "<status><path>[<from]" of each change, space-separated */
static void check_changes(const struct wg_rev_diff *d, const char *want)
{
	struct wg_buf got = WG_BUF_INIT;
	for (size_t i = 0; i < d->changes.n; i++) {
		const struct wg_diff_change *c = &d->changes.v[i];
		CHECK_OK(wg_buf_printf(&got, "%s%c%s%s%s", i ? " " : "", c->status, c->path,
				       c->from ? "<" : "", c->from ? c->from : ""));
	}
	CHECK_STR(wg_buf_cstr(&got), want);
	wg_buf_release(&got);
}

struct counts {
	int hunks, lines;
	long last_new;
};

static int count_hunk(void *payload, const struct wg_hunk *h)
{
	struct counts *c = payload;
	(void)h;
	c->hunks++;
	return 0;
}

static int count_line(void *payload, char type, const struct wg_line *l, long old_no, long new_no)
{
	struct counts *c = payload;
	(void)type;
	(void)l;
	(void)old_no;
	c->lines++;
	if (new_no)
		c->last_new = new_no;
	return 0;
}

static void test_rev_diff(void)
{
	struct wg_repo_init_options o = WG_REPO_INIT_OPTIONS_INIT;
	struct wg_rev_diff_options opts = WG_REV_DIFF_OPTIONS_INIT;
	struct wg_repo *repo = NULL;
	struct wg_rev_diff d;
	struct wg_oid *missing = NULL, empty;
	size_t n = 0;
	static const char body[] = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";

	o.object_format = "sha1";
	CHECK_OK(wg_repo_init(&repo, wg_test_tmpdir("rev_diff"), &o));
	if (!repo)
		return;
	struct entry e1[] = {
		{ .name = "a.txt", .mode = 0100644, .data = body },
		{ .name = "keep", .mode = 0100644, .data = "keep\n" },
		{ .name = "sub", .mode = 0160000, .data = NULL },
	};
	e1[2].oid = fx_oid_of(wg_repo_algo(repo), '5');
	struct wg_oid t1 = write_tree(repo, e1, 3);
	struct wg_oid c1 = write_commit(repo, &t1, NULL);
	struct entry e2[] = {
		{ .name = "b.txt", .mode = 0100644, .data = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n" },
		{ .name = "keep", .mode = 0100755, .data = "keep\n" },
		{ .name = "lost", .mode = 0100644, .data = NULL },
		{ .name = "sub", .mode = 0160000, .data = NULL },
	};
	e2[2].oid = fx_oid_of(wg_repo_algo(repo), '7');   /* a blob the odb lacks */
	e2[3].oid = fx_oid_of(wg_repo_algo(repo), '6');
	struct wg_oid t2 = write_tree(repo, e2, 4);
	struct wg_oid c2 = write_commit(repo, &t2, &c1);

	/* a root commit: against the empty tree */
	wg_oid_to_hex(&c1, hex1);
	CHECK_OK(wg_rev_diff_begin(&d, repo, NULL, hex1, &opts));
	check_changes(&d, "Aa.txt Akeep Asub");
	CHECK_OK(wg_rev_diff_missing(&d, wg_repo_odb(repo), &missing, &n));
	CHECK(n == 0);
	wg_free(missing);
	wg_rev_diff_release(&d);

	/* its child: against the first parent; renames once asked */
	wg_oid_to_hex(&c2, hex2);
	CHECK_OK(wg_rev_diff_begin(&d, repo, NULL, hex2, &opts));
	check_changes(&d, "Da.txt Ab.txt Mkeep Alost Msub");
	CHECK_OK(wg_rev_diff_missing(&d, wg_repo_odb(repo), &missing, &n));
	/* the lacking blob once, the submodule commits never */
	CHECK(n == 1 && n && wg_oid_equal(&missing[0], &e2[2].oid));
	wg_free(missing);
	wg_rev_diff_release(&d);

	/* with paths: the missing blob is outside, so renames can run */
	static const char *const paths[] = { "a.txt", "b.txt/", "keep" };
	opts.paths = paths;
	opts.npaths = 3;
	CHECK_OK(wg_rev_diff_begin(&d, repo, NULL, hex2, &opts));
	check_changes(&d, "Da.txt Ab.txt Mkeep");
	CHECK_OK(wg_rev_diff_renames(&d, repo));
	CHECK_OK(wg_rev_diff_renames(&d, repo));   /* once */
	check_changes(&d, "Rb.txt<a.txt Mkeep");
	{
		struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT, patch = WG_BUF_INIT;
		struct counts cnt = { 0, 0, 0 };
		struct wg_hunk_sink sink = { count_hunk, count_line, &cnt };
		struct wg_patch_options po = d.patch;
		struct wg_diff_file f;
		po.odb = wg_repo_odb(repo);
		po.sink = &sink;
		CHECK_OK(wg_rev_diff_load(&f, &a, &b, po.odb, &d.changes.v[0]));
		CHECK(f.status == 'R' && !strcmp(f.old_path, "a.txt") && !strcmp(f.new_path, "b.txt"));
		CHECK_OK(wg_diff_patch(&patch, &f, &po));
		CHECK(strstr(wg_buf_cstr(&patch), "rename from a.txt\nrename to b.txt\n") != NULL);
		CHECK(strstr(wg_buf_cstr(&patch), "@@ -5,3 +5,4 @@ four\n five\n six\n seven\n+eight\n") != NULL);
		CHECK(cnt.hunks == 1 && cnt.lines == 4 && cnt.last_new == 8);
		wg_buf_release(&a);
		wg_buf_release(&b);
		wg_buf_release(&patch);
	}
	/* a submodule side loads as git prints it */
	opts.paths = NULL;
	opts.npaths = 0;
	wg_rev_diff_release(&d);
	CHECK_OK(wg_rev_diff_begin(&d, repo, hex1, hex2, &opts));
	{
		struct wg_buf a = WG_BUF_INIT, b = WG_BUF_INIT;
		struct wg_diff_file f;
		CHECK(d.changes.n == 5);
		if (d.changes.n == 5) {
			CHECK_OK(wg_rev_diff_load(&f, &a, &b, wg_repo_odb(repo), &d.changes.v[4]));
			CHECK(!strncmp(wg_buf_cstr(&b), "Subproject commit 6666", 22));
			/* the lacking blob: not found, named as the last missing */
			CHECK_ERR(wg_rev_diff_load(&f, &a, &b, wg_repo_odb(repo), &d.changes.v[3]),
				  WG_ENOTFOUND);
			CHECK(wg_oid_equal(wg_odb_last_missing(wg_repo_odb(repo)), &e2[2].oid));
		}
		wg_buf_release(&a);
		wg_buf_release(&b);
	}
	wg_rev_diff_release(&d);

	/* a shallow boundary has no parents, as git grafts it */
	{
		struct wg_buf path = WG_BUF_INIT, line = WG_BUF_INIT;
		wg_oid_to_hex(&c2, hex2);
		CHECK_OK(wg_fs_join(&path, wg_repo_gitdir(repo), "shallow"));
		CHECK_OK(wg_buf_printf(&line, "%s\n%s\n", fx_hexid(wg_repo_algo(repo), '9'), hex2));
		CHECK_OK(wg_fs_write_new_file(wg_buf_cstr(&path), line.data, line.len, 0644));
		CHECK_OK(wg_rev_diff_begin(&d, repo, NULL, hex2, &opts));
		check_changes(&d, "Ab.txt Akeep Alost Asub");
		wg_rev_diff_release(&d);
		CHECK_OK(wg_fs_unlink(wg_buf_cstr(&path)));
		wg_buf_release(&path);
		wg_buf_release(&line);
	}

	/* the empty tree by id, though nothing stores it; trees need from */
	wg_oid_empty_tree(&empty, wg_repo_algo(repo));
	wg_oid_to_hex(&empty, hex1);
	CHECK_OK(wg_rev_diff_begin(&d, repo, hex1, hex2, &opts));
	check_changes(&d, "Ab.txt Akeep Alost Asub");
	wg_rev_diff_release(&d);
	CHECK_OK(wg_rev_diff_begin(&d, repo, hex2, hex1, &opts));
	check_changes(&d, "Db.txt Dkeep Dlost Dsub");
	wg_rev_diff_release(&d);
	wg_oid_to_hex(&t2, hex1);
	CHECK_ERR(wg_rev_diff_begin(&d, repo, NULL, hex1, &opts), WG_EINVALID);
	wg_rev_diff_release(&d);
	CHECK_ERR(wg_rev_diff_begin(&d, repo, NULL, "no-such-ref", &opts), WG_ENOTFOUND);
	wg_rev_diff_release(&d);
	/* a blob is no tree */
	wg_oid_to_hex(&e2[0].oid, hex1);
	CHECK(wg_rev_diff_begin(&d, repo, hex1, hex2, &opts) < 0);
	wg_rev_diff_release(&d);
	wg_repo_free(repo);
}

WG_TEST_MAIN("rev_diff", WG_TEST(test_rev_diff))
