/* Loose objects (core/odb/loose.c): a zlib stream holding
 * "<type> <size>\0<content>". The input is inflated as the file as
 * stored, and also deflated first (so the fuzzer's mutations of plain
 * "<type> <size>\0..." text reach the header and size checks); the header
 * parser gets the raw text too. The streaming reader
 * (odb/object_stream.h, what a checkout uses) must agree with the whole
 * read on every input: the same bytes when it succeeds, an error (never a
 * clean end) when it fails, and the stream hashes what it reads. */
#include "fuzz.h"

#include "hash/hash.h"
#include "object/object.h"
#include "odb/loose.h"
#include "odb/object_stream.h"
#include "util/error.h"
#include "util/limits.h"

#include <zlib.h>

struct mem_fill {
	const uint8_t *data;
	size_t size, pos, step;
};

static int mem_fill(void *payload, unsigned char *buf, size_t cap, size_t *got)
{
	struct mem_fill *m = payload;
	size_t n = m->size - m->pos;
	if (n > cap)
		n = cap;
	if (n > m->step)
		n = m->step;  /* small pieces: every split of the input */
	memcpy(buf, m->data + m->pos, n);
	m->pos += n;
	*got = n;
	return 0;
}

/* The stream over `data` gives `whole` exactly when the whole read
 * succeeded (whole_ok), else it fails. */
/* Both reads under the same limits: the declared size only (checked from
 * the header the same way by both), no inflate ratio (checked at
 * different points by the two, so a ratio that peaks in the middle could
 * stop one and not the other). */
static struct wg_limits lim;

static void check_stream(const uint8_t *data, size_t size, int whole_ok, const struct wg_buf *whole,
			 enum wg_object_type whole_type)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct mem_fill m = { data, size, 0, 1 + size % 13 };
	struct wg_zstream_source src = { mem_fill, NULL, &m };
	struct wg_object_stream *s = NULL;
	struct wg_oid oid;
	unsigned char buf[97];
	size_t pos = 0, got;
	int err;

	/* verified against the id of what the whole read gave */
	if (whole_ok)
		wg_object_hash(&oid, algo, whole_type, whole->data ? (const void *)whole->data : "",
			       whole->len);
	else
		memset(&oid, 0, sizeof(oid)), oid.algo = WG_HASH_SHA1;
	err = wg_object_stream_inflate(&s, &src, 1, WG_OBJ_BAD, 0, &oid, algo, &lim, "fuzz");
	while (!err) {
		err = wg_object_stream_read(s, buf, 1 + (pos % sizeof(buf)), &got);
		if (err || !got)
			break;
		/* a stream that fails may hand out bytes before it finds out */
		if (whole_ok)
			FUZZ_ASSERT(pos + got <= whole->len && !memcmp(whole->data + pos, buf, got));
		pos += got;
	}
	if (whole_ok)
		FUZZ_ASSERT(!err && pos == whole->len && s->type == whole_type);
	else
		FUZZ_ASSERT(err);
	wg_object_stream_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_buf out = WG_BUF_INIT;
	enum wg_object_type type;
	size_t hsize;
	const uint8_t *nul;

	lim = *wg_limits_default();
	lim.max_inflate_ratio = 0;
	lim.max_object_size = 1 << 20;
	{
		int ok = !wg_loose_inflate(data, size, &lim, &type, &out);
		if (ok) {
			FUZZ_ASSERT(type >= WG_OBJ_COMMIT && type <= WG_OBJ_TAG);
			if (out.len)
				(void)out.data[out.len - 1];
		}
		check_stream(data, size, ok, &out, type);
	}
	{
		/* A small window and memLevel keep deflate's state (and so
		 * each run) cheap; any window inflates with the default. */
		size_t cap = size + size / 8 + 64;
		unsigned char *z = malloc(cap);
		z_stream zs;
		memset(&zs, 0, sizeof(zs));
		if (deflateInit2(&zs, (int)(size % 10), Z_DEFLATED, 9, 1, Z_DEFAULT_STRATEGY) == Z_OK) {
			zs.next_in = (unsigned char *)(uintptr_t)data;
			zs.avail_in = (uInt)size;
			zs.next_out = z;
			zs.avail_out = (uInt)cap;
			if (deflate(&zs, Z_FINISH) == Z_STREAM_END &&
			    !wg_loose_inflate(z, zs.total_out, NULL, &type, &out))
				FUZZ_ASSERT(type >= WG_OBJ_COMMIT && type <= WG_OBJ_TAG);
			deflateEnd(&zs);
		}
		free(z);
	}
	wg_buf_release(&out);
	nul = memchr(data, 0, size);
	if (nul && nul - data <= 64) {
		char *hdr = malloc((size_t)(nul - data) + 1);
		memcpy(hdr, data, (size_t)(nul - data));
		(void)wg_loose_parse_header(hdr, (size_t)(nul - data), &type, &hsize);
		free(hdr);
	}
	return 0;
}
