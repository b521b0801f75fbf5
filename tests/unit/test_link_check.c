/* Unit tests for the clone's connectivity check from received objects
 * (odb/link_check.h): complete packs pass; a missing commit, tree or blob,
 * an object of the wrong type, and malformed commits, trees and tags are
 * refused; shallow parents and (in a partial clone) trees and blobs may be
 * missing. Object ids are made up: the check reads names, not content. */
#include <string.h>

#include "hash/hash.h"
#include "hash/oidmap.h"
#include "odb/link_check.h"
#include "test.h"
#include "util/buf.h"

static const struct wg_hash_algo *algo;

/* "1111...", "2222...": a made-up id per digit. */
static struct wg_oid id(char digit)
{
	char hex[WG_MAX_HEXSZ + 1];
	struct wg_oid oid;
	memset(hex, digit, algo->hexsz);
	hex[algo->hexsz] = '\0';
	CHECK_OK(wg_oid_from_hex_str(&oid, algo, hex));
	return oid;
}

static void hexof(char digit, char *out)
{
	memset(out, digit, algo->hexsz);
	out[algo->hexsz] = '\0';
}

/* What "arrived": a map of digit -> type. */
struct arrived {
	struct wg_oidmap map;
};

static void arrive(struct arrived *a, char digit, enum wg_object_type type)
{
	struct wg_oid oid = id(digit);
	CHECK_OK(wg_oidmap_set(&a->map, &oid, 1u << type, NULL));
}

static int shallow_lookups;   /* asked with known false */

static enum wg_object_type lookup(const struct wg_oid *oid, bool known, void *payload)
{
	unsigned bits = wg_oidmap_get(&((struct arrived *)payload)->map, oid);
	if (!known)
		shallow_lookups++;
	for (int t = WG_OBJ_COMMIT; t <= WG_OBJ_TAG; t++)
		if (bits & (1u << t))
			return (enum wg_object_type)t;
	return WG_OBJ_NONE;
}

/* Each object is recorded in a shard of its own choosing (its id's digit
 * times 7, mod the shard count): the check must see across shards. */
static unsigned shard_of(char self)
{
	return ((unsigned)(self - '0') * 7u) % WG_LINK_CHECK_SHARDS;
}

static int commit_obj(struct wg_link_check *lc, char self, char tree, const char *parents)
{
	struct wg_buf b = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];
	struct wg_oid oid = id(self);
	int err;

	hexof(tree, hex);
	wg_buf_printf(&b, "tree %s\n", hex);
	for (const char *p = parents; *p; p++) {
		hexof(*p, hex);
		wg_buf_printf(&b, "parent %s\n", hex);
	}
	wg_buf_adds(&b, "author A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n\nmsg\n");
	err = wg_link_check_object(lc, shard_of(self), &oid, WG_OBJ_COMMIT, b.data, b.len);
	wg_buf_release(&b);
	return err;
}

/* A tree with entries "<mode> <name>" naming the ids of `digits`. */
static int tree_obj(struct wg_link_check *lc, char self, const char *modes[], const char *digits)
{
	struct wg_buf b = WG_BUF_INIT;
	struct wg_oid oid = id(self);
	int err;

	for (size_t i = 0; digits[i]; i++) {
		struct wg_oid e = id(digits[i]);
		wg_buf_printf(&b, "%s n%zu", modes[i], i);
		wg_buf_addch(&b, '\0');
		wg_buf_add(&b, e.hash, algo->rawsz);
	}
	err = wg_link_check_object(lc, shard_of(self), &oid, WG_OBJ_TREE, b.data, b.len);
	wg_buf_release(&b);
	return err;
}

static void check_history(const char *algo_name)
{
	const char *modes[] = { "100644", "40000", "160000" };
	struct wg_link_check lc;
	struct arrived a = { WG_OIDMAP_INIT };

	algo = wg_hash_algo_by_name(algo_name);

	/* c2 -> c1; trees t(3) = { blob 5, tree 4, gitlink 9 }, tree 4 = {} */
	wg_link_check_init(&lc, algo);
	CHECK_OK(commit_obj(&lc, '2', '3', "1"));
	CHECK_OK(commit_obj(&lc, '1', '3', ""));
	CHECK_OK(tree_obj(&lc, '3', modes, "549"));
	CHECK_OK(tree_obj(&lc, '4', modes, ""));
	arrive(&a, '1', WG_OBJ_COMMIT);
	arrive(&a, '2', WG_OBJ_COMMIT);
	arrive(&a, '3', WG_OBJ_TREE);
	arrive(&a, '4', WG_OBJ_TREE);
	arrive(&a, '5', WG_OBJ_BLOB);
	/* complete: the gitlink (9) is not needed */
	CHECK_OK(wg_link_check_finish(&lc, lookup, &a, false));
	wg_oidmap_release(&a.map);

	/* a missing blob: refused, but not in a partial clone */
	memset(&a, 0, sizeof(a));
	arrive(&a, '1', WG_OBJ_COMMIT);
	arrive(&a, '2', WG_OBJ_COMMIT);
	arrive(&a, '3', WG_OBJ_TREE);
	arrive(&a, '4', WG_OBJ_TREE);
	shallow_lookups = 0;
	CHECK_ERR(wg_link_check_finish(&lc, lookup, &a, false), WG_ENOTFOUND);
	CHECK(strstr(wg_error_message(), "5555") != NULL);
	CHECK(shallow_lookups == 0);
	CHECK_OK(wg_link_check_finish(&lc, lookup, &a, true));
	/* in a partial clone the trees and blobs that may be missing are
	 * asked of the received objects only; commits of the repository too */
	CHECK(shallow_lookups > 0);
	/* a missing parent commit: refused even in a partial clone */
	wg_oidmap_release(&a.map);
	memset(&a, 0, sizeof(a));
	arrive(&a, '2', WG_OBJ_COMMIT);
	arrive(&a, '3', WG_OBJ_TREE);
	arrive(&a, '4', WG_OBJ_TREE);
	CHECK_ERR(wg_link_check_finish(&lc, lookup, &a, true), WG_ENOTFOUND);
	/* the blob named by the tree arrived as a commit: wrong type */
	arrive(&a, '1', WG_OBJ_COMMIT);
	arrive(&a, '5', WG_OBJ_COMMIT);
	CHECK_ERR(wg_link_check_finish(&lc, lookup, &a, false), WG_ECORRUPT);
	wg_oidmap_release(&a.map);
	wg_link_check_release(&lc);

	/* shallow: c2's parent need not arrive */
	memset(&a, 0, sizeof(a));
	wg_link_check_init(&lc, algo);
	{
		struct wg_oid c2 = id('2');
		CHECK_OK(wg_link_check_shallow(&lc, &c2));
	}
	CHECK_OK(commit_obj(&lc, '2', '4', "1"));
	CHECK_OK(tree_obj(&lc, '4', modes, ""));
	arrive(&a, '2', WG_OBJ_COMMIT);
	arrive(&a, '4', WG_OBJ_TREE);
	CHECK_OK(wg_link_check_finish(&lc, lookup, &a, false));
	wg_link_check_release(&lc);
	wg_oidmap_release(&a.map);
}

static void test_history(void)
{
	check_history("sha1");
	check_history("sha256");
}

static void test_malformed(void)
{
	struct wg_link_check lc;
	struct wg_oid self;
	const char *bad_commits[] = {
		"",                                  /* nothing */
		"tree 123\n",                        /* short id */
		"parent 1111111111111111111111111111111111111111\n",  /* no tree first */
		"tree 111111111111111111111111111111111111111g\n",    /* not hex */
	};
	const char truncated_tree[] = "100644 a\0\x01\x02";   /* id cut short */
	const char bad_mode_tree[] = "10x644 a\0aaaaaaaaaaaaaaaaaaaa";   /* not octal */
	const char *bad_tags[] = {
		"object 1111111111111111111111111111111111111111\n",  /* no type */
		"object 1111111111111111111111111111111111111111\ntype banana\n",
		"type commit\n",
	};

	algo = wg_hash_algo_by_name("sha1");
	self = id('7');
	for (size_t i = 0; i < sizeof(bad_commits) / sizeof(*bad_commits); i++) {
		wg_link_check_init(&lc, algo);
		CHECK_ERR(wg_link_check_object(&lc, (unsigned)i * 9u, &self, WG_OBJ_COMMIT,
					       bad_commits[i], strlen(bad_commits[i])), WG_ECORRUPT);
		/* sticky, in that shard and for the whole check */
		CHECK_ERR(wg_link_check_object(&lc, (unsigned)i * 9u, &self, WG_OBJ_BLOB, "", 0),
			  WG_ECORRUPT);
		CHECK_ERR(wg_link_check_finish(&lc, lookup, NULL, true), WG_ECORRUPT);
		wg_link_check_release(&lc);
	}
	wg_link_check_init(&lc, algo);
	CHECK_ERR(wg_link_check_object(&lc, 0, &self, WG_OBJ_TREE, truncated_tree,
				       sizeof(truncated_tree) - 1), WG_ECORRUPT);
	wg_link_check_release(&lc);
	wg_link_check_init(&lc, algo);
	CHECK_ERR(wg_link_check_object(&lc, WG_LINK_CHECK_SHARDS - 1, &self, WG_OBJ_TREE, bad_mode_tree,
				       sizeof(bad_mode_tree) - 1), WG_ECORRUPT);
	wg_link_check_release(&lc);
	for (size_t i = 0; i < sizeof(bad_tags) / sizeof(*bad_tags); i++) {
		wg_link_check_init(&lc, algo);
		CHECK_ERR(wg_link_check_object(&lc, 1, &self, WG_OBJ_TAG, bad_tags[i],
					       strlen(bad_tags[i])), WG_ECORRUPT);
		wg_link_check_release(&lc);
	}
	/* blobs name nothing, whatever they hold */
	wg_link_check_init(&lc, algo);
	CHECK_OK(wg_link_check_object(&lc, 2, &self, WG_OBJ_BLOB, "tree x\n", 7));
	CHECK_OK(wg_link_check_finish(&lc, lookup, NULL, false));
	/* there is no shard beyond the last */
	CHECK_ERR(wg_link_check_object(&lc, WG_LINK_CHECK_SHARDS, &self, WG_OBJ_BLOB, "", 0),
		  WG_EINVALID);
	wg_link_check_release(&lc);
}

WG_TEST_MAIN("link_check",
	WG_TEST(test_history),
	WG_TEST(test_malformed))
