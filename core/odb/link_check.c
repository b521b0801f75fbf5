#include "odb/link_check.h"

#include <string.h>

#include "object/tree.h"
#include "util/error.h"

/* Type bits in the map (a name may be seen with several types: each is
 * checked). */
#define NAMED_COMMIT 1u
#define NAMED_TREE 2u
#define NAMED_BLOB 4u
#define NAMED_TAG 8u

static unsigned type_bit(enum wg_object_type type)
{
	switch (type) {
	case WG_OBJ_COMMIT: return NAMED_COMMIT;
	case WG_OBJ_TREE: return NAMED_TREE;
	case WG_OBJ_BLOB: return NAMED_BLOB;
	case WG_OBJ_TAG: return NAMED_TAG;
	default: return 0;
	}
}

void wg_link_check_init(struct wg_link_check *lc, const struct wg_hash_algo *algo)
{
	memset(lc, 0, sizeof(*lc));
	lc->algo = algo;
}

void wg_link_check_release(struct wg_link_check *lc)
{
	for (size_t i = 0; i < WG_LINK_CHECK_SHARDS; i++)
		wg_oidmap_release(&lc->shards[i].named);
	wg_oidmap_release(&lc->shallow);
}

int wg_link_check_shallow(struct wg_link_check *lc, const struct wg_oid *commit)
{
	return wg_oidmap_set(&lc->shallow, commit, 1, NULL);
}

static int name(struct wg_oidmap *named, const struct wg_oid *oid, enum wg_object_type type)
{
	return wg_oidmap_set(named, oid, type_bit(type), NULL);
}

static int malformed(const struct wg_oid *oid, const char *what)
{
	return wg_error_set(WG_ECORRUPT, "object %s is malformed: %s", wg_oid_hex(oid), what);
}

/* "<key> <hex>\n" at *p (the objects were hashed, not yet fsck'd: read
 * them defensively). Advances *p. 1 if the line is there, 0 if not. */
static int header_oid(const struct wg_hash_algo *algo, const char **p, const char *end,
		      const char *key, struct wg_oid *out, int *err)
{
	size_t klen = strlen(key), hexsz = algo->hexsz;
	char hex[WG_MAX_HEXSZ + 1];

	if ((size_t)(end - *p) < klen + 1 + hexsz + 1 || memcmp(*p, key, klen) || (*p)[klen] != ' ' ||
	    (*p)[klen + 1 + hexsz] != '\n')
		return 0;
	memcpy(hex, *p + klen + 1, hexsz);
	hex[hexsz] = '\0';
	if (wg_oid_from_hex_str(out, algo, hex)) {
		*err = WG_ECORRUPT;
		return 0;
	}
	*p += klen + 1 + hexsz + 1;
	return 1;
}

static int commit_links(struct wg_link_check *lc, struct wg_oidmap *to, const struct wg_oid *oid,
			const char *p, const char *end)
{
	struct wg_oid named;
	bool shallow = wg_oidmap_get(&lc->shallow, oid) != 0;
	int err = 0;

	if (!header_oid(lc->algo, &p, end, "tree", &named, &err))
		return malformed(oid, "no tree line");
	if ((err = name(to, &named, WG_OBJ_TREE)))
		return err;
	while (header_oid(lc->algo, &p, end, "parent", &named, &err))
		if (!shallow && (err = name(to, &named, WG_OBJ_COMMIT)))
			return err;
	return err ? malformed(oid, "bad parent line") : 0;
}

static int tree_links(struct wg_link_check *lc, struct wg_oidmap *to, const struct wg_oid *oid,
		      const void *data, size_t len)
{
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	int err;

	wg_tree_iter_init(&it, lc->algo, data, len);
	while (!(err = wg_tree_iter_next(&it, &e))) {
		enum wg_object_type type = wg_tree_mode_type(e.mode);
		/* Submodule commits live elsewhere. */
		if (type == WG_OBJ_COMMIT)
			continue;
		if (type != WG_OBJ_TREE && type != WG_OBJ_BLOB)
			return malformed(oid, "a tree entry with a bad mode");
		if ((err = name(to, &e.oid, type)))
			return err;
	}
	return err == WG_ITEROVER ? 0 : err;
}

static int tag_links(struct wg_link_check *lc, struct wg_oidmap *to, const struct wg_oid *oid,
		     const char *p, const char *end)
{
	struct wg_oid named;
	enum wg_object_type type;
	const char *nl;
	int err = 0;

	if (!header_oid(lc->algo, &p, end, "object", &named, &err))
		return malformed(oid, "no object line");
	if ((size_t)(end - p) < 6 || memcmp(p, "type ", 5) || !(nl = memchr(p, '\n', (size_t)(end - p))))
		return malformed(oid, "no type line");
	type = wg_object_type_from_name(p + 5, (size_t)(nl - p - 5));
	if (!type_bit(type))
		return malformed(oid, "a bad type line");
	return name(to, &named, type);
}

int wg_link_check_object(struct wg_link_check *lc, unsigned shard, const struct wg_oid *oid,
			 enum wg_object_type type, const void *data, size_t len)
{
	struct wg_link_check_shard *sh;
	const char *p = data, *end = p + len;
	int err;

	if (shard >= WG_LINK_CHECK_SHARDS)
		return wg_error_set(WG_EINVALID, "link check: no shard %u", shard);
	sh = &lc->shards[shard];
	if (sh->error)
		return sh->error;
	switch (type) {
	case WG_OBJ_COMMIT: err = commit_links(lc, &sh->named, oid, p, end); break;
	case WG_OBJ_TREE: err = tree_links(lc, &sh->named, oid, data, len); break;
	case WG_OBJ_TAG: err = tag_links(lc, &sh->named, oid, p, end); break;
	default: err = 0;
	}
	return sh->error = err;
}

/* One shard's names (an object named in several shards is looked up in
 * each: the check of its bits is the same as of their union). */
static int check_shard(const struct wg_oidmap *named, wg_link_lookup_fn lookup, void *payload,
		       bool promisor)
{
	for (size_t i = 0; i < named->size; i++) {
		unsigned bits = named->flags[i];
		const struct wg_oid *oid = &named->keys[i];
		enum wg_object_type got;

		bool may_miss;

		if (!bits)
			continue;
		/* A partial clone lacks trees and blobs by design. */
		may_miss = promisor && !(bits & (NAMED_COMMIT | NAMED_TAG));
		got = lookup(oid, !may_miss, payload);
		if (got == WG_OBJ_NONE) {
			if (may_miss)
				continue;
			return wg_error_set(WG_ENOTFOUND, "object %s not found", wg_oid_hex(oid));
		}
		if (bits & ~type_bit(got))
			return wg_error_set(WG_ECORRUPT, "object %s is a %s but is named as another "
					    "type", wg_oid_hex(oid), wg_object_type_name(got));
	}
	return 0;
}

int wg_link_check_finish(struct wg_link_check *lc, wg_link_lookup_fn lookup, void *payload,
			 bool promisor)
{
	size_t i;
	int err;

	for (i = 0; i < WG_LINK_CHECK_SHARDS; i++)
		if (lc->shards[i].error)
			return lc->shards[i].error;
	for (i = 0; i < WG_LINK_CHECK_SHARDS; i++)
		if ((err = check_shard(&lc->shards[i].named, lookup, payload, promisor)))
			return err;
	return 0;
}
