/* Object ids. An id carries its algorithm, so code that holds one never
 * needs to be told separately which hash it is. */
#ifndef WG_HASH_OID_H
#define WG_HASH_OID_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/hash.h"

struct wg_oid {
	unsigned char hash[WG_MAX_RAWSZ];  /* bytes past rawsz are zero */
	unsigned char algo;                /* enum wg_hash_id */
};

const struct wg_hash_algo *wg_oid_algo(const struct wg_oid *oid);

/* Parse exactly algo->hexsz hex digits (the string may continue after
 * them; the caller checks what follows). WG_EINVALID if not hex. */
int wg_oid_from_hex(struct wg_oid *out, const struct wg_hash_algo *algo, const char *hex);
/* Parse a NUL-terminated string that must be exactly one full id. */
int wg_oid_from_hex_str(struct wg_oid *out, const struct wg_hash_algo *algo, const char *hex);
void wg_oid_from_raw(struct wg_oid *out, const struct wg_hash_algo *algo, const unsigned char *raw);
/* The all-zero id of an algorithm (Git's "null oid"). */
void wg_oid_null(struct wg_oid *out, const struct wg_hash_algo *algo);
void wg_oid_empty_tree(struct wg_oid *out, const struct wg_hash_algo *algo);
void wg_oid_empty_blob(struct wg_oid *out, const struct wg_hash_algo *algo);

/* Write the hex form and a NUL into out (WG_MAX_HEXSZ + 1 bytes); returns out. */
char *wg_oid_to_hex(const struct wg_oid *oid, char *out);
/* Hex of an id in a rotating static buffer, for messages only. */
const char *wg_oid_hex(const struct wg_oid *oid);

int wg_oid_cmp(const struct wg_oid *a, const struct wg_oid *b);
bool wg_oid_equal(const struct wg_oid *a, const struct wg_oid *b);
bool wg_oid_is_null(const struct wg_oid *oid);
size_t wg_oid_rawsz(const struct wg_oid *oid);

#endif
