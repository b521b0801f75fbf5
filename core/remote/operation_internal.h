/* For the operations in core/remote: the vtable behind wg_remote_op, the
 * request it hands out, and the ref discovery every fetch-side operation
 * starts with. Not a public header. */
#ifndef WG_REMOTE_OPERATION_INTERNAL_H
#define WG_REMOTE_OPERATION_INTERNAL_H

#include "hash/hash.h"
#include "protocol/advertisement.h"
#include "protocol/capabilities.h"
#include "protocol/ls_refs.h"
#include "remote/operation.h"
#include "util/buf.h"

struct wg_remote_op_vtable {
	/* 0 and a request in op->req, or WG_ITEROVER when complete. */
	int (*next_request)(struct wg_remote_op *op);
	int (*response_begin)(struct wg_remote_op *op, int status, const char *content_type);
	int (*feed)(struct wg_remote_op *op, const void *data, size_t len);
	int (*response_end)(struct wg_remote_op *op);
	void (*free)(struct wg_remote_op *op);   /* undo whatever is not complete */
};

#define WG_REMOTE_MAX_HEADERS 8

struct wg_remote_op {
	const struct wg_remote_op_vtable *vt;
	int error;                     /* sticky */
	bool complete;
	bool in_response;              /* between begin and end */
	struct wg_http_request req;
	struct wg_buf url;
	struct wg_buf body;
	const char *headers[WG_REMOTE_MAX_HEADERS];
	wg_remote_progress_fn progress;
	void *progress_payload;
	bool quiet;                    /* the caller shows no progress (options' quiet) */
	bool has_limits;               /* wg_remote_op_set_limits() was called */
	struct wg_limits limits;
	/* Credentials from the URL's user information: the header sent with
	 * every request, and the password (as given and decoded), masked in
	 * every message and progress line. Never stored anywhere else. */
	struct wg_buf auth;
	char *secrets[2];
	/* wg_remote_op_response_url()'s URL for the current response (empty:
	 * none), without user information */
	struct wg_buf response_url;
	/* The operation's ref discovery, for wg_remote_op_assume_v2() (NULL:
	 * an operation without one, or a push) */
	struct wg_discovery *discovery;
};
/* The operation's limits if it was given some, else `fallback`
 * (NULL: the process-wide defaults). */
const struct wg_limits *wg_remote_op_limits(const struct wg_remote_op *op,
					    const struct wg_limits *fallback);

/* Take the credentials in `url`'s user information (none: nothing to do)
 * for every request of op. Every operation calls it with the URL it was
 * given; what it keeps of the URL is wg_url_redact()'s form. */
int wg_remote_op_set_credentials(struct wg_remote_op *op, const char *url);

/* The one header of a plain GET (an advertisement, a static host's file):
 * Accept with any type, as git (curl) sends it. */
extern const char *const wg_remote_accept_any[1];

/* Prepare op->req: method, "<base><suffix>", the given headers (static
 * strings) and the credentials' Authorization header, and op->body as the
 * body (for POST). */
int wg_remote_op_set_request(struct wg_remote_op *op, const char *method, const char *base,
			     const char *suffix, const char *const *headers, size_t nheaders);
/* POST <base>/git-upload-pack with op->body, headers for `version`. */
int wg_remote_op_set_upload_pack(struct wg_remote_op *op, const char *base, int version);
/* The standard checks of a smart-HTTP response: 200 and the expected
 * content type (git's messages for 401/403/404 and for a dumb server). */
int wg_remote_check_response(const char *url, int status, const char *content_type,
			     const char *expected_type);
void wg_remote_report(struct wg_remote_op *op, const struct wg_remote_progress *p);

/* Ref discovery: GET info/refs (asking for protocol v2), then, if the
 * server speaks v2, an ls-refs request. */
enum wg_discovery_state {
	WG_DISCOVERY_START = 0,
	WG_DISCOVERY_INFO_REFS,       /* waiting for the advertisement */
	WG_DISCOVERY_NEED_LS_REFS,
	WG_DISCOVERY_LS_REFS,         /* waiting for the ls-refs response */
	WG_DISCOVERY_NEED_DUMB_HEAD,  /* a static host: its HEAD file next */
	WG_DISCOVERY_DUMB_HEAD,       /* waiting for HEAD */
	WG_DISCOVERY_DONE,
};

struct wg_discovery {
	enum wg_discovery_state state;
	char *url;                              /* without a trailing '/' and
						 * without user information */
	bool receive_pack;                      /* push: git-receive-pack, v0 only */
	bool caps_only;                         /* v2: no ls-refs (refs stay empty) */
	/* wg_remote_op_assume_v2(): no advertisement is asked for; the
	 * server is taken to speak v2 with ls-refs and fetch (shallow,
	 * filter) in this object format */
	const struct wg_hash_algo *assume_v2;
	const struct wg_hash_algo *expected;    /* NULL: take the server's */
	const struct wg_limits *limits;         /* NULL: the process-wide defaults */
	const char *const *prefixes;            /* ls-refs ref-prefix values */
	size_t nprefixes;
	struct wg_advertisement *adv;
	struct wg_ls_refs_parser *ls;
	int version;                            /* 0, 1 or 2 once known */
	const struct wg_hash_algo *algo;        /* the remote's object format */
	const struct wg_caps *caps;             /* owned by adv */
	const struct wg_remote_ref_list *refs;  /* owned by adv, ls or dumb_refs */
	/* A static host ("dumb" HTTP, gitprotocol-http.adoc "Dumb Clients"):
	 * with allow_dumb, an info/refs answer that is not a smart
	 * advertisement is read as `git update-server-info` writes it, then
	 * HEAD is asked for, as git does; `dumb` says so, and the refs come
	 * in version 0's shape (HEAD with its symref target when the HEAD
	 * file names a ref that info/refs lists). */
	bool allow_dumb;
	bool dumb;
	int dumb_status;                        /* of the HEAD response */
	struct wg_buf dumb_body;
	struct wg_remote_ref_list dumb_refs;
};

int wg_discovery_init(struct wg_discovery *d, const char *url,
		      const struct wg_hash_algo *expected);
/* The same for a push: the receive-pack advertisement (there is no v2
 * receive-pack), with the refs the server has. */
int wg_discovery_init_push(struct wg_discovery *d, const char *url,
			   const struct wg_hash_algo *expected);
void wg_discovery_release(struct wg_discovery *d);
/* Drive discovery through op: returns 0 with a request set, WG_ITEROVER when
 * the refs are known, or an error. */
int wg_discovery_next_request(struct wg_discovery *d, struct wg_remote_op *op);
/* op: the operation whose response it is (its response URL moves the
 * repository when the advertisement was redirected). */
int wg_discovery_response_begin(struct wg_discovery *d, struct wg_remote_op *op, int status,
				const char *content_type);
int wg_discovery_feed(struct wg_discovery *d, const void *data, size_t len);
int wg_discovery_response_end(struct wg_discovery *d);
/* May objects be wanted by id? Over protocol v2, yes (a v2 server allows
 * what is reachable). Over v0/v1 only ids some advertised ref points at,
 * unless the server advertised allow-tip-sha1-in-want or
 * allow-reachable-sha1-in-want: git's client refuses the others before
 * asking, and so does this, with git's message (WG_EUNSUPPORTED). */
int wg_discovery_check_wants(const struct wg_discovery *d, const struct wg_oid *oids, size_t n);

#endif
