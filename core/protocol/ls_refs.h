/* The v2 ls-refs command (gitprotocol-v2(5) "ls-refs").
 *
 * Request:  command=ls-refs / agent=... / object-format=... / 0001 /
 *           peel / symrefs / unborn / ref-prefix <p>... / 0000
 * Response: "<oid> <name>[ symref-target:<t>][ peeled:<oid>]" lines and
 *           "unborn <name> symref-target:<t>", then 0000.
 *
 * Names and ids are checked exactly as in the v0 advertisement
 * (advertisement.h), and the result is the same wg_remote_ref_list. */
#ifndef WG_PROTOCOL_LS_REFS_H
#define WG_PROTOCOL_LS_REFS_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/hash.h"
#include "protocol/advertisement.h"
#include "protocol/capabilities.h"
#include "util/buf.h"
#include "util/limits.h"

struct wg_ls_refs_options {
	/* Our agent string (printable ASCII, no spaces), or NULL. Sent only
	 * when the server advertises "agent", as the protocol requires. */
	const char *agent;
	/* The object format we want ids in; NULL for the server's. */
	const struct wg_hash_algo *algo;
	bool symrefs;  /* show what symbolic refs point to */
	bool peel;     /* show what annotated tags point to */
	bool unborn;   /* show an unborn HEAD (if the server supports it) */
	/* Only refs starting with one of these (a server may send more:
	 * filter the result too). No LF or NUL. */
	const char *const *prefixes;
	size_t prefix_count;
	/* "server-option=<o>" lines; the server must advertise
	 * server-option. No LF or NUL. */
	const char *const *server_options;
	size_t server_option_count;
};

#define WG_LS_REFS_OPTIONS_INIT { NULL, NULL, true, true, true, NULL, 0, NULL, 0 }

/* Append the request body to `out`. With `server` (the v2 capability
 * advertisement), the request says only what the server understands:
 * no agent unless advertised, "unborn" only with ls-refs=unborn,
 * object-format only if advertised; WG_EUNSUPPORTED when the server lacks
 * ls-refs or server-option, or uses another object format than
 * opts->algo. With server NULL everything asked for is sent. WG_EINVALID
 * for a bad option value; `out` is then unchanged. */
int wg_ls_refs_request(struct wg_buf *out, const struct wg_caps *server,
		       const struct wg_ls_refs_options *opts);

/* Parse one response line (with or without its LF) and append the ref to
 * `list`. WG_ECORRUPT for a malformed line, a bad name or id; unknown
 * attributes are ignored, as the protocol asks. */
int wg_ls_refs_parse_line(struct wg_remote_ref_list *list, const struct wg_hash_algo *algo,
			  const void *line, size_t len);

/* The response, fed in any chunking. */
struct wg_ls_refs_parser;

int wg_ls_refs_parser_new(struct wg_ls_refs_parser **out, const struct wg_hash_algo *algo);
void wg_ls_refs_parser_free(struct wg_ls_refs_parser *parser);
/* Bound the response (util/limits.h): max_refs refs and
 * max_advertisement_bytes bytes, past which it fails with WG_ELIMIT.
 * Copied; NULL restores the process-wide defaults it starts with. */
void wg_ls_refs_parser_set_limits(struct wg_ls_refs_parser *parser,
				  const struct wg_limits *limits);
/* WG_ENEEDMORE until the closing flush, then 0. A response-end packet
 * (0002) may follow the flush; anything else after it is WG_ECORRUPT, as
 * is a delim or response-end before it. "ERR " packets are WG_ERROR.
 * Errors are sticky. */
int wg_ls_refs_parser_feed(struct wg_ls_refs_parser *parser, const void *data, size_t len);
/* The response has ended: 0 if it was complete, WG_ECORRUPT if not. */
int wg_ls_refs_parser_finish(struct wg_ls_refs_parser *parser);
const struct wg_remote_ref_list *wg_ls_refs_parser_refs(const struct wg_ls_refs_parser *parser);

#endif
