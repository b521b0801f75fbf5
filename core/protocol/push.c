#include "protocol/push.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/advertisement.h"
#include "protocol/pktline.h"
#include "protocol/sideband.h"
#include "refs/refname.h"
#include "util/alloc.h"
#include "util/error.h"

#define TRY(expr) do { if ((err = (expr))) goto fail; } while (0)

#define NO_SLOT SIZE_MAX

/* --- request arguments ----------------------------------------------------------- */

static const char *agent_of(const struct wg_push_args *args)
{
	return args->agent ? args->agent : WG_PUSH_DEFAULT_AGENT;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The commands' ref names, sorted (free the array with wg_free). The
 * names must already be known to be non-NULL. */
static int sorted_names(const char ***out, const struct wg_push_command *cmds, size_t n)
{
	const char **names = wg_calloc(n, sizeof(*names));
	size_t i;
	*out = NULL;
	if (!names)
		return wg_error_set(WG_ENOMEM, "out of memory sorting %zu push commands", n);
	for (i = 0; i < n; i++)
		names[i] = cmds[i].refname;
	qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	return 0;
}

static int check_id(const struct wg_oid *oid, const char *which, const char *refname,
		    const struct wg_hash_algo *algo)
{
	const struct wg_hash_algo *a = wg_oid_algo(oid);
	char q[WG_PKT_QUOTE_MAX];
	if (a && a->id == algo->id)
		return 0;
	return wg_error_set(WG_EINVALID, "push: the %s id for '%s' is a %s id but the repository "
			    "uses %s", which, wg_pkt_quote(q, sizeof(q), refname, strlen(refname), true),
			    a ? a->name : "unknown", algo->name);
}

static int check_command(const struct wg_push_command *c, size_t i,
			 const struct wg_hash_algo *algo)
{
	char q[WG_PKT_QUOTE_MAX];
	int err;
	if (!c->refname)
		return wg_error_set(WG_EINVALID, "push: command %zu has no ref name", i);
	wg_pkt_quote(q, sizeof(q), c->refname, strlen(c->refname), true);
	/* receive-pack refuses anything outside refs/ ("funny refname"). */
	if (strncmp(c->refname, "refs/", 5) || !wg_refname_is_valid(c->refname, 0))
		return wg_error_set(WG_EINVALID, "push: '%s' is not a valid ref name to push to "
				    "(a full name under refs/ is needed)", q);
	if ((err = check_id(&c->old_oid, "old", c->refname, algo)) ||
	    (err = check_id(&c->new_oid, "new", c->refname, algo)))
		return err;
	if (wg_oid_is_null(&c->old_oid) && wg_oid_is_null(&c->new_oid))
		return wg_error_set(WG_EINVALID, "push: both ids for '%s' are null (neither a "
				    "create nor a delete)", q);
	return 0;
}

static int check_push_option(const char *opt, size_t i)
{
	const unsigned char *p;
	if (!opt)
		return wg_error_set(WG_EINVALID, "push: push option %zu is NULL", i);
	if (!*opt)
		return wg_error_set(WG_EINVALID, "push: push option %zu is empty", i);
	for (p = (const unsigned char *)opt; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return wg_error_set(WG_EINVALID, "push: push option %zu contains a control "
					    "character (a newline cannot be sent)", i);
	return 0;
}

/* What a request sends, given the server's capabilities. */
struct push_plan {
	int report;          /* 0 none, 1 report-status, 2 report-status-v2 */
	bool sideband, quiet, object_format, agent;
};

static int need_cap(const struct wg_caps *server, const char *cap, const char *what)
{
	if (wg_caps_has(server, cap))
		return 0;
	return wg_error_set(WG_EUNSUPPORTED, "the receiving end does not support %s (no '%s' "
			    "capability)", what, cap);
}

/* Everything the request and the response parser check. */
static int plan_push(struct push_plan *plan, const struct wg_caps *server,
		     const struct wg_push_args *args)
{
	const struct wg_hash_algo *theirs;
	const char *p;
	const char **names = NULL;
	size_t i;
	bool deletes = false;
	int err;
	memset(plan, 0, sizeof(*plan));
	if (!args || !args->algo)
		return wg_error_set(WG_EINVALID, "push: the object format must be known");
	if (!server)
		return wg_error_set(WG_EINVALID, "push: the server's capabilities are needed");
	if (wg_caps_version(server) == 2)
		return wg_error_set(WG_EINVALID, "push: receive-pack speaks protocol v0/v1 only; "
				    "a v2 capability advertisement cannot be used");
	if (!args->ncommands)
		return wg_error_set(WG_EINVALID, "push: a request needs at least one command");
	if (!args->commands)
		return wg_error_set(WG_EINVALID, "push: %zu commands but no array", args->ncommands);
	for (i = 0; i < args->ncommands; i++) {
		if ((err = check_command(&args->commands[i], i, args->algo)))
			return err;
		if (wg_oid_is_null(&args->commands[i].new_oid))
			deletes = true;
	}
	if ((err = sorted_names(&names, args->commands, args->ncommands)))
		return err;
	for (i = 1; i < args->ncommands; i++) {
		if (!strcmp(names[i - 1], names[i])) {
			char q[WG_PKT_QUOTE_MAX];
			wg_pkt_quote(q, sizeof(q), names[i], strlen(names[i]), true);
			wg_free(names);
			return wg_error_set(WG_EINVALID, "push: '%s' is updated more than once", q);
		}
	}
	wg_free(names);
	/* gitprotocol-capabilities(5): printable ASCII except space. */
	if (!*agent_of(args))
		return wg_error_set(WG_EINVALID, "push: the agent string is empty");
	for (p = agent_of(args); *p; p++)
		if ((unsigned char)*p <= 32 || (unsigned char)*p >= 127)
			return wg_error_set(WG_EINVALID, "push: the agent string may hold only "
					    "printable ASCII without spaces");
	if (args->npush_options && !args->push_options)
		return wg_error_set(WG_EINVALID, "push: %zu push options but no array",
				    args->npush_options);
	for (i = 0; i < args->npush_options; i++)
		if ((err = check_push_option(args->push_options[i], i)))
			return err;

	if ((err = wg_caps_hash_algo(server, &theirs)))
		return err;
	if (theirs->id != args->algo->id)
		return wg_error_set(WG_EUNSUPPORTED, "the remote repository uses %s object ids but "
				    "this repository uses %s", theirs->name, args->algo->name);
	if (deletes && !wg_caps_has(server, "delete-refs")) {
		for (i = 0; i < args->ncommands; i++)
			if (wg_oid_is_null(&args->commands[i].new_oid))
				break;
		return wg_error_set(WG_EUNSUPPORTED, "the receiving end does not support deleting "
				    "refs (no 'delete-refs' capability): cannot delete '%s'",
				    args->commands[i].refname);
	}
	if (args->atomic && (err = need_cap(server, "atomic", "atomic pushes")))
		return err;
	if (args->npush_options && (err = need_cap(server, "push-options", "push options")))
		return err;

	if (wg_caps_has(server, "report-status-v2"))
		plan->report = 2;
	else if (wg_caps_has(server, "report-status"))
		plan->report = 1;
	plan->sideband = wg_caps_has(server, "side-band-64k");
	plan->quiet = args->quiet && wg_caps_has(server, "quiet");
	plan->object_format = wg_caps_has(server, "object-format");
	plan->agent = wg_caps_has(server, "agent");
	return 0;
}

bool wg_push_needs_pack(const struct wg_push_args *args)
{
	size_t i;
	if (!args || !args->commands)
		return false;
	for (i = 0; i < args->ncommands; i++)
		if (!wg_oid_is_null(&args->commands[i].new_oid))
			return true;
	return false;
}

int wg_push_request(struct wg_buf *out, const struct wg_caps *server,
		    const struct wg_push_args *args)
{
	struct wg_buf caps = WG_BUF_INIT;
	char old_hex[WG_MAX_HEXSZ + 1], new_hex[WG_MAX_HEXSZ + 1];
	struct push_plan plan;
	size_t start = out->len, i;
	int err;
	TRY(plan_push(&plan, server, args));
	/* Built from an empty buffer so the list starts without a space. */
	if (plan.report)
		TRY(wg_buf_adds(&caps, plan.report == 2 ? " report-status-v2" : " report-status"));
	if (plan.sideband)
		TRY(wg_buf_adds(&caps, " side-band-64k"));
	if (plan.quiet)
		TRY(wg_buf_adds(&caps, " quiet"));
	if (args->atomic)
		TRY(wg_buf_adds(&caps, " atomic"));
	if (args->npush_options)
		TRY(wg_buf_adds(&caps, " push-options"));
	if (plan.object_format)
		TRY(wg_buf_printf(&caps, " object-format=%s", args->algo->name));
	if (plan.agent)
		TRY(wg_buf_printf(&caps, " agent=%s", agent_of(args)));

	for (i = 0; i < args->ncommands; i++) {
		const struct wg_push_command *c = &args->commands[i];
		wg_oid_to_hex(&c->old_oid, old_hex);
		wg_oid_to_hex(&c->new_oid, new_hex);
		if (i == 0)
			TRY(wg_pkt_printf(out, "%s %s %s%c%s\n", old_hex, new_hex, c->refname, 0,
					  caps.len ? wg_buf_cstr(&caps) + 1 : ""));
		else
			TRY(wg_pkt_printf(out, "%s %s %s\n", old_hex, new_hex, c->refname));
	}
	TRY(wg_pkt_write_flush(out));
	if (args->npush_options) {
		for (i = 0; i < args->npush_options; i++)
			TRY(wg_pkt_printf(out, "%s\n", args->push_options[i]));
		TRY(wg_pkt_write_flush(out));
	}
	wg_buf_release(&caps);
	return 0;
fail:
	wg_buf_setlen(out, start);
	wg_buf_release(&caps);
	if (err == WG_EINVALID)
		wg_error_prefix("push: a command or push option is too long to send");
	return err;
}

/* --- the response ------------------------------------------------------------------ */

enum report_state {
	R_UNPACK,   /* the "unpack" line comes next */
	R_STATUS,   /* ok / ng / option lines, or the report's flush */
	R_DONE,     /* the report is complete (or none is expected) */
};

/* Bits of the option lines seen in the current report. */
enum {
	OPT_REFNAME = 1,
	OPT_OLD = 2,
	OPT_NEW = 4,
	OPT_FORCED = 8,
};

struct wg_push_response {
	const struct wg_hash_algo *algo;
	int report_version;          /* 0, 1 or 2 */
	bool sideband;
	/* The pushed ref names, sorted, and each one's entry in report.refs. */
	char **names;
	size_t *slot;
	size_t ncmds;
	struct wg_push_report report;
	/* The report parser. */
	enum report_state rstate;
	size_t cur;                  /* the entry the next option lines belong to,
				      * or NO_SLOT (none yet, or an "ng") */
	size_t cur_more;             /* NO_SLOT: the entry itself; else its more[] */
	unsigned cur_opts;           /* OPT_* seen in the current report */
	/* Readers: the response itself (without side-band), or the side-band
	 * stream and the report inside band 1. */
	struct wg_pkt_reader *reader;
	struct wg_sideband_reader *sb;
	struct wg_progress_parser *progress;
	wg_push_progress_fn progress_fn;
	void *progress_payload;
	bool ended;                  /* the whole response has been read */
	int failed;
	char failure[1024];
};

static void status_release(struct wg_push_ref_status *s)
{
	size_t i;
	wg_free(s->refname);
	wg_free(s->reason);
	wg_free(s->new_refname);
	for (i = 0; i < s->nmore; i++)
		status_release(&s->more[i]);
	wg_free(s->more);
}

void wg_push_response_free(struct wg_push_response *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->report.nrefs; i++)
		status_release(&r->report.refs[i]);
	wg_free(r->report.refs);
	wg_free(r->report.unpack_error);
	if (r->names)
		for (i = 0; i < r->ncmds; i++)
			wg_free(r->names[i]);
	wg_free(r->names);
	wg_free(r->slot);
	wg_pkt_reader_free(r->reader);
	wg_sideband_reader_free(r->sb);
	wg_progress_parser_free(r->progress);
	wg_free(r);
}

int wg_push_response_new_for(struct wg_push_response **out, const struct wg_caps *server,
			     const struct wg_push_args *args)
{
	struct wg_push_response *r;
	struct push_plan plan;
	const char **sorted = NULL;
	size_t i;
	int err;
	*out = NULL;
	if ((err = plan_push(&plan, server, args)))
		return err;
	if (!(r = wg_calloc(1, sizeof(*r))))
		return wg_error_set(WG_ENOMEM, "out of memory allocating a push response parser");
	r->algo = args->algo;
	r->report_version = plan.report;
	r->sideband = plan.sideband;
	r->ncmds = args->ncommands;
	r->rstate = plan.report ? R_UNPACK : R_DONE;
	r->cur = r->cur_more = NO_SLOT;
	r->report.reported = plan.report != 0;
	r->report.unpack_ok = plan.report == 0;
	/* Without side-band and report the server sends nothing at all. */
	r->ended = !plan.report && !plan.sideband;
	if (!(r->names = wg_calloc(r->ncmds, sizeof(*r->names))) ||
	    !(r->slot = wg_calloc(r->ncmds, sizeof(*r->slot))) ||
	    !(r->report.refs = wg_calloc(r->ncmds, sizeof(*r->report.refs)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory allocating a push report for %zu refs",
				   r->ncmds);
		goto fail;
	}
	TRY(sorted_names(&sorted, args->commands, args->ncommands));
	for (i = 0; i < r->ncmds; i++) {
		r->slot[i] = NO_SLOT;
		if (!(r->names[i] = wg_strdup(sorted[i]))) {
			err = wg_error_set(WG_ENOMEM, "out of memory copying a ref name");
			goto fail;
		}
	}
	wg_free(sorted);
	sorted = NULL;
	if (plan.sideband)
		TRY(wg_sideband_reader_new(&r->sb, WG_SIDEBAND_64K));
	/* The report itself, or inside band 1 (where an ERR packet is the
	 * server's error too, as git's reader treats it). */
	TRY(wg_pkt_reader_new(&r->reader, WG_PKT_READ_ERR_PACKETS));
	TRY(wg_progress_parser_new(&r->progress));
	*out = r;
	return 0;
fail:
	wg_free(sorted);
	wg_push_response_free(r);
	return err;
}

void wg_push_response_on_progress(struct wg_push_response *r, wg_push_progress_fn fn,
				  void *payload)
{
	r->progress_fn = fn;
	r->progress_payload = payload;
}

const struct wg_push_report *wg_push_response_report(const struct wg_push_response *r)
{
	return &r->report;
}

bool wg_push_response_done(const struct wg_push_response *r)
{
	return r->ended && !r->failed;
}

const struct wg_push_ref_status *wg_push_report_find(const struct wg_push_report *report,
						     const char *refname)
{
	size_t i;
	for (i = 0; i < report->nrefs; i++)
		if (!strcmp(report->refs[i].refname, refname))
			return &report->refs[i];
	return NULL;
}

static int fail(struct wg_push_response *r, int err)
{
	r->failed = err;
	snprintf(r->failure, sizeof(r->failure), "%s", wg_error_message());
	return err;
}

static bool starts(const unsigned char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && !memcmp(line, prefix, n);
}

/* A copy of remote text for display: control bytes other than TAB (NUL
 * included) become '?'. */
static char *dup_text(const unsigned char *s, size_t len)
{
	char *t = wg_malloc(len + 1);
	size_t i;
	if (!t)
		return NULL;
	for (i = 0; i < len; i++)
		t[i] = (s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f ? '?' : (char)s[i];
	t[len] = '\0';
	return t;
}

/* The index (into names/slot) of a pushed ref, or NO_SLOT. */
static size_t find_cmd(const struct wg_push_response *r, const unsigned char *name, size_t len)
{
	size_t lo = 0, hi = r->ncmds;
	if (memchr(name, '\0', len))
		return NO_SLOT;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = r->names[mid];
		size_t mlen = strlen(m);
		int c = memcmp(m, name, mlen < len ? mlen : len);
		if (!c)
			c = mlen < len ? -1 : mlen > len ? 1 : 0;
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NO_SLOT;
}

static struct wg_push_ref_status *current(struct wg_push_response *r)
{
	struct wg_push_ref_status *s = &r->report.refs[r->cur];
	return r->cur_more == NO_SLOT ? s : &s->more[r->cur_more];
}

static int unpack_line(struct wg_push_response *r, const unsigned char *line, size_t len)
{
	if (!starts(line, len, "unpack ") || len == 7)
		return wg_pkt_unexpected("expected 'unpack ok' or 'unpack <error>' to start the report",
				line, len);
	if (len == 9 && !memcmp(line + 7, "ok", 2)) {
		r->report.unpack_ok = true;
	} else {
		r->report.unpack_ok = false;
		if (!(r->report.unpack_error = dup_text(line + 7, len - 7)))
			return wg_error_set(WG_ENOMEM, "out of memory copying the unpack status");
	}
	r->rstate = R_STATUS;
	return 0;
}

/* "ok <ref>" or "ng <ref>[ <reason>]". */
static int status_line(struct wg_push_response *r, const unsigned char *line, size_t len,
		       bool ok)
{
	const unsigned char *name = line + 3, *sp;
	size_t name_len, k;
	struct wg_push_ref_status *s;
	char q[WG_PKT_QUOTE_MAX];
	sp = memchr(name, ' ', len - 3);
	name_len = sp ? (size_t)(sp - name) : len - 3;
	if (ok && sp)
		return wg_pkt_unexpected("expected 'ok <refname>'", line, len);
	if (!name_len)
		return wg_pkt_unexpected(ok ? "expected 'ok <refname>'" : "expected 'ng <refname> <reason>'",
				line, len);
	k = find_cmd(r, name, name_len);
	if (k == NO_SLOT)
		return wg_error_set(WG_ECORRUPT, "protocol error: the server reported a status for "
				    "'%s', which was not pushed",
				    wg_pkt_quote(q, sizeof(q), name, name_len, false));
	if (r->slot[k] != NO_SLOT) {
		/* report-status-v2: a proc-receive hook's further report for
		 * the same command repeats its "ok" right after the options
		 * of the previous one. */
		s = &r->report.refs[r->slot[k]];
		if (!ok || r->report_version != 2 || r->cur != r->slot[k] || !r->cur_opts)
			return wg_error_set(WG_ECORRUPT, "protocol error: the server reported a second "
					    "status for '%s'", r->names[k]);
		if (s->nmore >= WG_PUSH_MAX_EXTRA_REPORTS)
			return wg_error_set(WG_ECORRUPT, "protocol error: the server sent more than %d "
					    "reports for '%s'", WG_PUSH_MAX_EXTRA_REPORTS, r->names[k]);
		{
			struct wg_push_ref_status *more =
				wg_realloc(s->more, (s->nmore + 1) * sizeof(*more));
			if (!more)
				return wg_error_set(WG_ENOMEM, "out of memory recording a push status");
			s->more = more;
			memset(&more[s->nmore], 0, sizeof(*more));
			if (!(more[s->nmore].refname = wg_strdup(r->names[k])))
				return wg_error_set(WG_ENOMEM, "out of memory recording a push status");
			more[s->nmore].ok = true;
			r->cur_more = s->nmore++;
			r->cur_opts = 0;
		}
		return 0;
	}
	/* One entry per command at most: nrefs < ncmds here. */
	s = &r->report.refs[r->report.nrefs];
	memset(s, 0, sizeof(*s));
	if (!(s->refname = wg_strdup(r->names[k])))
		return wg_error_set(WG_ENOMEM, "out of memory recording a push status");
	s->ok = ok;
	if (!ok) {
		/* git shows "failed" when the server gives no reason. */
		if (sp && (size_t)(line + len - (sp + 1)) > 0)
			s->reason = dup_text(sp + 1, (size_t)(line + len - (sp + 1)));
		else
			s->reason = wg_strdup("failed");
		if (!s->reason) {
			wg_free(s->refname);
			s->refname = NULL;
			return wg_error_set(WG_ENOMEM, "out of memory recording a push status");
		}
	}
	r->slot[k] = r->report.nrefs++;
	r->cur = ok ? r->slot[k] : NO_SLOT;
	r->cur_more = NO_SLOT;
	r->cur_opts = 0;
	return 0;
}

/* "option <key>[ <value>]" (report-status-v2). */
static int option_line(struct wg_push_response *r, const unsigned char *line, size_t len)
{
	const unsigned char *key = line + 7, *sp, *val;
	size_t key_len, val_len;
	struct wg_push_ref_status *s;
	unsigned bit;
	int err;
	if (r->report_version != 2)
		return wg_pkt_unexpected("an option line in a report-status (v1) report", line, len);
	if (r->cur == NO_SLOT)
		return wg_pkt_unexpected("an option line without an 'ok <refname>' before it", line, len);
	sp = memchr(key, ' ', len - 7);
	key_len = sp ? (size_t)(sp - key) : len - 7;
	val = sp ? sp + 1 : line + len;
	val_len = (size_t)(line + len - val);
	if (key_len == 7 && !memcmp(key, "refname", 7))
		bit = OPT_REFNAME;
	else if (key_len == 7 && !memcmp(key, "old-oid", 7))
		bit = OPT_OLD;
	else if (key_len == 7 && !memcmp(key, "new-oid", 7))
		bit = OPT_NEW;
	else if (key_len == 13 && !memcmp(key, "forced-update", 13))
		bit = OPT_FORCED;
	else
		return 0; /* unknown options are ignored, as git does */
	if (r->cur_opts & bit)
		return wg_pkt_unexpected("a repeated option line for the same ref", line, len);
	if ((bit == OPT_FORCED) != !sp)
		return wg_pkt_unexpected(bit == OPT_FORCED ? "expected 'option forced-update'" :
				"expected 'option <key> <value>'", line, len);
	s = current(r);
	switch (bit) {
	case OPT_REFNAME:
		if ((err = wg_remote_refname_dup(&s->new_refname, (const char *)val, val_len)))
			return wg_error_prefix("bad 'option refname' line");
		break;
	case OPT_OLD:
		if ((err = wg_remote_oid_parse(&s->old_oid, r->algo, (const char *)val, val_len)))
			return wg_error_prefix("bad 'option old-oid' line");
		s->has_old = true;
		break;
	case OPT_NEW:
		if ((err = wg_remote_oid_parse(&s->new_oid, r->algo, (const char *)val, val_len)))
			return wg_error_prefix("bad 'option new-oid' line");
		s->has_new = true;
		break;
	default:
		s->forced_update = true;
		break;
	}
	r->cur_opts |= bit;
	return 0;
}

/* One packet of the report (the response itself, or inside band 1). */
static int report_pkt(struct wg_push_response *r, const struct wg_pkt *pkt)
{
	const unsigned char *line = pkt->data;
	size_t len = pkt->len, i;
	if (r->rstate == R_DONE)
		return wg_error_set(WG_ECORRUPT, r->report_version ?
				    "protocol error: unexpected data after the end of the push report" :
				    "protocol error: the server sent a report that was not asked for");
	if (pkt->type == WG_PKT_FLUSH) {
		if (r->rstate == R_UNPACK)
			return wg_error_set(WG_ECORRUPT, "protocol error: the push report is empty "
					    "(a flush before its 'unpack' line)");
		for (i = 0; i < r->ncmds; i++)
			if (r->slot[i] == NO_SLOT)
				return wg_error_set(WG_ECORRUPT, "protocol error: the push report has no "
						    "status for '%s'", r->names[i]);
		r->rstate = R_DONE;
		return 0;
	}
	if (pkt->type != WG_PKT_DATA)
		return wg_error_set(WG_ECORRUPT, "protocol error: unexpected %s in the push report",
				    pkt->type == WG_PKT_DELIM ? "delim packet (0001)" :
				    "response-end packet (0002)");
	if (len && line[len - 1] == '\n')
		len--;
	if (r->rstate == R_UNPACK)
		return unpack_line(r, line, len);
	if (starts(line, len, "ok "))
		return status_line(r, line, len, true);
	if (starts(line, len, "ng "))
		return status_line(r, line, len, false);
	if (starts(line, len, "option "))
		return option_line(r, line, len);
	return wg_pkt_unexpected(r->report_version == 2 ?
			"expected 'ok <refname>', 'ng <refname> <reason>', 'option ...' or a "
			"flush in the push report" :
			"expected 'ok <refname>', 'ng <refname> <reason>' or a flush in the push "
			"report", line, len);
}

/* Hand progress events to the callback. */
static int emit_progress(struct wg_push_response *r, const struct wg_progress_event *ev)
{
	int err;
	if (!r->progress_fn)
		return 0;
	if ((err = r->progress_fn(ev, r->progress_payload)) > 0)
		err = WG_ERROR;
	if (err && wg_error_code() != err)
		wg_error_set(err, "push: the progress callback stopped the response (%s)",
			     wg_error_name(err));
	return err;
}

static int progress_bytes(struct wg_push_response *r, const unsigned char *p, size_t n)
{
	struct wg_progress_event ev;
	int err;
	for (;;) {
		err = wg_progress_parser_next(r->progress, &ev, &p, &n);
		if (err == WG_ENEEDMORE)
			return 0;
		if (err)
			return err;
		if ((err = emit_progress(r, &ev)))
			return err;
	}
}

static int progress_finish(struct wg_push_response *r)
{
	struct wg_progress_event ev;
	int err = wg_progress_parser_finish(r->progress, &ev);
	if (err == WG_ITEROVER)
		return 0;
	if (err)
		return err;
	return emit_progress(r, &ev);
}

/* Band-1 bytes: the report's pkt-lines, split anywhere. */
static int report_bytes(struct wg_push_response *r, const unsigned char *p, size_t n)
{
	int err;
	while (n) {
		struct wg_pkt pkt;
		if (r->rstate == R_DONE)
			return wg_error_set(WG_ECORRUPT, r->report_version ?
					    "protocol error: unexpected data after the end of the push "
					    "report" : "protocol error: the server sent a report that "
					    "was not asked for");
		err = wg_pkt_reader_read(r->reader, &pkt, &p, &n);
		if (err == WG_ENEEDMORE)
			return 0;
		if (err)
			return err;
		if ((err = report_pkt(r, &pkt)))
			return err;
	}
	return 0;
}

static int feed_sideband(struct wg_push_response *r, const unsigned char **in, size_t *len)
{
	struct wg_sideband_msg m;
	int err = wg_sideband_reader_read(r->sb, &m, in, len);
	if (err)
		return err;
	switch (m.kind) {
	case WG_SIDEBAND_DATA:
		return report_bytes(r, m.data, m.len);
	case WG_SIDEBAND_PROGRESS:
		return progress_bytes(r, m.data, m.len);
	case WG_SIDEBAND_FLUSH:
		if (r->rstate != R_DONE || wg_pkt_reader_pending(r->reader))
			return wg_error_set(WG_ECORRUPT, "protocol error: the side-band stream ended "
					    "before the push report was complete");
		r->ended = true;
		return progress_finish(r);
	case WG_SIDEBAND_DELIM:
	case WG_SIDEBAND_RESPONSE_END:
		break;
	}
	return wg_error_set(WG_ECORRUPT, "protocol error: unexpected %s in the push response",
			    m.kind == WG_SIDEBAND_DELIM ? "delim packet (0001)" :
			    "response-end packet (0002)");
}

int wg_push_response_feed(struct wg_push_response *r, const void *data, size_t len)
{
	const unsigned char *p = data;
	int err;
	if (r->failed)
		return wg_error_set(r->failed, "%s", r->failure);
	while (len) {
		if (r->ended) {
			wg_error_set(WG_ECORRUPT, "protocol error: unexpected data after the end of the "
				     "push response");
			return fail(r, WG_ECORRUPT);
		}
		if (r->sideband) {
			err = feed_sideband(r, &p, &len);
		} else {
			struct wg_pkt pkt;
			err = wg_pkt_reader_read(r->reader, &pkt, &p, &len);
			if (!err) {
				err = report_pkt(r, &pkt);
				if (!err && r->rstate == R_DONE)
					r->ended = true;
			}
		}
		if (err == WG_ENEEDMORE)
			break;
		if (err)
			return fail(r, err);
	}
	return 0;
}

int wg_push_response_finish(struct wg_push_response *r)
{
	int err;
	if (r->failed)
		return wg_error_set(r->failed, "%s", r->failure);
	if (r->ended)
		return 0;
	if (r->sideband && (err = progress_finish(r)))
		return fail(r, err);
	if (r->sideband && wg_sideband_reader_finish(r->sb)) {
		wg_error_set(WG_ECORRUPT, "the server closed the response early (in the middle of "
			     "a pkt-line)");
	} else if (r->rstate == R_UNPACK) {
		wg_error_set(WG_ECORRUPT, "the server closed the response early (before the push "
			     "report)");
	} else if (r->rstate == R_STATUS) {
		wg_error_set(WG_ECORRUPT, "the server closed the response early (after %zu of %zu "
			     "ref statuses%s)", r->report.nrefs, r->ncmds,
			     wg_pkt_reader_pending(r->reader) ? ", in the middle of a pkt-line" : "");
	} else {
		wg_error_set(WG_ECORRUPT, "the server closed the response early (without the flush "
			     "that ends the side-band stream)");
	}
	return fail(r, WG_ECORRUPT);
}
