#include "protocol/fetch.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "protocol/advertisement.h"
#include "protocol/pktline.h"
#include "protocol/sideband.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

#define TRY(expr) do { if ((err = (expr))) goto fail; } while (0)

/* Nesting allowed in combine: filters (git itself has no limit; a bound
 * keeps the recursion small). */
#define FILTER_MAX_DEPTH 8

/* Room for a remote's own error text in "remote error: ...". */
#define REMOTE_MSG_MAX 900

/* --- filter specs (rev-list --filter, list-objects-filter-options.c) ------------ */

static int bad_filter(const char *top, const char *why)
{
	char q[WG_PKT_QUOTE_MAX];
	return wg_error_set(WG_EINVALID, "invalid filter spec '%s': %s",
			    wg_pkt_quote(q, sizeof(q), top, strlen(top), true), why);
}

static bool has_prefix(const char *s, size_t len, const char *prefix, size_t *plen)
{
	*plen = strlen(prefix);
	return len >= *plen && !memcmp(s, prefix, *plen);
}

static bool equals(const char *s, size_t len, const char *lit)
{
	return len == strlen(lit) && !memcmp(s, lit, len);
}

/* git_parse_ulong: decimal digits with an optional k, m or g suffix
 * (either case). False when empty, not a number, or too large. */
static bool parse_scaled(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	size_t i;
	if (len) {
		switch (s[len - 1]) {
		case 'k': case 'K': mult = (uint64_t)1 << 10; len--; break;
		case 'm': case 'M': mult = (uint64_t)1 << 20; len--; break;
		case 'g': case 'G': mult = (uint64_t)1 << 30; len--; break;
		}
	}
	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		unsigned d;
		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v > UINT64_MAX / mult)
		return false;
	*out = v * mult;
	return true;
}

/* Characters a combine: sub-spec must %-encode (git's RESERVED_NON_WS and
 * whitespace). */
static bool filter_reserved(unsigned char c)
{
	return c <= ' ' || c == 0x7f || (c < 0x80 && strchr("~`!@#$^&*()[]{}\\;'\",<>?", c));
}

static int check_filter(struct wg_buf *out, const char *top, const char *spec, size_t len,
			int depth);

static int check_combine(const char *top, const char *subs, size_t len, int depth)
{
	struct wg_buf dec = WG_BUF_INIT;
	size_t i = 0, start;
	int err = 0;
	if (depth >= FILTER_MAX_DEPTH)
		return bad_filter(top, "combine: filters nested too deeply");
	if (!len)
		return bad_filter(top, "combine: needs at least one sub-filter");
	while (!err) {
		start = i;
		wg_buf_reset(&dec);
		for (; i < len && subs[i] != '+'; i++) {
			unsigned char c = (unsigned char)subs[i];
			int hi, lo;
			if (c == '%') {
				hi = len - i >= 3 ? wg_hex_value((unsigned char)subs[i + 1]) : -1;
				lo = len - i >= 3 ? wg_hex_value((unsigned char)subs[i + 2]) : -1;
				if (hi < 0 || lo < 0) {
					err = bad_filter(top, "a '%' in a combine: sub-filter is not "
							 "followed by two hex digits");
					break;
				}
				if ((err = wg_buf_addch(&dec, hi << 4 | lo)))
					break;
				i += 2;
				continue;
			}
			if (filter_reserved(c)) {
				err = bad_filter(top, "combine: sub-filters must %-encode spaces and "
						 "the characters ~`!@#$^&*()[]{}\\;'\",<>?");
				break;
			}
			if ((err = wg_buf_addch(&dec, c)))
				break;
		}
		if (err)
			break;
		if (i == start) {
			err = bad_filter(top, "empty sub-filter in combine:");
			break;
		}
		if ((err = check_filter(NULL, top, (const char *)dec.data, dec.len, depth + 1)))
			break;
		if (i == len)
			break;
		i++; /* the '+' */
		if (i == len)
			err = bad_filter(top, "empty sub-filter in combine:");
	}
	wg_buf_release(&dec);
	return err;
}

/* Validate one spec; with `out`, append the form to send. */
static int check_filter(struct wg_buf *out, const char *top, const char *spec, size_t len,
			int depth)
{
	static const char *const types[] = { "blob", "tree", "commit", "tag" };
	uint64_t n;
	size_t plen, i;
	int err;
	if (!len)
		return bad_filter(top, "empty");
	for (i = 0; i < len; i++)
		if ((unsigned char)spec[i] < 0x20 || spec[i] == 0x7f)
			return bad_filter(top, "control characters are not allowed");
	if (equals(spec, len, "blob:none")) {
		return out ? wg_buf_add(out, spec, len) : 0;
	} else if (has_prefix(spec, len, "blob:limit=", &plen)) {
		if (!parse_scaled(spec + plen, len - plen, &n))
			return bad_filter(top, "blob:limit= needs a size in bytes (digits, with an "
					  "optional k, m or g)");
		return out ? wg_buf_printf(out, "blob:limit=%" PRIu64, n) : 0;
	} else if (has_prefix(spec, len, "tree:", &plen)) {
		if (!parse_scaled(spec + plen, len - plen, &n))
			return bad_filter(top, "tree: needs a depth (digits)");
		return out ? wg_buf_printf(out, "tree:%" PRIu64, n) : 0;
	} else if (has_prefix(spec, len, "sparse:oid=", &plen)) {
		if (plen == len)
			return bad_filter(top, "sparse:oid= needs a blob (an id or <rev>:<path>)");
	} else if (has_prefix(spec, len, "object:type=", &plen)) {
		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (equals(spec + plen, len - plen, types[i]))
				break;
		if (i == sizeof(types) / sizeof(types[0]))
			return bad_filter(top, "object:type= needs blob, tree, commit or tag");
	} else if (has_prefix(spec, len, "combine:", &plen)) {
		if ((err = check_combine(top, spec + plen, len - plen, depth)))
			return err;
	} else {
		return bad_filter(top, "unknown filter (expected blob:none, blob:limit=<n>, "
				  "tree:<depth>, sparse:oid=<blob>, object:type=<type> or combine:...)");
	}
	return out ? wg_buf_add(out, spec, len) : 0;
}

int wg_fetch_filter_normalize(struct wg_buf *out, const char *spec)
{
	size_t start = out->len;
	int err;
	if (!spec)
		return wg_error_set(WG_EINVALID, "invalid filter spec: NULL");
	if ((err = check_filter(out, spec, spec, strlen(spec), 0)))
		wg_buf_setlen(out, start);
	return err;
}

/* --- request arguments ----------------------------------------------------------- */

/* Text we put on a line: non-empty, no control bytes, spaces only if
 * allowed. */
static int check_text(const char *what, const char *s, bool spaces_ok)
{
	char q[WG_PKT_QUOTE_MAX];
	const unsigned char *p;
	if (!s)
		return wg_error_set(WG_EINVALID, "fetch: %s is NULL", what);
	if (!*s)
		return wg_error_set(WG_EINVALID, "fetch: %s is empty", what);
	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (!spaces_ok && *p == ' '))
			return wg_error_set(WG_EINVALID, "fetch: %s '%s' contains %s", what,
					    wg_pkt_quote(q, sizeof(q), s, strlen(s), true),
					    *p == ' ' ? "a space" : "a control character");
	return 0;
}

static int check_ids(const char *what, const struct wg_oid *ids, size_t n,
		     const struct wg_hash_algo *algo)
{
	size_t i;
	if (n && !ids)
		return wg_error_set(WG_EINVALID, "fetch: %zu %s ids but no array", n, what);
	for (i = 0; i < n; i++) {
		const struct wg_hash_algo *a = wg_oid_algo(&ids[i]);
		if (!a || a->id != algo->id)
			return wg_error_set(WG_EINVALID, "fetch: %s %zu is a %s id but the repository "
					    "uses %s", what, i, a ? a->name : "unknown", algo->name);
	}
	return 0;
}

static const char *agent_of(const struct wg_fetch_args *args)
{
	return args->agent ? args->agent : WG_FETCH_DEFAULT_AGENT;
}

static bool uses_shallow(const struct wg_fetch_args *args)
{
	return args->nshallows || args->depth || args->deepen_since || args->ndeepen_not ||
	       args->deepen_relative;
}

static bool uses_deepen(const struct wg_fetch_args *args)
{
	return args->depth || args->deepen_since || args->ndeepen_not;
}

/* Everything about the arguments that does not depend on the server; the
 * filter as sent goes to `filter`. */
static int check_args(const struct wg_fetch_args *args, struct wg_buf *filter)
{
	const char *p;
	size_t i;
	int err;
	if (!args || !args->algo)
		return wg_error_set(WG_EINVALID, "fetch: the object format must be known");
	if (!args->nwants)
		return wg_error_set(WG_EINVALID, "fetch: a request needs at least one want");
	if ((err = check_ids("want", args->wants, args->nwants, args->algo)) ||
	    (err = check_ids("have", args->haves, args->nhaves, args->algo)) ||
	    (err = check_ids("shallow", args->shallows, args->nshallows, args->algo)))
		return err;
	/* gitprotocol-capabilities(5): printable ASCII except space. */
	for (p = agent_of(args); *p; p++)
		if ((unsigned char)*p <= 32 || (unsigned char)*p >= 127)
			return wg_error_set(WG_EINVALID, "fetch: the agent string may hold only "
					    "printable ASCII without spaces");
	if (!*agent_of(args))
		return wg_error_set(WG_EINVALID, "fetch: the agent string is empty");
	if (args->deepen_since) {
		if ((err = check_text("deepen-since", args->deepen_since, false)))
			return err;
		for (p = args->deepen_since; *p; p++)
			if (*p < '0' || *p > '9' || p - args->deepen_since >= 20)
				return wg_error_set(WG_EINVALID, "fetch: deepen-since '%.40s' is not "
						    "a number of seconds since the epoch",
						    args->deepen_since);
	}
	if (args->ndeepen_not && !args->deepen_not)
		return wg_error_set(WG_EINVALID, "fetch: %zu deepen-not refs but no array",
				    args->ndeepen_not);
	for (i = 0; i < args->ndeepen_not; i++)
		if ((err = check_text("deepen-not ref", args->deepen_not[i], false)))
			return err;
	if (args->depth && (args->deepen_since || args->ndeepen_not))
		return wg_error_set(WG_EINVALID, "fetch: a depth cannot be combined with "
				    "deepen-since or deepen-not");
	if (args->deepen_relative && !args->depth)
		return wg_error_set(WG_EINVALID, "fetch: deepen-relative needs a depth");
	if (args->filter && (err = wg_fetch_filter_normalize(filter, args->filter)))
		return err;
	return 0;
}

static int check_format(const struct wg_caps *server, const struct wg_hash_algo *algo)
{
	const struct wg_hash_algo *theirs;
	int err;
	if ((err = wg_caps_hash_algo(server, &theirs)))
		return err;
	if (theirs->id != algo->id)
		return wg_error_set(WG_EUNSUPPORTED, "the remote repository uses %s object ids but "
				    "this repository uses %s", theirs->name, algo->name);
	return 0;
}

static int need_v2_feature(const struct wg_caps *server, const char *feature, const char *why)
{
	if (wg_caps_has_feature(server, "fetch", feature))
		return 0;
	return wg_error_set(WG_EUNSUPPORTED, "the server does not support %s (fetch=%s is not "
			    "advertised)", why, feature);
}

static int check_v2(const struct wg_caps *server, const struct wg_fetch_args *args,
		    struct wg_buf *filter)
{
	int err;
	if (!server)
		return wg_error_set(WG_EINVALID, "fetch: the server's capabilities are needed");
	if (wg_caps_version(server) != 2)
		return wg_error_set(WG_EINVALID, "a v2 fetch request needs a protocol v2 capability "
				    "advertisement");
	if ((err = check_args(args, filter)))
		return err;
	if (!wg_caps_has(server, "fetch"))
		return wg_error_set(WG_EUNSUPPORTED, "the server does not support the fetch command");
	if ((err = check_format(server, args->algo)))
		return err;
	if (uses_shallow(args) && (err = need_v2_feature(server, "shallow", "shallow fetches")))
		return err;
	if (args->filter && (err = need_v2_feature(server, "filter", "filters (partial clone)")))
		return err;
	if (args->sideband_all && (err = need_v2_feature(server, "sideband-all", "sideband-all")))
		return err;
	if (args->wait_for_done &&
	    (err = need_v2_feature(server, "wait-for-done", "wait-for-done")))
		return err;
	return 0;
}

/* Lines shared by both versions: shallow and deepen requests. `relative`
 * says whether deepen-relative is a line (v2) or a capability (v0). */
static int write_shallow_requests(struct wg_buf *out, const struct wg_fetch_args *args,
				  bool relative_line)
{
	char hex[WG_MAX_HEXSZ + 1];
	size_t i;
	int err;
	for (i = 0; i < args->nshallows; i++)
		if ((err = wg_pkt_printf(out, "shallow %s\n", wg_oid_to_hex(&args->shallows[i], hex))))
			return err;
	if (args->depth && (err = wg_pkt_printf(out, "deepen %u\n", args->depth)))
		return err;
	if (args->deepen_since &&
	    (err = wg_pkt_printf(out, "deepen-since %s\n", args->deepen_since)))
		return err;
	for (i = 0; i < args->ndeepen_not; i++)
		if ((err = wg_pkt_printf(out, "deepen-not %s\n", args->deepen_not[i])))
			return err;
	if (relative_line && args->deepen_relative && (err = wg_pkt_writes(out, "deepen-relative\n")))
		return err;
	return 0;
}

static int write_oids(struct wg_buf *out, const char *cmd, const struct wg_oid *ids, size_t n)
{
	char hex[WG_MAX_HEXSZ + 1];
	size_t i;
	int err;
	for (i = 0; i < n; i++)
		if ((err = wg_pkt_printf(out, "%s %s\n", cmd, wg_oid_to_hex(&ids[i], hex))))
			return err;
	return 0;
}

int wg_fetch_request_v2(struct wg_buf *out, const struct wg_caps *server,
			const struct wg_fetch_args *args)
{
	struct wg_buf filter = WG_BUF_INIT;
	size_t start = out->len;
	int err;
	TRY(check_v2(server, args, &filter));
	TRY(wg_pkt_writes(out, "command=fetch\n"));
	if (wg_caps_has(server, "agent"))
		TRY(wg_pkt_printf(out, "agent=%s\n", agent_of(args)));
	if (wg_caps_has(server, "object-format"))
		TRY(wg_pkt_printf(out, "object-format=%s\n", args->algo->name));
	TRY(wg_pkt_write_delim(out));
	if (args->thin_pack)
		TRY(wg_pkt_writes(out, "thin-pack\n"));
	if (args->no_progress)
		TRY(wg_pkt_writes(out, "no-progress\n"));
	if (args->include_tag)
		TRY(wg_pkt_writes(out, "include-tag\n"));
	if (args->ofs_delta)
		TRY(wg_pkt_writes(out, "ofs-delta\n"));
	if (args->sideband_all)
		TRY(wg_pkt_writes(out, "sideband-all\n"));
	if (args->wait_for_done)
		TRY(wg_pkt_writes(out, "wait-for-done\n"));
	TRY(write_shallow_requests(out, args, true));
	if (args->filter)
		TRY(wg_pkt_printf(out, "filter %s\n", wg_buf_cstr(&filter)));
	TRY(write_oids(out, "want", args->wants, args->nwants));
	TRY(write_oids(out, "have", args->haves, args->nhaves));
	if (args->done)
		TRY(wg_pkt_writes(out, "done\n"));
	TRY(wg_pkt_write_flush(out));
	wg_buf_release(&filter);
	return 0;
fail:
	wg_buf_setlen(out, start);
	wg_buf_release(&filter);
	return err;
}

/* What a v0/v1 request asks for, given the server's capabilities. */
struct v0_plan {
	bool multi_ack_detailed, no_done;
	enum wg_sideband_mode sideband;
	bool thin_pack, ofs_delta, include_tag, no_progress;
	bool shallow;      /* the shallow capability (shallow lines or a deepen) */
	bool deepen;       /* a deepen was sent: a shallow list comes back */
	bool agent;
	bool deepen_since, deepen_not;   /* the server has them */
};

static int need_v0_cap(const struct wg_caps *server, const char *cap, const char *why)
{
	if (wg_caps_has(server, cap))
		return 0;
	return wg_error_set(WG_EUNSUPPORTED, "the server does not support %s (no '%s' "
			    "capability)", why, cap);
}

static int plan_v0(struct v0_plan *p, const struct wg_caps *server,
		   const struct wg_fetch_args *args, struct wg_buf *filter)
{
	int err;
	memset(p, 0, sizeof(*p));
	if (!server)
		return wg_error_set(WG_EINVALID, "fetch: the server's capabilities are needed");
	if (wg_caps_version(server) == 2)
		return wg_error_set(WG_EINVALID, "a v0/v1 fetch request needs the capabilities of "
				    "a v0/v1 ref advertisement");
	if ((err = check_args(args, filter)) || (err = check_format(server, args->algo)))
		return err;
	if (wg_caps_has(server, "side-band-64k"))
		p->sideband = WG_SIDEBAND_64K;
	else if (wg_caps_has(server, "side-band"))
		p->sideband = WG_SIDEBAND;
	else
		return wg_error_set(WG_EUNSUPPORTED, "the server supports neither side-band-64k nor "
				    "side-band, which a stateless fetch needs");
	p->multi_ack_detailed = wg_caps_has(server, "multi_ack_detailed");
	p->no_done = p->multi_ack_detailed && args->done && wg_caps_has(server, "no-done");
	p->thin_pack = args->thin_pack && wg_caps_has(server, "thin-pack");
	p->ofs_delta = args->ofs_delta && wg_caps_has(server, "ofs-delta");
	p->include_tag = args->include_tag && wg_caps_has(server, "include-tag");
	p->no_progress = args->no_progress && wg_caps_has(server, "no-progress");
	p->shallow = uses_shallow(args);
	p->deepen = uses_deepen(args);
	if (p->shallow && (err = need_v0_cap(server, "shallow", "shallow fetches")))
		return err;
	if (args->deepen_since && (err = need_v0_cap(server, "deepen-since", "deepen-since")))
		return err;
	if (args->ndeepen_not && (err = need_v0_cap(server, "deepen-not", "deepen-not")))
		return err;
	if (args->deepen_relative &&
	    (err = need_v0_cap(server, "deepen-relative", "deepen-relative")))
		return err;
	if (args->filter && (err = need_v0_cap(server, "filter", "filters (partial clone)")))
		return err;
	p->agent = wg_caps_has(server, "agent");
	p->deepen_since = wg_caps_has(server, "deepen-since");
	p->deepen_not = wg_caps_has(server, "deepen-not");
	return 0;
}

int wg_fetch_request_v0(struct wg_buf *out, const struct wg_caps *server,
			const struct wg_fetch_args *args)
{
	struct wg_buf filter = WG_BUF_INIT, caps = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];
	struct v0_plan p;
	size_t start = out->len;
	int err;
	TRY(plan_v0(&p, server, args, &filter));
	/* git 2.53's capabilities, in its order (fetch-pack.c): a server may
	 * read them as git sends them. git names deepen-since and deepen-not
	 * whenever the server has them, used or not; it sends neither
	 * "shallow" nor "object-format" (the advertisement settled that). */
	if (p.multi_ack_detailed)
		TRY(wg_buf_adds(&caps, " multi_ack_detailed"));
	if (p.no_done)
		TRY(wg_buf_adds(&caps, " no-done"));
	TRY(wg_buf_adds(&caps, p.sideband == WG_SIDEBAND_64K ? " side-band-64k" : " side-band"));
	if (args->deepen_relative)
		TRY(wg_buf_adds(&caps, " deepen-relative"));
	if (p.thin_pack)
		TRY(wg_buf_adds(&caps, " thin-pack"));
	if (p.no_progress)
		TRY(wg_buf_adds(&caps, " no-progress"));
	if (p.include_tag)
		TRY(wg_buf_adds(&caps, " include-tag"));
	if (p.ofs_delta)
		TRY(wg_buf_adds(&caps, " ofs-delta"));
	if (p.deepen_since)
		TRY(wg_buf_adds(&caps, " deepen-since"));
	if (p.deepen_not)
		TRY(wg_buf_adds(&caps, " deepen-not"));
	if (p.agent)
		TRY(wg_buf_printf(&caps, " agent=%s", agent_of(args)));
	if (args->filter)
		TRY(wg_buf_adds(&caps, " filter"));

	TRY(wg_pkt_printf(out, "want %s%s\n", wg_oid_to_hex(&args->wants[0], hex),
			  wg_buf_cstr(&caps)));
	TRY(write_oids(out, "want", args->wants + 1, args->nwants - 1));
	TRY(write_shallow_requests(out, args, false));
	if (args->filter)
		TRY(wg_pkt_printf(out, "filter %s\n", wg_buf_cstr(&filter)));
	TRY(wg_pkt_write_flush(out));
	TRY(write_oids(out, "have", args->haves, args->nhaves));
	if (args->done)
		TRY(wg_pkt_writes(out, "done\n"));
	else
		TRY(wg_pkt_write_flush(out));
	wg_buf_release(&filter);
	wg_buf_release(&caps);
	return 0;
fail:
	wg_buf_setlen(out, start);
	wg_buf_release(&filter);
	wg_buf_release(&caps);
	return err;
}

/* --- the response ------------------------------------------------------------------ */

enum fetch_state {
	ST_V0_START,      /* the shallow list, or the acknowledgements */
	ST_V0_SHALLOW,    /* in the shallow list (until its flush) */
	ST_V0_ACKS,       /* ACK ... common/ready lines until NAK or a final ACK */
	ST_V2_SECTION,    /* a section header comes next */
	ST_V2_ACKS,
	ST_V2_SHALLOW_INFO,
	ST_V2_WANTED_REFS,
	ST_PACK,          /* side-band pack data until a flush */
	ST_COMPLETE,      /* the response is over: drain progress, then END */
	ST_ENDED,         /* END delivered */
};

/* Whether a v0 response starts with a shallow list. */
enum shallow_list {
	SHALLOW_LIST_OPTIONAL,
	SHALLOW_LIST_REQUIRED,
	SHALLOW_LIST_NONE,
};

struct fetch_config {
	int version;              /* 0 or 2 */
	const struct wg_hash_algo *algo;
	bool done_sent, sideband_all;
	enum wg_sideband_mode sideband;
	enum shallow_list shallow_list;
};

/* v2 sections in the order they may come; shallow-info and wanted-refs
 * share a rank because the spec puts shallow-info first but git's
 * upload-pack sends wanted-refs first. */
enum section_rank {
	RANK_NONE = 0,
	RANK_ACKS,
	RANK_INFO,
	RANK_PACK,
};

struct wg_fetch_response {
	struct fetch_config cfg;
	struct wg_pkt_reader *reader;
	struct wg_progress_parser *progress;
	enum fetch_state state;
	/* v2 sections */
	enum section_rank rank;
	const char *section;      /* the last section header, for messages */
	bool seen_shallow_info, seen_wanted_refs, seen_response_end;
	bool nak, acked, ready;   /* in the acknowledgements (v0 too: ready) */
	/* band-2 bytes not yet given to the progress parser */
	struct wg_buf prog;
	size_t prog_pos;
	struct wg_progress_event pev;
	char *refname;            /* of the last WANTED_REF event */
	unsigned long long pack_bytes;
	int failed;
	char failure[1024];
};

static int response_create(struct wg_fetch_response **out, const struct fetch_config *cfg)
{
	struct wg_fetch_response *r;
	int err;
	if (!(r = wg_calloc(1, sizeof(*r))))
		return wg_error_set(WG_ENOMEM, "out of memory allocating a fetch response parser");
	r->cfg = *cfg;
	r->state = cfg->version == 2 ? ST_V2_SECTION : ST_V0_START;
	if ((err = wg_pkt_reader_new(&r->reader, WG_PKT_READ_ERR_PACKETS)) ||
	    (err = wg_progress_parser_new(&r->progress))) {
		wg_fetch_response_free(r);
		return err;
	}
	*out = r;
	return 0;
}

int wg_fetch_response_new(struct wg_fetch_response **out, int version,
			  const struct wg_hash_algo *algo, bool done_sent, bool sideband_all)
{
	struct fetch_config cfg;
	*out = NULL;
	if (!algo)
		return wg_error_set(WG_EINVALID, "fetch: the object format must be known");
	if (version < 0 || version > 2)
		return wg_error_set(WG_EINVALID, "fetch: unknown protocol version %d", version);
	memset(&cfg, 0, sizeof(cfg));
	cfg.version = version == 2 ? 2 : 0;
	cfg.algo = algo;
	cfg.done_sent = done_sent;
	cfg.sideband_all = version == 2 && sideband_all;
	cfg.sideband = WG_SIDEBAND_64K;
	cfg.shallow_list = SHALLOW_LIST_OPTIONAL;
	return response_create(out, &cfg);
}

int wg_fetch_response_new_for(struct wg_fetch_response **out, const struct wg_caps *server,
			      const struct wg_fetch_args *args)
{
	struct wg_buf filter = WG_BUF_INIT;
	struct fetch_config cfg;
	int err;
	*out = NULL;
	memset(&cfg, 0, sizeof(cfg));
	if (server && wg_caps_version(server) == 2) {
		if (!(err = check_v2(server, args, &filter))) {
			cfg.version = 2;
			cfg.sideband_all = args->sideband_all;
			cfg.sideband = WG_SIDEBAND_64K;
			cfg.shallow_list = SHALLOW_LIST_NONE;
		}
	} else {
		struct v0_plan p;
		if (!(err = plan_v0(&p, server, args, &filter))) {
			cfg.version = 0;
			cfg.sideband = p.sideband;
			cfg.shallow_list = p.deepen ? SHALLOW_LIST_REQUIRED : SHALLOW_LIST_NONE;
		}
	}
	wg_buf_release(&filter);
	if (err)
		return err;
	cfg.algo = args->algo;
	cfg.done_sent = args->done;
	return response_create(out, &cfg);
}

void wg_fetch_response_free(struct wg_fetch_response *r)
{
	if (!r)
		return;
	wg_pkt_reader_free(r->reader);
	wg_progress_parser_free(r->progress);
	wg_buf_release(&r->prog);
	wg_free(r->refname);
	wg_free(r);
}

unsigned long long wg_fetch_response_pack_bytes(const struct wg_fetch_response *r)
{
	return r->pack_bytes;
}

static int fail(struct wg_fetch_response *r, int err)
{
	r->failed = err;
	snprintf(r->failure, sizeof(r->failure), "%s", wg_error_message());
	return err;
}

static const char *special_name(enum wg_pkt_type type)
{
	switch (type) {
	case WG_PKT_FLUSH: return "flush packet (0000)";
	case WG_PKT_DELIM: return "delim packet (0001)";
	case WG_PKT_RESPONSE_END: return "response-end packet (0002)";
	case WG_PKT_DATA: break;
	}
	return "data packet";
}

/* "<prefix><oid>" exactly; false if the prefix does not match. */
static bool oid_line(const unsigned char *line, size_t len, const char *prefix, int *err,
		     struct wg_oid *oid, const struct wg_hash_algo *algo)
{
	size_t plen;
	if (!has_prefix((const char *)line, len, prefix, &plen))
		return false;
	if ((*err = wg_remote_oid_parse(oid, algo, (const char *)line + plen, len - plen)))
		wg_error_prefix("bad '%.*s' line", (int)(plen - 1), prefix);
	return true;
}

/* "ACK <oid>[ <status>]": the status, "" for none, in *status. */
static int parse_ack(struct wg_fetch_response *r, const unsigned char *line, size_t len,
		     struct wg_oid *oid, const char **status)
{
	const char *s = (const char *)line + 4, *sp;
	size_t n = len - 4;
	int err;
	sp = memchr(s, ' ', n);
	if ((err = wg_remote_oid_parse(oid, r->cfg.algo, s, sp ? (size_t)(sp - s) : n)))
		return wg_error_prefix("bad 'ACK' line");
	*status = sp ? sp + 1 : "";
	if (!sp)
		return 0;
	n -= (size_t)(sp + 1 - s);
	if (r->cfg.version == 0) {
		if (equals(sp + 1, n, "common"))
			*status = "common";
		else if (equals(sp + 1, n, "continue"))
			*status = "continue";
		else if (equals(sp + 1, n, "ready"))
			*status = "ready";
		else
			return wg_pkt_unexpected("expected 'ACK <id>' with common, continue or ready", line, len);
		return 0;
	}
	return wg_pkt_unexpected("expected 'ACK <id>' in the acknowledgments section", line, len);
}

static bool is_shallow_line(const unsigned char *line, size_t len)
{
	size_t plen;
	return has_prefix((const char *)line, len, "shallow ", &plen) ||
	       has_prefix((const char *)line, len, "unshallow ", &plen);
}

/* A shallow or unshallow line (either version). */
static int shallow_line(struct wg_fetch_response *r, const unsigned char *line, size_t len,
			struct wg_fetch_event *ev)
{
	int err = 0;
	if (oid_line(line, len, "shallow ", &err, &ev->oid, r->cfg.algo)) {
		ev->kind = WG_FETCH_EV_SHALLOW;
	} else if (oid_line(line, len, "unshallow ", &err, &ev->oid, r->cfg.algo)) {
		ev->kind = WG_FETCH_EV_UNSHALLOW;
	} else {
		return wg_pkt_unexpected(r->cfg.version == 2 ?
				"expected 'shallow <id>' or 'unshallow <id>' in the shallow-info "
				"section" : "expected 'shallow <id>', 'unshallow <id>' or a flush",
				line, len);
	}
	return err ? err : 1;
}

/* After the terminating NAK or ACK of a v0 response. */
static void v0_after_acks(struct wg_fetch_response *r)
{
	r->state = r->cfg.done_sent ? ST_PACK : ST_COMPLETE;
}

static int v0_line(struct wg_fetch_response *r, const unsigned char *line, size_t len,
		   struct wg_fetch_event *ev)
{
	const char *status;
	int err;
	if (r->state == ST_V0_START) {
		if (is_shallow_line(line, len)) {
			if (r->cfg.shallow_list == SHALLOW_LIST_NONE)
				return wg_pkt_unexpected("unexpected shallow list (no deepen was requested)",
						line, len);
			r->state = ST_V0_SHALLOW;
		} else {
			if (r->cfg.shallow_list == SHALLOW_LIST_REQUIRED)
				return wg_pkt_unexpected("expected the shallow list (shallow/unshallow lines "
						"and a flush) that a deepen request gets", line, len);
			r->state = ST_V0_ACKS;
		}
	}
	if (r->state == ST_V0_SHALLOW)
		return shallow_line(r, line, len, ev);

	/* With "done" the NAK or the final ACK comes before the pack; in a
	 * negotiation round (no-done is only sent with done) it ends the
	 * response, as the stateless server exits after it. */
	if (len == 3 && !memcmp(line, "NAK", 3)) {
		ev->kind = WG_FETCH_EV_NAK;
		v0_after_acks(r);
		return 1;
	}
	if (len < 4 || memcmp(line, "ACK ", 4))
		return wg_pkt_unexpected("expected 'ACK <id> ...' or 'NAK'", line, len);
	if ((err = parse_ack(r, line, len, &ev->oid, &status)))
		return err;
	if (!strcmp(status, "ready")) {
		ev->kind = WG_FETCH_EV_READY;
		r->ready = true;
		return 1;
	}
	ev->kind = WG_FETCH_EV_ACK;
	if (!*status) {
		/* The final ACK after "done", or the one ACK of a server
		 * without multi_ack. */
		v0_after_acks(r);
	}
	return 1;
}

static int v2_section(struct wg_fetch_response *r, const unsigned char *line, size_t len)
{
	static const char *const names[] = { "acknowledgments", "shallow-info", "wanted-refs",
					     "packfile" };
	static const enum section_rank ranks[] = { RANK_ACKS, RANK_INFO, RANK_INFO, RANK_PACK };
	static const enum fetch_state states[] = { ST_V2_ACKS, ST_V2_SHALLOW_INFO,
						   ST_V2_WANTED_REFS, ST_PACK };
	size_t i;
	if (equals((const char *)line, len, "packfile-uris"))
		return wg_error_set(WG_ECORRUPT, "protocol error: the server sent a packfile-uris "
				    "section, which this client never asks for");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (equals((const char *)line, len, names[i]))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return wg_pkt_unexpected(r->section ? "unknown section in the fetch response" :
				"expected a section header in the fetch response", line, len);
	if (ranks[i] < r->rank || (ranks[i] == r->rank && ranks[i] != RANK_INFO) ||
	    (i == 1 && r->seen_shallow_info) || (i == 2 && r->seen_wanted_refs))
		return wg_error_set(WG_ECORRUPT, "protocol error: the %s section is out of order "
				    "(after %s)", names[i], r->section);
	if (i == 0 && r->cfg.done_sent)
		return wg_error_set(WG_ECORRUPT, "protocol error: an acknowledgments section in "
				    "the response to a request that said done");
	if (i == 1)
		r->seen_shallow_info = true;
	if (i == 2)
		r->seen_wanted_refs = true;
	r->rank = ranks[i];
	r->section = names[i];
	r->state = states[i];
	return 0;
}

static int v2_line(struct wg_fetch_response *r, const unsigned char *line, size_t len,
		   struct wg_fetch_event *ev)
{
	const char *status, *sp;
	int err;
	switch (r->state) {
	case ST_V2_SECTION:
		return v2_section(r, line, len);
	case ST_V2_ACKS:
		if (r->ready)
			return wg_pkt_unexpected("expected the end of the acknowledgments section after "
					"'ready'", line, len);
		if (equals((const char *)line, len, "ready")) {
			ev->kind = WG_FETCH_EV_READY;
			wg_oid_null(&ev->oid, r->cfg.algo);
			r->ready = true;
			return 1;
		}
		if (equals((const char *)line, len, "NAK")) {
			if (r->nak || r->acked)
				return wg_pkt_unexpected("a NAK after other acknowledgements", line, len);
			ev->kind = WG_FETCH_EV_NAK;
			r->nak = true;
			return 1;
		}
		if (len < 4 || memcmp(line, "ACK ", 4))
			return wg_pkt_unexpected("expected 'ACK <id>', 'NAK' or 'ready' in the "
					"acknowledgments section", line, len);
		if (r->nak)
			return wg_pkt_unexpected("an ACK after a NAK", line, len);
		if ((err = parse_ack(r, line, len, &ev->oid, &status)))
			return err;
		ev->kind = WG_FETCH_EV_ACK;
		r->acked = true;
		return 1;
	case ST_V2_SHALLOW_INFO:
		return shallow_line(r, line, len, ev);
	case ST_V2_WANTED_REFS:
		sp = memchr(line, ' ', len);
		if (!sp)
			return wg_pkt_unexpected("expected '<id> <refname>' in the wanted-refs section",
					line, len);
		if ((err = wg_remote_oid_parse(&ev->oid, r->cfg.algo, (const char *)line,
					       (size_t)(sp - (const char *)line))))
			return wg_error_prefix("bad wanted-refs line");
		if ((err = wg_remote_refname_dup(&r->refname, sp + 1,
						 len - (size_t)(sp + 1 - (const char *)line))))
			return wg_error_prefix("bad wanted-refs line");
		ev->kind = WG_FETCH_EV_WANTED_REF;
		ev->refname = r->refname;
		return 1;
	default:
		break;
	}
	return wg_error_set(WG_ECORRUPT, "protocol error: internal state %d", (int)r->state);
}

static int handle_special(struct wg_fetch_response *r, enum wg_pkt_type type)
{
	if (r->cfg.version == 0 && type != WG_PKT_FLUSH)
		return wg_error_set(WG_ECORRUPT, "protocol error: unexpected %s in a protocol v0 "
				    "response", special_name(type));
	switch (r->state) {
	case ST_V0_START:
		if (r->cfg.shallow_list == SHALLOW_LIST_NONE)
			return wg_error_set(WG_ECORRUPT, "protocol error: expected 'ACK' or 'NAK', got "
					    "a flush packet");
		/* An empty shallow list. */
		r->state = ST_V0_ACKS;
		return 0;
	case ST_V0_SHALLOW:
		r->state = ST_V0_ACKS;
		return 0;
	case ST_V0_ACKS:
		return wg_error_set(WG_ECORRUPT, "protocol error: expected 'ACK' or 'NAK', got a "
				    "flush packet");
	case ST_V2_SECTION:
		return wg_error_set(WG_ECORRUPT, "protocol error: expected a section header in the "
				    "fetch response, got a %s", special_name(type));
	case ST_V2_ACKS:
		if (type == WG_PKT_FLUSH) {
			if (r->ready)
				return wg_error_set(WG_ECORRUPT, "protocol error: the server said ready "
						    "but the response ended without a packfile");
			r->state = ST_COMPLETE;
			return 0;
		}
		if (type == WG_PKT_DELIM && r->ready) {
			r->state = ST_V2_SECTION;
			return 0;
		}
		if (type == WG_PKT_DELIM)
			return wg_error_set(WG_ECORRUPT, "protocol error: more sections after "
					    "acknowledgments without 'ready'");
		break;
	case ST_V2_SHALLOW_INFO:
	case ST_V2_WANTED_REFS:
		if (type == WG_PKT_DELIM) {
			r->state = ST_V2_SECTION;
			return 0;
		}
		if (type == WG_PKT_FLUSH)
			return wg_error_set(WG_ECORRUPT, "protocol error: the fetch response ended after "
					    "the %s section, without a packfile", r->section);
		break;
	case ST_PACK:
		if (type == WG_PKT_FLUSH) {
			r->state = ST_COMPLETE;
			return 0;
		}
		break;
	case ST_COMPLETE:
	case ST_ENDED:
		break;
	}
	return wg_error_set(WG_ECORRUPT, "protocol error: unexpected %s in the %s section",
			    special_name(type), r->state == ST_PACK ? "packfile" :
			    r->section ? r->section : "current");
}

/* One packet: 1 with an event in *ev, 0 without, or an error. */
static int handle_pkt(struct wg_fetch_response *r, const struct wg_pkt *pkt,
		      struct wg_fetch_event *ev)
{
	const unsigned char *line;
	size_t len;
	int err;
	if (r->state == ST_ENDED) {
		/* A stateless v2 response may be closed by one 0002. */
		if (r->cfg.version == 2 && pkt->type == WG_PKT_RESPONSE_END && !r->seen_response_end) {
			r->seen_response_end = true;
			return 0;
		}
		return wg_error_set(WG_ECORRUPT, "protocol error: unexpected data after the end of "
				    "the fetch response");
	}
	if (pkt->type != WG_PKT_DATA)
		return handle_special(r, pkt->type);
	line = pkt->data;
	len = pkt->len;
	if (r->state == ST_PACK || r->cfg.sideband_all) {
		struct wg_sideband_msg m;
		if ((err = wg_sideband_demux(&m, pkt, r->state == ST_PACK ? r->cfg.sideband :
					     WG_SIDEBAND_64K)))
			return err;
		if (m.kind == WG_SIDEBAND_PROGRESS) {
			/* Kept until the progress parser has taken it all: the
			 * packet may point into the caller's input. */
			wg_buf_reset(&r->prog);
			r->prog_pos = 0;
			return m.len ? wg_buf_add(&r->prog, m.data, m.len) : 0;
		}
		if (r->state == ST_PACK) {
			if (!m.len)
				return 0; /* keepalive */
			ev->kind = WG_FETCH_EV_PACK_DATA;
			ev->data = m.data;
			ev->len = m.len;
			r->pack_bytes += m.len;
			return 1;
		}
		line = m.data;
		len = m.len;
	}
	if (len && line[len - 1] == '\n')
		len--;
	if (len >= 4 && !memcmp(line, "ERR ", 4)) {
		char q[REMOTE_MSG_MAX];
		return wg_error_set(WG_ERROR, "remote error: %s",
				    wg_pkt_quote(q, sizeof(q), line + 4, len - 4, true));
	}
	return r->cfg.version == 2 ? v2_line(r, line, len, ev) : v0_line(r, line, len, ev);
}

int wg_fetch_response_next(struct wg_fetch_response *r, struct wg_fetch_event *ev,
			   const void **in, size_t *in_len)
{
	int err;
	if (r->failed)
		return wg_error_set(r->failed, "%s", r->failure);
	memset(ev, 0, sizeof(*ev));
	wg_free(r->refname);
	r->refname = NULL;
	for (;;) {
		const unsigned char *p;
		struct wg_pkt pkt;
		size_t n;
		if (r->prog_pos < r->prog.len) {
			p = r->prog.data + r->prog_pos;
			n = r->prog.len - r->prog_pos;
			err = wg_progress_parser_next(r->progress, &r->pev, &p, &n);
			r->prog_pos = r->prog.len - n;
			if (!err) {
				ev->kind = WG_FETCH_EV_PROGRESS;
				ev->progress = &r->pev;
				return 0;
			}
			if (err != WG_ENEEDMORE)
				return fail(r, err);
			wg_buf_reset(&r->prog);
			r->prog_pos = 0;
		}
		if (r->state == ST_COMPLETE) {
			/* A last progress line without its LF, then the end. */
			err = wg_progress_parser_finish(r->progress, &r->pev);
			if (!err) {
				ev->kind = WG_FETCH_EV_PROGRESS;
				ev->progress = &r->pev;
				return 0;
			}
			if (err != WG_ITEROVER)
				return fail(r, err);
			r->state = ST_ENDED;
			ev->kind = WG_FETCH_EV_END;
			return 0;
		}
		if (!*in_len)
			return WG_ENEEDMORE;
		p = *in;
		err = wg_pkt_reader_read(r->reader, &pkt, &p, in_len);
		*in = p;
		if (err == WG_ENEEDMORE)
			return err;
		if (err)
			return fail(r, err);
		err = handle_pkt(r, &pkt, ev);
		if (err < 0)
			return fail(r, err);
		if (err > 0)
			return 0;
	}
}

static const char *where(const struct wg_fetch_response *r, char *buf, size_t bufsz)
{
	switch (r->state) {
	case ST_V0_START: return "before any acknowledgement";
	case ST_V0_SHALLOW: return "in the shallow list";
	case ST_V0_ACKS: return "before its NAK or final ACK";
	case ST_V2_SECTION:
		if (!r->section)
			return "before any section";
		snprintf(buf, bufsz, "after the %s section", r->section);
		return buf;
	case ST_V2_ACKS: return "in the acknowledgments section";
	case ST_V2_SHALLOW_INFO: return "in the shallow-info section";
	case ST_V2_WANTED_REFS: return "in the wanted-refs section";
	case ST_PACK:
		snprintf(buf, bufsz, "in the pack data, after %llu bytes", r->pack_bytes);
		return buf;
	case ST_COMPLETE:
	case ST_ENDED:
		break;
	}
	return "at the end";
}

int wg_fetch_response_finish(struct wg_fetch_response *r)
{
	char buf[128];
	if (r->failed)
		return wg_error_set(r->failed, "%s", r->failure);
	if (r->state == ST_COMPLETE || r->state == ST_ENDED) {
		if (!wg_pkt_reader_pending(r->reader))
			return 0;
		wg_error_set(WG_ECORRUPT, "protocol error: unexpected data after the end of the "
			     "fetch response (part of a pkt-line)");
		return fail(r, WG_ECORRUPT);
	}
	wg_error_set(WG_ECORRUPT, "the server closed the response early (%s%s)",
		     where(r, buf, sizeof(buf)),
		     wg_pkt_reader_pending(r->reader) ? ", in the middle of a pkt-line" : "");
	return fail(r, WG_ECORRUPT);
}
