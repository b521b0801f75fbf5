/* Unit tests for what fetch and push decide locally: which objects to send
 * (wg_odb_reachable), ancestry, the connectivity check, the negotiator's
 * order and its use of acknowledgments, refspec mapping, and the oid map.
 * Histories are built in a fresh SHA-1 repository without git. */
#include <stdio.h>
#include <string.h>

#include "hash/oidmap.h"
#include "object/commit.h"
#include "odb/reachable.h"
#include "remote/negotiator.h"
#include "refs/refspec.h"
#include "repo/repo.h"
#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"

static struct wg_repo *repo;
static struct wg_odb *odb;

static void open_repo(const char *name)
{
	repo = fx_init_bare_repo(name);
	odb = wg_repo_odb(repo);
}

/* A commit whose tree holds one file with `text`; date orders history. */
static struct wg_oid commit(const char *text, const struct wg_oid *parents, size_t n, int date)
{
	return fx_commit_file(odb, "file", text, parents, n, "A <a@example.com>", 1700000000 + date,
			      "+0000", text);
}

struct collected {
	struct wg_oid ids[64];
	enum wg_object_type types[64];
	size_t n;
};

static int collect(const struct wg_oid *oid, enum wg_object_type type, const char *path,
		   void *payload)
{
	struct collected *c = payload;
	(void)path;
	if (c->n < 64) {
		c->ids[c->n] = *oid;
		c->types[c->n++] = type;
	}
	return 0;
}

static bool has(const struct collected *c, const struct wg_oid *oid)
{
	for (size_t i = 0; i < c->n; i++)
		if (wg_oid_equal(&c->ids[i], oid))
			return true;
	return false;
}

/* a <- b <- c (main), b <- d (side), merge e = c + d */
static void test_reachable(void)
{
	struct wg_oid a, b, c, d, e, p[2];
	struct collected got;
	bool anc;

	open_repo("walk-reachable");
	a = commit("a", NULL, 0, 1);
	b = commit("b", &a, 1, 2);
	c = commit("c", &b, 1, 3);
	d = commit("d", &b, 1, 4);
	p[0] = c;
	p[1] = d;
	e = commit("e", p, 2, 5);

	/* The receiver has c: send e and d with their new trees and blobs. */
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_odb_reachable(odb, &e, 1, &c, 1, collect, NULL, &got));
	CHECK(has(&got, &e) && has(&got, &d));
	CHECK(!has(&got, &c) && !has(&got, &b) && !has(&got, &a));
	CHECK(got.n == 6);   /* 2 commits, 2 trees, 2 blobs */
	CHECK(got.types[0] == WG_OBJ_COMMIT && got.types[1] == WG_OBJ_COMMIT);
	/* Nothing the receiver has: everything. */
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_odb_reachable(odb, &e, 1, NULL, 0, collect, NULL, &got));
	CHECK(got.n == 15);
	/* It has everything: nothing. */
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_odb_reachable(odb, &e, 1, &e, 1, collect, NULL, &got));
	CHECK(got.n == 0);

	CHECK_OK(wg_odb_is_ancestor(odb, &a, &e, &anc));
	CHECK(anc);
	CHECK_OK(wg_odb_is_ancestor(odb, &d, &c, &anc));
	CHECK(!anc);
	CHECK_OK(wg_odb_is_ancestor(odb, &c, &c, &anc));
	CHECK(anc);

	CHECK_OK(wg_odb_check_connected(odb, &e, 1, NULL, 0, NULL, 0, false));
	/* A shallow boundary at b: its parent need not be here. */
	CHECK_OK(wg_odb_check_connected(odb, &e, 1, NULL, 0, &b, 1, false));
	wg_repo_free(repo);
}

static void test_connected_missing(void)
{
	struct wg_oid a, b;
	struct wg_buf tree = WG_BUF_INIT;
	struct wg_oid missing_blob, t;

	open_repo("walk-missing");
	a = commit("a", NULL, 0, 1);
	/* A tree naming a blob that is not here. */
	memset(&missing_blob, 0, sizeof(missing_blob));
	missing_blob.algo = a.algo;
	missing_blob.hash[0] = 0xab;
	wg_buf_add(&tree, "100644 gone", 11);
	wg_buf_addch(&tree, 0);
	wg_buf_add(&tree, missing_blob.hash, 20);
	CHECK_OK(wg_odb_write(odb, WG_OBJ_TREE, tree.data, tree.len, &t));
	{
		struct wg_commit cm;
		struct wg_buf raw = WG_BUF_INIT;
		wg_commit_init(&cm);
		cm.tree = t;
		CHECK_OK(wg_commit_add_parent(&cm, &a));
		CHECK_OK(wg_commit_set_author(&cm, "A <a@example.com> 1700000009 +0000"));
		CHECK_OK(wg_commit_set_committer(&cm, "A <a@example.com> 1700000009 +0000"));
		CHECK_OK(wg_commit_set_message(&cm, "m\n", 2));
		CHECK_OK(wg_commit_serialize(&cm, &raw));
		CHECK_OK(wg_odb_write(odb, WG_OBJ_COMMIT, raw.data, raw.len, &b));
		wg_commit_release(&cm);
		wg_buf_release(&raw);
	}
	CHECK(wg_odb_check_connected(odb, &b, 1, NULL, 0, NULL, 0, false) == WG_ENOTFOUND);
	CHECK(strstr(wg_error_message(), "did not send all necessary objects") != NULL);
	/* In a partial clone the promisor has it: fine. */
	CHECK_OK(wg_odb_check_connected(odb, &b, 1, NULL, 0, NULL, 0, true));
	/* A missing parent commit is never fine (unless shallow). */
	{
		struct wg_oid ghost = missing_blob;
		struct wg_commit cm;
		struct wg_buf raw = WG_BUF_INIT;
		struct wg_oid orphan;
		ghost.hash[1] = 0xcd;
		wg_commit_init(&cm);
		cm.tree = t;
		CHECK_OK(wg_commit_add_parent(&cm, &ghost));
		CHECK_OK(wg_commit_set_author(&cm, "A <a@example.com> 1700000010 +0000"));
		CHECK_OK(wg_commit_set_committer(&cm, "A <a@example.com> 1700000010 +0000"));
		CHECK_OK(wg_commit_set_message(&cm, "o\n", 2));
		CHECK_OK(wg_commit_serialize(&cm, &raw));
		CHECK_OK(wg_odb_write(odb, WG_OBJ_COMMIT, raw.data, raw.len, &orphan));
		CHECK(wg_odb_check_connected(odb, &orphan, 1, NULL, 0, NULL, 0, true) != 0);
		CHECK_OK(wg_odb_check_connected(odb, &orphan, 1, NULL, 0, &orphan, 1, true));
		wg_commit_release(&cm);
		wg_buf_release(&raw);
	}
	wg_buf_release(&tree);
	wg_repo_free(repo);
}

static void test_negotiator(void)
{
	struct wg_negotiator *n;
	struct wg_oid h[6], got;
	size_t count = 0;
	int err;

	open_repo("walk-negotiator");
	h[0] = commit("n0", NULL, 0, 0);
	for (int i = 1; i < 6; i++)
		h[i] = commit(i == 1 ? "n1" : i == 2 ? "n2" : i == 3 ? "n3" : i == 4 ? "n4" : "n5",
			      &h[i - 1], 1, i);
	/* Newest first, every commit once. */
	CHECK_OK(wg_negotiator_new(&n, odb));
	CHECK_OK(wg_negotiator_add_tip(n, &h[5]));
	CHECK_OK(wg_negotiator_add_tip(n, &h[3]));   /* met again later: no duplicate */
	while (!(err = wg_negotiator_next(n, &got))) {
		CHECK(count < 6 && wg_oid_equal(&got, &h[5 - count]));
		count++;
	}
	CHECK_ERR(err, WG_ITEROVER);
	CHECK(count == 6);
	wg_negotiator_free(n);
	/* An acknowledged commit's ancestors are not offered. */
	CHECK_OK(wg_negotiator_new(&n, odb));
	CHECK_OK(wg_negotiator_add_tip(n, &h[5]));
	CHECK_OK(wg_negotiator_next(n, &got));
	CHECK(wg_oid_equal(&got, &h[5]));
	CHECK_OK(wg_negotiator_next(n, &got));
	CHECK(wg_oid_equal(&got, &h[4]));
	CHECK_OK(wg_negotiator_ack(n, &h[4]));
	CHECK_ERR(wg_negotiator_next(n, &got), WG_ITEROVER);
	wg_negotiator_free(n);
	wg_repo_free(repo);
}

static void test_refspec(void)
{
	struct wg_refspec rs;
	struct wg_buf out = WG_BUF_INIT;

	CHECK_OK(wg_refspec_parse(&rs, "+refs/heads/*:refs/remotes/origin/*"));
	CHECK(rs.force && rs.pattern);
	CHECK(wg_refspec_map(&rs, "refs/heads/feature/x", &out) == 1);
	CHECK_STR(wg_buf_cstr(&out), "refs/remotes/origin/feature/x");
	CHECK(wg_refspec_map(&rs, "refs/tags/v1", &out) == 0);
	CHECK(wg_refspec_dst_matches(&rs, "refs/remotes/origin/main"));
	CHECK(!wg_refspec_dst_matches(&rs, "refs/remotes/other/main"));
	CHECK_STR(wg_refspec_prefix(&rs, &out), "refs/heads/");
	wg_refspec_release(&rs);
	CHECK_OK(wg_refspec_parse(&rs, "refs/heads/main:refs/remotes/origin/main"));
	CHECK(!rs.force && !rs.pattern);
	CHECK(wg_refspec_map(&rs, "refs/heads/main", &out) == 1);
	CHECK_STR(wg_buf_cstr(&out), "refs/remotes/origin/main");
	CHECK(wg_refspec_map(&rs, "refs/heads/mainline", &out) == 0);
	wg_refspec_release(&rs);
	CHECK_ERR(wg_refspec_parse(&rs, "refs/heads/*:refs/remotes/x"), WG_EINVALID);
	CHECK_ERR(wg_refspec_parse(&rs, "refs/*/a/*:refs/x/*"), WG_EINVALID);
	CHECK_ERR(wg_refspec_parse(&rs, "refs/heads/a..b:refs/x"), WG_EINVALID);
	wg_buf_release(&out);
}

static void test_oidmap(void)
{
	struct wg_oidmap m = WG_OIDMAP_INIT;
	struct wg_oid id;
	unsigned old;

	memset(&id, 0, sizeof(id));
	for (unsigned i = 0; i < 20000; i++) {
		memcpy(id.hash, &i, sizeof(i));
		id.hash[10] = (unsigned char)i;
		CHECK_OK(wg_oidmap_set(&m, &id, 1u << (i % 3), NULL));
	}
	CHECK(m.nr == 20000);
	for (unsigned i = 0; i < 20000; i += 997) {
		memcpy(id.hash, &i, sizeof(i));
		id.hash[10] = (unsigned char)i;
		CHECK(wg_oidmap_get(&m, &id) == 1u << (i % 3));
		CHECK_OK(wg_oidmap_set(&m, &id, 8, &old));
		CHECK(old == 1u << (i % 3));
		CHECK(wg_oidmap_get(&m, &id) == (8u | 1u << (i % 3)));
	}
	id.hash[19] = 0xff;
	CHECK(wg_oidmap_get(&m, &id) == 0);
	CHECK_ERR(wg_oidmap_set(&m, &id, 0, NULL), WG_EINVALID);
	wg_oidmap_release(&m);
}

WG_TEST_MAIN("remote-walk",
	WG_TEST(test_reachable),
	WG_TEST(test_connected_missing),
	WG_TEST(test_negotiator),
	WG_TEST(test_refspec),
	WG_TEST(test_oidmap))
