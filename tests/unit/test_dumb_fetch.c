/* Unit tests for clone from a static host (core/remote/dumb_fetch.h and the
 * dumb half of ref discovery): a host in memory serving info/refs, HEAD and
 * loose objects, every response fed whole, in pieces and byte by byte.
 * What git itself does with such hosts is checked by
 * tests/interop/t42-dumb-http.sh (packs, fetch, tags); here: the requests,
 * a bad hash, a missing object, alternates and --depth refused. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "fixtures.h"
#include "hash/hash.h"
#include "object/object.h"
#include "odb/odb.h"
#include "refs/refdb.h"
#include "remote/clone.h"
#include "repo/repo.h"
#include "test.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"

#define BASE "http://host/repo.git"

struct file {
	char path[128];
	struct wg_buf data;
};

struct host {
	struct file files[16];
	size_t n;
	unsigned requests;
};

static void host_put(struct host *h, const char *path, const void *data, size_t len)
{
	struct file *f = NULL;
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->files[i].path, path))
			f = &h->files[i];
	if (!f) {
		f = &h->files[h->n++];
		snprintf(f->path, sizeof(f->path), "%s", path);
	}
	wg_buf_reset(&f->data);
	wg_buf_add(&f->data, data, len);
}

static struct wg_buf *host_get(struct host *h, const char *path)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->files[i].path, path))
			return &h->files[i].data;
	return NULL;
}

static void host_release(struct host *h)
{
	for (size_t i = 0; i < h->n; i++)
		wg_buf_release(&h->files[i].data);
	memset(h, 0, sizeof(*h));
}

/* A static host: the file, whatever the query; 404 otherwise. */
static int host_run(struct host *h, struct wg_remote_op *op, size_t split)
{
	const struct wg_http_request *req;
	int err;

	while (!(err = wg_remote_op_next_request(op, &req))) {
		static const char nf[] = "<h1>not found</h1>";
		char path[256];
		char *q;
		struct wg_buf *f;
		struct fx_chunker c;
		unsigned char *chunk;
		const unsigned char *body = (const unsigned char *)nf;
		size_t len = sizeof(nf) - 1, n;

		CHECK(!strncmp(req->url, BASE "/", strlen(BASE) + 1));
		CHECK_STR(req->method, "GET");
		snprintf(path, sizeof(path), "%s", req->url + strlen(BASE) + 1);
		if ((q = strchr(path, '?')))
			*q = '\0';
		h->requests++;
		if ((f = host_get(h, path))) {
			body = f->data;
			len = f->len;
		}
		if ((err = wg_remote_op_response_begin(op, f ? 200 : 404, f ?
						       "application/octet-stream" : "text/html")))
			break;
		fx_chunker_init(&c, body, len, split != FX_BYTEWISE && split > len ? len : split);
		while ((chunk = fx_chunker_next(&c, &n))) {
			err = len ? wg_remote_op_feed(op, chunk, n) : 0;
			free(chunk);
			if (err)
				break;
		}
		if (err || (err = wg_remote_op_response_end(op)))
			break;
	}
	return err == WG_ITEROVER ? 0 : err;
}

/* --- a repository of loose objects ------------------------------------------------------ */

struct objs {
	const struct wg_hash_algo *algo;
	struct wg_oid blob, tree, commit, tag;
};

static void put_loose(struct host *h, const struct wg_hash_algo *algo, enum wg_object_type type,
		      const void *data, size_t len, struct wg_oid *oid)
{
	struct wg_buf raw = WG_BUF_INIT, z = WG_BUF_INIT;
	char hdr[64], hex[WG_MAX_HEXSZ + 1], path[128];
	size_t hlen = wg_object_header(hdr, type, len);
	uLongf zn;

	CHECK_OK(wg_object_hash(oid, algo, type, data, len));
	wg_buf_add(&raw, hdr, hlen);
	wg_buf_add(&raw, data, len);
	zn = compressBound((uLong)raw.len);
	wg_buf_grow(&z, zn);
	CHECK(compress2(z.data, &zn, raw.data, (uLong)raw.len, 6) == Z_OK);
	wg_buf_setlen(&z, zn);
	wg_oid_to_hex(oid, hex);
	snprintf(path, sizeof(path), "objects/%.2s/%s", hex, hex + 2);
	host_put(h, path, z.data, z.len);
	wg_buf_release(&raw);
	wg_buf_release(&z);
}

static void make_host(struct host *h, struct objs *o, const struct wg_hash_algo *algo)
{
	struct wg_buf b = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];

	memset(h, 0, sizeof(*h));
	o->algo = algo;
	put_loose(h, algo, WG_OBJ_BLOB, "hello\n", 6, &o->blob);
	wg_buf_adds(&b, "100644 a.txt");
	wg_buf_addch(&b, 0);
	wg_buf_add(&b, o->blob.hash, algo->rawsz);
	put_loose(h, algo, WG_OBJ_TREE, b.data, b.len, &o->tree);
	wg_buf_reset(&b);
	wg_buf_printf(&b, "tree %s\nauthor A <a@x> 1700000000 +0000\n"
		      "committer A <a@x> 1700000000 +0000\n\nfirst\n", wg_oid_to_hex(&o->tree, hex));
	put_loose(h, algo, WG_OBJ_COMMIT, b.data, b.len, &o->commit);
	wg_buf_reset(&b);
	wg_buf_printf(&b, "object %s\ntype commit\ntag v1\ntagger A <a@x> 1700000000 +0000\n\n"
		      "v1\n", wg_oid_to_hex(&o->commit, hex));
	put_loose(h, algo, WG_OBJ_TAG, b.data, b.len, &o->tag);
	wg_buf_reset(&b);
	wg_buf_printf(&b, "%s\trefs/heads/main\n", wg_oid_to_hex(&o->commit, hex));
	wg_buf_printf(&b, "%s\trefs/tags/v1\n", wg_oid_to_hex(&o->tag, hex));
	wg_buf_printf(&b, "%s\trefs/tags/v1^{}\n", wg_oid_to_hex(&o->commit, hex));
	host_put(h, "info/refs", b.data, b.len);
	host_put(h, "HEAD", "ref: refs/heads/main\n", 21);
	wg_buf_release(&b);
}

static int clone_from(struct host *h, const char *path, size_t split,
		      const struct wg_clone_options *opts)
{
	struct wg_remote_op *op = NULL;
	int err = wg_clone_new(&op, BASE, path, opts);
	if (!err)
		err = host_run(h, op, split);
	wg_remote_op_free(op);
	return err;
}

/* --- tests ------------------------------------------------------------------------------ */

static void test_clone_loose(void)
{
	static const size_t splits[] = { FX_BYTEWISE, 3, 1 << 20 };
	static const char *const formats[] = { "sha1", "sha256" };

	for (size_t f = 0; f < 2; f++)
		for (size_t s = 0; s < sizeof(splits) / sizeof(*splits); s++) {
			struct wg_clone_options co = WG_CLONE_OPTIONS_INIT;
			struct host h;
			struct objs o;
			struct wg_repo *repo;
			struct wg_ref ref;
			char dir[512];

			make_host(&h, &o, wg_hash_algo_by_name(formats[f]));
			snprintf(dir, sizeof(dir), "%s/c", wg_test_tmpdir("dumb_clone"));
			co.bare = true;
			CHECK_OK(clone_from(&h, dir, splits[s], &co));
			/* info/refs, HEAD, then one GET per object: nothing else */
			CHECK(h.requests == 2 + 4);
			CHECK_OK(wg_repo_open(&repo, dir));
			CHECK(wg_repo_algo(repo) == o.algo);
			CHECK(wg_odb_exists(wg_repo_odb(repo), &o.blob) == 1);
			CHECK(wg_odb_exists(wg_repo_odb(repo), &o.tree) == 1);
			CHECK(wg_odb_exists(wg_repo_odb(repo), &o.tag) == 1);
			CHECK_OK(wg_refdb_read(&ref, wg_repo_refdb(repo), "refs/heads/main"));
			CHECK(wg_oid_equal(&ref.oid, &o.commit));
			wg_ref_release(&ref);
			CHECK_OK(wg_refdb_read(&ref, wg_repo_refdb(repo), "refs/tags/v1"));
			CHECK(wg_oid_equal(&ref.oid, &o.tag));
			wg_ref_release(&ref);
			wg_repo_free(repo);
			host_release(&h);
		}
}

/* A loose file whose content is another object: refused, nothing left. */
static void test_bad_hash(void)
{
	struct host h;
	struct objs o;
	char dir[512], hex[WG_MAX_HEXSZ + 1], path[128];
	struct wg_buf blob = WG_BUF_INIT;

	make_host(&h, &o, wg_hash_algo_by_name("sha1"));
	wg_oid_to_hex(&o.blob, hex);
	snprintf(path, sizeof(path), "objects/%.2s/%s", hex, hex + 2);
	wg_buf_add(&blob, host_get(&h, path)->data, host_get(&h, path)->len);
	wg_oid_to_hex(&o.tree, hex);
	snprintf(path, sizeof(path), "objects/%.2s/%s", hex, hex + 2);
	host_put(&h, path, blob.data, blob.len);
	snprintf(dir, sizeof(dir), "%s/c", wg_test_tmpdir("dumb_badhash"));
	CHECK_ERR(clone_from(&h, dir, 7, NULL), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "has bad hash") != NULL);
	CHECK(!wg_fs_exists(dir));
	wg_buf_release(&blob);
	host_release(&h);
}

/* info/refs names what the host does not have; with alternates listed,
 * the walk says they are not followed. */
static void test_missing_object(void)
{
	struct host h;
	struct objs o;
	char dir[512];
	struct wg_buf *refs;

	make_host(&h, &o, wg_hash_algo_by_name("sha1"));
	refs = host_get(&h, "info/refs");
	wg_buf_adds(refs, "0123456789abcdef0123456789abcdef01234567\trefs/heads/ghost\n");
	snprintf(dir, sizeof(dir), "%s/c", wg_test_tmpdir("dumb_missing"));
	CHECK_ERR(clone_from(&h, dir, 1 << 20, NULL), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "Unable to find 0123456789abcdef") != NULL);
	CHECK(!wg_fs_exists(dir));

	host_put(&h, "objects/info/http-alternates", "http://elsewhere/objects\n", 25);
	CHECK_ERR(clone_from(&h, dir, 1 << 20, NULL), WG_EUNSUPPORTED);
	CHECK(strstr(wg_error_message(), "does not follow") != NULL);
	CHECK(!wg_fs_exists(dir));
	host_release(&h);
}

/* git: "dumb http transport does not support shallow capabilities",
 * before anything is written; likewise a HEAD that does not parse is
 * not a ref (the clone still succeeds, as git's). */
static void test_shallow_refused(void)
{
	struct wg_clone_options co = WG_CLONE_OPTIONS_INIT;
	struct host h;
	struct objs o;
	char dir[512];

	make_host(&h, &o, wg_hash_algo_by_name("sha1"));
	snprintf(dir, sizeof(dir), "%s/c", wg_test_tmpdir("dumb_shallow"));
	co.depth = 1;
	CHECK_ERR(clone_from(&h, dir, 1 << 20, &co), WG_EUNSUPPORTED);
	CHECK_STR(wg_error_message(), "dumb http transport does not support shallow capabilities");
	CHECK(h.requests == 2);
	CHECK(!wg_fs_exists(dir));
	host_put(&h, "HEAD", "garbage\n", 8);
	co.depth = 0;
	co.bare = true;
	CHECK_OK(clone_from(&h, dir, 5, &co));
	host_release(&h);
}

WG_TEST_MAIN("dumb_fetch",
	     WG_TEST(test_clone_loose),
	     WG_TEST(test_bad_hash),
	     WG_TEST(test_missing_object),
	     WG_TEST(test_shallow_refused))
