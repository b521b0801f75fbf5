/* Object database with the loose backend: round trips in both formats,
 * prefix lookup, and every kind of corrupt loose file. */
#include "test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "odb/loose.h"
#include "odb/object_stream.h"
#include "odb/odb.h"
#include "util/buf.h"
#include "util/fs.h"

static struct wg_odb *open_odb(const struct wg_hash_algo *algo, const char *dir)
{
	struct wg_odb *odb = NULL;
	struct wg_odb_backend *loose = NULL;
	CHECK_OK(wg_odb_new(&odb, algo));
	CHECK_OK(wg_odb_loose_new(&loose, dir, algo, NULL));
	CHECK_OK(wg_odb_add_backend(odb, loose, 0));
	return odb;
}

static void test_round_trip(void)
{
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(a);
		const char *dir = wg_test_tmpdir("odb-rt");
		struct wg_odb *odb = open_odb(algo, dir);
		struct wg_buf big = WG_BUF_INIT, out = WG_BUF_INIT;
		struct wg_oid oid, oid2, empty;
		enum wg_object_type type;
		size_t size, i;
		CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, "hello world\n", 12, &oid));
		if (a == WG_HASH_SHA1)
			CHECK_STR(wg_oid_hex(&oid), "3b18e512dba79e4c8300dd08aeb37f8e728b8dad");
		CHECK(wg_odb_exists(odb, &oid) == 1);
		CHECK_OK(wg_odb_read(odb, &oid, &type, &out));
		CHECK(type == WG_OBJ_BLOB && out.len == 12 && !memcmp(out.data, "hello world\n", 12));
		CHECK_OK(wg_odb_read_header(odb, &oid, &type, &size));
		CHECK(type == WG_OBJ_BLOB && size == 12);
		/* Writing again is a no-op. */
		CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, "hello world\n", 12, &oid2));
		CHECK(wg_oid_equal(&oid, &oid2));
		/* Empty objects. */
		CHECK_OK(wg_odb_write(odb, WG_OBJ_TREE, "", 0, &oid2));
		wg_oid_empty_tree(&empty, algo);
		CHECK(wg_oid_equal(&oid2, &empty));
		CHECK_OK(wg_odb_read(odb, &oid2, &type, &out));
		CHECK(type == WG_OBJ_TREE && out.len == 0);
		/* A blob bigger than every internal chunk. */
		for (i = 0; i < 3 * 65536 + 17; i++)
			CHECK_OK(wg_buf_addch(&big, (int)((i * 2654435761u) >> 13)));
		CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, big.data, big.len, &oid2));
		CHECK_OK(wg_odb_read(odb, &oid2, &type, &out));
		CHECK(out.len == big.len && !memcmp(out.data, big.data, big.len));
		/* Prefix lookup. */
		{
			char hex[WG_MAX_HEXSZ + 1];
			struct wg_oid found;
			wg_oid_to_hex(&oid, hex);
			CHECK_OK(wg_odb_resolve_prefix(odb, hex, 7, &found));
			CHECK(wg_oid_equal(&found, &oid));
			CHECK_ERR(wg_odb_resolve_prefix(odb, hex, 3, &found), WG_EINVALID);
			CHECK_ERR(wg_odb_resolve_prefix(odb, "0000000", 7, &found), WG_ENOTFOUND);
		}
		/* Missing object. */
		wg_oid_null(&oid2, algo);
		CHECK_ERR(wg_odb_read(odb, &oid2, &type, &out), WG_ENOTFOUND);
		CHECK(wg_odb_exists(odb, &oid2) == 0);
		wg_buf_release(&big);
		wg_buf_release(&out);
		wg_odb_free(odb);
	}
}

/* Store raw (uncompressed) bytes as the loose file for `hex`, deflated
 * unless raw_file is set. */
static void put_loose(const char *dir, const char *hex, const void *data, size_t len, int raw_file)
{
	struct wg_buf path = WG_BUF_INIT;
	unsigned char z[4096];
	uLongf zlen = sizeof(z);
	CHECK_OK(wg_buf_printf(&path, "%s/%.2s", dir, hex));
	CHECK_OK(wg_fs_mkdir_p((const char *)path.data));
	CHECK_OK(wg_buf_printf(&path, "/%s", hex + 2));
	unlink((const char *)path.data);
	if (raw_file) {
		CHECK_OK(wg_fs_write_new_file((const char *)path.data, data, len, 0644));
	} else {
		CHECK(compress(z, &zlen, data, (uLong)len) == Z_OK);
		CHECK_OK(wg_fs_write_new_file((const char *)path.data, z, zlen, 0644));
	}
	wg_buf_release(&path);
}

static void expect_corrupt(struct wg_odb *odb, const char *hex, const char *words)
{
	struct wg_oid oid;
	struct wg_buf out = WG_BUF_INIT;
	enum wg_object_type type;
	CHECK_OK(wg_oid_from_hex(&oid, wg_odb_algo(odb), hex));
	CHECK_ERR(wg_odb_read(odb, &oid, &type, &out), WG_ECORRUPT);
	if (!strstr(wg_error_message(), words)) {
		wg_test_failures++;
		fprintf(stderr, "message '%s' lacks '%s'\n", wg_error_message(), words);
	}
	CHECK(out.len == 0);
	wg_buf_release(&out);
}

static void test_corrupt_files(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	const char *dir = wg_test_tmpdir("odb-bad");
	struct wg_odb *odb = open_odb(algo, dir);
	const char *id = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad";  /* "hello world\n" */
	unsigned char z[256];
	uLongf zlen = sizeof(z);
	size_t cut;

	put_loose(dir, id, "not zlib at all", 15, 1);
	expect_corrupt(odb, id, "zlib");
	put_loose(dir, id, "blob 13\0hello world\n", 20, 0);
	expect_corrupt(odb, id, "size mismatch");
	put_loose(dir, id, "blob 11\0hello world\n", 20, 0);
	expect_corrupt(odb, id, "size mismatch");
	put_loose(dir, id, "blub 12\0hello world\n", 20, 0);
	expect_corrupt(odb, id, "unknown object type");
	put_loose(dir, id, "blob 12", 7, 0);
	expect_corrupt(odb, id, "no NUL");
	put_loose(dir, id, "blob 1x\0hello world\n", 20, 0);
	expect_corrupt(odb, id, "bad size");
	put_loose(dir, id, "blob 99999999999999999999999\0", 29, 0);
	expect_corrupt(odb, id, "overflow");
	put_loose(dir, id, "blob 12\0hello worle\n", 20, 0);
	expect_corrupt(odb, id, "hashes to");
	/* A valid stream cut at every length: a clean error each time. */
	CHECK(compress(z, &zlen, (const unsigned char *)"blob 12\0hello world\n", 20) == Z_OK);
	for (cut = 0; cut < zlen; cut++) {
		struct wg_oid oid;
		struct wg_buf out = WG_BUF_INIT;
		enum wg_object_type type;
		int err;
		put_loose(dir, id, z, cut, 1);
		CHECK_OK(wg_oid_from_hex(&oid, algo, id));
		err = wg_odb_read(odb, &oid, &type, &out);
		/* The last 4 bytes are the adler32 check; zlib needs them. */
		CHECK(err == WG_ECORRUPT);
		wg_buf_release(&out);
	}
	/* Trailing garbage after a complete stream. */
	{
		unsigned char g[300];
		memcpy(g, z, zlen);
		memcpy(g + zlen, "junk", 4);
		put_loose(dir, id, g, zlen + 4, 1);
		expect_corrupt(odb, id, "garbage");
	}
	/* The intact object reads. */
	put_loose(dir, id, z, zlen, 1);
	{
		struct wg_oid oid;
		struct wg_buf out = WG_BUF_INIT;
		enum wg_object_type type;
		CHECK_OK(wg_oid_from_hex(&oid, algo, id));
		CHECK_OK(wg_odb_read(odb, &oid, &type, &out));
		wg_buf_release(&out);
	}
	wg_odb_free(odb);
}

static void test_huge_declared_size(void)
{
	/* A tiny file claiming 4 GiB must fail without allocating it. */
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	const char *dir = wg_test_tmpdir("odb-huge");
	struct wg_odb *odb = open_odb(algo, dir);
	const char *id = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad";
	struct wg_limits limits = *wg_limits_default();
	put_loose(dir, id, "blob 4294967296\0hello world\n", 28, 0);
	if (sizeof(size_t) > 4) {
		/* Over max_object_size: refused from the header alone. */
		struct wg_oid oid;
		struct wg_buf out = WG_BUF_INIT;
		enum wg_object_type type;
		CHECK_OK(wg_oid_from_hex(&oid, algo, id));
		CHECK_ERR(wg_odb_read(odb, &oid, &type, &out), WG_ELIMIT);
		CHECK(strstr(wg_error_message(), "max_object_size") != NULL);
		wg_buf_release(&out);
		/* Without the limit, the stream's real length decides. */
		limits.max_object_size = 0;
		wg_odb_set_limits(odb, &limits);
		expect_corrupt(odb, id, "size mismatch");
	} else {
		/* With a 32-bit size_t (WASM) the size itself does not fit. */
		expect_corrupt(odb, id, "overflow");
	}
	wg_odb_free(odb);
}

/* Read an object through a stream in pieces of 1, 2, ... 7 bytes: 0 and
 * the content, or the first error (open or read). */
static int read_stream(struct wg_odb *odb, const struct wg_oid *oid, struct wg_buf *out,
		       enum wg_object_type *type)
{
	struct wg_object_stream *s = NULL;
	unsigned char piece[7];
	size_t step = 1, got;
	int err;
	wg_buf_reset(out);
	if ((err = wg_odb_open_stream(&s, odb, oid)))
		return err;
	*type = s->type;
	for (;;) {
		if ((err = wg_object_stream_read(s, piece, step, &got)) || !got)
			break;
		CHECK(got <= step);
		CHECK_OK(wg_buf_add(out, piece, got));
		step = step % 7 + 1;
	}
	if (!err)
		CHECK(out->len == s->size);
	wg_object_stream_free(s);
	return err;
}

/* Streams give what reads give, and every corruption a read refuses is an
 * error of the stream too, never a clean end (a checkout writes what it
 * reads before the end says whether the object was right). */
static void test_stream(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	const char *dir = wg_test_tmpdir("odb-stream");
	struct wg_odb *odb = open_odb(algo, dir);
	const char *id = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad";  /* "hello world\n" */
	static const struct { const char *data; size_t len; } bad[] = {
		{ "blob 13\0hello world\n", 20 }, { "blob 11\0hello world\n", 20 },
		{ "blub 12\0hello world\n", 20 }, { "blob 12", 7 },
		{ "blob 1x\0hello world\n", 20 }, { "blob 12\0hello worle\n", 20 },
	};
	struct wg_buf out = WG_BUF_INIT, big = WG_BUF_INIT;
	enum wg_object_type type;
	struct wg_oid oid;
	unsigned char z[256];
	uLongf zlen = sizeof(z);

	CHECK_OK(wg_oid_from_hex(&oid, algo, id));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		put_loose(dir, id, bad[i].data, bad[i].len, 0);
		CHECK(read_stream(odb, &oid, &out, &type) == WG_ECORRUPT);
	}
	put_loose(dir, id, "not zlib", 8, 1);
	CHECK(read_stream(odb, &oid, &out, &type) == WG_ECORRUPT);
	CHECK(compress(z, &zlen, (const unsigned char *)"blob 12\0hello world\n", 20) == Z_OK);
	for (size_t cut = 0; cut < zlen; cut++) {
		put_loose(dir, id, z, cut, 1);
		CHECK(read_stream(odb, &oid, &out, &type) == WG_ECORRUPT);
	}
	put_loose(dir, id, z, zlen, 1);
	CHECK_OK(read_stream(odb, &oid, &out, &type));
	CHECK(type == WG_OBJ_BLOB && out.len == 12 && !memcmp(out.data, "hello world\n", 12));
	/* absent: WG_ENOTFOUND, as a read */
	wg_oid_null(&oid, algo);
	CHECK(read_stream(odb, &oid, &out, &type) == WG_ENOTFOUND);
	/* larger than the stream's input buffer, and empty */
	for (size_t i = 0; i < 5 * 65536 + 3; i++)
		CHECK_OK(wg_buf_addch(&big, (int)((i * 2654435761u) >> 11)));
	CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, big.data, big.len, &oid));
	CHECK_OK(read_stream(odb, &oid, &out, &type));
	CHECK(out.len == big.len && !memcmp(out.data, big.data, big.len));
	CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, "", 0, &oid));
	CHECK_OK(read_stream(odb, &oid, &out, &type));
	CHECK(type == WG_OBJ_BLOB && out.len == 0);
	wg_buf_release(&out);
	wg_buf_release(&big);
	wg_odb_free(odb);
}

static const struct wg_fs_ops *counted_inner;
static int opendirs;

static void *counted_opendir(const char *path)
{
	opendirs++;
	return counted_inner->opendir(path);
}

/* A prefix search remembers the fan-out directories it found absent (a
 * diff asks one abbreviation per blob); a write through the same
 * backend makes its directory searchable again. */
static void test_prefix_absent_dirs(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	const char *dir = wg_test_tmpdir("odb-prefix");
	const char *hex = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad";  /* "hello world\n" */
	struct wg_odb *odb = open_odb(algo, dir), *other = open_odb(algo, dir);
	struct wg_oid found, oid;
	struct wg_fs_ops counted;

	counted_inner = wg_fs_ops();
	counted = *counted_inner;
	counted.opendir = counted_opendir;
	wg_fs_set_ops(&counted);
	CHECK_ERR(wg_odb_resolve_prefix(odb, hex, 7, &found), WG_ENOTFOUND);
	CHECK(opendirs == 1);
	CHECK_ERR(wg_odb_resolve_prefix(odb, hex, 8, &found), WG_ENOTFOUND);
	CHECK(opendirs == 1);
	wg_fs_set_ops(counted_inner);
	CHECK_ERR(wg_odb_resolve_prefix(other, hex, 7, &found), WG_ENOTFOUND);
	CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, "hello world\n", 12, &oid));
	CHECK_STR(wg_oid_hex(&oid), hex);
	CHECK_OK(wg_odb_resolve_prefix(odb, hex, 7, &found));
	CHECK(wg_oid_equal(&found, &oid));
	/* reads never depend on it: the other odb reads the new object... */
	CHECK(wg_odb_exists(other, &oid) == 1);
	/* ...and a fresh one finds it by prefix */
	wg_odb_free(other);
	other = open_odb(algo, dir);
	CHECK_OK(wg_odb_resolve_prefix(other, hex, 7, &found));
	CHECK(wg_oid_equal(&found, &oid));
	wg_odb_free(odb);
	wg_odb_free(other);
}

WG_TEST_MAIN("odb",
	WG_TEST(test_stream),
	WG_TEST(test_round_trip),
	WG_TEST(test_corrupt_files),
	WG_TEST(test_huge_declared_size),
	WG_TEST(test_prefix_absent_dirs))
