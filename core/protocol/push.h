/* The receive-pack exchange (gitprotocol-pack(5) "Pushing Data To a
 * Server", gitprotocol-http(5) smart-HTTP `POST …/git-receive-pack`).
 *
 * receive-pack only speaks protocol v0/v1: the capabilities are those of
 * the ref advertisement (wg_advertisement_new(&adv, "git-receive-pack",
 * algo)). The request body is
 *
 *   <old> <new> <ref>\0<caps>\n         the first command, with our capabilities
 *   <old> <new> <ref>\n ...             the other commands
 *   0000
 *   [<push option>\n ... 0000]          with push-options
 *   [PACK...]                           unless every command is a delete
 *
 * and the response, with report-status or report-status-v2, is
 *
 *   unpack ok | unpack <error>
 *   ok <ref> | ng <ref> <reason>        one per command
 *   [option refname <ref> / option old-oid <id> / option new-oid <id> /
 *    option forced-update]              (v2, after an "ok")
 *   0000
 *
 * sent as is, or, with side-band-64k, as a pkt-line stream carried in
 * band 1 (split across band packets anywhere) next to progress text in
 * band 2 and a fatal error in band 3, closed by a flush of the outer
 * stream. Without any report-status capability the server reports
 * nothing: the response is empty, or only progress and the flush.
 *
 * Both halves are sans-IO: the request is built into a struct wg_buf, the
 * response is fed in whatever chunks arrive. Memory is bounded by two
 * pkt-lines (the side-band packet and the report line inside it), a
 * progress line, and the report itself, whose size is bounded by the
 * commands sent. */
#ifndef WG_PROTOCOL_PUSH_H
#define WG_PROTOCOL_PUSH_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "protocol/capabilities.h"
#include "protocol/progress.h"
#include "util/buf.h"

/* --- the request --------------------------------------------------------------- */

/* One ref update. A null new_oid deletes the ref (the server must
 * advertise delete-refs), a null old_oid creates it; both null is
 * refused. refname is a full name under "refs/" that `git
 * check-ref-format` accepts; each ref may appear once per request. */
struct wg_push_command {
	struct wg_oid old_oid, new_oid;
	const char *refname;
};

struct wg_push_args {
	const struct wg_hash_algo *algo;  /* the repository's hash (required) */
	const struct wg_push_command *commands;  /* at least one */
	size_t ncommands;
	bool atomic;        /* all or nothing; needs the server's "atomic" */
	/* Sent after the commands; needs "push-options". Each is non-empty
	 * and holds no control characters (bytes >= 0x80 are passed on). */
	const char *const *push_options;
	size_t npush_options;
	bool quiet;         /* ask for no progress ("quiet"), if advertised */
	const char *agent;  /* NULL: "webgit/0.1"; printable ASCII, no spaces */
};

#define WG_PUSH_ARGS_INIT { 0 }

/* The agent string sent when args->agent is NULL. */
#define WG_PUSH_DEFAULT_AGENT "webgit/0.1"

/* Extra reports one command may get in a report-status-v2 response (a
 * proc-receive hook that turned one pushed ref into several). */
#define WG_PUSH_MAX_EXTRA_REPORTS 64

/* Append the start of the POST body to `out`: the commands (the first
 * carrying, in this order and only when advertised: report-status-v2,
 * else report-status; side-band-64k; quiet (with args->quiet); atomic;
 * push-options; object-format=<algo>; agent=<agent>), a flush, and the
 * push options and a flush if there are any. The caller appends the pack
 * when wg_push_needs_pack says so. `server` is the capability list of the
 * receive-pack advertisement (required). Errors, with `out` unchanged:
 *   WG_EUNSUPPORTED  a delete without "delete-refs" (the message names the
 *                    ref), atomic without "atomic", push options without
 *                    "push-options", a server with another object format;
 *   WG_EINVALID      no commands, an invalid or repeated ref name, an id of
 *                    another hash, both ids null, a bad agent or push
 *                    option, a protocol v2 `server` (receive-pack has no
 *                    v2), a line too long for a pkt-line. */
int wg_push_request(struct wg_buf *out, const struct wg_caps *server,
		    const struct wg_push_args *args);

/* Whether the request needs a pack: some command is not a delete. When
 * every command is a delete the body ends after the request (git sends no
 * pack then, and the protocol forbids one). */
bool wg_push_needs_pack(const struct wg_push_args *args);

/* --- the response -------------------------------------------------------------- */

struct wg_push_ref_status {
	char *refname;        /* a ref of the request */
	bool ok;
	/* The "ng" reason ("non-fast-forward", "hook declined", "failed" when
	 * the server gave none); NULL if ok. Control bytes other than TAB
	 * are replaced by '?', so it is safe to display. */
	char *reason;
	/* report-status-v2 option lines after the "ok" (proc-receive hooks
	 * rewriting the update); absent unless the server sent them. */
	char *new_refname;    /* "option refname": the ref actually updated */
	bool has_old, has_new;
	struct wg_oid old_oid, new_oid;  /* "option old-oid" / "option new-oid" */
	bool forced_update;   /* "option forced-update" */
	/* report-status-v2: further reports for the same command (each an
	 * "ok <refname>" followed by its own option lines), at most
	 * WG_PUSH_MAX_EXTRA_REPORTS. Their own `more` is always empty. */
	struct wg_push_ref_status *more;
	size_t nmore;
};

struct wg_push_report {
	/* False only when no report-status capability was negotiated (the
	 * server advertised neither): the server then says nothing about
	 * the push, and git takes that as success; unpack_ok is true and
	 * there are no refs. */
	bool reported;
	bool unpack_ok;
	char *unpack_error;   /* the text after "unpack " when not ok (made safe
			       * to display like reason) */
	/* One entry per status received, in the server's order (receive-pack
	 * sends them in the order of the commands). */
	struct wg_push_ref_status *refs;
	size_t nrefs;
};

struct wg_push_response;

/* A parser for the response to the request that wg_push_request built
 * from the same `server` and `args`: it knows which report-status
 * version and whether side-band-64k were asked for, and which refs were
 * pushed (it copies their names). Errors as wg_push_request returns. */
int wg_push_response_new_for(struct wg_push_response **out, const struct wg_caps *server,
			     const struct wg_push_args *args);

/* Progress text of band 2, as parsed lines (progress.h). Return 0 to go
 * on; a negative code stops the parser: wg_push_response_feed returns it
 * (and keeps returning it). The event is valid during the call only. */
typedef int (*wg_push_progress_fn)(const struct wg_progress_event *ev, void *payload);

/* Set (or, with fn NULL, clear) the progress callback. Without one,
 * progress text is parsed and dropped. */
void wg_push_response_on_progress(struct wg_push_response *r, wg_push_progress_fn fn,
				  void *payload);

/* Feed the next bytes of the response, in any chunking. Returns 0 (more
 * may come, or the response is complete: see wg_push_response_done), or
 *   WG_ECORRUPT  malformed input: bad pkt-lines or side-band packets, a
 *                line that is not part of a report, a status for a ref
 *                that was not pushed, a second status for a ref, an
 *                option line where none may be, ids of the wrong length
 *                or not hex, a report without a status for every command,
 *                data after the end;
 *   WG_ERROR     "remote error: …" for an ERR packet or a band-3 message;
 *   WG_ENOMEM, or the progress callback's code.
 * Errors are sticky: every later call returns the same code and message. */
int wg_push_response_feed(struct wg_push_response *r, const void *data, size_t len);

/* True once the whole response has been read (the report's flush, or the
 * side-band stream's closing flush): the caller may stop reading. */
bool wg_push_response_done(const struct wg_push_response *r);

/* After the last byte: 0 when the response was complete (the last
 * unterminated progress line, if any, is passed to the callback), else
 * WG_ECORRUPT "the server closed the response early (…)", or the sticky
 * error. */
int wg_push_response_finish(struct wg_push_response *r);

/* The report as received so far (complete after a successful finish).
 * Owned by the parser. */
const struct wg_push_report *wg_push_response_report(const struct wg_push_response *r);

void wg_push_response_free(struct wg_push_response *r);

/* The first status for `refname` in a report, or NULL. */
const struct wg_push_ref_status *wg_push_report_find(const struct wg_push_report *report,
						     const char *refname);

#endif
