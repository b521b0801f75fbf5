/* The receiving half that clone, fetch and the promisor fetch share: the
 * POST of an upload-pack request, and its response's events turned into a
 * pack stored by the streaming indexer, with progress reported on the way
 * (the server's phases, then receiving and resolving). The events an
 * operation decides about itself (acknowledgments, shallow lines...) go to
 * its callback. Internal to core/remote. */
#ifndef WG_REMOTE_PACK_RECEIVER_H
#define WG_REMOTE_PACK_RECEIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "odb/link_check.h"
#include "pack/indexer.h"
#include "protocol/fetch.h"
#include "remote/operation_internal.h"
#include "remote/receive_check.h"
#include "repo/repo.h"

/* Return 0 to go on, or an error code to stop. */
typedef int (*wg_pack_receiver_event_fn)(const struct wg_fetch_event *ev, void *payload);

struct wg_pack_receiver {
	struct wg_remote_op *op;
	struct wg_repo *repo;
	const struct wg_hash_algo *algo;
	bool fix_thin;                 /* a thin pack: bases from the repository */
	struct wg_fetch_response *resp;
	struct wg_indexer *ix;
	struct wg_object_source bases; /* the repository, for a thin pack */
	struct wg_indexer *installed;  /* after finish: what it put in place */
	char *promisor_path;           /* a .promisor file this receiver made */
	struct wg_buf pack_dir;        /* the indexer keeps a pointer to it */
	uint64_t pack_bytes;
	wg_pack_receiver_event_fn on_event;
	void *payload;
	/* Set after wg_pack_receiver_request() to check connectivity from the
	 * objects as they are indexed (a clone): finish then fails unless
	 * everything they name arrived (see odb/link_check.h). */
	struct wg_link_check *links;
	bool links_promisor;
	/* Every object received is checked (receive_check.h) before the
	 * pack is installed. */
	struct wg_receive_check check;
};

/* Build the request for `args` into op->body and set op's request (POST
 * $url/git-upload-pack with the headers of the protocol version d speaks),
 * and get ready for its response. `rcv` is zeroed first unless reused: call
 * wg_pack_receiver_release() between rounds. */
int wg_pack_receiver_request(struct wg_pack_receiver *rcv, struct wg_remote_op *op,
			     struct wg_repo *repo, const struct wg_discovery *d,
			     const struct wg_fetch_args *args, bool fix_thin,
			     wg_pack_receiver_event_fn on_event, void *payload);
int wg_pack_receiver_feed(struct wg_pack_receiver *rcv, const void *data, size_t len);
/* The response ended: 0 with *got_pack (and pack_hash, algo->rawsz bytes,
 * when a pack came) once the pack and its index are in place. The checks
 * (objects, .gitmodules, connectivity) all run before that: when one
 * fails, no pack is left. */
int wg_pack_receiver_finish(struct wg_pack_receiver *rcv, bool *got_pack,
			    unsigned char *pack_hash);
/* Drop the response parser and any unfinished pack (its temporary files). */
void wg_pack_receiver_release(struct wg_pack_receiver *rcv);
/* Mark the pack `pack_hash` as the promisor remote's (pack-<hash>.promisor). */
int wg_pack_receiver_mark_promisor(struct wg_pack_receiver *rcv, const unsigned char *pack_hash);

/* Take back the pack that finish installed (the files it put in place,
 * and a .promisor file mark_promisor made): for an operation that failed
 * before any ref named the pack's objects. */
void wg_pack_receiver_discard(struct wg_pack_receiver *rcv);

#endif
