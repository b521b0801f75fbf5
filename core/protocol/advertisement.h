/* The reply to `GET $GIT_URL/info/refs?service=git-upload-pack`
 * (gitprotocol-http(5) "Smart Server Response", gitprotocol-pack(5)
 * "Reference Discovery"), and the remote ref list shared with ls-refs.
 *
 * A v0/v1 body is
 *
 *   001e# service=git-upload-pack\n  0000
 *   [000eversion 1\n]
 *   <oid> HEAD\0<capabilities>\n          (or <zero-id> capabilities^{}\0...)
 *   <oid> refs/heads/main\n
 *   <oid> refs/tags/v1\n  <oid> refs/tags/v1^{}\n
 *   [shallow <oid>\n ...]
 *   0000
 *
 * while a server that speaks v2 (the client sent "Git-Protocol: version=2")
 * answers with "version 2" and its capability advertisement instead. The
 * parser takes the body in any chunking and tells the two apart.
 *
 * Everything is checked as it arrives: ref names must be "HEAD" or valid
 * "refs/..." names, object ids must have exactly the hex length of the
 * object format in use, and that format must be the one the caller expects. */
#ifndef WG_PROTOCOL_ADVERTISEMENT_H
#define WG_PROTOCOL_ADVERTISEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "protocol/capabilities.h"
#include "util/limits.h"

/* --- remote refs (v0/v1 advertisement and v2 ls-refs) ------------------------------ */

struct wg_remote_ref {
	char *name;            /* "HEAD" or "refs/..." */
	struct wg_oid oid;     /* the null id when unborn */
	bool has_peeled;
	struct wg_oid peeled;  /* what an annotated tag points to, if has_peeled */
	char *symref_target;   /* the ref a symbolic ref points to, or NULL */
	bool unborn;           /* v2 "unborn HEAD symref-target:..." (no object) */
};

struct wg_remote_ref_list {
	struct wg_remote_ref *refs;
	size_t nr, alloc;
};

#define WG_REMOTE_REF_LIST_INIT { NULL, 0, 0 }

void wg_remote_ref_list_release(struct wg_remote_ref_list *list);
/* Append a copy of *ref; the list takes ownership of ref->name and
 * ref->symref_target, also on failure (they are then freed). */
int wg_remote_ref_list_add(struct wg_remote_ref_list *list, const struct wg_remote_ref *ref);
/* The ref of that name, or NULL. */
const struct wg_remote_ref *wg_remote_ref_list_find(const struct wg_remote_ref_list *list,
						    const char *name);

/* Validate a ref name received from a remote and return a NUL-terminated
 * copy (free with wg_free). It must be "HEAD" or a "refs/..." name that
 * `git check-ref-format` accepts, and hold no NUL; anything else is
 * WG_ECORRUPT with the name quoted safely. */
int wg_remote_refname_dup(char **out, const char *name, size_t len);

/* Parse an object id that must be exactly algo->hexsz hex digits long
 * (`len` is the length of the whole field). WG_ECORRUPT otherwise, with a
 * message that says when the length suggests the other hash function. */
int wg_remote_oid_parse(struct wg_oid *out, const struct wg_hash_algo *algo, const char *hex,
			size_t len);

/* --- the info/refs advertisement ----------------------------------------------------- */

struct wg_advertisement;

/* `service` is "git-upload-pack" or "git-receive-pack" for a smart-HTTP
 * body (which must start with "# service=<service>" or "version 2"), or
 * NULL for a transport without that header (git://, ssh, file).
 * `expected` is the object format of the local repository: the server
 * must use the same one (WG_EUNSUPPORTED otherwise). NULL accepts the
 * server's, as a clone does. */
int wg_advertisement_new(struct wg_advertisement **out, const char *service,
			 const struct wg_hash_algo *expected);
void wg_advertisement_free(struct wg_advertisement *adv);
/* Bound the advertisement (util/limits.h): max_refs data lines (refs,
 * shallow, .have and capability lines) and max_advertisement_bytes of
 * body, past which it fails with WG_ELIMIT. Copied; NULL restores the
 * process-wide defaults, which a new parser starts with. */
void wg_advertisement_set_limits(struct wg_advertisement *adv, const struct wg_limits *limits);

/* Feed the next bytes of the body. Returns WG_ENEEDMORE when it wants
 * more, 0 once the final flush packet has been read, or an error (bytes
 * after the final flush are WG_ECORRUPT). After an error every later call
 * fails with the same code and message. */
int wg_advertisement_feed(struct wg_advertisement *adv, const void *data, size_t len);
/* The body has ended: 0 if it was complete, WG_ECORRUPT if it was cut. */
int wg_advertisement_finish(struct wg_advertisement *adv);

/* Available once complete. The protocol the server answered with: 0, 1
 * (a "version 1" line) or 2 (a capability advertisement: no refs; ask
 * with ls-refs). */
int wg_advertisement_version(const struct wg_advertisement *adv);
/* The server's capabilities (version 0/1: from the first ref line). */
const struct wg_caps *wg_advertisement_caps(const struct wg_advertisement *adv);
/* The object format of the server's ids. */
const struct wg_hash_algo *wg_advertisement_hash_algo(const struct wg_advertisement *adv);
/* v0/v1: the refs in the server's order, peeled tags folded into their
 * tag's entry, symref=... capabilities applied as symref_target. Empty
 * for an empty repository and for v2. */
const struct wg_remote_ref_list *wg_advertisement_refs(const struct wg_advertisement *adv);
/* v0/v1 "shallow <oid>" lines: the server repository's shallow commits. */
const struct wg_oid *wg_advertisement_shallows(const struct wg_advertisement *adv, size_t *count);
/* v0/v1 "<oid> .have" lines (receive-pack: objects of alternates). */
const struct wg_oid *wg_advertisement_haves(const struct wg_advertisement *adv, size_t *count);

#endif
