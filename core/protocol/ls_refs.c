#include "protocol/ls_refs.h"

#include <stdio.h>
#include <string.h>

#include "protocol/pktline.h"
#include "util/alloc.h"
#include "util/error.h"

/* --- the request --------------------------------------------------------------- */

/* An argument we put on a line: it must not break the framing. */
static int check_arg(const char *what, const char *s)
{
	if (!s)
		return wg_error_set(WG_EINVALID, "ls-refs: %s is NULL", what);
	if (strchr(s, '\n'))
		return wg_error_set(WG_EINVALID, "ls-refs: %s '%s' contains a newline", what, s);
	return 0;
}

static int check_options(const struct wg_caps *server, const struct wg_ls_refs_options *opts,
			 const struct wg_hash_algo **format)
{
	const char *p;
	size_t i;
	int err;
	*format = opts->algo;
	if (opts->agent) {
		if (!*opts->agent)
			return wg_error_set(WG_EINVALID, "ls-refs: the agent string is empty");
		/* gitprotocol-v2(5): printable ASCII except space. */
		for (p = opts->agent; *p; p++)
			if ((unsigned char)*p <= 32 || (unsigned char)*p >= 127)
				return wg_error_set(WG_EINVALID, "ls-refs: the agent string may hold "
						    "only printable ASCII without spaces");
	}
	for (i = 0; i < opts->prefix_count; i++)
		if ((err = check_arg("ref prefix", opts->prefixes[i])))
			return err;
	for (i = 0; i < opts->server_option_count; i++)
		if ((err = check_arg("server option", opts->server_options[i])))
			return err;
	if (!server)
		return 0;
	if (wg_caps_version(server) != 2)
		return wg_error_set(WG_EINVALID, "ls-refs needs a protocol v2 capability advertisement");
	if (!wg_caps_has(server, "ls-refs"))
		return wg_error_set(WG_EUNSUPPORTED, "the server does not support the ls-refs command");
	if (opts->server_option_count && !wg_caps_has(server, "server-option"))
		return wg_error_set(WG_EUNSUPPORTED, "the server does not support server options");
	if (wg_caps_has(server, "object-format")) {
		const struct wg_hash_algo *theirs;
		if ((err = wg_caps_hash_algo(server, &theirs)))
			return err;
		if (opts->algo && opts->algo != theirs)
			return wg_error_set(WG_EUNSUPPORTED, "the remote repository uses %s object ids "
					    "but %s was requested", theirs->name, opts->algo->name);
		*format = theirs;
	} else {
		/* A server that does not say uses SHA-1 and cannot be asked
		 * for anything else. */
		if (opts->algo && opts->algo->id != WG_HASH_SHA1)
			return wg_error_set(WG_EUNSUPPORTED, "the remote repository uses sha1 object "
					    "ids but %s was requested", opts->algo->name);
		*format = NULL;
	}
	return 0;
}

int wg_ls_refs_request(struct wg_buf *out, const struct wg_caps *server,
		       const struct wg_ls_refs_options *opts)
{
	const struct wg_hash_algo *format;
	size_t start = out->len, i;
	bool agent, unborn;
	int err;
	if ((err = check_options(server, opts, &format)))
		return err;
	agent = opts->agent && (!server || wg_caps_has(server, "agent"));
	unborn = opts->unborn && (!server || wg_caps_has_feature(server, "ls-refs", "unborn"));

	if ((err = wg_pkt_writes(out, "command=ls-refs\n")))
		goto fail;
	if (agent && (err = wg_pkt_printf(out, "agent=%s\n", opts->agent)))
		goto fail;
	if (format && (err = wg_pkt_printf(out, "object-format=%s\n", format->name)))
		goto fail;
	for (i = 0; i < opts->server_option_count; i++)
		if ((err = wg_pkt_printf(out, "server-option=%s\n", opts->server_options[i])))
			goto fail;
	if ((err = wg_pkt_write_delim(out)))
		goto fail;
	if (opts->peel && (err = wg_pkt_writes(out, "peel\n")))
		goto fail;
	if (opts->symrefs && (err = wg_pkt_writes(out, "symrefs\n")))
		goto fail;
	if (unborn && (err = wg_pkt_writes(out, "unborn\n")))
		goto fail;
	for (i = 0; i < opts->prefix_count; i++)
		if ((err = wg_pkt_printf(out, "ref-prefix %s\n", opts->prefixes[i])))
			goto fail;
	if ((err = wg_pkt_write_flush(out)))
		goto fail;
	return 0;
fail:
	wg_buf_setlen(out, start);
	return err;
}

/* --- response lines -------------------------------------------------------------- */

static int bad_line(const char *why, const unsigned char *line, size_t len)
{
	char q[WG_PKT_QUOTE_MAX];
	return wg_error_set(WG_ECORRUPT, "protocol error: invalid ls-refs line (%s): '%s'", why,
			    wg_pkt_quote(q, sizeof(q), line, len, false));
}

static bool has_prefix(const char *s, size_t len, const char *prefix, size_t *plen)
{
	*plen = strlen(prefix);
	return len >= *plen && !memcmp(s, prefix, *plen);
}

int wg_ls_refs_parse_line(struct wg_remote_ref_list *list, const struct wg_hash_algo *algo,
			  const void *data, size_t len)
{
	const unsigned char *line = data;
	const char *field, *end;
	struct wg_remote_ref ref;
	size_t flen, plen;
	int nfield = 0, err = 0;
	if (len && line[len - 1] == '\n')
		len--;
	memset(&ref, 0, sizeof(ref));
	/* Fields separated by single spaces: id, name, then attributes in
	 * any order. */
	for (field = (const char *)line; !err; field = end + 1) {
		end = memchr(field, ' ', len - (size_t)(field - (const char *)line));
		if (!end)
			end = (const char *)line + len;
		flen = (size_t)(end - field);
		if (!flen) {
			err = bad_line("empty field", line, len);
		} else if (nfield == 0) {
			if (flen == 6 && !memcmp(field, "unborn", 6)) {
				ref.unborn = true;
				wg_oid_null(&ref.oid, algo);
			} else {
				err = wg_remote_oid_parse(&ref.oid, algo, field, flen);
			}
		} else if (nfield == 1) {
			err = wg_remote_refname_dup(&ref.name, field, flen);
		} else if (has_prefix(field, flen, "symref-target:", &plen)) {
			if (ref.symref_target)
				err = bad_line("two symref-target attributes", line, len);
			else
				err = wg_remote_refname_dup(&ref.symref_target, field + plen, flen - plen);
		} else if (has_prefix(field, flen, "peeled:", &plen)) {
			if (ref.has_peeled || ref.unborn)
				err = bad_line(ref.unborn ? "an unborn ref cannot be peeled" :
					       "two peeled attributes", line, len);
			else if (!(err = wg_remote_oid_parse(&ref.peeled, algo, field + plen, flen - plen)))
				ref.has_peeled = true;
		}
		/* Other attributes are for future servers: ignore them. */
		nfield++;
		if (end == (const char *)line + len)
			break;
	}
	if (!err && nfield < 2)
		err = bad_line("expected '<object id> <ref name>'", line, len);
	if (err) {
		wg_free(ref.name);
		wg_free(ref.symref_target);
		return err;
	}
	return wg_remote_ref_list_add(list, &ref);
}

/* --- the response parser ------------------------------------------------------------- */

struct wg_ls_refs_parser {
	const struct wg_hash_algo *algo;
	struct wg_pkt_reader *reader;
	struct wg_remote_ref_list refs;
	bool done, seen_end;
	struct wg_limits limits;
	uint64_t bytes;
	int failed;
	char failure[512];
};

int wg_ls_refs_parser_new(struct wg_ls_refs_parser **out, const struct wg_hash_algo *algo)
{
	struct wg_ls_refs_parser *p;
	int err;
	*out = NULL;
	if (!algo)
		return wg_error_set(WG_EINVALID, "ls-refs: the object format must be known");
	if (!(p = wg_calloc(1, sizeof(*p))))
		return wg_error_set(WG_ENOMEM, "out of memory allocating an ls-refs parser");
	if ((err = wg_pkt_reader_new(&p->reader, WG_PKT_READ_ERR_PACKETS))) {
		wg_free(p);
		return err;
	}
	p->algo = algo;
	p->limits = *wg_limits_default();
	*out = p;
	return 0;
}

void wg_ls_refs_parser_set_limits(struct wg_ls_refs_parser *parser,
				  const struct wg_limits *limits)
{
	parser->limits = *wg_limits_or_default(limits);
}

void wg_ls_refs_parser_free(struct wg_ls_refs_parser *parser)
{
	if (!parser)
		return;
	wg_pkt_reader_free(parser->reader);
	wg_remote_ref_list_release(&parser->refs);
	wg_free(parser);
}

static int fail(struct wg_ls_refs_parser *p, int err)
{
	if (err == WG_ENEEDMORE)
		return err;
	p->failed = err;
	snprintf(p->failure, sizeof(p->failure), "%s", wg_error_message());
	return err;
}

static int handle_pkt(struct wg_ls_refs_parser *p, const struct wg_pkt *pkt)
{
	if (p->done) {
		/* A stateless (HTTP) response may be closed by 0002 after the
		 * flush; nothing else may follow. */
		if (pkt->type == WG_PKT_RESPONSE_END && !p->seen_end) {
			p->seen_end = true;
			return 0;
		}
		return wg_error_set(WG_ECORRUPT, "protocol error: unexpected data after the end of "
				    "the ls-refs response");
	}
	switch (pkt->type) {
	case WG_PKT_DATA:
		if (p->limits.max_refs && p->refs.nr >= p->limits.max_refs)
			return wg_error_set(WG_ELIMIT, "the ls-refs response lists more than %u "
					    "refs (max_refs): refusing to read more of it",
					    (unsigned)p->limits.max_refs);
		return wg_ls_refs_parse_line(&p->refs, p->algo, pkt->data, pkt->len);
	case WG_PKT_FLUSH:
		p->done = true;
		return 0;
	case WG_PKT_DELIM:
	case WG_PKT_RESPONSE_END:
		break;
	}
	return wg_error_set(WG_ECORRUPT, "protocol error: expected a flush packet after the ref "
			    "listing, got %s", pkt->type == WG_PKT_DELIM ? "delim (0001)" :
			    "response-end (0002)");
}

int wg_ls_refs_parser_feed(struct wg_ls_refs_parser *p, const void *data, size_t len)
{
	const unsigned char *in = data;
	size_t n = len;
	if (p->failed)
		return wg_error_set(p->failed, "%s", p->failure);
	p->bytes += len;
	if (p->limits.max_advertisement_bytes && p->bytes > p->limits.max_advertisement_bytes) {
		wg_error_set(WG_ELIMIT, "the ls-refs response is larger than %llu bytes "
			     "(max_advertisement_bytes): refusing to read more of it",
			     (unsigned long long)p->limits.max_advertisement_bytes);
		return fail(p, WG_ELIMIT);
	}
	while (n) {
		struct wg_pkt pkt;
		int err;
		err = wg_pkt_reader_read(p->reader, &pkt, &in, &n);
		if (err == WG_ENEEDMORE)
			break;
		if (err || (err = handle_pkt(p, &pkt)))
			return fail(p, err);
	}
	return p->done ? 0 : WG_ENEEDMORE;
}

int wg_ls_refs_parser_finish(struct wg_ls_refs_parser *p)
{
	int err;
	if (p->failed)
		return wg_error_set(p->failed, "%s", p->failure);
	if ((err = wg_pkt_reader_finish(p->reader)))
		return fail(p, err);
	if (!p->done) {
		wg_error_set(WG_ECORRUPT, "protocol error: the ls-refs response ended before its "
			     "final flush packet");
		return fail(p, WG_ECORRUPT);
	}
	return 0;
}

const struct wg_remote_ref_list *wg_ls_refs_parser_refs(const struct wg_ls_refs_parser *parser)
{
	return &parser->refs;
}
