/* The streaming indexer, the idx reader, the pack reader and the pack odb
 * backend, on packs built here byte by byte (no git binary: these tests
 * also run as WebAssembly under Node).
 *
 * Every valid pack is fed whole, a byte at a time and split at every
 * offset, and must give the same pack checksum and the same .idx bytes.
 * Every invalid pack must fail with an error and leave the destination
 * directory exactly as it was (empty). */
#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "odb/loose.h"
#include "odb/pack_backend.h"
#include "pack/delta_apply.h"
#include "pack/idx.h"
#include "pack/indexer.h"
#include "util/hex.h"
#include "pack/pack.h"
#include "pack/pack_cache.h"
#include "pack/pack_format.h"
#include "repo/repo.h"
#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/fs.h"
#include "util/varint.h"

/* ---- building packs ------------------------------------------------------ */

struct pb {
	const struct wg_hash_algo *algo;
	struct wg_buf buf;
	uint32_t count;
	uint64_t offsets[64];
};

static void pb_init(struct pb *p, const struct wg_hash_algo *algo)
{
	unsigned char hdr[WG_PACK_HEADER_SIZE];
	memset(p, 0, sizeof(*p));
	p->algo = algo;
	wg_pack_header_write(hdr, 0);
	wg_buf_add(&p->buf, hdr, sizeof(hdr));
}

/* An entry: header declaring `size`, an optional base reference, then the
 * deflated content. Returns the entry's offset. */
static uint64_t pb_entry(struct pb *p, int type, uint64_t size, const unsigned char *ref,
			 uint64_t ofs_base, const void *content, size_t len)
{
	unsigned char hdr[WG_PACK_OBJ_HEADER_MAX + WG_VARINT_MAX];
	uLongf zlen = compressBound((uLong)len);
	unsigned char *z = wg_malloc(zlen);
	uint64_t off = p->buf.len;
	size_t n = wg_pack_object_header_encode(hdr, (enum wg_object_type)type, size);
	wg_buf_add(&p->buf, hdr, n);
	if (type == WG_OBJ_OFS_DELTA) {
		n = wg_varint_ofs_encode(hdr, off - ofs_base);
		wg_buf_add(&p->buf, hdr, n);
	} else if (type == WG_OBJ_REF_DELTA) {
		wg_buf_add(&p->buf, ref, p->algo->rawsz);
	}
	compress2(z, &zlen, content, (uLong)len, 6);
	wg_buf_add(&p->buf, z, zlen);
	wg_free(z);
	p->offsets[p->count++] = off;
	return off;
}

static uint64_t pb_obj(struct pb *p, int type, const void *content, size_t len)
{
	return pb_entry(p, type, len, NULL, 0, content, len);
}

/* Set the header count (the real one unless told otherwise) and append
 * the trailer. */
static void pb_finish(struct pb *p, int64_t count)
{
	unsigned char h[WG_MAX_RAWSZ];
	wg_put_be32(p->buf.data + 8, count < 0 ? p->count : (uint32_t)count);
	wg_hash_buffer(p->algo, p->buf.data, p->buf.len, h);
	wg_buf_add(&p->buf, h, p->algo->rawsz);
}

/* A delta that copies base[0..copy) and appends the literal `tail`. */
static size_t make_delta(unsigned char *d, size_t base_len, size_t copy, const char *tail,
			 uint64_t declared)
{
	size_t n = wg_varint_le_encode(d, base_len), t = strlen(tail);
	n += wg_varint_le_encode(d + n, declared ? declared : copy + t);
	if (copy) {
		d[n++] = 0x90 | 0x20;  /* offset 0; size in two bytes */
		d[n++] = (unsigned char)(copy & 0xff);
		d[n++] = (unsigned char)(copy >> 8);
	}
	while (t) {
		size_t k = t > 127 ? 127 : t;
		d[n++] = (unsigned char)k;
		memcpy(d + n, tail, k);
		n += k;
		tail += k;
		t -= k;
	}
	return n;
}

static void oid_of(struct wg_oid *out, const struct wg_hash_algo *algo, int type, const char *s)
{
	wg_object_hash(out, algo, (enum wg_object_type)type, s, strlen(s));
}

/* ---- helpers ------------------------------------------------------------- */

/* Index `pack` fed in pieces of `chunk` bytes (0: whole; SIZE_MAX-1: split
 * once at `split`). Returns the result of the first failing call; the idx
 * bytes go to idx_out (if given). */
static int run(const struct wg_hash_algo *algo, const char *dir, const struct wg_buf *pack,
	       size_t chunk, size_t split, struct wg_odb *odb, size_t window,
	       struct wg_buf *idx_out, unsigned char *hash)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	struct wg_indexer *ix = NULL;
	struct wg_object_source bases;
	unsigned char h[WG_MAX_RAWSZ];
	size_t pos = 0;
	int err;
	o.algo = algo;
	o.pack_dir = dir;
	if (odb) {
		bases = wg_odb_object_source(odb);
		o.bases = &bases;
		o.fix_thin = true;
	}
	o.window = window;
	if ((err = wg_indexer_new(&ix, &o)))
		return err;
	if (chunk == SIZE_MAX - 1) {
		err = wg_indexer_feed(ix, pack->data, split);
		if (!err)
			err = wg_indexer_feed(ix, pack->data + split, pack->len - split);
	} else {
		while (!err && pos < pack->len) {
			size_t n = chunk && chunk < pack->len - pos ? chunk : pack->len - pos;
			err = wg_indexer_feed(ix, pack->data + pos, n);
			pos += n;
		}
	}
	if (!err)
		err = wg_indexer_finish(ix, hash ? hash : h);
	if (!err && idx_out) {
		wg_buf_reset(idx_out);
		wg_buf_add(idx_out, wg_indexer_idx_data(ix)->data, wg_indexer_idx_data(ix)->len);
	}
	wg_indexer_free(ix);
	return err;
}

/* ---- a valid pack with both delta kinds ---------------------------------- */

static const char *const texts[] = {
	"The quick brown fox jumps over the lazy dog.\n",
	"The quick brown fox jumps over the lazy dog.\nAnd again.\n",
	"The quick brown fox jumps over the lazy dog.\nAnd again.\nA third line.\n",
	"The quick brown fox jumps over the lazy dog.\nAnd again.\nA third line.\nFour.\n",
};

/* blob0; blob1 = OFS delta on blob0; blob2 = REF delta on blob1; blob3 =
 * OFS delta on blob2 (depth 3); an empty blob; a tree naming blob0. */
static void build_valid(struct pb *p, const struct wg_hash_algo *algo, struct wg_oid ids[6])
{
	unsigned char d[256], tree[128];
	size_t n, tl;
	uint64_t o0, o2;
	int i;
	pb_init(p, algo);
	for (i = 0; i < 4; i++)
		oid_of(&ids[i], algo, WG_OBJ_BLOB, texts[i]);
	oid_of(&ids[4], algo, WG_OBJ_BLOB, "");
	o0 = pb_obj(p, WG_OBJ_BLOB, texts[0], strlen(texts[0]));
	n = make_delta(d, strlen(texts[0]), strlen(texts[0]), "And again.\n", 0);
	pb_entry(p, WG_OBJ_OFS_DELTA, n, NULL, o0, d, n);
	n = make_delta(d, strlen(texts[1]), strlen(texts[1]), "A third line.\n", 0);
	o2 = pb_entry(p, WG_OBJ_REF_DELTA, n, ids[1].hash, 0, d, n);
	n = make_delta(d, strlen(texts[2]), strlen(texts[2]), "Four.\n", 0);
	pb_entry(p, WG_OBJ_OFS_DELTA, n, NULL, o2, d, n);
	pb_obj(p, WG_OBJ_BLOB, "", 0);
	tl = (size_t)snprintf((char *)tree, sizeof(tree), "100644 a.txt");
	tree[tl++] = 0;
	memcpy(tree + tl, ids[0].hash, algo->rawsz);
	tl += algo->rawsz;
	wg_object_hash(&ids[5], algo, WG_OBJ_TREE, tree, tl);
	pb_obj(p, WG_OBJ_TREE, tree, tl);
	pb_finish(p, -1);
}

/* wg_indexer_find: every object of the pack with its resolved type (deltas
 * included), nothing else. */
static void test_indexer_find(void)
{
	for (int a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id((enum wg_hash_id)a);
		struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
		struct wg_indexer *ix = NULL;
		unsigned char h[WG_MAX_RAWSZ];
		struct wg_oid ids[6], missing;
		struct pb p;

		build_valid(&p, algo, ids);
		o.algo = algo;
		o.pack_dir = wg_test_tmpdir("ix-find");
		CHECK_OK(wg_indexer_new(&ix, &o));
		CHECK_OK(wg_indexer_feed(ix, p.buf.data, p.buf.len));
		CHECK_OK(wg_indexer_finish(ix, h));
		for (int i = 0; i < 6; i++)
			CHECK(wg_indexer_find(ix, &ids[i]) == (i == 5 ? WG_OBJ_TREE : WG_OBJ_BLOB));
		oid_of(&missing, algo, WG_OBJ_BLOB, "not in the pack\n");
		CHECK(wg_indexer_find(ix, &missing) == WG_OBJ_NONE);
		missing.hash[0] = 0x00;
		CHECK(wg_indexer_find(ix, &missing) == WG_OBJ_NONE);
		missing.hash[0] = 0xff;
		CHECK(wg_indexer_find(ix, &missing) == WG_OBJ_NONE);
		wg_indexer_free(ix);
		wg_buf_release(&p.buf);
	}
}

/* before_install: every object can be read back by id, deltas applied,
 * before anything is installed; a refusal there leaves nothing. */
struct read_back {
	const struct wg_oid *ids;
	const char *const *want;    /* contents of ids[0..4] */
	int checked;
	int refuse;
};

static int read_back(struct wg_indexer *ix, void *payload)
{
	struct read_back *rb = payload;
	struct wg_buf b = WG_BUF_INIT;
	enum wg_object_type type;
	for (int i = 0; i < 5; i++) {
		CHECK_OK(wg_indexer_read(ix, &rb->ids[i], &type, &b, 0));
		CHECK(type == WG_OBJ_BLOB);
		CHECK(b.len == strlen(rb->want[i]) && !memcmp(b.data, rb->want[i], b.len));
		rb->checked++;
	}
	/* The deepest delta (three levels) against a limit just below its size. */
	CHECK_ERR(wg_indexer_read(ix, &rb->ids[3], &type, &b, strlen(rb->want[3]) - 1),
		  WG_ELIMIT);
	CHECK_OK(wg_indexer_read(ix, &rb->ids[5], &type, &b, 0));
	CHECK(type == WG_OBJ_TREE);
	wg_buf_release(&b);
	return rb->refuse ? wg_error_set(WG_EFSCK, "refused by the test") : 0;
}

static void test_before_install(void)
{
	for (int a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id((enum wg_hash_id)a);
		const char *want[5] = { texts[0], texts[1], texts[2], texts[3], "" };
		for (int refuse = 0; refuse <= 1; refuse++) {
			struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
			struct wg_indexer *ix = NULL;
			unsigned char h[WG_MAX_RAWSZ];
			struct wg_oid ids[6], missing;
			struct read_back rb;
			enum wg_object_type type;
			struct wg_buf b = WG_BUF_INIT;
			struct pb p;
			const char *dir = wg_test_tmpdir("ix-install");

			build_valid(&p, algo, ids);
			memset(&rb, 0, sizeof(rb));
			rb.ids = ids;
			rb.want = want;
			rb.refuse = refuse;
			o.algo = algo;
			o.pack_dir = dir;
			o.before_install = read_back;
			o.install_payload = &rb;
			CHECK_OK(wg_indexer_new(&ix, &o));
			CHECK_OK(wg_indexer_feed(ix, p.buf.data, p.buf.len));
			if (refuse) {
				CHECK_ERR(wg_indexer_finish(ix, h), WG_EFSCK);
				CHECK(fx_dir_entries(dir) == 0);
			} else {
				CHECK_OK(wg_indexer_finish(ix, h));
				CHECK(fx_dir_entries(dir) == 3);   /* .pack, .idx, .rev */
				oid_of(&missing, algo, WG_OBJ_BLOB, "not in the pack\n");
				CHECK_ERR(wg_indexer_read(ix, &missing, &type, &b, 0), WG_ENOTFOUND);
			}
			CHECK(rb.checked == 5);
			wg_indexer_free(ix);
			wg_buf_release(&b);
			wg_buf_release(&p.buf);
			fx_rm_flat_dir(dir);
		}
	}
}

static void test_valid_pack_all_splits(void)
{
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id((enum wg_hash_id)a);
		const char *dir = wg_test_tmpdir("ix-valid");
		struct wg_buf ref = WG_BUF_INIT, got = WG_BUF_INIT, path = WG_BUF_INIT;
		unsigned char h1[WG_MAX_RAWSZ], h2[WG_MAX_RAWSZ];
		struct wg_oid ids[6];
		struct wg_pack *pack = NULL;
		struct pb p;
		size_t k;
		int i, bad = 0;
		char hex[WG_MAX_HEXSZ + 1];

		build_valid(&p, algo, ids);
		CHECK_OK(run(algo, dir, &p.buf, 0, 0, NULL, 0, &ref, h1));
		CHECK(memcmp(h1, p.buf.data + p.buf.len - algo->rawsz, algo->rawsz) == 0);
		CHECK(fx_dir_entries(dir) == 3);  /* .pack, .idx, .rev */
		/* Read everything back through the pack reader. */
		wg_hex_encode(hex, h1, algo->rawsz);
		hex[algo->hexsz] = 0;
		wg_buf_printf(&path, "%s/pack-%s.idx", dir, hex);
		CHECK_OK(wg_pack_open(&pack, (const char *)path.data, algo));
		if (pack) {
			for (i = 0; i < 6; i++) {
				enum wg_object_type t;
				size_t sz;
				if (wg_pack_read(pack, &ids[i], &t, &got))
					fprintf(stderr, "object %d (%s) not readable\n", i, wg_oid_hex(&ids[i]));
				CHECK(t == (i == 5 ? WG_OBJ_TREE : WG_OBJ_BLOB));
				if (i < 4)
					CHECK(got.len == strlen(texts[i]) && !memcmp(got.data, texts[i], got.len));
				CHECK_OK(wg_pack_read_header(pack, &ids[i], &t, &sz));
				CHECK(sz == got.len && t == (i == 5 ? WG_OBJ_TREE : WG_OBJ_BLOB));
			}
			CHECK_OK(wg_pack_idx_verify(wg_pack_index(pack)));
			wg_pack_free(pack);
		}
		fx_rm_flat_dir(dir);

		/* A byte at a time, and split at every offset: same result. */
		dir = wg_test_tmpdir("ix-bytes");
		CHECK_OK(run(algo, dir, &p.buf, 1, 0, NULL, 0, &got, h2));
		CHECK(got.len == ref.len && !memcmp(got.data, ref.data, ref.len));
		fx_rm_flat_dir(dir);
		for (k = 0; k <= p.buf.len; k++) {
			dir = wg_test_tmpdir("ix-split");
			if (run(algo, dir, &p.buf, SIZE_MAX - 1, k, NULL, 0, &got, h2) ||
			    got.len != ref.len || memcmp(got.data, ref.data, ref.len))
				bad++;
			fx_rm_flat_dir(dir);
		}
		CHECK(bad == 0);
		/* A tiny window forces bases to be evicted and rebuilt. */
		dir = wg_test_tmpdir("ix-window");
		CHECK_OK(run(algo, dir, &p.buf, 7, 0, NULL, 1, &got, h2));
		CHECK(got.len == ref.len && !memcmp(got.data, ref.data, ref.len));
		fx_rm_flat_dir(dir);
		wg_buf_release(&ref);
		wg_buf_release(&got);
		wg_buf_release(&path);
		wg_buf_release(&p.buf);
	}
}

/* ---- invalid packs ------------------------------------------------------- */

static void expect_fail(const struct wg_hash_algo *algo, const struct wg_buf *pack,
			const char *what, int line)
{
	const char *dir = wg_test_tmpdir("ix-bad");
	size_t chunk;
	for (chunk = 0; chunk <= 1; chunk++) {
		int err = run(algo, dir, pack, chunk, 0, NULL, 0, NULL, NULL);
		wg_test_checks++;
		if (!err || !*wg_error_message()) {
			wg_test_failures++;
			fprintf(stderr, "line %d: %s: indexing succeeded or gave no message\n", line, what);
		}
		wg_test_checks++;
		if (fx_dir_entries(dir) != 0) {
			wg_test_failures++;
			fprintf(stderr, "line %d: %s: files left behind\n", line, what);
		}
	}
	fx_rm_flat_dir(dir);
}
#define EXPECT_FAIL(algo, pack, what) expect_fail(algo, pack, what, __LINE__)

static void test_truncated_everywhere(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct wg_oid ids[6];
	struct wg_buf cut = WG_BUF_INIT;
	struct pb p;
	size_t k;
	int fails = 0;
	build_valid(&p, algo, ids);
	for (k = 0; k < p.buf.len; k++) {
		const char *dir = wg_test_tmpdir("ix-trunc");
		wg_buf_reset(&cut);
		wg_buf_add(&cut, p.buf.data, k);
		if (!run(algo, dir, &cut, 0, 0, NULL, 0, NULL, NULL) || fx_dir_entries(dir) != 0)
			fails++;
		fx_rm_flat_dir(dir);
	}
	CHECK(fails == 0);
	wg_buf_release(&cut);
	wg_buf_release(&p.buf);
}

static void test_bad_packs(void)
{
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id((enum wg_hash_id)a);
		unsigned char d[256];
		struct wg_oid ids[6], self;
		struct pb p;
		size_t n;
		uint64_t o0;

		/* wrong trailing checksum */
		build_valid(&p, algo, ids);
		p.buf.data[p.buf.len - 1] ^= 1;
		EXPECT_FAIL(algo, &p.buf, "wrong checksum");
		/* junk after the pack */
		p.buf.data[p.buf.len - 1] ^= 1;
		wg_buf_addch(&p.buf, 'x');
		EXPECT_FAIL(algo, &p.buf, "junk after the trailer");
		wg_buf_release(&p.buf);

		/* count too high / too low */
		pb_init(&p, algo);
		pb_obj(&p, WG_OBJ_BLOB, "one", 3);
		pb_obj(&p, WG_OBJ_BLOB, "two", 3);
		pb_finish(&p, 3);
		EXPECT_FAIL(algo, &p.buf, "count too high");
		wg_buf_release(&p.buf);
		pb_init(&p, algo);
		pb_obj(&p, WG_OBJ_BLOB, "one", 3);
		pb_obj(&p, WG_OBJ_BLOB, "two", 3);
		pb_finish(&p, 1);
		EXPECT_FAIL(algo, &p.buf, "count too low");
		wg_buf_release(&p.buf);

		/* a bad signature, a bad version */
		pb_init(&p, algo);
		pb_obj(&p, WG_OBJ_BLOB, "one", 3);
		pb_finish(&p, -1);
		p.buf.data[0] = 'J';
		EXPECT_FAIL(algo, &p.buf, "bad signature");
		p.buf.data[0] = 'P';
		p.buf.data[7] = 9;
		EXPECT_FAIL(algo, &p.buf, "bad version");
		wg_buf_release(&p.buf);

		/* delta base size mismatch */
		pb_init(&p, algo);
		o0 = pb_obj(&p, WG_OBJ_BLOB, "base text", 9);
		n = make_delta(d, 10, 4, "xy", 0);
		pb_entry(&p, WG_OBJ_OFS_DELTA, n, NULL, o0, d, n);
		pb_finish(&p, -1);
		EXPECT_FAIL(algo, &p.buf, "delta base size mismatch");
		wg_buf_release(&p.buf);

		/* a delta whose declared result is 4 GiB */
		pb_init(&p, algo);
		o0 = pb_obj(&p, WG_OBJ_BLOB, "base text", 9);
		n = make_delta(d, 9, 4, "xy", (uint64_t)4 << 30);
		pb_entry(&p, WG_OBJ_OFS_DELTA, n, NULL, o0, d, n);
		pb_finish(&p, -1);
		EXPECT_FAIL(algo, &p.buf, "4 GiB delta result");
		wg_buf_release(&p.buf);

		/* a REF_DELTA to itself: its own id as base */
		n = make_delta(d, 3, 3, "", 0);
		/* The id it would have if it resolved to "abc". */
		oid_of(&self, algo, WG_OBJ_BLOB, "abc");
		pb_init(&p, algo);
		pb_entry(&p, WG_OBJ_REF_DELTA, n, self.hash, 0, d, n);
		pb_finish(&p, -1);
		EXPECT_FAIL(algo, &p.buf, "REF_DELTA to itself");
		wg_buf_release(&p.buf);

		/* a cycle of two REF_DELTAs */
		{
			struct wg_oid x, y;
			oid_of(&x, algo, WG_OBJ_BLOB, "xxx");
			oid_of(&y, algo, WG_OBJ_BLOB, "yyy");
			pb_init(&p, algo);
			n = make_delta(d, 3, 0, "xxx", 0);
			pb_entry(&p, WG_OBJ_REF_DELTA, n, y.hash, 0, d, n);
			n = make_delta(d, 3, 0, "yyy", 0);
			pb_entry(&p, WG_OBJ_REF_DELTA, n, x.hash, 0, d, n);
			pb_finish(&p, -1);
			EXPECT_FAIL(algo, &p.buf, "REF_DELTA cycle");
			wg_buf_release(&p.buf);
		}

		/* an OFS_DELTA pointing into the middle of an entry, and one
		 * pointing before the pack */
		pb_init(&p, algo);
		o0 = pb_obj(&p, WG_OBJ_BLOB, "base text", 9);
		n = make_delta(d, 9, 4, "xy", 0);
		pb_entry(&p, WG_OBJ_OFS_DELTA, n, NULL, o0 + 1, d, n);
		pb_finish(&p, -1);
		EXPECT_FAIL(algo, &p.buf, "OFS_DELTA into an entry");
		wg_buf_release(&p.buf);
		pb_init(&p, algo);
		o0 = pb_obj(&p, WG_OBJ_BLOB, "base text", 9);
		pb_entry(&p, WG_OBJ_OFS_DELTA, n, NULL, 2, d, n);
		pb_finish(&p, -1);
		EXPECT_FAIL(algo, &p.buf, "OFS_DELTA before the pack");
		wg_buf_release(&p.buf);

		/* a zlib stream that inflates far past its declared size */
		{
			char *big = wg_malloc(100000);
			memset(big, 'a', 100000);
			pb_init(&p, algo);
			pb_entry(&p, WG_OBJ_BLOB, 10, NULL, 0, big, 100000);
			pb_finish(&p, -1);
			EXPECT_FAIL(algo, &p.buf, "inflates past its size");
			wg_buf_release(&p.buf);
			/* ... and one that ends before it */
			pb_init(&p, algo);
			pb_entry(&p, WG_OBJ_BLOB, 100001, NULL, 0, big, 100000);
			pb_finish(&p, -1);
			EXPECT_FAIL(algo, &p.buf, "ends before its size");
			wg_buf_release(&p.buf);
			wg_free(big);
		}

		/* invalid object types 0 and 5 */
		pb_init(&p, algo);
		pb_obj(&p, WG_OBJ_BLOB, "x", 1);
		pb_finish(&p, -1);
		p.buf.data[12] = (unsigned char)((p.buf.data[12] & 0x8f) | (5 << 4));
		EXPECT_FAIL(algo, &p.buf, "object type 5");
		wg_buf_release(&p.buf);

		/* corrupt zlib data */
		pb_init(&p, algo);
		pb_obj(&p, WG_OBJ_BLOB, "some content here", 17);
		p.buf.data[p.buf.len - 6] ^= 0x55;
		pb_finish(&p, -1);
		EXPECT_FAIL(algo, &p.buf, "corrupt zlib stream");
		wg_buf_release(&p.buf);

		/* a thin pack without --fix-thin */
		build_valid(&p, algo, ids);
		wg_buf_release(&p.buf);
		pb_init(&p, algo);
		n = make_delta(d, strlen(texts[0]), strlen(texts[0]), "And again.\n", 0);
		pb_entry(&p, WG_OBJ_REF_DELTA, n, ids[0].hash, 0, d, n);
		pb_finish(&p, -1);
		EXPECT_FAIL(algo, &p.buf, "thin pack without bases");
		wg_buf_release(&p.buf);
	}
}

static void test_fsck_rejects_bad_tree(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	const char *dir = wg_test_tmpdir("ix-fsck");
	struct wg_indexer *ix = NULL;
	unsigned char tree[128], h[WG_MAX_RAWSZ];
	struct pb p;
	size_t tl;
	tl = (size_t)snprintf((char *)tree, sizeof(tree), "100644 .git");
	tree[tl++] = 0;
	memset(tree + tl, 0x11, algo->rawsz);
	tl += algo->rawsz;
	pb_init(&p, algo);
	pb_obj(&p, WG_OBJ_TREE, tree, tl);
	pb_finish(&p, -1);
	o.algo = algo;
	o.pack_dir = dir;
	o.fsck = &fsck;
	CHECK_OK(wg_indexer_new(&ix, &o));
	if (ix) {
		int err = wg_indexer_feed(ix, p.buf.data, p.buf.len);
		if (!err)
			err = wg_indexer_finish(ix, h);
		CHECK(err == WG_EFSCK);
		wg_indexer_free(ix);
	}
	CHECK(fx_dir_entries(dir) == 0);
	fx_rm_flat_dir(dir);
	wg_buf_release(&p.buf);
}

/* ---- thin packs: bases from the repository ------------------------------- */

static void test_fix_thin(void)
{
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id((enum wg_hash_id)a);
		struct wg_repo_init_options ro = WG_REPO_INIT_OPTIONS_INIT;
		const char *base = wg_test_tmpdir("ix-thin");
		struct wg_buf dir = WG_BUF_INIT, got = WG_BUF_INIT, pd = WG_BUF_INIT;
		struct wg_repo *repo = NULL;
		struct wg_oid ids[6], b0;
		unsigned char d[256], h[WG_MAX_RAWSZ];
		enum wg_object_type t;
		struct pb p;
		size_t n;
		int i;

		ro.bare = true;
		ro.object_format = algo->name;
		wg_buf_printf(&dir, "%s/repo.git", base);
		CHECK_OK(wg_repo_init(&repo, (const char *)dir.data, &ro));
		if (!repo)
			continue;
		for (i = 0; i < 4; i++)
			oid_of(&ids[i], algo, WG_OBJ_BLOB, texts[i]);
		/* The base is only in the repository. */
		CHECK_OK(wg_odb_write(wg_repo_odb(repo), WG_OBJ_BLOB, texts[0], strlen(texts[0]), &b0));
		pb_init(&p, algo);
		n = make_delta(d, strlen(texts[0]), strlen(texts[0]), "And again.\n", 0);
		pb_entry(&p, WG_OBJ_REF_DELTA, n, ids[0].hash, 0, d, n);
		n = make_delta(d, strlen(texts[1]), strlen(texts[1]), "A third line.\n", 0);
		pb_entry(&p, WG_OBJ_OFS_DELTA, n, NULL, p.offsets[0], d, n);
		pb_finish(&p, -1);
		wg_buf_printf(&pd, "%s/objects/pack", (const char *)dir.data);
		CHECK_OK(run(algo, (const char *)pd.data, &p.buf, 3, 0, wg_repo_odb(repo), 0, NULL, h));
		/* The repository now reads the deltas through its pack backend. */
		CHECK_OK(wg_odb_read(wg_repo_odb(repo), &ids[2], &t, &got));
		CHECK(got.len == strlen(texts[2]) && !memcmp(got.data, texts[2], got.len));
		CHECK(fx_dir_entries((const char *)pd.data) == 3);
		wg_repo_free(repo);
		/* A fresh open finds the pack too, and it holds 3 objects (the
		 * base was appended). */
		CHECK_OK(wg_repo_open(&repo, (const char *)dir.data));
		if (repo) {
			size_t sz;
			CHECK_OK(wg_odb_read_header(wg_repo_odb(repo), &ids[1], &t, &sz));
			CHECK(sz == strlen(texts[1]) && t == WG_OBJ_BLOB);
			wg_repo_free(repo);
		}
		{
			DIR *dd = opendir((const char *)pd.data);
			struct dirent *de;
			while (dd && (de = readdir(dd))) {
				size_t l = strlen(de->d_name);
				if (l > 4 && !strcmp(de->d_name + l - 4, ".idx")) {
					struct wg_pack_idx *idx = NULL;
					wg_buf_reset(&got);
					wg_buf_printf(&got, "%s/%s", (const char *)pd.data, de->d_name);
					CHECK_OK(wg_pack_idx_open(&idx, (const char *)got.data, algo));
					if (idx) {
						CHECK(wg_pack_idx_count(idx) == 3);
						CHECK(!memcmp(wg_pack_idx_pack_hash(idx), h, algo->rawsz));
						CHECK_OK(wg_pack_idx_verify(idx));
					}
					wg_pack_idx_free(idx);
				}
			}
			if (dd)
				closedir(dd);
		}
		wg_buf_release(&p.buf);
		wg_buf_release(&got);
		wg_buf_release(&pd);
		wg_buf_release(&dir);
	}
}

/* ---- idx v1 and prefix ranges --------------------------------------------- */

static void test_idx_v1_and_prefix(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct wg_buf v1 = WG_BUF_INIT;
	struct wg_pack_idx *idx = NULL;
	unsigned char raw[3][WG_MAX_RAWSZ], h[WG_MAX_RAWSZ];
	uint32_t fan[256] = { 0 }, pos, first, end;
	struct wg_oid oid;
	int i;
	memset(raw, 0, sizeof(raw));
	raw[0][0] = 0x12; raw[0][1] = 0x34;
	raw[1][0] = 0x12; raw[1][1] = 0x35;
	raw[2][0] = 0xab;
	for (i = 0; i < 3; i++) {
		int b;
		for (b = raw[i][0]; b < 256; b++)
			fan[b]++;
	}
	for (i = 0; i < 256; i++) {
		unsigned char be[4];
		wg_put_be32(be, fan[i]);
		wg_buf_add(&v1, be, 4);
	}
	for (i = 0; i < 3; i++) {
		unsigned char be[4];
		wg_put_be32(be, 100u * (unsigned)(i + 1));
		wg_buf_add(&v1, be, 4);
		wg_buf_add(&v1, raw[i], algo->rawsz);
	}
	memset(h, 0x5a, sizeof(h));
	wg_buf_add(&v1, h, algo->rawsz);
	wg_hash_buffer(algo, v1.data, v1.len, h);
	wg_buf_add(&v1, h, algo->rawsz);
	CHECK_OK(wg_pack_idx_parse(&idx, v1.data, v1.len, algo, "v1"));
	if (idx) {
		CHECK(wg_pack_idx_version(idx) == 1 && wg_pack_idx_count(idx) == 3);
		CHECK_OK(wg_pack_idx_verify(idx));
		wg_oid_from_raw(&oid, algo, raw[1]);
		CHECK_OK(wg_pack_idx_find(idx, &oid, &pos));
		CHECK(pos == 1 && wg_pack_idx_offset_at(idx, pos) == 200);
		raw[1][5] = 1;
		wg_oid_from_raw(&oid, algo, raw[1]);
		CHECK(wg_pack_idx_find(idx, &oid, &pos) == WG_ENOTFOUND);
		wg_pack_idx_prefix_range(idx, (const unsigned char *)"\x12\x30", 3, &first, &end);
		CHECK(first == 0 && end == 2);
		wg_pack_idx_prefix_range(idx, (const unsigned char *)"\x12\x35", 4, &first, &end);
		CHECK(first == 1 && end == 2);
		wg_pack_idx_prefix_range(idx, (const unsigned char *)"\x13", 2, &first, &end);
		CHECK(first == end);
		wg_pack_idx_free(idx);
	}
	/* Every truncation of the index is refused. */
	for (i = 0; i < (int)v1.len; i += 7) {
		idx = NULL;
		CHECK(wg_pack_idx_parse(&idx, v1.data, (size_t)i, algo, "cut") == WG_ECORRUPT);
		wg_pack_idx_free(idx);
	}
	/* A fanout that decreases is refused. */
	v1.data[4 * 0x20 + 3] = 9;
	CHECK(wg_pack_idx_parse(&idx, v1.data, v1.len, algo, "fan") == WG_ECORRUPT);
	wg_buf_release(&v1);
}

/* ---- indexes and windows kept between opens (pack/pack_cache.h) ------------ */

/* The file system as it is, counting the opens of .idx files and the
 * reads of .pack files. */
static const struct wg_fs_ops *counted_inner;
static int idx_opens, pack_reads, pack_fd = -1;

static int counted_open(const char *path, int flags, int mode)
{
	size_t n = strlen(path);
	int fd = counted_inner->open(path, flags, mode);
	if (n > 4 && !strcmp(path + n - 4, ".idx"))
		idx_opens++;
	if (n > 5 && !strcmp(path + n - 5, ".pack"))
		pack_fd = fd;
	return fd;
}

static ssize_t counted_pread(int fd, void *buf, size_t len, int64_t offset)
{
	if (fd == pack_fd)
		pack_reads++;
	return counted_inner->pread(fd, buf, len, offset);
}

/* The pack of build_valid in dir; its .idx path in idx_path. */
static void write_valid_pack(const struct wg_hash_algo *algo, const char *dir,
			     struct wg_oid ids[6], struct wg_buf *idx_path)
{
	unsigned char h[WG_MAX_RAWSZ];
	char hex[WG_MAX_HEXSZ + 1];
	struct pb p;
	build_valid(&p, algo, ids);
	CHECK_OK(run(algo, dir, &p.buf, 0, 0, NULL, 0, NULL, h));
	wg_hex_encode(hex, h, algo->rawsz);
	wg_buf_reset(idx_path);
	wg_buf_printf(idx_path, "%s/pack-%s.idx", dir, hex);
	wg_buf_release(&p.buf);
}

/* Open the pack at idx_path, read ids[3] (a delta three deep) and check
 * its content; returns the pack still open (NULL on failure). */
static struct wg_pack *open_and_read(const char *idx_path, const struct wg_hash_algo *algo,
				     const struct wg_oid *id)
{
	struct wg_pack *pack = NULL;
	struct wg_buf out = WG_BUF_INIT;
	enum wg_object_type type;
	CHECK_OK(wg_pack_open(&pack, idx_path, algo));
	if (!pack)
		return NULL;
	CHECK_OK(wg_pack_read(pack, id, &type, &out));
	CHECK(type == WG_OBJ_BLOB && out.len == strlen(texts[3]) &&
	      !memcmp(out.data, texts[3], out.len));
	wg_buf_release(&out);
	return pack;
}

static void test_pack_cache(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA256);
	struct wg_fs_ops counted;
	struct wg_buf idx = WG_BUF_INIT, moved = WG_BUF_INIT, copy = WG_BUF_INIT, tmp = WG_BUF_INIT;
	struct wg_oid ids[6];
	struct wg_pack *a, *b;
	char dir[512], dir2[520];
	int opens, reads;

	snprintf(dir, sizeof(dir), "%s", wg_test_tmpdir("pack-cache"));
	snprintf(dir2, sizeof(dir2), "%s-moved", dir);
	write_valid_pack(algo, dir, ids, &idx);
	counted_inner = wg_fs_ops();
	counted = *counted_inner;
	counted.open = counted_open;
	counted.pread = counted_pread;
	wg_fs_set_ops(&counted);

	/* No budget (the default): every open reads the index again. */
	wg_pack_free(open_and_read(wg_buf_cstr(&idx), algo, &ids[3]));
	wg_pack_free(open_and_read(wg_buf_cstr(&idx), algo, &ids[3]));
	CHECK(idx_opens == 2);

	/* With one, the second open takes the index and the windows the
	 * first one left: no index read, no pack read for the same object
	 * beyond the header and trailer checks. */
	wg_pack_cache_set_budget((size_t)16 << 20);
	wg_pack_free(open_and_read(wg_buf_cstr(&idx), algo, &ids[3]));
	CHECK(idx_opens == 3);
	reads = pack_reads;
	wg_pack_free(open_and_read(wg_buf_cstr(&idx), algo, &ids[3]));
	CHECK(idx_opens == 3);
	CHECK(pack_reads == reads + 2);

	/* Two opens at once share the index; the second reads through
	 * windows of its own (the kept ones are the first's). Both read. */
	a = open_and_read(wg_buf_cstr(&idx), algo, &ids[3]);
	b = open_and_read(wg_buf_cstr(&idx), algo, &ids[3]);
	CHECK(a && b && wg_pack_index(a) == wg_pack_index(b));
	CHECK(idx_opens == 3);
	wg_pack_free(a);
	wg_pack_free(b);

	/* The same files under another path (a fresh mount point each call,
	 * as the JS API has it): still the same pack. */
	CHECK(rename(dir, dir2) == 0);
	wg_buf_adds(&moved, dir2);
	wg_buf_adds(&moved, wg_buf_cstr(&idx) + strlen(dir));
	wg_pack_free(open_and_read(wg_buf_cstr(&moved), algo, &ids[3]));
	CHECK(idx_opens == 3);

	/* An index file replaced (another inode, as a rename into place
	 * gives) is read again. */
	CHECK_OK(wg_fs_read_file(&copy, wg_buf_cstr(&moved)));
	wg_buf_reset(&tmp);
	wg_buf_printf(&tmp, "%s/new-idx", dir2);
	CHECK_OK(wg_fs_write_new_file(wg_buf_cstr(&tmp), copy.data, copy.len, 0444));
	CHECK(rename(wg_buf_cstr(&tmp), wg_buf_cstr(&moved)) == 0);
	opens = idx_opens;
	wg_pack_free(open_and_read(wg_buf_cstr(&moved), algo, &ids[3]));
	CHECK(idx_opens == opens + 1);

	/* A budget too small for what is kept frees it: read again. */
	wg_pack_cache_set_budget(1);
	wg_pack_free(open_and_read(wg_buf_cstr(&moved), algo, &ids[3]));
	CHECK(idx_opens == opens + 2);
	wg_pack_cache_set_budget(0);
	wg_fs_set_ops(counted_inner);
	wg_buf_release(&idx);
	wg_buf_release(&moved);
	wg_buf_release(&copy);
	wg_buf_release(&tmp);
}

/* ---- prefix searches (the abbreviations a diff prints) ------------------- */

static int dir_stats;
static const char *stat_dir;

static int counted_stat(const char *path, struct stat *st)
{
	if (stat_dir && !strcmp(path, stat_dir))
		dir_stats++;
	return counted_inner->stat(path, st);
}

static int count_oid(const struct wg_oid *oid, void *payload)
{
	(void)oid;
	(*(int *)payload)++;
	return 0;
}

static int prefix_count(struct wg_odb_backend *b, const struct wg_oid *oid, size_t hexlen)
{
	int n = 0;
	CHECK_OK(b->foreach(b, oid ? oid->hash : NULL, oid ? hexlen : 0, count_oid, &n));
	return n;
}

/* A prefix search takes the packs the backend knows without looking at
 * the directory again when they have something with that prefix; when
 * they have nothing (a pack that appeared since: a fetch) it looks, as a
 * read does on a miss. A whole listing always looks. */
static void test_prefix_search(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct wg_odb_backend *b = NULL;
	struct wg_buf idx = WG_BUF_INIT, from = WG_BUF_INIT, to = WG_BUF_INIT;
	struct wg_fs_ops counted;
	struct wg_oid ids[6], none;
	char src[512], dir[512];
	const char *name;
	void *d;
	int stats;

	snprintf(src, sizeof(src), "%s", wg_test_tmpdir("pack-prefix-src"));
	snprintf(dir, sizeof(dir), "%s", wg_test_tmpdir("pack-prefix"));
	write_valid_pack(algo, src, ids, &idx);
	CHECK_OK(wg_odb_pack_new(&b, dir, algo));
	if (!b)
		return;
	counted_inner = wg_fs_ops();
	counted = *counted_inner;
	counted.stat = counted_stat;
	stat_dir = dir;
	wg_fs_set_ops(&counted);

	CHECK(prefix_count(b, &ids[0], 8) == 0);
	/* the pack appears (moved in, as a fetch installs one) */
	CHECK((d = wg_fs_opendir(src)) != NULL);
	while (d && (name = wg_fs_readdir(d))) {
		if (strncmp(name, "pack-", 5))
			continue;
		wg_buf_reset(&from);
		wg_buf_reset(&to);
		wg_buf_printf(&from, "%s/%s", src, name);
		wg_buf_printf(&to, "%s/%s", dir, name);
		CHECK(rename(wg_buf_cstr(&from), wg_buf_cstr(&to)) == 0);
	}
	if (d)
		wg_fs_closedir(d);
	CHECK(prefix_count(b, &ids[0], 8) == 1);
	stats = dir_stats;
	for (int i = 0; i < 6; i++)
		CHECK(prefix_count(b, &ids[i], 40) == 1);
	CHECK(dir_stats == stats);
	/* nothing known has this prefix: the directory is looked at */
	none = ids[0];
	none.hash[0] ^= 0xff;
	none.hash[1] ^= 0xff;
	for (int i = 0; i < 6; i++)
		if (ids[i].hash[0] == none.hash[0] && ids[i].hash[1] == none.hash[1])
			none.hash[1] ^= 0x0f;
	CHECK(prefix_count(b, &none, 4) == 0);
	CHECK(dir_stats == stats + 1);
	CHECK(prefix_count(b, NULL, 0) == 6);
	CHECK(dir_stats == stats + 2);

	wg_fs_set_ops(counted_inner);
	stat_dir = NULL;
	b->free(b);
	wg_buf_release(&idx);
	wg_buf_release(&from);
	wg_buf_release(&to);
}

WG_TEST_MAIN("pack_index",
	WG_TEST(test_valid_pack_all_splits),
	WG_TEST(test_indexer_find),
	WG_TEST(test_before_install),
	WG_TEST(test_truncated_everywhere),
	WG_TEST(test_bad_packs),
	WG_TEST(test_fsck_rejects_bad_tree),
	WG_TEST(test_fix_thin),
	WG_TEST(test_idx_v1_and_prefix),
	WG_TEST(test_pack_cache),
	WG_TEST(test_prefix_search))
