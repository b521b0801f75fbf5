/* The reftable format (Documentation/technical/reftable.adoc): records,
 * tables, merged views and the $GIT_DIR/reftable stack, as a library the
 * reftable ref backend sits on.
 *
 * Layers, bottom-up:
 *   source   a byte source (vtable): memory for tests, a file in production
 *   table    one immutable .ref file: seek and iterate refs, logs, objects
 *   writer   produces one table from sorted records into a write callback
 *   merged   several tables, newest winning, deletions hiding older values
 *   stack    the reftable/ directory: tables.list, additions under
 *            tables.list.lock, geometric auto-compaction, full compaction
 *
 * Conventions: functions return 0 or a negative WG_E* code with a message
 * (wg_error_message()); corrupt input is WG_ECORRUPT naming the table file.
 * Iterators return 0 with a record, WG_ITEROVER at the end, <0 on error.
 * Records handed out are owned by the caller's struct: release them with
 * wg_reftable_ref_release() / wg_reftable_log_release(); passing the same
 * struct to the next call of an iterator reuses it (the previous contents are
 * released first). Objects are reference-counted internally, so an iterator
 * stays valid after its table, merged view or stack is freed or reloaded. */
#ifndef WG_REFS_REFTABLE_H
#define WG_REFS_REFTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"

/* --- records ---------------------------------------------------------------- */

enum wg_reftable_ref_type {
	WG_REFTABLE_REF_DELETION = 0, /* tombstone hiding older tables' value */
	WG_REFTABLE_REF_VAL1 = 1,     /* one object id */
	WG_REFTABLE_REF_VAL2 = 2,     /* object id and its peeled id */
	WG_REFTABLE_REF_SYMREF = 3,   /* symbolic ref: target */
};

struct wg_reftable_ref {
	char *refname;
	uint64_t update_index;        /* absolute, not the delta stored on disk */
	enum wg_reftable_ref_type type;
	struct wg_oid value;          /* VAL1, VAL2 */
	struct wg_oid peeled;         /* VAL2 */
	char *target;                 /* SYMREF */
};

enum wg_reftable_log_type {
	WG_REFTABLE_LOG_DELETION = 0, /* hides the entry with the same key */
	WG_REFTABLE_LOG_UPDATE = 1,
};

struct wg_reftable_log {
	char *refname;
	uint64_t update_index;
	enum wg_reftable_log_type type;
	/* UPDATE only: */
	struct wg_oid old_id;
	struct wg_oid new_id;
	char *name;
	char *email;                  /* without the <> */
	uint64_t time;                /* seconds since the epoch */
	/* The zone as git writes it: the decimal value of +HHMM (+0230 is
	 * 230, -0800 is -800). The spec's text says minutes, but git, the
	 * reference, stores HHMM; we follow git so reflogs interoperate. */
	int16_t tz_offset;
	char *message;
};

void wg_reftable_ref_release(struct wg_reftable_ref *ref);
void wg_reftable_log_release(struct wg_reftable_log *log);
/* Deep copies (dst is released first). */
int wg_reftable_ref_copy(struct wg_reftable_ref *dst, const struct wg_reftable_ref *src);
int wg_reftable_log_copy(struct wg_reftable_log *dst, const struct wg_reftable_log *src);

/* --- byte sources ------------------------------------------------------------- */

struct wg_reftable_source_ops {
	/* Read exactly len bytes at off into dst (off + len <= the size given
	 * to wg_reftable_source_new; the table never asks beyond it). */
	int (*read)(void *payload, void *dst, uint64_t off, size_t len);
	/* Release the payload (may be NULL). */
	void (*close)(void *payload);
};

struct wg_reftable_source;

int wg_reftable_source_new(struct wg_reftable_source **out,
			   const struct wg_reftable_source_ops *ops, void *payload,
			   uint64_t size);
/* Borrow `len` bytes at `data`; they must outlive the source (and every
 * table or iterator reading from it). */
int wg_reftable_source_from_memory(struct wg_reftable_source **out, const void *data,
				   size_t len);
/* Open a file; its size is taken once with fstat. WG_ENOTFOUND if missing. */
int wg_reftable_source_from_file(struct wg_reftable_source **out, const char *path);
void wg_reftable_source_free(struct wg_reftable_source *src);

/* --- tables ------------------------------------------------------------------------ */

struct wg_reftable_table;
struct wg_reftable_iter;

/* Open a table: checks the header, the footer (magic, version, hash id,
 * CRC-32) and the section positions; blocks are read on demand. Takes
 * ownership of src, also on failure. `name` appears in error messages (the
 * stack passes the file's path). */
int wg_reftable_table_open(struct wg_reftable_table **out, struct wg_reftable_source *src,
			   const char *name);
void wg_reftable_table_free(struct wg_reftable_table *table);

const char *wg_reftable_table_name(const struct wg_reftable_table *table);
const struct wg_hash_algo *wg_reftable_table_algo(const struct wg_reftable_table *table);
uint64_t wg_reftable_table_min_update_index(const struct wg_reftable_table *table);
uint64_t wg_reftable_table_max_update_index(const struct wg_reftable_table *table);
uint64_t wg_reftable_table_size(const struct wg_reftable_table *table);

/* The record for refname, deletions included (type DELETION);
 * WG_ENOTFOUND if this table has none. */
int wg_reftable_table_read_ref(struct wg_reftable_ref *out, struct wg_reftable_table *table,
			       const char *refname);
/* Refs whose names start with prefix ("" or NULL: all), in name order,
 * deletion records included. */
int wg_reftable_table_iter_refs(struct wg_reftable_iter **out, struct wg_reftable_table *table,
				const char *prefix);
/* Log records of one ref, newest first (refname NULL: all refs, by name). */
int wg_reftable_table_iter_logs(struct wg_reftable_iter **out, struct wg_reftable_table *table,
				const char *refname);
/* Refs whose value or peeled value is oid (via the obj blocks when the
 * table has them, by a scan otherwise). */
int wg_reftable_table_iter_refs_for(struct wg_reftable_iter **out,
				    struct wg_reftable_table *table, const struct wg_oid *oid);
/* Read every block and record of the table, checking structure and key
 * order; WG_ECORRUPT on the first problem. */
int wg_reftable_table_verify(struct wg_reftable_table *table);

/* --- iterators ------------------------------------------------------------------------ */

int wg_reftable_iter_next_ref(struct wg_reftable_ref *out, struct wg_reftable_iter *it);
int wg_reftable_iter_next_log(struct wg_reftable_log *out, struct wg_reftable_iter *it);
void wg_reftable_iter_free(struct wg_reftable_iter *it);

/* --- writer ------------------------------------------------------------------------------ */

struct wg_reftable_write_options {
	const struct wg_hash_algo *algo; /* NULL: SHA-1 (format version 1);
					  * SHA-256 writes version 2 */
	uint32_t block_size;             /* 0: 4096; at most 16777215 */
	uint16_t restart_interval;       /* 0: 16 */
	bool unpadded;                   /* no NUL padding to block_size */
	bool skip_index_objects;         /* no obj blocks */
	bool exact_log_message;          /* store messages verbatim; otherwise,
					  * as git, strip trailing newlines,
					  * refuse inner ones, and append one */
};

#define WG_REFTABLE_WRITE_OPTIONS_INIT { NULL, 0, 0, false, false, false }

/* Receives the table's bytes in order; return 0 or a WG_E* code. */
typedef int (*wg_reftable_write_fn)(void *payload, const void *data, size_t len);

struct wg_reftable_writer;

/* opts may be NULL. The update-index limits default to 0..0; set them with
 * wg_reftable_writer_set_limits() before adding records. */
int wg_reftable_writer_new(struct wg_reftable_writer **out,
			   const struct wg_reftable_write_options *opts,
			   wg_reftable_write_fn write, void *payload);
int wg_reftable_writer_set_limits(struct wg_reftable_writer *w, uint64_t min_update_index,
				  uint64_t max_update_index);
/* Refs strictly ascending by name, update_index within the limits; then logs
 * ascending by (refname, update_index descending), update_index <= max.
 * WG_EINVALID for out-of-order keys, a record too large for a block, or a
 * ref after a log. */
int wg_reftable_writer_add_ref(struct wg_reftable_writer *w, const struct wg_reftable_ref *ref);
int wg_reftable_writer_add_log(struct wg_reftable_writer *w, const struct wg_reftable_log *log);
/* Write the remaining blocks, the indexes and the footer. A writer with no
 * records writes a valid empty table. */
int wg_reftable_writer_finish(struct wg_reftable_writer *w);
/* The limits set so far (inside wg_reftable_stack_add's callback both are
 * the update index of the new table: use it for the records). */
uint64_t wg_reftable_writer_min_update_index(const struct wg_reftable_writer *w);
uint64_t wg_reftable_writer_max_update_index(const struct wg_reftable_writer *w);
/* Number of records added so far. */
uint64_t wg_reftable_writer_records(const struct wg_reftable_writer *w);
void wg_reftable_writer_free(struct wg_reftable_writer *w);

/* A wg_reftable_write_fn appending to the struct wg_buf given as payload. */
int wg_reftable_write_to_buf(void *payload, const void *data, size_t len);

/* --- merged view ---------------------------------------------------------------------- */

struct wg_reftable_merged;

/* tables[0] is the oldest, tables[n-1] the newest; the view keeps its own
 * references, so the caller may free its tables afterwards. All tables must
 * use the same hash (WG_EINVALID otherwise). */
int wg_reftable_merged_new(struct wg_reftable_merged **out,
			   struct wg_reftable_table *const *tables, size_t n);
void wg_reftable_merged_free(struct wg_reftable_merged *m);
size_t wg_reftable_merged_count(const struct wg_reftable_merged *m);
struct wg_reftable_table *wg_reftable_merged_table(const struct wg_reftable_merged *m, size_t i);

/* The newest record for refname; WG_ENOTFOUND if absent or deleted. */
int wg_reftable_merged_read_ref(struct wg_reftable_ref *out, struct wg_reftable_merged *m,
				const char *refname);
/* Live refs under prefix, newest value per name, deletions hidden. */
int wg_reftable_merged_iter_refs(struct wg_reftable_iter **out, struct wg_reftable_merged *m,
				 const char *prefix);
/* Logs of refname (NULL: all), newest first, log deletions hidden. */
int wg_reftable_merged_iter_logs(struct wg_reftable_iter **out, struct wg_reftable_merged *m,
				 const char *refname);
/* Raw merge (deletions kept): what a partial compaction writes. */
int wg_reftable_merged_iter_refs_raw(struct wg_reftable_iter **out,
				     struct wg_reftable_merged *m);
int wg_reftable_merged_iter_logs_raw(struct wg_reftable_iter **out,
				     struct wg_reftable_merged *m);

/* --- stack ($GIT_DIR/reftable) ----------------------------------------------------------- */

struct wg_reftable_stack_options {
	const struct wg_hash_algo *algo; /* NULL: SHA-1 */
	uint32_t block_size;             /* 0: 4096 */
	uint16_t restart_interval;       /* 0: 16 */
	bool fsync;                      /* fsync new tables and tables.list */
	bool disable_auto_compact;
	bool exact_log_message;
	unsigned file_mode;              /* 0: 0666 & ~umask */
};

#define WG_REFTABLE_STACK_OPTIONS_INIT { NULL, 0, 0, false, false, false, 0 }

struct wg_reftable_stack;

/* Open the stack in dir (which must exist): one snapshot of tables.list
 * (missing: an empty stack) with every named table opened. A table that
 * tables.list names but that is missing is retried once with a fresh
 * tables.list (a concurrent compaction may have replaced it), then
 * WG_ECORRUPT naming the file. */
int wg_reftable_stack_open(struct wg_reftable_stack **out, const char *dir,
			   const struct wg_reftable_stack_options *opts);
void wg_reftable_stack_free(struct wg_reftable_stack *st);
/* Take a new snapshot, reusing tables that are already open. */
int wg_reftable_stack_reload(struct wg_reftable_stack *st);
/* The current snapshot (owned by the stack; valid until the next reload,
 * add or compaction; iterators made from it stay valid longer). */
struct wg_reftable_merged *wg_reftable_stack_merged(struct wg_reftable_stack *st);
uint64_t wg_reftable_stack_next_update_index(const struct wg_reftable_stack *st);

/* Add one table. Takes tables.list.lock (WG_ELOCKED if held), checks that
 * tables.list still matches the snapshot (WG_ELOCKED "stack is outdated"
 * otherwise, unless flags has WG_REFTABLE_ADD_RELOAD: then the snapshot is
 * refreshed under the lock), and calls write_fn with a writer whose limits
 * are next_update_index..next_update_index. While write_fn runs the stack is
 * locked and current, so it may read st to check old values. A nonzero
 * return from write_fn aborts the addition with that code; a writer with no
 * records adds nothing. The table is then named
 * 0x<min:12 hex>-0x<max:12 hex>-<random:8 hex>.ref, tables.list is replaced,
 * the snapshot reloaded, and the stack auto-compacted (unless disabled). */
#define WG_REFTABLE_ADD_RELOAD 1u
typedef int (*wg_reftable_add_fn)(struct wg_reftable_writer *w, void *payload);
int wg_reftable_stack_add(struct wg_reftable_stack *st, unsigned flags,
			  wg_reftable_add_fn write_fn, void *payload);

/* The same in two steps, for a caller that must check values under the
 * lock before deciding what to write (a ref transaction's prepare and
 * commit): new_addition takes the lock and makes the snapshot current (as
 * wg_reftable_stack_add does); the stack may be read freely while the
 * addition lives; commit writes the table with write_fn and publishes it;
 * free releases the lock if commit was never called. */
struct wg_reftable_addition;
int wg_reftable_stack_new_addition(struct wg_reftable_addition **out,
				   struct wg_reftable_stack *st, unsigned flags);
int wg_reftable_addition_commit(struct wg_reftable_addition *a, wg_reftable_add_fn write_fn,
				void *payload);
void wg_reftable_addition_free(struct wg_reftable_addition *a);

/* Compact every table into one (git pack-refs): deletion records and log
 * deletions are dropped since nothing older remains. */
int wg_reftable_stack_compact_all(struct wg_reftable_stack *st);
/* Geometric compaction (factor 2) as git does after each write: merges the
 * smallest tables that break the sequence. WG_ELOCKED if another writer
 * holds a lock. */
int wg_reftable_stack_auto_compact(struct wg_reftable_stack *st);

#endif
