/* Limits on what untrusted input may make webgit do: every size, count and
 * depth a pack, object or protocol stream declares is checked against one
 * of these before memory is committed to it, so a hostile server gets a
 * clear WG_ELIMIT error instead of exhausting memory (natively) or killing
 * the tab (WebAssembly). docs/limits.md has the table: default, git's
 * equivalent, how to change each.
 *
 * Where they come from, most specific first:
 *  - an operation's options (wg_indexer_options.limits, the remote
 *    operations' `limits`), when not NULL;
 *  - an object database's own copy (wg_odb_limits()), which a repository
 *    fills from its config (core.maxTreeDepth);
 *  - the process-wide defaults, wg_limits_default(), which start as
 *    WG_LIMITS_INIT and may be replaced with wg_limits_set_default() (the
 *    JS API's setLimits()).
 *
 * A field of 0 means "no limit" for that check. */
#ifndef WG_UTIL_LIMITS_H
#define WG_UTIL_LIMITS_H

#include <stddef.h>
#include <stdint.h>

struct wg_limits {
	/* Largest object (or delta, or delta result) held whole in memory,
	 * in bytes. Checked against the size an entry or loose header
	 * declares, and a delta's declared result, before allocating. */
	uint64_t max_object_size;
	/* Inflate bombs: once an object has inflated to more than
	 * inflate_ratio_floor bytes, its output may be at most this many
	 * times its compressed input. */
	uint32_t max_inflate_ratio;
	uint64_t inflate_ratio_floor;
	/* Objects one pack may declare in its header (metadata grows with the
	 * entries that really arrive, never from this count). */
	uint32_t max_pack_objects;
	/* Trees nested inside trees (git's core.maxTreeDepth). */
	uint32_t max_tree_depth;
	/* A ref advertisement (v0/v1 info/refs or v2 ls-refs): refs in it,
	 * and bytes of it. */
	uint32_t max_refs;
	uint64_t max_advertisement_bytes;
};

#define WG_LIMIT_MAX_OBJECT_SIZE ((uint64_t)1 << 30)          /* 1 GiB */
#define WG_LIMIT_MAX_INFLATE_RATIO 256
#define WG_LIMIT_INFLATE_RATIO_FLOOR ((uint64_t)8 << 20)      /* 8 MiB */
#define WG_LIMIT_MAX_PACK_OBJECTS 50000000u
#define WG_LIMIT_MAX_TREE_DEPTH 2048u                         /* git 2.47+ */
#define WG_LIMIT_MAX_REFS 1000000u
#define WG_LIMIT_MAX_ADVERTISEMENT_BYTES ((uint64_t)256 << 20) /* 256 MiB */

#define WG_LIMITS_INIT { WG_LIMIT_MAX_OBJECT_SIZE, WG_LIMIT_MAX_INFLATE_RATIO, \
			 WG_LIMIT_INFLATE_RATIO_FLOOR, WG_LIMIT_MAX_PACK_OBJECTS, \
			 WG_LIMIT_MAX_TREE_DEPTH, WG_LIMIT_MAX_REFS, \
			 WG_LIMIT_MAX_ADVERTISEMENT_BYTES }

/* The process-wide defaults (never NULL). */
const struct wg_limits *wg_limits_default(void);
/* Replace them (NULL restores WG_LIMITS_INIT). Not thread-safe: meant for
 * start-up, the JS API's setLimits() and tests. */
void wg_limits_set_default(const struct wg_limits *limits);
/* `limits`, or the defaults when NULL. */
const struct wg_limits *wg_limits_or_default(const struct wg_limits *limits);

/* Apply "name=value[,name=value...]" to *limits, names as the fields
 * above (max_object_size, max_inflate_ratio, inflate_ratio_floor,
 * max_pack_objects, max_tree_depth, max_refs, max_advertisement_bytes),
 * values decimal with an optional k, m or g suffix (powers of 1024); 0
 * turns a check off. This is the form of the CLI's WEBGIT_LIMITS and what
 * the JS API's `limits` option becomes. WG_EINVALID (and *limits
 * unchanged) for an unknown name or a bad value. */
int wg_limits_parse(struct wg_limits *limits, const char *spec);

/* The checks, each returning 0 or WG_ELIMIT with a message that names the
 * limit. `what` describes the object ("object at offset 123 in the pack"). */
int wg_limits_check_object_size(const struct wg_limits *limits, uint64_t size, const char *what);
/* `out` bytes inflated so far from `in` compressed bytes. */
int wg_limits_check_inflate(const struct wg_limits *limits, uint64_t out, uint64_t in,
			    const char *what);
int wg_limits_check_tree_depth(const struct wg_limits *limits, uint64_t depth,
			       const char *tree_hex);

#endif
