/* Fixtures the protocol unit tests share: ids made of one repeated hex
 * digit, pkt-line builders, and an allocator that tracks live bytes (to
 * prove a parser's memory does not grow with its input). */
#ifndef WG_TEST_FIXTURES_H
#define WG_TEST_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "util/alloc.h"
#include "util/buf.h"

const struct wg_hash_algo *fx_sha1(void);
const struct wg_hash_algo *fx_sha256(void);
/* An id of algo->hexsz copies of `c`, in one of 8 rotating buffers. */
const char *fx_hexid(const struct wg_hash_algo *algo, char c);
struct wg_oid fx_oid_of(const struct wg_hash_algo *algo, char c);

/* Append a data packet of formatted text (which may contain NULs via %c). */
void fx_pkt(struct wg_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* A data packet of raw bytes behind a side-band number. */
void fx_band(struct wg_buf *b, int n, const void *data, size_t len);
void fx_flush(struct wg_buf *b);
void fx_delim(struct wg_buf *b);

/* Split schedules for feeding a streaming parser: split == FX_BYTEWISE is
 * byte by byte, otherwise two chunks cut at `split` (0 and len give an
 * empty chunk). Each chunk is a private copy the caller frees after use,
 * so ASan catches any pointer kept into a previous chunk. */
#define FX_BYTEWISE SIZE_MAX

struct fx_chunker {
	const unsigned char *data;
	size_t len, split, pos;
	int idx;
};

void fx_chunker_init(struct fx_chunker *c, const void *data, size_t len, size_t split);
/* The next chunk (a malloc'd copy of *n bytes), or NULL when done. */
unsigned char *fx_chunker_next(struct fx_chunker *c, size_t *n);

struct fx_tracking {
	size_t live, peak;
};
extern struct fx_tracking fx_tracked;
/* Install with wg_allocator_set(&fx_tracking_allocator); reset fx_tracked
 * first. */
extern const struct wg_allocator fx_tracking_allocator;

/* An allocator whose allocation number fx_fail_at (counting from 0 in
 * fx_alloc_count) fails: set both, then wg_allocator_set(&fx_failing_allocator). */
extern int fx_fail_at, fx_alloc_count;
extern const struct wg_allocator fx_failing_allocator;

/* The entries of a directory, "." and ".." left out; -1 if it cannot be
 * read. */
int fx_dir_entries(const char *dir);
/* Remove a directory of files (no subdirectories), as a test that made
 * one cleans up after itself. */
void fx_rm_flat_dir(const char *dir);

struct wg_odb;
struct wg_repo;
/* One regular file of a flat tree: its name and blob. */
struct fx_tree_entry {
	const char *name;
	struct wg_oid oid;
};

/* A commit of the flat tree `e` (n files, names in git's tree order),
 * with `parents`, by `ident` ("Name <email> <time> <zone>") as author
 * and committer, with message `msg`, written to odb. */
struct wg_oid fx_commit_tree(struct wg_odb *odb, const struct fx_tree_entry *e, size_t n,
			     const struct wg_oid *parents, size_t np, const char *ident,
			     const char *msg);
/* A new bare SHA-1 repository in the test's temporary directory `name`. */
struct wg_repo *fx_init_bare_repo(const char *name);
/* A commit whose tree holds one file `path` with `text`, by `who`
 * ("Name <email>") at `timestamp` in zone `tz` ("+0130"), with message
 * `msg`, written to odb (history tests build their graphs with it). */
struct wg_oid fx_commit_file(struct wg_odb *odb, const char *path, const char *text,
			     const struct wg_oid *parents, size_t n, const char *who,
			     long timestamp, const char *tz, const char *msg);

#endif
