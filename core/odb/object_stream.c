#include "odb/object_stream.h"

#include <stdbool.h>
#include <string.h>

#include <zlib.h>

#include "hash/hash.h"
#include "odb/loose.h"
#include "util/alloc.h"
#include "util/error.h"

int wg_object_stream_read(struct wg_object_stream *s, void *buf, size_t cap, size_t *got)
{
	*got = 0;
	return s->read(s, buf, cap, got);
}

void wg_object_stream_free(struct wg_object_stream *s)
{
	if (s)
		s->free(s);
}

/* --- a stream over a buffer ------------------------------------------------ */

struct buffer_stream {
	struct wg_object_stream base;
	unsigned char *data;
	size_t pos;
};

static int buffer_read(struct wg_object_stream *s, void *buf, size_t cap, size_t *got)
{
	struct buffer_stream *bs = (struct buffer_stream *)s;
	size_t n = (size_t)s->size - bs->pos;
	if (n > cap)
		n = cap;
	if (n)
		memcpy(buf, bs->data + bs->pos, n);
	bs->pos += n;
	*got = n;
	return 0;
}

static void buffer_free(struct wg_object_stream *s)
{
	struct buffer_stream *bs = (struct buffer_stream *)s;
	wg_free(bs->data);
	wg_free(bs);
}

int wg_object_stream_from_buffer(struct wg_object_stream **out, enum wg_object_type type,
				 void *data, size_t len)
{
	struct buffer_stream *bs = wg_calloc(1, sizeof(*bs));
	if (!bs) {
		wg_free(data);
		return wg_error_set(WG_ENOMEM, "out of memory opening an object stream");
	}
	bs->base.type = type;
	bs->base.size = len;
	bs->base.read = buffer_read;
	bs->base.free = buffer_free;
	bs->data = data;
	*out = &bs->base;
	return 0;
}

/* --- a stream that inflates ------------------------------------------------ */

#define HEADER_MAX 64

struct inflate_stream {
	struct wg_object_stream base;
	struct wg_zstream_source src;
	z_stream zs;
	bool zs_ready;
	bool input_done;      /* fill said there is no more */
	bool stream_end;      /* zlib said Z_STREAM_END */
	bool finished;        /* end checked: reads return 0 */
	uint64_t produced;    /* content bytes handed out */
	unsigned char head[HEADER_MAX];  /* a loose object's header */
	bool loose;           /* a loose file: the header, and nothing after the stream */
	size_t head_len;      /* inflated header bytes (not content) */
	bool verify;
	struct wg_oid expect;
	struct wg_hash_ctx hash;
	const struct wg_hash_algo *algo;
	const struct wg_limits *limits;
	const char *what;
	unsigned char in[65536];
};

static const char *zmsg(const z_stream *zs)
{
	return zs->msg ? zs->msg : "invalid compressed data";
}

static int feed(struct inflate_stream *is)
{
	size_t got = 0;
	int err;
	if (is->zs.avail_in || is->input_done)
		return 0;
	if ((err = is->src.fill(is->src.payload, is->in, sizeof(is->in), &got)))
		return err;
	if (!got)
		is->input_done = true;
	is->zs.next_in = is->in;
	is->zs.avail_in = (uInt)got;
	return 0;
}

/* Inflate into out (room bytes), as far as input allows; *n gets what came. */
static int inflate_some(struct inflate_stream *is, unsigned char *out, size_t room, size_t *n)
{
	*n = 0;
	while (*n < room && !is->stream_end) {
		uInt before;
		int zret, err;
		if ((err = feed(is)))
			return err;
		if (!is->zs.avail_in && is->input_done)
			return wg_error_set(WG_ECORRUPT, "%s is truncated: its zlib stream stops "
					    "after %llu bytes", is->what,
					    (unsigned long long)(is->produced + *n));
		is->zs.next_out = out + *n;
		before = (uInt)(room - *n > UINT32_MAX ? UINT32_MAX : room - *n);
		is->zs.avail_out = before;
		zret = inflate(&is->zs, Z_NO_FLUSH);
		*n += before - is->zs.avail_out;
		if (zret == Z_STREAM_END)
			is->stream_end = true;
		else if (zret != Z_OK && !(zret == Z_BUF_ERROR && !is->zs.avail_in))
			return wg_error_set(WG_ECORRUPT, "zlib error in %s: %s", is->what,
					    zmsg(&is->zs));
		if ((err = wg_limits_check_inflate(is->limits, is->zs.total_out - is->head_len,
						   is->zs.total_in, is->what)))
			return err;
	}
	return 0;
}

static int read_loose_header(struct inflate_stream *is)
{
	unsigned char *nul = NULL;
	size_t have = 0, n, size;
	int err;
	while (!nul && have < sizeof(is->head) && !is->stream_end) {
		if ((err = inflate_some(is, is->head + have, 1, &n)))
			return err;
		have += n;
		nul = memchr(is->head, 0, have);
	}
	if (!nul)
		return wg_error_set(WG_ECORRUPT, "%s: header is too long or has no NUL", is->what);
	if ((err = wg_loose_parse_header((const char *)is->head, (size_t)(nul - is->head),
					 &is->base.type, &size)))
		return err;
	is->base.size = size;
	is->head_len = have;
	if (is->verify)
		wg_hash_update(&is->hash, is->head, have);
	return wg_limits_check_object_size(is->limits, size, is->what);
}

static int check_end(struct inflate_stream *is)
{
	unsigned char extra;
	size_t n;
	int err;
	if (!is->stream_end) {
		/* Everything declared is out: the stream must end now. */
		if ((err = inflate_some(is, &extra, 1, &n)))
			return err;
		if (n)
			return wg_error_set(WG_ECORRUPT, "%s inflates past the %llu bytes it declares",
					    is->what, (unsigned long long)is->base.size);
	}
	if (is->loose) {
		/* a loose file ends with its zlib stream */
		if (!is->zs.avail_in && (err = feed(is)))
			return err;
		if (is->zs.avail_in)
			return wg_error_set(WG_ECORRUPT, "%s: garbage after the end of the zlib "
					    "stream", is->what);
	}
	if (is->verify) {
		unsigned char raw[WG_MAX_RAWSZ];
		struct wg_oid actual;
		if ((err = wg_hash_final(&is->hash, raw)))
			return err;
		wg_oid_from_raw(&actual, is->algo, raw);
		if (!wg_oid_equal(&actual, &is->expect))
			return wg_error_set(WG_ECORRUPT, "%s hashes to %s: the file is corrupt or "
					    "misnamed", is->what, wg_oid_hex(&actual));
	}
	is->finished = true;
	return 0;
}

static int inflate_read(struct wg_object_stream *s, void *buf, size_t cap, size_t *got)
{
	struct inflate_stream *is = (struct inflate_stream *)s;
	uint64_t left = s->size - is->produced;
	size_t n = 0, want = cap;
	int err;
	*got = 0;
	if (is->finished)
		return 0;
	if (!left)
		return check_end(is);
	if (want > left)
		want = (size_t)left;
	if ((err = inflate_some(is, buf, want, &n)))
		return err;
	if (!n)
		return wg_error_set(WG_ECORRUPT, "%s ends after %llu of the %llu bytes it "
				    "declares", is->what, (unsigned long long)is->produced,
				    (unsigned long long)s->size);
	if (is->verify)
		wg_hash_update(&is->hash, buf, n);
	is->produced += n;
	*got = n;
	return 0;
}

static void inflate_free(struct wg_object_stream *s)
{
	struct inflate_stream *is = (struct inflate_stream *)s;
	if (is->zs_ready)
		inflateEnd(&is->zs);
	if (is->src.fill_free)
		is->src.fill_free(is->src.payload);
	wg_free(is);
}

int wg_object_stream_inflate(struct wg_object_stream **out, const struct wg_zstream_source *src,
			     int loose_header, enum wg_object_type type, uint64_t size,
			     const struct wg_oid *verify, const struct wg_hash_algo *algo,
			     const struct wg_limits *limits, const char *what)
{
	struct inflate_stream *is = wg_calloc(1, sizeof(*is));
	int err;
	if (!is) {
		if (src->fill_free)
			src->fill_free(src->payload);
		return wg_error_set(WG_ENOMEM, "out of memory opening an object stream");
	}
	is->src = *src;
	is->base.read = inflate_read;
	is->base.free = inflate_free;
	is->base.type = type;
	is->base.size = size;
	is->limits = wg_limits_or_default(limits);
	is->what = what;
	if (verify) {
		is->verify = true;
		is->expect = *verify;
		is->algo = algo;
		wg_hash_init(&is->hash, algo);
	}
	if (inflateInit(&is->zs) != Z_OK) {
		inflate_free(&is->base);
		return wg_error_set(WG_ENOMEM, "cannot initialise zlib");
	}
	is->zs_ready = true;
	is->loose = loose_header != 0;
	if (loose_header) {
		/* Inflated a byte at a time up to its NUL: no content byte
		 * comes out with the header. */
		if ((err = read_loose_header(is))) {
			inflate_free(&is->base);
			return err;
		}
	} else if ((err = wg_limits_check_object_size(is->limits, size, what))) {
		inflate_free(&is->base);
		return err;
	}
	*out = &is->base;
	return 0;
}
