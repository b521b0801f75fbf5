/* The shape every network operation (ls-remote, clone, fetch, push) has:
 * a sans-IO state machine (design rule 1). The caller owns the transport:
 *
 *	const struct wg_http_request *req;
 *	while ((err = wg_remote_op_next_request(op, &req)) == 0) {
 *		send req (method, url, headers, body) with fetch() or a socket;
 *		[wg_remote_op_response_url(op, final_url) if redirects were followed]
 *		wg_remote_op_response_begin(op, status, content_type);
 *		for each chunk of the body, as it arrives:
 *			wg_remote_op_feed(op, chunk, len);
 *		wg_remote_op_response_end(op);
 *	}
 *	err == WG_ITEROVER: the operation completed and its result is applied;
 *	otherwise it failed; wg_remote_op_free() in any case.
 *
 * An operation never blocks, never owns a socket and keeps no global state.
 * Freeing it before completion (an abort, at any byte) undoes what it
 * prepared: the repository stays as it was (a clone removes the repository
 * it was creating). Errors are sticky: after one, every call returns it. */
#ifndef WG_REMOTE_OPERATION_H
#define WG_REMOTE_OPERATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/limits.h"

/* One HTTP request the operation wants made. Everything stays valid until
 * the next call on the operation. */
struct wg_http_request {
	const char *method;            /* "GET" or "POST" */
	const char *url;               /* absolute */
	const char *const *headers;    /* "Name: value" */
	size_t nheaders;
	const unsigned char *body;
	size_t body_len;
};

/* Progress, for a display: the server's own phases (counting, compressing)
 * and ours (receiving, resolving deltas). */
struct wg_remote_progress {
	const char *phase;     /* "Counting objects", "Receiving objects", ... */
	uint64_t done;
	uint64_t total;        /* 0 if unknown */
	uint64_t bytes;        /* bytes received so far (receiving), else 0 */
	bool finished;         /* the phase is over */
	bool remote;           /* reported by the server (its text is in line) */
	const char *line;      /* the server's line, sanitised; NULL for ours */
	/* A warning about what arrived (an fsck finding below error level):
	 * `line` holds it, "object <id>: <msgId>: <text>". Show it even where
	 * progress is not shown, as git does. */
	bool warning;
	/* A notice for the user (`line`) that only a quiet run (-q) leaves
	 * out: git's "warning: redirecting to <url>". */
	bool notice;
};

/* Whether `remote` is a URL ("<scheme>://...") rather than the name of a
 * configured remote: fetch and push take either, as git's do. A URL's
 * user information is used for the requests only (an Authorization:
 * Basic header) and never stored or shown (util/url.h). */
bool wg_remote_is_url(const char *remote);

typedef void (*wg_remote_progress_fn)(const struct wg_remote_progress *progress, void *payload);

struct wg_remote_op;

/* 0 with *out: make that request. WG_ITEROVER: the operation is complete. */
int wg_remote_op_next_request(struct wg_remote_op *op, const struct wg_http_request **out);
/* Where the response came from, when the transport followed redirects to
 * get it (optional; the request's own URL, or none, means no redirect).
 * Call before wg_remote_op_response_begin. As git does, a redirect of the
 * first request (the ref discovery) moves the repository: every later
 * request goes to the new location, and a notice says so (on another
 * origin, without the credentials the URL gave); a redirect of a
 * later request is that request's business. */
int wg_remote_op_response_url(struct wg_remote_op *op, const char *url);
/* The response's status and Content-Type (NULL if none). */
int wg_remote_op_response_begin(struct wg_remote_op *op, int status, const char *content_type);
int wg_remote_op_feed(struct wg_remote_op *op, const void *data, size_t len);
int wg_remote_op_response_end(struct wg_remote_op *op);
void wg_remote_op_free(struct wg_remote_op *op);
/* Limits for this operation (util/limits.h): the ref advertisement's
 * size, and for what it receives into a repository the pack's object
 * count, object sizes and inflate ratio. Copied. Without this call the
 * process-wide defaults apply (and, in a repository, its odb's limits).
 * Call before the first wg_remote_op_next_request(). */
void wg_remote_op_set_limits(struct wg_remote_op *op, const struct wg_limits *limits);
/* Skip the capability advertisement (GET info/refs): take the server to
 * speak protocol v2 with ls-refs and fetch (shallow and filter) in
 * `object_format` ("sha1", "sha256"), so the first request is the first
 * POST and one round trip is saved. For a caller that knows the server
 * (an edge function reading one file). A server that is not so fails
 * that request or the next (an HTTP error, an empty or unreadable
 * answer): the caller retries without this call; nothing was stored.
 * git always asks first, so nothing else does this. Fetch-side
 * operations only (WG_EUNSUPPORTED otherwise); call before the first
 * wg_remote_op_next_request(). */
int wg_remote_op_assume_v2(struct wg_remote_op *op, const char *object_format);

#endif
