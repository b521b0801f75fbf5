/* The dumb HTTP walker: bring the objects reachable from some tips into a
 * repository from a static host (no Git server: the files of a bare
 * repository, published with `git update-server-info`), as git's
 * http-fetch walker does (gitprotocol-http.adoc, "Dumb Clients").
 *
 * For each object not in the repository, starting at the tips:
 * GET objects/xx/<rest> (a loose object: inflated, hashed against the id
 * asked for, checked, stored loose); when the host has no such file,
 * objects/info/packs (once) and the hosts's .idx files (one at a time, as
 * needed) say which pack holds it, and that whole pack is downloaded,
 * streamed into our own indexer (the host's .idx only chooses the pack; it
 * is never stored). Then the object is parsed and what it names is queued
 * (a commit: its tree and parents; a tree: its entries but gitlinks; a
 * tag: its object). Objects the repository had before are trusted to be
 * complete (the caller's connectivity check says so); objects of a pack
 * just downloaded are walked, since a pack need not hold all they name.
 *
 * Every object received passes the checks the smart path applies
 * (receive_check.h: fsck of commits, trees and tags; .gitmodules and
 * .gitattributes blobs at the end, once everything is here). A host whose
 * objects cannot be found fails the walk: WG_EUNSUPPORTED when it borrows
 * objects through objects/info/(http-)alternates, which are not followed,
 * else WG_ECORRUPT. On failure wg_dumb_fetch_discard() takes back every
 * loose object and pack the walk stored.
 *
 * Memory: a pack streams to disk through the indexer; a loose object and
 * a host's .idx are held while they are read (bounded by the limits); the
 * ids walked are kept in a set. Internal to core/remote: the operations
 * (clone, fetch) drive it from their own vtables. */
#ifndef WG_REMOTE_DUMB_FETCH_H
#define WG_REMOTE_DUMB_FETCH_H

#include <stdint.h>

#include "hash/oid.h"
#include "remote/operation_internal.h"
#include "repo/repo.h"

struct wg_dumb_fetch;

/* A walker storing into `repo` from the repository at `url` (no trailing
 * '/', no user information: op adds the credentials); requests are made
 * through op. */
int wg_dumb_fetch_new(struct wg_dumb_fetch **out, struct wg_remote_op *op,
		      struct wg_repo *repo, const char *url);
/* Add a tip to walk from (before or after a walk completed: the next
 * request goes on from it). */
int wg_dumb_fetch_want(struct wg_dumb_fetch *w, const struct wg_oid *oid);
/* An object the repository has with everything it reaches (what a ref
 * names): the walk stops there, as git's walker stops at the commits of
 * local refs, even when a pack it downloads holds it too. */
int wg_dumb_fetch_have(struct wg_dumb_fetch *w, const struct wg_oid *oid);
/* 0 with op's request set, WG_ITEROVER when every object reachable from
 * the tips is in the repository and checked, or an error. */
int wg_dumb_fetch_next_request(struct wg_dumb_fetch *w);
int wg_dumb_fetch_response_begin(struct wg_dumb_fetch *w, int status, const char *content_type);
int wg_dumb_fetch_feed(struct wg_dumb_fetch *w, const void *data, size_t len);
int wg_dumb_fetch_response_end(struct wg_dumb_fetch *w);
/* Remove what the walk stored (loose objects, packs): no ref names it. */
void wg_dumb_fetch_discard(struct wg_dumb_fetch *w);
void wg_dumb_fetch_free(struct wg_dumb_fetch *w);

struct wg_dumb_fetch_stats {
	uint32_t requests;      /* responses begun */
	uint64_t bytes;         /* response body bytes */
	uint32_t loose;         /* loose objects stored */
	uint32_t packs;         /* packs downloaded */
};
void wg_dumb_fetch_stats(const struct wg_dumb_fetch *w, struct wg_dumb_fetch_stats *out);

#endif
