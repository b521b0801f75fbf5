/* Reading one file from a static host with Range requests (static_read.h).
 *
 * The operation is a loop over steps (enum step): each either finds what
 * it needs in what was read already and moves on, or names one request
 * and waits for it. The response handlers only store what came back and
 * check it; the next call to sr_next() carries on from there. A pack
 * entry is the exception: its bytes stream straight into zlib as they
 * arrive, so an entry never sits in memory compressed. */
#include "remote/static_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "object/commit.h"
#include "object/object.h"
#include "object/tag.h"
#include "object/tree.h"
#include "pack/delta_apply.h"
#include "pack/idx_slice.h"
#include "pack/pack_format.h"
#include "remote/dumb_packs.h"
#include "remote/dumb_refs.h"
#include "remote/operation_internal.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hex.h"
#include "util/strlist.h"
#include "util/url.h"
#include "util/varint.h"

#define DEFAULT_WINDOW 2048
#define DEFAULT_BUCKET_MAX 2048
#define DEFAULT_MAX_CHAIN 10000
/* tags pointing at tags: git's peel gives up at the same depth */
#define MAX_TAG_DEPTH 32
/* HEAD and objects/info/packs are a line or a few per pack */
#define MAX_SMALL_FILE (1u << 20)

enum step {
	S_INFO_REFS,    /* read info/refs */
	S_HEAD,         /* read HEAD */
	S_PACKS,        /* read objects/info/packs */
	S_OBJECT,       /* start building sr->want */
	S_LOOKUP,       /* find sr->look in packs[sr->pack] */
	S_OFFSET,       /* found at sr->pos: its offset in the pack */
	S_ENTRY,        /* read the entry at sr->entry_off of packs[sr->pack] */
	S_LOOSE,        /* not in any pack: objects/xx/yyyy */
	S_RESOLVE,      /* the chain's base is in sr->obj: apply, verify */
	S_USE,          /* sr->obj is sr->want: go on along the path */
	S_DONE,
};

/* What the pending request is for. */
enum fetch {
	F_NONE,
	F_INFO_REFS, F_HEAD, F_PACKS,
	F_IDX_HEAD, F_IDX_RECORDS, F_IDX_PROBE, F_IDX_OFFSET, F_IDX_LARGE,
	F_ENTRY, F_LOOSE,
};

/* What the object being built is, on the way to the file. */
enum purpose {
	P_TARGET,       /* what the ref names: a commit, tag or tree */
	P_TREE,         /* a tree on the path; sr->comp is the next name */
	P_BLOB,         /* the file */
};

struct pack {
	char *name;                     /* "pack-<hex>" */
	bool have_head;
	struct wg_idx_head head;
	unsigned char *bucket[256];     /* a whole bucket's records, once read */
};

/* One delta of the chain being resolved, applied top down. */
struct link {
	unsigned char *delta;
	size_t len;
};

/* A pack entry as it streams in. */
struct entry {
	uint64_t got;                   /* bytes of the entry received */
	unsigned char hdr[WG_PACK_OBJ_HEADER_MAX + WG_VARINT_MAX + WG_MAX_RAWSZ];
	size_t hdr_have;
	bool have_hdr;
	size_t hdrlen;                  /* the header with its base reference */
	enum wg_object_type type;
	uint64_t size;
	uint64_t base_off;              /* OFS_DELTA */
	struct wg_oid base_oid;         /* REF_DELTA */
	uint64_t bound;                 /* most bytes the entry can take */
	z_stream zs;
	bool zs_live;
	uint64_t in_total;
	struct wg_buf out;
	bool done;
};

struct static_read {
	struct wg_remote_op base;
	char *url;                      /* redacted, no trailing '/' */
	char *ref;                      /* NULL: HEAD */
	char *path;
	struct wg_static_read_options o;
	const struct wg_limits *limits;

	enum step step;
	enum fetch fetch;
	char range[64];                 /* "Range: bytes=a-b" */
	const char *req_headers[3];
	struct wg_buf suffix;
	uint64_t asked;                 /* bytes a range request asked for */
	uint64_t received;              /* body bytes of the current response */
	struct wg_buf resp;             /* the body, for all but entries */
	bool skip_body;                 /* a 404 page where a file may be missing */
	bool smart;

	struct wg_dumb_refs refs;
	const struct wg_hash_algo *algo;
	struct wg_oid target;
	struct pack *packs;
	size_t npacks;

	/* the path */
	enum purpose purpose;
	const char *comp;               /* into path: the next name */
	unsigned tag_depth;
	unsigned mode;

	/* the object being built */
	struct wg_oid want;
	struct wg_oid look;             /* want, or a REF_DELTA base */
	size_t pack;                    /* packs[] being searched / read */
	bool narrowing;
	uint32_t lo, hi;                /* positions that may hold look */
	struct wg_buf rec;              /* records [rec_lo, rec_hi) of rec_pack */
	size_t rec_pack;
	uint32_t rec_lo, rec_hi;
	uint32_t pos;
	uint64_t v1_offset;
	uint64_t large_at;
	uint64_t entry_off;
	struct entry e;
	struct link *chain;
	size_t nchain, chain_alloc;
	enum wg_object_type obj_type;
	struct wg_buf obj;
	/* a loose object streams through zlib too */
	z_stream lz;
	bool lz_live, lz_done;
	uint64_t lz_in;

	struct wg_buf blob;
	struct wg_oid blob_oid;
	struct wg_static_read_stats stats;
};

/* --- helpers ------------------------------------------------------------------------------ */

static const char *ref_shown(const struct static_read *sr)
{
	return sr->ref ? sr->ref : "HEAD";
}

static int oom(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory");
}

static void entry_reset(struct entry *e)
{
	struct wg_buf out = e->out;

	if (e->zs_live)
		inflateEnd(&e->zs);
	memset(e, 0, sizeof(*e));
	wg_buf_reset(&out);
	e->out = out;
}

static void chain_clear(struct static_read *sr)
{
	for (size_t i = 0; i < sr->nchain; i++)
		wg_free(sr->chain[i].delta);
	sr->nchain = 0;
}

/* Hand out a GET of <url><suffix>, with a Range header when len > 0. */
static int request(struct static_read *sr, enum fetch f, uint64_t from, uint64_t len)
{
	size_t n = 0;

	if (f == F_INFO_REFS && !sr->o.no_probe) {
		/* exactly what smart discovery sends, so that a caller that
		 * finds a smart server can hand this response to a clone */
		sr->req_headers[n++] = "Git-Protocol: version=2";
		sr->req_headers[n++] = "Accept: application/x-git-upload-pack-advertisement";
	}
	if (len) {
		snprintf(sr->range, sizeof(sr->range), "Range: bytes=%" PRIu64 "-%" PRIu64, from,
			 from + len - 1);
		sr->req_headers[n++] = sr->range;
	}
	sr->fetch = f;
	sr->asked = len;
	sr->received = 0;
	sr->skip_body = false;
	wg_buf_reset(&sr->resp);
	return wg_remote_op_set_request(&sr->base, "GET", sr->url, wg_buf_cstr(&sr->suffix),
					sr->req_headers, n);
}

static int set_suffix(struct static_read *sr, const char *fmt, const char *name, const char *ext)
{
	wg_buf_reset(&sr->suffix);
	if (wg_buf_printf(&sr->suffix, fmt, name, ext))
		return oom();
	return 0;
}

static int pack_file(struct static_read *sr, size_t i, const char *ext)
{
	return set_suffix(sr, "/objects/pack/%s.%s", sr->packs[i].name, ext);
}

static const char *fetch_what(const struct static_read *sr)
{
	return wg_buf_cstr(&sr->suffix) + 1;
}

/* --- finding the target -------------------------------------------------------------------- */

static bool is_full_hex(const char *s, const struct wg_hash_algo **algo)
{
	size_t n = strlen(s);
	if (!(*algo = wg_dumb_algo_by_hexlen(n)))
		return false;
	for (size_t i = 0; i < n; i++)
		if (wg_hex_value((unsigned char)s[i]) < 0)
			return false;
	return true;
}

/* A ref's object, peeled when info/refs gives the peeled value (an
 * annotated tag's commit: one object fewer to read). */
static void take_ref(struct static_read *sr, const struct wg_dumb_ref *r)
{
	sr->target = r->has_peeled ? r->peeled : r->oid;
}

static int resolve_ref(struct static_read *sr)
{
	const struct wg_hash_algo *algo;
	const struct wg_dumb_ref *r;

	if (!sr->ref) {
		sr->step = S_HEAD;
		return 0;
	}
	if (is_full_hex(sr->ref, &algo)) {
		if (sr->algo && sr->algo != algo)
			return wg_error_set(WG_EINVALID, "'%s' is a %s id, but %s holds %s objects",
					    sr->ref, algo->name, sr->url, sr->algo->name);
		sr->algo = algo;
		wg_oid_from_hex(&sr->target, algo, sr->ref);
		sr->step = S_PACKS;
		return 0;
	}
	if (!(r = wg_dumb_refs_dwim(&sr->refs, sr->ref)))
		return wg_error_set(WG_ENOTFOUND, "ref '%s' not found on %s (its info/refs lists "
				    "%zu refs; on a static host, run `git update-server-info` "
				    "after every push)", sr->ref, sr->url, sr->refs.nr);
	take_ref(sr, r);
	sr->step = S_PACKS;
	return 0;
}

static int end_info_refs(struct static_read *sr)
{
	int err;

	if ((err = wg_dumb_refs_parse(&sr->refs, (const char *)sr->resp.data, sr->resp.len,
				      sr->limits)))
		return wg_error_prefix("%s/info/refs", sr->url);
	sr->algo = sr->refs.algo;
	return resolve_ref(sr);
}

static int end_head(struct static_read *sr)
{
	const struct wg_dumb_ref *r;
	char *symref = NULL;
	int err;

	if ((err = wg_dumb_head_parse(&symref, &sr->target, sr->algo,
				      (const char *)sr->resp.data, sr->resp.len)))
		return wg_error_prefix("%s/HEAD", sr->url);
	if (symref) {
		r = wg_dumb_refs_find(&sr->refs, symref);
		if (!r) {
			err = wg_error_set(WG_ENOTFOUND, "HEAD of %s points to %s, which its "
					   "info/refs does not list (a branch with no commits yet, "
					   "or info/refs is stale: run `git update-server-info`)",
					   sr->url, symref);
			wg_free(symref);
			return err;
		}
		wg_free(symref);
		take_ref(sr, r);
	} else if (!sr->algo) {
		sr->algo = wg_oid_algo(&sr->target);
	}
	sr->step = S_PACKS;
	return 0;
}

static int end_packs(struct static_read *sr, bool missing)
{
	struct wg_strlist names = { 0 };
	int err = 0;

	if (!missing && (err = wg_dumb_packs_parse(&names, (const char *)sr->resp.data,
						   sr->resp.len, sr->algo))) {
		wg_strlist_release(&names);
		return err;
	}
	if (names.n && !(sr->packs = wg_calloc(names.n, sizeof(*sr->packs)))) {
		wg_strlist_release(&names);
		return oom();
	}
	for (size_t i = 0; i < names.n; i++) {
		sr->packs[i].name = names.v[i];
		names.v[i] = NULL;
	}
	sr->npacks = names.n;
	wg_strlist_release(&names);
	sr->want = sr->target;
	sr->purpose = P_TARGET;
	sr->step = S_OBJECT;
	return 0;
}

/* --- looking an id up in the pack indexes ------------------------------------------------- */

static const unsigned char *records_for(struct static_read *sr, uint32_t lo, uint32_t hi)
{
	struct pack *p = &sr->packs[sr->pack];
	unsigned first = sr->look.hash[0];
	uint32_t blo, bhi;

	wg_idx_bucket(&p->head, first, &blo, &bhi);
	if (p->bucket[first])
		return p->bucket[first] + (size_t)(lo - blo) * wg_idx_record_size(&p->head);
	if (sr->rec.len && sr->rec_pack == sr->pack && sr->rec_lo == lo && sr->rec_hi == hi)
		return sr->rec.data;
	return NULL;
}

/* The response holds the index records [lo, hi) of the current pack:
 * keep them as the ones records_for() hands out (the buffers swap, so
 * neither is copied). */
static void keep_records(struct static_read *sr)
{
	struct wg_buf t = sr->rec;
	sr->rec = sr->resp;
	sr->resp = t;
	sr->rec_pack = sr->pack;
	sr->rec_lo = sr->lo;
	sr->rec_hi = sr->hi;
}

static int step_lookup(struct static_read *sr)
{
	struct pack *p;
	const unsigned char *records;
	uint32_t mid;

	if (sr->pack == sr->npacks) {
		sr->step = S_LOOSE;
		return 1;
	}
	p = &sr->packs[sr->pack];
	if (!p->have_head) {
		int err = pack_file(sr, sr->pack, "idx");
		return err ? err : request(sr, F_IDX_HEAD, 0, WG_IDX_HEAD_SIZE);
	}
	if (!sr->narrowing) {
		wg_idx_bucket(&p->head, sr->look.hash[0], &sr->lo, &sr->hi);
		sr->narrowing = true;
	}
	if (sr->lo == sr->hi) {
		sr->narrowing = false;
		sr->pack++;
		return 1;
	}
	if ((records = records_for(sr, sr->lo, sr->hi))) {
		int found = wg_idx_records_find(&p->head, records, sr->lo, sr->hi, &sr->look,
						&sr->pos);
		sr->narrowing = false;
		if (found) {
			sr->pack++;
			return 1;
		}
		if (p->head.version == 1)
			sr->v1_offset = wg_idx_record_offset_v1(records + (size_t)(sr->pos - sr->lo) *
								wg_idx_record_size(&p->head));
		sr->step = S_OFFSET;
		return 1;
	}
	if (pack_file(sr, sr->pack, "idx"))
		return oom();
	if (sr->hi - sr->lo > sr->o.bucket_max) {
		/* a bucket too big to read whole: halve it by one id */
		mid = sr->lo + (sr->hi - sr->lo) / 2;
		sr->pos = mid;
		return request(sr, F_IDX_PROBE, wg_idx_record_at(&p->head, mid),
			       wg_idx_record_size(&p->head));
	}
	return request(sr, F_IDX_RECORDS, wg_idx_record_at(&p->head, sr->lo),
		       (uint64_t)(sr->hi - sr->lo) * wg_idx_record_size(&p->head));
}

static int short_read(struct static_read *sr)
{
	return wg_error_set(WG_ECORRUPT, "%s/%s is truncated: %" PRIu64 " bytes at %s, %"
			    PRIu64 " expected", sr->url, fetch_what(sr), sr->received,
			    sr->range + 7, sr->asked);
}

static int end_idx(struct static_read *sr)
{
	struct pack *p = &sr->packs[sr->pack];
	char name[256];

	if (sr->fetch == F_IDX_HEAD) {
		snprintf(name, sizeof(name), "%s/%s", sr->url, fetch_what(sr));
		if (wg_idx_head_parse(&p->head, sr->resp.data, sr->resp.len, sr->algo, name))
			return wg_error_code();
		p->have_head = true;
		return 0;
	}
	if (sr->received != sr->asked)
		return short_read(sr);
	switch (sr->fetch) {
	case F_IDX_RECORDS: {
		unsigned first = sr->look.hash[0];
		uint32_t blo, bhi;
		wg_idx_bucket(&p->head, first, &blo, &bhi);
		if (blo == sr->lo && bhi == sr->hi) {
			size_t len;
			/* the whole bucket: kept for the next id that starts
			 * with the same byte */
			if (!(p->bucket[first] = wg_buf_detach(&sr->resp, &len)))
				return oom();
		} else {
			keep_records(sr);
		}
		return 0;
	}
	case F_IDX_PROBE: {
		int c = memcmp(sr->look.hash, wg_idx_record_id(&p->head, sr->resp.data),
			       p->head.rawsz);
		if (c < 0) {
			sr->hi = sr->pos;
		} else if (c > 0) {
			sr->lo = sr->pos + 1;
		} else {
			sr->lo = sr->pos;
			sr->hi = sr->pos + 1;
			keep_records(sr);
		}
		return 0;
	}
	case F_IDX_OFFSET: {
		int r = wg_idx_offset32_decode(&p->head, wg_get_be32(sr->resp.data),
					       &sr->entry_off, &sr->large_at);
		if (r < 0)
			return wg_error_prefix("%s/%s", sr->url, fetch_what(sr));
		if (r == 0) {
			entry_reset(&sr->e);
			sr->step = S_ENTRY;
		}
		return 0;
	}
	case F_IDX_LARGE:
		sr->entry_off = wg_get_be64(sr->resp.data);
		entry_reset(&sr->e);
		sr->step = S_ENTRY;
		return 0;
	default:
		return wg_error_set(WG_EINVALID, "static read: unexpected response");
	}
}

static int step_offset(struct static_read *sr)
{
	struct pack *p = &sr->packs[sr->pack];
	int err;

	if (p->head.version == 1) {
		sr->entry_off = sr->v1_offset;
		entry_reset(&sr->e);
		sr->step = S_ENTRY;
		return 1;
	}
	if ((err = pack_file(sr, sr->pack, "idx")))
		return err;
	if (sr->large_at)
		return request(sr, F_IDX_LARGE, sr->large_at, 8);
	return request(sr, F_IDX_OFFSET, wg_idx_offset32_at(&p->head, sr->pos), 4);
}

/* --- pack entries --------------------------------------------------------------------------- */

static int entry_corrupt(struct static_read *sr, const char *what)
{
	return wg_error_set(WG_ECORRUPT, "%s/objects/pack/%s.pack: the entry at offset %" PRIu64
			    " %s", sr->url, sr->packs[sr->pack].name, sr->entry_off, what);
}

/* Give zlib `len` more bytes of the entry's (or a loose object's) stream. */
static int inflate_some(struct static_read *sr, z_stream *zs, struct wg_buf *out,
			uint64_t size, bool exact, uint64_t *in_total, const unsigned char *data,
			size_t len, bool *done, const char *what)
{
	zs->next_in = (unsigned char *)data;
	zs->avail_in = (uInt)len;
	while (zs->avail_in && !*done) {
		unsigned char extra;
		uInt before_in = zs->avail_in;
		size_t room;
		int zret, err;
		if (out->len < size && out->cap <= out->len + 1) {
			/* grow with what really comes, not with what the header
			 * claims (util/limits.h checks the claim separately) */
			uint64_t step = out->len < 65536 ? 65536 : out->len;
			if (step > size - out->len)
				step = size - out->len;
			if (wg_buf_grow(out, (size_t)step))
				return oom();
		}
		room = out->len < size ? out->cap - 1 - out->len : 0;
		if (room > size - out->len)
			room = (size_t)(size - out->len);
		if (room) {
			zs->next_out = out->data + out->len;
			zs->avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
		} else {
			/* all of it is here: one more byte would be too many */
			zs->next_out = &extra;
			zs->avail_out = 1;
		}
		zret = inflate(zs, Z_NO_FLUSH);
		if (room)
			out->len = (size_t)((zs->next_out) - out->data);
		else if (!zs->avail_out)
			return wg_error_set(WG_ECORRUPT, "%s inflates to more than %s%" PRIu64
					    " bytes", what, exact ? "the " : "", size);
		*in_total += before_in - zs->avail_in;
		if (zret == Z_STREAM_END) {
			if (exact && out->len != size)
				return wg_error_set(WG_ECORRUPT, "%s inflates to %zu bytes, not the "
						    "%" PRIu64 " it declares", what, out->len, size);
			*done = true;
			break;
		}
		if (zret != Z_OK && zret != Z_BUF_ERROR)
			return wg_error_set(WG_ECORRUPT, "%s: bad zlib data (%s)", what,
					    zs->msg ? zs->msg : "inflate failed");
		if ((err = wg_limits_check_inflate(sr->limits, out->len, *in_total, what)))
			return err;
		if (before_in == zs->avail_in && (!room || zs->avail_out ==
						   (room > UINT32_MAX ? UINT32_MAX : (uInt)room)))
			return wg_error_set(WG_ECORRUPT, "%s: zlib made no progress", what);
	}
	if (out->data)
		out->data[out->len] = '\0';
	return 0;
}

static int entry_header(struct static_read *sr)
{
	struct entry *e = &sr->e;
	int n, m;

	n = wg_pack_object_header_decode(e->hdr, e->hdr_have, &e->type, &e->size);
	if (n < 0)
		return entry_corrupt(sr, "has a bad header");
	if (n == 0)
		return 0;
	if (e->type == WG_OBJ_OFS_DELTA) {
		uint64_t rel;
		m = wg_varint_ofs_decode(e->hdr + n, e->hdr_have - (size_t)n, &rel);
		if (m < 0)
			return entry_corrupt(sr, "has a bad delta base offset");
		if (m == 0)
			return 0;
		/* strictly backwards: an OFS_DELTA chain cannot loop */
		if (!rel || rel > sr->entry_off)
			return entry_corrupt(sr, "has a delta base offset that is not before it");
		e->base_off = sr->entry_off - rel;
		e->hdrlen = (size_t)n + (size_t)m;
	} else if (e->type == WG_OBJ_REF_DELTA) {
		if (e->hdr_have < (size_t)n + sr->algo->rawsz)
			return 0;
		wg_oid_from_raw(&e->base_oid, sr->algo, e->hdr + n);
		e->hdrlen = (size_t)n + sr->algo->rawsz;
	} else {
		e->hdrlen = (size_t)n;
	}
	if (wg_limits_check_object_size(sr->limits, e->size, "pack entry"))
		return wg_error_prefix("%s/objects/pack/%s.pack offset %" PRIu64, sr->url,
				       sr->packs[sr->pack].name, sr->entry_off);
	if (e->size >= SIZE_MAX / 2)
		return entry_corrupt(sr, "is too large for this build");
	/* deflate's worst case (stored blocks) is a few bytes per 16 KiB
	 * over the data; this bounds how much is ever asked for, and how
	 * long a stream that never ends may run */
	e->bound = e->hdrlen + e->size + (e->size >> 3) + 1024;
	if (inflateInit(&e->zs) != Z_OK)
		return oom();
	e->zs_live = true;
	e->have_hdr = true;
	return 0;
}

static int feed_entry(struct static_read *sr, const unsigned char *data, size_t len)
{
	struct entry *e = &sr->e;
	char what[128];
	int err;

	if (!e->have_hdr) {
		size_t take = sizeof(e->hdr) - e->hdr_have, had = e->hdr_have;
		if (take > len)
			take = len;
		memcpy(e->hdr + e->hdr_have, data, take);
		e->hdr_have += take;
		if ((err = entry_header(sr)))
			return err;
		if (!e->have_hdr) {
			if (e->hdr_have == sizeof(e->hdr))
				return entry_corrupt(sr, "has a bad header");
			return 0;
		}
		/* what followed the header in hdr, then the rest of data */
		data += e->hdrlen - had;
		len -= e->hdrlen - had;
	}
	if (e->done || !len)
		return 0;
	snprintf(what, sizeof(what), "the pack entry at offset %" PRIu64, sr->entry_off);
	if ((err = inflate_some(sr, &e->zs, &e->out, e->size, true, &e->in_total, data, len,
				&e->done, what)))
		return wg_error_prefix("%s/objects/pack/%s.pack", sr->url,
				       sr->packs[sr->pack].name);
	return 0;
}

static int push_link(struct static_read *sr)
{
	struct link *l;
	size_t len;

	if (sr->nchain >= sr->o.max_chain)
		return wg_error_set(WG_ECORRUPT, "%s: the delta chain of %s is longer than %u "
				    "(a cycle of deltas, or a corrupt pack)", sr->url,
				    wg_oid_hex(&sr->want), (unsigned)sr->o.max_chain);
	if (sr->nchain == sr->chain_alloc) {
		size_t n = sr->chain_alloc ? sr->chain_alloc * 2 : 16;
		if (!(l = wg_realloc(sr->chain, n * sizeof(*l))))
			return oom();
		sr->chain = l;
		sr->chain_alloc = n;
	}
	l = &sr->chain[sr->nchain];
	if (!(l->delta = wg_buf_detach(&sr->e.out, &len)))
		return oom();
	l->len = len;
	sr->nchain++;
	return 0;
}

static int step_entry(struct static_read *sr)
{
	struct entry *e = &sr->e;
	uint64_t chunk;
	int err;

	if (!e->done) {
		if (sr->entry_off < WG_PACK_HEADER_SIZE)
			return wg_error_set(WG_ECORRUPT, "%s/objects/pack/%s.idx gives offset %"
					    PRIu64 ", inside the pack's header", sr->url,
					    sr->packs[sr->pack].name, sr->entry_off);
		if ((err = pack_file(sr, sr->pack, "pack")))
			return err;
		/* double what was read, within what the entry can take */
		chunk = e->got < sr->o.window ? sr->o.window : e->got;
		if (e->have_hdr) {
			if (e->got >= e->bound)
				return entry_corrupt(sr, "has a zlib stream longer than its size "
						     "allows");
			if (chunk > e->bound - e->got)
				chunk = e->bound - e->got;
		}
		return request(sr, F_ENTRY, sr->entry_off + e->got, chunk);
	}
	switch (e->type) {
	case WG_OBJ_OFS_DELTA:
		if ((err = push_link(sr)))
			return err;
		sr->entry_off = e->base_off;
		entry_reset(e);
		return 1;
	case WG_OBJ_REF_DELTA: {
		struct wg_oid base = e->base_oid;
		if ((err = push_link(sr)))
			return err;
		entry_reset(e);
		/* the base may be in any pack, or loose */
		sr->look = base;
		sr->pack = 0;
		sr->narrowing = false;
		sr->large_at = 0;
		sr->step = S_LOOKUP;
		return 1;
	}
	case WG_OBJ_COMMIT:
	case WG_OBJ_TREE:
	case WG_OBJ_BLOB:
	case WG_OBJ_TAG: {
		struct wg_buf t = sr->obj;
		sr->obj_type = e->type;
		sr->obj = e->out;
		e->out = t;
		entry_reset(e);
		sr->step = S_RESOLVE;
		return 1;
	}
	default:
		return entry_corrupt(sr, "has an unknown type");
	}
}

static int end_entry(struct static_read *sr)
{
	if (!sr->e.done && sr->received < sr->asked)
		return entry_corrupt(sr, sr->e.have_hdr ? "is truncated (the file ends inside it)"
				     : "is past the end of the pack");
	return 0;
}

/* --- loose objects -------------------------------------------------------------------------- */

static int step_loose(struct static_read *sr)
{
	char hex[WG_MAX_HEXSZ + 1];
	int err;

	wg_oid_to_hex(&sr->look, hex);
	wg_buf_reset(&sr->suffix);
	if (wg_buf_printf(&sr->suffix, "/objects/%.2s/%s", hex, hex + 2))
		return oom();
	if (sr->lz_live)
		inflateEnd(&sr->lz);
	memset(&sr->lz, 0, sizeof(sr->lz));
	if (inflateInit(&sr->lz) != Z_OK)
		return oom();
	sr->lz_live = true;
	wg_buf_reset(&sr->obj);
	sr->lz_done = false;
	sr->lz_in = 0;
	if ((err = request(sr, F_LOOSE, 0, 0)))
		return err;
	return 0;
}

static int feed_loose(struct static_read *sr, const unsigned char *data, size_t len)
{
	char what[160];
	/* a loose object's size is in its (inflated) header: bounded by the
	 * object limit until that is read, and checked after */
	uint64_t cap = sr->limits->max_object_size ? sr->limits->max_object_size + 64 :
		(uint64_t)SIZE_MAX / 2;

	if (!len)
		return 0;
	snprintf(what, sizeof(what), "loose object %s", wg_oid_hex(&sr->look));
	if (sr->lz_done)
		return wg_error_set(WG_ECORRUPT, "%s/%s: data after the end of the zlib stream",
				    sr->url, fetch_what(sr));
	if (inflate_some(sr, &sr->lz, &sr->obj, cap, false, &sr->lz_in, data, len,
			 &sr->lz_done, what))
		return wg_error_prefix("%s", sr->url);
	return 0;
}

static int end_loose(struct static_read *sr)
{
	const char *p = (const char *)sr->obj.data, *sp, *nul;
	uint64_t size = 0;
	size_t hdr;

	if (!sr->lz_done)
		return wg_error_set(WG_ECORRUPT, "%s/%s is truncated (its zlib stream does not "
				    "end)", sr->url, fetch_what(sr));
	inflateEnd(&sr->lz);
	sr->lz_live = false;
	if (!p || !(nul = memchr(p, '\0', sr->obj.len)) || !(sp = memchr(p, ' ', (size_t)(nul - p))))
		return wg_error_set(WG_ECORRUPT, "%s/%s: no \"<type> <size>\" header", sr->url,
				    fetch_what(sr));
	sr->obj_type = wg_object_type_from_name(p, (size_t)(sp - p));
	for (const char *q = sp + 1; q < nul; q++) {
		if (*q < '0' || *q > '9' || size > UINT64_MAX / 10 - 1)
			return wg_error_set(WG_ECORRUPT, "%s/%s: bad size in the header", sr->url,
					    fetch_what(sr));
		size = size * 10 + (uint64_t)(*q - '0');
	}
	hdr = (size_t)(nul + 1 - p);
	if (sr->obj_type == WG_OBJ_BAD || sp + 1 == nul || size != sr->obj.len - hdr)
		return wg_error_set(WG_ECORRUPT, "%s/%s: bad header (type, or a size that is "
				    "not the content's)", sr->url, fetch_what(sr));
	memmove(sr->obj.data, sr->obj.data + hdr, sr->obj.len - hdr);
	wg_buf_setlen(&sr->obj, sr->obj.len - hdr);
	sr->obj.data[sr->obj.len] = '\0';
	sr->step = S_RESOLVE;
	return 0;
}

/* --- building the object, walking the path ---------------------------------------------- */

static int step_resolve(struct static_read *sr)
{
	struct wg_buf next = WG_BUF_INIT;
	struct wg_oid got;
	int err;

	/* deltas apply top down: the last one read applies to the base */
	while (sr->nchain) {
		struct link *l = &sr->chain[sr->nchain - 1];
		err = wg_delta_apply(&next, sr->obj.data, sr->obj.len, l->delta, l->len,
				     (size_t)sr->limits->max_object_size);
		if (err) {
			wg_buf_release(&next);
			return wg_error_prefix("%s: resolving the deltas of %s", sr->url,
					       wg_oid_hex(&sr->want));
		}
		wg_free(l->delta);
		sr->nchain--;
		wg_buf_release(&sr->obj);
		sr->obj = next;
		memset(&next, 0, sizeof(next));
		sr->stats.deltas++;
	}
	if ((err = wg_object_hash(&got, sr->algo, sr->obj_type, sr->obj.data, sr->obj.len)))
		return err;
	if (!wg_oid_equal(&got, &sr->want)) {
		char a[WG_MAX_HEXSZ + 1];
		return wg_error_set(WG_ECORRUPT, "%s: the object read for %s hashes to %s (a "
				    "corrupt pack or index on the host)", sr->url,
				    wg_oid_to_hex(&sr->want, a), wg_oid_hex(&got));
	}
	sr->stats.objects++;
	sr->step = S_USE;
	return 1;
}

static int not_found(struct static_read *sr, const char *why)
{
	return wg_error_set(WG_ENOTFOUND, "path '%s' does not exist in '%s' of %s%s", sr->path,
			    ref_shown(sr), sr->url, why);
}

/* The next name of the path in the tree in sr->obj. */
static int use_tree(struct static_read *sr)
{
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	const char *end;
	size_t n;
	int err;

	while (*sr->comp == '/')
		sr->comp++;
	if (!*sr->comp)
		return wg_error_set(WG_ENOTFOUND, "'%s' in '%s' of %s is a directory, not a file",
				    *sr->path ? sr->path : "/", ref_shown(sr), sr->url);
	end = strchr(sr->comp, '/');
	n = end ? (size_t)(end - sr->comp) : strlen(sr->comp);
	wg_tree_iter_init(&it, sr->algo, sr->obj.data, sr->obj.len);
	while (!(err = wg_tree_iter_next(&it, &e)))
		if (e.namelen == n && !memcmp(e.name, sr->comp, n))
			break;
	if (err == WG_ITEROVER)
		return not_found(sr, "");
	if (err)
		return wg_error_prefix("%s: tree %s", sr->url, wg_oid_hex(&sr->want));
	sr->comp += n;
	while (*sr->comp == '/')
		sr->comp++;
	switch (wg_tree_mode_type(e.mode)) {
	case WG_OBJ_COMMIT:
		return wg_error_set(WG_ENOTFOUND, "'%s' in '%s' of %s is a submodule (commit %s): "
				    "its files are in another repository", sr->path, ref_shown(sr),
				    sr->url, wg_oid_hex(&e.oid));
	case WG_OBJ_TREE:
		sr->purpose = P_TREE;
		break;
	default:
		if (*sr->comp)
			return not_found(sr, " (a file is on the way)");
		sr->purpose = P_BLOB;
		sr->mode = e.mode;
	}
	sr->want = e.oid;
	sr->step = S_OBJECT;
	return 1;
}

static int step_use(struct static_read *sr)
{
	struct wg_commit c;
	struct wg_tag t;
	int err;

	if (sr->purpose == P_TARGET) {
		switch (sr->obj_type) {
		case WG_OBJ_TAG:
			if (++sr->tag_depth > MAX_TAG_DEPTH)
				return wg_error_set(WG_ECORRUPT, "%s: tags nested more than %d deep",
						    sr->url, MAX_TAG_DEPTH);
			wg_tag_init(&t);
			if ((err = wg_tag_parse(&t, sr->algo, sr->obj.data, sr->obj.len))) {
				wg_tag_release(&t);
				return wg_error_prefix("%s: tag %s", sr->url, wg_oid_hex(&sr->want));
			}
			sr->want = t.object;
			wg_tag_release(&t);
			sr->step = S_OBJECT;
			return 1;
		case WG_OBJ_COMMIT:
			if ((err = wg_commit_parse(&c, sr->algo, sr->obj.data, sr->obj.len))) {
				wg_commit_release(&c);
				return wg_error_prefix("%s: commit %s", sr->url, wg_oid_hex(&sr->want));
			}
			sr->want = c.tree;
			wg_commit_release(&c);
			sr->purpose = P_TREE;
			sr->step = S_OBJECT;
			return 1;
		case WG_OBJ_TREE:
			sr->purpose = P_TREE;
			return use_tree(sr);
		default:
			return wg_error_set(WG_ENOTFOUND, "'%s' of %s is a blob, not a commit or "
					    "tree: it has no path '%s'", ref_shown(sr), sr->url,
					    sr->path);
		}
	}
	if (sr->purpose == P_TREE) {
		if (sr->obj_type != WG_OBJ_TREE)
			return wg_error_set(WG_ECORRUPT, "%s: %s is a %s where a tree is listed",
					    sr->url, wg_oid_hex(&sr->want),
					    wg_object_type_name(sr->obj_type));
		return use_tree(sr);
	}
	if (sr->obj_type != WG_OBJ_BLOB)
		return wg_error_set(WG_ECORRUPT, "%s: %s is a %s where a file is listed", sr->url,
				    wg_oid_hex(&sr->want), wg_object_type_name(sr->obj_type));
	wg_buf_release(&sr->blob);
	sr->blob = sr->obj;
	memset(&sr->obj, 0, sizeof(sr->obj));
	sr->blob_oid = sr->want;
	sr->step = S_DONE;
	return 1;
}

/* --- the operation ------------------------------------------------------------------------ */

/* Run steps until one hands out a request (0), the file is read
 * (WG_ITEROVER) or something fails. A step returns 1 to go on. */
static int sr_next(struct wg_remote_op *op)
{
	struct static_read *sr = (struct static_read *)op;
	int r;

	/* wg_remote_op_set_limits() may come after creation */
	sr->limits = wg_remote_op_limits(op, NULL);
	for (;;) {
		switch (sr->step) {
		case S_INFO_REFS:
			if (set_suffix(sr, "%s%s", "/info/refs",
				       sr->o.no_probe ? "" : "?service=git-upload-pack"))
				return oom();
			return request(sr, F_INFO_REFS, 0, 0);
		case S_HEAD:
			if (set_suffix(sr, "%s%s", "/HEAD", ""))
				return oom();
			return request(sr, F_HEAD, 0, 0);
		case S_PACKS:
			if (set_suffix(sr, "%s%s", "/objects/info/packs", ""))
				return oom();
			return request(sr, F_PACKS, 0, 0);
		case S_OBJECT:
			chain_clear(sr);
			sr->look = sr->want;
			sr->pack = 0;
			sr->narrowing = false;
			sr->large_at = 0;
			sr->step = S_LOOKUP;
			r = 1;
			break;
		case S_LOOKUP: r = step_lookup(sr); break;
		case S_OFFSET: r = step_offset(sr); break;
		case S_ENTRY: r = step_entry(sr); break;
		case S_LOOSE: return step_loose(sr);
		case S_RESOLVE: r = step_resolve(sr); break;
		case S_USE: r = step_use(sr); break;
		case S_DONE: return WG_ITEROVER;
		default: return wg_error_set(WG_EINVALID, "static read: bad state");
		}
		if (r <= 0)
			return r;
	}
}

static int sr_begin(struct wg_remote_op *op, int status, const char *type)
{
	struct static_read *sr = (struct static_read *)op;
	static const char smart[] = "application/x-git-upload-pack-advertisement";

	sr->stats.requests++;
	if (status == 401)
		return wg_error_set(WG_EAUTH, "Authentication failed for '%s'", sr->url);
	if (status == 403)
		return wg_error_set(WG_EAUTH, "access to '%s/%s' denied (HTTP 403)", sr->url,
				    fetch_what(sr));
	if (status == 404) {
		switch (sr->fetch) {
		case F_INFO_REFS:
			return wg_error_set(WG_ENOTFOUND, "repository '%s' not found (no info/refs: "
					    "a repository on a static host needs `git "
					    "update-server-info` run in it)", sr->url);
		case F_PACKS:
			sr->skip_body = true;
			return 0;   /* no packs: every object is loose */
		case F_LOOSE:
			return wg_error_set(WG_ENOTFOUND, "object %s is not on %s: neither in the "
					    "packs objects/info/packs lists nor loose (is "
					    "objects/info/packs stale? run `git update-server-info`)",
					    wg_oid_hex(&sr->look), sr->url);
		default:
			return wg_error_set(WG_ENOTFOUND, "%s/%s not found (objects/info/packs "
					    "lists a pack the host does not have: run `git "
					    "update-server-info`)", sr->url, fetch_what(sr));
		}
	}
	if (status == 416)
		return wg_error_set(WG_ECORRUPT, "%s/%s has no bytes at %s (HTTP 416): the file "
				    "is truncated, or the index points past its end", sr->url,
				    fetch_what(sr), sr->range + 7);
	if (sr->asked && status == 200)
		return wg_error_set(WG_EUNSUPPORTED, "%s answered a byte-range request for %s "
				    "with the whole file (HTTP 200, not 206): the host does not "
				    "serve byte ranges, and without them reading one file means "
				    "downloading whole packs; clone the repository instead",
				    sr->url, fetch_what(sr));
	if (status != (sr->asked ? 206 : 200))
		return wg_error_set(WG_ERROR, "unable to access '%s/%s': the server answered HTTP "
				    "%d", sr->url, fetch_what(sr), status);
	if (sr->fetch == F_INFO_REFS && type && !strncmp(type, smart, sizeof(smart) - 1)) {
		sr->smart = true;
		return wg_error_set(WG_EUNSUPPORTED, "'%s' is a smart Git HTTP server, not a "
				    "static host: read the file through a (partial) clone", sr->url);
	}
	return 0;
}

static int sr_feed(struct wg_remote_op *op, const void *data, size_t len)
{
	struct static_read *sr = (struct static_read *)op;
	uint64_t cap;

	sr->stats.bytes += len;
	if (sr->skip_body)
		return 0;
	sr->received += len;
	if (sr->asked && sr->received > sr->asked)
		return wg_error_set(WG_ECORRUPT, "%s/%s: the host sent more than the %" PRIu64
				    " bytes asked for", sr->url, fetch_what(sr), sr->asked);
	switch (sr->fetch) {
	case F_ENTRY:
		sr->e.got += len;
		return feed_entry(sr, data, len);
	case F_LOOSE:
		return feed_loose(sr, data, len);
	case F_INFO_REFS:
		cap = sr->limits->max_advertisement_bytes;
		break;
	case F_HEAD:
	case F_PACKS:
		cap = MAX_SMALL_FILE;
		break;
	default:
		cap = 0;   /* ranges: checked above */
	}
	if (cap && sr->received > cap)
		return wg_error_set(WG_ELIMIT, "%s/%s is larger than %" PRIu64 " bytes%s", sr->url,
				    fetch_what(sr), cap, sr->fetch == F_INFO_REFS ?
				    " (limit max_advertisement_bytes)" : "");
	return wg_buf_add(&sr->resp, data, len) ? oom() : 0;
}

static int sr_end(struct wg_remote_op *op)
{
	struct static_read *sr = (struct static_read *)op;
	int err;

	switch (sr->fetch) {
	case F_INFO_REFS: err = end_info_refs(sr); break;
	case F_HEAD: err = end_head(sr); break;
	case F_PACKS: err = end_packs(sr, sr->skip_body); break;
	case F_ENTRY: err = end_entry(sr); break;
	case F_LOOSE: err = end_loose(sr); break;
	case F_NONE: return wg_error_set(WG_EINVALID, "static read: no request pending");
	default: err = end_idx(sr); break;
	}
	sr->fetch = F_NONE;
	return err;
}

static void sr_free(struct wg_remote_op *op)
{
	struct static_read *sr = (struct static_read *)op;

	wg_free(sr->url);
	wg_free(sr->ref);
	wg_free(sr->path);
	wg_buf_release(&sr->suffix);
	wg_buf_release(&sr->resp);
	wg_buf_release(&sr->rec);
	wg_buf_release(&sr->obj);
	wg_buf_release(&sr->blob);
	wg_dumb_refs_release(&sr->refs);
	for (size_t i = 0; i < sr->npacks; i++) {
		wg_free(sr->packs[i].name);
		for (unsigned b = 0; b < 256; b++)
			wg_free(sr->packs[i].bucket[b]);
	}
	wg_free(sr->packs);
	entry_reset(&sr->e);
	wg_buf_release(&sr->e.out);
	if (sr->lz_live)
		inflateEnd(&sr->lz);
	chain_clear(sr);
	wg_free(sr->chain);
	wg_free(sr);
}

static const struct wg_remote_op_vtable sr_vtable = {
	sr_next, sr_begin, sr_feed, sr_end, sr_free,
};

int wg_static_read_new(struct wg_remote_op **out, const char *url, const char *ref,
		       const char *path, const struct wg_static_read_options *opts)
{
	struct static_read *sr;
	size_t n;
	int err;

	*out = NULL;
	if (!url || !path)
		return wg_error_set(WG_EINVALID, "a URL and a path are required");
	while (*path == '/')
		path++;
	if (!*path)
		return wg_error_set(WG_EINVALID, "a file path is required (the root is a "
				    "directory)");
	if (!(sr = wg_calloc(1, sizeof(*sr))))
		return oom();
	sr->base.vt = &sr_vtable;
	if (opts)
		sr->o = *opts;
	if (!sr->o.window)
		sr->o.window = DEFAULT_WINDOW;
	if (!sr->o.bucket_max)
		sr->o.bucket_max = DEFAULT_BUCKET_MAX;
	if (!sr->o.max_chain)
		sr->o.max_chain = DEFAULT_MAX_CHAIN;
	if (!(sr->url = wg_url_redact_dup(url)) || !(sr->path = wg_strdup(path)) ||
	    (ref && *ref && strcmp(ref, "HEAD") && !(sr->ref = wg_strdup(ref)))) {
		err = oom();
		goto fail;
	}
	n = strlen(sr->url);
	while (n && sr->url[n - 1] == '/')
		sr->url[--n] = '\0';
	if (strncmp(sr->url, "http://", 7) && strncmp(sr->url, "https://", 8)) {
		err = wg_error_set(WG_EUNSUPPORTED, "'%s' is not an http:// or https:// URL",
				   sr->url);
		goto fail;
	}
	if ((err = wg_remote_op_set_credentials(&sr->base, url)))
		goto fail;
	sr->comp = sr->path;
	sr->step = S_INFO_REFS;
	sr->limits = wg_limits_default();   /* until sr_next() looks again */
	*out = &sr->base;
	return 0;
fail:
	wg_remote_op_free(&sr->base);
	return err;
}

const unsigned char *wg_static_read_data(struct wg_remote_op *op, size_t *len)
{
	struct static_read *sr = (struct static_read *)op;
	*len = sr->blob.len;
	return sr->blob.data ? sr->blob.data : (const unsigned char *)"";
}

void wg_static_read_blob(struct wg_remote_op *op, struct wg_oid *oid, unsigned *mode)
{
	struct static_read *sr = (struct static_read *)op;
	if (oid)
		*oid = sr->blob_oid;
	if (mode)
		*mode = sr->mode;
}

const struct wg_hash_algo *wg_static_read_algo(struct wg_remote_op *op)
{
	return ((struct static_read *)op)->algo;
}

bool wg_static_read_smart(struct wg_remote_op *op)
{
	return op && ((struct static_read *)op)->smart;
}

void wg_static_read_stats(struct wg_remote_op *op, struct wg_static_read_stats *out)
{
	*out = ((struct static_read *)op)->stats;
}
