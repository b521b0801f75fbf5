/* Trees: the iterator against trees the reference git wrote (SHA-1 and
 * SHA-256), Git's sort order, the builder's byte-exact output, ls-tree
 * formatting, and every malformed or truncated tree (no crash, no read
 * outside the buffer, a clean WG_ECORRUPT). */
#include "test.h"

#include "hash/oid.h"
#include "object/object.h"
#include "object/tree.h"
#include "util/alloc.h"
#include "util/buf.h"

#include "data/object_fixtures.h"

static const struct wg_hash_algo *algo_of(enum wg_hash_id id)
{
	return wg_hash_algo_by_id(id);
}

/* A copy in a buffer of exactly `len` bytes, so AddressSanitizer sees any
 * read past the end. */
static unsigned char *exact_copy(const void *data, size_t len)
{
	unsigned char *p = malloc(len ? len : 1);
	if (p && len)
		memcpy(p, data, len);
	return p;
}

static bool same(const struct wg_buf *b, const void *data, size_t len)
{
	return b->len == len && (!len || !memcmp(b->data, data, len));
}

/* Iterate a whole tree; returns the final code (WG_ITEROVER when clean). */
static int count_entries(const struct wg_hash_algo *algo, const void *data, size_t len,
			 size_t *count)
{
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	int rc;
	*count = 0;
	wg_tree_iter_init(&it, algo, data, len);
	while (!(rc = wg_tree_iter_next(&it, &e)))
		(*count)++;
	return rc;
}

static void test_fixture_trees_round_trip(void)
{
	size_t i;
	for (i = 0; i < sizeof(object_fixtures) / sizeof(object_fixtures[0]); i++) {
		const struct object_fixture *fx = &object_fixtures[i];
		const struct wg_hash_algo *algo = algo_of(fx->algo);
		struct wg_tree_builder *b = NULL;
		struct wg_tree_iter it;
		struct wg_tree_entry e;
		struct wg_buf out = WG_BUF_INIT;
		struct wg_oid oid;
		int rc;
		if (fx->type != WG_OBJ_TREE)
			continue;
		CHECK_OK(wg_object_hash(&oid, algo, WG_OBJ_TREE, fx->data, fx->len));
		CHECK_STR(wg_oid_hex(&oid), fx->hex);
		CHECK_OK(wg_tree_builder_new(&b, algo));
		wg_tree_iter_init(&it, algo, fx->data, fx->len);
		while (!(rc = wg_tree_iter_next(&it, &e))) {
			CHECK(e.flags == 0);
			CHECK(wg_tree_mode_is_canonical(e.mode));
			CHECK(e.oid.algo == algo->id);
			CHECK(e.name[e.namelen] == '\0');
			CHECK_OK(wg_tree_builder_add(b, e.mode, e.name, e.namelen, &e.oid));
		}
		CHECK_ERR(rc, WG_ITEROVER);
		/* The iterator stays at the end. */
		CHECK_ERR(wg_tree_iter_next(&it, &e), WG_ITEROVER);
		CHECK_OK(wg_tree_builder_write(b, &out));
		CHECK(same(&out, fx->data, fx->len));
		/* Writing twice gives the same bytes. */
		wg_buf_reset(&out);
		CHECK_OK(wg_tree_builder_write(b, &out));
		CHECK(same(&out, fx->data, fx->len));
		wg_buf_release(&out);
		wg_tree_builder_free(b);
	}
}

static const char *ls_tree_fixture(enum wg_hash_id algo, bool z, size_t *len)
{
	if (algo == WG_HASH_SHA1) {
		*len = z ? sizeof(fx_sha1_ls_tree_z) - 1 : sizeof(fx_sha1_ls_tree) - 1;
		return z ? fx_sha1_ls_tree_z : fx_sha1_ls_tree;
	}
	*len = z ? sizeof(fx_sha256_ls_tree_z) - 1 : sizeof(fx_sha256_ls_tree) - 1;
	return z ? fx_sha256_ls_tree_z : fx_sha256_ls_tree;
}

static void test_ls_tree_format(void)
{
	size_t i;
	for (i = 0; i < sizeof(object_fixtures) / sizeof(object_fixtures[0]); i++) {
		const struct object_fixture *fx = &object_fixtures[i];
		struct wg_buf quoted = WG_BUF_INIT, raw = WG_BUF_INIT;
		struct wg_tree_iter it;
		struct wg_tree_entry e;
		const char *expect;
		size_t len;
		if (fx->type != WG_OBJ_TREE || strcmp(fx->name, "root_tree"))
			continue;
		wg_tree_iter_init(&it, algo_of(fx->algo), fx->data, fx->len);
		while (!wg_tree_iter_next(&it, &e)) {
			CHECK_OK(wg_tree_entry_format(&quoted, &e, WG_TREE_FORMAT_QUOTE));
			CHECK_OK(wg_buf_addch(&quoted, '\n'));
			CHECK_OK(wg_tree_entry_format(&raw, &e, 0));
			CHECK_OK(wg_buf_addch(&raw, '\0'));
		}
		expect = ls_tree_fixture(fx->algo, false, &len);
		CHECK(same(&quoted, expect, len));
		if (!same(&quoted, expect, len))
			fprintf(stderr, "got:\n%s\nexpected:\n%s\n", wg_buf_cstr(&quoted), expect);
		expect = ls_tree_fixture(fx->algo, true, &len);
		CHECK(same(&raw, expect, len));
		wg_buf_release(&quoted);
		wg_buf_release(&raw);
	}
}

static void test_format_quoting(void)
{
	const struct wg_hash_algo *sha1 = algo_of(WG_HASH_SHA1);
	struct wg_tree_entry e;
	struct wg_buf out = WG_BUF_INIT;
	static const struct {
		const char *name;
		const char *quoted;
	} cases[] = {
		{ "plain", "plain" },
		{ "with space", "with space" },
		{ "q\"uote", "\"q\\\"uote\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "nl\nx", "\"nl\\nx\"" },
		{ "bell\a", "\"bell\\a\"" },
		{ "esc\033", "\"esc\\033\"" },
		{ "del\177", "\"del\\177\"" },
		{ "\303\251t\303\251", "\"\\303\\251t\\303\\251\"" },
	};
	size_t i;
	memset(&e, 0, sizeof(e));
	wg_oid_empty_blob(&e.oid, sha1);
	e.mode = WG_MODE_BLOB;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char expect[256];
		e.name = cases[i].name;
		e.namelen = strlen(cases[i].name);
		wg_buf_reset(&out);
		CHECK_OK(wg_tree_entry_format(&out, &e, WG_TREE_FORMAT_QUOTE));
		snprintf(expect, sizeof(expect),
			 "100644 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\t%s", cases[i].quoted);
		CHECK_STR(wg_buf_cstr(&out), expect);
	}
	/* Directories print zero-padded, gitlinks as commits. */
	e.name = "d";
	e.namelen = 1;
	e.mode = WG_MODE_TREE;
	wg_buf_reset(&out);
	CHECK_OK(wg_tree_entry_format(&out, &e, 0));
	CHECK_STR(wg_buf_cstr(&out), "040000 tree e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\td");
	e.mode = WG_MODE_GITLINK;
	wg_buf_reset(&out);
	CHECK_OK(wg_tree_entry_format(&out, &e, 0));
	CHECK_STR(wg_buf_cstr(&out), "160000 commit e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\td");
	wg_buf_release(&out);
}

static void test_name_order(void)
{
	/* file "a.b" < dir "a" (as "a/") < file "a0"; file "a" < "a.b". */
	CHECK(wg_tree_name_cmp("a.b", 3, WG_MODE_BLOB, "a", 1, WG_MODE_TREE) < 0);
	CHECK(wg_tree_name_cmp("a", 1, WG_MODE_TREE, "a0", 2, WG_MODE_BLOB) < 0);
	CHECK(wg_tree_name_cmp("a", 1, WG_MODE_BLOB, "a.b", 3, WG_MODE_BLOB) < 0);
	CHECK(wg_tree_name_cmp("a", 1, WG_MODE_BLOB, "a0", 2, WG_MODE_BLOB) < 0);
	/* "foo-bar" < dir "foo" because '-' < '/'; dir "foo" < "foo0". */
	CHECK(wg_tree_name_cmp("foo-bar", 7, WG_MODE_BLOB, "foo", 3, WG_MODE_TREE) < 0);
	CHECK(wg_tree_name_cmp("foo", 3, WG_MODE_BLOB, "foo-bar", 7, WG_MODE_BLOB) < 0);
	/* Same bytes: equal whatever the modes. */
	CHECK(wg_tree_name_cmp("x", 1, WG_MODE_TREE, "x", 1, WG_MODE_BLOB) == 0);
	/* Bytes compare unsigned. */
	CHECK(wg_tree_name_cmp("\303", 1, WG_MODE_BLOB, "z", 1, WG_MODE_BLOB) > 0);
	/* A zero-padded directory mode still sorts as a directory. */
	CHECK(wg_tree_name_cmp("a", 1, 040000, "a.b", 3, WG_MODE_BLOB) > 0);
}

/* Expected bytes of a tree from (mode string, name) pairs in order. */
static void expect_tree(struct wg_buf *out, const struct wg_hash_algo *algo,
			const char *const *modes, const char *const *names, size_t n,
			const unsigned char *raw)
{
	size_t i;
	for (i = 0; i < n; i++) {
		CHECK_OK(wg_buf_printf(out, "%s %s", modes[i], names[i]));
		CHECK_OK(wg_buf_addch(out, 0));
		CHECK_OK(wg_buf_add(out, raw, algo->rawsz));
	}
}

static void test_builder_sorting(void)
{
	static const char *const in_names[] = { "foo", "a0", "a", "foo.c", "a.b", "foo-bar",
						 "a-", "sub", "B", "foo0" };
	static const unsigned in_modes[] = { WG_MODE_TREE, WG_MODE_BLOB, WG_MODE_TREE,
					     WG_MODE_BLOB, WG_MODE_EXEC, WG_MODE_SYMLINK,
					     WG_MODE_BLOB, WG_MODE_GITLINK, WG_MODE_BLOB,
					     WG_MODE_BLOB };
	static const char *const names[] = { "B", "a-", "a.b", "a", "a0", "foo-bar", "foo.c",
					     "foo", "foo0", "sub" };
	static const char *const modes[] = { "100644", "100644", "100755", "40000", "100644",
					     "120000", "100644", "40000", "100644", "160000" };
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = algo_of(a);
		struct wg_tree_builder *b = NULL;
		struct wg_buf out = WG_BUF_INIT, expect = WG_BUF_INIT;
		unsigned char raw[WG_MAX_RAWSZ];
		struct wg_oid oid;
		size_t i;
		memset(raw, 0xab, sizeof(raw));
		wg_oid_from_raw(&oid, algo, raw);
		CHECK_OK(wg_tree_builder_new(&b, algo));
		for (i = 0; i < 10; i++)
			CHECK_OK(wg_tree_builder_add(b, in_modes[i], in_names[i], strlen(in_names[i]),
						     &oid));
		CHECK(wg_tree_builder_count(b) == 10);
		CHECK_OK(wg_tree_builder_write(b, &out));
		expect_tree(&expect, algo, modes, names, 10, raw);
		CHECK(same(&out, expect.data, expect.len));
		wg_buf_release(&out);
		wg_buf_release(&expect);
		wg_tree_builder_free(b);
	}
	wg_tree_builder_free(NULL);
}

static void test_builder_refuses(void)
{
	const struct wg_hash_algo *sha1 = algo_of(WG_HASH_SHA1);
	const struct wg_hash_algo *sha256 = algo_of(WG_HASH_SHA256);
	struct wg_tree_builder *b = NULL;
	struct wg_buf out = WG_BUF_INIT;
	struct wg_oid oid, other;
	wg_oid_empty_blob(&oid, sha1);
	wg_oid_empty_blob(&other, sha256);
	CHECK_OK(wg_tree_builder_new(&b, sha1));
	CHECK_ERR(wg_tree_builder_add(b, 0100664, "a", 1, &oid), WG_EINVALID);
	CHECK_ERR(wg_tree_builder_add(b, 040755, "a", 1, &oid), WG_EINVALID);
	CHECK_ERR(wg_tree_builder_add(b, WG_MODE_BLOB, "", 0, &oid), WG_EINVALID);
	CHECK_ERR(wg_tree_builder_add(b, WG_MODE_BLOB, ".", 1, &oid), WG_EINVALID);
	CHECK_ERR(wg_tree_builder_add(b, WG_MODE_TREE, "..", 2, &oid), WG_EINVALID);
	CHECK_ERR(wg_tree_builder_add(b, WG_MODE_BLOB, "a/b", 3, &oid), WG_EINVALID);
	CHECK_ERR(wg_tree_builder_add(b, WG_MODE_BLOB, "a\0b", 3, &oid), WG_EINVALID);
	CHECK_ERR(wg_tree_builder_add(b, WG_MODE_BLOB, "a", 1, &other), WG_EINVALID);
	CHECK(wg_tree_builder_count(b) == 0);
	/* An empty builder writes the empty tree. */
	CHECK_OK(wg_tree_builder_write(b, &out));
	CHECK(out.len == 0);

	/* Same name twice, adjacent and not. */
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_BLOB, "foo", 3, &oid));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_BLOB, "foo.c", 5, &oid));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_TREE, "foo", 3, &oid));
	CHECK_ERR(wg_tree_builder_write(b, &out), WG_EEXISTS);
	CHECK(strstr(wg_error_message(), "foo") != NULL);
	CHECK(out.len == 0);
	wg_tree_builder_free(b);

	CHECK_OK(wg_tree_builder_new(&b, sha1));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_BLOB, "x", 1, &oid));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_EXEC, "x", 1, &oid));
	CHECK_ERR(wg_tree_builder_write(b, &out), WG_EEXISTS);
	wg_tree_builder_free(b);
	wg_buf_release(&out);
}

static void test_modes(void)
{
	CHECK(wg_tree_mode_type(WG_MODE_TREE) == WG_OBJ_TREE);
	CHECK(wg_tree_mode_type(040755) == WG_OBJ_TREE);
	CHECK(wg_tree_mode_type(WG_MODE_GITLINK) == WG_OBJ_COMMIT);
	CHECK(wg_tree_mode_type(WG_MODE_BLOB) == WG_OBJ_BLOB);
	CHECK(wg_tree_mode_type(WG_MODE_SYMLINK) == WG_OBJ_BLOB);
	CHECK(wg_tree_mode_type(0) == WG_OBJ_BLOB);
	CHECK(wg_tree_mode_canonical(0100664) == WG_MODE_BLOB);
	CHECK(wg_tree_mode_canonical(0100600) == WG_MODE_BLOB);
	CHECK(wg_tree_mode_canonical(0100775) == WG_MODE_EXEC);
	CHECK(wg_tree_mode_canonical(0100700) == WG_MODE_EXEC);
	CHECK(wg_tree_mode_canonical(0120777) == WG_MODE_SYMLINK);
	CHECK(wg_tree_mode_canonical(040755) == WG_MODE_TREE);
	CHECK(wg_tree_mode_canonical(0160000) == WG_MODE_GITLINK);
	/* Git's canon_mode(): anything unknown is a gitlink. */
	CHECK(wg_tree_mode_canonical(0) == WG_MODE_GITLINK);
	CHECK(wg_tree_mode_canonical(0140000) == WG_MODE_GITLINK);
	CHECK(wg_tree_mode_is_canonical(WG_MODE_EXEC));
	CHECK(!wg_tree_mode_is_canonical(0100664));
	CHECK(!wg_tree_mode_is_canonical(0));
}

/* One raw entry with a SHA-1 sized id of 0x11 bytes. */
static size_t raw_entry(unsigned char *out, const char *mode, const char *name, size_t namelen,
			size_t rawsz)
{
	size_t n = strlen(mode);
	memcpy(out, mode, n);
	out[n++] = ' ';
	memcpy(out + n, name, namelen);
	n += namelen;
	out[n++] = 0;
	memset(out + n, 0x11, rawsz);
	return n + rawsz;
}

static int one_entry(const char *mode, const char *name, size_t namelen, unsigned flags,
		     struct wg_tree_entry *e)
{
	const struct wg_hash_algo *sha1 = algo_of(WG_HASH_SHA1);
	unsigned char buf[256], *copy;
	struct wg_tree_iter it;
	size_t n = raw_entry(buf, mode, name, namelen, sha1->rawsz);
	static char name_copy[256];
	int rc;
	copy = exact_copy(buf, n);
	wg_tree_iter_init_flags(&it, sha1, copy, n, flags);
	rc = wg_tree_iter_next(&it, e);
	if (!rc) {
		struct wg_tree_entry end;
		CHECK_ERR(wg_tree_iter_next(&it, &end), WG_ITEROVER);
		/* The entry points into the tree data, which goes now. */
		memcpy(name_copy, e->name, e->namelen + 1);
		e->name = name_copy;
	}
	free(copy);
	return rc;
}

static void test_iter_modes_and_names(void)
{
	struct wg_tree_entry e;
	CHECK_OK(one_entry("100644", "a", 1, 0, &e));
	CHECK(e.mode == 0100644 && e.flags == 0 && e.namelen == 1);
	CHECK_OK(one_entry("040000", "d", 1, 0, &e));
	CHECK(e.mode == 040000 && (e.flags & WG_TREE_ENTRY_ZERO_PADDED));
	CHECK_OK(one_entry("0000100644", "a", 1, 0, &e));
	CHECK(e.mode == 0100644 && (e.flags & WG_TREE_ENTRY_ZERO_PADDED));
	CHECK_OK(one_entry("0", "a", 1, 0, &e));
	CHECK(e.mode == 0 && (e.flags & WG_TREE_ENTRY_ZERO_PADDED));
	CHECK_OK(one_entry("100664", "a", 1, 0, &e));
	CHECK(e.mode == 0100664);
	/* More than 16 bits: kept (Git would truncate to 100644). */
	CHECK_OK(one_entry("1100644", "a", 1, 0, &e));
	CHECK(e.mode == 01100644 && wg_tree_mode_type(e.mode) == WG_OBJ_BLOB);
	/* Absurdly long: saturates, never wraps. */
	CHECK_OK(one_entry("77777777777777777777777777", "a", 1, 0, &e));
	CHECK(e.mode == 077777777);
	/* Names are bytes: anything but NUL (and '/' is fsck's business). */
	CHECK_OK(one_entry("100644", "a/b \377", 5, 0, &e));
	CHECK(e.namelen == 5 && !memcmp(e.name, "a/b \377", 5));

	CHECK_ERR(one_entry("", "a", 1, 0, &e), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "mode") != NULL);
	CHECK_ERR(one_entry("100648", "a", 1, 0, &e), WG_ECORRUPT);
	CHECK_ERR(one_entry("10064x", "a", 1, 0, &e), WG_ECORRUPT);
	CHECK_ERR(one_entry("-100644", "a", 1, 0, &e), WG_ECORRUPT);
	CHECK_ERR(one_entry(" 100644", "a", 1, 0, &e), WG_ECORRUPT);
	CHECK_ERR(one_entry("100644", "", 0, 0, &e), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "empty name") != NULL);
	CHECK_OK(one_entry("100644", "", 0, WG_TREE_ITER_ALLOW_EMPTY_NAME, &e));
	CHECK(e.namelen == 0 && e.name[0] == '\0');
}

static void test_iter_structure_errors(void)
{
	const struct wg_hash_algo *sha1 = algo_of(WG_HASH_SHA1);
	unsigned char buf[512], *copy;
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	size_t n;

	/* Mode running into the NUL without a space. */
	memcpy(buf, "100644\0", 7);
	memset(buf + 7, 0x11, 20);
	copy = exact_copy(buf, 27);
	wg_tree_iter_init(&it, sha1, copy, 27);
	CHECK_ERR(wg_tree_iter_next(&it, &e), WG_ECORRUPT);
	/* Sticky. */
	CHECK_ERR(wg_tree_iter_next(&it, &e), WG_ECORRUPT);
	free(copy);

	/* A good entry followed by garbage shorter than an id: Git refuses the
	 * tree at its first entry, because the byte before the last id is
	 * not a NUL. */
	n = raw_entry(buf, "100644", "a", 1, sha1->rawsz);
	memcpy(buf + n, "1 b\0xx", 6);
	copy = exact_copy(buf, n + 6);
	wg_tree_iter_init(&it, sha1, copy, n + 6);
	CHECK_ERR(wg_tree_iter_next(&it, &e), WG_ECORRUPT);
	free(copy);

	/* SHA-256 tree read as SHA-1 and the other way round. */
	n = raw_entry(buf, "100644", "a", 1, 32);
	n += raw_entry(buf + n, "100644", "b", 1, 32);
	{
		size_t count;
		copy = exact_copy(buf, n);
		CHECK(count_entries(algo_of(WG_HASH_SHA256), copy, n, &count) == WG_ITEROVER &&
		      count == 2);
		CHECK(count_entries(sha1, copy, n, &count) == WG_ECORRUPT);
		free(copy);
	}
	/* An id that is a byte short. */
	n = raw_entry(buf, "100644", "a", 1, sha1->rawsz);
	copy = exact_copy(buf, n - 1);
	wg_tree_iter_init(&it, sha1, copy, n - 1);
	CHECK_ERR(wg_tree_iter_next(&it, &e), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "byte 0") != NULL);
	free(copy);
	/* Empty tree. */
	wg_tree_iter_init(&it, sha1, "", 0);
	CHECK_ERR(wg_tree_iter_next(&it, &e), WG_ITEROVER);
}

/* Every prefix of every fixture tree: the entries returned are the first
 * entries of the full tree, the end is clean exactly at entry boundaries,
 * and otherwise the iterator fails cleanly. The prefix sits in an exactly
 * sized allocation so ASan catches any overread. */
static void test_truncated_at_every_offset(void)
{
	size_t i;
	for (i = 0; i < sizeof(object_fixtures) / sizeof(object_fixtures[0]); i++) {
		const struct object_fixture *fx = &object_fixtures[i];
		const struct wg_hash_algo *algo = algo_of(fx->algo);
		size_t cut, boundaries[64], nb = 0, full;
		struct wg_tree_iter it;
		struct wg_tree_entry e;
		if (fx->type != WG_OBJ_TREE)
			continue;
		wg_tree_iter_init(&it, algo, fx->data, fx->len);
		boundaries[nb++] = 0;
		while (!wg_tree_iter_next(&it, &e) && nb < 64)
			boundaries[nb++] = it.pos;
		full = nb - 1;
		for (cut = 0; cut < fx->len; cut++) {
			unsigned char *copy = exact_copy(fx->data, cut);
			size_t count = 0, k;
			bool at_boundary = false;
			int rc = count_entries(algo, copy, cut, &count);
			for (k = 0; k < nb; k++)
				at_boundary |= boundaries[k] == cut;
			if (at_boundary)
				CHECK(rc == WG_ITEROVER);
			else
				CHECK(rc == WG_ECORRUPT);
			CHECK(count <= full);
			free(copy);
		}
	}
}

/* Every byte of a tree replaced by characters that matter to the parser:
 * never a crash, and either a clean parse or WG_ECORRUPT. */
static void test_corrupted_at_every_offset(void)
{
	static const unsigned char subst[] = { 0, ' ', '8', '0', 'x', 0xff };
	size_t i;
	for (i = 0; i < sizeof(object_fixtures) / sizeof(object_fixtures[0]); i++) {
		const struct object_fixture *fx = &object_fixtures[i];
		const struct wg_hash_algo *algo = algo_of(fx->algo);
		size_t off, s;
		if (fx->type != WG_OBJ_TREE || !fx->len)
			continue;
		for (off = 0; off < fx->len; off++)
			for (s = 0; s < sizeof(subst); s++) {
				unsigned char *copy = exact_copy(fx->data, fx->len);
				size_t count;
				int rc;
				copy[off] = subst[s];
				rc = count_entries(algo, copy, fx->len, &count);
				CHECK(rc == WG_ITEROVER || rc == WG_ECORRUPT);
				free(copy);
			}
	}
}

/* An allocator that fails after a budget of allocations. */
struct failing {
	int budget;
	int calls;
};

static void *failing_malloc(size_t n, void *p)
{
	struct failing *f = p;
	if (f->calls++ >= f->budget)
		return NULL;
	return malloc(n ? n : 1);
}

static void *failing_realloc(void *ptr, size_t n, void *p)
{
	struct failing *f = p;
	if (f->calls++ >= f->budget)
		return NULL;
	return realloc(ptr, n ? n : 1);
}

static void failing_free(void *ptr, void *p)
{
	(void)p;
	free(ptr);
}

static void test_builder_out_of_memory(void)
{
	const struct wg_hash_algo *sha1 = algo_of(WG_HASH_SHA1);
	struct failing f;
	struct wg_allocator al = { failing_malloc, failing_realloc, failing_free, &f };
	struct wg_oid oid;
	int budget, succeeded = 0;
	wg_oid_empty_blob(&oid, sha1);
	for (budget = 0; budget < 200 && !succeeded; budget++) {
		struct wg_tree_builder *b = NULL;
		struct wg_buf out = WG_BUF_INIT;
		char name[16];
		int k, rc = 0;
		f.budget = budget;
		f.calls = 0;
		wg_allocator_set(&al);
		rc = wg_tree_builder_new(&b, sha1);
		for (k = 0; !rc && k < 40; k++) {
			snprintf(name, sizeof(name), "f%d", 40 - k);
			rc = wg_tree_builder_add(b, WG_MODE_BLOB, name, strlen(name), &oid);
		}
		if (!rc)
			rc = wg_tree_builder_write(b, &out);
		wg_tree_builder_free(b);
		wg_buf_release(&out);
		wg_allocator_set(NULL);
		CHECK(rc == 0 || rc == WG_ENOMEM);
		succeeded = rc == 0;
	}
	CHECK(succeeded);
}

WG_TEST_MAIN("tree",
	WG_TEST(test_fixture_trees_round_trip),
	WG_TEST(test_ls_tree_format),
	WG_TEST(test_format_quoting),
	WG_TEST(test_name_order),
	WG_TEST(test_builder_sorting),
	WG_TEST(test_builder_refuses),
	WG_TEST(test_modes),
	WG_TEST(test_iter_modes_and_names),
	WG_TEST(test_iter_structure_errors),
	WG_TEST(test_truncated_at_every_offset),
	WG_TEST(test_corrupted_at_every_offset),
	WG_TEST(test_builder_out_of_memory))
