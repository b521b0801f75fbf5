#include "hash/oid.h"

#include <string.h>

#include "util/error.h"
#include "util/hex.h"

const struct wg_hash_algo *wg_oid_algo(const struct wg_oid *oid)
{
	return wg_hash_algo_by_id((enum wg_hash_id)oid->algo);
}

size_t wg_oid_rawsz(const struct wg_oid *oid)
{
	const struct wg_hash_algo *algo = wg_oid_algo(oid);
	return algo ? algo->rawsz : 0;
}

void wg_oid_from_raw(struct wg_oid *out, const struct wg_hash_algo *algo, const unsigned char *raw)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->hash, raw, algo->rawsz);
	out->algo = (unsigned char)algo->id;
}

int wg_oid_from_hex(struct wg_oid *out, const struct wg_hash_algo *algo, const char *hex)
{
	size_t i;
	/* Check length first: wg_hex_decode would read past a short string. */
	for (i = 0; i < algo->hexsz; i++)
		if (wg_hex_value((unsigned char)hex[i]) < 0)
			return wg_error_set(WG_EINVALID, "'%.*s' is not a %zu-digit %s object id",
					    (int)algo->hexsz, hex, algo->hexsz, algo->name);
	memset(out, 0, sizeof(*out));
	wg_hex_decode(out->hash, hex, algo->rawsz);
	out->algo = (unsigned char)algo->id;
	return 0;
}

int wg_oid_from_hex_str(struct wg_oid *out, const struct wg_hash_algo *algo, const char *hex)
{
	if (strlen(hex) != algo->hexsz)
		return wg_error_set(WG_EINVALID, "'%s' is not a %zu-digit %s object id",
				    hex, algo->hexsz, algo->name);
	return wg_oid_from_hex(out, algo, hex);
}

void wg_oid_null(struct wg_oid *out, const struct wg_hash_algo *algo)
{
	memset(out, 0, sizeof(*out));
	out->algo = (unsigned char)algo->id;
}

void wg_oid_empty_tree(struct wg_oid *out, const struct wg_hash_algo *algo)
{
	wg_oid_from_raw(out, algo, algo->empty_tree);
}

void wg_oid_empty_blob(struct wg_oid *out, const struct wg_hash_algo *algo)
{
	wg_oid_from_raw(out, algo, algo->empty_blob);
}

char *wg_oid_to_hex(const struct wg_oid *oid, char *out)
{
	wg_hex_encode(out, oid->hash, wg_oid_rawsz(oid));
	return out;
}

const char *wg_oid_hex(const struct wg_oid *oid)
{
	static _Thread_local char bufs[4][WG_MAX_HEXSZ + 1];
	static _Thread_local unsigned next;
	char *out = bufs[next++ & 3];
	return wg_oid_to_hex(oid, out);
}

int wg_oid_cmp(const struct wg_oid *a, const struct wg_oid *b)
{
	int c = memcmp(a->hash, b->hash, WG_MAX_RAWSZ);
	if (c)
		return c;
	return (int)a->algo - (int)b->algo;
}

bool wg_oid_equal(const struct wg_oid *a, const struct wg_oid *b)
{
	return a->algo == b->algo && !memcmp(a->hash, b->hash, WG_MAX_RAWSZ);
}

bool wg_oid_is_null(const struct wg_oid *oid)
{
	static const unsigned char zero[WG_MAX_RAWSZ];
	return !memcmp(oid->hash, zero, WG_MAX_RAWSZ);
}
