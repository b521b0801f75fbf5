/* The ref files a static ("dumb") Git host serves in place of a ref
 * advertisement (gitprotocol-http.adoc, "Dumb Clients"):
 *
 *  - info/refs, as `git update-server-info` writes it: one
 *    "<id> TAB <refname> LF" line per ref, and after an annotated tag its
 *    peeled value as "<id> TAB <refname>^{} LF". HEAD is not in it.
 *  - HEAD: "ref: refs/heads/main LF", or an id when it is detached.
 *
 * A static host does not say which object format the repository uses, so
 * it is read off the ids themselves: 40 hex digits for SHA-1, 64 for
 * SHA-256 (the only place the lengths are spelled out is hash/). */
#ifndef WG_REMOTE_DUMB_REFS_H
#define WG_REMOTE_DUMB_REFS_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "util/limits.h"

struct wg_dumb_ref {
	char *name;
	struct wg_oid oid;
	bool has_peeled;
	struct wg_oid peeled;   /* what an annotated tag points at, at the end */
};

struct wg_dumb_refs {
	const struct wg_hash_algo *algo;   /* NULL when info/refs is empty */
	struct wg_dumb_ref *refs;
	size_t nr, alloc;
};
#define WG_DUMB_REFS_INIT { NULL, NULL, 0, 0 }

/* Parse the whole info/refs. `out` must be WG_DUMB_REFS_INIT and released
 * even on failure. WG_ECORRUPT (with the line number) for a line that is
 * not "<id>\t<valid refname>", ids of two lengths, a "^{}" line that does
 * not follow its ref; WG_ELIMIT past limits->max_refs. */
int wg_dumb_refs_parse(struct wg_dumb_refs *out, const char *data, size_t len,
		       const struct wg_limits *limits);
void wg_dumb_refs_release(struct wg_dumb_refs *refs);

/* The ref of exactly this full name, or NULL. */
const struct wg_dumb_ref *wg_dumb_refs_find(const struct wg_dumb_refs *refs, const char *name);
/* The ref a name given by a person means, by git's rules for <refname>
 * (gitrevisions.adoc): the first of "<name>", "refs/<name>",
 * "refs/tags/<name>", "refs/heads/<name>", "refs/remotes/<name>",
 * "refs/remotes/<name>/HEAD" that exists; NULL if none. */
const struct wg_dumb_ref *wg_dumb_refs_dwim(const struct wg_dumb_refs *refs, const char *name);

/* Parse a HEAD file: *symref receives the target of "ref: <name>" (to
 * wg_free), or, for a detached HEAD, NULL with the id in *oid (of `algo`;
 * with algo NULL, of the length the id has). WG_ECORRUPT otherwise. */
int wg_dumb_head_parse(char **symref, struct wg_oid *oid, const struct wg_hash_algo *algo,
		       const char *data, size_t len);

/* The object format whose ids have `hexlen` digits, or NULL. */
const struct wg_hash_algo *wg_dumb_algo_by_hexlen(size_t hexlen);

#endif
