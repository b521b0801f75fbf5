#include "protocol/advertisement.h"

#include <stdio.h>
#include <string.h>

#include "protocol/pktline.h"
#include "refs/refname.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"

/* --- remote refs ---------------------------------------------------------------- */

void wg_remote_ref_list_release(struct wg_remote_ref_list *list)
{
	size_t i;
	if (!list)
		return;
	for (i = 0; i < list->nr; i++) {
		wg_free(list->refs[i].name);
		wg_free(list->refs[i].symref_target);
	}
	wg_free(list->refs);
	list->refs = NULL;
	list->nr = list->alloc = 0;
}

const struct wg_remote_ref *wg_remote_ref_list_find(const struct wg_remote_ref_list *list,
						    const char *name)
{
	size_t i;
	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->refs[i].name, name))
			return &list->refs[i];
	return NULL;
}

int wg_remote_ref_list_add(struct wg_remote_ref_list *list, const struct wg_remote_ref *ref)
{
	if (list->nr == list->alloc) {
		size_t n = list->alloc ? list->alloc * 2 : 16;
		struct wg_remote_ref *grown = wg_realloc(list->refs, n * sizeof(*grown));
		if (!grown) {
			wg_free(ref->name);
			wg_free(ref->symref_target);
			return wg_error_set(WG_ENOMEM, "out of memory storing remote refs");
		}
		list->refs = grown;
		list->alloc = n;
	}
	list->refs[list->nr++] = *ref;
	return 0;
}

int wg_remote_refname_dup(char **out, const char *name, size_t len)
{
	static const char marker[] = "is not a valid ref name: ";
	char q[WG_PKT_QUOTE_MAX], why[128];
	char *copy;
	*out = NULL;
	if (memchr(name, '\0', len)) {
		snprintf(why, sizeof(why), "contains a NUL byte");
	} else if (len == 4 && !memcmp(name, "HEAD", 4)) {
		why[0] = '\0';
	} else if (len < 5 || memcmp(name, "refs/", 5)) {
		/* The protocol's refname is "HEAD" or "refs/..."
		 * (gitprotocol-common(5)): nothing a remote sends may name a
		 * file outside refs/. */
		snprintf(why, sizeof(why), "not HEAD and not under refs/");
	} else {
		if (!(copy = wg_strndup(name, len)))
			return wg_error_set(WG_ENOMEM, "out of memory copying a ref name");
		if (!wg_refname_check(copy, 0)) {
			*out = copy;
			return 0;
		}
		wg_free(copy);
		/* Keep the rule that failed, but not that message's raw copy
		 * of the name, which may hold control bytes. */
		const char *m = strstr(wg_error_message(), marker);
		/* A long name leaves no room for the rule in the message
		 * (it is cut to the error buffer's size): the name is still
		 * invalid, so `why` must never end up empty. */
		if (m && m[sizeof(marker) - 1])
			snprintf(why, sizeof(why), "%s", m + sizeof(marker) - 1);
		else
			snprintf(why, sizeof(why), "rejected by check-ref-format");
	}
	if (!why[0]) {
		if (!(*out = wg_strndup(name, len)))
			return wg_error_set(WG_ENOMEM, "out of memory copying a ref name");
		return 0;
	}
	return wg_error_set(WG_ECORRUPT, "protocol error: the server sent an invalid ref name '%s': %s",
			    wg_pkt_quote(q, sizeof(q), name, len, false), why);
}

int wg_remote_oid_parse(struct wg_oid *out, const struct wg_hash_algo *algo, const char *hex,
			size_t len)
{
	char q[WG_PKT_QUOTE_MAX];
	const struct wg_hash_algo *other;
	size_t i;
	for (i = 0; i < len; i++)
		if (wg_hex_value((unsigned char)hex[i]) < 0)
			return wg_error_set(WG_ECORRUPT, "protocol error: object id '%s' is not "
					    "hexadecimal", wg_pkt_quote(q, sizeof(q), hex, len, false));
	if (len != algo->hexsz) {
		other = wg_hash_algo_by_id(algo->id == WG_HASH_SHA1 ? WG_HASH_SHA256 : WG_HASH_SHA1);
		if (other && len == other->hexsz)
			return wg_error_set(WG_ECORRUPT, "protocol error: object id '%s' has %zu hex "
					    "digits, a %s id, but the %s object format is in use",
					    wg_pkt_quote(q, sizeof(q), hex, len, false), len,
					    other->name, algo->name);
		return wg_error_set(WG_ECORRUPT, "protocol error: object id '%s' has %zu hex digits; "
				    "%s ids have %zu", wg_pkt_quote(q, sizeof(q), hex, len, false), len,
				    algo->name, algo->hexsz);
	}
	memset(out, 0, sizeof(*out));
	wg_hex_decode(out->hash, hex, algo->rawsz);
	out->algo = (unsigned char)algo->id;
	return 0;
}

/* --- the advertisement parser ------------------------------------------------------ */

enum adv_state {
	ADV_START,      /* expecting "# service=..." (smart HTTP) */
	ADV_HEADER,     /* after "# service=...": skip to the flush */
	ADV_VERSION,    /* a "version N" line, or the first ref */
	ADV_FIRST_REF,  /* the first ref, which carries the capabilities */
	ADV_REFS,
	ADV_SHALLOW,
	ADV_V2_CAPS,
	ADV_DONE,
};

struct oid_array {
	struct wg_oid *oids;
	size_t nr, alloc;
};

struct wg_advertisement {
	enum adv_state state;
	char *service;
	const struct wg_hash_algo *expected;
	const struct wg_hash_algo *algo;
	struct wg_pkt_reader *reader;
	size_t offset;          /* bytes of body seen */
	unsigned char head[WG_PKT_HEADER_SIZE + 1];  /* the first bytes, smart-HTTP check */
	size_t head_len;
	int version;
	struct wg_caps *caps;
	struct wg_remote_ref_list refs;
	struct oid_array shallows, haves;
	struct wg_limits limits;
	size_t lines;           /* data packets seen */
	int failed;
	char failure[512];
};

int wg_advertisement_new(struct wg_advertisement **out, const char *service,
			 const struct wg_hash_algo *expected)
{
	struct wg_advertisement *adv;
	int err;
	*out = NULL;
	if (!(adv = wg_calloc(1, sizeof(*adv))))
		return wg_error_set(WG_ENOMEM, "out of memory allocating a ref advertisement parser");
	if (service && !(adv->service = wg_strdup(service))) {
		wg_free(adv);
		return wg_error_set(WG_ENOMEM, "out of memory allocating a ref advertisement parser");
	}
	if ((err = wg_pkt_reader_new(&adv->reader, WG_PKT_READ_ERR_PACKETS))) {
		wg_free(adv->service);
		wg_free(adv);
		return err;
	}
	adv->state = service ? ADV_START : ADV_VERSION;
	adv->expected = expected;
	adv->limits = *wg_limits_default();
	*out = adv;
	return 0;
}

void wg_advertisement_set_limits(struct wg_advertisement *adv, const struct wg_limits *limits)
{
	adv->limits = *wg_limits_or_default(limits);
}

void wg_advertisement_free(struct wg_advertisement *adv)
{
	if (!adv)
		return;
	wg_pkt_reader_free(adv->reader);
	wg_free(adv->service);
	wg_caps_free(adv->caps);
	wg_remote_ref_list_release(&adv->refs);
	wg_free(adv->shallows.oids);
	wg_free(adv->haves.oids);
	wg_free(adv);
}

static int oid_array_add(struct oid_array *a, const struct wg_oid *oid)
{
	if (a->nr == a->alloc) {
		size_t n = a->alloc ? a->alloc * 2 : 8;
		struct wg_oid *grown = wg_realloc(a->oids, n * sizeof(*grown));
		if (!grown)
			return wg_error_set(WG_ENOMEM, "out of memory storing object ids");
		a->oids = grown;
		a->alloc = n;
	}
	a->oids[a->nr++] = *oid;
	return 0;
}

static int add_ref(struct wg_remote_ref_list *list, char *name, const struct wg_oid *oid)
{
	struct wg_remote_ref r;
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.oid = *oid;
	return wg_remote_ref_list_add(list, &r);
}

static int corrupt_line(const char *what, const unsigned char *line, size_t len)
{
	char q[WG_PKT_QUOTE_MAX];
	return wg_error_set(WG_ECORRUPT, "protocol error: %s: '%s'", what,
			    wg_pkt_quote(q, sizeof(q), line, len, false));
}

/* Adopt the server's object format, if it is the one the caller expects. */
static int set_algo(struct wg_advertisement *adv)
{
	int err = wg_caps_hash_algo(adv->caps, &adv->algo);
	if (err)
		return err;
	if (adv->expected && adv->expected != adv->algo)
		return wg_error_set(WG_EUNSUPPORTED,
				    "the remote repository uses %s object ids but the local "
				    "repository uses %s; the two cannot exchange objects",
				    adv->algo->name, adv->expected->name);
	return 0;
}

/* "<oid> <name>": split and check the id; the name is left to the caller.
 * On an error *name is NULL and *name_len 0: the outputs are set on every
 * path, so no caller (and no optimizer) sees them unset. */
static int split_ref_line(struct wg_advertisement *adv, const unsigned char *line, size_t len,
			  struct wg_oid *oid, const char **name, size_t *name_len)
{
	const unsigned char *sp = memchr(line, ' ', len);
	int err;
	*name = NULL;
	*name_len = 0;
	if (!sp)
		return corrupt_line("expected '<object id> <ref name>' in the ref advertisement",
				    line, len);
	if ((err = wg_remote_oid_parse(oid, adv->algo, (const char *)line, (size_t)(sp - line))))
		return err;
	*name = (const char *)sp + 1;
	*name_len = len - (size_t)(sp + 1 - line);
	return 0;
}

static bool name_is(const char *name, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(name, s, len);
}

/* One "<oid> <name>" line of the ref list. */
static int take_ref(struct wg_advertisement *adv, const unsigned char *line, size_t len)
{
	static const char peel_suffix[] = "^{}";
	const size_t plen = sizeof(peel_suffix) - 1;
	const unsigned char *nul = memchr(line, '\0', len);
	struct wg_oid oid;
	const char *name;
	size_t name_len;
	char *copy;
	int err;
	/* Capabilities belong on the first line only; like git, ignore any
	 * that appear later. */
	if (nul)
		len = (size_t)(nul - line);
	if ((err = split_ref_line(adv, line, len, &oid, &name, &name_len)))
		return err;
	if (name_is(name, name_len, "capabilities^{}"))
		return corrupt_line("'capabilities^{}' after the first line", line, len);
	if (name_is(name, name_len, ".have"))
		return oid_array_add(&adv->haves, &oid);
	if (name_len > plen && !memcmp(name + name_len - plen, peel_suffix, plen)) {
		/* "ref^{}" must follow "ref" itself (gitprotocol-pack(5)). */
		struct wg_remote_ref *prev = adv->refs.nr ? &adv->refs.refs[adv->refs.nr - 1] : NULL;
		if (!prev || prev->has_peeled || strlen(prev->name) != name_len - plen ||
		    memcmp(prev->name, name, name_len - plen))
			return corrupt_line("a peeled ref that does not follow its tag", line, len);
		prev->peeled = oid;
		prev->has_peeled = true;
		return 0;
	}
	if ((err = wg_remote_refname_dup(&copy, name, name_len)))
		return err;
	return add_ref(&adv->refs, copy, &oid);
}

/* The first line after the header and version: "<oid> <name>\0<caps>",
 * or "<zero-id> capabilities^{}\0<caps>" for a repository without refs. */
static int take_first_ref(struct wg_advertisement *adv, const unsigned char *line, size_t len)
{
	const unsigned char *nul = memchr(line, '\0', len);
	struct wg_oid oid;
	const char *name;
	size_t name_len, caps_len = 0;
	const char *caps = "";
	int err;
	if (nul) {
		caps = (const char *)nul + 1;
		caps_len = len - (size_t)(nul + 1 - line);
		len = (size_t)(nul - line);
	}
	wg_caps_free(adv->caps);
	adv->caps = NULL;
	if ((err = wg_caps_parse_v1(&adv->caps, caps, caps_len)) || (err = set_algo(adv)))
		return err;
	if ((err = split_ref_line(adv, line, len, &oid, &name, &name_len)))
		return err;
	if (name_is(name, name_len, "capabilities^{}")) {
		if (!wg_oid_is_null(&oid))
			return corrupt_line("'capabilities^{}' with a non-zero object id", line, len);
		adv->state = ADV_SHALLOW;
		return 0;
	}
	adv->state = ADV_REFS;
	return take_ref(adv, line, len);
}

static int take_shallow(struct wg_advertisement *adv, const unsigned char *line, size_t len)
{
	struct wg_oid oid;
	int err;
	if (len < 8 || memcmp(line, "shallow ", 8))
		return corrupt_line("unexpected line in the ref advertisement", line, len);
	if ((err = wg_remote_oid_parse(&oid, adv->algo, (const char *)line + 8, len - 8)))
		return err;
	return oid_array_add(&adv->shallows, &oid);
}

/* Apply "symref=HEAD:refs/heads/main" capabilities to the listed refs. */
static int apply_symrefs(struct wg_advertisement *adv)
{
	const char *value;
	size_t i;
	for (i = 0; (value = wg_caps_get(adv->caps, "symref", i)); i++) {
		const char *colon = strchr(value, ':');
		char *from, *to;
		size_t k;
		int err;
		if (!colon)
			return corrupt_line("malformed symref capability", (const unsigned char *)value,
					    strlen(value));
		if ((err = wg_remote_refname_dup(&from, value, (size_t)(colon - value))))
			return err;
		if ((err = wg_remote_refname_dup(&to, colon + 1, strlen(colon + 1)))) {
			wg_free(from);
			return err;
		}
		for (k = 0; k < adv->refs.nr; k++) {
			struct wg_remote_ref *r = &adv->refs.refs[k];
			if (!r->symref_target && !strcmp(r->name, from)) {
				r->symref_target = to;
				to = NULL;
				break;
			}
		}
		wg_free(from);
		wg_free(to);
	}
	return 0;
}

static int finish_list(struct wg_advertisement *adv)
{
	int err;
	if (!adv->caps) {
		/* A bare flush: no refs and no capabilities at all. */
		if ((err = wg_caps_new(&adv->caps, 1)) || (err = set_algo(adv)))
			return err;
	}
	if ((err = apply_symrefs(adv)))
		return err;
	adv->state = ADV_DONE;
	return 0;
}

static int unexpected_special(const struct wg_pkt *pkt)
{
	return wg_error_set(WG_ECORRUPT, "protocol error: unexpected %s packet in the ref "
			    "advertisement", pkt->type == WG_PKT_DELIM ? "delim (0001)" :
			    pkt->type == WG_PKT_FLUSH ? "flush (0000)" : "response-end (0002)");
}

static int handle_pkt(struct wg_advertisement *adv, struct wg_pkt *pkt)
{
	const unsigned char *line;
	size_t len;
	int err;
	if (pkt->type == WG_PKT_DELIM || pkt->type == WG_PKT_RESPONSE_END)
		return unexpected_special(pkt);
	wg_pkt_chomp(pkt);
	line = pkt->data;
	len = pkt->len;

	switch (adv->state) {
	case ADV_START:
		if (pkt->type == WG_PKT_FLUSH)
			return wg_error_set(WG_ECORRUPT, "protocol error: invalid smart-HTTP response: "
					    "expected '# service=%s', got a flush packet", adv->service);
		if (len >= 10 && !memcmp(line, "# service=", 10)) {
			if (!name_is((const char *)line + 10, len - 10, adv->service))
				return corrupt_line("the smart-HTTP response is for another service",
						    line, len);
			adv->state = ADV_HEADER;
			return 0;
		}
		if (!wg_pkt_is(pkt, "version 2")) {
			char q[WG_PKT_QUOTE_MAX];
			return wg_error_set(WG_ECORRUPT, "protocol error: invalid smart-HTTP response: "
					    "expected '# service=%s', got '%s'", adv->service,
					    wg_pkt_quote(q, sizeof(q), line, len, false));
		}
		/* git http-backend sends v2 without the header. */
		/* fallthrough */
	case ADV_VERSION:
		if (pkt->type == WG_PKT_FLUSH)
			return finish_list(adv);
		if (wg_pkt_is(pkt, "version 2")) {
			adv->version = 2;
			adv->state = ADV_V2_CAPS;
			return wg_caps_new(&adv->caps, 2);
		}
		if (wg_pkt_is(pkt, "version 1")) {
			adv->version = 1;
			adv->state = ADV_FIRST_REF;
			return 0;
		}
		if (len >= 8 && !memcmp(line, "version ", 8))
			return corrupt_line("the server answered with an unsupported protocol version",
					    line, len);
		/* A v0 server starts with its refs. */
		/* fallthrough */
	case ADV_FIRST_REF:
		if (pkt->type == WG_PKT_FLUSH)
			return finish_list(adv);
		return take_first_ref(adv, line, len);
	case ADV_HEADER:
		/* Lines up to the flush are metadata git ignores; so do we. */
		if (pkt->type == WG_PKT_FLUSH)
			adv->state = ADV_VERSION;
		return 0;
	case ADV_REFS:
		if (pkt->type == WG_PKT_FLUSH)
			return finish_list(adv);
		if (len >= 8 && !memcmp(line, "shallow ", 8)) {
			adv->state = ADV_SHALLOW;
			return take_shallow(adv, line, len);
		}
		return take_ref(adv, line, len);
	case ADV_SHALLOW:
		if (pkt->type == WG_PKT_FLUSH)
			return finish_list(adv);
		return take_shallow(adv, line, len);
	case ADV_V2_CAPS:
		if (pkt->type == WG_PKT_FLUSH) {
			if ((err = set_algo(adv)))
				return err;
			adv->state = ADV_DONE;
			return 0;
		}
		return wg_caps_add_v2_line(adv->caps, line, len);
	case ADV_DONE:
		break;
	}
	return wg_error_set(WG_ECORRUPT, "protocol error: data after the end of the ref advertisement");
}

static int fail(struct wg_advertisement *adv, int err)
{
	if (err == WG_ENEEDMORE)
		return err;
	adv->failed = err;
	snprintf(adv->failure, sizeof(adv->failure), "%s", wg_error_message());
	return err;
}

/* Run bytes through the pkt-line reader and the state machine. */
static int feed_packets(struct wg_advertisement *adv, const unsigned char *in, size_t n)
{
	for (;;) {
		struct wg_pkt pkt;
		int err;
		if (adv->state == ADV_DONE) {
			if (n) {
				wg_error_set(WG_ECORRUPT, "protocol error: unexpected data after the final "
					     "flush packet of the ref advertisement");
				return fail(adv, WG_ECORRUPT);
			}
			return 0;
		}
		if (!n)
			return WG_ENEEDMORE;
		if ((err = wg_pkt_reader_read(adv->reader, &pkt, &in, &n)))
			return fail(adv, err);
		if (pkt.type == WG_PKT_DATA && ++adv->lines > adv->limits.max_refs &&
		    adv->limits.max_refs) {
			wg_error_set(WG_ELIMIT, "the ref advertisement has more than %u lines "
				     "(max_refs): refusing to read more of it",
				     (unsigned)adv->limits.max_refs);
			return fail(adv, WG_ELIMIT);
		}
		if ((err = handle_pkt(adv, &pkt)))
			return fail(adv, err);
	}
}

/* gitprotocol-http(5): a smart reply starts with 4 hex digits and '#'
 * (or "version 2", or an "ERR" packet). A data packet that starts with
 * anything else is most likely a dumb server's info/refs or not a
 * repository at all, which deserves a clearer word than a bad pkt-line
 * length or an object id that is not one. */
static int check_smart_head(struct wg_advertisement *adv)
{
	long len = 0;
	int i;
	for (i = 0; i < WG_PKT_HEADER_SIZE; i++) {
		int d = wg_hex_value(adv->head[i]);
		if (d < 0)
			return 0;  /* the pkt-line reader will say what is wrong */
		len = len << 4 | d;
	}
	if (len > WG_PKT_HEADER_SIZE && !strchr("#vE", adv->head[4] ? adv->head[4] : 'x')) {
		wg_error_set(WG_ECORRUPT, "protocol error: not a smart-HTTP %s response (a dumb HTTP "
			     "server, or not a git repository?)", adv->service);
		return fail(adv, WG_ECORRUPT);
	}
	return 0;
}

int wg_advertisement_feed(struct wg_advertisement *adv, const void *data, size_t len)
{
	const unsigned char *in = data;
	size_t n = len;
	int err;
	if (adv->failed)
		return wg_error_set(adv->failed, "%s", adv->failure);
	adv->offset += len;
	if (adv->limits.max_advertisement_bytes &&
	    adv->offset > adv->limits.max_advertisement_bytes) {
		wg_error_set(WG_ELIMIT, "the ref advertisement is larger than %llu bytes "
			     "(max_advertisement_bytes): refusing to read more of it",
			     (unsigned long long)adv->limits.max_advertisement_bytes);
		return fail(adv, WG_ELIMIT);
	}
	/* Hold the first bytes back until the smart-HTTP check can be made,
	 * so the verdict does not depend on how the body was chunked. */
	if (adv->service && adv->head_len < sizeof(adv->head)) {
		size_t take = sizeof(adv->head) - adv->head_len;
		if (take > n)
			take = n;
		memcpy(adv->head + adv->head_len, in, take);
		adv->head_len += take, in += take, n -= take;
		if (adv->head_len < sizeof(adv->head))
			return WG_ENEEDMORE;
		if ((err = check_smart_head(adv)))
			return err;
		err = feed_packets(adv, adv->head, adv->head_len);
		if (err != WG_ENEEDMORE && (err || !n))
			return err;
	}
	return feed_packets(adv, in, n);
}

int wg_advertisement_finish(struct wg_advertisement *adv)
{
	int err;
	if (adv->failed)
		return wg_error_set(adv->failed, "%s", adv->failure);
	if (adv->state == ADV_DONE)
		return 0;
	/* A body shorter than the smart-HTTP check: let the parser judge it. */
	if (adv->service && adv->head_len < sizeof(adv->head)) {
		size_t held = adv->head_len;
		adv->head_len = sizeof(adv->head);
		if ((err = feed_packets(adv, adv->head, held)) != WG_ENEEDMORE)
			return err;
	}
	if ((err = wg_pkt_reader_finish(adv->reader)))
		return fail(adv, err);
	wg_error_set(WG_ECORRUPT, "protocol error: the ref advertisement ended %s",
		     adv->offset ? "before its final flush packet" :
		     "before it began (empty response)");
	return fail(adv, WG_ECORRUPT);
}

int wg_advertisement_version(const struct wg_advertisement *adv) { return adv->version; }
const struct wg_caps *wg_advertisement_caps(const struct wg_advertisement *adv) { return adv->caps; }

const struct wg_hash_algo *wg_advertisement_hash_algo(const struct wg_advertisement *adv)
{
	return adv->algo;
}

const struct wg_remote_ref_list *wg_advertisement_refs(const struct wg_advertisement *adv)
{
	return &adv->refs;
}

const struct wg_oid *wg_advertisement_shallows(const struct wg_advertisement *adv, size_t *count)
{
	*count = adv->shallows.nr;
	return adv->shallows.oids;
}

const struct wg_oid *wg_advertisement_haves(const struct wg_advertisement *adv, size_t *count)
{
	*count = adv->haves.nr;
	return adv->haves.oids;
}
