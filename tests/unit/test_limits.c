/* The limits of util/limits.h, each fed the hostile input it exists for:
 * the error must be WG_ELIMIT (or the corruption it hides) with a message
 * that names the limit, and the memory the core allocated (tracked through
 * the injectable allocator) must stay far below what the input declares.
 * The same file runs natively under ASan and as WASM under Node. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fixtures.h"
#include "object/commit.h"
#include "odb/loose.h"
#include "odb/odb.h"
#include "odb/reachable.h"
#include "pack/delta_apply.h"
#include "pack/indexer.h"
#include "pack/pack.h"
#include "pack/pack_format.h"
#include "protocol/advertisement.h"
#include "protocol/ls_refs.h"
#include "repo/repo.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/limits.h"
#include "util/varint.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static void track_start(void)
{
	fx_tracked.live = 0;
	fx_tracked.peak = 0;
	wg_allocator_set(&fx_tracking_allocator);
}

/* Stop tracking; returns the peak of live bytes since track_start(). Only
 * call once everything allocated while tracking has been freed. */
static size_t track_stop(void)
{
	wg_allocator_set(NULL);
	return fx_tracked.peak;
}

static void check_msg(const char *words)
{
	wg_test_checks++;
	if (!strstr(wg_error_message(), words)) {
		wg_test_failures++;
		fprintf(stderr, "message '%s' lacks '%s'\n", wg_error_message(), words);
	}
}

#define CHECK_PEAK_BELOW(peak, bound) do { \
	size_t peak_ = (peak); \
	wg_test_checks++; \
	if (peak_ >= (bound)) { \
		wg_test_failures++; \
		fprintf(stderr, "%s:%d: peak allocation %zu bytes, expected below %zu\n", \
			__FILE__, __LINE__, peak_, (size_t)(bound)); \
	} \
} while (0)

/* ---- building packs ----------------------------------------------------- */

/* An entry header whose size field takes exactly `nbytes` bytes (git's
 * reader accepts the padded form), so it can be patched in place. */
static void entry_header(struct wg_buf *b, int type, uint64_t size, size_t nbytes)
{
	unsigned char c = (unsigned char)((type << 4) | (size & 15));
	size >>= 4;
	for (size_t i = 1; i < nbytes; i++) {
		CHECK_OK(wg_buf_addch(b, c | 0x80));
		c = (unsigned char)(size & 0x7f);
		size >>= 7;
	}
	CHECK_OK(wg_buf_addch(b, c));
}

static void add_deflated(struct wg_buf *b, const void *data, size_t len)
{
	uLongf zlen = compressBound((uLong)len);
	unsigned char *z = malloc(zlen);
	CHECK(compress2(z, &zlen, data, (uLong)len, 9) == Z_OK);
	CHECK_OK(wg_buf_add(b, z, zlen));
	free(z);
}

static void pack_begin(struct wg_buf *b, uint32_t count)
{
	unsigned char hdr[WG_PACK_HEADER_SIZE];
	wg_pack_header_write(hdr, count);
	wg_buf_reset(b);
	CHECK_OK(wg_buf_add(b, hdr, sizeof(hdr)));
}

static void pack_end(struct wg_buf *b)
{
	unsigned char sum[WG_MAX_RAWSZ];
	CHECK_OK(wg_hash_buffer(fx_sha1(), b->data, b->len, sum));
	CHECK_OK(wg_buf_add(b, sum, fx_sha1()->rawsz));
}

static int on_object(unsigned worker, const struct wg_oid *oid, enum wg_object_type type,
		     const void *data, size_t len, void *payload)
{
	(void)worker;
	(void)oid, (void)type, (void)data, (void)len, (void)payload;
	return 0;
}

/* Index `pack` in memory (verify only): the first error, from feed or
 * finish. *fed_err receives feed's result. */
static int index_pack(const struct wg_buf *pack, const struct wg_limits *limits,
		      const char *pack_path, int *fed_err)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	struct wg_indexer *ix = NULL;
	unsigned char hash[WG_MAX_RAWSZ];
	struct wg_buf idx = WG_BUF_INIT;
	int err;
	o.algo = fx_sha1();
	o.tmp_dir = wg_test_tmpdir("limits-ix");
	o.limits = limits;
	o.on_object = on_object;   /* buffer commits and trees whole */
	if (pack_path) {
		CHECK_OK(wg_buf_adds(&idx, pack_path));
		wg_buf_setlen(&idx, idx.len - 5);
		CHECK_OK(wg_buf_adds(&idx, ".idx"));
		o.pack_path = pack_path;
		o.idx_path = wg_buf_cstr(&idx);
	}
	if ((err = wg_indexer_new(&ix, &o)))
		return err;
	err = wg_indexer_feed(ix, pack->data, pack->len);
	if (fed_err)
		*fed_err = err;
	if (!err)
		err = wg_indexer_finish(ix, hash);
	wg_indexer_free(ix);
	wg_buf_release(&idx);
	return err;
}

/* ---- declared sizes ----------------------------------------------------- */

static void test_delta_claims_4gib(void)
{
	/* base 5, result 4 GiB, then one insert of one byte: 8 bytes. */
	static const unsigned char d[] = { 0x05, 0x80, 0x80, 0x80, 0x80, 0x10, 0x01, 'x' };
	struct wg_buf out = WG_BUF_INIT;
	track_start();
	CHECK_ERR(wg_delta_apply(&out, (const unsigned char *)"hello", 5, d, sizeof(d),
				 (size_t)WG_LIMIT_MAX_OBJECT_SIZE), WG_ELIMIT);
	check_msg("max_object_size");
	/* With no limit, the instructions decide before anything is allocated. */
	CHECK_ERR(wg_delta_apply(&out, (const unsigned char *)"hello", 5, d, sizeof(d), 0),
		  sizeof(size_t) > 4 ? WG_ECORRUPT : WG_EUNSUPPORTED);
	wg_buf_release(&out);
	CHECK_PEAK_BELOW(track_stop(), 4 * KiB);
}

static void test_indexer_refuses_delta_result(void)
{
	/* A 5-byte blob, then an OFS_DELTA of 8 bytes claiming a 4 GiB result:
	 * refused while the pack streams in, not after. */
	static const unsigned char d[] = { 0x05, 0x80, 0x80, 0x80, 0x80, 0x10, 0x01, 'x' };
	struct wg_buf pack = WG_BUF_INIT;
	unsigned char ofs[WG_VARINT_MAX];
	size_t first, n;
	int fed;
	pack_begin(&pack, 2);
	entry_header(&pack, WG_OBJ_BLOB, 5, 1);
	add_deflated(&pack, "hello", 5);
	first = pack.len - WG_PACK_HEADER_SIZE;
	entry_header(&pack, WG_OBJ_OFS_DELTA, sizeof(d), 1);
	n = wg_varint_ofs_encode(ofs, first);
	CHECK_OK(wg_buf_add(&pack, ofs, n));
	add_deflated(&pack, d, sizeof(d));
	pack_end(&pack);
	track_start();
	CHECK_ERR(index_pack(&pack, NULL, NULL, &fed), WG_ELIMIT);
	CHECK_ERR(fed, WG_ELIMIT);
	check_msg("delta at offset");
	check_msg("max_object_size");
	CHECK_PEAK_BELOW(track_stop(), 2 * MiB);
	wg_buf_release(&pack);
}

static void test_indexer_refuses_huge_entry(void)
{
	/* A commit whose header declares 1 GiB (4 GiB where size_t allows)
	 * and whose zlib stream holds 5 bytes. */
	uint64_t huge = sizeof(size_t) > 4 ? (uint64_t)4 << 30 : (uint64_t)1 << 30;
	struct wg_limits unlimited = *wg_limits_default();
	struct wg_limits small = *wg_limits_default();
	struct wg_buf pack = WG_BUF_INIT;
	pack_begin(&pack, 1);
	entry_header(&pack, WG_OBJ_COMMIT, huge + 1, 6);
	add_deflated(&pack, "hello", 5);
	pack_end(&pack);
	track_start();
	CHECK_ERR(index_pack(&pack, NULL, NULL, NULL), WG_ELIMIT);
	check_msg("max_object_size");
	/* A lower limit is honoured too. */
	small.max_object_size = 4;
	wg_buf_reset(&pack);
	pack_begin(&pack, 1);
	entry_header(&pack, WG_OBJ_BLOB, 5, 1);
	add_deflated(&pack, "hello", 5);
	pack_end(&pack);
	CHECK_ERR(index_pack(&pack, &small, NULL, NULL), WG_ELIMIT);
	small.max_object_size = 5;
	CHECK_OK(index_pack(&pack, &small, NULL, NULL));
	/* Without the limit, memory follows what the stream produces. */
	unlimited.max_object_size = 0;
	wg_buf_reset(&pack);
	pack_begin(&pack, 1);
	entry_header(&pack, WG_OBJ_COMMIT, (uint64_t)1 << 30, 6);
	add_deflated(&pack, "hello", 5);
	pack_end(&pack);
	CHECK_ERR(index_pack(&pack, &unlimited, NULL, NULL), WG_ECORRUPT);
	check_msg("ends before the size");
	CHECK_PEAK_BELOW(track_stop(), 2 * MiB);
	wg_buf_release(&pack);
}

static void test_pack_read_huge_declared(void)
{
	/* An on-disk pack whose entry header is changed after indexing to
	 * declare 1 GiB + 5 for a 5-byte stream: a read must not allocate
	 * the declared size. */
	const char *dir = wg_test_tmpdir("limits-pack-huge");
	struct wg_limits unlimited = *wg_limits_default();
	struct wg_buf pack = WG_BUF_INIT, path = WG_BUF_INIT, out = WG_BUF_INIT;
	struct wg_pack *p = NULL;
	enum wg_object_type type;
	FILE *f;
	pack_begin(&pack, 1);
	entry_header(&pack, WG_OBJ_BLOB, 5, 6);
	add_deflated(&pack, "hello", 5);
	pack_end(&pack);
	CHECK_OK(wg_buf_printf(&path, "%s/p.pack", dir));
	CHECK_OK(index_pack(&pack, NULL, wg_buf_cstr(&path), NULL));
	/* size = 5 | 0x20 << 25 = 1 GiB + 5, in the same six bytes */
	f = fopen(wg_buf_cstr(&path), "r+b");
	CHECK(f != NULL);
	if (f) {
		static const unsigned char patched[] = { 0x80, 0x80, 0x80, 0xa0, 0x00 };
		fseek(f, WG_PACK_HEADER_SIZE + 1, SEEK_SET);
		fwrite(patched, 1, sizeof(patched), f);
		fclose(f);
	}
	wg_buf_setlen(&path, path.len - 5);
	CHECK_OK(wg_buf_adds(&path, ".idx"));
	track_start();
	CHECK_OK(wg_pack_open(&p, wg_buf_cstr(&path), fx_sha1()));
	if (p) {
		CHECK_ERR(wg_pack_read_at(p, WG_PACK_HEADER_SIZE, &type, &out), WG_ELIMIT);
		check_msg("max_object_size");
		unlimited.max_object_size = 0;
		wg_pack_set_limits(p, &unlimited);
		CHECK_ERR(wg_pack_read_at(p, WG_PACK_HEADER_SIZE, &type, &out), WG_ECORRUPT);
		check_msg("ends after 5");
		wg_buf_release(&out);
		wg_pack_free(p);
	}
	CHECK_PEAK_BELOW(track_stop(), 1 * MiB);
	wg_buf_release(&pack);
	wg_buf_release(&path);
}

/* ---- inflate bombs ------------------------------------------------------ */

#define BOMB_SIZE (4 * MiB)

static struct wg_limits bomb_limits(void)
{
	struct wg_limits l = *wg_limits_default();
	l.inflate_ratio_floor = 256 * KiB;
	l.max_inflate_ratio = 256;
	return l;
}

static void test_inflate_bomb_in_pack_stream(void)
{
	/* 4 MiB of zeros deflate to about 4 KiB (a ratio near 1000). */
	unsigned char *zeros = calloc(1, BOMB_SIZE);
	struct wg_limits l = bomb_limits(), off = bomb_limits();
	struct wg_buf pack = WG_BUF_INIT;
	int fed;
	pack_begin(&pack, 1);
	entry_header(&pack, WG_OBJ_BLOB, BOMB_SIZE, 6);
	add_deflated(&pack, zeros, BOMB_SIZE);
	pack_end(&pack);
	track_start();
	CHECK_ERR(index_pack(&pack, &l, NULL, &fed), WG_ELIMIT);
	CHECK_ERR(fed, WG_ELIMIT);
	check_msg("max_inflate_ratio");
	/* The same pack is fine with the ratio limit off. */
	off.max_inflate_ratio = 0;
	CHECK_OK(index_pack(&pack, &off, NULL, NULL));
	CHECK_PEAK_BELOW(track_stop(), 2 * MiB);
	free(zeros);
	wg_buf_release(&pack);
}

static void test_inflate_bomb_in_pack_read(void)
{
	const char *dir = wg_test_tmpdir("limits-pack-bomb");
	unsigned char *zeros = calloc(1, BOMB_SIZE);
	struct wg_limits l = bomb_limits(), off = bomb_limits();
	struct wg_buf pack = WG_BUF_INIT, path = WG_BUF_INIT, out = WG_BUF_INIT;
	struct wg_pack *p = NULL;
	enum wg_object_type type;
	off.max_inflate_ratio = 0;
	pack_begin(&pack, 1);
	entry_header(&pack, WG_OBJ_BLOB, BOMB_SIZE, 6);
	add_deflated(&pack, zeros, BOMB_SIZE);
	pack_end(&pack);
	CHECK_OK(wg_buf_printf(&path, "%s/p.pack", dir));
	CHECK_OK(index_pack(&pack, &off, wg_buf_cstr(&path), NULL));
	wg_buf_setlen(&path, path.len - 5);
	CHECK_OK(wg_buf_adds(&path, ".idx"));
	track_start();
	CHECK_OK(wg_pack_open(&p, wg_buf_cstr(&path), fx_sha1()));
	if (p) {
		wg_pack_set_limits(p, &l);
		CHECK_ERR(wg_pack_read_at(p, WG_PACK_HEADER_SIZE, &type, &out), WG_ELIMIT);
		check_msg("max_inflate_ratio");
		wg_buf_release(&out);
	}
	CHECK_PEAK_BELOW(fx_tracked.peak, 2 * MiB);
	if (p) {
		wg_pack_set_limits(p, &off);
		CHECK_OK(wg_pack_read_at(p, WG_PACK_HEADER_SIZE, &type, &out));
		CHECK(out.len == BOMB_SIZE);
		wg_buf_release(&out);
		wg_pack_free(p);
	}
	track_stop();
	free(zeros);
	wg_buf_release(&pack);
	wg_buf_release(&path);
}

static void test_inflate_bomb_loose(void)
{
	const char *dir = wg_test_tmpdir("limits-loose-bomb");
	size_t hdrlen = (size_t)snprintf(NULL, 0, "blob %zu", BOMB_SIZE) + 1;
	unsigned char *raw = calloc(1, BOMB_SIZE + hdrlen);
	struct wg_limits l = bomb_limits();
	struct wg_buf file = WG_BUF_INIT, path = WG_BUF_INIT, out = WG_BUF_INIT;
	struct wg_odb_backend *loose = NULL;
	struct wg_odb *odb = NULL;
	enum wg_object_type type;
	struct wg_oid oid;
	const char *hex;
	snprintf((char *)raw, hdrlen, "blob %zu", BOMB_SIZE);
	CHECK_OK(wg_object_hash(&oid, fx_sha1(), WG_OBJ_BLOB, raw + hdrlen, BOMB_SIZE));
	add_deflated(&file, raw, BOMB_SIZE + hdrlen);
	hex = wg_oid_hex(&oid);
	CHECK_OK(wg_buf_printf(&path, "%s/%.2s", dir, hex));
	CHECK_OK(wg_fs_mkdir_p(wg_buf_cstr(&path)));
	CHECK_OK(wg_buf_printf(&path, "/%s", hex + 2));
	CHECK_OK(wg_fs_write_new_file(wg_buf_cstr(&path), file.data, file.len, 0644));
	CHECK_OK(wg_odb_new(&odb, fx_sha1()));
	CHECK_OK(wg_odb_loose_new(&loose, dir, fx_sha1(), NULL));
	CHECK_OK(wg_odb_add_backend(odb, loose, 0));
	wg_odb_set_limits(odb, &l);
	track_start();
	CHECK_ERR(wg_odb_read(odb, &oid, &type, &out), WG_ELIMIT);
	check_msg("max_inflate_ratio");
	wg_buf_release(&out);
	/* The compressed file (4 KiB) is read whole; the output stops early. */
	CHECK_PEAK_BELOW(track_stop(), 2 * MiB);
	l.max_inflate_ratio = 0;
	wg_odb_set_limits(odb, &l);
	CHECK_OK(wg_odb_read(odb, &oid, &type, &out));
	CHECK(out.len == BOMB_SIZE);
	wg_buf_release(&out);
	wg_odb_free(odb);
	free(raw);
	wg_buf_release(&file);
	wg_buf_release(&path);
}

/* ---- object counts ------------------------------------------------------ */

static void test_pack_declares_4g_objects(void)
{
	struct wg_limits unlimited = *wg_limits_default();
	struct wg_buf pack = WG_BUF_INIT;
	int fed;
	pack_begin(&pack, UINT32_MAX);
	entry_header(&pack, WG_OBJ_BLOB, 5, 1);
	add_deflated(&pack, "hello", 5);
	pack_end(&pack);
	track_start();
	CHECK_ERR(index_pack(&pack, NULL, NULL, &fed), WG_ELIMIT);
	check_msg("max_pack_objects");
	/* With no count limit nothing is allocated from the count: the
	 * object table grows with the one entry that came, and the stream
	 * is refused for ending early. */
	unlimited.max_pack_objects = 0;
	CHECK(index_pack(&pack, &unlimited, NULL, &fed) < 0);
	CHECK(wg_error_code() != WG_ENOMEM);
	CHECK_PEAK_BELOW(track_stop(), 2 * MiB);
	wg_buf_release(&pack);
}

/* ---- tree depth --------------------------------------------------------- */

/* A minimal in-memory odb backend (reads only what the walk needs). */
struct mem_obj {
	struct wg_oid oid;
	enum wg_object_type type;
	struct wg_buf data;
};

struct mem_backend {
	struct wg_odb_backend base;
	struct mem_obj *objs;
	size_t n, alloc;
};

static struct mem_obj *mem_find(struct mem_backend *m, const struct wg_oid *oid)
{
	for (size_t i = m->n; i-- > 0;)
		if (wg_oid_equal(&m->objs[i].oid, oid))
			return &m->objs[i];
	return NULL;
}

static int mem_read(struct wg_odb_backend *b, const struct wg_oid *oid,
		    enum wg_object_type *type, struct wg_buf *out)
{
	struct mem_obj *o = mem_find((struct mem_backend *)b, oid);
	if (!o)
		return WG_ENOTFOUND;
	*type = o->type;
	wg_buf_reset(out);
	return wg_buf_add(out, o->data.data, o->data.len);
}

static int mem_exists(struct wg_odb_backend *b, const struct wg_oid *oid)
{
	return mem_find((struct mem_backend *)b, oid) != NULL;
}

static void mem_free(struct wg_odb_backend *b)
{
	struct mem_backend *m = (struct mem_backend *)b;
	for (size_t i = 0; i < m->n; i++)
		wg_buf_release(&m->objs[i].data);
	free(m->objs);
	free(m);
}

static struct wg_oid mem_add(struct mem_backend *m, enum wg_object_type type, const void *data,
			     size_t len)
{
	struct mem_obj *o;
	if (m->n == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 64;
		m->objs = realloc(m->objs, m->alloc * sizeof(*m->objs));
	}
	o = &m->objs[m->n++];
	memset(o, 0, sizeof(*o));
	o->type = type;
	CHECK_OK(wg_object_hash(&o->oid, fx_sha1(), type, data, len));
	CHECK_OK(wg_buf_add(&o->data, data, len));
	return o->oid;
}

/* An odb holding a commit whose tree nests `depth` trees ("d/d/d/.../f"). */
static struct wg_odb *deep_odb(size_t depth, struct wg_oid *commit, struct wg_oid *tree)
{
	struct mem_backend *m = calloc(1, sizeof(*m));
	struct wg_odb *odb = NULL;
	struct wg_buf t = WG_BUF_INIT, c = WG_BUF_INIT;
	struct wg_oid id = mem_add(m, WG_OBJ_BLOB, "x", 1);
	struct wg_commit cm;

	CHECK_OK(wg_buf_add(&t, "100644 f", 9));
	CHECK_OK(wg_buf_add(&t, id.hash, 20));
	id = mem_add(m, WG_OBJ_TREE, t.data, t.len);
	for (size_t i = 1; i < depth; i++) {
		wg_buf_reset(&t);
		CHECK_OK(wg_buf_add(&t, "40000 d", 8));
		CHECK_OK(wg_buf_add(&t, id.hash, 20));
		id = mem_add(m, WG_OBJ_TREE, t.data, t.len);
	}
	*tree = id;
	wg_commit_init(&cm);
	cm.tree = id;
	CHECK_OK(wg_commit_set_author(&cm, "A <a@example.com> 1700000000 +0000"));
	CHECK_OK(wg_commit_set_committer(&cm, "A <a@example.com> 1700000000 +0000"));
	CHECK_OK(wg_commit_set_message(&cm, "deep\n", 5));
	CHECK_OK(wg_commit_serialize(&cm, &c));
	*commit = mem_add(m, WG_OBJ_COMMIT, c.data, c.len);
	wg_commit_release(&cm);
	m->base.version = WG_ODB_BACKEND_VERSION;
	m->base.name = "memory";
	m->base.read = mem_read;
	m->base.exists = mem_exists;
	m->base.free = mem_free;
	CHECK_OK(wg_odb_new(&odb, fx_sha1()));
	CHECK_OK(wg_odb_add_backend(odb, &m->base, 0));
	wg_buf_release(&t);
	wg_buf_release(&c);
	return odb;
}

static int count_objects(const struct wg_oid *oid, enum wg_object_type type, const char *path,
			 void *payload)
{
	(void)oid, (void)type, (void)path;
	++*(size_t *)payload;
	return 0;
}

static void test_tree_depth(void)
{
	/* 2100 nested trees: over git's 2048. The walks are iterative, so a
	 * deeper limit works too, without C stack (WASM's is small). */
	struct wg_oid commit, tree;
	struct wg_odb *odb = deep_odb(2100, &commit, &tree);
	struct wg_limits l = *wg_odb_limits(odb);
	size_t n = 0;
	CHECK(l.max_tree_depth == 2048);
	CHECK_ERR(wg_odb_reachable(odb, &commit, 1, NULL, 0, count_objects, NULL, &n),
		  WG_ELIMIT);
	check_msg("core.maxTreeDepth");
	CHECK_ERR(wg_odb_check_connected(odb, &commit, 1, NULL, 0, NULL, 0, false), WG_ELIMIT);
	check_msg("nested more than 2048 deep");
	/* The receiver has the tree: marking it as theirs is limited too. */
	CHECK_ERR(wg_odb_reachable(odb, &commit, 1, &tree, 1, count_objects, NULL, &n),
		  WG_ELIMIT);
	check_msg("core.maxTreeDepth");
	l.max_tree_depth = 5000;
	wg_odb_set_limits(odb, &l);
	n = 0;
	track_start();
	CHECK_OK(wg_odb_reachable(odb, &commit, 1, NULL, 0, count_objects, NULL, &n));
	CHECK_PEAK_BELOW(track_stop(), 4 * MiB);
	CHECK(n == 2100 + 2);  /* the trees, the blob, the commit */
	CHECK_OK(wg_odb_check_connected(odb, &commit, 1, NULL, 0, NULL, 0, false));
	n = 0;
	CHECK_OK(wg_odb_reachable(odb, &commit, 1, &tree, 1, count_objects, NULL, &n));
	CHECK(n == 1);  /* only the commit: every tree is the receiver's */
	l.max_tree_depth = 10;
	wg_odb_set_limits(odb, &l);
	CHECK_ERR(wg_odb_check_connected(odb, &commit, 1, NULL, 0, NULL, 0, false), WG_ELIMIT);
	check_msg("nested more than 10 deep");
	wg_odb_free(odb);
}

static void test_tree_depth_from_config(void)
{
	struct wg_repo_init_options o = WG_REPO_INIT_OPTIONS_INIT;
	const char *dir = wg_test_tmpdir("limits-config");
	struct wg_repo *repo = NULL;
	struct wg_buf cfg = WG_BUF_INIT, text = WG_BUF_INIT;
	o.bare = true;
	o.object_format = "sha1";
	CHECK_OK(wg_repo_init(&repo, dir, &o));
	CHECK(repo && wg_odb_limits(wg_repo_odb(repo))->max_tree_depth == 2048);
	wg_repo_free(repo);
	repo = NULL;
	CHECK_OK(wg_buf_printf(&cfg, "%s/config", dir));
	CHECK_OK(wg_fs_read_file(&text, wg_buf_cstr(&cfg)));
	CHECK_OK(wg_buf_adds(&text, "[core]\n\tmaxTreeDepth = 7\n"));
	unlink(wg_buf_cstr(&cfg));
	CHECK_OK(wg_fs_write_new_file(wg_buf_cstr(&cfg), text.data, text.len, 0644));
	CHECK_OK(wg_repo_open(&repo, dir));
	CHECK(repo && wg_odb_limits(wg_repo_odb(repo))->max_tree_depth == 7);
	wg_repo_free(repo);
	repo = NULL;
	wg_buf_reset(&text);
	CHECK_OK(wg_buf_adds(&text, "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
			     "\tmaxTreeDepth = -1\n"));
	unlink(wg_buf_cstr(&cfg));
	CHECK_OK(wg_fs_write_new_file(wg_buf_cstr(&cfg), text.data, text.len, 0644));
	CHECK_ERR(wg_repo_open(&repo, dir), WG_EINVALID);
	check_msg("core.maxTreeDepth");
	wg_repo_free(repo);
	wg_buf_release(&cfg);
	wg_buf_release(&text);
}

/* ---- ref advertisements ------------------------------------------------- */

/* Feed a v0 advertisement that never ends: refs, one packet at a time,
 * until the parser refuses. Returns its error. */
static int endless_advertisement(const struct wg_limits *limits, size_t *fed)
{
	struct wg_advertisement *adv = NULL;
	struct wg_buf b = WG_BUF_INIT;
	int err;
	CHECK_OK(wg_advertisement_new(&adv, "git-upload-pack", NULL));
	wg_advertisement_set_limits(adv, limits);
	fx_pkt(&b, "# service=git-upload-pack\n");
	fx_flush(&b);
	fx_pkt(&b, "%s HEAD%cmulti_ack side-band-64k\n", fx_hexid(fx_sha1(), 'a'), 0);
	err = wg_advertisement_feed(adv, b.data, b.len);
	*fed = b.len;
	for (unsigned i = 0; err == WG_ENEEDMORE && i < 10000000; i++) {
		wg_buf_reset(&b);
		fx_pkt(&b, "%s refs/heads/branch-%u\n", fx_hexid(fx_sha1(), 'b'), i);
		err = wg_advertisement_feed(adv, b.data, b.len);
		*fed += b.len;
	}
	wg_advertisement_free(adv);
	wg_buf_release(&b);
	return err;
}

static void test_advertisement_limits(void)
{
	struct wg_limits l = *wg_limits_default();
	size_t fed;
	l.max_refs = 1000;
	track_start();
	CHECK_ERR(endless_advertisement(&l, &fed), WG_ELIMIT);
	check_msg("max_refs");
	CHECK(fed < 1001 * 80);
	l.max_refs = 0;
	l.max_advertisement_bytes = 256 * KiB;
	CHECK_ERR(endless_advertisement(&l, &fed), WG_ELIMIT);
	check_msg("max_advertisement_bytes");
	CHECK(fed <= 256 * KiB + 100);
	CHECK_PEAK_BELOW(track_stop(), 2 * MiB);
}

static void test_ls_refs_limits(void)
{
	struct wg_limits l = *wg_limits_default();
	struct wg_ls_refs_parser *p = NULL;
	struct wg_buf b = WG_BUF_INIT;
	int err = WG_ENEEDMORE;
	unsigned i;
	track_start();
	for (int round = 0; round < 2; round++) {
		l.max_refs = round ? 0 : 500;
		l.max_advertisement_bytes = round ? 128 * KiB : 0;
		CHECK_OK(wg_ls_refs_parser_new(&p, fx_sha1()));
		wg_ls_refs_parser_set_limits(p, &l);
		err = WG_ENEEDMORE;
		for (i = 0; err == WG_ENEEDMORE && i < 10000000; i++) {
			wg_buf_reset(&b);
			fx_pkt(&b, "%s refs/tags/t%u\n", fx_hexid(fx_sha1(), 'c'), i);
			err = wg_ls_refs_parser_feed(p, b.data, b.len);
		}
		CHECK_ERR(err, WG_ELIMIT);
		check_msg(round ? "max_advertisement_bytes" : "max_refs");
		CHECK(round ? i < 128 * KiB / 40 : i == 501);
		wg_ls_refs_parser_free(p);
	}
	wg_buf_release(&b);
	CHECK_PEAK_BELOW(track_stop(), 2 * MiB);
}

static void test_default_limits(void)
{
	struct wg_limits l = *wg_limits_default();
	CHECK(l.max_tree_depth == 2048);
	l.max_refs = 3;
	wg_limits_set_default(&l);
	CHECK(wg_limits_default()->max_refs == 3);
	wg_limits_set_default(NULL);
	CHECK(wg_limits_default()->max_refs == WG_LIMIT_MAX_REFS);
	CHECK_STR(wg_error_name(WG_ELIMIT), "ELIMIT");
	/* The WEBGIT_LIMITS / JS `limits` form. */
	l = *wg_limits_default();
	CHECK_OK(wg_limits_parse(&l, "max_refs=10,max_object_size=64m,max_tree_depth=0,"
				 "max_advertisement_bytes=2g"));
	CHECK(l.max_refs == 10 && l.max_object_size == 64 * MiB && l.max_tree_depth == 0);
	CHECK(l.max_advertisement_bytes == (uint64_t)2 << 30);
	CHECK(l.max_inflate_ratio == WG_LIMIT_MAX_INFLATE_RATIO);
	CHECK_OK(wg_limits_parse(&l, ""));
	CHECK_ERR(wg_limits_parse(&l, "max_refs=10,nope=1"), WG_EINVALID);
	check_msg("unknown limit 'nope'");
	CHECK_ERR(wg_limits_parse(&l, "max_refs=4g"), WG_EINVALID);   /* over 32 bits */
	CHECK_ERR(wg_limits_parse(&l, "max_refs=-1"), WG_EINVALID);
	CHECK_ERR(wg_limits_parse(&l, "max_refs"), WG_EINVALID);
	CHECK(l.max_refs == 10);  /* unchanged by a failed parse */
}

WG_TEST_MAIN("limits",
	WG_TEST(test_default_limits),
	WG_TEST(test_delta_claims_4gib),
	WG_TEST(test_indexer_refuses_delta_result),
	WG_TEST(test_indexer_refuses_huge_entry),
	WG_TEST(test_pack_read_huge_declared),
	WG_TEST(test_inflate_bomb_in_pack_stream),
	WG_TEST(test_inflate_bomb_in_pack_read),
	WG_TEST(test_inflate_bomb_loose),
	WG_TEST(test_pack_declares_4g_objects),
	WG_TEST(test_tree_depth),
	WG_TEST(test_tree_depth_from_config),
	WG_TEST(test_advertisement_limits),
	WG_TEST(test_ls_refs_limits))
