/* Unit tests for the index file (core/index): entries in git's order,
 * serialization in versions 2-4 and back, the cache tree and resolve-undo
 * extensions, and what a damaged file does (every truncation, every
 * allocation failing). Byte-for-byte agreement with git's own files is
 * tests/interop/t21-index.sh. */
#include <string.h>

#include "fixtures.h"
#include "index/cache_tree.h"
#include "index/index.h"
#include "index/resolve_undo.h"
#include "test.h"
#include "util/alloc.h"
#include "util/error.h"

static const struct wg_hash_algo *sha1(void) { return wg_hash_algo_by_name("sha1"); }

static struct wg_index_entry *entry(const char *path, unsigned stage, unsigned seed)
{
	struct wg_oid oid;
	struct wg_index_entry *e;
	unsigned char raw[WG_MAX_RAWSZ];

	memset(raw, (int)seed, sizeof(raw));
	wg_oid_from_raw(&oid, sha1(), raw);
	e = wg_index_entry_new(path, strlen(path), 0100644, &oid, stage);
	CHECK(e != NULL);
	e->st.mtime_sec = 1700000000 + seed;
	e->st.size = seed;
	e->st.ino = seed * 7;
	return e;
}

/* An index with what the format can hold: stages, extended flags, a path
 * longer than the 12-bit length field, shared prefixes for version 4. */
static struct wg_index *sample(void)
{
	static char long_path[5000];
	struct wg_index *ix;
	struct wg_index_entry *e;

	CHECK_OK(wg_index_new(&ix, sha1()));
	memset(long_path, 'x', sizeof(long_path) - 1);
	memcpy(long_path, "dir/", 4);
	CHECK_OK(wg_index_add(ix, entry("dir/b", 0, 2)));
	CHECK_OK(wg_index_add(ix, entry("dir/a", 0, 1)));
	CHECK_OK(wg_index_add(ix, entry(long_path, 0, 3)));
	CHECK_OK(wg_index_add(ix, entry("c", 3, 4)));
	CHECK_OK(wg_index_add(ix, entry("c", 1, 5)));
	CHECK_OK(wg_index_add(ix, entry("c", 2, 6)));
	e = entry("dir/ab", 0, 7);
	e->flags = WG_INDEX_INTENT_TO_ADD;
	CHECK_OK(wg_index_add(ix, e));
	e = entry("z", 0, 8);
	e->flags = WG_INDEX_ASSUME_VALID | WG_INDEX_SKIP_WORKTREE;
	CHECK_OK(wg_index_add(ix, e));
	return ix;
}

static void check_same(const struct wg_index *a, const struct wg_index *b)
{
	CHECK(a->nr == b->nr);
	for (size_t i = 0; i < a->nr && i < b->nr; i++) {
		const struct wg_index_entry *x = a->entries[i], *y = b->entries[i];
		CHECK(x->path_len == y->path_len && !memcmp(x->path, y->path, x->path_len));
		CHECK(x->stage == y->stage && x->flags == y->flags && x->mode == y->mode);
		CHECK(wg_oid_equal(&x->oid, &y->oid));
		CHECK(!memcmp(&x->st, &y->st, sizeof(x->st)));
	}
}

static void test_order_find_add_remove(void)
{
	struct wg_index *ix = sample();
	static const char *const order[] = { "c", "c", "c", "dir/a", "dir/ab", "dir/b" };

	/* git's order: bytes, then stage ("dir/a" < "dir/ab" < "dir/b") */
	for (size_t i = 0; i < 6; i++)
		CHECK_STR(ix->entries[i]->path, order[i]);
	CHECK(ix->entries[0]->stage == 1 && ix->entries[2]->stage == 3);
	CHECK(!strncmp(ix->entries[6]->path, "dir/xxx", 7) && !strcmp(ix->entries[7]->path, "z"));
	CHECK(wg_index_find(ix, "c", 1, 2) == 1);
	CHECK(wg_index_find(ix, "c", 1, 0) == -1);   /* before stage 1 */
	CHECK(wg_index_find(ix, "dir/aa", 6, 0) == -5);
	/* the same path and stage replaces */
	CHECK_OK(wg_index_add(ix, entry("dir/a", 0, 9)));
	CHECK(ix->nr == 8 && ix->entries[3]->st.size == 9);
	wg_index_remove_at(ix, 3);
	CHECK(ix->nr == 7 && !strcmp(ix->entries[3]->path, "dir/ab"));
	wg_index_free(ix);
}

static void test_roundtrip_each_version(void)
{
	struct wg_index *ix = sample(), *back;
	struct wg_buf out = WG_BUF_INIT, again = WG_BUF_INIT;

	for (unsigned v = 2; v <= 4; v++) {
		ix->version = v;
		wg_buf_reset(&out);
		CHECK_OK(wg_index_serialize(&out, ix));
		/* extended flags need version 3: 2 becomes 3 (git's rule) */
		CHECK(out.data[7] == (v == 4 ? 4 : 3));
		CHECK_OK(wg_index_parse(&back, sha1(), out.data, out.len));
		check_same(ix, back);
		wg_buf_reset(&again);
		CHECK_OK(wg_index_serialize(&again, back));
		CHECK(again.len == out.len && !memcmp(again.data, out.data, out.len));
		wg_index_free(back);
	}
	/* without extended flags, 3 is written as 2 */
	ix->entries[4]->flags = 0;
	ix->entries[7]->flags = WG_INDEX_ASSUME_VALID;
	ix->version = 3;
	wg_buf_reset(&out);
	CHECK_OK(wg_index_serialize(&out, ix));
	CHECK(out.data[7] == 2);
	/* version 2 entries are padded to 8 bytes: 62 + "c" -> 64 */
	CHECK(out.len > 12 + 64 && out.data[12 + 62] == 'c' && out.data[12 + 63] == 0);
	wg_buf_release(&out);
	wg_buf_release(&again);
	wg_index_free(ix);
}

static void test_extensions_roundtrip(void)
{
	struct wg_index *ix = sample(), *back;
	struct wg_buf out = WG_BUF_INIT, ext = WG_BUF_INIT;
	/* root (4 entries, 1 subtree) -> "dir" (invalid, 1 subtree) -> "sub" */
	static const char tree[] = "\0" "4 1\n" "AAAAAAAAAAAAAAAAAAAA"
				   "dir\0" "-1 1\n"
				   "sub\0" "2 0\n" "BBBBBBBBBBBBBBBBBBBB";
	static const char reuc[] = "c\0" "100644\0" "0\0" "100755\0" "CCCCCCCCCCCCCCCCCCCC"
				   "DDDDDDDDDDDDDDDDDDDD";
	struct wg_cache_tree *ct;

	CHECK_OK(wg_cache_tree_parse(&ct, sha1(), (const unsigned char *)tree, sizeof(tree) - 1));
	CHECK(ct->entry_count == 4 && ct->nsub == 1 && ct->sub[0]->entry_count == -1);
	CHECK(ct->sub[0]->nsub == 1 && !strcmp(ct->sub[0]->sub[0]->name, "sub"));
	CHECK_OK(wg_cache_tree_serialize(&ext, ct));
	CHECK(ext.len == sizeof(tree) - 1 && !memcmp(ext.data, tree, ext.len));
	ix->cache_tree = ct;
	CHECK_OK(wg_resolve_undo_parse(&ix->resolve_undo, sha1(), (const unsigned char *)reuc,
				       sizeof(reuc) - 1));
	CHECK(ix->resolve_undo->nr == 1 && ix->resolve_undo->v[0].mode[1] == 0 &&
	      ix->resolve_undo->v[0].mode[2] == 0100755);
	CHECK_OK(wg_index_serialize(&out, ix));
	CHECK_OK(wg_index_parse(&back, sha1(), out.data, out.len));
	CHECK(back->cache_tree && back->resolve_undo && back->resolve_undo->nr == 1);
	wg_buf_reset(&ext);
	CHECK_OK(wg_cache_tree_serialize(&ext, back->cache_tree));
	CHECK(ext.len == sizeof(tree) - 1 && !memcmp(ext.data, tree, ext.len));
	wg_buf_reset(&ext);
	CHECK_OK(wg_resolve_undo_serialize(&ext, back->resolve_undo));
	CHECK(ext.len == sizeof(reuc) - 1 && !memcmp(ext.data, reuc, ext.len));
	/* a damaged cache tree is dropped, as git drops it; the index reads */
	CHECK_ERR(wg_cache_tree_parse(&ct, sha1(), (const unsigned char *)tree, 30), WG_ECORRUPT);
	wg_buf_release(&out);
	wg_buf_release(&ext);
	wg_index_free(back);
	wg_index_free(ix);
}

static void test_cache_tree_invalidation(void)
{
	static const char tree[] = "\0" "3 2\n" "AAAAAAAAAAAAAAAAAAAA"
				   "a\0" "2 1\n" "BBBBBBBBBBBBBBBBBBBB"
				   "b\0" "1 0\n" "CCCCCCCCCCCCCCCCCCCC"
				   "x\0" "1 0\n" "DDDDDDDDDDDDDDDDDDDD";
	struct wg_cache_tree *ct;

	CHECK_OK(wg_cache_tree_parse(&ct, sha1(), (const unsigned char *)tree, sizeof(tree) - 1));
	/* a change in a/b/f invalidates the top, a and a/b, not x */
	wg_cache_tree_invalidate(ct, "a/b/f", 5);
	CHECK(ct->entry_count == -1 && ct->sub[0]->entry_count == -1);
	CHECK(ct->sub[0]->sub[0]->entry_count == -1 && ct->sub[1]->entry_count == 1);
	/* a file named "x" where the directory was: its node goes */
	wg_cache_tree_invalidate(ct, "x", 1);
	CHECK(ct->nsub == 1 && !strcmp(ct->sub[0]->name, "a"));
	/* a path through no known directory stops at the top */
	wg_cache_tree_invalidate(ct, "q/r", 3);
	CHECK(ct->nsub == 1);
	wg_cache_tree_free(ct);
}

/* Every prefix of a valid index, given a zero trailer (not checked), is
 * refused cleanly or read: never a crash or a read out of bounds (ASan). */
static void test_every_truncation(void)
{
	struct wg_index *ix = sample(), *back;
	struct wg_buf out = WG_BUF_INIT, cut = WG_BUF_INIT;
	static const unsigned char zero[WG_MAX_RAWSZ];

	for (unsigned v = 2; v <= 4; v += 2) {
		ix->version = v;
		wg_buf_reset(&out);
		CHECK_OK(wg_index_serialize(&out, ix));
		for (size_t n = 0; n < out.len - 20; n++) {
			wg_buf_reset(&cut);
			CHECK_OK(wg_buf_add(&cut, out.data, n));
			CHECK_OK(wg_buf_add(&cut, zero, 20));
			if (!wg_index_parse(&back, sha1(), cut.data, cut.len)) {
				/* only when the cut fell between the entries and a
				 * trailer (nothing but a short tail lost) */
				CHECK(back->nr == ix->nr);
				wg_index_free(back);
			} else {
				CHECK(*wg_error_message());
			}
		}
		/* and a bad checksum is refused with git's words */
		out.data[out.len - 1] ^= 1;
		CHECK_ERR(wg_index_parse(&back, sha1(), out.data, out.len), WG_ECORRUPT);
		CHECK(strstr(wg_error_message(), "bad index file sha1 signature") != NULL);
	}
	wg_buf_release(&out);
	wg_buf_release(&cut);
	wg_index_free(ix);
}

/* Put the right SHA-1 trailer on a changed file. */
static void rehash(struct wg_buf *b)
{
	struct wg_hash_ctx ctx;
	wg_hash_init(&ctx, sha1());
	wg_hash_update(&ctx, b->data, b->len - 20);
	CHECK_OK(wg_hash_final(&ctx, b->data + b->len - 20));
}

static void test_refusals(void)
{
	struct wg_index *ix = sample(), *back;
	struct wg_buf out = WG_BUF_INIT;

	ix->version = 2;
	CHECK_OK(wg_index_serialize(&out, ix));
	/* a split index ("link") and an unknown required extension: refused */
	wg_buf_setlen(&out, out.len - 20);
	CHECK_OK(wg_buf_add(&out, "link\0\0\0\0", 8));
	CHECK_OK(wg_buf_add(&out, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20));
	rehash(&out);
	CHECK_ERR(wg_index_parse(&back, sha1(), out.data, out.len), WG_EUNSUPPORTED);
	CHECK(strstr(wg_error_message(), "--no-split-index") != NULL);
	memcpy(out.data + out.len - 28, "abcd", 4);
	rehash(&out);
	CHECK_ERR(wg_index_parse(&back, sha1(), out.data, out.len), WG_EUNSUPPORTED);
	CHECK(strstr(wg_error_message(), "abcd extension") != NULL);
	/* an optional one ("Abcd"): ignored, the entries read */
	out.data[out.len - 28] = 'A';
	rehash(&out);
	CHECK_OK(wg_index_parse(&back, sha1(), out.data, out.len));
	check_same(ix, back);
	wg_index_free(back);
	/* an empty name is corrupt, unless a split index's "link" follows
	 * (its replaced entries have empty names): then that is refused */
	{
		struct wg_index *e2;
		struct wg_buf b = WG_BUF_INIT;
		CHECK_OK(wg_index_new(&e2, sha1()));
		CHECK_OK(wg_index_add(e2, entry("", 0, 1)));
		CHECK_OK(wg_index_serialize(&b, e2));
		CHECK_ERR(wg_index_parse(&back, sha1(), b.data, b.len), WG_ECORRUPT);
		CHECK(strstr(wg_error_message(), "empty path") != NULL);
		wg_buf_setlen(&b, b.len - 20);
		CHECK_OK(wg_buf_add(&b, "link\0\0\0\0", 8));
		CHECK_OK(wg_buf_add(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20));
		rehash(&b);
		CHECK_ERR(wg_index_parse(&back, sha1(), b.data, b.len), WG_EUNSUPPORTED);
		CHECK(strstr(wg_error_message(), "--no-split-index") != NULL);
		wg_buf_release(&b);
		wg_index_free(e2);
	}
	/* a header that claims more entries than the file could hold */
	out.data[8] = 0x7f;
	rehash(&out);
	CHECK_ERR(wg_index_parse(&back, sha1(), out.data, out.len), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "smaller than expected") != NULL);
	wg_buf_release(&out);
	wg_index_free(ix);
}

static void test_out_of_memory(void)
{
	struct wg_index *ix = sample(), *back = NULL;
	struct wg_buf out = WG_BUF_INIT;
	int err;

	ix->version = 4;
	CHECK_OK(wg_index_serialize(&out, ix));
	for (fx_fail_at = 0;; fx_fail_at++) {
		fx_alloc_count = 0;
		wg_allocator_set(&fx_failing_allocator);
		err = wg_index_parse(&back, sha1(), out.data, out.len);
		wg_allocator_set(NULL);
		if (!err)
			break;
		CHECK(err == WG_ENOMEM);
		CHECK(fx_fail_at < 100);
		if (fx_fail_at >= 100)
			break;
	}
	check_same(ix, back);
	wg_index_free(back);
	wg_buf_release(&out);
	wg_index_free(ix);
}

WG_TEST_MAIN("index",
	WG_TEST(test_order_find_add_remove),
	WG_TEST(test_roundtrip_each_version),
	WG_TEST(test_extensions_roundtrip),
	WG_TEST(test_cache_tree_invalidation),
	WG_TEST(test_every_truncation),
	WG_TEST(test_refusals),
	WG_TEST(test_out_of_memory))
