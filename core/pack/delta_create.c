#include "pack/delta_create.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/varint.h"

/* Fingerprint width: a match must contain one whole aligned source block
 * of this size to be found, so matches of 2 * BLOCK - 1 bytes or more are
 * always found. Smaller blocks find shorter matches at the price of a
 * bigger index and more candidates per lookup. */
#define BLOCK 16
/* Most entries kept per hash bucket: long runs of repeated content would
 * otherwise make each lookup walk thousands of candidates. */
#define BUCKET_LIMIT 64
/* A candidate this long is taken without looking at the others. */
#define GOOD_ENOUGH 4096
/* Shorter matches are not worth a copy instruction (which takes up to
 * eight bytes) when an insert is already open. */
#define MIN_COPY 8
/* The largest size a copy instruction carries in every reader. */
#define MAX_COPY 0x10000
#define MAX_INSERT 127

/* Polynomial rolling hash over BLOCK bytes, modulo 2^32. */
#define HMUL 0x01000193u

struct entry {
	uint32_t off;   /* of the block in the source */
	uint32_t hash;  /* full fingerprint, to skip most false candidates */
};

struct wg_delta_index {
	const unsigned char *src;
	size_t len;
	unsigned bits;          /* log2 of the bucket count */
	uint32_t mul_out;       /* HMUL^BLOCK: weight of the byte leaving */
	uint32_t *bucket;       /* 2^bits + 1 start positions into entries */
	struct entry *entries;  /* grouped by bucket, ascending offsets */
	size_t nentries;
};

static uint32_t block_hash(const unsigned char *p)
{
	uint32_t h = 0;
	unsigned i;
	for (i = 0; i < BLOCK; i++)
		h = h * HMUL + p[i];
	return h;
}

/* Low bits of a multiplicative hash depend only on low bits of the input,
 * so mix before taking the top bits as the bucket. */
static uint32_t bucket_of(uint32_t h, unsigned bits)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return bits ? h >> (32 - bits) : 0;
}

/* Whether block i repeats block i - 1 exactly. */
static int repeats(const unsigned char *src, const uint32_t *hashes, size_t i)
{
	return i && hashes[i] == hashes[i - 1] &&
	       !memcmp(src + i * BLOCK, src + (i - 1) * BLOCK, BLOCK);
}

int wg_delta_index_new(struct wg_delta_index **out, const void *src, size_t len)
{
	struct wg_delta_index *ix;
	size_t nblocks, nbuckets, i, kept = 0;
	uint32_t *hashes = NULL, *count = NULL, *seen = NULL;
	unsigned bits = 0;
	int err = WG_ENOMEM;

	*out = NULL;
	if (len > WG_DELTA_MAX_SOURCE)
		return wg_error_set(WG_EUNSUPPORTED, "cannot delta against a source of %zu bytes "
				    "(the format addresses at most 4 GiB)", len);
	if (!(ix = wg_calloc(1, sizeof(*ix))))
		return wg_error_set(WG_ENOMEM, "out of memory indexing a delta source");
	ix->src = src;
	ix->len = len;
	ix->mul_out = 1;
	for (i = 0; i < BLOCK; i++)
		ix->mul_out *= HMUL;

	nblocks = len / BLOCK;
	while (bits < 31 && ((size_t)1 << bits) < nblocks)
		bits++;
	ix->bits = bits;
	nbuckets = (size_t)1 << bits;
	if (!(ix->bucket = wg_calloc(nbuckets + 1, sizeof(*ix->bucket))))
		goto fail;
	if (!nblocks) {
		*out = ix;
		return 0;
	}
	if (!(hashes = wg_calloc(nblocks, sizeof(*hashes))) ||
	    !(count = wg_calloc(nbuckets, sizeof(*count))) ||
	    !(seen = wg_calloc(nbuckets, sizeof(*seen))))
		goto fail;

	/* Of a run of identical consecutive blocks (zero padding, repeated
	 * lines) only the first is indexed: forward extension from it covers
	 * the rest, and the bucket is not flooded. */
	for (i = 0; i < nblocks; i++) {
		hashes[i] = block_hash(ix->src + i * BLOCK);
		if (!repeats(ix->src, hashes, i))
			count[bucket_of(hashes[i], bits)]++;
	}
	/* Crowded buckets keep BUCKET_LIMIT entries spread evenly over the
	 * source, rather than only its beginning. */
	for (i = 0; i < nbuckets; i++)
		kept += count[i] > BUCKET_LIMIT ? BUCKET_LIMIT : count[i];
	if (!(ix->entries = wg_calloc(kept ? kept : 1, sizeof(*ix->entries))))
		goto fail;
	ix->nentries = kept;
	{
		uint32_t pos = 0;
		for (i = 0; i < nbuckets; i++) {
			ix->bucket[i] = pos;
			pos += count[i] > BUCKET_LIMIT ? BUCKET_LIMIT : count[i];
		}
		ix->bucket[nbuckets] = pos;
	}
	{
		/* seen[b] counts candidates met so far in bucket b, fill[b]
		 * is where the next kept one goes. */
		uint32_t *fill = wg_calloc(nbuckets, sizeof(*fill));
		if (!fill)
			goto fail;
		for (i = 0; i < nbuckets; i++)
			fill[i] = ix->bucket[i];
		for (i = 0; i < nblocks; i++) {
			uint32_t h = hashes[i], b, c, j;
			if (repeats(ix->src, hashes, i))
				continue;
			b = bucket_of(h, bits);
			c = count[b];
			j = seen[b]++;
			/* Keep j when floor(j*L/c) steps: exactly L of c survive. */
			if (c > BUCKET_LIMIT &&
			    (uint64_t)(j + 1) * BUCKET_LIMIT / c == (uint64_t)j * BUCKET_LIMIT / c)
				continue;
			ix->entries[fill[b]].off = (uint32_t)(i * BLOCK);
			ix->entries[fill[b]].hash = h;
			fill[b]++;
		}
		wg_free(fill);
	}
	wg_free(hashes);
	wg_free(count);
	wg_free(seen);
	*out = ix;
	return 0;
fail:
	wg_free(hashes);
	wg_free(count);
	wg_free(seen);
	wg_delta_index_free(ix);
	return wg_error_set(err, "out of memory indexing a delta source of %zu bytes", len);
}

void wg_delta_index_free(struct wg_delta_index *index)
{
	if (!index)
		return;
	wg_free(index->bucket);
	wg_free(index->entries);
	wg_free(index);
}

size_t wg_delta_index_memsize(const struct wg_delta_index *index)
{
	if (!index)
		return 0;
	return sizeof(*index) + (((size_t)1 << index->bits) + 1) * sizeof(uint32_t) +
	       index->nentries * sizeof(struct entry);
}

size_t wg_delta_index_source_size(const struct wg_delta_index *index)
{
	return index ? index->len : 0;
}

/* --- encoder ------------------------------------------------------------- */

struct encoder {
	struct wg_buf *out;
	size_t max;  /* 0 = no limit */
};

static int emit_inserts(struct encoder *enc, const unsigned char *p, size_t n)
{
	int err;
	while (n) {
		size_t chunk = n > MAX_INSERT ? MAX_INSERT : n;
		if ((err = wg_buf_addch(enc->out, (int)chunk)) ||
		    (err = wg_buf_add(enc->out, p, chunk)))
			return err;
		p += chunk;
		n -= chunk;
	}
	return 0;
}

static int emit_copy(struct encoder *enc, size_t off, size_t n)
{
	while (n) {
		unsigned char op[8];
		size_t k = 1, chunk = n > MAX_COPY ? MAX_COPY : n;
		unsigned i;
		int err;
		op[0] = 0x80;
		for (i = 0; i < 4; i++)
			if ((off >> (8 * i)) & 0xff) {
				op[0] |= (unsigned char)(1u << i);
				op[k++] = (unsigned char)(off >> (8 * i));
			}
		/* A size of exactly 64 KiB is written as no size bytes at all:
		 * the format reads a zero size as 0x10000. */
		if (chunk != MAX_COPY)
			for (i = 0; i < 3; i++)
				if ((chunk >> (8 * i)) & 0xff) {
					op[0] |= (unsigned char)(0x10u << i);
					op[k++] = (unsigned char)(chunk >> (8 * i));
				}
		if ((err = wg_buf_add(enc->out, op, k)))
			return err;
		off += chunk;
		n -= chunk;
	}
	return 0;
}

/* Upper bound of what `n` pending literal bytes will cost. */
static size_t insert_cost(size_t n)
{
	return n + (n + MAX_INSERT - 1) / MAX_INSERT;
}

static int too_big(const struct encoder *enc, size_t pending)
{
	return enc->max && enc->out->len + insert_cost(pending) > enc->max;
}

static size_t match_forward(const unsigned char *a, const unsigned char *b, size_t max)
{
	size_t n = 0;
	while (n < max && a[n] == b[n])
		n++;
	return n;
}

int wg_delta_create(struct wg_buf *out, const struct wg_delta_index *index,
		    const void *target, size_t len, size_t max_delta_size)
{
	const unsigned char *t = target, *src = index->src;
	struct encoder enc = { out, max_delta_size };
	unsigned char hdr[2 * WG_VARINT_MAX];
	size_t hdrlen, i = 0, pending = 0;
	uint32_t h = 0;
	int err;

	wg_buf_reset(out);
	hdrlen = wg_varint_le_encode(hdr, index->len);
	hdrlen += wg_varint_le_encode(hdr + hdrlen, len);
	if ((err = wg_buf_add(out, hdr, hdrlen)))
		return err;

	if (index->nentries && len >= BLOCK)
		h = block_hash(t);
	while (index->nentries && i + BLOCK <= len) {
		const struct entry *e, *end;
		uint32_t b = bucket_of(h, index->bits);
		size_t best_len = 0, best_off = 0;

		e = index->entries + index->bucket[b];
		end = index->entries + index->bucket[b + 1];
		for (; e < end; e++) {
			size_t avail, n;
			if (e->hash != h)
				continue;
			avail = index->len - e->off;
			if (avail > len - i)
				avail = len - i;
			n = match_forward(src + e->off, t + i, avail);
			if (n > best_len) {
				best_len = n;
				best_off = e->off;
				if (n >= GOOD_ENOUGH)
					break;
			}
		}

		if (best_len < MIN_COPY) {
			/* No match here: the byte joins the pending insert and
			 * the fingerprint rolls one byte on. */
			pending++;
			if (too_big(&enc, pending))
				goto abandon;
			if (i + BLOCK < len)
				h = h * HMUL - t[i] * index->mul_out + t[i + BLOCK];
			i++;
			continue;
		}

		/* Bytes just before the match that also precede it in the
		 * source need not be inserted: grow the copy backward. */
		while (pending && best_off && src[best_off - 1] == t[i - 1]) {
			pending--;
			best_off--;
			best_len++;
			i--;
		}
		if ((err = emit_inserts(&enc, t + i - pending, pending)) ||
		    (err = emit_copy(&enc, best_off, best_len)))
			return err;
		pending = 0;
		i += best_len;
		if (too_big(&enc, 0))
			goto abandon;
		if (i + BLOCK <= len)
			h = block_hash(t + i);
	}
	/* The tail shorter than a block (or everything, with nothing indexed). */
	pending += len - i;
	if (too_big(&enc, pending))
		goto abandon;
	if ((err = emit_inserts(&enc, t + len - pending, pending)))
		return err;
	return 0;

abandon:
	wg_buf_reset(out);
	return wg_error_set(WG_ENOTFOUND, "delta would exceed %zu bytes", max_delta_size);
}
