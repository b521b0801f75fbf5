/* Ref discovery, the first step of ls-remote, clone and fetch: the
 * advertisement from info/refs (protocol v2 asked for with Git-Protocol,
 * v0/v1 accepted), then ls-refs when the server speaks v2. */
#include "remote/operation_internal.h"

#include <stdio.h>
#include <string.h>

#include "protocol/pktline.h"
#include "remote/dumb_refs.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"

static const char *const info_refs_headers[] = {
	"Git-Protocol: version=2",
	/* what git (curl) sends; a server answers by the service asked for */
	"Accept: */*",
};

int wg_discovery_init(struct wg_discovery *d, const char *url,
		      const struct wg_hash_algo *expected)
{
	size_t n;
	char *u;

	memset(d, 0, sizeof(*d));
	/* requests, and every message, use the URL without credentials (the
	 * operation sends those as an Authorization header) */
	if (!(u = wg_url_redact_dup(url)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	n = strlen(u);
	while (n && u[n - 1] == '/')
		u[--n] = '\0';
	if (!n || (strncmp(u, "http://", 7) && strncmp(u, "https://", 8))) {
		int err = wg_error_set(WG_EUNSUPPORTED, "'%s' is not an http:// or https:// URL",
				       u);
		wg_free(u);
		return err;
	}
	d->url = u;
	d->expected = expected;
	return 0;
}

int wg_discovery_init_push(struct wg_discovery *d, const char *url,
			   const struct wg_hash_algo *expected)
{
	int err = wg_discovery_init(d, url, expected);
	d->receive_pack = true;
	return err;
}

void wg_discovery_release(struct wg_discovery *d)
{
	wg_free(d->url);
	wg_advertisement_free(d->adv);
	wg_ls_refs_parser_free(d->ls);
	wg_buf_release(&d->dumb_body);
	wg_remote_ref_list_release(&d->dumb_refs);
	memset(d, 0, sizeof(*d));
}

static int advertised(struct wg_discovery *d);

/* wg_remote_op_assume_v2(): the advertisement such a server would send,
 * read by the same parser, so that every later step sees real
 * capabilities. Only what our requests depend on is assumed: ls-refs
 * (unborn is harmless where unknown), fetch with shallow and filter, the
 * object format. No agent: ours is sent only to a server that names
 * its own. */
static int assumed_advertisement(struct wg_discovery *d)
{
	struct wg_buf body = WG_BUF_INIT;
	int err;

	if ((err = wg_advertisement_new(&d->adv, "git-upload-pack", d->expected)))
		return err;
	if (wg_pkt_writes(&body, "version 2\n") || wg_pkt_writes(&body, "ls-refs=unborn\n") ||
	    wg_pkt_writes(&body, "fetch=shallow filter\n") ||
	    wg_pkt_printf(&body, "object-format=%s\n", d->assume_v2->name) ||
	    wg_pkt_write_flush(&body))
		err = wg_error_set(WG_ENOMEM, "out of memory");
	if (!err && (err = wg_advertisement_feed(d->adv, body.data, body.len)) == WG_ENEEDMORE)
		err = 0;
	wg_buf_release(&body);
	return err ? err : advertised(d);
}

int wg_discovery_next_request(struct wg_discovery *d, struct wg_remote_op *op)
{
	struct wg_ls_refs_options lo = WG_LS_REFS_OPTIONS_INIT;
	int err;

	switch (d->state) {
	case WG_DISCOVERY_START:
		if (d->assume_v2) {
			if ((err = assumed_advertisement(d)))
				return err;
			return wg_discovery_next_request(d, op);
		}
		if ((err = wg_advertisement_new(&d->adv, d->receive_pack ? "git-receive-pack" :
						"git-upload-pack", d->expected)))
			return err;
		wg_advertisement_set_limits(d->adv, wg_remote_op_limits(op, d->limits));
		wg_buf_reset(&op->body);
		if (d->receive_pack)
			err = wg_remote_op_set_request(op, "GET", d->url,
						       "/info/refs?service=git-receive-pack",
						       wg_remote_accept_any, 1);
		else
			err = wg_remote_op_set_request(op, "GET", d->url,
						       "/info/refs?service=git-upload-pack",
						       info_refs_headers, 2);
		if (err)
			return err;
		d->state = WG_DISCOVERY_INFO_REFS;
		return 0;
	case WG_DISCOVERY_NEED_LS_REFS:
		lo.agent = "webgit/0.1";
		lo.algo = d->algo;
		lo.prefixes = d->prefixes;
		lo.prefix_count = d->nprefixes;
		wg_buf_reset(&op->body);
		if ((err = wg_ls_refs_request(&op->body, d->caps, &lo)) ||
		    (err = wg_ls_refs_parser_new(&d->ls, d->algo)) ||
		    (err = wg_remote_op_set_upload_pack(op, d->url, 2)))
			return err;
		wg_ls_refs_parser_set_limits(d->ls, wg_remote_op_limits(op, d->limits));
		d->state = WG_DISCOVERY_LS_REFS;
		return 0;
	case WG_DISCOVERY_NEED_DUMB_HEAD:
		wg_buf_reset(&op->body);
		if ((err = wg_remote_op_set_request(op, "GET", d->url, "/HEAD",
						    wg_remote_accept_any, 1)))
			return err;
		d->state = WG_DISCOVERY_DUMB_HEAD;
		return 0;
	case WG_DISCOVERY_DONE:
		return WG_ITEROVER;
	default:
		return wg_error_set(WG_EINVALID, "ref discovery: a response is still expected");
	}
}

/* The advertisement came from another URL: as git (http.c,
 * update_url_from_redirect), the repository is where that URL, less what
 * was asked after the base ("/info/refs?service=..."), points; a
 * redirect that does not keep that tail leaves no way to know the base. */
static int move_base(struct wg_discovery *d, struct wg_remote_op *op)
{
	const char *got = wg_buf_cstr(&op->response_url), *tail = op->req.url + strlen(d->url);
	size_t glen = op->response_url.len, tlen = strlen(tail);
	struct wg_remote_progress p;
	struct wg_buf notice = WG_BUF_INIT;
	char *base;

	if (glen <= tlen || strcmp(got + glen - tlen, tail))
		return wg_error_set(WG_ECORRUPT, "unable to update url base from redirection:\n"
				    "  asked for: %s\n   redirect: %s", op->req.url, got);
	if (!(base = wg_strndup(got, glen - tlen)) ||
	    wg_buf_printf(&notice, "redirecting to %s/", base)) {
		wg_free(base);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	wg_free(d->url);
	d->url = base;
	memset(&p, 0, sizeof(p));
	p.phase = "notice";
	p.notice = true;
	p.line = wg_buf_cstr(&notice);
	wg_remote_report(op, &p);
	wg_buf_release(&notice);
	return 0;
}

int wg_discovery_response_begin(struct wg_discovery *d, struct wg_remote_op *op, int status,
				const char *content_type)
{
	int err;

	if (d->state == WG_DISCOVERY_INFO_REFS && op->response_url.len &&
	    (err = move_base(d, op)))
		return err;
	if (d->state == WG_DISCOVERY_INFO_REFS) {
		err = wg_remote_check_response(d->url, status, content_type, d->receive_pack ?
					       "application/x-git-receive-pack-advertisement" :
					       "application/x-git-upload-pack-advertisement");
		/* git's rule: a 200 that is not the service's advertisement
		 * comes from a static host, and is its info/refs file */
		if (err == WG_EUNSUPPORTED && status == 200 && d->allow_dumb &&
		    !d->receive_pack) {
			wg_error_clear();
			d->dumb = true;
			wg_buf_reset(&d->dumb_body);
			return 0;
		}
		return err;
	}
	if (d->state == WG_DISCOVERY_DUMB_HEAD) {
		/* as git: a HEAD the host does not serve is simply not
		 * among the refs (a clone then has no default branch) */
		d->dumb_status = status;
		wg_buf_reset(&d->dumb_body);
		return 0;
	}
	return wg_remote_check_response(d->url, status, content_type,
					"application/x-git-upload-pack-result");
}

int wg_discovery_feed(struct wg_discovery *d, const void *data, size_t len)
{
	const struct wg_limits *l = wg_limits_or_default(d->limits);
	int err;

	if (d->dumb && (d->state == WG_DISCOVERY_INFO_REFS || d->state == WG_DISCOVERY_DUMB_HEAD)) {
		uint64_t max = d->state == WG_DISCOVERY_DUMB_HEAD ? 4096 :
			       l->max_advertisement_bytes;
		if (d->state == WG_DISCOVERY_DUMB_HEAD && d->dumb_status != 200)
			return 0;
		if (max && d->dumb_body.len + len > max)
			return wg_error_set(WG_ELIMIT, "%s/%s is larger than %llu bytes", d->url,
					    d->state == WG_DISCOVERY_DUMB_HEAD ? "HEAD" :
					    "info/refs", (unsigned long long)max);
		return wg_buf_add(&d->dumb_body, data, len) ?
		       wg_error_set(WG_ENOMEM, "out of memory") : 0;
	}
	if (d->state == WG_DISCOVERY_INFO_REFS)
		err = wg_advertisement_feed(d->adv, data, len);
	else
		err = wg_ls_refs_parser_feed(d->ls, data, len);
	return err == WG_ENEEDMORE ? 0 : err;
}

/* info/refs of a static host, as version 0 refs. */
static int dumb_refs_end(struct wg_discovery *d)
{
	struct wg_dumb_refs dr = WG_DUMB_REFS_INIT;
	int err;

	if ((err = wg_dumb_refs_parse(&dr, (const char *)d->dumb_body.data, d->dumb_body.len,
				      wg_limits_or_default(d->limits)))) {
		char why[512];
		wg_dumb_refs_release(&dr);
		if (err != WG_ECORRUPT)
			return err;
		/* git's words, and ours: what the answer was not */
		snprintf(why, sizeof(why), "%s", wg_error_message());
		return wg_error_set(WG_ECORRUPT, "%s/info/refs not valid: is this a git "
				    "repository? (not a smart Git HTTP server, and not a "
				    "static host's info/refs either: %s)", d->url, why);
	}
	d->algo = dr.algo ? dr.algo : d->expected ? d->expected :
		  wg_hash_algo_by_id(WG_HASH_SHA1);
	if (d->expected && d->algo != d->expected) {
		err = wg_error_set(WG_EUNSUPPORTED, "the remote repository uses %s object ids "
				   "but the local repository uses %s; the two cannot exchange "
				   "objects", d->algo->name, d->expected->name);
		wg_dumb_refs_release(&dr);
		return err;
	}
	for (size_t i = 0; i < dr.nr && !err; i++) {
		struct wg_remote_ref r;
		memset(&r, 0, sizeof(r));
		if (!(r.name = wg_strdup(dr.refs[i].name))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		r.oid = dr.refs[i].oid;
		r.has_peeled = dr.refs[i].has_peeled;
		r.peeled = dr.refs[i].peeled;
		err = wg_remote_ref_list_add(&d->dumb_refs, &r);
	}
	wg_dumb_refs_release(&dr);
	if (err)
		return err;
	d->version = 0;
	d->caps = NULL;
	d->state = WG_DISCOVERY_NEED_DUMB_HEAD;
	return 0;
}

/* The HEAD file: "ref: <name>" becomes HEAD with that symref target and
 * the id info/refs gives the name (git's resolve_remote_symref: a target
 * it does not list, or a file it cannot read, leaves HEAD out); an id is
 * a detached HEAD. */
static int dumb_head_end(struct wg_discovery *d)
{
	struct wg_remote_ref r;
	char *symref = NULL;
	int err;

	memset(&r, 0, sizeof(r));
	d->refs = &d->dumb_refs;
	d->state = WG_DISCOVERY_DONE;
	if (d->dumb_status != 200)
		return 0;
	if (wg_dumb_head_parse(&symref, &r.oid, d->algo, (const char *)d->dumb_body.data,
			       d->dumb_body.len)) {
		wg_error_clear();
		return 0;
	}
	if (symref) {
		const struct wg_remote_ref *t = wg_remote_ref_list_find(&d->dumb_refs, symref);
		if (!t) {
			wg_free(symref);
			return 0;
		}
		r.oid = t->oid;
		r.symref_target = symref;
	}
	if (!(r.name = wg_strdup("HEAD"))) {
		wg_free(symref);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	if ((err = wg_remote_ref_list_add(&d->dumb_refs, &r)))
		return err;
	/* first, where git puts it (ls-remote prints it there) */
	r = d->dumb_refs.refs[d->dumb_refs.nr - 1];
	memmove(d->dumb_refs.refs + 1, d->dumb_refs.refs,
		(d->dumb_refs.nr - 1) * sizeof(*d->dumb_refs.refs));
	d->dumb_refs.refs[0] = r;
	return 0;
}

int wg_discovery_response_end(struct wg_discovery *d)
{
	int err;

	if (d->dumb && d->state == WG_DISCOVERY_INFO_REFS)
		return dumb_refs_end(d);
	if (d->state == WG_DISCOVERY_DUMB_HEAD)
		return dumb_head_end(d);
	if (d->state == WG_DISCOVERY_INFO_REFS)
		return advertised(d);
	if ((err = wg_ls_refs_parser_finish(d->ls)))
		return err;
	d->refs = wg_ls_refs_parser_refs(d->ls);
	d->state = WG_DISCOVERY_DONE;
	return 0;
}

/* The advertisement is all in: what comes next. */
static int advertised(struct wg_discovery *d)
{
	int err;

	if ((err = wg_advertisement_finish(d->adv)))
		return err;
	d->version = wg_advertisement_version(d->adv);
	d->caps = wg_advertisement_caps(d->adv);
	d->algo = wg_advertisement_hash_algo(d->adv);
	if (d->version == 2 && d->receive_pack)
		return wg_error_set(WG_ECORRUPT, "%s: the server answered a receive-pack "
				    "request with protocol v2", d->url);
	if (d->version == 2 && d->caps_only) {
		static const struct wg_remote_ref_list none = WG_REMOTE_REF_LIST_INIT;
		d->refs = &none;
		d->state = WG_DISCOVERY_DONE;
	} else if (d->version == 2) {
		d->state = WG_DISCOVERY_NEED_LS_REFS;
	} else {
		d->refs = wg_advertisement_refs(d->adv);
		d->state = WG_DISCOVERY_DONE;
	}
	return 0;
}

int wg_discovery_check_wants(const struct wg_discovery *d, const struct wg_oid *oids, size_t n)
{
	char hex[WG_MAX_HEXSZ + 1];
	size_t i, j;

	if (d->version == 2 || wg_caps_has(d->caps, "allow-tip-sha1-in-want") ||
	    wg_caps_has(d->caps, "allow-reachable-sha1-in-want"))
		return 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < d->refs->nr; j++)
			if (wg_oid_equal(&d->refs->refs[j].oid, &oids[i]))
				break;
		if (j == d->refs->nr)
			return wg_error_set(WG_EUNSUPPORTED, "Server does not allow request for "
					    "unadvertised object %s", wg_oid_to_hex(&oids[i], hex));
	}
	return 0;
}
