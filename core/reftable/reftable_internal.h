/* Internals shared by the reftable_*.c files: format constants, the record
 * codec, blocks as read from a table, and table internals. Not for users of
 * reftable.h. */
#ifndef WG_REFS_REFTABLE_INTERNAL_H
#define WG_REFS_REFTABLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reftable/reftable.h"
#include "util/buf.h"

#define RT_BLOCK_REF 'r'
#define RT_BLOCK_LOG 'g'
#define RT_BLOCK_OBJ 'o'
#define RT_BLOCK_INDEX 'i'

#define RT_DEFAULT_BLOCK_SIZE 4096u
#define RT_MAX_BLOCK_SIZE 16777215u
#define RT_MAX_RESTARTS 65535u
#define RT_HEADER_SIZE(version) ((version) == 1 ? 24u : 28u)
#define RT_FOOTER_SIZE(version) ((version) == 1 ? 68u : 72u)
#define RT_MAX_HEADER_SIZE 28u
#define RT_MAX_FOOTER_SIZE 72u

/* One decoded record as a view into its block's bytes: valid until the
 * block iterator moves to another block. The key is materialised because
 * prefix compression needs the previous one. */
struct rt_rec {
	struct wg_buf key;
	uint8_t val_type;
	uint64_t u64;                 /* ref: update_index delta; index: position */
	const unsigned char *id1;     /* ref value / log old id */
	const unsigned char *id2;     /* ref peeled / log new id */
	const char *str;              /* symref target / log name */
	size_t str_len;
	const char *email, *msg;
	size_t email_len, msg_len;
	uint64_t time;
	int16_t tz;
	uint64_t *pos;                /* obj: block positions (owned) */
	size_t npos, pos_cap;
};

void rt_rec_release(struct rt_rec *rec);

/* Encode one record (key with prefix compression against prev, then the
 * value) into out. Returns 0 or WG_ENOMEM. */
int rt_encode_key(struct wg_buf *out, const unsigned char *prev, size_t prev_len,
		  const unsigned char *key, size_t key_len, uint8_t val_type, bool *restart);
void rt_put_varint(struct wg_buf *out, uint64_t v, int *err);

/* Log keys: refname '\0' be64(~update_index). */
int rt_log_key(struct wg_buf *out, const char *refname, uint64_t update_index);

/* A block loaded from a table; for the first block of the file, data starts
 * at the file header (header_off bytes) and offsets count from there. */
struct rt_block {
	unsigned char *data;
	size_t cap;
	uint64_t offset;              /* position in the file */
	uint32_t len;                 /* block_len: bytes in use */
	uint32_t header_off;
	uint8_t type;
	uint32_t restart_off;         /* start of the restart table */
	uint16_t restart_count;
	uint64_t full_size;           /* distance to the next block in the file */
};

void rt_block_release(struct rt_block *b);

struct rt_block_iter {
	const struct rt_block *b;
	uint32_t next_off;
	bool pending;                 /* rec holds the next record already */
};

/* Context for messages and sizes. */
struct rt_ctx {
	const char *name;             /* table name for messages */
	size_t rawsz;
};

void rt_block_iter_start(struct rt_block_iter *bi, const struct rt_block *b, struct rt_rec *rec);
int rt_block_iter_next(struct rt_block_iter *bi, struct rt_rec *rec, const struct rt_ctx *ctx);
/* Position so that the next record returned is the first with key >= want;
 * WG_ITEROVER if every key in the block is smaller. */
int rt_block_iter_seek(struct rt_block_iter *bi, struct rt_rec *rec, const struct rt_ctx *ctx,
		       const unsigned char *want, size_t want_len);

int rt_key_cmp(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen);

/* Byte source access for the table reader. */
uint64_t rt_source_size(const struct wg_reftable_source *src);
int rt_source_read(struct wg_reftable_source *src, void *dst, uint64_t off, size_t len);

/* Iterators are objects with a small vtable; each kind embeds this first. */
struct wg_reftable_iter {
	int (*next_ref)(struct wg_reftable_iter *it, struct wg_reftable_ref *out);
	int (*next_log)(struct wg_reftable_iter *it, struct wg_reftable_log *out);
	void (*free)(struct wg_reftable_iter *it);
};

/* Table internals used by the merged view and the stack. */
void rt_table_incref(struct wg_reftable_table *t);
void rt_writer_limits(const struct wg_reftable_writer *w, uint64_t *min, uint64_t *max);
/* File size minus the header overhead, as git sizes tables for the
 * geometric compaction heuristic. */
uint64_t rt_table_compaction_size(const struct wg_reftable_table *t);

/* zlib allocation through wg_malloc, so failure injection reaches it. */
void *rt_zalloc(void *opaque, unsigned items, unsigned size);
void rt_zfree(void *opaque, void *ptr);

#endif
