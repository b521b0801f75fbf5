/* Unit tests for the blobs a blame will read that a partial clone lacks
 * (core/history/blame_missing.h), in a repository whose commits and trees
 * are all there and whose blobs are written only when a test "fetches"
 * them: the versions along a line of commits, a rename with an edit
 * (its candidates first, the older name's versions once they are there),
 * a pure rename followed at once, a merge whose first parent has the very
 * blob (the other side is not listed), a path the commit lacks. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "history/blame_missing.h"
#include "object/commit.h"
#include "object/object.h"
#include "repo/repo.h"
#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"

static struct wg_repo *repo;
static struct wg_odb *odb;

/* The id of a blob of `text`, written to the repository if `write`. */
static struct wg_oid blob(const char *text, bool write)
{
	struct wg_oid oid;

	if (write)
		CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, text, strlen(text), &oid));
	else
		CHECK_OK(wg_object_hash(&oid, wg_repo_algo(repo), WG_OBJ_BLOB, text, strlen(text)));
	return oid;
}

/* A commit of the flat tree e, by A at 1700000000 + date. */
static struct wg_oid commit(const struct fx_tree_entry *e, size_t n, const struct wg_oid *parents,
			    size_t np, int date)
{
	char ident[64];
	snprintf(ident, sizeof(ident), "A <a@x> %d +0000", 1700000000 + date);
	return fx_commit_tree(odb, e, n, parents, np, ident, "m\n");
}

/* wg_blame_missing gives exactly `want` (in this order). */
static void check_missing(const struct wg_oid *c, const char *path, const struct wg_oid *want,
			  size_t nwant)
{
	struct wg_oid *got = NULL;
	size_t n = 0;

	CHECK_OK(wg_blame_missing(&got, &n, repo, c, path));
	CHECK(n == nwant);
	for (size_t i = 0; i < n && i < nwant; i++)
		CHECK(wg_oid_equal(&got[i], &want[i]));
	wg_free(got);
}

#define TEXT(tag) tag " 1\n" tag " 2\n" tag " 3\n" tag " 4\n" tag " 5\n" tag " 6\n"

static void test_versions_and_renames(void)
{
	const char *a1 = TEXT("a"), *a2 = "changed\n" TEXT("a"), *b3 = "changed\n" TEXT("a") "end\n";
	const char *b4 = "top\nchanged\n" TEXT("a") "end\n", *o1 = TEXT("other");
	struct wg_oid A1, A2, B3, B4, O1, c1, c2, c3, c4, c5, s, m;

	repo = fx_init_bare_repo("blame-missing");
	odb = wg_repo_odb(repo);
	A1 = blob(a1, false);
	A2 = blob(a2, false);
	B3 = blob(b3, false);
	B4 = blob(b4, false);
	O1 = blob(o1, false);
	c1 = commit((struct fx_tree_entry[]){ { "a", A1 }, { "other", O1 } }, 2, NULL, 0, 1);
	c2 = commit((struct fx_tree_entry[]){ { "a", A2 }, { "other", O1 } }, 2, &c1, 1, 2);
	/* a renamed to b with an edit, other deleted: both are candidates */
	c3 = commit((struct fx_tree_entry[]){ { "b", B3 } }, 1, &c2, 1, 3);
	c4 = commit((struct fx_tree_entry[]){ { "b", B4 } }, 1, &c3, 1, 4);
	/* a pure rename: followed without any contents */
	c5 = commit((struct fx_tree_entry[]){ { "c", B4 } }, 1, &c4, 1, 5);

	/* nothing there: b's versions and the candidates; a's older version
	 * only once they are there */
	check_missing(&c4, "b", (struct wg_oid[]){ B4, B3, A2, O1 }, 4);
	check_missing(&c5, "c", (struct wg_oid[]){ B4, B3, A2, O1 }, 4);
	blob(b4, true);
	blob(b3, true);
	blob(a2, true);
	check_missing(&c4, "b", (struct wg_oid[]){ O1 }, 1);
	blob(o1, true);
	check_missing(&c4, "b", (struct wg_oid[]){ A1 }, 1);
	blob(a1, true);
	check_missing(&c5, "c", NULL, 0);
	/* a path the commit lacks lists nothing */
	check_missing(&c4, "a", NULL, 0);

	/* a merge whose first parent has the very blob: the side's version
	 * (missing) is not listed */
	s = commit((struct fx_tree_entry[]){ { "c", blob("side\n", false) } }, 1, &c4, 1, 6);
	m = commit((struct fx_tree_entry[]){ { "c", B4 } }, 1, (struct wg_oid[]){ c5, s }, 2, 7);
	check_missing(&m, "c", NULL, 0);
	/* with another version the merge reads both sides */
	m = commit((struct fx_tree_entry[]){ { "c", blob("merged\n", false) } }, 1, (struct wg_oid[]){ c5, s }, 2, 8);
	check_missing(&m, "c", (struct wg_oid[]){ blob("merged\n", false), blob("side\n", false) }, 2);
	wg_repo_free(repo);
	repo = NULL;
}

WG_TEST_MAIN("blame_missing",
	WG_TEST(test_versions_and_renames))
