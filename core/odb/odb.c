#include "odb/odb.h"

#include <stdbool.h>
#include <string.h>

#include "odb/object_stream.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

struct odb_slot {
	struct wg_odb_backend *backend;
	int priority;
};

struct wg_odb {
	const struct wg_hash_algo *algo;
	struct odb_slot *slots;
	size_t nslots;
	wg_odb_missing_fn missing;
	void *missing_payload;
	bool in_missing;            /* no lazy fetch from inside one */
	struct wg_oid last_missing;
	struct wg_limits limits;    /* the backends point here */
};

int wg_odb_new(struct wg_odb **out, const struct wg_hash_algo *algo)
{
	struct wg_odb *odb = wg_calloc(1, sizeof(*odb));
	if (!odb)
		return wg_error_set(WG_ENOMEM, "out of memory creating an object database");
	odb->algo = algo;
	odb->limits = *wg_limits_default();
	*out = odb;
	return 0;
}

void wg_odb_free(struct wg_odb *odb)
{
	size_t i;
	if (!odb)
		return;
	for (i = 0; i < odb->nslots; i++)
		odb->slots[i].backend->free(odb->slots[i].backend);
	wg_free(odb->slots);
	wg_free(odb);
}

const struct wg_hash_algo *wg_odb_algo(const struct wg_odb *odb) { return odb->algo; }
const struct wg_limits *wg_odb_limits(const struct wg_odb *odb) { return &odb->limits; }
void wg_odb_set_limits(struct wg_odb *odb, const struct wg_limits *limits)
{
	odb->limits = *wg_limits_or_default(limits);
}

int wg_odb_add_backend(struct wg_odb *odb, struct wg_odb_backend *backend, int priority)
{
	struct odb_slot *slots;
	size_t pos;
	if (backend->version != WG_ODB_BACKEND_VERSION) {
		backend->free(backend);
		return wg_error_set(WG_EINVALID, "odb backend version %u is not supported",
				    backend->version);
	}
	slots = wg_realloc(odb->slots, (odb->nslots + 1) * sizeof(*slots));
	if (!slots) {
		backend->free(backend);
		return wg_error_set(WG_ENOMEM, "out of memory adding an odb backend");
	}
	odb->slots = slots;
	for (pos = 0; pos < odb->nslots && slots[pos].priority >= priority; pos++)
		;
	memmove(slots + pos + 1, slots + pos, (odb->nslots - pos) * sizeof(*slots));
	slots[pos].backend = backend;
	backend->limits = &odb->limits;
	slots[pos].priority = priority;
	odb->nslots++;
	return 0;
}

static int not_found(struct wg_odb *odb, const struct wg_oid *oid)
{
	odb->last_missing = *oid;
	return wg_error_set(WG_ENOTFOUND, "object %s not found", wg_oid_hex(oid));
}

void wg_odb_set_missing_handler(struct wg_odb *odb, wg_odb_missing_fn fn, void *payload)
{
	odb->missing = fn;
	odb->missing_payload = payload;
}

const struct wg_oid *wg_odb_last_missing(const struct wg_odb *odb)
{
	return &odb->last_missing;
}

/* A miss: give the handler (a partial clone's lazy fetch) one chance. */
static int on_missing(struct wg_odb *odb, const struct wg_oid *oid, bool *retry)
{
	int err;

	*retry = false;
	if (!odb->missing || odb->in_missing)
		return not_found(odb, oid);
	odb->in_missing = true;
	err = odb->missing(odb, oid, odb->missing_payload);
	odb->in_missing = false;
	if (err)
		return err;
	*retry = true;
	return 0;
}

static int check_algo(const struct wg_odb *odb, const struct wg_oid *oid)
{
	if (oid->algo != odb->algo->id)
		return wg_error_set(WG_EINVALID, "object id %s is not a %s id",
				    wg_oid_hex(oid), odb->algo->name);
	return 0;
}

int wg_odb_read(struct wg_odb *odb, const struct wg_oid *oid,
		enum wg_object_type *type_out, struct wg_buf *out)
{
	size_t i;
	bool retry;
	int err;
	if ((err = check_algo(odb, oid)))
		return err;
	for (int attempt = 0;; attempt++) {
		for (i = 0; i < odb->nslots; i++) {
			struct wg_odb_backend *b = odb->slots[i].backend;
			if (!b->read)
				continue;
			err = b->read(b, oid, type_out, out);
			if (err != WG_ENOTFOUND)
				return err;
		}
		if (attempt)
			return not_found(odb, oid);
		if ((err = on_missing(odb, oid, &retry)) || !retry)
			return err ? err : not_found(odb, oid);
	}
}

static int read_header_once(struct wg_odb *odb, const struct wg_oid *oid,
			    enum wg_object_type *type_out, size_t *size_out);

static int open_stream_once(struct wg_odb *odb, const struct wg_oid *oid,
			    struct wg_object_stream **out)
{
	size_t i;
	int err;
	for (i = 0; i < odb->nslots; i++) {
		struct wg_odb_backend *b = odb->slots[i].backend;
		err = WG_EUNSUPPORTED;
		if (b->open_stream)
			err = b->open_stream(b, oid, out);
		if (err == WG_EUNSUPPORTED && b->read) {
			/* Only whole: read it so, and stream the buffer. */
			struct wg_buf buf = WG_BUF_INIT;
			enum wg_object_type type;
			wg_error_clear();
			if (!(err = b->read(b, oid, &type, &buf))) {
				size_t len;
				unsigned char *data = wg_buf_detach(&buf, &len);
				return wg_object_stream_from_buffer(out, type, data, len);
			}
			wg_buf_release(&buf);
		}
		if (err != WG_ENOTFOUND && err != WG_EUNSUPPORTED)
			return err;
	}
	return WG_ENOTFOUND;
}

int wg_odb_open_stream(struct wg_object_stream **out, struct wg_odb *odb,
		       const struct wg_oid *oid)
{
	bool retry;
	int err;
	*out = NULL;
	if ((err = check_algo(odb, oid)))
		return err;
	err = open_stream_once(odb, oid, out);
	if (err != WG_ENOTFOUND)
		return err;
	if ((err = on_missing(odb, oid, &retry)) || !retry)
		return err ? err : not_found(odb, oid);
	err = open_stream_once(odb, oid, out);
	return err == WG_ENOTFOUND ? not_found(odb, oid) : err;
}

int wg_odb_read_header(struct wg_odb *odb, const struct wg_oid *oid,
		       enum wg_object_type *type_out, size_t *size_out)
{
	bool retry;
	int err;
	if ((err = check_algo(odb, oid)))
		return err;
	err = read_header_once(odb, oid, type_out, size_out);
	if (err != WG_ENOTFOUND)
		return err;
	if ((err = on_missing(odb, oid, &retry)) || !retry)
		return err ? err : not_found(odb, oid);
	err = read_header_once(odb, oid, type_out, size_out);
	return err == WG_ENOTFOUND ? not_found(odb, oid) : err;
}

static int read_header_once(struct wg_odb *odb, const struct wg_oid *oid,
			    enum wg_object_type *type_out, size_t *size_out)
{
	size_t i;
	int err;
	for (i = 0; i < odb->nslots; i++) {
		struct wg_odb_backend *b = odb->slots[i].backend;
		if (b->read_header) {
			err = b->read_header(b, oid, type_out, size_out);
		} else if (b->read) {
			struct wg_buf buf = WG_BUF_INIT;
			err = b->read(b, oid, type_out, &buf);
			*size_out = buf.len;
			wg_buf_release(&buf);
		} else {
			continue;
		}
		if (err != WG_ENOTFOUND)
			return err;
	}
	return not_found(odb, oid);
}

int wg_odb_exists(struct wg_odb *odb, const struct wg_oid *oid)
{
	size_t i;
	if (oid->algo != odb->algo->id)
		return 0;
	for (i = 0; i < odb->nslots; i++) {
		struct wg_odb_backend *b = odb->slots[i].backend;
		int r = b->exists ? b->exists(b, oid) : 0;
		if (r)
			return r;
	}
	return 0;
}

int wg_odb_write(struct wg_odb *odb, enum wg_object_type type, const void *data,
		 size_t len, struct wg_oid *out)
{
	struct wg_oid oid;
	size_t i;
	int err;
	if ((err = wg_object_hash(&oid, odb->algo, type, data, len)))
		return err;
	if (out)
		*out = oid;
	err = wg_odb_exists(odb, &oid);
	if (err < 0)
		return err;
	if (err > 0)
		return 0;
	for (i = 0; i < odb->nslots; i++) {
		struct wg_odb_backend *b = odb->slots[i].backend;
		if (b->write)
			return b->write(b, &oid, type, data, len);
	}
	return wg_error_set(WG_EUNSUPPORTED, "the object database has no writable backend");
}

static int foreach_in(struct wg_odb *odb, const unsigned char *prefix, size_t hexlen,
		      wg_odb_foreach_cb cb, void *payload)
{
	size_t i;
	for (i = 0; i < odb->nslots; i++) {
		struct wg_odb_backend *b = odb->slots[i].backend;
		int err;
		if (b->foreach && (err = b->foreach(b, prefix, hexlen, cb, payload)))
			return err;
	}
	return 0;
}

int wg_odb_foreach(struct wg_odb *odb, wg_odb_foreach_cb cb, void *payload)
{
	return foreach_in(odb, NULL, 0, cb, payload);
}

struct prefix_search {
	unsigned char raw[WG_MAX_RAWSZ];
	size_t hexlen;
	struct wg_oid found;
	int count;
};

static int prefix_match(const struct wg_oid *oid, void *payload)
{
	struct prefix_search *s = payload;
	size_t full = s->hexlen / 2;
	if (memcmp(oid->hash, s->raw, full))
		return 0;
	if ((s->hexlen & 1) && (oid->hash[full] >> 4) != (s->raw[full] >> 4))
		return 0;
	if (s->count && wg_oid_equal(&s->found, oid))
		return 0;  /* same object in two backends */
	s->found = *oid;
	s->count++;
	return 0;
}

int wg_odb_resolve_prefix(struct wg_odb *odb, const char *hex, size_t len, struct wg_oid *out)
{
	struct prefix_search s;
	size_t i;
	int err;
	if (len < 4 || len > odb->algo->hexsz)
		return wg_error_set(WG_EINVALID, "'%.*s' is not a valid object name prefix",
				    (int)len, hex);
	memset(&s, 0, sizeof(s));
	for (i = 0; i < len; i++) {
		int v = wg_hex_value((unsigned char)hex[i]);
		if (v < 0)
			return wg_error_set(WG_EINVALID, "'%.*s' is not a hex object name",
					    (int)len, hex);
		s.raw[i / 2] |= (unsigned char)(i & 1 ? v : v << 4);
	}
	s.hexlen = len;
	if (len == odb->algo->hexsz) {
		wg_oid_from_raw(out, odb->algo, s.raw);
		return 0;
	}
	if ((err = foreach_in(odb, s.raw, len, prefix_match, &s)))
		return err;
	if (!s.count)
		return wg_error_set(WG_ENOTFOUND, "no object matches the prefix '%.*s'", (int)len, hex);
	if (s.count > 1)
		return wg_error_set(WG_EAMBIGUOUS, "short object id %.*s is ambiguous", (int)len, hex);
	*out = s.found;
	return 0;
}

static int source_read(void *payload, const struct wg_oid *oid, enum wg_object_type *type_out,
		       struct wg_buf *out)
{
	return wg_odb_read(payload, oid, type_out, out);
}

static int source_read_header(void *payload, const struct wg_oid *oid,
			      enum wg_object_type *type_out, size_t *size_out)
{
	return wg_odb_read_header(payload, oid, type_out, size_out);
}

struct wg_object_source wg_odb_object_source(struct wg_odb *odb)
{
	struct wg_object_source src = { wg_odb_algo(odb), odb, source_read, source_read_header };
	return src;
}
