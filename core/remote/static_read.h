/* Reading one file at a ref from a repository published on a static web
 * host: no Git server, only the files of a bare repository (S3, R2, any
 * file server), with info/refs and objects/info/packs written by
 * `git update-server-info` (gitprotocol-http.adoc, "Dumb Clients").
 *
 * Unlike git's dumb client, which downloads whole packs, this fetches only
 * the bytes it needs with HTTP Range requests: the head and one fanout
 * bucket of each pack index, the object's offset, then the object's entry
 * in the pack, and each delta base it refers to, until the object can be
 * built; for the commit, each tree on the path and the blob. A file of a
 * 1 GB pack costs some tens of kilobytes and a few dozen requests.
 *
 * Every object built is hashed and checked against the id it was asked
 * by, so a host (or a corrupt pack) cannot substitute content. Memory is
 * bounded by the objects on the path and the deltas of the chain being
 * resolved, never by the pack or the index.
 *
 * A host that answers a Range request with the whole file (HTTP 200
 * rather than 206) fails the operation with WG_EUNSUPPORTED at once,
 * before the body is read: reading on through a pack to the one entry
 * wanted would transfer up to the whole pack for every object of the
 * path, several times a clone's cost, so a clone is the better advice.
 *
 * The first request is the one smart-HTTP discovery makes,
 * GET info/refs?service=git-upload-pack (a static host ignores the query
 * and sends its info/refs): when the answer is a smart server's
 * advertisement the operation stops with WG_EUNSUPPORTED and
 * wg_static_read_smart() true, and the caller can go the smart way
 * (clone), reusing that response. */
#ifndef WG_REMOTE_STATIC_READ_H
#define WG_REMOTE_STATIC_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "remote/operation.h"

struct wg_static_read_options {
	/* Bytes first read at a pack entry; doubled while the entry's zlib
	 * stream wants more. 0: 2048 (most entries on a path are small
	 * deltas, and every byte over is wasted). */
	size_t window;
	/* A fanout bucket of more ids than this is narrowed by reading single
	 * ids (a binary search over HTTP) before its ids are read. 0: 2048. */
	uint32_t bucket_max;
	/* Longest delta chain followed (a cycle of REF_DELTAs ends here).
	 * 0: 10000 (git's pack.depth is at most 4095). */
	uint32_t max_chain;
	/* Ask for info/refs directly, not with the smart-HTTP query (for a
	 * host known to be static). */
	bool no_probe;
};
#define WG_STATIC_READ_OPTIONS_INIT { 0, 0, 0, false }

/* Read `path` ("dir/file") at `ref` of the repository at `url`. `ref` is a
 * full ref name, a branch or tag name (git's rules, gitrevisions.adoc), a
 * full object id, or NULL or "HEAD" for the host's HEAD file. */
int wg_static_read_new(struct wg_remote_op **out, const char *url, const char *ref,
		       const char *path, const struct wg_static_read_options *opts);

/* Once complete: the file's bytes (valid until the operation is freed),
 * its blob id and its mode (0100644, 0100755 or 0120000: a symlink's
 * bytes are its target, as `git show` prints them). */
const unsigned char *wg_static_read_data(struct wg_remote_op *op, size_t *len);
void wg_static_read_blob(struct wg_remote_op *op, struct wg_oid *oid, unsigned *mode);
/* The host's object format (known once info/refs was read), or NULL. */
const struct wg_hash_algo *wg_static_read_algo(struct wg_remote_op *op);
/* Whether the operation stopped because the host is a smart Git server. */
bool wg_static_read_smart(struct wg_remote_op *op);

struct wg_static_read_stats {
	uint32_t requests;      /* responses begun */
	uint64_t bytes;         /* response body bytes fed */
	uint32_t objects;       /* objects built (commit, trees, blob, tags) */
	uint32_t deltas;        /* deltas applied */
};
void wg_static_read_stats(struct wg_remote_op *op, struct wg_static_read_stats *out);

#endif
