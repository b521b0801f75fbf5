#include "odb/loose.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "odb/object_stream.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/hex.h"

/* "<type> <size>\0": the longest valid header is "commit " plus 20 digits;
 * inflating this much is enough to find the NUL of any header we accept. */
#define LOOSE_HEADER_MAX 64

struct loose_backend {
	struct wg_odb_backend base;
	const struct wg_hash_algo *algo;
	char *dir;
	struct wg_odb_loose_options opts;
	/* The fan-out directories a prefix search found absent, a bit each,
	 * not looked for again (git's loose object cache does the same): an
	 * abbreviation is searched for every id a diff prints, and a packed
	 * repository has few of them. A write here clears its directory's
	 * bit; another process's new directory is seen by the next odb. */
	unsigned char absent[256 / 8];
};

static int object_path(struct wg_buf *out, const struct loose_backend *lb, const struct wg_oid *oid)
{
	char hex[WG_MAX_HEXSZ + 1];
	wg_oid_to_hex(oid, hex);
	wg_buf_reset(out);
	return wg_buf_printf(out, "%s/%.2s/%s", lb->dir, hex, hex + 2);
}

int wg_loose_parse_header(const char *hdr, size_t hdrlen, enum wg_object_type *type_out,
			  size_t *size_out)
{
	const char *sp = memchr(hdr, ' ', hdrlen);
	size_t i, size = 0;
	if (!sp)
		return wg_error_set(WG_ECORRUPT, "header has no space after the type");
	*type_out = wg_object_type_from_name(hdr, (size_t)(sp - hdr));
	if (*type_out == WG_OBJ_BAD)
		return wg_error_set(WG_ECORRUPT, "unknown object type '%.*s'",
				    (int)(sp - hdr > 16 ? 16 : sp - hdr), hdr);
	i = (size_t)(sp - hdr) + 1;
	if (i == hdrlen)
		return wg_error_set(WG_ECORRUPT, "header has no size");
	for (; i < hdrlen; i++) {
		unsigned d = (unsigned)(hdr[i] - '0');
		if (d > 9)
			return wg_error_set(WG_ECORRUPT, "bad size '%.*s' in header",
					    (int)(hdrlen - (size_t)(sp + 1 - hdr)), sp + 1);
		if (size > (SIZE_MAX - d) / 10)
			return wg_error_set(WG_ECORRUPT, "object size in header overflows");
		size = size * 10 + d;
	}
	*size_out = size;
	return 0;
}

static const char *zmsg(z_stream *zs, int zret)
{
	if (zs->msg)
		return zs->msg;
	switch (zret) {
	case Z_MEM_ERROR: return "out of memory";
	case Z_BUF_ERROR: return "unexpected end of stream";
	default: return "invalid compressed data";
	}
}

/* Inflate the object header from the compressed bytes. On success zs is
 * positioned after what has been inflated into hdrbuf, *hdrlen is the header
 * length without its NUL and *have the bytes inflated into hdrbuf in all. */
static int inflate_header(z_stream *zs, unsigned char *hdrbuf, size_t *have, size_t *hdrlen,
			  int *zret_out)
{
	unsigned char *nul;
	int zret;
	zs->next_out = hdrbuf;
	zs->avail_out = LOOSE_HEADER_MAX;
	do {
		zret = inflate(zs, Z_NO_FLUSH);
		nul = memchr(hdrbuf, 0, LOOSE_HEADER_MAX - zs->avail_out);
	} while (!nul && zret == Z_OK && zs->avail_out && zs->avail_in);
	*zret_out = zret;
	*have = LOOSE_HEADER_MAX - zs->avail_out;
	if (zret != Z_OK && zret != Z_STREAM_END)
		return wg_error_set(WG_ECORRUPT, "zlib error in header: %s", zmsg(zs, zret));
	if (!nul) {
		if (*have == LOOSE_HEADER_MAX)
			return wg_error_set(WG_ECORRUPT, "header is too long or has no NUL");
		return wg_error_set(WG_ECORRUPT, "truncated object: header has no NUL");
	}
	*hdrlen = (size_t)(nul - hdrbuf);
	return 0;
}

static int corrupt(const struct loose_backend *lb, const struct wg_oid *oid, const char *path)
{
	return wg_error_prefix("loose object %s (stored in %s) is corrupt", wg_oid_hex(oid), path);
}

static int read_compressed(struct loose_backend *lb, const struct wg_oid *oid,
			   struct wg_buf *path, struct wg_buf *compressed)
{
	int err;
	if ((err = object_path(path, lb, oid)))
		return err;
	err = wg_fs_read_file(compressed, (const char *)path->data);
	if (err == WG_ENOTFOUND)
		return wg_error_set(WG_ENOTFOUND, "object %s not found", wg_oid_hex(oid));
	return err;
}

static int inflate_body(z_stream *zs, int zret, struct wg_buf *out, size_t size,
			const struct wg_limits *limits)
{
	/* Grow towards the declared size as data arrives, so a header that
	 * lies about a huge size costs nothing until the bytes exist. */
	while (out->len < size) {
		size_t want = out->cap > out->len + 1 ? out->cap - out->len - 1 : 0;
		int err;
		if (zret == Z_STREAM_END)
			return wg_error_set(WG_ECORRUPT,
					    "size mismatch: content is %zu bytes, header says %zu",
					    out->len, size);
		if (!want) {
			size_t step = out->len < 65536 ? 65536 : out->len;
			if (step > size - out->len)
				step = size - out->len;
			if ((err = wg_buf_grow(out, step)))
				return err;
			continue;
		}
		if (want > size - out->len)
			want = size - out->len;
		if (want > UINT32_MAX)
			want = UINT32_MAX;
		zs->next_out = out->data + out->len;
		zs->avail_out = (uInt)want;
		zret = inflate(zs, Z_NO_FLUSH);
		wg_buf_setlen(out, out->len + (want - zs->avail_out));
		if ((err = wg_limits_check_inflate(limits, out->len, zs->total_in, "loose object")))
			return err;
		if (zret == Z_BUF_ERROR || (zret == Z_OK && !zs->avail_in && zs->avail_out))
			return wg_error_set(WG_ECORRUPT, "truncated object: zlib stream ends after "
					    "%zu of %zu content bytes", out->len, size);
		if (zret != Z_OK && zret != Z_STREAM_END)
			return wg_error_set(WG_ECORRUPT, "zlib error: %s", zmsg(zs, zret));
	}
	if (zret != Z_STREAM_END) {
		/* All declared bytes are here; the stream must end now. */
		unsigned char extra;
		zs->next_out = &extra;
		zs->avail_out = 1;
		zret = inflate(zs, Z_FINISH);
		if (zs->avail_out == 0)
			return wg_error_set(WG_ECORRUPT, "size mismatch: content is longer than "
					    "the %zu bytes the header says", size);
		if (zret != Z_STREAM_END)
			return wg_error_set(WG_ECORRUPT, "truncated object: zlib stream does not end "
					    "(%s)", zmsg(zs, zret));
	}
	if (zs->avail_in)
		return wg_error_set(WG_ECORRUPT, "garbage after the end of the zlib stream");
	return 0;
}

int wg_loose_inflate(const void *data, size_t len, const struct wg_limits *limits,
		     enum wg_object_type *type_out, struct wg_buf *out)
{
	unsigned char hdr[LOOSE_HEADER_MAX];
	size_t have, hdrlen, size, body;
	enum wg_object_type type = WG_OBJ_BAD;
	z_stream zs;
	int err, zret;

	wg_buf_reset(out);
	if (len > UINT32_MAX)
		return wg_error_set(WG_EUNSUPPORTED, "loose object file over 4 GiB");
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return wg_error_set(WG_ENOMEM, "cannot initialise zlib");
	zs.next_in = (unsigned char *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	if (!(err = inflate_header(&zs, hdr, &have, &hdrlen, &zret)) &&
	    !(err = wg_loose_parse_header((const char *)hdr, hdrlen, &type, &size))) {
		body = have - hdrlen - 1;
		if ((err = wg_limits_check_object_size(limits, size, "loose object")))
			;
		else if (body > size)
			err = wg_error_set(WG_ECORRUPT, "size mismatch: content is longer than "
					   "the %zu bytes the header says", size);
		else if (!(err = wg_buf_add(out, hdr + hdrlen + 1, body)))
			err = inflate_body(&zs, zret, out, size, limits);
	}
	inflateEnd(&zs);
	if (err) {
		wg_buf_reset(out);
		return err;
	}
	*type_out = type;
	return 0;
}

static int loose_read(struct wg_odb_backend *backend, const struct wg_oid *oid,
		      enum wg_object_type *type_out, struct wg_buf *out)
{
	struct loose_backend *lb = (struct loose_backend *)backend;
	struct wg_buf path = WG_BUF_INIT, compressed = WG_BUF_INIT;
	enum wg_object_type type = WG_OBJ_BAD;
	struct wg_oid actual;
	int err;

	wg_buf_reset(out);
	if ((err = read_compressed(lb, oid, &path, &compressed)))
		goto done;
	if ((err = wg_loose_inflate(compressed.data, compressed.len, backend->limits, &type,
				    out))) {
		if (err != WG_ENOMEM && err != WG_EUNSUPPORTED && err != WG_ELIMIT)
			corrupt(lb, oid, (const char *)path.data);
		goto done;
	}
	if ((err = wg_object_hash(&actual, lb->algo, type, out->data ? out->data : (const void *)"",
				  out->len)))
		goto done;
	if (!wg_oid_equal(&actual, oid)) {
		err = wg_error_set(WG_ECORRUPT, "loose object %s (stored in %s) hashes to %s: "
				   "the file is corrupt or misnamed", wg_oid_hex(oid),
				   (const char *)path.data, wg_oid_hex(&actual));
		goto done;
	}
	*type_out = type;
done:
	if (err)
		wg_buf_reset(out);
	wg_buf_release(&path);
	wg_buf_release(&compressed);
	return err;
}

static int loose_read_header(struct wg_odb_backend *backend, const struct wg_oid *oid,
			     enum wg_object_type *type_out, size_t *size_out)
{
	struct loose_backend *lb = (struct loose_backend *)backend;
	struct wg_buf path = WG_BUF_INIT, compressed = WG_BUF_INIT;
	unsigned char hdr[LOOSE_HEADER_MAX];
	size_t have, hdrlen;
	z_stream zs;
	int err, zret;

	memset(&zs, 0, sizeof(zs));
	/* Loose files are small next to their content; reading the file whole
	 * keeps one code path. Only the header is inflated. */
	if ((err = read_compressed(lb, oid, &path, &compressed)))
		goto done;
	if (inflateInit(&zs) != Z_OK) {
		err = wg_error_set(WG_ENOMEM, "cannot initialise zlib");
		goto done;
	}
	zs.next_in = compressed.data;
	zs.avail_in = compressed.len > UINT32_MAX ? UINT32_MAX : (uInt)compressed.len;
	err = inflate_header(&zs, hdr, &have, &hdrlen, &zret);
	if (!err)
		err = wg_loose_parse_header((const char *)hdr, hdrlen, type_out, size_out);
	inflateEnd(&zs);
	if (err)
		corrupt(lb, oid, (const char *)path.data);
done:
	wg_buf_release(&path);
	wg_buf_release(&compressed);
	return err;
}

static int loose_exists(struct wg_odb_backend *backend, const struct wg_oid *oid)
{
	struct loose_backend *lb = (struct loose_backend *)backend;
	struct wg_buf path = WG_BUF_INIT;
	int r;
	if ((r = object_path(&path, lb, oid)))
		return r;
	r = wg_fs_exists((const char *)path.data) ? 1 : 0;
	wg_buf_release(&path);
	return r;
}

/* Deflate header and content into fd, in bounded chunks. */
static int deflate_to_fd(int fd, int level, const void *hdr, size_t hdrlen,
			 const void *data, size_t len, const char *tmp)
{
	unsigned char chunk[65536];
	z_stream zs;
	int zret, err = 0, pass;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, level) != Z_OK)
		return wg_error_set(WG_ENOMEM, "cannot initialise zlib");
	for (pass = 0; pass < 2 && !err; pass++) {
		const unsigned char *in = pass ? data : hdr;
		size_t left = pass ? len : hdrlen;
		int flush;
		do {
			uInt n = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
			zs.next_in = (unsigned char *)in;
			zs.avail_in = n;
			in += n;
			left -= n;
			flush = (pass && !left) ? Z_FINISH : Z_NO_FLUSH;
			do {
				zs.next_out = chunk;
				zs.avail_out = sizeof(chunk);
				zret = deflate(&zs, flush);
				if (zret == Z_STREAM_ERROR) {
					err = wg_error_set(WG_ERROR, "zlib deflate failed");
					break;
				}
				if (wg_fs_write_all(fd, chunk, sizeof(chunk) - zs.avail_out)) {
					err = wg_error_set(WG_EIO, "cannot write '%s': %s", tmp,
							   strerror(errno));
					break;
				}
			} while (!err && (zs.avail_out == 0 || (flush == Z_FINISH && zret != Z_STREAM_END)));
		} while (!err && left);
	}
	deflateEnd(&zs);
	return err;
}

static int loose_write(struct wg_odb_backend *backend, const struct wg_oid *oid,
		       enum wg_object_type type, const void *data, size_t len)
{
	struct loose_backend *lb = (struct loose_backend *)backend;
	struct wg_buf path = WG_BUF_INIT, tmp = WG_BUF_INIT;
	char hdr[32];
	size_t hdrlen = wg_object_header(hdr, type, len);
	int fd = -1, err;

	lb->absent[oid->hash[0] >> 3] &= (unsigned char)~(1u << (oid->hash[0] & 7));
	if ((err = object_path(&path, lb, oid)) ||
	    (err = wg_buf_add(&tmp, path.data, path.len - (lb->algo->hexsz - 2))) ||
	    (err = wg_fs_mkdir_p((const char *)tmp.data)) ||
	    (err = wg_buf_adds(&tmp, "tmp_obj_XXXXXX")))
		goto done;
	/* A temporary name, then link into place: readers never see a
	 * partial object, and an existing object is never overwritten. */
	fd = wg_fs_mkstemp((char *)tmp.data);
	if (fd < 0) {
		err = wg_error_set(WG_EIO, "cannot create temporary object file in '%.*s': %s",
				   (int)(tmp.len - 14), (const char *)tmp.data, strerror(errno));
		goto done;
	}
	if ((err = deflate_to_fd(fd, lb->opts.compression_level, hdr, hdrlen, data, len,
				 (const char *)tmp.data)))
		goto fail;
	if (lb->opts.fsync && wg_fs_fsync(fd)) {
		err = wg_error_set(WG_EIO, "cannot fsync '%s': %s", (const char *)tmp.data,
				   strerror(errno));
		goto fail;
	}
	if (wg_fs_close(fd)) {
		fd = -1;
		err = wg_error_set(WG_EIO, "cannot close '%s': %s", (const char *)tmp.data,
				   strerror(errno));
		goto fail;
	}
	fd = -1;
	(void)wg_fs_chmod((const char *)tmp.data, 0444);
	if (wg_fs_link((const char *)tmp.data, (const char *)path.data) == 0 || errno == EEXIST) {
		wg_fs_unlink((const char *)tmp.data);
	} else if (wg_fs_rename((const char *)tmp.data, (const char *)path.data)) {
		/* Filesystems without hard links (some in-browser ones) rename. */
		err = wg_error_set(WG_EIO, "cannot move object into place at '%s': %s",
				   (const char *)path.data, strerror(errno));
		goto fail;
	}
	goto done;
fail:
	if (fd >= 0)
		wg_fs_close(fd);
	wg_fs_unlink((const char *)tmp.data);
done:
	wg_buf_release(&path);
	wg_buf_release(&tmp);
	return err;
}

/* Every object of one fan-out directory; *absent set when there is no
 * such directory. */
static int scan_dir(struct loose_backend *lb, const char *subdir_name, wg_odb_foreach_cb cb,
		    void *payload, bool *absent)
{
	struct wg_buf dirpath = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];
	const char *name;
	void *dir;
	int err = 0;
	if ((err = wg_buf_printf(&dirpath, "%s/%s", lb->dir, subdir_name)))
		return err;
	dir = wg_fs_opendir((const char *)dirpath.data);
	wg_buf_release(&dirpath);
	*absent = !dir;
	if (!dir)
		return 0;  /* no objects with this prefix */
	while (!err && (name = wg_fs_readdir(dir))) {
		struct wg_oid oid;
		if (strlen(name) != lb->algo->hexsz - 2)
			continue;
		memcpy(hex, subdir_name, 2);
		memcpy(hex + 2, name, lb->algo->hexsz - 2);
		if (wg_oid_from_hex(&oid, lb->algo, hex)) {
			wg_error_clear();
			continue;  /* a stray file, as tmp_obj_* */
		}
		err = cb(&oid, payload);
	}
	wg_fs_closedir(dir);
	return err;
}

static int loose_foreach(struct wg_odb_backend *backend, const unsigned char *prefix,
			 size_t prefix_hexlen, wg_odb_foreach_cb cb, void *payload)
{
	struct loose_backend *lb = (struct loose_backend *)backend;
	char name[3];
	bool absent;
	int i, err;
	if (prefix && prefix_hexlen >= 2) {
		unsigned bit = 1u << (prefix[0] & 7);
		if (lb->absent[prefix[0] >> 3] & bit)
			return 0;
		wg_hex_encode(name, prefix, 1);
		if (!(err = scan_dir(lb, name, cb, payload, &absent)) && absent)
			lb->absent[prefix[0] >> 3] |= (unsigned char)bit;
		return err;
	}
	for (i = 0; i < 256; i++) {
		unsigned char b = (unsigned char)i;
		wg_hex_encode(name, &b, 1);
		if ((err = scan_dir(lb, name, cb, payload, &absent)))
			return err;
	}
	return 0;
}

struct loose_fill {
	int fd;
};

static int loose_fill(void *payload, unsigned char *buf, size_t cap, size_t *got)
{
	struct loose_fill *lf = payload;
	ssize_t n;
	*got = 0;
	do
		n = wg_fs_read(lf->fd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return wg_error_set(WG_EIO, "cannot read a loose object: %s", strerror(errno));
	*got = (size_t)n;
	return 0;
}

static void loose_fill_free(void *payload)
{
	struct loose_fill *lf = payload;
	wg_fs_close(lf->fd);
	wg_free(lf);
}

/* A loose object's file, inflated as it is read and hashed on the way:
 * the last read fails if the bytes are not the object's. */
static int loose_open_stream(struct wg_odb_backend *backend, const struct wg_oid *oid,
			     struct wg_object_stream **out)
{
	struct loose_backend *lb = (struct loose_backend *)backend;
	struct wg_zstream_source src = { loose_fill, loose_fill_free, NULL };
	struct wg_buf path = WG_BUF_INIT;
	struct loose_fill *lf;
	int err;
	if ((err = object_path(&path, lb, oid)))
		return err;
	if (!(lf = wg_calloc(1, sizeof(*lf)))) {
		wg_buf_release(&path);
		return wg_error_set(WG_ENOMEM, "out of memory opening an object stream");
	}
	if ((lf->fd = wg_fs_open((const char *)path.data, O_RDONLY, 0)) < 0) {
		err = errno == ENOENT ? wg_error_set(WG_ENOTFOUND, "object %s not found", wg_oid_hex(oid))
				      : wg_error_set(WG_EIO, "cannot open '%s': %s",
						     (const char *)path.data, strerror(errno));
		wg_free(lf);
		wg_buf_release(&path);
		return err;
	}
	src.payload = lf;
	err = wg_object_stream_inflate(out, &src, 1, WG_OBJ_BAD, 0, oid, lb->algo, backend->limits,
				       "loose object");
	if (err && err != WG_ENOMEM && err != WG_ELIMIT)
		corrupt(lb, oid, (const char *)path.data);
	wg_buf_release(&path);
	return err;
}

static void loose_free(struct wg_odb_backend *backend)
{
	struct loose_backend *lb = (struct loose_backend *)backend;
	if (!lb)
		return;
	wg_free(lb->dir);
	wg_free(lb);
}

int wg_odb_loose_new(struct wg_odb_backend **out, const char *objects_dir,
		     const struct wg_hash_algo *algo, const struct wg_odb_loose_options *opts)
{
	static const struct wg_odb_loose_options defaults = WG_ODB_LOOSE_OPTIONS_INIT;
	struct loose_backend *lb = wg_calloc(1, sizeof(*lb));
	if (!lb || !(lb->dir = wg_strdup(objects_dir))) {
		wg_free(lb);
		return wg_error_set(WG_ENOMEM, "out of memory creating the loose object backend");
	}
	lb->algo = algo;
	lb->opts = opts ? *opts : defaults;
	lb->base.version = WG_ODB_BACKEND_VERSION;
	lb->base.name = "loose";
	lb->base.read = loose_read;
	lb->base.read_header = loose_read_header;
	lb->base.exists = loose_exists;
	lb->base.write = loose_write;
	lb->base.foreach = loose_foreach;
	lb->base.free = loose_free;
	lb->base.open_stream = loose_open_stream;
	*out = &lb->base;
	return 0;
}
