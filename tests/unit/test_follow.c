/* Unit tests for log --follow in the walk (core/history/follow.h through
 * core/history/revwalk.h) on one-file commits built without git: an
 * exact rename, a rename with edits, an unrelated addition under the
 * path followed (no source: the walk keeps the name), the global switch
 * (a later commit under the new name is not shown once the path is the
 * old one), --reverse's order of switching, -n counting shown commits,
 * merges (no diff unless first parent), and the one-path rule. git's
 * own answers for these shapes are checked by tests/interop/t37. */
#include <string.h>

#include "history/revwalk.h"
#include "repo/repo.h"
#include "fixtures.h"
#include "test.h"
#include "util/pathspec.h"

static struct wg_repo *repo;
static struct wg_odb *odb;

static struct wg_oid commit(const char *path, const char *text, const struct wg_oid *parents,
			    size_t n, int date)
{
	return fx_commit_file(odb, path, text, parents, n, "A U Thor <a@example.com>",
			      1700000000 + date, "+0000", "subject\n");
}

#define TEXT "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
#define EDITED "one\ntwo\nthree\nFOUR\nfive\nsix\nseven\neight\nnine\n"

static struct wg_oid c1, c2, c3, c4, c5;

/* c1 a.txt; c2 b.txt (a renamed); c3 b.txt edited; c4 c.txt (b renamed
 * and edited); c5 c.txt edited */
static void build(const char *name)
{
	repo = fx_init_bare_repo(name);
	odb = wg_repo_odb(repo);
	c1 = commit("a.txt", TEXT, NULL, 0, 1);
	c2 = commit("b.txt", TEXT, &c1, 1, 2);
	c3 = commit("b.txt", TEXT "x\n", &c2, 1, 3);
	c4 = commit("c.txt", EDITED, &c3, 1, 4);
	c5 = commit("c.txt", EDITED "y\n", &c4, 1, 5);
}

/* Walk from tip following path; the commits shown, at most 8. */
static size_t walk(const char *path, const struct wg_oid *tip, struct wg_revwalk_options *o,
		   struct wg_oid *out, char *status, int *score)
{
	struct wg_pathspec ps = { 0 };
	struct wg_revwalk *w = NULL;
	struct wg_commit_node *n;
	size_t k = 0;
	int r;

	CHECK_OK(wg_pathspec_init(&ps, "", &path, 1));
	o->paths = &ps;
	o->follow = true;
	CHECK_OK(wg_revwalk_new(&w, odb, o));
	CHECK_OK(wg_revwalk_push(w, tip, 0));
	while (k < 8 && (r = wg_revwalk_next(w, &n)) > 0) {
		bool found;
		const struct wg_diff_changes *d = wg_revwalk_follow_changes(w, &found);
		out[k] = n->oid;
		status[k] = d->n == 1 ? d->v[0].status : '?';
		score[k] = d->n == 1 ? d->v[0].score : -1;
		CHECK(found == (status[k] == 'R' || status[k] == 'C'));
		k++;
	}
	wg_revwalk_free(w);
	wg_pathspec_release(&ps);
	return k;
}

static void test_renames(void)
{
	struct wg_revwalk_options o = { .max_parents = -1, .max_count = SIZE_MAX };
	struct wg_oid got[8];
	char st[8];
	int sc[8];

	build("follow-renames");
	CHECK(walk("c.txt", &c5, &o, got, st, sc) == 5);
	CHECK(wg_oid_equal(&got[0], &c5) && st[0] == 'M');
	CHECK(wg_oid_equal(&got[1], &c4) && st[1] == 'R' && sc[1] > 30000 && sc[1] < 60000);
	CHECK(wg_oid_equal(&got[2], &c3) && st[2] == 'M');
	CHECK(wg_oid_equal(&got[3], &c2) && st[3] == 'R' && sc[3] == 60000);
	CHECK(wg_oid_equal(&got[4], &c1) && st[4] == 'A');

	/* -M90%: the edited rename is too far; the history stops at c4 */
	o = (struct wg_revwalk_options){ .max_parents = -1, .max_count = SIZE_MAX,
					 .follow_score = 54000 };
	CHECK(walk("c.txt", &c5, &o, got, st, sc) == 2);
	CHECK(st[1] == 'A');

	/* -n counts the commits shown, --skip those walked */
	o = (struct wg_revwalk_options){ .max_parents = -1, .max_count = 2, .skip = 1 };
	CHECK(walk("c.txt", &c5, &o, got, st, sc) == 2);
	CHECK(wg_oid_equal(&got[0], &c4) && wg_oid_equal(&got[1], &c3));

	/* --reverse: oldest first, so the rename is met at c4 and the path
	 * is b.txt from then on: c5, which edits c.txt, is not shown (git's
	 * known quirk) */
	o = (struct wg_revwalk_options){ .max_parents = -1, .max_count = SIZE_MAX, .reverse = true };
	CHECK(walk("c.txt", &c5, &o, got, st, sc) == 1);
	CHECK(wg_oid_equal(&got[0], &c4) && st[0] == 'R');
	wg_repo_free(repo);
}

/* A merge has no diff without first_parent; with it, its first parent's. */
static void test_merges_and_errors(void)
{
	struct wg_revwalk_options o = { .max_parents = -1, .max_count = SIZE_MAX };
	struct wg_oid got[8], side, m, parents[2];
	char st[8];
	int sc[8];
	struct wg_revwalk *w = NULL;
	struct wg_pathspec ps = { 0 };
	const char *two[] = { "a", "b" };

	build("follow-merges");
	side = commit("c.txt", "other\n", &c4, 1, 6);
	parents[0] = c5;
	parents[1] = side;
	m = commit("c.txt", "merged\n", parents, 2, 7);
	CHECK(walk("c.txt", &m, &o, got, st, sc) == 6);   /* c5 side c4 c3 c2 c1 */
	CHECK(!wg_oid_equal(&got[0], &m));
	o = (struct wg_revwalk_options){ .max_parents = -1, .max_count = SIZE_MAX,
					 .first_parent = true };
	CHECK(walk("c.txt", &m, &o, got, st, sc) == 6);   /* m c5 c4 c3 c2 c1 */
	CHECK(wg_oid_equal(&got[0], &m) && st[0] == 'M');

	/* exactly one path */
	CHECK_OK(wg_pathspec_init(&ps, "", two, 2));
	o = (struct wg_revwalk_options){ .max_parents = -1, .max_count = SIZE_MAX, .follow = true,
					 .paths = &ps };
	CHECK_ERR(wg_revwalk_new(&w, odb, &o), WG_EINVALID);
	CHECK(w == NULL);
	o.paths = NULL;
	CHECK_ERR(wg_revwalk_new(&w, odb, &o), WG_EINVALID);
	wg_pathspec_release(&ps);
	wg_repo_free(repo);
}

WG_TEST_MAIN("follow",
	WG_TEST(test_renames),
	WG_TEST(test_merges_and_errors))
