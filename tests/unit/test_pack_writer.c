/* Pack writer: packs are read back by a private parser written here from
 * gitformat-pack (so the writer is not only checked by a reader that could
 * share its mistakes): every object comes back with its content and id,
 * offsets and CRCs match the .idx, deltas point backward (OFS) or at
 * "have" objects (REF, thin packs only), chains respect the depth, and the
 * trailer is the hash of the rest. Runs for SHA-1 and SHA-256, natively
 * and as WebAssembly (no git needed). */
#include <stdint.h>
#include <zlib.h>

#include "object/object.h"
#include "pack/delta_apply.h"
#include "pack/idx_write.h"
#include "pack/pack_format.h"
#include "pack/writer.h"
#include "repo/repo.h"
#include "test.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/varint.h"

static uint32_t rng_state = 88172645u;
static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

#define MAX_OBJS 512

struct fixture {
	struct wg_repo *repo;
	struct wg_odb *odb;
	struct wg_object_source src;  /* odb, as the pack writer reads it */
	const struct wg_hash_algo *algo;
	struct wg_oid oids[MAX_OBJS];
	char paths[MAX_OBJS][32];
	size_t n;
};

/* A repository with the history of a few files: each revision edits some
 * lines, so consecutive versions delta well; plus commits, small blobs
 * and one incompressible blob. */
static void fixture_make(struct fixture *fx, const char *name, const char *format, int revs)
{
	struct wg_repo_init_options io = WG_REPO_INIT_OPTIONS_INIT;
	const char *dir = wg_test_tmpdir(name);
	struct wg_buf b = WG_BUF_INIT;
	int r, f, i;
	memset(fx, 0, sizeof(*fx));
	io.object_format = format;
	io.bare = true;
	CHECK_OK(wg_repo_init(&fx->repo, dir, &io));
	if (!fx->repo)
		return;
	fx->odb = wg_repo_odb(fx->repo);
	fx->src = wg_odb_object_source(fx->odb);
	fx->algo = wg_repo_algo(fx->repo);
	for (r = 0; r < revs; r++) {
		for (f = 0; f < 3 && fx->n < MAX_OBJS - 4; f++) {
			wg_buf_reset(&b);
			for (i = 0; i < 200 + r * 5; i++) {
				if ((i * 7 + f) % 53 == r % 53)
					wg_buf_printf(&b, "rev %d edited line %d of file %d\n", r, i, f);
				else
					wg_buf_printf(&b, "file %d line %d: some text that stays\n", f, i);
			}
			CHECK_OK(wg_odb_write(fx->odb, WG_OBJ_BLOB, b.data, b.len, &fx->oids[fx->n]));
			snprintf(fx->paths[fx->n], sizeof(fx->paths[0]), "dir/file%d.txt", f);
			fx->n++;
		}
		wg_buf_reset(&b);
		wg_buf_printf(&b, "tree %s\nauthor A <a@b> %d +0000\ncommitter A <a@b> %d +0000\n\n"
			      "revision %d\n", wg_oid_hex(&fx->oids[fx->n - 1]), r, r, r);
		CHECK_OK(wg_odb_write(fx->odb, WG_OBJ_COMMIT, b.data, b.len, &fx->oids[fx->n]));
		fx->paths[fx->n][0] = '\0';
		fx->n++;
	}
	/* tiny, empty and random objects */
	CHECK_OK(wg_odb_write(fx->odb, WG_OBJ_BLOB, "", 0, &fx->oids[fx->n++]));
	CHECK_OK(wg_odb_write(fx->odb, WG_OBJ_BLOB, "x\n", 2, &fx->oids[fx->n++]));
	wg_buf_reset(&b);
	for (i = 0; i < 70000; i++)
		wg_buf_addch(&b, (int)(rnd() & 0xff));
	CHECK_OK(wg_odb_write(fx->odb, WG_OBJ_BLOB, b.data, b.len, &fx->oids[fx->n]));
	strcpy(fx->paths[fx->n++], "random.bin");
	wg_buf_release(&b);
}

static void fixture_free(struct fixture *fx)
{
	wg_repo_free(fx->repo);
}

/* --- the private reader ---------------------------------------------------- */

struct parsed {
	struct wg_oid oid;
	uint64_t offset;
	uint32_t crc;
	enum wg_object_type type;
	int raw_type;
	int depth;
	struct wg_buf data;
};

struct parse_result {
	struct parsed *objs;
	uint32_t n;
	uint32_t ofs_deltas, ref_deltas, max_depth;
};

static void parse_free(struct parse_result *pr)
{
	uint32_t i;
	for (i = 0; i < pr->n; i++)
		wg_buf_release(&pr->objs[i].data);
	wg_free(pr->objs);
	memset(pr, 0, sizeof(*pr));
}

static int inflate_exact(const unsigned char *in, size_t avail, size_t size, struct wg_buf *out,
			 size_t *consumed)
{
	z_stream zs;
	int zret;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return -1;
	wg_buf_reset(out);
	if (wg_buf_grow(out, size + 1)) {
		inflateEnd(&zs);
		return -1;
	}
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)avail;
	zs.next_out = out->data;
	zs.avail_out = (uInt)size + 1;
	zret = inflate(&zs, Z_FINISH);
	*consumed = zs.total_in;
	wg_buf_setlen(out, zs.total_out);
	inflateEnd(&zs);
	return zret == Z_STREAM_END && zs.total_out == size ? 0 : -1;
}

/* Parse a whole pack. Thin bases are looked up in odb. Returns 0 or -1
 * (after failing a CHECK that says why). */
static int parse_pack(struct parse_result *pr, const struct wg_hash_algo *algo,
		      struct wg_odb *odb, const unsigned char *p, size_t len)
{
	uint32_t version, count, i;
	size_t pos = WG_PACK_HEADER_SIZE;
	unsigned char sum[WG_MAX_RAWSZ];
	memset(pr, 0, sizeof(*pr));
	CHECK(len >= WG_PACK_HEADER_SIZE + algo->rawsz);
	if (len < WG_PACK_HEADER_SIZE + algo->rawsz)
		return -1;
	CHECK_OK(wg_pack_header_parse(p, &version, &count));
	CHECK(version == 2);
	CHECK_OK(wg_hash_buffer(algo, p, len - algo->rawsz, sum));
	CHECK_MEM(sum, p + len - algo->rawsz, algo->rawsz);
	pr->objs = wg_calloc(count ? count : 1, sizeof(*pr->objs));
	for (i = 0; i < count; i++) {
		struct parsed *o = &pr->objs[i];
		enum wg_object_type type;
		uint64_t size;
		size_t used, end = len - algo->rawsz;
		struct parsed *base = NULL;
		struct wg_buf thin = WG_BUF_INIT, raw = WG_BUF_INIT;
		int n = wg_pack_object_header_decode(p + pos, end - pos, &type, &size);
		CHECK(n > 0);
		if (n <= 0)
			return -1;
		o->offset = pos;
		o->raw_type = type;
		pr->n = i + 1;
		used = (size_t)n;
		if (type == WG_OBJ_OFS_DELTA) {
			uint64_t rel;
			uint32_t k;
			int m = wg_varint_ofs_decode(p + pos + used, end - pos - used, &rel);
			CHECK(m > 0 && rel > 0 && rel <= pos);
			if (m <= 0 || !rel || rel > pos)
				return -1;
			used += (size_t)m;
			for (k = 0; k < i; k++)
				if (pr->objs[k].offset == pos - rel)
					base = &pr->objs[k];
			CHECK(base != NULL);
			if (!base)
				return -1;
			pr->ofs_deltas++;
		} else if (type == WG_OBJ_REF_DELTA) {
			struct wg_oid boid;
			uint32_t k;
			wg_oid_from_raw(&boid, algo, p + pos + used);
			used += algo->rawsz;
			for (k = 0; k < i; k++)
				if (wg_oid_equal(&pr->objs[k].oid, &boid))
					base = &pr->objs[k];
			pr->ref_deltas++;
			if (!base) {
				/* a thin base: the receiver's */
				enum wg_object_type bt;
				CHECK_OK(wg_odb_read(odb, &boid, &bt, &thin));
				o->type = bt;
			}
		}
		{
			size_t consumed = 0;
			int bad = inflate_exact(p + pos + used, end - pos - used, (size_t)size, &raw,
						&consumed);
			CHECK(bad == 0);
			if (bad) {
				wg_buf_release(&raw);
				wg_buf_release(&thin);
				return -1;
			}
			used += consumed;
		}
		o->crc = (uint32_t)crc32(0L, p + pos, (uInt)used);
		if (type == WG_OBJ_OFS_DELTA || type == WG_OBJ_REF_DELTA) {
			const struct wg_buf *bd = base ? &base->data : &thin;
			CHECK_OK(wg_delta_apply(&o->data, bd->data, bd->len, raw.data, raw.len, 0));
			if (base) {
				o->type = base->type;
				o->depth = base->depth + 1;
			} else {
				o->depth = 1;
			}
			if ((uint32_t)o->depth > pr->max_depth)
				pr->max_depth = (uint32_t)o->depth;
		} else {
			o->type = type;
			wg_buf_add(&o->data, raw.data, raw.len);
		}
		CHECK_OK(wg_object_hash(&o->oid, algo, o->type, o->data.data, o->data.len));
		wg_buf_release(&raw);
		wg_buf_release(&thin);
		pos += used;
	}
	CHECK(pos == len - algo->rawsz);
	return pos == len - algo->rawsz ? 0 : -1;
}

/* Every object of the fixture is in the pack once, with its content. */
static void check_objects(const struct fixture *fx, const struct parse_result *pr, size_t nsent)
{
	size_t i;
	uint32_t k;
	CHECK(pr->n == nsent);
	for (i = 0; i < nsent; i++) {
		int found = 0;
		for (k = 0; k < pr->n; k++) {
			if (!wg_oid_equal(&pr->objs[k].oid, &fx->oids[i]))
				continue;
			found++;
		}
		CHECK(found == 1);
	}
}

/* The writer's .idx equals one built from what the parser found. */
static void check_idx(struct wg_pack_writer *w, const struct fixture *fx,
		      const struct parse_result *pr, const unsigned char *pack, size_t len)
{
	struct wg_buf idx = WG_BUF_INIT, rev = WG_BUF_INIT, want = WG_BUF_INIT,
		      want_rev = WG_BUF_INIT;
	struct wg_pack_idx_entry *e = wg_calloc(pr->n ? pr->n : 1, sizeof(*e));
	const unsigned char *trailer = pack + len - fx->algo->rawsz;
	struct wg_oid sum;
	uint32_t k;
	uint32_t *positions = wg_calloc(pr->n ? pr->n : 1, sizeof(*positions));
	struct wg_buf by_positions = WG_BUF_INIT;
	for (k = 0; k < pr->n; k++) {
		e[k].oid = pr->objs[k].oid;
		e[k].offset = pr->objs[k].offset;
		e[k].crc32 = pr->objs[k].crc;
		e[k].tag = k;
		/* the parser's objects are in pack order */
		CHECK(!k || pr->objs[k].offset > pr->objs[k - 1].offset);
	}
	CHECK_OK(wg_pack_idx_sort(e, pr->n));
	CHECK_OK(wg_pack_idx_write(&want, fx->algo, e, pr->n, trailer));
	CHECK_OK(wg_pack_rev_write(&want_rev, fx->algo, e, pr->n, trailer));
	/* the same .rev from each object's idx position, the tag having
	 * followed its entry through the sort */
	for (k = 0; k < pr->n; k++)
		positions[e[k].tag] = k;
	CHECK_OK(wg_pack_rev_write_positions(&by_positions, fx->algo, positions, pr->n, trailer));
	CHECK(by_positions.len == want_rev.len &&
	      !memcmp(by_positions.data, want_rev.data, want_rev.len));
	wg_free(positions);
	wg_buf_release(&by_positions);
	CHECK_OK(wg_pack_writer_write_idx(w, &idx, &rev));
	CHECK(idx.len == want.len && !memcmp(idx.data, want.data, idx.len));
	CHECK(rev.len == want_rev.len && !memcmp(rev.data, want_rev.data, rev.len));
	CHECK_OK(wg_pack_writer_checksum(w, &sum));
	CHECK_MEM(sum.hash, trailer, fx->algo->rawsz);
	wg_free(e);
	wg_buf_release(&idx);
	wg_buf_release(&rev);
	wg_buf_release(&want);
	wg_buf_release(&want_rev);
}

static int pack_fixture(const struct fixture *fx, const struct wg_pack_writer_options *opts,
			struct wg_buf *pack, struct wg_pack_writer **keep,
			struct wg_pack_writer_stats *st)
{
	struct wg_pack_writer *w = NULL;
	size_t i;
	int err;
	wg_buf_reset(pack);
	if ((err = wg_pack_writer_new(&w, &fx->src, opts)))
		return err;
	for (i = 0; i < fx->n && !err; i++)
		err = wg_pack_writer_add(w, &fx->oids[i], fx->paths[i][0] ? fx->paths[i] : NULL);
	CHECK(wg_pack_writer_count(w) == fx->n);
	if (!err)
		err = wg_pack_writer_write(w, wg_pack_buf_sink_write, pack);
	if (st)
		wg_pack_writer_get_stats(w, st);
	if (keep)
		*keep = w;
	else
		wg_pack_writer_free(w);
	return err;
}

static void run_basic(const char *format)
{
	struct fixture fx;
	struct wg_pack_writer *w = NULL;
	struct wg_pack_writer_stats st;
	struct parse_result pr;
	struct wg_buf pack = WG_BUF_INIT, again = WG_BUF_INIT;
	char name[32];
	snprintf(name, sizeof(name), "basic-%s", format);
	fixture_make(&fx, name, format, 40);
	if (!fx.repo)
		return;
	CHECK_OK(pack_fixture(&fx, NULL, &pack, &w, &st));
	CHECK(st.pack_size == pack.len);
	CHECK(st.objects == fx.n);
	if (!parse_pack(&pr, fx.algo, fx.odb, pack.data, pack.len)) {
		check_objects(&fx, &pr, fx.n);
		check_idx(w, &fx, &pr, pack.data, pack.len);
		/* 120 versions of 3 files: almost all of them deltas */
		CHECK(pr.ofs_deltas >= 100);
		CHECK(pr.ofs_deltas == st.deltas);
		CHECK(pr.ref_deltas == 0);
		CHECK(pr.max_depth <= 50);
	}
	parse_free(&pr);
	/* The same input gives the same bytes. */
	CHECK_OK(pack_fixture(&fx, NULL, &again, NULL, NULL));
	CHECK(again.len == pack.len && !memcmp(again.data, pack.data, pack.len));
	wg_pack_writer_free(w);
	wg_buf_release(&pack);
	wg_buf_release(&again);
	fixture_free(&fx);
}

static void test_basic_sha1(void)
{
	run_basic("sha1");
}

static void test_basic_sha256(void)
{
	run_basic("sha256");
}

static void test_options(void)
{
	struct fixture fx;
	struct wg_pack_writer_options o = WG_PACK_WRITER_OPTIONS_INIT;
	struct wg_pack_writer_stats st;
	struct parse_result pr;
	struct wg_buf pack = WG_BUF_INIT;
	size_t full;
	fixture_make(&fx, "options", "sha1", 30);
	if (!fx.repo)
		return;
	CHECK_OK(pack_fixture(&fx, NULL, &pack, NULL, NULL));
	full = pack.len;

	/* no window: no deltas, and a much bigger pack */
	o.window = 0;
	CHECK_OK(pack_fixture(&fx, &o, &pack, NULL, &st));
	CHECK(st.deltas == 0);
	CHECK(pack.len > full + 20000);
	if (!parse_pack(&pr, fx.algo, fx.odb, pack.data, pack.len)) {
		check_objects(&fx, &pr, fx.n);
		CHECK(pr.ofs_deltas == 0);
	}
	parse_free(&pr);

	/* shallow chains */
	o.window = 10;
	o.depth = 3;
	CHECK_OK(pack_fixture(&fx, &o, &pack, NULL, &st));
	if (!parse_pack(&pr, fx.algo, fx.odb, pack.data, pack.len)) {
		check_objects(&fx, &pr, fx.n);
		CHECK(pr.max_depth <= 3 && pr.max_depth >= 2);
	}
	parse_free(&pr);

	/* no delta cache: every delta is computed again while writing */
	o.depth = 50;
	o.delta_cache_size = 1;
	CHECK_OK(pack_fixture(&fx, &o, &pack, NULL, &st));
	CHECK(st.recomputed == st.deltas && st.deltas > 0);
	if (!parse_pack(&pr, fx.algo, fx.odb, pack.data, pack.len))
		check_objects(&fx, &pr, fx.n);
	parse_free(&pr);
	CHECK(pack.len == full);

	/* a tiny window memory still makes a valid pack */
	o.delta_cache_size = 64u << 20;
	o.window_memory = 1;
	o.compression = 0;
	CHECK_OK(pack_fixture(&fx, &o, &pack, NULL, &st));
	if (!parse_pack(&pr, fx.algo, fx.odb, pack.data, pack.len))
		check_objects(&fx, &pr, fx.n);
	parse_free(&pr);

	/* bad options */
	{
		struct wg_pack_writer *w = NULL;
		o.compression = 11;
		CHECK_ERR(wg_pack_writer_new(&w, &fx.src, &o), WG_EINVALID);
		CHECK(w == NULL);
	}
	wg_buf_release(&pack);
	fixture_free(&fx);
}

static void test_thin(void)
{
	struct fixture fx;
	struct wg_pack_writer_options o = WG_PACK_WRITER_OPTIONS_INIT;
	struct wg_pack_writer *w = NULL;
	struct wg_pack_writer_stats st;
	struct parse_result pr;
	struct wg_buf pack = WG_BUF_INIT;
	size_t i, half;
	fixture_make(&fx, "thin", "sha256", 20);
	if (!fx.repo)
		return;
	half = 40;  /* the receiver has the first ten revisions */
	o.thin = true;
	CHECK_OK(wg_pack_writer_new(&w, &fx.src, &o));
	for (i = half; i < fx.n; i++)
		CHECK_OK(wg_pack_writer_add(w, &fx.oids[i], fx.paths[i][0] ? fx.paths[i] : NULL));
	for (i = 0; i < half; i++)
		CHECK_OK(wg_pack_writer_add_have(w, &fx.oids[i], fx.paths[i][0] ? fx.paths[i] : NULL));
	/* an unknown have is ignored, a have also sent is sent */
	{
		struct wg_oid missing;
		wg_oid_null(&missing, fx.algo);
		missing.hash[0] = 1;
		CHECK_OK(wg_pack_writer_add_have(w, &missing, NULL));
		CHECK_OK(wg_pack_writer_add_have(w, &fx.oids[fx.n - 1], NULL));
	}
	CHECK(wg_pack_writer_count(w) == fx.n - half);
	CHECK_OK(wg_pack_writer_write(w, wg_pack_buf_sink_write, &pack));
	wg_pack_writer_get_stats(w, &st);
	CHECK(st.thin_deltas > 0);
	if (!parse_pack(&pr, fx.algo, fx.odb, pack.data, pack.len)) {
		CHECK(pr.n == fx.n - half);
		CHECK(pr.ref_deltas == st.thin_deltas);
		for (i = half; i < fx.n; i++) {
			uint32_t k;
			int found = 0;
			for (k = 0; k < pr.n; k++)
				found += wg_oid_equal(&pr.objs[k].oid, &fx.oids[i]);
			CHECK(found == 1);
		}
		/* no "have" object was sent */
		for (i = 0; i < half; i++) {
			uint32_t k;
			for (k = 0; k < pr.n; k++)
				CHECK(!wg_oid_equal(&pr.objs[k].oid, &fx.oids[i]));
		}
	}
	parse_free(&pr);
	wg_pack_writer_free(w);
	wg_buf_release(&pack);
	fixture_free(&fx);
}

static int failing_sink(const void *data, size_t len, void *payload)
{
	size_t *budget = payload;
	if (len > *budget)
		return wg_error_set(WG_EIO, "sink is full");
	*budget -= len;
	return 0;
}

static void test_errors(void)
{
	struct fixture fx;
	struct wg_pack_writer *w = NULL;
	struct wg_oid missing;
	struct wg_buf buf = WG_BUF_INIT;
	size_t budget = 1000, i;
	fixture_make(&fx, "errors", "sha1", 10);
	if (!fx.repo)
		return;
	CHECK_OK(wg_pack_writer_new(&w, &fx.src, NULL));
	wg_oid_null(&missing, fx.algo);
	missing.hash[3] = 7;
	CHECK_ERR(wg_pack_writer_add(w, &missing, NULL), WG_ENOTFOUND);
	for (i = 0; i < fx.n; i++) {
		CHECK_OK(wg_pack_writer_add(w, &fx.oids[i], NULL));
		CHECK_OK(wg_pack_writer_add(w, &fx.oids[i], "again"));  /* duplicate */
	}
	CHECK(wg_pack_writer_count(w) == fx.n);
	CHECK_ERR(wg_pack_writer_checksum(w, &missing), WG_EINVALID);
	CHECK_ERR(wg_pack_writer_write(w, failing_sink, &budget), WG_EIO);
	CHECK_ERR(wg_pack_writer_write_idx(w, &buf, NULL), WG_EINVALID);
	/* one write per writer */
	CHECK_ERR(wg_pack_writer_write(w, wg_pack_buf_sink_write, &buf), WG_EINVALID);
	CHECK_ERR(wg_pack_writer_add(w, &fx.oids[0], NULL), WG_EINVALID);
	wg_pack_writer_free(w);
	wg_pack_writer_free(NULL);
	/* an empty pack is valid: header and trailer */
	CHECK_OK(wg_pack_writer_new(&w, &fx.src, NULL));
	CHECK_OK(wg_pack_writer_write(w, wg_pack_buf_sink_write, &buf));
	CHECK(buf.len == WG_PACK_HEADER_SIZE + fx.algo->rawsz);
	wg_pack_writer_free(w);
	wg_buf_release(&buf);
	fixture_free(&fx);
}

static void test_files(void)
{
	struct fixture fx;
	struct wg_pack_writer *w = NULL;
	struct wg_oid sum;
	struct wg_buf path = WG_BUF_INIT, pack = WG_BUF_INIT;
	struct parse_result pr;
	char hex[WG_MAX_HEXSZ + 1];
	const char *dir = wg_test_tmpdir("files-out");
	size_t i;
	fixture_make(&fx, "files", "sha1", 10);
	if (!fx.repo)
		return;
	CHECK_OK(wg_pack_writer_new(&w, &fx.src, NULL));
	for (i = 0; i < fx.n; i++)
		CHECK_OK(wg_pack_writer_add(w, &fx.oids[i], fx.paths[i]));
	wg_buf_printf(&path, "%s/pack", dir);
	CHECK_OK(wg_pack_writer_write_files(w, wg_buf_cstr(&path), true, &sum));
	wg_oid_to_hex(&sum, hex);
	wg_buf_printf(&path, "-%s.pack", hex);
	CHECK_OK(wg_fs_read_file(&pack, wg_buf_cstr(&path)));
	if (!parse_pack(&pr, fx.algo, fx.odb, pack.data, pack.len)) {
		check_objects(&fx, &pr, fx.n);
		check_idx(w, &fx, &pr, pack.data, pack.len);
	}
	parse_free(&pr);
	wg_buf_setlen(&path, path.len - 4);
	wg_buf_adds(&path, "idx");
	CHECK(wg_fs_exists(wg_buf_cstr(&path)));
	wg_buf_setlen(&path, path.len - 3);
	wg_buf_adds(&path, "rev");
	CHECK(wg_fs_exists(wg_buf_cstr(&path)));
	wg_pack_writer_free(w);
	wg_buf_release(&path);
	wg_buf_release(&pack);
	fixture_free(&fx);
}

static void test_name_hash(void)
{
	/* Same ending, same neighbourhood; whitespace ignored; NULL is 0. */
	CHECK(wg_pack_name_hash(NULL) == 0);
	CHECK(wg_pack_name_hash("") == 0);
	CHECK(wg_pack_name_hash("a b") == wg_pack_name_hash("ab"));
	CHECK(wg_pack_name_hash("a\tb\n") == wg_pack_name_hash("ab"));
	/* 'a' << 24 = 0x61000000; then (0x61000000 >> 2) + ('b' << 24) */
	CHECK(wg_pack_name_hash("a") == 0x61000000u);
	CHECK(wg_pack_name_hash("ab") == 0x7a400000u);
	/* the same file name in two directories is close: the directory
	 * only reaches the low bits */
	CHECK((wg_pack_name_hash("src/dir/main.c") >> 16) ==
	      (wg_pack_name_hash("lib/dir/main.c") >> 16));
	CHECK(wg_pack_name_hash("01234567890123456789.c") ==
	      wg_pack_name_hash("zz234567890123456789.c"));
}

WG_TEST_MAIN("pack_writer",
	WG_TEST(test_basic_sha1),
	WG_TEST(test_basic_sha256),
	WG_TEST(test_options),
	WG_TEST(test_thin),
	WG_TEST(test_errors),
	WG_TEST(test_files),
	WG_TEST(test_name_hash))
