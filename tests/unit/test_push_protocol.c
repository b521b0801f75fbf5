/* Unit tests for core/protocol/push: the receive-pack request
 * (byte-exact, with the capabilities chosen by what the server
 * advertised, and the refusals) and the report-status / report-status-v2
 * response parser, with and without side-band-64k, fed whole, byte by
 * byte and split at every offset, which must give the same report and the
 * same progress every time. The adversarial cases are what a hostile or
 * broken server could send. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "protocol/capabilities.h"
#include "protocol/pktline.h"
#include "protocol/push.h"
#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"







/* Expected request bytes, framed independently of wg_pkt_write. `len`
 * counts the payload (it may hold a NUL). */
static void want_raw(struct wg_buf *b, const char *s, size_t len)
{
	wg_buf_printf(b, "%04zx", len + 4);
	wg_buf_add(b, s, len);
}

static void want_pkt(struct wg_buf *b, const char *fmt, ...)
{
	char s[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	want_raw(b, s, strlen(s));
}

/* The first command line: "<old> <new> <ref>\0<caps>\n". */
static void want_first(struct wg_buf *b, const char *old_hex, const char *new_hex,
		       const char *ref, const char *caps)
{
	char s[1024];
	int n = snprintf(s, sizeof(s), "%s %s %s%c%s\n", old_hex, new_hex, ref, 0, caps);
	want_raw(b, s, (size_t)n);
}

static struct wg_caps *caps_of(const char *list)
{
	struct wg_caps *caps;
	CHECK_OK(wg_caps_parse_v1(&caps, list, strlen(list)));
	return caps;
}

static bool same_bytes(const struct wg_buf *a, const struct wg_buf *b)
{
	bool same = a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
	if (!same) {
		char qa[600], qb[600];
		fprintf(stderr, "  got:  %s\n  want: %s\n",
			wg_pkt_quote(qa, sizeof(qa), a->data, a->len, false),
			wg_pkt_quote(qb, sizeof(qb), b->data, b->len, false));
	}
	return same;
}

/* What git 2.53's receive-pack advertises (push options off, the
 * default), and that with receive.advertisePushOptions. */
#define GIT_CAPS "report-status report-status-v2 delete-refs side-band-64k quiet atomic " \
	"ofs-delta object-format=sha1 agent=git/2.53.0"
#define GIT_CAPS_OPTS "report-status report-status-v2 delete-refs side-band-64k quiet " \
	"atomic push-options ofs-delta object-format=sha1 agent=git/2.53.0"

/* The commands of most tests: an update, a create, a delete, and a
 * create of a proc-receive pseudo-ref (in that order; the first n). */
#define NCMDS 4
static struct wg_push_command cmds[NCMDS];

static void setup_cmds(const struct wg_hash_algo *h)
{
	cmds[0].old_oid = fx_oid_of(h, 'b');
	cmds[0].new_oid = fx_oid_of(h, 'c');
	cmds[0].refname = "refs/heads/main";
	wg_oid_null(&cmds[1].old_oid, h);
	cmds[1].new_oid = fx_oid_of(h, 'a');
	cmds[1].refname = "refs/heads/topic";
	cmds[2].old_oid = fx_oid_of(h, 'd');
	wg_oid_null(&cmds[2].new_oid, h);
	cmds[2].refname = "refs/heads/old";
	wg_oid_null(&cmds[3].old_oid, h);
	cmds[3].new_oid = fx_oid_of(h, 'e');
	cmds[3].refname = "refs/for/main";
}

static struct wg_push_args args_for(const struct wg_hash_algo *h, size_t n)
{
	struct wg_push_args args = WG_PUSH_ARGS_INIT;
	setup_cmds(h);
	args.algo = h;
	args.commands = cmds;
	args.ncommands = n;
	return args;
}

/* --- requests ---------------------------------------------------------------------- */

static void test_request_git_server(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_push_args args = args_for(h, 3);
	struct wg_buf out = WG_BUF_INIT, want = WG_BUF_INIT;
	struct wg_caps *caps = caps_of(GIT_CAPS);

	/* Update, create, delete: as git 2.53's send-pack asks, with our
	 * agent, and a LF after each command. */
	CHECK_OK(wg_push_request(&out, caps, &args));
	want_first(&want, fx_hexid(h, 'b'), fx_hexid(h, 'c'), "refs/heads/main",
		   "report-status-v2 side-band-64k object-format=sha1 agent=webgit/0.1");
	want_pkt(&want, "%s %s refs/heads/topic\n", fx_hexid(h, '0'), fx_hexid(h, 'a'));
	want_pkt(&want, "%s %s refs/heads/old\n", fx_hexid(h, 'd'), fx_hexid(h, '0'));
	wg_buf_adds(&want, "0000");
	CHECK(same_bytes(&out, &want));
	CHECK(wg_push_needs_pack(&args));

	/* quiet and atomic, a chosen agent; appended after what the buffer
	 * held. */
	wg_buf_reset(&out);
	wg_buf_reset(&want);
	wg_buf_adds(&out, "xyz");
	wg_buf_adds(&want, "xyz");
	args.quiet = true;
	args.atomic = true;
	args.agent = "ide/2.0";
	args.ncommands = 1;
	CHECK_OK(wg_push_request(&out, caps, &args));
	want_first(&want, fx_hexid(h, 'b'), fx_hexid(h, 'c'), "refs/heads/main",
		   "report-status-v2 side-band-64k quiet atomic object-format=sha1 agent=ide/2.0");
	wg_buf_adds(&want, "0000");
	CHECK(same_bytes(&out, &want));
	wg_caps_free(caps);

	/* Push options: after the commands' flush, one per line, and a
	 * flush. */
	{
		static const char *const opts[] = { "ci.skip", "merge_request.title=Fix the ü bug" };
		caps = caps_of(GIT_CAPS_OPTS);
		wg_buf_reset(&out);
		wg_buf_reset(&want);
		args = args_for(h, 2);
		args.push_options = opts;
		args.npush_options = 2;
		args.atomic = true;
		CHECK_OK(wg_push_request(&out, caps, &args));
		want_first(&want, fx_hexid(h, 'b'), fx_hexid(h, 'c'), "refs/heads/main",
			   "report-status-v2 side-band-64k atomic push-options object-format=sha1 "
			   "agent=webgit/0.1");
		want_pkt(&want, "%s %s refs/heads/topic\n", fx_hexid(h, '0'), fx_hexid(h, 'a'));
		wg_buf_adds(&want, "0000");
		want_pkt(&want, "ci.skip\n");
		want_pkt(&want, "merge_request.title=Fix the ü bug\n");
		wg_buf_adds(&want, "0000");
		CHECK(same_bytes(&out, &want));
		wg_caps_free(caps);
	}
	wg_buf_release(&out);
	wg_buf_release(&want);
}

static void test_request_caps_chosen(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_push_args args = args_for(h, 1);
	struct wg_buf out = WG_BUF_INIT, want = WG_BUF_INIT;
	static const struct {
		const char *server, *sent;
		bool quiet;
	} cases[] = {
		/* Only report-status: no v2, no side-band, no agent, and no
		 * object-format (sha1 implied). */
		{ "report-status delete-refs ofs-delta", "report-status", true },
		{ "report-status-v2 quiet", "report-status-v2 quiet", true },
		{ "report-status-v2 quiet", "report-status-v2", false },
		{ "report-status side-band-64k quiet agent=x", "report-status side-band-64k agent=webgit/0.1",
		  false },
		/* side-band (1000-byte packets) alone is not used for push. */
		{ "report-status side-band", "report-status", false },
		{ "object-format=sha1", "object-format=sha1", false },
		/* Nothing at all: an empty list after the NUL. */
		{ "", "", true },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wg_caps *caps = caps_of(cases[i].server);
		wg_buf_reset(&out);
		wg_buf_reset(&want);
		args.quiet = cases[i].quiet;
		CHECK_OK(wg_push_request(&out, caps, &args));
		want_first(&want, fx_hexid(h, 'b'), fx_hexid(h, 'c'), "refs/heads/main", cases[i].sent);
		wg_buf_adds(&want, "0000");
		CHECK(same_bytes(&out, &want));
		if (!same_bytes(&out, &want))
			fprintf(stderr, "  case %zu\n", i);
		wg_caps_free(caps);
	}
	wg_buf_release(&out);
	wg_buf_release(&want);
}

static void test_request_sha256_and_deletes(void)
{
	const struct wg_hash_algo *h = fx_sha256();
	struct wg_push_args args = args_for(h, 3);
	struct wg_buf out = WG_BUF_INIT, want = WG_BUF_INIT;
	struct wg_caps *caps = caps_of("report-status report-status-v2 delete-refs side-band-64k "
				       "quiet atomic ofs-delta object-format=sha256 agent=git/2.53.0");
	CHECK_OK(wg_push_request(&out, caps, &args));
	want_first(&want, fx_hexid(h, 'b'), fx_hexid(h, 'c'), "refs/heads/main",
		   "report-status-v2 side-band-64k object-format=sha256 agent=webgit/0.1");
	want_pkt(&want, "%s %s refs/heads/topic\n", fx_hexid(h, '0'), fx_hexid(h, 'a'));
	want_pkt(&want, "%s %s refs/heads/old\n", fx_hexid(h, 'd'), fx_hexid(h, '0'));
	wg_buf_adds(&want, "0000");
	CHECK(same_bytes(&out, &want));
	CHECK(strlen(fx_hexid(h, 'a')) == 64);

	/* Only deletes: no pack follows. */
	args.commands = &cmds[2];
	args.ncommands = 1;
	CHECK(!wg_push_needs_pack(&args));
	wg_buf_reset(&out);
	wg_buf_reset(&want);
	CHECK_OK(wg_push_request(&out, caps, &args));
	want_first(&want, fx_hexid(h, 'd'), fx_hexid(h, '0'), "refs/heads/old",
		   "report-status-v2 side-band-64k object-format=sha256 agent=webgit/0.1");
	wg_buf_adds(&want, "0000");
	CHECK(same_bytes(&out, &want));
	args.commands = cmds;
	args.ncommands = 2;
	CHECK(wg_push_needs_pack(&args));
	CHECK(!wg_push_needs_pack(NULL));
	wg_caps_free(caps);
	wg_buf_release(&out);
	wg_buf_release(&want);
}

/* The request and the response parser must refuse the same way, and
 * leave `out` as it was. */
static void check_refused(const char *server, const struct wg_push_args *args, int code,
			  const char *msg)
{
	struct wg_caps *caps = server ? caps_of(server) : NULL;
	struct wg_buf out = WG_BUF_INIT;
	struct wg_push_response *r = (struct wg_push_response *)1;
	wg_buf_adds(&out, "keep");
	CHECK_ERR(wg_push_request(&out, caps, args), code);
	CHECK_STR(wg_buf_cstr(&out), "keep");
	if (msg && !strstr(wg_error_message(), msg)) {
		CHECK(!"message");
		fprintf(stderr, "  wanted '%s' in: %s\n", msg, wg_error_message());
	}
	CHECK_ERR(wg_push_response_new_for(&r, caps, args), code);
	CHECK(r == NULL);
	wg_caps_free(caps);
	wg_buf_release(&out);
}

static void test_request_refused(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_push_args args = args_for(h, 3);
	struct wg_push_command c[2];
	const char *opt[2];
	char *longname;
	size_t i;

	/* Deletes need delete-refs: the message names the ref. */
	check_refused("report-status side-band-64k", &args, WG_EUNSUPPORTED,
		      "cannot delete 'refs/heads/old'");
	args.atomic = true;
	check_refused("report-status delete-refs", &args, WG_EUNSUPPORTED, "atomic");
	args.atomic = false;
	opt[0] = "x";
	args.push_options = opt;
	args.npush_options = 1;
	check_refused("report-status delete-refs atomic", &args, WG_EUNSUPPORTED, "push options");
	args.npush_options = 0;

	/* The object format. */
	check_refused("report-status delete-refs object-format=sha256", &args, WG_EUNSUPPORTED,
		      "uses sha256 object ids");
	{
		struct wg_push_args a2 = args_for(fx_sha256(), 2);
		check_refused("report-status delete-refs", &a2, WG_EUNSUPPORTED, "uses sha1 object ids");
		/* An id of the other hash. */
		a2.algo = fx_sha1();
		check_refused("report-status delete-refs", &a2, WG_EINVALID, "is a sha256 id");
	}
	args = args_for(h, 2);
	cmds[1].new_oid = fx_oid_of(fx_sha256(), 'a');
	check_refused(GIT_CAPS, &args, WG_EINVALID, "the new id for 'refs/heads/topic' is a sha256 id");

	/* Bad arguments. */
	args = args_for(h, 0);
	check_refused(GIT_CAPS, &args, WG_EINVALID, "at least one command");
	args = args_for(h, 1);
	args.commands = NULL;
	check_refused(GIT_CAPS, &args, WG_EINVALID, "no array");
	args = args_for(h, 1);
	args.algo = NULL;
	check_refused(GIT_CAPS, &args, WG_EINVALID, "object format");
	check_refused(GIT_CAPS, NULL, WG_EINVALID, "object format");
	args = args_for(h, 1);
	check_refused(NULL, &args, WG_EINVALID, "capabilities are needed");
	{
		struct wg_caps *v2;
		struct wg_buf out = WG_BUF_INIT;
		CHECK_OK(wg_caps_new(&v2, 2));
		CHECK_OK(wg_caps_add_v2_line(v2, "agent=git/2.53.0", 16));
		CHECK_ERR(wg_push_request(&out, v2, &args), WG_EINVALID);
		CHECK(strstr(wg_error_message(), "v0/v1 only") != NULL);
		CHECK(out.len == 0);
		wg_caps_free(v2);
	}
	args.agent = "has space";
	check_refused(GIT_CAPS, &args, WG_EINVALID, "agent");
	args.agent = "";
	check_refused(GIT_CAPS, &args, WG_EINVALID, "agent");
	args.agent = "caf\xc3\xa9";
	check_refused(GIT_CAPS, &args, WG_EINVALID, "agent");
	args.agent = NULL;

	/* Push options: non-empty, no control characters. */
	opt[0] = "ok";
	opt[1] = "two\nlines";
	args.push_options = opt;
	args.npush_options = 2;
	check_refused(GIT_CAPS_OPTS, &args, WG_EINVALID, "push option 1 contains a control");
	opt[1] = "";
	check_refused(GIT_CAPS_OPTS, &args, WG_EINVALID, "push option 1 is empty");
	opt[1] = NULL;
	check_refused(GIT_CAPS_OPTS, &args, WG_EINVALID, "push option 1 is NULL");
	args.push_options = NULL;
	check_refused(GIT_CAPS_OPTS, &args, WG_EINVALID, "no array");
	args.npush_options = 0;

	/* Ref names. */
	{
		static const char *const bad[] = { "refs/heads/a..b", "HEAD", "main", "heads/main",
						   "refs/heads/a b", "refs/heads/x\n", "refs/heads/",
						   "refs/heads/x.lock", "refs/heads/a\\b", "/refs/heads/x",
						   "refs/heads/@{1}" };
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			c[0] = cmds[0];
			c[0].refname = bad[i];
			args.commands = c;
			args.ncommands = 1;
			check_refused(GIT_CAPS, &args, WG_EINVALID, "not a valid ref name");
		}
		c[0].refname = NULL;
		check_refused(GIT_CAPS, &args, WG_EINVALID, "no ref name");
	}
	/* Both ids null; a ref twice. */
	c[0] = cmds[1];
	wg_oid_null(&c[0].new_oid, h);
	check_refused(GIT_CAPS, &args, WG_EINVALID, "both ids for 'refs/heads/topic' are null");
	c[0] = cmds[0];
	c[1] = cmds[1];
	c[1].refname = "refs/heads/main";
	args.ncommands = 2;
	check_refused(GIT_CAPS, &args, WG_EINVALID, "'refs/heads/main' is updated more than once");
	/* A name too long for a pkt-line (valid as a ref name). */
	longname = malloc(70001);
	memcpy(longname, "refs/heads/", 11);
	memset(longname + 11, 'x', 70000 - 11);
	longname[70000] = '\0';
	c[1].refname = longname;
	{
		struct wg_caps *caps = caps_of(GIT_CAPS);
		struct wg_buf out = WG_BUF_INIT;
		wg_buf_adds(&out, "keep");
		CHECK_ERR(wg_push_request(&out, caps, &args), WG_EINVALID);
		CHECK(strstr(wg_error_message(), "too long") != NULL);
		CHECK_STR(wg_buf_cstr(&out), "keep");
		wg_buf_release(&out);
		wg_caps_free(caps);
	}
	free(longname);
}

/* --- responses --------------------------------------------------------------------- */

struct parser_spec {
	const char *caps;
	size_t ncmds;                     /* the first n of cmds[] */
	const struct wg_hash_algo *algo;  /* NULL: sha1 */
};

static int trace_progress(const struct wg_progress_event *ev, void *payload)
{
	struct wg_buf *t = payload;
	if (ev->kind == WG_PROGRESS_UPDATE)
		wg_buf_printf(t, "P[%s %llu/%llu%s];", ev->phase, (unsigned long long)ev->done,
			      (unsigned long long)ev->total, ev->finished ? " done" : "");
	else
		wg_buf_printf(t, "M[%s];", ev->line);
	return 0;
}

static void trace_options(struct wg_buf *t, const struct wg_push_ref_status *s)
{
	char hex[WG_MAX_HEXSZ + 1];
	if (!s->new_refname && !s->has_old && !s->has_new && !s->forced_update)
		return;
	wg_buf_adds(t, "{");
	if (s->new_refname)
		wg_buf_printf(t, "->%s", s->new_refname);
	if (s->has_old) {
		wg_oid_to_hex(&s->old_oid, hex);
		hex[8] = '\0';
		wg_buf_printf(t, " old=%s", hex);
	}
	if (s->has_new) {
		wg_oid_to_hex(&s->new_oid, hex);
		hex[8] = '\0';
		wg_buf_printf(t, " new=%s", hex);
	}
	if (s->forced_update)
		wg_buf_adds(t, " forced");
	wg_buf_adds(t, "}");
}

/* The report as text: "unpack ok;ok <ref>{...};ng <ref> (<reason>);". */
static void trace_report(struct wg_buf *t, const struct wg_push_report *rep)
{
	size_t i, k;
	if (!rep->reported)
		wg_buf_adds(t, "noreport;");
	else if (rep->unpack_ok)
		wg_buf_adds(t, "unpack ok;");
	else
		wg_buf_printf(t, "unpack (%s);", rep->unpack_error ? rep->unpack_error : "NULL");
	if (rep->unpack_ok)
		CHECK(!rep->unpack_error);
	for (i = 0; i < rep->nrefs; i++) {
		const struct wg_push_ref_status *s = &rep->refs[i];
		if (s->ok) {
			CHECK(!s->reason);
			wg_buf_printf(t, "ok %s", s->refname);
			trace_options(t, s);
		} else {
			CHECK(s->reason != NULL);
			wg_buf_printf(t, "ng %s (%s)", s->refname, s->reason);
		}
		for (k = 0; k < s->nmore; k++) {
			CHECK(s->more[k].ok && !s->more[k].nmore);
			CHECK_STR(s->more[k].refname, s->refname);
			wg_buf_adds(t, "+");
			trace_options(t, &s->more[k]);
		}
		wg_buf_adds(t, ";");
	}
}

static struct wg_push_response *make_parser(const struct parser_spec *s)
{
	const struct wg_hash_algo *h = s->algo ? s->algo : fx_sha1();
	struct wg_push_args args = args_for(h, s->ncmds ? s->ncmds : NCMDS);
	struct wg_caps *caps = caps_of(s->caps);
	struct wg_push_response *r = NULL;
	CHECK_OK(wg_push_response_new_for(&r, caps, &args));
	wg_caps_free(caps);
	return r;
}

/* Feed `in` whole, in two chunks cut at `split`, or byte by byte. Each
 * chunk is a private copy freed right after the call, so ASan catches
 * any pointer kept into it. The trace is the progress, then the report. */
static int run_response(const struct parser_spec *s, const struct wg_buf *in, size_t split,
			struct wg_buf *trace, char *msg, size_t msgsz)
{
	struct wg_push_response *r = make_parser(s);
	struct fx_chunker c;
	unsigned char *chunk;
	size_t n;
	int rc = 0;
	msg[0] = '\0';
	if (!r)
		return WG_ERROR;
	wg_push_response_on_progress(r, trace_progress, trace);
	fx_chunker_init(&c, in->data, in->len, split);
	while (!rc && (chunk = fx_chunker_next(&c, &n))) {
		rc = wg_push_response_feed(r, chunk, n);
		free(chunk);
	}
	if (!rc) {
		bool done = wg_push_response_done(r);
		rc = wg_push_response_finish(r);
		/* done exactly when the finish succeeds without waiting. */
		CHECK(done == !rc);
		if (!rc)
			CHECK(wg_push_response_done(r));
	}
	if (rc) {
		snprintf(msg, msgsz, "%s", wg_error_message());
		/* Errors are sticky. */
		CHECK_ERR(wg_push_response_feed(r, "0000", 4), rc);
		CHECK_STR(wg_error_message(), msg);
		CHECK_ERR(wg_push_response_finish(r), rc);
		CHECK(!wg_push_response_done(r));
		wg_buf_adds(trace, "ERR;");
	}
	trace_report(trace, wg_push_response_report(r));
	wg_push_response_free(r);
	return rc;
}

/* Every split must give `want_rc`, the trace `want_trace` and the
 * message part `want_msg`. */
static void check_response(const struct parser_spec *s, const struct wg_buf *in, int want_rc,
			   const char *want_trace, const char *want_msg)
{
	struct wg_buf trace = WG_BUF_INIT;
	char msg[1024];
	size_t i;
	for (i = 0; i <= in->len + 1; i++) {
		size_t split = i == in->len + 1 ? FX_BYTEWISE : i;
		int rc;
		wg_buf_reset(&trace);
		rc = run_response(s, in, split, &trace, msg, sizeof(msg));
		CHECK(rc == want_rc);
		CHECK_STR(wg_buf_cstr(&trace), want_trace);
		if (want_msg && !strstr(msg, want_msg)) {
			CHECK(strstr(msg, want_msg) != NULL);
			fprintf(stderr, "  wanted '%s' in: %s\n", want_msg, msg);
		}
		if (rc != want_rc || strcmp(wg_buf_cstr(&trace), want_trace)) {
			fprintf(stderr, "  split %zu: rc %d (%s), trace %s\n", split, rc, msg,
				wg_buf_cstr(&trace));
			break;
		}
	}
	wg_buf_release(&trace);
}

/* Every proper prefix of a complete response is a response closed early. */
static void check_truncations(const struct parser_spec *s, const struct wg_buf *in)
{
	struct wg_buf cut = WG_BUF_INIT, trace = WG_BUF_INIT;
	char msg[1024];
	size_t n;
	for (n = 0; n < in->len; n++) {
		int rc;
		wg_buf_reset(&cut);
		wg_buf_add(&cut, in->data, n);
		wg_buf_reset(&trace);
		rc = run_response(s, &cut, n, &trace, msg, sizeof(msg));
		CHECK(rc == WG_ECORRUPT);
		if (rc != WG_ECORRUPT || !strstr(msg, "the server closed the response early")) {
			CHECK(strstr(msg, "the server closed the response early") != NULL);
			fprintf(stderr, "  cut at %zu: rc %d: %s\n", n, rc, msg);
			break;
		}
	}
	wg_buf_release(&cut);
	wg_buf_release(&trace);
}

static const struct parser_spec v1_plain = { "report-status delete-refs ofs-delta", 0, NULL };
static const struct parser_spec v2_plain = { "report-status-v2 delete-refs", 0, NULL };
static const struct parser_spec v1_sb = { "report-status delete-refs side-band-64k", 0, NULL };
static const struct parser_spec git_sb = { GIT_CAPS, 0, NULL };
static const struct parser_spec none_plain = { "delete-refs", 0, NULL };
static const struct parser_spec none_sb = { "delete-refs side-band-64k quiet", 0, NULL };

/* The report of most tests: every kind of status. */
static void basic_report(struct wg_buf *b)
{
	fx_pkt(b, "unpack ok\n");
	fx_pkt(b, "ok refs/heads/main\n");
	fx_pkt(b, "ng refs/heads/topic non-fast-forward\n");
	fx_pkt(b, "ok refs/heads/old\n");
	fx_pkt(b, "ng refs/for/main pre-receive hook declined\n");
	fx_flush(b);
}

#define BASIC_TRACE "unpack ok;ok refs/heads/main;ng refs/heads/topic (non-fast-forward);" \
	"ok refs/heads/old;ng refs/for/main (pre-receive hook declined);"

static void test_response_report_status(void)
{
	struct wg_buf in = WG_BUF_INIT;
	basic_report(&in);
	check_response(&v1_plain, &in, 0, BASIC_TRACE, NULL);
	check_response(&v2_plain, &in, 0, BASIC_TRACE, NULL);
	check_truncations(&v1_plain, &in);

	/* Lines without their LF are the same lines. */
	wg_buf_reset(&in);
	fx_pkt(&in, "unpack ok");
	fx_pkt(&in, "ok refs/heads/main");
	fx_pkt(&in, "ng refs/heads/topic non-fast-forward");
	fx_pkt(&in, "ok refs/heads/old");
	fx_pkt(&in, "ng refs/for/main pre-receive hook declined");
	fx_flush(&in);
	check_response(&v1_plain, &in, 0, BASIC_TRACE, NULL);

	/* In any order; "ng" without a reason is "failed", as git shows it;
	 * control bytes in a reason are made safe. */
	wg_buf_reset(&in);
	fx_pkt(&in, "unpack ok\n");
	fx_pkt(&in, "ng refs/for/main\n");
	fx_pkt(&in, "ng refs/heads/old \n");
	fx_pkt(&in, "ng refs/heads/topic bad\033[31m red\x01%c!\n", 0);
	fx_pkt(&in, "ng refs/heads/main a  reason\twith tab\n");
	fx_flush(&in);
	check_response(&v1_plain, &in, 0, "unpack ok;ng refs/for/main (failed);ng refs/heads/old "
		       "(failed);ng refs/heads/topic (bad?[31m red??" "!);ng refs/heads/main (a  reason"
		       "\twith tab);", NULL);

	/* The unpack failed: git then fails every ref. */
	wg_buf_reset(&in);
	fx_pkt(&in, "unpack index-pack abnormal exit\n");
	fx_pkt(&in, "ng refs/heads/main unpacker error\n");
	fx_pkt(&in, "ng refs/heads/topic unpacker error\n");
	fx_flush(&in);
	{
		struct parser_spec two = v1_plain;
		two.ncmds = 2;
		check_response(&two, &in, 0, "unpack (index-pack abnormal exit);ng refs/heads/main "
			       "(unpacker error);ng refs/heads/topic (unpacker error);", NULL);
		two.caps = "report-status";
		two.ncmds = 1;
		wg_buf_reset(&in);
		fx_pkt(&in, "unpack eof before pack header was fully read\n");
		fx_pkt(&in, "ng refs/heads/main unpacker error\n");
		fx_flush(&in);
		check_response(&two, &in, 0, "unpack (eof before pack header was fully read);ng "
			       "refs/heads/main (unpacker error);", NULL);
	}

	/* sha256 ids in the request do not change the report. */
	{
		struct parser_spec s = { "report-status delete-refs object-format=sha256", 0, NULL };
		s.algo = fx_sha256();
		wg_buf_reset(&in);
		basic_report(&in);
		check_response(&s, &in, 0, BASIC_TRACE, NULL);
	}
	wg_buf_release(&in);
}

/* The report inside band 1, cut into band packets at `cut` (and every
 * 7 bytes after it when `small`). */
static void sideband_report(struct wg_buf *b, const struct wg_buf *report, size_t cut, bool small)
{
	size_t off = 0, n;
	bool first = true;
	while (off < report->len) {
		n = first ? cut : small ? 7 : report->len - off;
		first = false;
		if (n > report->len - off)
			n = report->len - off;
		if (n)
			fx_band(b, 1, report->data + off, n);
		off += n;
	}
}

static void test_response_sideband(void)
{
	struct wg_buf in = WG_BUF_INIT, rep = WG_BUF_INIT;
	size_t cut;
	basic_report(&rep);

	/* Progress, a keepalive, the report split across band-1 packets
	 * anywhere (inside the pkt-line headers too), the closing flush. */
	for (cut = 0; cut <= rep.len; cut += cut < 12 ? 1 : 9) {
		wg_buf_reset(&in);
		fx_band(&in, 2, "Resolving deltas:  50% (1/2)\r", 29);
		fx_band(&in, 1, "", 0);
		fx_band(&in, 2, "Resolving deltas: 100% (2/2), done.\n", 36);
		sideband_report(&in, &rep, cut, cut == 5);
		fx_band(&in, 2, "", 0);
		fx_band(&in, 2, "hook says hi\n", 13);
		fx_flush(&in);
		check_response(cut % 2 ? &v1_sb : &git_sb, &in, 0,
			       "P[Resolving deltas 1/2];P[Resolving deltas 2/2 done];M[hook says hi];"
			       BASIC_TRACE, NULL);
		if (cut == 5)
			check_truncations(&git_sb, &in);
	}

	/* A last progress line without its LF is passed on at the end. */
	wg_buf_reset(&in);
	fx_band(&in, 1, rep.data, rep.len);
	fx_band(&in, 2, "To be continued", 15);
	fx_flush(&in);
	check_response(&git_sb, &in, 0, "M[To be continued];" BASIC_TRACE, NULL);

	/* No report-status negotiated: only progress (or nothing) and the
	 * flush. */
	wg_buf_reset(&in);
	fx_band(&in, 2, "remote: done\n", 13);
	fx_flush(&in);
	check_response(&none_sb, &in, 0, "M[remote: done];noreport;", NULL);
	check_truncations(&none_sb, &in);
	wg_buf_reset(&in);
	fx_flush(&in);
	check_response(&none_sb, &in, 0, "noreport;", NULL);
	wg_buf_reset(&in);
	check_response(&none_plain, &in, 0, "noreport;", NULL);
	wg_buf_release(&in);
	wg_buf_release(&rep);
}

static void test_response_report_status_v2(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_buf in = WG_BUF_INIT, rep = WG_BUF_INIT;
	/* A proc-receive hook turned refs/for/main into two refs; the
	 * options of the first report follow its "ok", a second report
	 * repeats the "ok". Unknown options are ignored. */
	fx_pkt(&rep, "unpack ok\n");
	fx_pkt(&rep, "ok refs/heads/main\n");
	fx_pkt(&rep, "ok refs/heads/topic\n");
	fx_pkt(&rep, "option forced-update\n");
	fx_pkt(&rep, "ok refs/for/main\n");
	fx_pkt(&rep, "option refname refs/heads/main\n");
	fx_pkt(&rep, "option old-oid %s\n", fx_hexid(h, 'b'));
	fx_pkt(&rep, "option new-oid %s\n", fx_hexid(h, 'e'));
	fx_pkt(&rep, "option future-thing 42\n");
	fx_pkt(&rep, "ok refs/for/main\n");
	fx_pkt(&rep, "option new-oid %s\n", fx_hexid(h, 'f'));
	fx_pkt(&rep, "option refname refs/pull/1/head\n");
	fx_pkt(&rep, "option forced-update\n");
	fx_pkt(&rep, "ng refs/heads/old deletion prohibited\n");
	fx_flush(&rep);
#define V2_TRACE "unpack ok;ok refs/heads/main;ok refs/heads/topic{ forced};ok refs/for/main" \
	"{->refs/heads/main old=bbbbbbbb new=eeeeeeee}+{->refs/pull/1/head new=ffffffff forced};" \
	"ng refs/heads/old (deletion prohibited);"
	check_response(&v2_plain, &rep, 0, V2_TRACE, NULL);
	fx_band(&in, 1, rep.data, rep.len);
	fx_flush(&in);
	check_response(&git_sb, &in, 0, V2_TRACE, NULL);
	{
		struct wg_push_response *r = make_parser(&v2_plain);
		const struct wg_push_ref_status *s;
		CHECK_OK(wg_push_response_feed(r, rep.data, rep.len));
		CHECK_OK(wg_push_response_finish(r));
		s = wg_push_report_find(wg_push_response_report(r), "refs/for/main");
		CHECK(s && s->ok && s->nmore == 1 && s->has_old && s->has_new && !s->forced_update);
		CHECK(s && wg_oid_equal(&s->new_oid, &cmds[3].new_oid));
		CHECK(s && s->nmore == 1 && s->more[0].forced_update && !s->more[0].has_old);
		CHECK(!wg_push_report_find(wg_push_response_report(r), "refs/heads/nope"));
		CHECK(wg_push_response_report(r)->nrefs == 4);
		wg_push_response_free(r);
	}

	/* sha256 option ids. */
	{
		struct parser_spec s = { "report-status-v2 object-format=sha256 delete-refs", 1, NULL };
		s.algo = fx_sha256();
		wg_buf_reset(&in);
		fx_pkt(&in, "unpack ok\n");
		fx_pkt(&in, "ok refs/heads/main\n");
		fx_pkt(&in, "option old-oid %s\n", fx_hexid(fx_sha256(), '1'));
		fx_pkt(&in, "option new-oid %s\n", fx_hexid(fx_sha256(), '2'));
		fx_flush(&in);
		check_response(&s, &in, 0, "unpack ok;ok refs/heads/main{ old=11111111 new=22222222};",
			       NULL);
		/* sha1 ids where sha256 is in use. */
		wg_buf_reset(&in);
		fx_pkt(&in, "unpack ok\n");
		fx_pkt(&in, "ok refs/heads/main\n");
		fx_pkt(&in, "option new-oid %s\n", fx_hexid(fx_sha1(), '2'));
		fx_flush(&in);
		check_response(&s, &in, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;",
			       "bad 'option new-oid' line");
	}
	wg_buf_release(&in);
	wg_buf_release(&rep);
}

static void test_response_errors(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct parser_spec one = v2_plain, one_v1 = v1_plain, one_sb = git_sb;
	struct wg_buf in = WG_BUF_INIT;
	size_t i;
	one.ncmds = one_v1.ncmds = one_sb.ncmds = 1;

#define BAD(spec, rc, trace, msg, ...) do { \
		wg_buf_reset(&in); \
		__VA_ARGS__; \
		check_response(spec, &in, rc, trace, msg); \
	} while (0)
#define U fx_pkt(&in, "unpack ok\n")
#define OK_MAIN fx_pkt(&in, "ok refs/heads/main\n")

	/* The server's errors: ERR packets and band 3. */
	BAD(&one, WG_ERROR, "ERR;unpack (NULL);", "remote error: access denied",
	    fx_pkt(&in, "ERR access denied\n"));
	BAD(&one, WG_ERROR, "ERR;unpack ok;ok refs/heads/main;", "remote error: hook crashed",
	    U; OK_MAIN; fx_pkt(&in, "ERR hook crashed"));
	BAD(&one_sb, WG_ERROR, "ERR;unpack (NULL);", "remote error: access denied",
	    fx_pkt(&in, "ERR access denied\n"));
	BAD(&one_sb, WG_ERROR, "M[working];ERR;unpack (NULL);", "remote error: disk full",
	    fx_band(&in, 2, "working\n", 8); fx_band(&in, 3, "disk full\n", 10); fx_flush(&in));
	BAD(&one_sb, WG_ERROR, "ERR;unpack (NULL);", "remote error: inside",
	    fx_pkt(&in, "\1%04xERR inside", 14));
	/* "unpack ok" stays false until the line arrives. */
	BAD(&one_v1, WG_ERROR, "ERR;unpack (NULL);", "remote error", fx_pkt(&in, "ERR x"));

	/* Truncated. */
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "closed the response early (before the push report)");
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack (NULL);", "closed the response early (before the push report)");
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "closed the response early (after 0 of 1 ref statuses)",
	    U);
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;",
	    "closed the response early (after 1 of 1 ref statuses)", U; OK_MAIN);
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "in the middle of a pkt-line",
	    U; CHECK_OK(wg_buf_adds(&in, "0015ok refs/he")));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "without the flush",
	    fx_band(&in, 1, "000eunpack ok\n0017ok refs/heads/main\n0000", 41));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "in the middle of a pkt-line",
	    fx_band(&in, 1, "000eunpack ok\n0017ok refs/heads/main\n0000", 41);
	    CHECK_OK(wg_buf_adds(&in, "00")));

	/* A status for a ref that was not pushed; a second status. */
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "status for 'refs/heads/other', which was not pushed",
	    U; fx_pkt(&in, "ok refs/heads/other\n"); fx_flush(&in));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "status for 'refs/heads/mai', which was not pushed",
	    U; fx_pkt(&in, "ng refs/heads/mai x\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "status for 'refs/heads/main\\x00'",
	    U; fx_pkt(&in, "ok refs/heads/main%c", 0));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "a second status for 'refs/heads/main'",
	    U; OK_MAIN; OK_MAIN);
	BAD(&one_v1, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "a second status",
	    U; OK_MAIN; OK_MAIN);
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main{ forced};", "a second status",
	    U; OK_MAIN; fx_pkt(&in, "option forced-update\n"); fx_pkt(&in, "ng refs/heads/main x\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ng refs/heads/main (x);", "a second status",
	    U; fx_pkt(&in, "ng refs/heads/main x\n"); OK_MAIN);
	/* A repeated "ok" must follow the same ref's options directly. */
	{
		struct parser_spec two = v2_plain;
		two.ncmds = 2;
		BAD(&two, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main{ forced};ok refs/heads/topic;",
		    "a second status for 'refs/heads/main'",
		    U; OK_MAIN; fx_pkt(&in, "option forced-update\n"); fx_pkt(&in, "ok refs/heads/topic\n");
		    OK_MAIN);
	}
	/* Not every ref has a status. */
	{
		struct parser_spec two = v1_plain;
		two.ncmds = 2;
		BAD(&two, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;",
		    "the push report has no status for 'refs/heads/topic'", U; OK_MAIN; fx_flush(&in));
	}
	/* At most WG_PUSH_MAX_EXTRA_REPORTS more reports per ref. */
	wg_buf_reset(&in);
	U;
	for (i = 0; i <= WG_PUSH_MAX_EXTRA_REPORTS; i++) {
		OK_MAIN;
		fx_pkt(&in, "option forced-update\n");
	}
	fx_flush(&in);
	{
		struct wg_push_response *r = make_parser(&one);
		CHECK_OK(wg_push_response_feed(r, in.data, in.len));
		CHECK_OK(wg_push_response_finish(r));
		CHECK(wg_push_response_report(r)->refs[0].nmore == WG_PUSH_MAX_EXTRA_REPORTS);
		wg_push_response_free(r);
		wg_buf_setlen(&in, in.len - 4);
		OK_MAIN;
		r = make_parser(&one);
		CHECK_ERR(wg_push_response_feed(r, in.data, in.len), WG_ECORRUPT);
		CHECK(strstr(wg_error_message(), "more than 64 reports") != NULL);
		wg_push_response_free(r);
	}

	/* Option lines where none may be. */
	BAD(&one_v1, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "an option line in a "
	    "report-status (v1) report", U; OK_MAIN; fx_pkt(&in, "option forced-update\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "an option line without an 'ok <refname>'",
	    U; fx_pkt(&in, "option forced-update\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ng refs/heads/main (x);", "without an 'ok <refname>'",
	    U; fx_pkt(&in, "ng refs/heads/main x\n"); fx_pkt(&in, "option forced-update\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main{ forced};", "a repeated option",
	    U; OK_MAIN; fx_pkt(&in, "option forced-update\n"); fx_pkt(&in, "option forced-update\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main{->refs/heads/x};", "a repeated option",
	    U; OK_MAIN; fx_pkt(&in, "option refname refs/heads/x\n"); fx_pkt(&in, "option refname refs/heads/y\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "expected 'option forced-update'",
	    U; OK_MAIN; fx_pkt(&in, "option forced-update yes\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "expected 'option <key> <value>'",
	    U; OK_MAIN; fx_pkt(&in, "option refname\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "bad 'option refname' line",
	    U; OK_MAIN; fx_pkt(&in, "option refname refs/heads/a..b\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "bad 'option refname' line",
	    U; OK_MAIN; fx_pkt(&in, "option refname ../../etc/passwd\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "has 39 hex digits",
	    U; OK_MAIN; fx_pkt(&in, "option old-oid %.39s\n", fx_hexid(h, 'a')));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "a sha256 id",
	    U; OK_MAIN; fx_pkt(&in, "option new-oid %s\n", fx_hexid(fx_sha256(), 'a')));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "not hexadecimal",
	    U; OK_MAIN; fx_pkt(&in, "option new-oid %.39sx\n", fx_hexid(h, 'a')));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "bad 'option old-oid' line",
	    U; OK_MAIN; fx_pkt(&in, "option old-oid %s \n", fx_hexid(h, 'a')));

	/* Garbage. */
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "expected 'unpack ok' or 'unpack <error>'",
	    OK_MAIN);
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "got 'unpack'", fx_pkt(&in, "unpack\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "got 'unpack '", fx_pkt(&in, "unpack \n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "got 'Unpack ok'", fx_pkt(&in, "Unpack ok\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "a flush before its 'unpack' line", fx_flush(&in));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "got 'hello'", U; fx_pkt(&in, "hello\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "got 'ok'", U; fx_pkt(&in, "ok\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "expected 'ok <refname>', got 'ok '", U; fx_pkt(&in, "ok \n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "expected 'ok <refname>', got 'ok refs/heads/main x'",
	    U; fx_pkt(&in, "ok refs/heads/main x\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "expected 'ng <refname> <reason>'",
	    U; fx_pkt(&in, "ng  reason\n"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "got ''", U; fx_pkt(&in, "%s", ""));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "got '\\x01ok refs/heads/main'",
	    U; fx_pkt(&in, "\1ok refs/heads/main"));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "delim packet (0001) in the push report",
	    U; CHECK_OK(wg_pkt_write_delim(&in)));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;", "response-end packet (0002) in the push report",
	    U; CHECK_OK(wg_pkt_write_response_end(&in)));
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "'0003'", CHECK_OK(wg_buf_adds(&in, "0003")));
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "bad pkt-line length 'PACK'",
	    CHECK_OK(wg_buf_adds(&in, "PACK")));
	BAD(&one, WG_ECORRUPT, "ERR;unpack (NULL);", "exceeds the maximum",
	    CHECK_OK(wg_buf_adds(&in, "fff1")));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack (NULL);", "bad side-band number 4",
	    fx_band(&in, 4, "x", 1));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack (NULL);", "missing band designator", fx_pkt(&in, "%s", ""));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack (NULL);", "bad side-band number 117",
	    fx_pkt(&in, "unpack ok\n"));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack (NULL);", "'0003'", fx_band(&in, 1, "0003", 4));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack ok;", "delim packet (0001) in the push report",
	    fx_band(&in, 1, "000eunpack ok\n0001", 18));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack (NULL);", "delim packet (0001) in the push response",
	    CHECK_OK(wg_pkt_write_delim(&in)));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack (NULL);", "response-end packet (0002) in the push response",
	    CHECK_OK(wg_pkt_write_response_end(&in)));

	/* The side-band stream ends before the report does. */
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack (NULL);", "ended before the push report was complete",
	    fx_flush(&in));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "before the push report was complete",
	    fx_band(&in, 1, "000eunpack ok\n0017ok refs/heads/main\n", 37); fx_flush(&in));

	/* Data after the end. */
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "unexpected data after the end "
	    "of the push response", U; OK_MAIN; fx_flush(&in); fx_flush(&in));
	BAD(&one, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "after the end",
	    U; OK_MAIN; fx_flush(&in); CHECK_OK(wg_buf_adds(&in, "0")));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "after the end of the push report",
	    fx_band(&in, 1, "000eunpack ok\n0017ok refs/heads/main\n0000", 41);
	    fx_band(&in, 1, "0000", 4); fx_flush(&in));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "after the end of the push report",
	    fx_band(&in, 1, "000eunpack ok\n0017ok refs/heads/main\n00000", 42); fx_flush(&in));
	BAD(&one_sb, WG_ECORRUPT, "ERR;unpack ok;ok refs/heads/main;", "after the end of the push response",
	    fx_band(&in, 1, "000eunpack ok\n0017ok refs/heads/main\n0000", 41); fx_flush(&in);
	    fx_band(&in, 2, "late\n", 5));
	/* A report nobody asked for. */
	BAD(&none_plain, WG_ECORRUPT, "ERR;noreport;", "after the end of the push response",
	    U);
	BAD(&none_sb, WG_ECORRUPT, "ERR;noreport;", "a report that was not asked for",
	    fx_band(&in, 1, "000eunpack ok\n", 14); fx_flush(&in));
	BAD(&none_sb, WG_ECORRUPT, "M[x];ERR;noreport;", "closed the response early",
	    fx_band(&in, 2, "x\n", 2));
#undef BAD
#undef U
#undef OK_MAIN
	wg_buf_release(&in);
}

/* Every single-byte change of valid responses (and random bytes): the
 * parser must answer 0, WG_ECORRUPT or WG_ERROR, never crash or leak. */
static void test_response_mutations(void)
{
	static const unsigned char values[] = { 0, 1, 2, 3, '\n', ' ', '0', 'f', 'o', 0x7f, 0xff };
	const struct parser_spec *specs[] = { &v2_plain, &git_sb };
	struct wg_buf rep = WG_BUF_INIT, in = WG_BUF_INIT, trace = WG_BUF_INIT;
	const struct wg_hash_algo *h = fx_sha1();
	uint32_t seed = 12345;
	char msg[1024];
	size_t i, k, v;
	fx_pkt(&rep, "unpack ok\n");
	fx_pkt(&rep, "ok refs/heads/main\n");
	fx_pkt(&rep, "ng refs/heads/topic non-fast-forward\n");
	fx_pkt(&rep, "ok refs/heads/old\n");
	fx_pkt(&rep, "ok refs/for/main\n");
	fx_pkt(&rep, "option refname refs/heads/x\n");
	fx_pkt(&rep, "option old-oid %s\n", fx_hexid(h, 'a'));
	fx_pkt(&rep, "ok refs/for/main\n");
	fx_pkt(&rep, "option forced-update\n");
	fx_flush(&rep);
	for (k = 0; k < 2; k++) {
		wg_buf_reset(&in);
		if (k == 0) {
			wg_buf_add(&in, rep.data, rep.len);
		} else {
			fx_band(&in, 2, "progress\r", 9);
			fx_band(&in, 1, rep.data, 17);
			fx_band(&in, 1, rep.data + 17, rep.len - 17);
			fx_flush(&in);
		}
		for (i = 0; i < in.len; i++) {
			unsigned char orig = in.data[i];
			for (v = 0; v < sizeof(values); v++) {
				int rc;
				if (values[v] == orig)
					continue;
				in.data[i] = values[v];
				wg_buf_reset(&trace);
				rc = run_response(specs[k], &in, in.len, &trace, msg, sizeof(msg));
				CHECK(rc == 0 || rc == WG_ECORRUPT || rc == WG_ERROR);
			}
			in.data[i] = orig;
		}
	}
	/* Random bytes, and random pkt-lines of random text. */
	for (i = 0; i < 400; i++) {
		size_t n = 1 + i % 97;
		wg_buf_reset(&in);
		if (i % 2)
			CHECK_OK(wg_buf_adds(&in, "0010\1"));
		for (k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			wg_buf_addch(&in, (int)((seed >> 16) & (i % 3 ? 0x7f : 0xff)));
		}
		for (k = 0; k < 2; k++) {
			int rc;
			wg_buf_reset(&trace);
			rc = run_response(specs[k], &in, i % (in.len + 1), &trace, msg, sizeof(msg));
			CHECK(rc == 0 || rc == WG_ECORRUPT || rc == WG_ERROR);
		}
	}
	wg_buf_release(&rep);
	wg_buf_release(&in);
	wg_buf_release(&trace);
}

/* --- callbacks, bounds, allocation ------------------------------------------------- */

static int stop_progress(const struct wg_progress_event *ev, void *payload)
{
	int *calls = payload;
	(void)ev;
	if (++*calls == 2)
		return wg_error_set(WG_EINVALID, "cancelled by the user");
	return 0;
}

static int positive_progress(const struct wg_progress_event *ev, void *payload)
{
	(void)ev;
	(void)payload;
	return 1;
}

static void test_progress_callback(void)
{
	struct wg_push_response *r = make_parser(&git_sb);
	struct wg_buf in = WG_BUF_INIT;
	int calls = 0;
	fx_band(&in, 2, "one\ntwo\nthree\n", 14);
	wg_push_response_on_progress(r, stop_progress, &calls);
	CHECK_ERR(wg_push_response_feed(r, in.data, in.len), WG_EINVALID);
	CHECK_STR(wg_error_message(), "cancelled by the user");
	CHECK(calls == 2);
	CHECK_ERR(wg_push_response_feed(r, "", 0), WG_EINVALID);
	CHECK_ERR(wg_push_response_finish(r), WG_EINVALID);
	CHECK(calls == 2);
	wg_push_response_free(r);

	r = make_parser(&git_sb);
	wg_push_response_on_progress(r, positive_progress, NULL);
	CHECK_ERR(wg_push_response_feed(r, in.data, in.len), WG_ERROR);
	CHECK(strstr(wg_error_message(), "progress callback") != NULL);
	wg_push_response_free(r);

	/* Without a callback the text is parsed and dropped; cleared. */
	r = make_parser(&git_sb);
	wg_push_response_on_progress(r, stop_progress, &calls);
	wg_push_response_on_progress(r, NULL, NULL);
	CHECK_OK(wg_push_response_feed(r, in.data, in.len));
	CHECK(!wg_push_response_done(r));
	wg_push_response_free(r);
	wg_push_response_free(NULL);
	wg_buf_release(&in);
}





static int count_progress(const struct wg_progress_event *ev, void *payload)
{
	(void)ev;
	++*(size_t *)payload;
	return 0;
}

/* Feed `rounds` copies of `unit` after `head` in odd-sized pieces: memory
 * must stay under `limit`, whatever the server keeps sending. */
static void check_endless(const struct parser_spec *s, const struct wg_buf *head,
			  const struct wg_buf *unit, size_t rounds, size_t limit)
{
	struct wg_push_response *r;
	struct wg_buf stream = WG_BUF_INIT;
	size_t i, off, events = 0;
	for (i = 0; i < 64; i++)
		CHECK_OK(wg_buf_add(&stream, unit->data, unit->len));
	memset(&fx_tracked, 0, sizeof(fx_tracked));
	wg_allocator_set(&fx_tracking_allocator);
	r = make_parser(s);
	wg_push_response_on_progress(r, count_progress, &events);
	CHECK_OK(wg_push_response_feed(r, head->data, head->len));
	for (i = 0; i < rounds; i++) {
		for (off = 0; off < stream.len; off += 1021) {
			size_t n = stream.len - off < 1021 ? stream.len - off : 1021;
			int rc = wg_push_response_feed(r, stream.data + off, n);
			CHECK(rc == 0);
			if (rc) {
				fprintf(stderr, "  %s\n", wg_error_message());
				i = rounds;
				break;
			}
		}
	}
	if (fx_tracked.peak >= limit)
		fprintf(stderr, "  peak %zu bytes, limit %zu\n", fx_tracked.peak, limit);
	CHECK(fx_tracked.peak < limit);
	wg_push_response_free(r);
	CHECK(fx_tracked.live == 0);
	wg_allocator_set(NULL);
	wg_buf_release(&stream);
	(void)events;
}

/* The start of a report for refs/heads/main in band 1 (the report's own
 * bytes go to `r`). */
static void one_ref_band(struct wg_buf *b, struct wg_buf *r)
{
	fx_pkt(r, "unpack ok\n");
	fx_pkt(r, "ok refs/heads/main\n");
	fx_band(b, 1, r->data, r->len);
}

static void test_endless_streams_bounded(void)
{
	struct wg_buf head = WG_BUF_INIT, unit = WG_BUF_INIT;
	char text[600];
	/* Endless progress, keepalives, and a line that never ends. */
	fx_band(&unit, 2, "Resolving deltas:  50% (1/2)\r", 29);
	fx_band(&unit, 1, "", 0);
	check_endless(&git_sb, &head, &unit, 2000, 4 * WG_PROGRESS_LINE_MAX + 8192);
	wg_buf_reset(&unit);
	memset(text, 'x', sizeof(text));
	fx_band(&unit, 2, text, sizeof(text));
	check_endless(&git_sb, &head, &unit, 300, 8 * WG_PROGRESS_LINE_MAX + 8192);
	/* Endless unknown option lines after an "ok", inside band 1, each
	 * band packet ending inside a pkt-line header. */
	{
		struct wg_buf r = WG_BUF_INIT;
		one_ref_band(&head, &r);
		wg_buf_reset(&r);
		fx_pkt(&r, "option future-thing 42\n");
		wg_buf_reset(&unit);
		fx_band(&unit, 1, r.data + 2, r.len - 2);
		fx_band(&unit, 1, r.data, 2);
		fx_band(&head, 1, r.data, 2);
		wg_buf_release(&r);
	}
	check_endless(&git_sb, &head, &unit, 2000, 4 * WG_PROGRESS_LINE_MAX + 8192);
	wg_buf_release(&head);
	wg_buf_release(&unit);
}

static void test_allocation_failures(void)
{
	static const char *const opts[] = { "a=b" };
	const struct wg_hash_algo *h = fx_sha1();
	struct wg_push_args args = args_for(h, NCMDS);
	struct wg_caps *caps = caps_of(GIT_CAPS_OPTS);
	struct wg_buf in = WG_BUF_INIT, rep = WG_BUF_INIT;
	int rc, ok = 0;
	args.push_options = opts;
	args.npush_options = 1;
	fx_pkt(&rep, "unpack ok\n");
	fx_pkt(&rep, "ok refs/heads/main\n");
	fx_pkt(&rep, "ng refs/heads/topic non-fast-forward\n");
	fx_pkt(&rep, "ok refs/heads/old\n");
	fx_pkt(&rep, "ok refs/for/main\n");
	fx_pkt(&rep, "option refname refs/heads/main\n");
	fx_pkt(&rep, "ok refs/for/main\n");
	fx_pkt(&rep, "option refname refs/heads/other\n");
	fx_flush(&rep);
	fx_band(&in, 2, "Resolving deltas: 100% (1/1), done.\n", 36);
	fx_band(&in, 1, rep.data, 30);
	fx_band(&in, 1, rep.data + 30, rep.len - 30);
	fx_band(&in, 2, "bye", 3);
	fx_flush(&in);
	for (fx_fail_at = 0; fx_fail_at < 300; fx_fail_at++) {
		struct wg_buf out = WG_BUF_INIT;
		struct wg_push_response *r = NULL;
		fx_alloc_count = 0;
		wg_allocator_set(&fx_failing_allocator);
		rc = wg_push_request(&out, caps, &args);
		if (!rc)
			rc = wg_push_response_new_for(&r, caps, &args);
		if (!rc)
			rc = wg_push_response_feed(r, in.data, in.len);
		if (!rc)
			rc = wg_push_response_finish(r);
		wg_allocator_set(NULL);
		CHECK(rc == 0 || rc == WG_ENOMEM);
		if (rc && rc != WG_ENOMEM)
			fprintf(stderr, "  fx_fail_at %d: %s\n", fx_fail_at, wg_error_message());
		if (!rc) {
			CHECK(wg_push_response_report(r)->nrefs == 4);
			CHECK(wg_push_response_report(r)->refs[3].nmore == 1);
		}
		wg_push_response_free(r);
		wg_buf_release(&out);
		if (!rc) {
			ok = 1;
			break;
		}
	}
	CHECK(ok);
	CHECK(fx_fail_at > 10);
	wg_caps_free(caps);
	wg_buf_release(&in);
	wg_buf_release(&rep);
}

WG_TEST_MAIN("push_protocol",
	WG_TEST(test_request_git_server),
	WG_TEST(test_request_caps_chosen),
	WG_TEST(test_request_sha256_and_deletes),
	WG_TEST(test_request_refused),
	WG_TEST(test_response_report_status),
	WG_TEST(test_response_sideband),
	WG_TEST(test_response_report_status_v2),
	WG_TEST(test_response_errors),
	WG_TEST(test_response_mutations),
	WG_TEST(test_progress_callback),
	WG_TEST(test_endless_streams_bounded),
	WG_TEST(test_allocation_failures))
