/* Unit tests for reading one file from a static host with Range requests
 * (core/remote/static_read.h) and its parsers (remote/dumb_refs.h,
 * remote/dumb_packs.h, pack/idx_slice.h). The host is a table of files in
 * memory served by a function that honours "Range: bytes=a-b" as a web
 * server does (or, on request, ignores it); every response is fed whole,
 * split at every offset, or byte by byte. The repositories are built here:
 * packs with whole objects, OFS_DELTA and REF_DELTA chains, idx v2 and v1,
 * loose objects; then broken in the ways a host or a corrupt upload can
 * break them. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "fixtures.h"
#include "hash/oid.h"
#include "object/object.h"
#include "pack/delta_create.h"
#include "pack/idx_slice.h"
#include "pack/idx_write.h"
#include "pack/pack_format.h"
#include "remote/dumb_packs.h"
#include "remote/dumb_refs.h"
#include "remote/static_read.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/strlist.h"
#include "util/varint.h"

#define BASE "http://host/repo.git"

/* --- the host ------------------------------------------------------------------------------ */

struct file {
	char path[160];
	struct wg_buf data;
};

struct host {
	struct file files[32];
	size_t n;
	bool ignore_range;     /* 200 with the whole file */
	bool smart;            /* info/refs answered as a smart server */
	unsigned requests;
	uint64_t bytes;
};

static struct wg_buf *host_file(struct host *h, const char *path)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->files[i].path, path))
			return &h->files[i].data;
	snprintf(h->files[h->n].path, sizeof(h->files[0].path), "%s", path);
	return &h->files[h->n++].data;
}

static void host_put(struct host *h, const char *path, const void *data, size_t len)
{
	struct wg_buf *b = host_file(h, path);
	wg_buf_reset(b);
	wg_buf_add(b, data, len);
}

static void host_release(struct host *h)
{
	for (size_t i = 0; i < h->n; i++)
		wg_buf_release(&h->files[i].data);
	memset(h, 0, sizeof(*h));
}

/* The response to req: status, content type, body (a slice of a file). */
static void host_answer(struct host *h, const struct wg_http_request *req, int *status,
			const char **type, const unsigned char **body, size_t *len)
{
	char path[256];
	const char *q;
	struct wg_buf *f = NULL;
	unsigned long long a = 0, b = 0;
	bool ranged = false;

	CHECK(!strncmp(req->url, BASE "/", strlen(BASE) + 1));
	snprintf(path, sizeof(path), "%s", req->url + strlen(BASE) + 1);
	if ((q = strchr(path, '?')))
		path[q - path] = '\0';
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->files[i].path, path))
			f = &h->files[i].data;
	for (size_t i = 0; i < req->nheaders; i++)
		if (sscanf(req->headers[i], "Range: bytes=%llu-%llu", &a, &b) == 2)
			ranged = true;
	h->requests++;
	*type = "application/octet-stream";
	if (!f) {
		static const char nf[] = "<h1>not found</h1>";
		*status = 404;
		*type = "text/html";
		*body = (const unsigned char *)nf;
		*len = sizeof(nf) - 1;
		return;
	}
	if (h->smart && !strcmp(path, "info/refs"))
		*type = "application/x-git-upload-pack-advertisement";
	if (!ranged || h->ignore_range) {
		*status = 200;
		*body = f->data;
		*len = f->len;
		return;
	}
	if (a >= f->len) {
		*status = 416;
		*body = (const unsigned char *)"";
		*len = 0;
		return;
	}
	if (b >= f->len)
		b = f->len - 1;
	*status = 206;
	*body = f->data + a;
	*len = (size_t)(b - a + 1);
}

/* Drive op against h, each response fed in two chunks cut at `split` (or
 * byte by byte with FX_BYTEWISE). Returns what ended the operation. */
static int host_run(struct host *h, struct wg_remote_op *op, size_t split)
{
	const struct wg_http_request *req;
	int err;

	while (!(err = wg_remote_op_next_request(op, &req))) {
		const unsigned char *body;
		const char *type;
		struct fx_chunker c;
		unsigned char *chunk;
		size_t len, n;
		int status;
		host_answer(h, req, &status, &type, &body, &len);
		if ((err = wg_remote_op_response_begin(op, status, type)))
			break;
		fx_chunker_init(&c, body, len, split != FX_BYTEWISE && split > len ? len : split);
		while ((chunk = fx_chunker_next(&c, &n))) {
			h->bytes += n;
			err = wg_remote_op_feed(op, chunk, n);
			free(chunk);
			if (err)
				break;
		}
		if (err || (err = wg_remote_op_response_end(op)))
			break;
	}
	return err == WG_ITEROVER ? 0 : err;
}

/* Read ref:path from h; 0 and the bytes in *out, or the error. */
static int read_file(struct host *h, const char *ref, const char *path, size_t split,
		     const struct wg_static_read_options *o, struct wg_buf *out)
{
	struct wg_remote_op *op = NULL;
	int err = wg_static_read_new(&op, BASE, ref, path, o);

	if (!err)
		err = host_run(h, op, split);
	if (!err && out) {
		size_t len;
		const unsigned char *d = wg_static_read_data(op, &len);
		wg_buf_reset(out);
		if (wg_buf_add(out, d, len))
			err = WG_ENOMEM;
	}
	wg_remote_op_free(op);
	return err;
}

/* --- building repositories ------------------------------------------------------------- */

struct repo {
	const struct wg_hash_algo *algo;
	struct wg_buf pack;
	struct wg_pack_idx_entry entries[64];
	size_t n;
	uint32_t count;
};

static void deflate_into(struct wg_buf *out, const void *data, size_t len)
{
	uLongf n = compressBound((uLong)len);
	wg_buf_grow(out, n);
	CHECK(compress2(out->data + out->len, &n, data, (uLong)len, 6) == Z_OK);
	wg_buf_setlen(out, out->len + n);
}

static void repo_init(struct repo *r, const struct wg_hash_algo *algo)
{
	unsigned char hdr[WG_PACK_HEADER_SIZE];
	memset(r, 0, sizeof(*r));
	r->algo = algo;
	wg_pack_header_write(hdr, 0);
	wg_buf_add(&r->pack, hdr, sizeof(hdr));
}

static struct wg_oid oid_of(const struct wg_hash_algo *algo, enum wg_object_type type,
			    const void *data, size_t len)
{
	struct wg_oid oid;
	CHECK_OK(wg_object_hash(&oid, algo, type, data, len));
	return oid;
}

/* Append an entry; base_off (OFS_DELTA) or base (REF_DELTA) name the base.
 * Returns the entry's offset. */
static uint64_t repo_entry(struct repo *r, enum wg_object_type type, const struct wg_oid *oid,
			   const void *data, size_t len, uint64_t base_off,
			   const struct wg_oid *base)
{
	unsigned char hdr[WG_PACK_OBJ_HEADER_MAX + WG_VARINT_MAX];
	uint64_t off = r->pack.len;
	size_t n = wg_pack_object_header_encode(hdr, type, len);

	if (type == WG_OBJ_OFS_DELTA)
		n += wg_varint_ofs_encode(hdr + n, off - base_off);
	wg_buf_add(&r->pack, hdr, n);
	if (type == WG_OBJ_REF_DELTA)
		wg_buf_add(&r->pack, base->hash, r->algo->rawsz);
	deflate_into(&r->pack, data, len);
	r->count++;
	if (oid) {
		r->entries[r->n].oid = *oid;
		r->entries[r->n].offset = off;
		r->entries[r->n].crc32 = (uint32_t)crc32(0, r->pack.data + off,
							 (uInt)(r->pack.len - off));
		r->n++;
	}
	return off;
}

static uint64_t repo_whole(struct repo *r, enum wg_object_type type, const void *data,
			   size_t len, struct wg_oid *oid_out)
{
	struct wg_oid oid = oid_of(r->algo, type, data, len);
	if (oid_out)
		*oid_out = oid;
	return repo_entry(r, type, &oid, data, len, 0, NULL);
}

static void make_delta(struct wg_buf *out, const char *from, const char *to)
{
	struct wg_delta_index *ix;
	CHECK_OK(wg_delta_index_new(&ix, from, strlen(from)));
	CHECK_OK(wg_delta_create(out, ix, to, strlen(to), 0));
	wg_delta_index_free(ix);
}

/* Blob `to` as an OFS_DELTA against the entry at base_off holding `from`. */
static uint64_t repo_ofs_blob(struct repo *r, uint64_t base_off, const char *from, const char *to,
			      struct wg_oid *oid)
{
	struct wg_buf d = WG_BUF_INIT;
	uint64_t off;
	*oid = oid_of(r->algo, WG_OBJ_BLOB, to, strlen(to));
	make_delta(&d, from, to);
	off = repo_entry(r, WG_OBJ_OFS_DELTA, oid, d.data, d.len, base_off, NULL);
	wg_buf_release(&d);
	return off;
}

static uint64_t repo_ref_blob(struct repo *r, const struct wg_oid *base, const char *from,
			      const char *to, struct wg_oid *oid)
{
	struct wg_buf d = WG_BUF_INIT;
	uint64_t off;
	*oid = oid_of(r->algo, WG_OBJ_BLOB, to, strlen(to));
	make_delta(&d, from, to);
	off = repo_entry(r, WG_OBJ_REF_DELTA, oid, d.data, d.len, 0, base);
	wg_buf_release(&d);
	return off;
}

/* The pack's header count and trailer, the idx (v2), into the host. */
static void repo_publish(struct repo *r, struct host *h, unsigned idx_version)
{
	unsigned char trailer[WG_MAX_RAWSZ];
	char name[200], hex[WG_MAX_HEXSZ + 1];
	struct wg_buf idx = WG_BUF_INIT;
	struct wg_oid pack_oid;

	wg_put_be32(r->pack.data + 8, r->count);
	wg_hash_buffer(r->algo, r->pack.data, r->pack.len, trailer);
	wg_buf_add(&r->pack, trailer, r->algo->rawsz);
	wg_oid_from_raw(&pack_oid, r->algo, trailer);
	wg_oid_to_hex(&pack_oid, hex);
	CHECK_OK(wg_pack_idx_sort(r->entries, r->n));
	if (idx_version == 2) {
		CHECK_OK(wg_pack_idx_write(&idx, r->algo, r->entries, r->n, trailer));
	} else {
		/* v1: fanout, then (offset, id) records, then the checksums */
		unsigned char b[4];
		uint32_t fan[256] = { 0 };
		for (size_t i = 0; i < r->n; i++)
			for (unsigned k = r->entries[i].oid.hash[0]; k < 256; k++)
				fan[k]++;
		for (unsigned k = 0; k < 256; k++) {
			wg_put_be32(b, fan[k]);
			wg_buf_add(&idx, b, 4);
		}
		for (size_t i = 0; i < r->n; i++) {
			wg_put_be32(b, (uint32_t)r->entries[i].offset);
			wg_buf_add(&idx, b, 4);
			wg_buf_add(&idx, r->entries[i].oid.hash, r->algo->rawsz);
		}
		wg_buf_add(&idx, trailer, r->algo->rawsz);
		wg_hash_buffer(r->algo, idx.data, idx.len, trailer);
		wg_buf_add(&idx, trailer, r->algo->rawsz);
	}
	snprintf(name, sizeof(name), "objects/pack/pack-%s.pack", hex);
	host_put(h, name, r->pack.data, r->pack.len);
	snprintf(name, sizeof(name), "objects/pack/pack-%s.idx", hex);
	host_put(h, name, idx.data, idx.len);
	{
		struct wg_buf *packs = host_file(h, "objects/info/packs");
		wg_buf_printf(packs, "P pack-%s.pack\n", hex);
	}
	wg_buf_release(&idx);
	wg_buf_release(&r->pack);
}

static void put_loose(struct host *h, const struct wg_hash_algo *algo, enum wg_object_type type,
		      const void *data, size_t len, struct wg_oid *oid_out)
{
	struct wg_buf raw = WG_BUF_INIT, z = WG_BUF_INIT;
	char hdr[64], hex[WG_MAX_HEXSZ + 1], path[200];
	struct wg_oid oid = oid_of(algo, type, data, len);

	wg_buf_add(&raw, hdr, wg_object_header(hdr, type, len));
	wg_buf_add(&raw, data, len);
	deflate_into(&z, raw.data, raw.len);
	wg_oid_to_hex(&oid, hex);
	snprintf(path, sizeof(path), "objects/%.2s/%s", hex, hex + 2);
	host_put(h, path, z.data, z.len);
	if (oid_out)
		*oid_out = oid;
	wg_buf_release(&raw);
	wg_buf_release(&z);
}

static void tree_add(struct wg_buf *t, const char *mode, const char *name, const struct wg_oid *oid)
{
	wg_buf_printf(t, "%s %s", mode, name);
	wg_buf_addch(t, '\0');
	wg_buf_add(t, oid->hash, wg_oid_rawsz(oid));
}

/* The sample: docs/sub/file.txt (an OFS_DELTA on an older version),
 * docs/other.txt (a REF_DELTA on a loose blob), README (whole), link (a
 * symlink), mod (a submodule), an annotated tag v1 (peeled in info/refs)
 * and a tag of a tag. HEAD -> refs/heads/main. */
static const char v1_text[] = "line one\nline two\nline three\nline four\nline five\n";
static const char v2_text[] = "line one\nline two\nline 3\nline four\nline five\nline six\n";
static const char other_base[] = "the other file, first version, with some words in it\n";
static const char other_text[] = "the other file, second version, with some words in it\n";
static const char readme[] = "hello from a static host\n";

struct sample {
	struct wg_oid commit, tag, tag2, file, other, readme;
	char commit_hex[WG_MAX_HEXSZ + 1];
};

static void make_sample(struct host *h, const struct wg_hash_algo *algo, unsigned idx_version,
			struct sample *s)
{
	struct repo r;
	struct wg_buf sub = WG_BUF_INIT, docs = WG_BUF_INIT, root = WG_BUF_INIT, c = WG_BUF_INIT;
	struct wg_buf t = WG_BUF_INIT, t2 = WG_BUF_INIT, refs = WG_BUF_INIT;
	struct wg_oid old, obase, sub_oid, docs_oid, root_oid, link, gitlink;
	char hex[WG_MAX_HEXSZ + 1];
	uint64_t off;

	memset(h, 0, sizeof(*h));
	repo_init(&r, algo);
	off = repo_whole(&r, WG_OBJ_BLOB, v1_text, strlen(v1_text), &old);
	repo_ofs_blob(&r, off, v1_text, v2_text, &s->file);
	put_loose(h, algo, WG_OBJ_BLOB, other_base, strlen(other_base), &obase);
	repo_ref_blob(&r, &obase, other_base, other_text, &s->other);
	repo_whole(&r, WG_OBJ_BLOB, readme, strlen(readme), &s->readme);
	repo_whole(&r, WG_OBJ_BLOB, "README", 6, &link);
	gitlink = fx_oid_of(algo, '7');
	tree_add(&sub, "100644", "file.txt", &s->file);
	repo_whole(&r, WG_OBJ_TREE, sub.data, sub.len, &sub_oid);
	tree_add(&docs, "100644", "other.txt", &s->other);
	tree_add(&docs, "40000", "sub", &sub_oid);
	repo_whole(&r, WG_OBJ_TREE, docs.data, docs.len, &docs_oid);
	tree_add(&root, "100644", "README", &s->readme);
	tree_add(&root, "40000", "docs", &docs_oid);
	tree_add(&root, "120000", "link", &link);
	tree_add(&root, "160000", "mod", &gitlink);
	repo_whole(&r, WG_OBJ_TREE, root.data, root.len, &root_oid);
	wg_buf_printf(&c, "tree %s\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nmsg\n",
		      wg_oid_to_hex(&root_oid, hex));
	repo_whole(&r, WG_OBJ_COMMIT, c.data, c.len, &s->commit);
	wg_oid_to_hex(&s->commit, s->commit_hex);
	wg_buf_printf(&t, "object %s\ntype commit\ntag v1\ntagger T <t@b> 1 +0000\n\nv1\n",
		      s->commit_hex);
	repo_whole(&r, WG_OBJ_TAG, t.data, t.len, &s->tag);
	wg_buf_printf(&t2, "object %s\ntype tag\ntag v2\ntagger T <t@b> 1 +0000\n\nv2\n",
		      wg_oid_to_hex(&s->tag, hex));
	repo_whole(&r, WG_OBJ_TAG, t2.data, t2.len, &s->tag2);
	repo_publish(&r, h, idx_version);
	/* v1 with its peeled line; v2 (a tag of a tag) without, so the tags
	 * themselves are read */
	wg_buf_printf(&refs, "%s\trefs/heads/main\n", s->commit_hex);
	wg_buf_printf(&refs, "%s\trefs/tags/v1\n", wg_oid_to_hex(&s->tag, hex));
	wg_buf_printf(&refs, "%s\trefs/tags/v1^{}\n", s->commit_hex);
	wg_buf_printf(&refs, "%s\trefs/tags/v2\n", wg_oid_to_hex(&s->tag2, hex));
	host_put(h, "info/refs", refs.data, refs.len);
	host_put(h, "HEAD", "ref: refs/heads/main\n", 21);
	wg_buf_release(&sub);
	wg_buf_release(&docs);
	wg_buf_release(&root);
	wg_buf_release(&c);
	wg_buf_release(&t);
	wg_buf_release(&t2);
	wg_buf_release(&refs);
}

static void check_reads(struct host *h, const struct sample *s, size_t split,
			const struct wg_static_read_options *o)
{
	struct wg_buf out = WG_BUF_INIT;

	CHECK_OK(read_file(h, "main", "docs/sub/file.txt", split, o, &out));
	CHECK(out.len == strlen(v2_text) && !memcmp(out.data, v2_text, out.len));
	CHECK_OK(read_file(h, NULL, "docs/other.txt", split, o, &out));
	CHECK(out.len == strlen(other_text) && !memcmp(out.data, other_text, out.len));
	CHECK_OK(read_file(h, "v2", "/README", split, o, &out));
	CHECK(out.len == strlen(readme) && !memcmp(out.data, readme, out.len));
	CHECK_OK(read_file(h, s->commit_hex, "link", split, o, &out));
	CHECK(out.len == 6 && !memcmp(out.data, "README", 6));
	wg_buf_release(&out);
}

/* --- the tests ---------------------------------------------------------------------------- */

static void test_reads_both_formats_and_idx_versions(void)
{
	const struct wg_hash_algo *algos[] = { fx_sha1(), fx_sha256() };
	struct wg_static_read_options narrow = WG_STATIC_READ_OPTIONS_INIT;

	/* one-id buckets are read by bisection; 1-byte windows make every
	 * entry header and zlib stream arrive across many responses */
	narrow.bucket_max = 1;
	narrow.window = 1;
	for (size_t a = 0; a < 2; a++)
		for (unsigned v = 1; v <= 2; v++) {
			struct host h;
			struct sample s;
			make_sample(&h, algos[a], v, &s);
			check_reads(&h, &s, 0, NULL);
			check_reads(&h, &s, FX_BYTEWISE, NULL);
			check_reads(&h, &s, 5, &narrow);
			host_release(&h);
		}
}

static void test_every_split(void)
{
	struct host h;
	struct sample s;

	make_sample(&h, fx_sha1(), 2, &s);
	/* every response cut at every offset up to the largest (2 KiB
	 * windows, info/refs, the idx head) */
	for (size_t split = 1; split <= 2100; split += (split < 200 ? 1 : 37)) {
		struct wg_buf out = WG_BUF_INIT;
		CHECK_OK(read_file(&h, "v1", "docs/sub/file.txt", split, NULL, &out));
		CHECK(out.len == strlen(v2_text) && !memcmp(out.data, v2_text, out.len));
		wg_buf_release(&out);
	}
	host_release(&h);
}

static void test_transfer_is_small(void)
{
	struct host h;
	struct sample s;
	struct wg_remote_op *op = NULL;
	struct wg_static_read_stats st;

	make_sample(&h, fx_sha1(), 2, &s);
	CHECK_OK(wg_static_read_new(&op, BASE, "main", "docs/sub/file.txt", NULL));
	CHECK_OK(host_run(&h, op, 0));
	wg_static_read_stats(op, &st);
	CHECK(st.requests == h.requests);
	CHECK(st.bytes == h.bytes);
	CHECK(st.objects == 5);   /* commit, root, docs, sub and the blob */
	CHECK(st.deltas == 1);
	wg_remote_op_free(op);
	host_release(&h);
}

static int read_err(struct host *h, const char *ref, const char *path, const char *want_msg)
{
	int err = read_file(h, ref, path, 0, NULL, NULL);
	if (want_msg && !strstr(wg_error_message(), want_msg)) {
		CHECK(!"message");
		fprintf(stderr, "  message: %s\n  wanted: %s\n", wg_error_message(), want_msg);
	}
	return err;
}

static void test_paths_and_refs_that_fail(void)
{
	struct host h;
	struct sample s;

	make_sample(&h, fx_sha256(), 2, &s);
	CHECK_ERR(read_err(&h, "main", "docs/nope", "path 'docs/nope' does not exist in 'main'"),
		  WG_ENOTFOUND);
	CHECK_ERR(read_err(&h, "main", "docs/sub", "is a directory"), WG_ENOTFOUND);
	CHECK_ERR(read_err(&h, "main", "README/x", "does not exist"), WG_ENOTFOUND);
	CHECK_ERR(read_err(&h, "main", "mod", "is a submodule"), WG_ENOTFOUND);
	CHECK_ERR(read_err(&h, "main", "mod/x", "is a submodule"), WG_ENOTFOUND);
	CHECK_ERR(read_err(&h, "nope", "README", "ref 'nope' not found"), WG_ENOTFOUND);
	CHECK_ERR(read_err(&h, fx_hexid(fx_sha1(), 'a'), "README", "is a sha1 id"), WG_EINVALID);
	/* an id not on the host: neither in the pack nor loose */
	CHECK_ERR(read_err(&h, fx_hexid(fx_sha256(), 'a'), "README", "is not on"), WG_ENOTFOUND);
	host_put(&h, "HEAD", "ref: refs/heads/unborn\n", 23);
	CHECK_ERR(read_err(&h, NULL, "README", "HEAD of " BASE " points to refs/heads/unborn"),
		  WG_ENOTFOUND);
	host_put(&h, "HEAD", s.commit_hex, strlen(s.commit_hex));
	CHECK_OK(read_err(&h, NULL, "README", NULL));
	host_release(&h);
}

static void test_host_behaviour(void)
{
	struct host h;
	struct sample s;
	struct wg_remote_op *op = NULL;

	make_sample(&h, fx_sha1(), 2, &s);
	h.ignore_range = true;
	CHECK_ERR(read_err(&h, "main", "README", "does not serve byte ranges"), WG_EUNSUPPORTED);
	/* it stopped at the first ranged answer, before the body */
	CHECK(h.bytes < 600);
	h.ignore_range = false;
	h.smart = true;
	CHECK_OK(wg_static_read_new(&op, BASE, "main", "README", NULL));
	CHECK_ERR(host_run(&h, op, 0), WG_EUNSUPPORTED);
	CHECK(wg_static_read_smart(op));
	CHECK(strstr(wg_error_message(), "smart Git HTTP server") != NULL);
	wg_remote_op_free(op);
	h.smart = false;
	/* no objects/info/packs: every object must be loose (here only one
	 * is), so the commit is not found */
	host_put(&h, "objects/info/packs", "", 0);
	CHECK_ERR(read_err(&h, "main", "README", "is not on"), WG_ENOTFOUND);
	host_release(&h);
	memset(&h, 0, sizeof(h));
	CHECK_ERR(read_err(&h, "main", "README", "repository '" BASE "' not found"),
		  WG_ENOTFOUND);
	CHECK_ERR(wg_static_read_new(&op, "ftp://x/y", "main", "a", NULL), WG_EUNSUPPORTED);
	CHECK_ERR(wg_static_read_new(&op, BASE, "main", "/", NULL), WG_EINVALID);
}

static void test_loose_objects_only(void)
{
	struct host h;
	struct wg_oid blob, tree, commit;
	struct wg_buf t = WG_BUF_INIT, c = WG_BUF_INIT, refs = WG_BUF_INIT, out = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];

	memset(&h, 0, sizeof(h));
	put_loose(&h, fx_sha1(), WG_OBJ_BLOB, "loose\n", 6, &blob);
	tree_add(&t, "100755", "run.sh", &blob);
	put_loose(&h, fx_sha1(), WG_OBJ_TREE, t.data, t.len, &tree);
	wg_buf_printf(&c, "tree %s\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nm\n",
		      wg_oid_to_hex(&tree, hex));
	put_loose(&h, fx_sha1(), WG_OBJ_COMMIT, c.data, c.len, &commit);
	wg_buf_printf(&refs, "%s\trefs/heads/main\n", wg_oid_to_hex(&commit, hex));
	host_put(&h, "info/refs", refs.data, refs.len);
	/* objects/info/packs is missing (404): fine */
	for (size_t split = 0; split < 40; split++) {
		CHECK_OK(read_file(&h, "refs/heads/main", "run.sh", split, NULL, &out));
		CHECK(out.len == 6 && !memcmp(out.data, "loose\n", 6));
	}
	/* a loose object whose content is not its name */
	{
		struct wg_buf *f;
		char path[200];
		snprintf(path, sizeof(path), "objects/%.2s/%s", wg_oid_to_hex(&blob, hex), hex + 2);
		f = host_file(&h, path);
		wg_buf_reset(f);
		{
			struct wg_buf raw = WG_BUF_INIT;
			wg_buf_add(&raw, "blob 6\0LOOSE\n", 13);
			deflate_into(f, raw.data, raw.len);
			wg_buf_release(&raw);
		}
		CHECK_ERR(read_err(&h, "main", "run.sh", "hashes to"), WG_ECORRUPT);
		wg_buf_reset(f);
		deflate_into(f, "blob 9\0LOOSE\n", 13);
		CHECK_ERR(read_err(&h, "main", "run.sh", "bad header"), WG_ECORRUPT);
		wg_buf_reset(f);
		deflate_into(f, "blob 6\0LOOSE\n", 13);
		wg_buf_setlen(f, f->len - 3);
		CHECK_ERR(read_err(&h, "main", "run.sh", "truncated"), WG_ECORRUPT);
	}
	wg_buf_release(&t);
	wg_buf_release(&c);
	wg_buf_release(&refs);
	wg_buf_release(&out);
	host_release(&h);
}

/* The pack and idx of the sample, to break. */
static struct wg_buf *sample_file(struct host *h, const char *ext)
{
	for (size_t i = 0; i < h->n; i++) {
		size_t n = strlen(h->files[i].path);
		if (!strncmp(h->files[i].path, "objects/pack/", 13) &&
		    !strcmp(h->files[i].path + n - strlen(ext), ext))
			return &h->files[i].data;
	}
	return NULL;
}

static void test_corrupt_index_and_pack(void)
{
	struct host h;
	struct sample s;
	struct wg_buf *idx, *pack, saved = WG_BUF_INIT;
	struct wg_idx_head head;
	uint32_t count;

	make_sample(&h, fx_sha1(), 2, &s);
	idx = sample_file(&h, ".idx");
	pack = sample_file(&h, ".pack");
	CHECK_OK(wg_idx_head_parse(&head, idx->data, idx->len, fx_sha1(), "x"));
	count = head.count;
	wg_buf_add(&saved, idx->data, idx->len);

	/* a fanout that decreases */
	wg_put_be32(idx->data + 8 + 4 * 200, count + 5);
	CHECK_ERR(read_err(&h, "main", "README", "fanout decreases"), WG_ECORRUPT);
	/* a version we do not know */
	memcpy(idx->data, saved.data, saved.len);
	wg_put_be32(idx->data + 4, 3);
	CHECK_ERR(read_err(&h, "main", "README", "version 3"), WG_EUNSUPPORTED);
	/* an index cut short: the bucket's ids are missing */
	memcpy(idx->data, saved.data, saved.len);
	wg_buf_setlen(idx, WG_IDX_HEAD_SIZE + 4);
	CHECK_ERR(read_err(&h, "main", "README", "truncated"), WG_ECORRUPT);
	wg_buf_setlen(idx, 100);
	CHECK_ERR(read_err(&h, "main", "README", "truncated"), WG_ECORRUPT);
	/* every offset pointing at the first entry: objects hash wrong */
	wg_buf_reset(idx);
	wg_buf_add(idx, saved.data, saved.len);
	for (uint32_t i = 0; i < count; i++)
		wg_put_be32(idx->data + wg_idx_offset32_at(&head, i), 12);
	CHECK_ERR(read_err(&h, "main", "README", "hashes to"), WG_ECORRUPT);
	/* offsets into the pack's header, past its end, to a bad 8-byte entry */
	for (uint32_t i = 0; i < count; i++)
		wg_put_be32(idx->data + wg_idx_offset32_at(&head, i), 3);
	CHECK_ERR(read_err(&h, "main", "README", "inside the pack's header"), WG_ECORRUPT);
	for (uint32_t i = 0; i < count; i++)
		wg_put_be32(idx->data + wg_idx_offset32_at(&head, i), (uint32_t)pack->len + 10);
	CHECK_ERR(read_err(&h, "main", "README", "HTTP 416"), WG_ECORRUPT);
	for (uint32_t i = 0; i < count; i++)
		wg_put_be32(idx->data + wg_idx_offset32_at(&head, i), 0x80000000u | 9999);
	CHECK_ERR(read_err(&h, "main", "README", "8-byte offset entry"), WG_ECORRUPT);
	/* the 8-byte table points past the file: the read comes back short */
	for (uint32_t i = 0; i < count; i++)
		wg_put_be32(idx->data + wg_idx_offset32_at(&head, i), 0x80000000u);
	CHECK_ERR(read_err(&h, "main", "README", "truncated"), WG_ECORRUPT);
	memcpy(idx->data, saved.data, saved.len);

	/* the pack: cut inside the last entries, zlib data flipped */
	{
		struct wg_buf psaved = WG_BUF_INIT;
		wg_buf_add(&psaved, pack->data, pack->len);
		wg_buf_setlen(pack, pack->len - 40);
		CHECK_ERR(read_err(&h, "v2", "README", "truncated"), WG_ECORRUPT);
		for (size_t at = 12; at < psaved.len - 20; at += 7) {
			int err;
			memcpy(pack->data, psaved.data, psaved.len);
			wg_buf_setlen(pack, psaved.len);
			pack->data[at] ^= 0x5a;
			err = read_file(&h, "v2", "docs/other.txt", 0, NULL, NULL);
			/* a byte of an entry the read does not touch changes
			 * nothing; any other is a clean error */
			CHECK(err == 0 || err == WG_ECORRUPT || err == WG_ENOTFOUND ||
			      err == WG_ELIMIT);
		}
		memcpy(pack->data, psaved.data, psaved.len);
		wg_buf_release(&psaved);
	}
	wg_buf_release(&saved);
	host_release(&h);
}

static void test_delta_cycle_and_bad_bases(void)
{
	const struct wg_hash_algo *algo = fx_sha1();
	struct host h;
	struct repo r;
	struct wg_oid a, b, tree, commit;
	struct wg_buf t = WG_BUF_INIT, c = WG_BUF_INIT, refs = WG_BUF_INIT, d = WG_BUF_INIT;
	struct wg_static_read_options o = WG_STATIC_READ_OPTIONS_INIT;
	char hex[WG_MAX_HEXSZ + 1];

	/* a REF_DELTA whose base is a REF_DELTA on the first: a cycle */
	memset(&h, 0, sizeof(h));
	repo_init(&r, algo);
	a = oid_of(algo, WG_OBJ_BLOB, "aaaa\n", 5);
	b = oid_of(algo, WG_OBJ_BLOB, "bbbb\n", 5);
	make_delta(&d, "bbbb\n", "aaaa\n");
	repo_entry(&r, WG_OBJ_REF_DELTA, &a, d.data, d.len, 0, &b);
	make_delta(&d, "aaaa\n", "bbbb\n");
	repo_entry(&r, WG_OBJ_REF_DELTA, &b, d.data, d.len, 0, &a);
	tree_add(&t, "100644", "f", &a);
	repo_whole(&r, WG_OBJ_TREE, t.data, t.len, &tree);
	wg_buf_printf(&c, "tree %s\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nm\n",
		      wg_oid_to_hex(&tree, hex));
	repo_whole(&r, WG_OBJ_COMMIT, c.data, c.len, &commit);
	/* an OFS_DELTA that names itself as its base */
	{
		struct wg_oid self = oid_of(algo, WG_OBJ_BLOB, "self", 4);
		uint64_t off = r.pack.len;
		make_delta(&d, "x", "self");
		repo_entry(&r, WG_OBJ_OFS_DELTA, &self, d.data, d.len, off, NULL);
		wg_buf_reset(&t);
		tree_add(&t, "100644", "f", &self);
		repo_whole(&r, WG_OBJ_TREE, t.data, t.len, &tree);
		wg_buf_reset(&c);
		wg_buf_printf(&c, "tree %s\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n"
			      "\nm\n", wg_oid_to_hex(&tree, hex));
		wg_buf_printf(&refs, "%s\trefs/heads/self\n", wg_oid_to_hex(&commit, hex));
		repo_whole(&r, WG_OBJ_COMMIT, c.data, c.len, &commit);
	}
	repo_publish(&r, &h, 2);
	wg_buf_printf(&refs, "%s\trefs/heads/z\n", wg_oid_to_hex(&commit, hex));
	/* (the first commit is "self" by name only: it holds the cycle) */
	host_put(&h, "info/refs", refs.data, refs.len);
	o.max_chain = 20;
	CHECK_ERR(read_file(&h, "self", "f", 0, &o, NULL), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "longer than 20") != NULL);
	CHECK_ERR(read_err(&h, "z", "f", "is not before it"), WG_ECORRUPT);
	wg_buf_release(&t);
	wg_buf_release(&c);
	wg_buf_release(&refs);
	wg_buf_release(&d);
	host_release(&h);
}

/* Two packs: the newer (listed second here, so searched after the first)
 * holds a commit whose file is a REF_DELTA on a blob of the older; both
 * idx heads are read, the lookups go from one pack to the other. */
static void test_two_packs(void)
{
	const struct wg_hash_algo *algo = fx_sha256();
	struct host h;
	struct sample s;
	struct repo r;
	struct wg_oid blob, tree, commit;
	struct wg_buf t = WG_BUF_INIT, c = WG_BUF_INIT, out = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];
	static const char text[] = "hello from a static host, again\n";
	const struct wg_buf *packs;

	make_sample(&h, algo, 2, &s);
	repo_init(&r, algo);
	repo_ref_blob(&r, &s.readme, readme, text, &blob);
	tree_add(&t, "100644", "again.txt", &blob);
	tree_add(&t, "100644", "old.txt", &s.readme);
	repo_whole(&r, WG_OBJ_TREE, t.data, t.len, &tree);
	wg_buf_printf(&c, "tree %s\nauthor A <a@b> 2 +0000\ncommitter A <a@b> 2 +0000\n\nm\n",
		      wg_oid_to_hex(&tree, hex));
	repo_whole(&r, WG_OBJ_COMMIT, c.data, c.len, &commit);
	repo_publish(&r, &h, 1);
	packs = host_file(&h, "objects/info/packs");
	CHECK(packs->len == 2 * (2 + 5 + algo->hexsz + 5 + 1));
	for (size_t split = 0; split < 30; split += 3) {
		CHECK_OK(read_file(&h, wg_oid_to_hex(&commit, hex), "again.txt", split, NULL, &out));
		CHECK(out.len == strlen(text) && !memcmp(out.data, text, out.len));
		CHECK_OK(read_file(&h, hex, "old.txt", split, NULL, &out));
		CHECK(out.len == strlen(readme) && !memcmp(out.data, readme, out.len));
	}
	wg_buf_release(&t);
	wg_buf_release(&c);
	wg_buf_release(&out);
	host_release(&h);
}

static void test_allocation_failures(void)
{
	struct host h;
	struct sample s;
	int ok = 0;

	make_sample(&h, fx_sha1(), 2, &s);
	for (int fail = 0; fail < 400 && !ok; fail++) {
		struct wg_buf out = WG_BUF_INIT;
		int err;
		fx_fail_at = fail;
		fx_alloc_count = 0;
		wg_allocator_set(&fx_failing_allocator);
		err = read_file(&h, "main", "docs/other.txt", 3, NULL, &out);
		wg_allocator_set(NULL);
		CHECK(err == 0 || err == WG_ENOMEM);
		if (!err) {
			ok = 1;
			CHECK(out.len == strlen(other_text));
		}
		wg_buf_release(&out);
	}
	CHECK(ok);
	host_release(&h);
}

/* --- the parsers ------------------------------------------------------------------------- */

static void test_dumb_refs(void)
{
	struct wg_dumb_refs refs = WG_DUMB_REFS_INIT;
	struct wg_buf b = WG_BUF_INIT;
	const struct wg_dumb_ref *r;
	struct wg_oid oid;
	char *sym;

	wg_buf_printf(&b, "%s\trefs/heads/main\r\n%s\trefs/tags/main\n%s\trefs/tags/t\n"
		      "%s\trefs/tags/t^{}\n%s\trefs/remotes/origin/HEAD\n",
		      fx_hexid(fx_sha256(), '1'), fx_hexid(fx_sha256(), '2'),
		      fx_hexid(fx_sha256(), '3'), fx_hexid(fx_sha256(), '4'),
		      fx_hexid(fx_sha256(), '5'));
	CHECK_OK(wg_dumb_refs_parse(&refs, (const char *)b.data, b.len, NULL));
	CHECK(refs.algo == fx_sha256());
	CHECK(refs.nr == 4);
	/* git's order: a tag wins over a branch of the same name */
	CHECK((r = wg_dumb_refs_dwim(&refs, "main")) && !strcmp(r->name, "refs/tags/main"));
	CHECK((r = wg_dumb_refs_dwim(&refs, "heads/main")) && !strcmp(r->name, "refs/heads/main"));
	CHECK((r = wg_dumb_refs_dwim(&refs, "origin")) && r->name[5] == 'r');
	CHECK((r = wg_dumb_refs_find(&refs, "refs/tags/t")) && r->has_peeled &&
	      r->peeled.hash[0] == 0x44);
	CHECK(!wg_dumb_refs_dwim(&refs, "nope"));
	wg_dumb_refs_release(&refs);

	{
		static const char *const bad[] = {
			"0123\trefs/heads/x\n",                       /* short id */
			"nothex\n",                                   /* no tab */
			"%s\trefs/heads/a\n%s\trefs/heads/b\n",      /* two formats */
			"%s\trefs/tags/t^{}\n",                       /* peeled first */
			"%s\trefs/heads/a..b\n",                      /* bad name */
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			wg_buf_reset(&b);
			wg_buf_printf(&b, bad[i], fx_hexid(fx_sha1(), 'a'),
				      fx_hexid(fx_sha256(), 'b'));
			CHECK_ERR(wg_dumb_refs_parse(&refs, (const char *)b.data, b.len, NULL),
				  WG_ECORRUPT);
			wg_dumb_refs_release(&refs);
		}
	}
	CHECK_OK(wg_dumb_head_parse(&sym, &oid, NULL, "ref: refs/heads/x\n", 18));
	CHECK(sym && !strcmp(sym, "refs/heads/x"));
	wg_free(sym);
	CHECK_OK(wg_dumb_head_parse(&sym, &oid, NULL, fx_hexid(fx_sha1(), 'c'), 40));
	CHECK(!sym && wg_oid_algo(&oid) == fx_sha1());
	CHECK_ERR(wg_dumb_head_parse(&sym, &oid, fx_sha256(), fx_hexid(fx_sha1(), 'c'), 40),
		  WG_ECORRUPT);
	CHECK_ERR(wg_dumb_head_parse(&sym, &oid, NULL, "ref: ../x\n", 10), WG_ECORRUPT);
	wg_buf_release(&b);
}

static void test_dumb_packs(void)
{
	struct wg_strlist l = { 0 };
	struct wg_buf b = WG_BUF_INIT;

	wg_buf_printf(&b, "P pack-%s.pack\nD old\nP pack-%s.pack\n\n", fx_hexid(fx_sha1(), 'a'),
		      fx_hexid(fx_sha1(), 'b'));
	CHECK_OK(wg_dumb_packs_parse(&l, (const char *)b.data, b.len, fx_sha1()));
	CHECK(l.n == 2 && !strncmp(l.v[1], "pack-bbbb", 9) && strlen(l.v[1]) == 45);
	wg_strlist_release(&l);
	CHECK_ERR(wg_dumb_packs_parse(&l, "P ../../etc/passwd.pack\n", 24, fx_sha1()),
		  WG_ECORRUPT);
	wg_strlist_release(&l);
	/* a SHA-1 name in a SHA-256 repository */
	CHECK_ERR(wg_dumb_packs_parse(&l, (const char *)b.data, b.len, fx_sha256()), WG_ECORRUPT);
	wg_strlist_release(&l);
	wg_buf_release(&b);
}

WG_TEST_MAIN("static_read",
	     WG_TEST(test_reads_both_formats_and_idx_versions),
	     WG_TEST(test_every_split),
	     WG_TEST(test_transfer_is_small),
	     WG_TEST(test_paths_and_refs_that_fail),
	     WG_TEST(test_host_behaviour),
	     WG_TEST(test_loose_objects_only),
	     WG_TEST(test_corrupt_index_and_pack),
	     WG_TEST(test_delta_cycle_and_bad_bases),
	     WG_TEST(test_two_packs),
	     WG_TEST(test_allocation_failures),
	     WG_TEST(test_dumb_refs),
	     WG_TEST(test_dumb_packs))
