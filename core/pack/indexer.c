#include "pack/indexer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "pack/delta_apply.h"
#include "pack/idx_write.h"
#include "pack/pack.h"
#include "pack/pack_format.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/hex.h"
#include "util/sort.h"
#include "util/thread.h"
#include "util/varint.h"

#define WBUF_SIZE ((size_t)256 << 10)
#define SCRATCH_SIZE ((size_t)64 << 10)

enum ix_state { ST_HEADER, ST_ENTRY, ST_DATA, ST_TRAILER, ST_DONE, ST_FINISHED, ST_FAILED };

/* Per-object metadata: all that is kept in memory for each object. */
struct ix_obj {
	uint64_t offset;       /* entry header */
	uint64_t size;         /* inflated size of the entry's data */
	uint64_t base_offset;  /* OFS_DELTA base entry */
	uint32_t crc;
	uint32_t base_no;      /* resolved deltas: the base object */
	uint32_t depth;
	uint16_t hdrlen;       /* entry header + base reference */
	uint8_t type;          /* as in the pack */
	uint8_t real_type;     /* 0 until known */
	unsigned char id[WG_MAX_RAWSZ];
};

struct ix_ofs {
	uint64_t base;
	uint32_t obj;
};

struct ix_ref {
	unsigned char base[WG_MAX_RAWSZ];
	uint32_t obj;
};

/* One level of the delta tree being resolved. */
struct ix_frame {
	uint32_t obj;
	unsigned char *data;   /* NULL when evicted (rebuilt on demand) */
	size_t len;
	size_t ofs_next, ofs_end, ref_next, ref_end;
};

/* A resolver of whole delta trees (pass 2): the calling thread's, and one
 * per extra thread of the pool. Each keeps its own stack of bases under
 * its own bound (opts.window), its own scratch and read windows, so
 * workers share only the object table (each object is written by the one
 * worker that resolves it) and what the pool lock guards. */
struct ix_worker {
	struct wg_indexer *ix;
	struct ix_frame *frames;
	size_t nframes, capframes;
	size_t cached;         /* bytes of frame data held */
	struct wg_buf delta;   /* an entry's delta data, inflated */
	/* Reads through windows while the file is complete and not yet
	 * appended to: far fewer read calls. NULL: straight from the file. */
	struct wg_pack_windows *windows;
	struct wg_thread thread;
	bool started;
	unsigned no;           /* its index: on_object's `worker` */
};

struct wg_indexer {
	struct wg_indexer_options opts;
	struct wg_limits limits;
	const struct wg_hash_algo *algo;
	enum ix_state state;
	int error;             /* sticky */
	struct wg_indexer_progress progress;

	/* Files. */
	char *tmp_pack, *final_pack, *final_idx, *final_rev, *final_keep;
	/* which of the final files this indexer put in place (not there before) */
	bool placed_pack, placed_idx, placed_rev, placed_keep;
	int fd;
	unsigned char *wbuf;
	size_t wlen;
	uint64_t file_pos;     /* bytes written or buffered */

	/* Pass 1. */
	struct wg_hash_ctx pack_ctx;   /* checksum of everything before the trailer */
	struct wg_hash_ctx obj_ctx;    /* id of the current non-delta object */
	z_stream zs;
	bool zs_ready;
	unsigned char hbuf[WG_PACK_OBJ_HEADER_MAX + WG_VARINT_MAX + WG_MAX_RAWSZ];
	size_t hlen, hdr0len;
	int phase;             /* in ST_ENTRY: 0 type/size, 1 ofs, 2 ref */
	uint32_t count;
	uint64_t produced;
	bool buffer_obj;       /* keep the current object whole (for fsck) */
	/* A delta's first bytes, until its declared result size is known. */
	unsigned char dhdr[2 * WG_VARINT_MAX];
	size_t dhdrlen;
	bool dchecked;
	struct wg_buf objbuf;
	unsigned char *scratch;
	struct ix_obj cur;

	struct ix_obj *objs;
	uint32_t nobjs, capobjs;
	struct ix_ref *refs;
	size_t nrefs, caprefs;
	size_t nofs;
	struct ix_ofs *ofs;    /* OFS_DELTA objects sorted by base offset */
	unsigned char trailer[WG_MAX_RAWSZ];
	unsigned char pack_hash[WG_MAX_RAWSZ];

	/* Pass 2: roots (whole objects with delta children) in pack order,
	 * handed out one tree at a time to the workers. */
	struct ix_worker *workers;
	unsigned nworkers;
	uint32_t *roots;
	uint32_t nroots, next_root;
	/* With more than one worker: the lock around handing out roots,
	 * claiming REF_DELTA children, the resolved count and the caller's
	 * callbacks (progress and fsck's run one at a time; on_object has
	 * one per worker, see indexer.h), and
	 * the first failure of any worker (the others stop at their next
	 * object). */
	bool threaded;
	bool lock_ready;
	struct wg_mutex lock;
	int pool_err;
	struct wg_error_saved pool_error;
	/* opts.fsck as the workers run it: the checks in parallel, its
	 * callbacks (which write the caller's state) under the lock. */
	struct wg_fsck_options pool_fsck;
	struct wg_buf delta;   /* wg_indexer_read's scratch */
	uint32_t ndeltas, resolved;
	struct wg_buf idx, rev;
	/* The object (its number in objs) at each position of the idx:
	 * wg_indexer_find's answer once the id is found there. */
	uint32_t *by_id;
};

static int fail(struct wg_indexer *ix, int err)
{
	ix->state = ST_FAILED;
	ix->error = err;
	return err;
}

/* ---- the temporary file ------------------------------------------------- */

static int write_all(struct wg_indexer *ix, const unsigned char *p, size_t len, uint64_t at)
{
	if (wg_fs_pwrite_all(ix->fd, p, len, (int64_t)at))
		return wg_error_set(WG_EIO, "cannot write '%s': %s", ix->tmp_pack,
				    strerror(errno));
	return 0;
}

static int wflush(struct wg_indexer *ix)
{
	int err;
	if (!ix->wlen)
		return 0;
	err = write_all(ix, ix->wbuf, ix->wlen, ix->file_pos - ix->wlen);
	ix->wlen = 0;
	return err;
}

static int wappend(struct wg_indexer *ix, const unsigned char *p, size_t len)
{
	int err;
	if (ix->wlen + len > WBUF_SIZE) {
		if ((err = wflush(ix)))
			return err;
		if (len >= WBUF_SIZE) {
			err = write_all(ix, p, len, ix->file_pos);
			ix->file_pos += len;
			return err;
		}
	}
	memcpy(ix->wbuf + ix->wlen, p, len);
	ix->wlen += len;
	ix->file_pos += len;
	return 0;
}

/* Bytes of the pack before the trailer: file, pack checksum, entry CRC. */
static int consume(struct wg_indexer *ix, const unsigned char *p, size_t len, bool in_entry)
{
	wg_hash_update(&ix->pack_ctx, p, len);
	if (in_entry)
		ix->cur.crc = (uint32_t)crc32(ix->cur.crc, p, (uInt)len);
	ix->progress.received_bytes += len;
	return wappend(ix, p, len);
}

static char *dup_path(const char *dir, const char *name)
{
	struct wg_buf b = WG_BUF_INIT;
	if (wg_fs_join(&b, dir, name)) {
		wg_buf_release(&b);  /* a join that failed half way */
		return NULL;
	}
	return (char *)wg_buf_detach(&b, NULL);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return wg_strdup(".");
	return wg_strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* ---- construction -------------------------------------------------------- */

int wg_indexer_new(struct wg_indexer **out, const struct wg_indexer_options *opts)
{
	struct wg_indexer *ix;
	char *dir = NULL;
	int err;

	if (!opts || !opts->algo)
		return wg_error_set(WG_EINVALID, "the indexer needs an object format");
	if (opts->fix_thin && !opts->bases)
		return wg_error_set(WG_EINVALID, "--fix-thin needs an object database for the bases");
	ix = wg_calloc(1, sizeof(*ix));
	if (!ix)
		return wg_error_set(WG_ENOMEM, "out of memory creating an indexer");
	ix->opts = *opts;
	ix->limits = *wg_limits_or_default(opts->limits);
	ix->opts.limits = &ix->limits;
	ix->algo = opts->algo;
	ix->fd = -1;
	if (!ix->opts.window)
		ix->opts.window = WG_INDEXER_WINDOW_DEFAULT;
	if (opts->tmp_dir)
		dir = wg_strdup(opts->tmp_dir);
	else if (opts->pack_dir)
		dir = wg_strdup(opts->pack_dir);
	else if (opts->pack_path)
		dir = dir_of(opts->pack_path);
	else if (opts->idx_path)
		dir = dir_of(opts->idx_path);
	else {
		wg_free(ix);
		return wg_error_set(WG_EINVALID, "the indexer needs a directory for its temporary file");
	}
	if (!dir || !(ix->wbuf = wg_malloc(WBUF_SIZE)) || !(ix->scratch = wg_malloc(SCRATCH_SIZE))) {
		err = wg_error_set(WG_ENOMEM, "out of memory creating an indexer");
		goto fail;
	}
	if ((err = wg_fs_mkdir_p(dir)))
		goto fail;
	if (!(ix->tmp_pack = dup_path(dir, "tmp_pack_XXXXXX"))) {
		err = wg_error_set(WG_ENOMEM, "out of memory creating an indexer");
		goto fail;
	}
	ix->fd = wg_fs_mkstemp(ix->tmp_pack);
	if (ix->fd < 0) {
		err = wg_error_set(WG_EIO, "cannot create a temporary pack in '%s': %s", dir,
				   strerror(errno));
		wg_free(ix->tmp_pack);
		ix->tmp_pack = NULL;
		goto fail;
	}
	if (inflateInit(&ix->zs) != Z_OK) {
		err = wg_error_set(WG_ENOMEM, "cannot initialise zlib");
		goto fail;
	}
	ix->zs_ready = true;
	wg_hash_init(&ix->pack_ctx, ix->algo);
	wg_free(dir);
	*out = ix;
	return 0;
fail:
	wg_free(dir);
	wg_indexer_free(ix);
	return err;
}

static void remove_temp(struct wg_indexer *ix)
{
	if (ix->fd >= 0) {
		wg_fs_close(ix->fd);
		ix->fd = -1;
	}
	if (ix->tmp_pack) {
		wg_fs_unlink(ix->tmp_pack);
		wg_free(ix->tmp_pack);
		ix->tmp_pack = NULL;
	}
}

void wg_indexer_abort(struct wg_indexer *ix)
{
	if (!ix)
		return;
	remove_temp(ix);
	if (ix->state != ST_FINISHED)
		ix->state = ST_FAILED;
	if (!ix->error)
		ix->error = wg_error_set(WG_ERROR, "the indexer was aborted");
}

static void worker_release(struct ix_worker *w)
{
	size_t i;
	for (i = 0; i < w->nframes; i++)
		wg_free(w->frames[i].data);
	wg_free(w->frames);
	w->frames = NULL;
	w->nframes = w->capframes = 0;
	w->cached = 0;
	wg_buf_release(&w->delta);
	wg_pack_windows_free(w->windows);
	w->windows = NULL;
}

void wg_indexer_free(struct wg_indexer *ix)
{
	size_t i;
	if (!ix)
		return;
	remove_temp(ix);
	if (ix->zs_ready)
		inflateEnd(&ix->zs);
	for (i = 0; i < ix->nworkers; i++)
		worker_release(&ix->workers[i]);
	wg_free(ix->workers);
	wg_free(ix->roots);
	if (ix->lock_ready)
		wg_mutex_destroy(&ix->lock);
	wg_free(ix->wbuf);
	wg_free(ix->scratch);
	wg_free(ix->objs);
	wg_free(ix->by_id);
	wg_free(ix->refs);
	wg_free(ix->ofs);
	wg_free(ix->final_pack);
	wg_free(ix->final_idx);
	wg_free(ix->final_rev);
	wg_free(ix->final_keep);
	wg_buf_release(&ix->objbuf);
	wg_buf_release(&ix->delta);
	wg_buf_release(&ix->idx);
	wg_buf_release(&ix->rev);
	wg_free(ix);
}

const struct wg_indexer_progress *wg_indexer_progress(const struct wg_indexer *ix)
{
	return &ix->progress;
}

static int report(struct wg_indexer *ix)
{
	if (ix->opts.progress && ix->opts.progress(&ix->progress, ix->opts.payload))
		return wg_error_set(WG_ERROR, "indexing was cancelled");
	return 0;
}

/* ---- pass 1: parse the stream -------------------------------------------- */

static int push_obj(struct wg_indexer *ix)
{
	if (ix->nobjs == ix->capobjs) {
		/* Grow with the objects that really arrive, not the count the
		 * header claims. */
		uint32_t ncap = ix->capobjs ? ix->capobjs * 2 : 1024;
		struct ix_obj *o;
		if (ncap > ix->count + 1 && ix->count + 1 > ix->capobjs)
			ncap = ix->count + 1;  /* +1: room for one thin base without regrowing */
		o = wg_realloc(ix->objs, (size_t)ncap * sizeof(*o));
		if (!o)
			return wg_error_set(WG_ENOMEM, "out of memory indexing %u objects", ix->count);
		ix->objs = o;
		ix->capobjs = ncap;
	}
	ix->objs[ix->nobjs++] = ix->cur;
	return 0;
}

static int push_ref(struct wg_indexer *ix, const unsigned char *base, uint32_t obj)
{
	if (ix->nrefs == ix->caprefs) {
		size_t ncap = ix->caprefs ? ix->caprefs * 2 : 256;
		struct ix_ref *r = wg_realloc(ix->refs, ncap * sizeof(*r));
		if (!r)
			return wg_error_set(WG_ENOMEM, "out of memory indexing a pack");
		ix->refs = r;
		ix->caprefs = ncap;
	}
	memset(ix->refs[ix->nrefs].base, 0, WG_MAX_RAWSZ);
	memcpy(ix->refs[ix->nrefs].base, base, ix->algo->rawsz);
	ix->refs[ix->nrefs].obj = obj;
	ix->nrefs++;
	return 0;
}

static int is_delta(int t)
{
	return t == WG_OBJ_OFS_DELTA || t == WG_OBJ_REF_DELTA;
}

static int bad_object(struct wg_indexer *ix, const char *what)
{
	return wg_error_set(WG_ECORRUPT, "pack has bad object at offset %llu: %s",
			    (unsigned long long)ix->cur.offset, what);
}

/* The entry header is complete in hbuf: record it and start inflating. */
static int begin_data(struct wg_indexer *ix)
{
	char hdr[64];
	size_t n;
	int err;
	ix->cur.hdrlen = (uint16_t)ix->hlen;
	if ((err = consume(ix, ix->hbuf, ix->hlen, true)))
		return err;
	if (ix->cur.type == WG_OBJ_REF_DELTA &&
	    (err = push_ref(ix, ix->hbuf + ix->hdr0len, ix->nobjs)))
		return err;
	if (ix->limits.max_object_size && ix->cur.size > ix->limits.max_object_size) {
		char what[96];
		snprintf(what, sizeof(what), "pack %s at offset %llu",
			 is_delta(ix->cur.type) ? "delta" : "object",
			 (unsigned long long)ix->cur.offset);
		return wg_limits_check_object_size(&ix->limits, ix->cur.size, what);
	}
	ix->dhdrlen = 0;
	ix->dchecked = !is_delta(ix->cur.type);
	if (!is_delta(ix->cur.type)) {
		if (ix->cur.size > SIZE_MAX / 2)
			return wg_error_set(WG_EUNSUPPORTED, "pack object at offset %llu is too large "
					    "(%llu bytes) for this build",
					    (unsigned long long)ix->cur.offset,
					    (unsigned long long)ix->cur.size);
		wg_hash_init(&ix->obj_ctx, ix->algo);
		n = wg_object_header(hdr, (enum wg_object_type)ix->cur.type, (size_t)ix->cur.size);
		wg_hash_update(&ix->obj_ctx, hdr, n);
		ix->buffer_obj = (ix->opts.fsck || ix->opts.on_object) &&
				 ix->cur.type != WG_OBJ_BLOB;
		wg_buf_reset(&ix->objbuf);
	} else {
		ix->buffer_obj = false;
		ix->ndeltas++;
	}
	ix->produced = 0;
	if (inflateReset(&ix->zs) != Z_OK)
		return wg_error_set(WG_ERROR, "cannot reset zlib");
	ix->state = ST_DATA;
	return 0;
}

static void start_entry(struct wg_indexer *ix)
{
	memset(&ix->cur, 0, sizeof(ix->cur));
	ix->cur.offset = ix->file_pos;
	ix->cur.crc = (uint32_t)crc32(0, NULL, 0);
	ix->hlen = 0;
	ix->phase = 0;
	ix->state = ix->nobjs < ix->count ? ST_ENTRY : ST_TRAILER;
}

/* Take header bytes one at a time: headers are a few bytes, and this way
 * a header split across any number of feeds needs no special case. */
static int entry_byte(struct wg_indexer *ix, unsigned char b)
{
	enum wg_object_type type;
	uint64_t size, rel;
	int n;
	ix->hbuf[ix->hlen++] = b;
	switch (ix->phase) {
	case 0:
		if (b & 0x80) {
			if (ix->hlen >= WG_PACK_OBJ_HEADER_MAX)
				return bad_object(ix, "object size overflows 64 bits");
			return 0;
		}
		n = wg_pack_object_header_decode(ix->hbuf, ix->hlen, &type, &size);
		if (n < 0)
			return wg_error_prefix("pack has bad object at offset %llu",
					       (unsigned long long)ix->cur.offset);
		ix->cur.type = (uint8_t)type;
		ix->cur.size = size;
		ix->hdr0len = ix->hlen;
		if (type == WG_OBJ_OFS_DELTA)
			ix->phase = 1;
		else if (type == WG_OBJ_REF_DELTA)
			ix->phase = 2;
		else
			return begin_data(ix);
		return 0;
	case 1:
		if (b & 0x80) {
			if (ix->hlen - ix->hdr0len >= WG_VARINT_MAX)
				return bad_object(ix, "delta base offset overflows");
			return 0;
		}
		n = wg_varint_ofs_decode(ix->hbuf + ix->hdr0len, ix->hlen - ix->hdr0len, &rel);
		if (n <= 0)
			return bad_object(ix, "delta base offset overflows");
		if (!rel || rel > ix->cur.offset - WG_PACK_HEADER_SIZE)
			return bad_object(ix, "delta base offset is out of bounds");
		ix->cur.base_offset = ix->cur.offset - rel;
		return begin_data(ix);
	default:
		if (ix->hlen - ix->hdr0len < ix->algo->rawsz)
			return 0;
		return begin_data(ix);
	}
}

static int end_object(struct wg_indexer *ix)
{
	int err;
	if (!is_delta(ix->cur.type)) {
		struct wg_oid oid;
		if ((err = wg_hash_final(&ix->obj_ctx, ix->cur.id)))
			return wg_error_prefix("object at offset %llu", (unsigned long long)ix->cur.offset);
		ix->cur.real_type = ix->cur.type;
		if (ix->buffer_obj) {
			wg_oid_from_raw(&oid, ix->algo, ix->cur.id);
			if (ix->opts.fsck &&
			    (err = wg_fsck_object(ix->opts.fsck, ix->algo, &oid,
						  (enum wg_object_type)ix->cur.type, ix->objbuf.data,
						  ix->objbuf.len)))
				return err;
			if (ix->opts.on_object &&
			    (err = ix->opts.on_object(0, &oid, (enum wg_object_type)ix->cur.type,
						      ix->objbuf.data, ix->objbuf.len,
						      ix->opts.object_payload)))
				return err;
		}
	}
	if ((err = push_obj(ix)))
		return err;
	ix->progress.received_objects = ix->nobjs;
	if ((err = report(ix)))
		return err;
	start_entry(ix);
	return 0;
}

/* A delta's result size is in its first bytes: refuse one that declares
 * more than max_object_size as soon as they are in, long before resolving
 * (a 10-byte delta may claim a 4 GiB result). A header that does not
 * parse is left to the resolver to report. */
static int check_delta_header(struct wg_indexer *ix, const unsigned char *src, size_t got)
{
	uint64_t base_size, result_size;
	size_t n = sizeof(ix->dhdr) - ix->dhdrlen, hdrlen;
	if (n > got)
		n = got;
	memcpy(ix->dhdr + ix->dhdrlen, src, n);
	ix->dhdrlen += n;
	if (ix->dhdrlen < sizeof(ix->dhdr) && ix->produced < ix->cur.size)
		return 0;
	ix->dchecked = true;
	if (wg_delta_sizes(ix->dhdr, ix->dhdrlen, &base_size, &result_size, &hdrlen)) {
		wg_error_clear();
		return 0;
	}
	if (ix->limits.max_object_size && result_size > ix->limits.max_object_size)
		return wg_error_set(WG_ELIMIT, "pack delta at offset %llu declares a result of "
				    "%llu bytes, more than the limit of %llu (max_object_size)",
				    (unsigned long long)ix->cur.offset,
				    (unsigned long long)result_size,
				    (unsigned long long)ix->limits.max_object_size);
	return 0;
}

/* Inflate what is available of the current entry's zlib stream. Returns
 * the input bytes used. */
static int data_step(struct wg_indexer *ix, const unsigned char *p, size_t len, size_t *used)
{
	unsigned char extra;
	uInt before_in, before_out;
	size_t got;
	int zret, err;

	ix->zs.next_in = (unsigned char *)p;
	ix->zs.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	before_in = ix->zs.avail_in;
	if (ix->produced < ix->cur.size) {
		uint64_t room = ix->cur.size - ix->produced;
		unsigned char *dst = ix->scratch;
		if (room > SCRATCH_SIZE)
			room = SCRATCH_SIZE;
		if (ix->buffer_obj) {
			if ((err = wg_buf_grow(&ix->objbuf, (size_t)room)))
				return err;
			dst = ix->objbuf.data + ix->objbuf.len;
		}
		ix->zs.next_out = dst;
		ix->zs.avail_out = (uInt)room;
	} else {
		/* The declared size is reached: the stream must end now. */
		ix->zs.next_out = &extra;
		ix->zs.avail_out = 1;
	}
	before_out = ix->zs.avail_out;
	zret = inflate(&ix->zs, Z_NO_FLUSH);
	got = before_out - ix->zs.avail_out;
	*used = before_in - ix->zs.avail_in;
	if ((err = consume(ix, p, *used, true)))
		return err;
	if (ix->produced >= ix->cur.size && got)
		return bad_object(ix, "zlib stream inflates past the size in the entry header");
	if (got) {
		const unsigned char *src = ix->zs.next_out - got;
		if (!is_delta(ix->cur.type))
			wg_hash_update(&ix->obj_ctx, src, got);
		if (ix->buffer_obj)
			wg_buf_setlen(&ix->objbuf, ix->objbuf.len + got);
		ix->produced += got;
		if (!ix->dchecked && (err = check_delta_header(ix, src, got)))
			return err;
		if ((err = wg_limits_check_inflate(&ix->limits, ix->produced, ix->zs.total_in,
						   "it")))
			return wg_error_prefix("pack entry at offset %llu",
					       (unsigned long long)ix->cur.offset);
	}
	if (zret == Z_STREAM_END) {
		if (ix->produced != ix->cur.size)
			return bad_object(ix, "zlib stream ends before the size in the entry header");
		return end_object(ix);
	}
	if (zret == Z_BUF_ERROR && !ix->zs.avail_in)
		return 0;  /* needs more input */
	if (zret != Z_OK) {
		char msg[128];
		snprintf(msg, sizeof(msg), "inflate returned %d (%s)", zret,
			 ix->zs.msg ? ix->zs.msg : "invalid data");
		return bad_object(ix, msg);
	}
	return 0;
}

static int feed(struct wg_indexer *ix, const unsigned char *p, size_t len)
{
	int err;
	while (len) {
		size_t n;
		switch (ix->state) {
		case ST_HEADER: {
			uint32_t version;
			n = WG_PACK_HEADER_SIZE - ix->hlen;
			if (n > len)
				n = len;
			memcpy(ix->hbuf + ix->hlen, p, n);
			ix->hlen += n;
			if ((err = consume(ix, p, n, false)))
				return err;
			p += n;
			len -= n;
			if (ix->hlen < WG_PACK_HEADER_SIZE)
				break;
			if ((err = wg_pack_header_parse(ix->hbuf, &version, &ix->count)))
				return err;
			/* Nothing is allocated from this count (the object
			 * table grows as entries arrive); it is refused only
			 * when over the limit, and a stream that ends before
			 * that many entries is refused at its end. */
			if (ix->limits.max_pack_objects && ix->count > ix->limits.max_pack_objects)
				return wg_error_set(WG_ELIMIT, "pack header declares %u objects, more "
						    "than the limit of %u (max_pack_objects)",
						    ix->count, ix->limits.max_pack_objects);
			ix->progress.total_objects = ix->count;
			start_entry(ix);
			break;
		}
		case ST_ENTRY:
			if ((err = entry_byte(ix, *p)))
				return err;
			p++;
			len--;
			break;
		case ST_DATA:
			if ((err = data_step(ix, p, len, &n)))
				return err;
			p += n;
			len -= n;
			break;
		case ST_TRAILER:
			n = ix->algo->rawsz - ix->hlen;
			if (n > len)
				n = len;
			memcpy(ix->trailer + ix->hlen, p, n);
			ix->hlen += n;
			ix->progress.received_bytes += n;
			if ((err = wappend(ix, p, n)))
				return err;
			p += n;
			len -= n;
			if (ix->hlen == ix->algo->rawsz) {
				/* A checksum, not an object id: a SHA-1 collision
				 * warning on it changes nothing. */
				err = wg_hash_final(&ix->pack_ctx, ix->pack_hash);
				if (err && err != WG_ECOLLISION)
					return err;
				if (memcmp(ix->pack_hash, ix->trailer, ix->algo->rawsz))
					return wg_error_set(WG_ECORRUPT, "pack is corrupted (%s "
							    "mismatch): its trailing checksum is wrong",
							    ix->algo->name);
				ix->state = ST_DONE;
			}
			break;
		case ST_DONE:
			return wg_error_set(WG_ECORRUPT, "pack has junk at the end (%zu bytes after "
					    "the trailing checksum)", len);
		default:
			return wg_error_set(WG_EINVALID, "the indexer is finished or failed");
		}
	}
	return 0;
}

int wg_indexer_feed(struct wg_indexer *ix, const void *data, size_t len)
{
	int err;
	if (ix->state == ST_FAILED)
		return wg_error_set(ix->error ? ix->error : WG_ERROR, "the indexer failed earlier");
	if ((err = feed(ix, data, len)))
		return fail(ix, err);
	return 0;
}

/* ---- pass 2: resolve deltas ---------------------------------------------- */

static int cmp_ofs(const void *a, const void *b)
{
	const struct ix_ofs *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->obj < y->obj ? -1 : x->obj > y->obj;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct ix_ref *x = a, *y = b;
	int c = memcmp(x->base, y->base, WG_MAX_RAWSZ);
	if (c)
		return c;
	return x->obj < y->obj ? -1 : x->obj > y->obj;
}

static void ofs_children(struct wg_indexer *ix, uint64_t offset, size_t *first, size_t *end)
{
	size_t lo = 0, hi = ix->nofs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->ofs[mid].base < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo < ix->nofs && ix->ofs[lo].base == offset)
		lo++;
	*end = lo;
}

static void ref_children(struct wg_indexer *ix, const unsigned char *id, size_t *first, size_t *end)
{
	size_t lo = 0, hi = ix->nrefs, rawsz = ix->algo->rawsz;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (memcmp(ix->refs[mid].base, id, rawsz) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo < ix->nrefs && !memcmp(ix->refs[lo].base, id, rawsz))
		lo++;
	*end = lo;
}

/* Inflate an entry's data from the temporary file (through `windows`
 * when not NULL). */
static int entry_data(struct wg_indexer *ix, struct wg_pack_windows *windows, uint32_t i,
		      struct wg_buf *out)
{
	const struct ix_obj *o = &ix->objs[i];
	/* Objects are in pack order: the next one's offset bounds this
	 * entry exactly, so the read takes just its bytes. */
	uint64_t end = i + 1 < ix->nobjs ? ix->objs[i + 1].offset : ix->file_pos;
	struct wg_pack_source src = { ix->fd, windows };
	int err = wg_pack_inflate_at(out, &src, o->offset + o->hdrlen, end, o->size, 0);
	if (err && err != WG_ENOMEM)
		wg_error_prefix("cannot re-read the object at offset %llu",
				(unsigned long long)o->offset);
	return err;
}

/* Apply object i's delta to base; the result goes to out. */
static int apply(struct ix_worker *w, uint32_t i, const unsigned char *base, size_t base_len,
		 struct wg_buf *out)
{
	int err;
	if ((err = entry_data(w->ix, w->windows, i, &w->delta)))
		return err;
	if ((err = wg_delta_apply(out, base, base_len, w->delta.data, w->delta.len, 0)))
		return wg_error_prefix("pack has bad object at offset %llu: cannot apply its delta",
				       (unsigned long long)w->ix->objs[i].offset);
	return 0;
}

static void frame_drop(struct ix_worker *w, struct ix_frame *f)
{
	if (!f->data)
		return;
	w->cached -= f->len;
	wg_free(f->data);
	f->data = NULL;
}

static void frame_set(struct ix_worker *w, struct ix_frame *f, struct wg_buf *b)
{
	f->data = wg_buf_detach(b, &f->len);
	w->cached += f->len;
}

/* Keep the cached bases under the window: drop the lowest levels first
 * (they are the furthest from what is being resolved), never the top. */
static void enforce_window(struct ix_worker *w)
{
	size_t k;
	for (k = 0; k + 1 < w->nframes && w->cached > w->ix->opts.window; k++)
		frame_drop(w, &w->frames[k]);
}

/* Make sure frame k holds its data, rebuilding it from the nearest level
 * below that still has its data (or from the root object on file). */
static int frame_data(struct ix_worker *w, size_t k)
{
	struct wg_buf b = WG_BUF_INIT;
	size_t j, m;
	int err;
	if (w->frames[k].data)
		return 0;
	for (j = k; j > 0 && !w->frames[j - 1].data; j--)
		;
	/* Frames j..k lack data; j == 0 means even the root does. */
	if (j == 0) {
		if ((err = entry_data(w->ix, w->windows, w->frames[0].obj, &b)))
			return err;
		frame_set(w, &w->frames[0], &b);
		j = 1;
	}
	for (m = j; m <= k; m++) {
		/* frames[m - 1] has data: it is j - 1 (found above) or was
		 * built in the previous round. */
		struct ix_frame *base = &w->frames[m - 1];
		if ((err = apply(w, w->frames[m].obj, base->data, base->len, &b))) {
			wg_buf_release(&b);
			return err;
		}
		frame_set(w, &w->frames[m], &b);
		/* Intermediate levels are kept while they fit: their other
		 * children need them too. */
		if (m < k && w->cached > w->ix->opts.window)
			frame_drop(w, &w->frames[m - 1]);
	}
	return 0;
}

static int push_frame(struct ix_worker *w, uint32_t obj, struct wg_buf *data)
{
	struct wg_indexer *ix = w->ix;
	struct ix_frame *f;
	if (w->nframes == w->capframes) {
		size_t ncap = w->capframes ? w->capframes * 2 : 64;
		f = wg_realloc(w->frames, ncap * sizeof(*f));
		if (!f)
			return wg_error_set(WG_ENOMEM, "out of memory resolving deltas");
		w->frames = f;
		w->capframes = ncap;
	}
	f = &w->frames[w->nframes++];
	memset(f, 0, sizeof(*f));
	f->obj = obj;
	ofs_children(ix, ix->objs[obj].offset, &f->ofs_next, &f->ofs_end);
	ref_children(ix, ix->objs[obj].id, &f->ref_next, &f->ref_end);
	if (data) {
		/* Detaching an empty buffer still gives a non-NULL pointer,
		 * so an empty base counts as present. */
		frame_set(w, f, data);
		if (!f->data)
			return wg_error_set(WG_ENOMEM, "out of memory resolving deltas");
	}
	return 0;
}

static bool has_children(struct wg_indexer *ix, uint32_t obj)
{
	size_t a, b;
	ofs_children(ix, ix->objs[obj].offset, &a, &b);
	if (a < b)
		return true;
	ref_children(ix, ix->objs[obj].id, &a, &b);
	return a < b;
}

static void pool_lock(struct wg_indexer *ix)
{
	if (ix->threaded)
		wg_mutex_lock(&ix->lock);
}

static void pool_unlock(struct wg_indexer *ix)
{
	if (ix->threaded)
		wg_mutex_unlock(&ix->lock);
}

/* A REF_DELTA names its base by id, and a pack may hold two objects of
 * one id: then two trees reach the same child, and the first to claim it
 * resolves it (the type is set here, under the lock, as the mark). */
static bool claim_ref_child(struct wg_indexer *ix, uint32_t c, uint8_t type)
{
	bool mine;
	pool_lock(ix);
	mine = !ix->objs[c].real_type;
	if (mine)
		ix->objs[c].real_type = type;
	pool_unlock(ix);
	return mine;
}

static void pool_fsck_report(void *payload, const struct wg_oid *oid, enum wg_object_type type,
			     enum wg_fsck_msg_id id, enum wg_fsck_severity severity,
			     const char *message)
{
	struct wg_indexer *ix = payload;
	pool_lock(ix);
	ix->opts.fsck->report(ix->opts.fsck->payload, oid, type, id, severity, message);
	pool_unlock(ix);
}

static void pool_fsck_special_blob(void *payload, const struct wg_oid *tree_oid,
				   const struct wg_oid *blob_oid, enum wg_fsck_special kind)
{
	struct wg_indexer *ix = payload;
	pool_lock(ix);
	ix->opts.fsck->special_blob(ix->opts.fsck->payload, tree_oid, blob_oid, kind);
	pool_unlock(ix);
}

/* A delta is resolved (its id known): fsck (in parallel: it reads only
 * its options and the object) and on_object (per worker), then progress,
 * one worker at a time. Fails without a message of its own once another
 * worker has failed (that first failure is what finish reports). */
static int resolved_one(struct ix_worker *w, uint32_t c, const struct wg_buf *result)
{
	struct wg_indexer *ix = w->ix;
	struct ix_obj *child = &ix->objs[c];
	bool whole = child->real_type != WG_OBJ_BLOB;
	struct wg_oid oid;
	int err = 0;

	wg_oid_from_raw(&oid, ix->algo, child->id);
	if (whole && ix->opts.fsck &&
	    (err = wg_fsck_object(ix->threaded ? &ix->pool_fsck : ix->opts.fsck, ix->algo, &oid,
				  (enum wg_object_type)child->real_type, result->data,
				  result->len)))
		return err;
	/* Outside the lock: each worker's calls are its own (indexer.h). */
	if (whole && ix->opts.on_object &&
	    (err = ix->opts.on_object(w->no, &oid, (enum wg_object_type)child->real_type,
				      result->data, result->len, ix->opts.object_payload)))
		return err;
	pool_lock(ix);
	if (ix->pool_err) {
		err = ix->pool_err;
		goto done;
	}
	ix->resolved++;
	ix->progress.resolved_deltas = ix->resolved;
	err = report(ix);
done:
	pool_unlock(ix);
	return err;
}

/* Resolve every delta that depends on object `root` (non-delta), depth
 * first with an explicit stack. root_data may hold its content (taken). */
static int resolve_tree(struct ix_worker *w, uint32_t root, struct wg_buf *root_data)
{
	struct wg_indexer *ix = w->ix;
	struct wg_buf result = WG_BUF_INIT;
	int err = 0;

	if (!has_children(ix, root))
		return 0;
	if ((err = push_frame(w, root, root_data)))
		return err;
	while (w->nframes) {
		size_t top = w->nframes - 1;
		struct ix_frame *f = &w->frames[top];
		struct ix_obj *child, *base;
		char hdr[64];
		struct wg_hash_ctx ctx;
		uint32_t c;

		if (f->ofs_next < f->ofs_end) {
			/* An OFS_DELTA has one base entry: only this frame
			 * reaches it. */
			c = ix->ofs[f->ofs_next++].obj;
			if (ix->objs[c].real_type)
				continue;
		} else if (f->ref_next < f->ref_end) {
			c = ix->refs[f->ref_next++].obj;
			if (!claim_ref_child(ix, c, ix->objs[f->obj].real_type))
				continue;  /* two bases with one id: resolved already */
		} else {
			frame_drop(w, f);
			w->nframes--;
			continue;
		}
		if ((err = frame_data(w, top)))
			break;
		f = &w->frames[top];
		if ((err = apply(w, c, f->data, f->len, &result)))
			break;
		child = &ix->objs[c];
		base = &ix->objs[f->obj];
		child->real_type = base->real_type;
		child->depth = base->depth + 1;
		child->base_no = f->obj;
		wg_hash_init(&ctx, ix->algo);
		wg_hash_update(&ctx, hdr, wg_object_header(hdr, (enum wg_object_type)child->real_type,
							   result.len));
		wg_hash_update(&ctx, result.data, result.len);
		if ((err = wg_hash_final(&ctx, child->id))) {
			wg_error_prefix("object at offset %llu", (unsigned long long)child->offset);
			break;
		}
		if ((err = resolved_one(w, c, &result)))
			break;
		if (has_children(ix, c)) {
			if ((err = push_frame(w, c, &result)))
				break;
			enforce_window(w);
		}
		wg_buf_reset(&result);
	}
	wg_buf_release(&result);
	if (err) {
		while (w->nframes)
			frame_drop(w, &w->frames[--w->nframes]);
	}
	return err;
}

/* ---- the pool of workers ------------------------------------------------- */

/* How many workers for `nroots` trees: opts.threads, or with 0 as git
 * picks for index-pack (every core up to 3, then half of them, at most
 * 20); never more than there are trees, and 1 without threads. */
static unsigned pool_size(const struct wg_indexer *ix, uint32_t nroots)
{
	unsigned n = ix->opts.threads;
	if (!wg_threads_available())
		return 1;
	if (!n) {
		n = wg_online_cpus();
		if (n >= 40)
			n = 20;
		else if (n >= 6)
			n /= 2;
		else if (n >= 4)
			n = 3;
	}
	if (n > WG_INDEXER_THREADS_MAX)
		n = WG_INDEXER_THREADS_MAX;
	if (n > nroots)
		n = nroots;
	return n ? n : 1;
}

/* The first failure wins; the other workers stop at their next object. */
static void pool_fail(struct wg_indexer *ix, int err)
{
	pool_lock(ix);
	if (!ix->pool_err) {
		ix->pool_err = err;
		wg_error_save(&ix->pool_error);
	}
	pool_unlock(ix);
}

/* Take trees until none are left or a worker failed. */
static void *worker_main(void *arg)
{
	struct ix_worker *w = arg;
	struct wg_indexer *ix = w->ix;
	int err;

	for (;;) {
		uint32_t root = 0;
		bool have;
		pool_lock(ix);
		have = !ix->pool_err && ix->next_root < ix->nroots;
		if (have)
			root = ix->roots[ix->next_root++];
		pool_unlock(ix);
		if (!have)
			break;
		if ((err = resolve_tree(w, root, NULL))) {
			pool_fail(ix, err);
			break;
		}
	}
	return NULL;
}

/* Pass 2 over the whole file: every tree rooted at a whole object, on the
 * calling thread and as many more as pool_size() allows. Returns the
 * first failure, its message restored on the calling thread. */
static int resolve_all(struct wg_indexer *ix)
{
	uint32_t i, n = 0;
	unsigned k;
	bool serves, started;
	int err;

	for (i = 0; i < ix->nobjs; i++)
		if (!is_delta(ix->objs[i].type) && has_children(ix, i))
			n++;
	if (n && !(ix->roots = wg_malloc((size_t)n * sizeof(*ix->roots))))
		return wg_error_set(WG_ENOMEM, "out of memory resolving deltas");
	for (i = 0; i < ix->nobjs; i++)
		if (!is_delta(ix->objs[i].type) && has_children(ix, i))
			ix->roots[ix->nroots++] = i;
	ix->nworkers = pool_size(ix, ix->nroots);
	serves = ix->nworkers > 1 && wg_thread_caller_serves();
	if (!(ix->workers = wg_calloc(ix->nworkers, sizeof(*ix->workers)))) {
		ix->nworkers = 0;
		return wg_error_set(WG_ENOMEM, "out of memory resolving deltas");
	}
	for (k = 0; k < ix->nworkers; k++) {
		ix->workers[k].ix = ix;
		ix->workers[k].no = k;
		/* NULL (out of memory) just reads the file directly. */
		ix->workers[k].windows = wg_pack_windows_new(ix->fd, ix->file_pos, WG_PACK_ACCESS_SEQUENTIAL);
	}
	if (ix->nworkers > 1) {
		if ((err = wg_mutex_init(&ix->lock)))
			return err;
		ix->lock_ready = true;
		ix->threaded = true;
		if (ix->opts.fsck) {
			ix->pool_fsck = *ix->opts.fsck;
			ix->pool_fsck.payload = ix;
			if (ix->opts.fsck->report)
				ix->pool_fsck.report = pool_fsck_report;
			if (ix->opts.fsck->special_blob)
				ix->pool_fsck.special_blob = pool_fsck_special_blob;
		}
		/* Worker 0 is the calling thread, unless it must only wait
		 * (and serve its workers' host calls meanwhile). */
		for (k = serves ? 0 : 1; k < ix->nworkers; k++) {
			/* A thread the system refuses leaves its trees to the
			 * others. */
			if (wg_thread_start(&ix->workers[k].thread, worker_main, &ix->workers[k]))
				wg_error_clear();
			else
				ix->workers[k].started = true;
		}
	}
	started = false;
	for (k = 0; k < ix->nworkers; k++)
		started |= ix->workers[k].started;
	/* Without a thread that started, the calling thread does it all. */
	if (!serves || !started)
		worker_main(&ix->workers[0]);
	for (k = 0; k < ix->nworkers; k++)
		if (ix->workers[k].started) {
			wg_thread_join(&ix->workers[k].thread);
			ix->workers[k].started = false;
		}
	ix->threaded = false;
	/* Only the first worker stays (fix_thin resolves on it), and with no
	 * windows: the file is about to be appended to. */
	for (k = 0; k < ix->nworkers; k++)
		worker_release(&ix->workers[k]);
	ix->nworkers = 1;
	if (ix->pool_err) {
		wg_error_restore(&ix->pool_error);
		return ix->pool_err;
	}
	return 0;
}

/* ---- thin packs ---------------------------------------------------------- */

/* Append a base taken from the local odb as a new, whole object at the
 * end of the object data (where the trailer was), as git --fix-thin does:
 * same header, same zlib level, so the result matches git's byte for byte. */
static int append_base(struct wg_indexer *ix, const struct wg_oid *oid, enum wg_object_type type,
		       const struct wg_buf *data)
{
	unsigned char hdr[WG_PACK_OBJ_HEADER_MAX];
	struct wg_buf z = WG_BUF_INIT;
	struct ix_obj o;
	z_stream zs;
	size_t hlen = wg_pack_object_header_encode(hdr, type, data->len), bound;
	int zret, err;

	if (ix->nobjs == UINT32_MAX)
		return wg_error_set(WG_EUNSUPPORTED, "too many objects for one pack");
	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, ix->opts.compression_level) != Z_OK)
		return wg_error_set(WG_ENOMEM, "cannot initialise zlib");
	if (data->len > UINT32_MAX) {
		deflateEnd(&zs);
		return wg_error_set(WG_EUNSUPPORTED, "thin-pack base %s is too large", wg_oid_hex(oid));
	}
	bound = deflateBound(&zs, (uLong)data->len);
	if ((err = wg_buf_grow(&z, bound))) {
		deflateEnd(&zs);
		return err;
	}
	zs.next_in = data->data;
	zs.avail_in = (uInt)data->len;
	zs.next_out = z.data;
	zs.avail_out = (uInt)bound;
	zret = deflate(&zs, Z_FINISH);
	wg_buf_setlen(&z, bound - zs.avail_out);
	deflateEnd(&zs);
	if (zret != Z_STREAM_END) {
		wg_buf_release(&z);
		return wg_error_set(WG_ERROR, "unable to deflate appended object (%d)", zret);
	}
	memset(&o, 0, sizeof(o));
	o.offset = ix->file_pos;
	o.size = data->len;
	o.hdrlen = (uint16_t)hlen;
	o.type = o.real_type = (uint8_t)type;
	memcpy(o.id, oid->hash, ix->algo->rawsz);
	o.crc = (uint32_t)crc32(crc32(0, NULL, 0), hdr, (uInt)hlen);
	o.crc = (uint32_t)crc32(o.crc, z.data, (uInt)z.len);
	err = write_all(ix, hdr, hlen, ix->file_pos);
	if (!err)
		err = write_all(ix, z.data, z.len, ix->file_pos + hlen);
	if (!err)
		ix->file_pos += hlen + z.len;
	wg_buf_release(&z);
	if (err)
		return err;
	if (ix->nobjs == ix->capobjs) {
		struct ix_obj *n = wg_realloc(ix->objs, ((size_t)ix->capobjs + 64) * sizeof(*n));
		if (!n)
			return wg_error_set(WG_ENOMEM, "out of memory completing a thin pack");
		ix->objs = n;
		ix->capobjs += 64;
	}
	ix->objs[ix->nobjs++] = o;
	return 0;
}

static int cmp_ref_pos(const void *a, const void *b)
{
	const struct ix_ref *x = a, *y = b;
	return x->obj < y->obj ? -1 : x->obj > y->obj;
}

/* Rewrite the header's count and the trailing checksum after appending. */
static int rewrite_header_trailer(struct wg_indexer *ix)
{
	unsigned char buf[65536];
	struct wg_hash_ctx ctx;
	uint64_t pos = 0;
	int err;

	wg_pack_header_write(buf, ix->nobjs);
	if ((err = write_all(ix, buf, WG_PACK_HEADER_SIZE, 0)))
		return err;
	wg_hash_init(&ctx, ix->algo);
	while (pos < ix->file_pos) {
		size_t n = ix->file_pos - pos < sizeof(buf) ? (size_t)(ix->file_pos - pos) : sizeof(buf);
		if ((err = wg_pack_pread(ix->fd, buf, n, pos)))
			return err;
		wg_hash_update(&ctx, buf, n);
		pos += n;
	}
	err = wg_hash_final(&ctx, ix->pack_hash);
	if (err && err != WG_ECOLLISION)
		return err;
	if ((err = write_all(ix, ix->pack_hash, ix->algo->rawsz, ix->file_pos)))
		return err;
	ix->file_pos += ix->algo->rawsz;
	/* Appended objects are longer than the trailer they replaced, so
	 * nothing of the old file lies beyond; truncate anyway to be sure. */
	return wg_fs_ftruncate(ix->fd, (off_t)ix->file_pos) ?
	       wg_error_set(WG_EIO, "cannot truncate '%s': %s", ix->tmp_pack, strerror(errno)) : 0;
}

static int fix_thin(struct wg_indexer *ix)
{
	struct ix_ref *bypos;
	struct wg_buf data = WG_BUF_INIT;
	uint32_t initial = ix->nobjs;
	size_t i;
	int err = 0;

	if (!ix->nrefs)
		return 0;
	if (!(bypos = wg_malloc(ix->nrefs * sizeof(*bypos))))
		return wg_error_set(WG_ENOMEM, "out of memory completing a thin pack");
	memcpy(bypos, ix->refs, ix->nrefs * sizeof(*bypos));
	/* git's order: the unresolved deltas in pack order, each base
	 * appended (and its tree resolved) before looking at the next. */
	wg_sort(bypos, ix->nrefs, sizeof(*bypos), cmp_ref_pos);
	/* Appended objects overwrite the old trailer. */
	ix->file_pos -= ix->algo->rawsz;
	for (i = 0; i < ix->nrefs && !err; i++) {
		struct wg_oid oid;
		enum wg_object_type type;
		if (ix->objs[bypos[i].obj].real_type)
			continue;
		wg_oid_from_raw(&oid, ix->algo, bypos[i].base);
		err = ix->opts.bases->read(ix->opts.bases->payload, &oid, &type, &data);
		if (err == WG_ENOTFOUND) {
			wg_error_clear();
			err = 0;
			continue;
		}
		if (err) {
			wg_error_prefix("cannot read thin-pack base %s", wg_oid_hex(&oid));
			break;
		}
		if ((err = append_base(ix, &oid, type, &data)))
			break;
		ix->progress.local_objects++;
		err = resolve_tree(&ix->workers[0], ix->nobjs - 1, &data);
		wg_buf_reset(&data);
	}
	wg_buf_release(&data);
	wg_free(bypos);
	if (!err && ix->nobjs != initial)
		err = rewrite_header_trailer(ix);
	else if (!err)
		ix->file_pos += ix->algo->rawsz;
	return err;
}

/* ---- outputs ------------------------------------------------------------- */

static char *with_ext(const char *path, const char *from, const char *to)
{
	size_t n = strlen(path), f = strlen(from), t = strlen(to);
	char *s;
	if (n < f || strcmp(path + n - f, from))
		return NULL;
	if (!(s = wg_malloc(n - f + t + 1)))
		return NULL;
	memcpy(s, path, n - f);
	memcpy(s + n - f, to, t + 1);
	return s;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static int names(struct wg_indexer *ix)
{
	char hex[WG_MAX_HEXSZ + 1], name[WG_MAX_HEXSZ + 16];
	wg_hex_encode(hex, ix->pack_hash, ix->algo->rawsz);
	hex[ix->algo->hexsz] = '\0';
	if (ix->opts.pack_path)
		ix->final_pack = wg_strdup(ix->opts.pack_path);
	else if (ix->opts.pack_dir) {
		snprintf(name, sizeof(name), "pack-%s.pack", hex);
		ix->final_pack = dup_path(ix->opts.pack_dir, name);
	}
	if (ix->opts.idx_path)
		ix->final_idx = wg_strdup(ix->opts.idx_path);
	else if (ix->opts.pack_dir && !ix->opts.pack_path) {
		snprintf(name, sizeof(name), "pack-%s.idx", hex);
		ix->final_idx = dup_path(ix->opts.pack_dir, name);
	} else if (ix->final_pack) {
		if (!(ix->final_idx = with_ext(ix->final_pack, ".pack", ".idx")))
			return wg_error_set(WG_EINVALID, "pack name '%s' does not end in .pack",
					    ix->final_pack);
	}
	/* An allocation that failed above must not pass for "no such
	 * output": each name asked for is there. */
	if (((ix->opts.pack_path || ix->opts.pack_dir) && !ix->final_pack) ||
	    ((ix->opts.idx_path || ix->opts.pack_dir) && !ix->final_idx))
		return wg_error_set(WG_ENOMEM, "out of memory naming the pack");
	/* (An index not named *.idx gets no .rev or .keep, as before.) */
	if (ix->final_idx && ix->opts.write_rev &&
	    !(ix->final_rev = with_ext(ix->final_idx, ".idx", ".rev")) &&
	    ends_with(ix->final_idx, ".idx"))
		return wg_error_set(WG_ENOMEM, "out of memory naming the pack");
	if (ix->final_idx && ix->opts.keep_msg &&
	    !(ix->final_keep = with_ext(ix->final_idx, ".idx", ".keep")) &&
	    ends_with(ix->final_idx, ".idx"))
		return wg_error_set(WG_ENOMEM, "out of memory naming the pack");
	return 0;
}

/* Write data under a temporary name next to `path`; *tmp_out receives it. */
static int write_temp(char **tmp_out, const char *path, const struct wg_buf *data)
{
	char *dir = dir_of(path), *tmp = dir ? dup_path(dir, "tmp_idx_XXXXXX") : NULL;
	const unsigned char *p = data->data;
	size_t len = data->len;
	int fd, err = 0;
	wg_free(dir);
	if (!tmp)
		return wg_error_set(WG_ENOMEM, "out of memory writing an index");
	fd = wg_fs_mkstemp(tmp);
	if (fd < 0) {
		err = wg_error_set(WG_EIO, "cannot create a temporary file for '%s': %s", path,
				   strerror(errno));
		wg_free(tmp);
		return err;
	}
	if (wg_fs_write_all(fd, p, len))
		err = wg_error_set(WG_EIO, "cannot write '%s': %s", tmp, strerror(errno));
	if (wg_fs_close(fd) && !err)
		err = wg_error_set(WG_EIO, "cannot close '%s': %s", tmp, strerror(errno));
	if (err) {
		wg_fs_unlink(tmp);
		wg_free(tmp);
		return err;
	}
	(void)wg_fs_chmod(tmp, 0444);
	*tmp_out = tmp;
	return 0;
}

/* Move tmp into place as path; *placed says whether path is new. */
static int install(const char *tmp, const char *path, bool *placed)
{
	bool existed = wg_fs_exists(path);
	if (wg_fs_rename(tmp, path))
		return wg_error_set(WG_EIO, "cannot move '%s' into place as '%s': %s", tmp, path,
				    strerror(errno));
	*placed = !existed;
	return 0;
}

void wg_indexer_uninstall(struct wg_indexer *ix)
{
	/* The index first: without it no reader looks at the rest. */
	if (ix->placed_idx)
		wg_fs_unlink(ix->final_idx);
	if (ix->placed_rev)
		wg_fs_unlink(ix->final_rev);
	if (ix->placed_pack)
		wg_fs_unlink(ix->final_pack);
	if (ix->placed_keep)
		wg_fs_unlink(ix->final_keep);
	ix->placed_idx = ix->placed_rev = ix->placed_pack = ix->placed_keep = false;
}

/* The .idx and .rev in memory (ix->idx, ix->rev), so the objects can be
 * found by id before anything is installed. */
static int build_index(struct wg_indexer *ix)
{
	struct wg_pack_idx_entry *entries;
	uint32_t i;
	int err;

	entries = wg_calloc(ix->nobjs ? ix->nobjs : 1, sizeof(*entries));
	if (!entries)
		return wg_error_set(WG_ENOMEM, "out of memory writing the index");
	wg_free(ix->by_id);
	ix->by_id = wg_malloc((ix->nobjs ? ix->nobjs : 1) * sizeof(*ix->by_id));
	if (!ix->by_id) {
		wg_free(entries);
		return wg_error_set(WG_ENOMEM, "out of memory writing the index");
	}
	for (i = 0; i < ix->nobjs; i++) {
		wg_oid_from_raw(&entries[i].oid, ix->algo, ix->objs[i].id);
		entries[i].offset = ix->objs[i].offset;
		entries[i].crc32 = ix->objs[i].crc;
		entries[i].tag = i;
	}
	err = wg_pack_idx_sort(entries, ix->nobjs);
	for (i = 0; !err && i < ix->nobjs; i++)
		ix->by_id[i] = entries[i].tag;
	if (!err)
		err = wg_pack_idx_write(&ix->idx, ix->algo, entries, ix->nobjs, ix->pack_hash);
	wg_free(entries);
	if (!err && ix->final_rev) {
		/* objs are in pack order: each one's idx position, in that
		 * order, is the .rev */
		uint32_t *positions = wg_malloc((ix->nobjs ? ix->nobjs : 1) * sizeof(*positions));
		if (!positions)
			return wg_error_set(WG_ENOMEM, "out of memory writing the index");
		for (i = 0; i < ix->nobjs; i++)
			positions[ix->by_id[i]] = i;
		err = wg_pack_rev_write_positions(&ix->rev, ix->algo, positions, ix->nobjs,
						  ix->pack_hash);
		wg_free(positions);
	}
	return err;
}

static int write_outputs(struct wg_indexer *ix)
{
	struct wg_buf keep = WG_BUF_INIT;
	char *tmp_idx = NULL, *tmp_rev = NULL, *tmp_keep = NULL;
	int err = 0;

	if (ix->final_keep && ix->opts.keep_msg[0])
		err = wg_buf_printf(&keep, "%s\n", ix->opts.keep_msg);
	if (err)
		goto done;
	/* Everything under temporary names first, then renames, the index
	 * last: a reader that finds the .idx finds the rest. */
	if ((ix->final_keep && (err = write_temp(&tmp_keep, ix->final_keep, &keep))) ||
	    (ix->final_rev && (err = write_temp(&tmp_rev, ix->final_rev, &ix->rev))) ||
	    (ix->final_idx && (err = write_temp(&tmp_idx, ix->final_idx, &ix->idx))))
		goto done;
	if (tmp_keep) {
		if ((err = install(tmp_keep, ix->final_keep, &ix->placed_keep)))
			goto done;
		wg_free(tmp_keep);
		tmp_keep = NULL;
	}
	if (ix->final_pack) {
		if (wg_fs_fsync(ix->fd) && errno != EINVAL && errno != ENOSYS) {
			err = wg_error_set(WG_EIO, "cannot fsync '%s': %s", ix->tmp_pack,
					   strerror(errno));
			goto done;
		}
		(void)wg_fs_chmod(ix->tmp_pack, 0444);
		if (wg_fs_exists(ix->final_pack)) {
			/* Same name, same checksum: the pack is already here. */
			wg_fs_unlink(ix->tmp_pack);
		} else if ((err = install(ix->tmp_pack, ix->final_pack, &ix->placed_pack))) {
			goto done;
		}
		wg_free(ix->tmp_pack);
		ix->tmp_pack = NULL;
	}
	if (tmp_rev) {
		if ((err = install(tmp_rev, ix->final_rev, &ix->placed_rev)))
			goto done;
		wg_free(tmp_rev);
		tmp_rev = NULL;
	}
	if (tmp_idx) {
		if ((err = install(tmp_idx, ix->final_idx, &ix->placed_idx)))
			goto done;
		wg_free(tmp_idx);
		tmp_idx = NULL;
	}
done:
	/* All or nothing: a failure takes back the files already placed. */
	if (err)
		wg_indexer_uninstall(ix);
	if (tmp_keep)
		wg_fs_unlink(tmp_keep);
	if (tmp_rev)
		wg_fs_unlink(tmp_rev);
	if (tmp_idx)
		wg_fs_unlink(tmp_idx);
	wg_free(tmp_keep);
	wg_free(tmp_rev);
	wg_free(tmp_idx);
	wg_buf_release(&keep);
	return err;
}

static int finish(struct wg_indexer *ix, unsigned char *pack_hash)
{
	uint32_t i, unresolved;
	size_t k;
	int err;

	switch (ix->state) {
	case ST_DONE:
		break;
	case ST_HEADER:
		return wg_error_set(WG_ECORRUPT, "pack is truncated: early EOF in the pack header "
				    "(%zu of %d bytes)", ix->hlen, WG_PACK_HEADER_SIZE);
	case ST_TRAILER:
		return wg_error_set(WG_ECORRUPT, "pack is truncated: early EOF in the trailing "
				    "checksum");
	case ST_ENTRY:
	case ST_DATA:
		return wg_error_set(WG_ECORRUPT, "pack is truncated: early EOF in object %u of %u "
				    "(offset %llu)", ix->nobjs + 1, ix->count,
				    (unsigned long long)ix->cur.offset);
	default:
		return wg_error_set(WG_EINVALID, "the indexer is finished or failed");
	}
	if ((err = wflush(ix)))
		return err;
	ix->progress.total_deltas = ix->ndeltas;
	/* The children lists. */
	for (i = 0; i < ix->nobjs; i++)
		if (ix->objs[i].type == WG_OBJ_OFS_DELTA)
			ix->nofs++;
	if (ix->nofs && !(ix->ofs = wg_malloc(ix->nofs * sizeof(*ix->ofs))))
		return wg_error_set(WG_ENOMEM, "out of memory resolving deltas");
	for (i = 0, k = 0; i < ix->nobjs; i++)
		if (ix->objs[i].type == WG_OBJ_OFS_DELTA) {
			ix->ofs[k].base = ix->objs[i].base_offset;
			ix->ofs[k++].obj = i;
		}
	if (ix->nofs)
		wg_sort(ix->ofs, ix->nofs, sizeof(*ix->ofs), cmp_ofs);
	if (ix->nrefs)
		wg_sort(ix->refs, ix->nrefs, sizeof(*ix->refs), cmp_ref);
	/* The file ends before the trailer for reading entries. */
	ix->file_pos -= ix->algo->rawsz;
	if ((err = resolve_all(ix)))
		return err;
	ix->file_pos += ix->algo->rawsz;
	if (ix->resolved < ix->ndeltas && ix->opts.fix_thin && (err = fix_thin(ix)))
		return err;
	unresolved = ix->ndeltas - ix->resolved;
	if (unresolved)
		return wg_error_set(WG_ECORRUPT, "pack has %u unresolved delta%s (a missing or "
				    "cyclic base, or a thin pack without --fix-thin)", unresolved,
				    unresolved == 1 ? "" : "s");
	if ((err = names(ix)) || (err = build_index(ix)))
		return err;
	/* Everything is known and nothing is visible yet: the caller's last
	 * word (fsck of blobs a tree named, connectivity). */
	if (ix->opts.before_install &&
	    (err = ix->opts.before_install(ix, ix->opts.install_payload)))
		return err;
	if ((err = write_outputs(ix)))
		return err;
	memcpy(pack_hash, ix->pack_hash, ix->algo->rawsz);
	return 0;
}

int wg_indexer_finish(struct wg_indexer *ix, unsigned char *pack_hash)
{
	int err;
	if (ix->state == ST_FAILED)
		return wg_error_set(ix->error ? ix->error : WG_ERROR, "the indexer failed earlier");
	if ((err = finish(ix, pack_hash))) {
		remove_temp(ix);
		return fail(ix, err);
	}
	ix->state = ST_FINISHED;
	remove_temp(ix);
	return 0;
}

uint32_t wg_indexer_object_count(const struct wg_indexer *ix) { return ix->nobjs; }

void wg_indexer_object(const struct wg_indexer *ix, uint32_t i, struct wg_indexer_object *out)
{
	const struct ix_obj *o = &ix->objs[i];
	uint64_t next = i + 1 < ix->nobjs ? ix->objs[i + 1].offset : ix->file_pos - ix->algo->rawsz;
	wg_oid_from_raw(&out->oid, ix->algo, o->id);
	out->type = (enum wg_object_type)o->real_type;
	out->pack_type = (enum wg_object_type)o->type;
	out->size = o->size;
	out->offset = o->offset;
	out->packed_size = next - o->offset;
	out->depth = o->depth;
	out->base = o->base_no;
}

/* The index in ix->objs of `oid`: its position among the sorted ids of
 * the .idx built in memory, then by_id. */
static bool find_obj(const struct wg_indexer *ix, const struct wg_oid *oid, uint32_t *out)
{
	/* The .idx (v2) in memory: 8 header bytes, the fan-out, then the
	 * sorted ids. */
	const unsigned char *idx = ix->idx.data, *ids;
	const size_t rawsz = ix->algo->rawsz;
	uint32_t lo, hi, pos, first = oid->hash[0];

	if (ix->idx.len < 8 + 256 * 4 || !ix->by_id)
		return false;
	ids = idx + 8 + 256 * 4;
	lo = first ? wg_get_be32(idx + 8 + (first - 1) * 4) : 0;
	hi = wg_get_be32(idx + 8 + first * 4);
	for (;;) {
		int c;
		if (lo >= hi)
			return false;
		pos = lo + (hi - lo) / 2;
		c = memcmp(oid->hash, ids + (size_t)pos * rawsz, rawsz);
		if (!c)
			break;
		if (c < 0)
			hi = pos;
		else
			lo = pos + 1;
	}
	*out = ix->by_id[pos];
	return true;
}

enum wg_object_type wg_indexer_find(const struct wg_indexer *ix, const struct wg_oid *oid)
{
	uint32_t i;
	return find_obj(ix, oid, &i) ? (enum wg_object_type)ix->objs[i].real_type : WG_OBJ_NONE;
}

int wg_indexer_read(struct wg_indexer *ix, const struct wg_oid *oid, enum wg_object_type *type,
		    struct wg_buf *out, size_t max_size)
{
	struct wg_buf base = WG_BUF_INIT;
	uint32_t *chain = NULL, i, j;
	size_t depth, k;
	int err = 0;

	if (!find_obj(ix, oid, &i))
		return wg_error_set(WG_ENOTFOUND, "object not in the pack being indexed");
	*type = (enum wg_object_type)ix->objs[i].real_type;
	if (!is_delta(ix->objs[i].type) && max_size && ix->objs[i].size > max_size)
		return wg_error_set(WG_ELIMIT, "object too large to wg_fs_read(%llu bytes)",
				    (unsigned long long)ix->objs[i].size);
	/* The chain from the object down to its whole base. */
	depth = ix->objs[i].depth;
	if (depth && !(chain = wg_malloc(depth * sizeof(*chain))))
		return wg_error_set(WG_ENOMEM, "out of memory reading a delta chain");
	for (k = 0, j = i; k < depth; k++) {
		chain[k] = j;
		j = ix->objs[j].base_no;
	}
	if (is_delta(ix->objs[j].type)) {
		err = wg_error_set(WG_ECORRUPT, "pack has a broken delta chain at offset %llu",
				   (unsigned long long)ix->objs[j].offset);
		goto done;
	}
	if ((err = entry_data(ix, NULL, j, depth ? &base : out)))
		goto done;
	while (depth--) {
		struct wg_buf *dst = depth ? &ix->objbuf : out;
		if ((err = entry_data(ix, NULL, chain[depth], &ix->delta)))
			goto done;
		if ((err = wg_delta_apply(dst, base.data, base.len, ix->delta.data, ix->delta.len,
					  max_size))) {
			wg_error_prefix("pack has bad object at offset %llu: cannot apply its delta",
					(unsigned long long)ix->objs[chain[depth]].offset);
			goto done;
		}
		if (depth) {
			struct wg_buf t = base;
			base = ix->objbuf;
			ix->objbuf = t;
		}
	}
done:
	wg_buf_release(&base);
	wg_free(chain);
	return err;
}

const struct wg_buf *wg_indexer_idx_data(const struct wg_indexer *ix) { return &ix->idx; }
const char *wg_indexer_pack_path(const struct wg_indexer *ix) { return ix->final_pack; }
const char *wg_indexer_idx_path(const struct wg_indexer *ix) { return ix->final_idx; }
