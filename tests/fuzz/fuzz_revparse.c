/* Revision expressions (core/repo/revparse.c) against a small repository
 * made once per process: a blob, trees "a" and "dir/b", two commits
 * (main, with topic at the first), an annotated tag v1 and a lightweight
 * tag lw. The input is the expression, e.g. "v1^{commit}~1:dir/b". */
#include "fuzz.h"

#include "object/commit.h"
#include "object/tag.h"
#include "object/tree.h"
#include "odb/odb.h"
#include "repo/repo.h"
#include "repo/revparse.h"
#include "util/error.h"

static struct wg_repo *repo;

static void must(int rc)
{
	if (rc) {
		fprintf(stderr, "fuzz_revparse set-up: %s\n", wg_error_message());
		abort();
	}
}

static void write_tree(struct wg_odb *odb, const struct wg_hash_algo *algo, unsigned mode,
		       const char *name, const struct wg_oid *oid, const char *name2,
		       const struct wg_oid *oid2, unsigned mode2, struct wg_oid *out)
{
	struct wg_tree_builder *tb;
	struct wg_buf b = WG_BUF_INIT;
	must(wg_tree_builder_new(&tb, algo));
	must(wg_tree_builder_add(tb, mode, name, strlen(name), oid));
	if (name2)
		must(wg_tree_builder_add(tb, mode2, name2, strlen(name2), oid2));
	must(wg_tree_builder_write(tb, &b));
	must(wg_odb_write(odb, WG_OBJ_TREE, b.data, b.len, out));
	wg_tree_builder_free(tb);
	wg_buf_release(&b);
}

static void write_commit(struct wg_odb *odb, const struct wg_oid *tree,
			 const struct wg_oid *parent, const char *msg, struct wg_oid *out)
{
	struct wg_commit c;
	struct wg_buf b = WG_BUF_INIT;
	wg_commit_init(&c);
	c.tree = *tree;
	if (parent)
		must(wg_commit_add_parent(&c, parent));
	must(wg_commit_set_author(&c, "A U Thor <a@example.com> 1700000000 +0000"));
	must(wg_commit_set_committer(&c, "A U Thor <a@example.com> 1700000000 +0000"));
	must(wg_commit_set_message(&c, msg, strlen(msg)));
	must(wg_commit_serialize(&c, &b));
	must(wg_odb_write(odb, WG_OBJ_COMMIT, b.data, b.len, out));
	wg_commit_release(&c);
	wg_buf_release(&b);
}

static void setup(void)
{
	struct wg_repo_init_options o = WG_REPO_INIT_OPTIONS_INIT;
	const struct wg_hash_algo *algo;
	struct wg_odb *odb;
	struct wg_refdb *refdb;
	struct wg_oid blob, sub, root, c1, c2, tag;
	struct wg_tag t;
	struct wg_buf b = WG_BUF_INIT;
	char path[400];

	snprintf(path, sizeof(path), "%s/repo", fz_tmpdir());
	o.object_format = "sha1";
	o.ref_format = "files";
	must(wg_repo_init(&repo, path, &o));
	algo = wg_repo_algo(repo);
	odb = wg_repo_odb(repo);
	refdb = wg_repo_refdb(repo);
	must(wg_odb_write(odb, WG_OBJ_BLOB, "hello\n", 6, &blob));
	write_tree(odb, algo, WG_MODE_BLOB, "b", &blob, NULL, NULL, 0, &sub);
	write_tree(odb, algo, WG_MODE_BLOB, "a", &blob, "dir", &sub, WG_MODE_TREE, &root);
	write_commit(odb, &root, NULL, "first\n", &c1);
	write_commit(odb, &sub, &c1, "second\n", &c2);
	wg_tag_init(&t);
	t.object = c2;
	t.type = WG_OBJ_COMMIT;
	must(wg_tag_set_name(&t, "v1"));
	must(wg_tag_set_tagger(&t, "A U Thor <a@example.com> 1700000000 +0000"));
	must(wg_tag_set_message(&t, "v1\n", 3));
	must(wg_tag_serialize(&t, &b));
	must(wg_odb_write(odb, WG_OBJ_TAG, b.data, b.len, &tag));
	wg_tag_release(&t);
	wg_buf_release(&b);
	must(wg_refdb_update(refdb, "refs/heads/main", &c2, NULL, 0, "fuzz"));
	must(wg_refdb_update(refdb, "refs/heads/topic", &c1, NULL, 0, "fuzz"));
	must(wg_refdb_update(refdb, "refs/tags/v1", &tag, NULL, 0, "fuzz"));
	must(wg_refdb_update(refdb, "refs/tags/lw", &blob, NULL, 0, "fuzz"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_oid oid, peeled;
	char *spec;

	if (!repo)
		setup();
	spec = fz_cstr(data, size);
	if (!wg_revparse(&oid, repo, spec))
		(void)wg_object_peel(&peeled, repo, &oid, WG_OBJ_NONE);
	free(spec);
	return 0;
}
