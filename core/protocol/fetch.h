/* The fetch exchange of upload-pack: protocol v2's `fetch` command
 * (gitprotocol-v2(5)) and the v0/v1 negotiation of the smart-HTTP
 * stateless protocol (gitprotocol-pack(5), gitprotocol-http(5)).
 *
 * Requests are built into a struct wg_buf from the server's capabilities
 * and a description of what we want (struct wg_fetch_args); anything the
 * server did not advertise is refused rather than sent, so a request never
 * asks for what cannot be honoured.
 *
 * Responses are parsed sans-IO: feed the bytes in any chunking and take
 * events out (acknowledgements, shallow updates, wanted refs, pack bytes,
 * progress). Memory is bounded whatever the server sends: at most one
 * pkt-line is buffered, pack data is handed out as it arrives and never
 * accumulated, and an endless stream of progress or acknowledgements is
 * just an endless stream of events.
 *
 *   v2 request:  command=fetch / [agent=…] / [object-format=…] / 0001 /
 *                thin-pack / no-progress / include-tag / ofs-delta /
 *                sideband-all / wait-for-done / shallow <oid>… / deepen <n> /
 *                deepen-since <t> / deepen-not <ref>… / deepen-relative /
 *                filter <spec> / want <oid>… / have <oid>… / [done] / 0000
 *   v2 response: [acknowledgments 0001] [shallow-info 0001] [wanted-refs 0001]
 *                packfile 0000 [0002]
 *                | acknowledgments 0000 [0002]
 *
 *   v0 request:  want <oid> <caps> / want <oid>… / shallow <oid>… /
 *                deepen <n> / deepen-since <t> / deepen-not <ref>… /
 *                filter <spec> / 0000 / have <oid>… / (done | 0000)
 *   v0 response: [shallow/unshallow… 0000] ACK <oid> common|ready… /
 *                (NAK | ACK <oid>) [side-band pack 0000]
 *                (the shallow list only after a deepen; the pack only
 *                after "done": a negotiation round ends with its NAK, as
 *                the stateless server exits there)
 */
#ifndef WG_PROTOCOL_FETCH_H
#define WG_PROTOCOL_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "protocol/capabilities.h"
#include "protocol/progress.h"
#include "util/buf.h"

/* --- the request --------------------------------------------------------------- */

struct wg_fetch_args {
	const struct wg_hash_algo *algo;        /* the repository's hash (required) */
	const struct wg_oid *wants;             /* at least one */
	size_t nwants;
	const struct wg_oid *haves;             /* this round's haves, the common ones from */
	size_t nhaves;                          /* earlier rounds included (stateless) */
	bool done;                  /* send "done": no more negotiation rounds */
	bool thin_pack, ofs_delta, include_tag, no_progress;
	/* v2 only, and refused unless the server advertises them
	 * (fetch=sideband-all, fetch=wait-for-done); ignored in v0. */
	bool sideband_all, wait_for_done;
	unsigned depth;             /* 0: no deepen */
	const char *deepen_since;   /* NULL, or seconds since the epoch as decimal text */
	const char *const *deepen_not; /* ref names (no spaces or control bytes) */
	size_t ndeepen_not;
	bool deepen_relative;       /* needs depth > 0 */
	const struct wg_oid *shallows; /* commits we already have as shallow */
	size_t nshallows;
	/* NULL or a filter spec: "blob:none", "blob:limit=<n>[kmg]",
	 * "tree:<depth>", "sparse:oid=<blob-ish>", "object:type=<type>",
	 * "combine:<spec>+<spec>…" (sub-specs %-encoded). blob:limit and
	 * tree depths are sent with their k/m/g suffix expanded. */
	const char *filter;
	const char *agent;          /* NULL: "webgit/0.1"; printable ASCII, no spaces */
};

#define WG_FETCH_ARGS_INIT { .ofs_delta = true }

/* The agent string sent when args->agent is NULL. */
#define WG_FETCH_DEFAULT_AGENT "webgit/0.1"

/* Append a v2 fetch request to `out`. `server` is the v2 capability
 * advertisement (required). agent= is sent only if the server advertises
 * agent, object-format= only if it advertises object-format (and it must
 * be args->algo). Errors, with `out` left unchanged:
 *   WG_EUNSUPPORTED  the server lacks fetch, or a feature the arguments
 *                    need (fetch=shallow for shallows/deepen*,
 *                    fetch=filter, fetch=sideband-all, fetch=wait-for-done),
 *                    or uses another object format; the message names it;
 *   WG_EINVALID      bad arguments: no wants, an id of another hash, an
 *                    invalid filter spec, deepen with deepen-since or
 *                    deepen-not, deepen-relative without depth, text that
 *                    would break the framing, a v0/v1 `server`. */
int wg_fetch_request_v2(struct wg_buf *out, const struct wg_caps *server,
			const struct wg_fetch_args *args);

/* Append the body of a v0/v1 `POST …/git-upload-pack` (stateless: every
 * request repeats the wants and carries all the haves worth sending, the
 * common ones of earlier rounds included). `server` is the v0/v1
 * capability list from the ref advertisement (required).
 *
 * The first want carries what git 2.53 sends, in its order and only when
 * advertised: multi_ack_detailed, no-done (with args->done), side-band-64k
 * (else side-band), deepen-relative, thin-pack, no-progress, include-tag,
 * ofs-delta, deepen-since and deepen-not (whenever advertised, used or
 * not, as git), agent=…, filter; never "shallow" or "object-format" (git
 * sends neither: the advertisement settles both). The body ends with the
 * haves and "done", or the haves and a flush for a negotiation round.
 * Errors as for v2: shallows/depth need "shallow", deepen-since
 * "deepen-since", deepen-not "deepen-not", deepen-relative
 * "deepen-relative", a filter "filter"; a server with neither side-band
 * capability is WG_EUNSUPPORTED (the pack could not be delimited). */
int wg_fetch_request_v0(struct wg_buf *out, const struct wg_caps *server,
			const struct wg_fetch_args *args);

/* --- the response -------------------------------------------------------------- */

enum wg_fetch_event_kind {
	WG_FETCH_EV_ACK = 1,      /* oid: a common commit ("ACK <oid>", v0 also
				   * "ACK <oid> common" / "ACK <oid> continue") */
	WG_FETCH_EV_NAK,
	WG_FETCH_EV_READY,        /* the server is ready to send a pack: stop
				   * negotiating. v2 "ready": oid is the null id;
				   * v0 "ACK <oid> ready": that oid (which the
				   * server may not have) */
	WG_FETCH_EV_SHALLOW,      /* oid: becomes shallow */
	WG_FETCH_EV_UNSHALLOW,    /* oid: no longer shallow */
	WG_FETCH_EV_WANTED_REF,   /* oid + refname (v2 wanted-refs) */
	WG_FETCH_EV_PACK_DATA,    /* data/len: pack bytes, in order (never empty) */
	WG_FETCH_EV_PROGRESS,     /* progress: a parsed side-band 2 line */
	WG_FETCH_EV_END,          /* the response is complete: v2 after its final
				   * flush; v0 after the flush that follows the
				   * pack, or right after the NAK (or plain ACK)
				   * of a round without "done" */
};

struct wg_fetch_event {
	enum wg_fetch_event_kind kind;
	struct wg_oid oid;
	const char *refname;              /* WANTED_REF; valid until the next call */
	const void *data;                 /* PACK_DATA; valid until the next call */
	size_t len;
	const struct wg_progress_event *progress; /* PROGRESS; valid until the next call */
};

struct wg_fetch_response;

/* A parser for one response. `version` is 2, or 0 / 1 (the same framing);
 * `done_sent` says whether the request said "done" (v2: the response may
 * then not hold acknowledgments; v0: a pack follows the final NAK/ACK);
 * `sideband_all` whether a v2 request asked for sideband-all. A v0 parser
 * made here expects side-band-64k, takes an optional shallow list at the
 * start, and ends the response after the NAK of a round without "done".
 * Prefer wg_fetch_response_new_for, which knows exactly what was asked. */
int wg_fetch_response_new(struct wg_fetch_response **out, int version,
			  const struct wg_hash_algo *algo, bool done_sent, bool sideband_all);

/* A parser for the response to the request that wg_fetch_request_v2 (for
 * a v2 `server`) or wg_fetch_request_v0 built from the same `server` and
 * `args`: it also knows the v0 side-band mode (side-band-64k or
 * side-band) and whether a v0 shallow list must come first (a deepen was
 * sent) or must not come at all. WG_EINVALID / WG_EUNSUPPORTED as the
 * request builder would return. */
int wg_fetch_response_new_for(struct wg_fetch_response **out, const struct wg_caps *server,
			      const struct wg_fetch_args *args);

/* Consume bytes from *in / *in_len (advancing them) until an event is
 * ready. Returns
 *   0             an event is in *ev (some need no input: call again even
 *                 when *in_len is 0, until WG_ENEEDMORE);
 *   WG_ENEEDMORE  the input is used up without an event (not fatal: feed
 *                 more; after END this just means "nothing more");
 *   WG_ECORRUPT   malformed input: bad pkt-lines, an unknown section, ids
 *                 of the wrong length or not hex, a section out of order,
 *                 data after the end;
 *   WG_ERROR      "remote error: …" for an ERR packet or a band-3 message;
 *   WG_ENOMEM.
 * Errors are sticky: every later call returns the same code and message.
 * Pointers in *ev stay valid until the next call, provided the caller
 * keeps its input bytes alive that long. */
int wg_fetch_response_next(struct wg_fetch_response *r, struct wg_fetch_event *ev,
			   const void **in, size_t *in_len);

/* After the last byte: 0 if the response was complete (END delivered, or
 * due on the next call), else WG_ECORRUPT "the server closed the response
 * early (…)", or the sticky error. */
int wg_fetch_response_finish(struct wg_fetch_response *r);

void wg_fetch_response_free(struct wg_fetch_response *r);

/* Pack bytes handed out so far (for messages and progress). */
unsigned long long wg_fetch_response_pack_bytes(const struct wg_fetch_response *r);

/* --- helpers ------------------------------------------------------------------- */

/* Check a filter spec and append the form that is sent (k/m/g expanded)
 * to `out`; WG_EINVALID with a message otherwise (`out` unchanged). */
int wg_fetch_filter_normalize(struct wg_buf *out, const char *spec);

#endif
