/* Internal to the files ref backend: the packed-refs reader and writer
 * (refs_packed.c) that refs_files.c builds on. Not a public header. */
#ifndef WG_REFS_REFS_FILES_H
#define WG_REFS_REFS_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "refs/refdb_backend.h"
#include "util/buf.h"

/* One snapshot of packed-refs, searched in place: the file is mapped (or
 * read, where mapping is unavailable) and looked up by binary search, so
 * reading one ref among a million does not parse the whole file. A file
 * without the "sorted" trait is sorted once in memory, as git does. */
struct wg_packed {
	const struct wg_hash_algo *algo;
	const char *data;      /* whole file, or NULL when there is none */
	size_t len;
	size_t start;          /* first record, after the header line */
	int storage;           /* 0 none, 1 mmap, 2 wg_malloc */
	bool peeled;           /* the header's traits */
	bool fully_peeled;
};

/* One record, pointing into the snapshot. */
struct wg_packed_rec {
	const char *name;
	size_t namelen;
	struct wg_oid oid;
	bool has_peeled;
	struct wg_oid peeled;
};

/* Load `path`; a missing file is an empty snapshot. */
int wg_packed_load(struct wg_packed **out, const char *path, const struct wg_hash_algo *algo);
/* The same from len bytes in memory (copied); `name` is used in messages
 * (NULL: "packed-refs"). len 0 is an empty file. */
int wg_packed_parse(struct wg_packed **out, const char *data, size_t len,
		    const struct wg_hash_algo *algo, const char *name);
void wg_packed_free(struct wg_packed *p);
/* The record named `name`: 0, WG_ENOTFOUND, or WG_ECORRUPT. */
int wg_packed_find(struct wg_packed_rec *out, const struct wg_packed *p, const char *name,
		   size_t namelen);
/* Offset of the first record whose name is >= key (lower bound). */
size_t wg_packed_seek(const struct wg_packed *p, const char *key, size_t keylen);
/* Parse the record at *off and advance past it (and its ^ line):
 * 0, WG_ITEROVER at the end, or WG_ECORRUPT naming the line. */
int wg_packed_next(struct wg_packed_rec *out, const struct wg_packed *p, size_t *off);

/* The header git writes (PACKED_REFS_HEADER). */
#define WG_PACKED_HEADER "# pack-refs with: peeled fully-peeled sorted \n"
/* Append "<hex> <name>\n" and, when peeled is not NULL, "^<hex>\n". */
int wg_packed_format_rec(struct wg_buf *out, const char *name, size_t namelen,
			 const struct wg_oid *oid, const struct wg_oid *peeled);

#endif
