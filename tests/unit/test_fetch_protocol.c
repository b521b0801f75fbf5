/* Unit tests for core/protocol/fetch: the fetch requests of protocol v2
 * and v0/v1 (byte-exact), and the response parser, fed whole, byte by
 * byte and split at every offset, which must give the same events (and
 * the same pack bytes) every time. The adversarial cases are what a
 * hostile or broken server could send. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hash/hash.h"
#include "hash/oid.h"
#include "protocol/capabilities.h"
#include "protocol/fetch.h"
#include "protocol/pktline.h"
#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"







/* Expected request bytes, framed independently of wg_pkt_write. */
static void want_pkt(struct wg_buf *b, const char *fmt, ...)
{
	char s[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	wg_buf_printf(b, "%04zx%s", strlen(s) + 4, s);
}

static struct wg_caps *v2_caps(const char *const *lines)
{
	struct wg_caps *caps;
	CHECK_OK(wg_caps_new(&caps, 2));
	for (; *lines; lines++)
		CHECK_OK(wg_caps_add_v2_line(caps, *lines, strlen(*lines)));
	return caps;
}

static struct wg_caps *v1_caps(const char *list)
{
	struct wg_caps *caps;
	CHECK_OK(wg_caps_parse_v1(&caps, list, strlen(list)));
	return caps;
}

/* What git 2.53's upload-pack advertises (uploadpack.allowFilter on). */
#define GIT_V0_CAPS "multi_ack thin-pack side-band side-band-64k ofs-delta shallow " \
	"deepen-since deepen-not deepen-relative no-progress include-tag multi_ack_detailed " \
	"allow-tip-sha1-in-want allow-reachable-sha1-in-want no-done symref=HEAD:refs/heads/main " \
	"filter object-format=sha1 agent=git/2.53.0"

static const char *const git_v2[] = { "agent=git/2.53.0", "ls-refs=unborn",
				      "fetch=shallow wait-for-done filter sideband-all",
				      "server-option", "object-format=sha1", NULL };

/* A pack-like byte string of `n` bytes (all 256 values, NULs included). */
static unsigned char *pack_bytes(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n ? n : 1);
	size_t i;
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + seed + (i >> 8));
	if (n >= 4)
		memcpy(p, "PACK", 4);
	return p;
}

/* --- requests: v2 ---------------------------------------------------------------- */

static void test_request_v2_clone(void)
{
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	struct wg_buf out = WG_BUF_INIT, want = WG_BUF_INIT;
	struct wg_caps *caps = v2_caps(git_v2);
	struct wg_oid wants[2];
	wants[0] = fx_oid_of(fx_sha1(), 'a');
	wants[1] = fx_oid_of(fx_sha1(), 'b');
	args.algo = fx_sha1();
	args.wants = wants;
	args.nwants = 2;
	args.done = true;
	args.thin_pack = true;
	args.include_tag = true;
	CHECK_OK(wg_fetch_request_v2(&out, caps, &args));
	want_pkt(&want, "command=fetch\n");
	want_pkt(&want, "agent=webgit/0.1\n");
	want_pkt(&want, "object-format=sha1\n");
	wg_buf_adds(&want, "0001");
	want_pkt(&want, "thin-pack\n");
	want_pkt(&want, "include-tag\n");
	want_pkt(&want, "ofs-delta\n");
	want_pkt(&want, "want %s\n", fx_hexid(fx_sha1(), 'a'));
	want_pkt(&want, "want %s\n", fx_hexid(fx_sha1(), 'b'));
	want_pkt(&want, "done\n");
	wg_buf_adds(&want, "0000");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));
	wg_caps_free(caps);

	/* A bare server: no agent, no object-format line (sha1 implied);
	 * appended after what the buffer held. */
	{
		static const char *const bare[] = { "fetch", NULL };
		caps = v2_caps(bare);
		wg_buf_reset(&out);
		wg_buf_adds(&out, "keep");
		args.agent = "my-agent/1";
		args.thin_pack = args.include_tag = args.ofs_delta = false;
		args.no_progress = true;
		args.nwants = 1;
		CHECK_OK(wg_fetch_request_v2(&out, caps, &args));
		wg_buf_reset(&want);
		wg_buf_adds(&want, "keep");
		want_pkt(&want, "command=fetch\n");
		wg_buf_adds(&want, "0001");
		want_pkt(&want, "no-progress\n");
		want_pkt(&want, "want %s\n", fx_hexid(fx_sha1(), 'a'));
		want_pkt(&want, "done\n");
		wg_buf_adds(&want, "0000");
		CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));
		wg_caps_free(caps);
	}
	wg_buf_release(&out);
	wg_buf_release(&want);
}

static void test_request_v2_shallow_filter_haves(void)
{
	static const char *const caps256[] = { "agent=git/2.53.0",
					       "fetch=shallow filter sideband-all wait-for-done",
					       "object-format=sha256", NULL };
	static const char *const nots[] = { "refs/heads/old", "v1.0" };
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	struct wg_buf out = WG_BUF_INIT, want = WG_BUF_INIT;
	struct wg_caps *caps = v2_caps(caps256);
	struct wg_oid wants[1], haves[3], shallows[1];
	const struct wg_hash_algo *h = fx_sha256();
	wants[0] = fx_oid_of(h, '1');
	haves[0] = fx_oid_of(h, '2');
	haves[1] = fx_oid_of(h, '3');
	haves[2] = fx_oid_of(h, '4');
	shallows[0] = fx_oid_of(h, '5');

	/* A shallow clone of depth 1 with a filter. */
	args.algo = h;
	args.wants = wants;
	args.nwants = 1;
	args.depth = 1;
	args.filter = "blob:none";
	args.done = true;
	CHECK_OK(wg_fetch_request_v2(&out, caps, &args));
	want_pkt(&want, "command=fetch\n");
	want_pkt(&want, "agent=webgit/0.1\n");
	want_pkt(&want, "object-format=sha256\n");
	wg_buf_adds(&want, "0001");
	want_pkt(&want, "ofs-delta\n");
	want_pkt(&want, "deepen 1\n");
	want_pkt(&want, "filter blob:none\n");
	want_pkt(&want, "want %s\n", fx_hexid(h, '1'));
	want_pkt(&want, "done\n");
	wg_buf_adds(&want, "0000");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));

	/* A negotiation round of a shallow repository deepening relatively,
	 * with haves, a scaled filter, sideband-all and wait-for-done. */
	args.done = false;
	args.haves = haves;
	args.nhaves = 3;
	args.shallows = shallows;
	args.nshallows = 1;
	args.depth = 3;
	args.deepen_relative = true;
	args.filter = "blob:limit=1k";
	args.sideband_all = true;
	args.wait_for_done = true;
	args.ofs_delta = false;
	wg_buf_reset(&out);
	CHECK_OK(wg_fetch_request_v2(&out, caps, &args));
	wg_buf_reset(&want);
	want_pkt(&want, "command=fetch\n");
	want_pkt(&want, "agent=webgit/0.1\n");
	want_pkt(&want, "object-format=sha256\n");
	wg_buf_adds(&want, "0001");
	want_pkt(&want, "sideband-all\n");
	want_pkt(&want, "wait-for-done\n");
	want_pkt(&want, "shallow %s\n", fx_hexid(h, '5'));
	want_pkt(&want, "deepen 3\n");
	want_pkt(&want, "deepen-relative\n");
	want_pkt(&want, "filter blob:limit=1024\n");
	want_pkt(&want, "want %s\n", fx_hexid(h, '1'));
	want_pkt(&want, "have %s\n", fx_hexid(h, '2'));
	want_pkt(&want, "have %s\n", fx_hexid(h, '3'));
	want_pkt(&want, "have %s\n", fx_hexid(h, '4'));
	wg_buf_adds(&want, "0000");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));

	/* deepen-since and deepen-not instead of a depth. */
	args.depth = 0;
	args.deepen_relative = false;
	args.deepen_since = "1700000000";
	args.deepen_not = nots;
	args.ndeepen_not = 2;
	args.filter = "tree:0";
	args.sideband_all = args.wait_for_done = false;
	args.nhaves = 0;
	args.nshallows = 0;
	wg_buf_reset(&out);
	CHECK_OK(wg_fetch_request_v2(&out, caps, &args));
	wg_buf_reset(&want);
	want_pkt(&want, "command=fetch\n");
	want_pkt(&want, "agent=webgit/0.1\n");
	want_pkt(&want, "object-format=sha256\n");
	wg_buf_adds(&want, "0001");
	want_pkt(&want, "deepen-since 1700000000\n");
	want_pkt(&want, "deepen-not refs/heads/old\n");
	want_pkt(&want, "deepen-not v1.0\n");
	want_pkt(&want, "filter tree:0\n");
	want_pkt(&want, "want %s\n", fx_hexid(h, '1'));
	wg_buf_adds(&want, "0000");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));
	wg_caps_free(caps);
	wg_buf_release(&out);
	wg_buf_release(&want);
}

/* The request must fail with `rc`, mention `msg`, and leave out as it was. */
static void check_refused(int version, const struct wg_caps *caps, const struct wg_fetch_args *args,
			  int rc, const char *msg)
{
	struct wg_buf out = WG_BUF_INIT;
	struct wg_fetch_response *r = NULL;
	wg_buf_adds(&out, "keep");
	if (version == 2)
		CHECK_ERR(wg_fetch_request_v2(&out, caps, args), rc);
	else
		CHECK_ERR(wg_fetch_request_v0(&out, caps, args), rc);
	if (!strstr(wg_error_message(), msg)) {
		CHECK(strstr(wg_error_message(), msg) != NULL);
		fprintf(stderr, "  wanted '%s' in: %s\n", msg, wg_error_message());
	}
	CHECK_STR(wg_buf_cstr(&out), "keep");
	/* The response parser made for the same request says the same. */
	if (caps && (version == 2) == (wg_caps_version(caps) == 2))
		CHECK_ERR(wg_fetch_response_new_for(&r, caps, args), rc);
	CHECK(r == NULL);
	wg_buf_release(&out);
}

static void test_request_v2_refused(void)
{
	static const char *const plain[] = { "agent=git/2.53.0", "fetch", NULL };
	static const char *const no_fetch[] = { "ls-refs", NULL };
	static const char *const s256[] = { "fetch=shallow filter", "object-format=sha256", NULL };
	static const char *const bad_nots[] = { "refs/heads/a b" };
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	struct wg_caps *caps = v2_caps(plain), *caps2;
	struct wg_oid wants[1], other[1];
	wants[0] = fx_oid_of(fx_sha1(), 'a');
	other[0] = fx_oid_of(fx_sha256(), 'a');
	args.algo = fx_sha1();
	args.wants = wants;
	args.nwants = 1;

	/* Features the server does not advertise. */
	args.depth = 1;
	check_refused(2, caps, &args, WG_EUNSUPPORTED, "fetch=shallow");
	args.depth = 0;
	args.shallows = wants;
	args.nshallows = 1;
	check_refused(2, caps, &args, WG_EUNSUPPORTED, "shallow fetches");
	args.nshallows = 0;
	args.filter = "blob:none";
	check_refused(2, caps, &args, WG_EUNSUPPORTED, "fetch=filter");
	args.filter = NULL;
	args.sideband_all = true;
	check_refused(2, caps, &args, WG_EUNSUPPORTED, "fetch=sideband-all");
	args.sideband_all = false;
	args.wait_for_done = true;
	check_refused(2, caps, &args, WG_EUNSUPPORTED, "fetch=wait-for-done");
	args.wait_for_done = false;
	caps2 = v2_caps(no_fetch);
	check_refused(2, caps2, &args, WG_EUNSUPPORTED, "does not support the fetch command");
	wg_caps_free(caps2);
	caps2 = v2_caps(s256);
	check_refused(2, caps2, &args, WG_EUNSUPPORTED, "uses sha256 object ids but this "
		      "repository uses sha1");
	wg_caps_free(caps2);

	/* Bad arguments. */
	args.filter = "blob:nothing";
	check_refused(2, caps, &args, WG_EINVALID, "invalid filter spec 'blob:nothing'");
	args.filter = NULL;
	args.wants = other;
	check_refused(2, caps, &args, WG_EINVALID, "want 0 is a sha256 id but the repository uses sha1");
	args.wants = wants;
	args.haves = other;
	args.nhaves = 1;
	check_refused(2, caps, &args, WG_EINVALID, "have 0 is a sha256 id");
	args.nhaves = 0;
	args.nwants = 0;
	check_refused(2, caps, &args, WG_EINVALID, "at least one want");
	args.nwants = 1;
	args.algo = NULL;
	check_refused(2, caps, &args, WG_EINVALID, "object format");
	args.algo = fx_sha1();
	args.agent = "web git";
	check_refused(2, caps, &args, WG_EINVALID, "agent");
	args.agent = "";
	check_refused(2, caps, &args, WG_EINVALID, "agent");
	args.agent = NULL;
	args.deepen_since = "yesterday";
	check_refused(2, caps, &args, WG_EINVALID, "deepen-since 'yesterday'");
	args.deepen_since = "1700000000";
	args.depth = 2;
	check_refused(2, caps, &args, WG_EINVALID, "cannot be combined");
	args.deepen_since = NULL;
	args.depth = 0;
	args.deepen_relative = true;
	check_refused(2, caps, &args, WG_EINVALID, "deepen-relative needs a depth");
	args.deepen_relative = false;
	args.deepen_not = bad_nots;
	args.ndeepen_not = 1;
	check_refused(2, caps, &args, WG_EINVALID, "contains a space");
	args.ndeepen_not = 0;
	/* A v0/v1 capability list for a v2 request, and the reverse. */
	caps2 = v1_caps(GIT_V0_CAPS);
	check_refused(2, caps2, &args, WG_EINVALID, "v2 capability advertisement");
	check_refused(0, caps, &args, WG_EINVALID, "v0/v1 ref advertisement");
	wg_caps_free(caps2);
	check_refused(2, NULL, &args, WG_EINVALID, "capabilities are needed");
	check_refused(0, NULL, &args, WG_EINVALID, "capabilities are needed");
	wg_caps_free(caps);
}

/* combine: nested nine times (each level %-encodes the next once more). */
#define DEEP_COMBINE ("combine:combine%3Acombine%253Acombine%25253Acombine%2525253Acombine" \
	"%252525253Acombine%25252525253Acombine%2525252525253Acombine%252525252525253Atree" \
	"%25252525252525253A0")

static void test_filter_specs(void)
{
	static const struct { const char *in, *out; } good[] = {
		{ "blob:none", "blob:none" },
		{ "blob:limit=0", "blob:limit=0" },
		{ "blob:limit=1k", "blob:limit=1024" },
		{ "blob:limit=2M", "blob:limit=2097152" },
		{ "blob:limit=3g", "blob:limit=3221225472" },
		{ "tree:0", "tree:0" },
		{ "tree:12", "tree:12" },
		{ "sparse:oid=main:.sparse", "sparse:oid=main:.sparse" },
		{ "object:type=blob", "object:type=blob" },
		{ "object:type=tag", "object:type=tag" },
		{ "combine:tree:2+blob:none", "combine:tree:2+blob:none" },
		{ "combine:blob:limit%3d1k+object:type%3Dcommit", "combine:blob:limit%3d1k+object:type%3Dcommit" },
		{ "combine:combine%3Atree%3A1%2Bblob%3Anone+tree:0", "combine:combine%3Atree%3A1%2Bblob%3Anone+tree:0" },
	};
	static const char *const bad[] = {
		"", "blob", "blob:", "blob:nonee", "blob:limit=", "blob:limit=k", "blob:limit=-1",
		"blob:limit=1kb", "blob:limit=18446744073709551616", "blob:limit=17179869184g",
		"tree:", "tree:x", "sparse:oid=", "sparse:path=x", "object:type=", "object:type=blobs",
		"combine:", "combine:+tree:0", "combine:tree:0+", "combine:tree:0++blob:none",
		"combine:tree 0", "combine:tree%3", "combine:tree%zz", "combine:tree%3A0%0a",
		"combine:nope", "blob:none\n", "blob:none\nwant x", "BLOB:none", " blob:none",
		DEEP_COMBINE,
	};
	struct wg_buf out = WG_BUF_INIT;
	size_t i;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		wg_buf_reset(&out);
		CHECK_OK(wg_fetch_filter_normalize(&out, good[i].in));
		CHECK_STR(wg_buf_cstr(&out), good[i].out);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wg_buf_reset(&out);
		wg_buf_adds(&out, "keep");
		CHECK_ERR(wg_fetch_filter_normalize(&out, bad[i]), WG_EINVALID);
		CHECK(strstr(wg_error_message(), "invalid filter spec") != NULL);
		CHECK_STR(wg_buf_cstr(&out), "keep");
		if (strcmp(wg_buf_cstr(&out), "keep"))
			fprintf(stderr, "  for '%s'\n", bad[i]);
	}
	CHECK_ERR(wg_fetch_filter_normalize(&out, NULL), WG_EINVALID);
	/* The message says what is wrong. */
	CHECK_ERR(wg_fetch_filter_normalize(&out, "combine:tree 0"), WG_EINVALID);
	CHECK(strstr(wg_error_message(), "%-encode") != NULL);
	CHECK_ERR(wg_fetch_filter_normalize(&out, DEEP_COMBINE), WG_EINVALID);
	CHECK(strstr(wg_error_message(), "nested too deeply") != NULL);
	CHECK_ERR(wg_fetch_filter_normalize(&out, "object:type=x"), WG_EINVALID);
	CHECK(strstr(wg_error_message(), "blob, tree, commit or tag") != NULL);
	wg_buf_release(&out);
}

/* --- requests: v0/v1 --------------------------------------------------------------- */

static void test_request_v0(void)
{
	static const char *const nots[] = { "refs/heads/old" };
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	struct wg_buf out = WG_BUF_INIT, want = WG_BUF_INIT;
	struct wg_caps *caps = v1_caps(GIT_V0_CAPS);
	struct wg_oid wants[3], haves[2], shallows[2];
	const struct wg_hash_algo *h = fx_sha1();
	wants[0] = fx_oid_of(h, 'a');
	wants[1] = fx_oid_of(h, 'b');
	wants[2] = fx_oid_of(h, 'c');
	haves[0] = fx_oid_of(h, 'd');
	haves[1] = fx_oid_of(h, 'e');
	shallows[0] = fx_oid_of(h, 'f');
	shallows[1] = fx_oid_of(h, '9');

	/* A clone: capabilities on the first want only, then done. */
	args.algo = h;
	args.wants = wants;
	args.nwants = 3;
	args.done = true;
	args.thin_pack = true;
	args.include_tag = true;
	args.no_progress = true;
	CHECK_OK(wg_fetch_request_v0(&out, caps, &args));
	/* git's order; deepen-since and deepen-not whenever the server has
	 * them (as git); no "shallow", no "object-format" (git sends
	 * neither in v0) */
	want_pkt(&want, "want %s multi_ack_detailed no-done side-band-64k thin-pack no-progress "
		 "include-tag ofs-delta deepen-since deepen-not agent=webgit/0.1\n", fx_hexid(h, 'a'));
	want_pkt(&want, "want %s\n", fx_hexid(h, 'b'));
	want_pkt(&want, "want %s\n", fx_hexid(h, 'c'));
	wg_buf_adds(&want, "0000");
	want_pkt(&want, "done\n");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));

	/* A negotiation round: the haves end with a flush, no no-done. */
	args.done = false;
	args.nwants = 1;
	args.haves = haves;
	args.nhaves = 2;
	args.thin_pack = args.include_tag = args.no_progress = false;
	wg_buf_reset(&out);
	CHECK_OK(wg_fetch_request_v0(&out, caps, &args));
	wg_buf_reset(&want);
	want_pkt(&want, "want %s multi_ack_detailed side-band-64k ofs-delta deepen-since "
		 "deepen-not agent=webgit/0.1\n", fx_hexid(h, 'a'));
	wg_buf_adds(&want, "0000");
	want_pkt(&want, "have %s\n", fx_hexid(h, 'd'));
	want_pkt(&want, "have %s\n", fx_hexid(h, 'e'));
	wg_buf_adds(&want, "0000");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));

	/* The final round repeats the haves, then done. */
	args.done = true;
	wg_buf_reset(&out);
	CHECK_OK(wg_fetch_request_v0(&out, caps, &args));
	wg_buf_reset(&want);
	want_pkt(&want, "want %s multi_ack_detailed no-done side-band-64k ofs-delta "
		 "deepen-since deepen-not agent=webgit/0.1\n", fx_hexid(h, 'a'));
	wg_buf_adds(&want, "0000");
	want_pkt(&want, "have %s\n", fx_hexid(h, 'd'));
	want_pkt(&want, "have %s\n", fx_hexid(h, 'e'));
	want_pkt(&want, "done\n");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));

	/* Shallow depth 1 from a shallow repository, filtered. */
	args.nhaves = 0;
	args.depth = 1;
	args.shallows = shallows;
	args.nshallows = 2;
	args.filter = "blob:limit=2k";
	wg_buf_reset(&out);
	CHECK_OK(wg_fetch_request_v0(&out, caps, &args));
	wg_buf_reset(&want);
	want_pkt(&want, "want %s multi_ack_detailed no-done side-band-64k ofs-delta "
		 "deepen-since deepen-not agent=webgit/0.1 filter\n", fx_hexid(h, 'a'));
	want_pkt(&want, "shallow %s\n", fx_hexid(h, 'f'));
	want_pkt(&want, "shallow %s\n", fx_hexid(h, '9'));
	want_pkt(&want, "deepen 1\n");
	want_pkt(&want, "filter blob:limit=2048\n");
	wg_buf_adds(&want, "0000");
	want_pkt(&want, "done\n");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));

	/* deepen-relative is a capability in v0; deepen-since and deepen-not
	 * are lines that need their capabilities. */
	args.nshallows = 0;
	args.filter = NULL;
	args.deepen_relative = true;
	args.depth = 2;
	wg_buf_reset(&out);
	CHECK_OK(wg_fetch_request_v0(&out, caps, &args));
	wg_buf_reset(&want);
	want_pkt(&want, "want %s multi_ack_detailed no-done side-band-64k deepen-relative "
		 "ofs-delta deepen-since deepen-not agent=webgit/0.1\n", fx_hexid(h, 'a'));
	want_pkt(&want, "deepen 2\n");
	wg_buf_adds(&want, "0000");
	want_pkt(&want, "done\n");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));
	args.deepen_relative = false;
	args.depth = 0;
	args.deepen_since = "1700000000";
	args.deepen_not = nots;
	args.ndeepen_not = 1;
	wg_buf_reset(&out);
	CHECK_OK(wg_fetch_request_v0(&out, caps, &args));
	wg_buf_reset(&want);
	want_pkt(&want, "want %s multi_ack_detailed no-done side-band-64k ofs-delta "
		 "deepen-since deepen-not agent=webgit/0.1\n", fx_hexid(h, 'a'));
	want_pkt(&want, "deepen-since 1700000000\n");
	want_pkt(&want, "deepen-not refs/heads/old\n");
	wg_buf_adds(&want, "0000");
	want_pkt(&want, "done\n");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));
	wg_caps_free(caps);

	/* An old server: only what it advertises; side-band, no agent, no
	 * multi_ack_detailed, no object-format; v1 and v0 lists alike. */
	caps = v1_caps("side-band ofs-delta");
	args.deepen_since = NULL;
	args.ndeepen_not = 0;
	args.thin_pack = args.include_tag = args.no_progress = true;
	wg_buf_reset(&out);
	CHECK_OK(wg_fetch_request_v0(&out, caps, &args));
	wg_buf_reset(&want);
	want_pkt(&want, "want %s side-band ofs-delta\n", fx_hexid(h, 'a'));
	wg_buf_adds(&want, "0000");
	want_pkt(&want, "done\n");
	CHECK_STR(wg_buf_cstr(&out), wg_buf_cstr(&want));
	wg_caps_free(caps);
	wg_buf_release(&out);
	wg_buf_release(&want);
}

static void test_request_v0_refused(void)
{
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	struct wg_caps *caps;
	struct wg_oid wants[1];
	wants[0] = fx_oid_of(fx_sha1(), 'a');
	args.algo = fx_sha1();
	args.wants = wants;
	args.nwants = 1;
	args.done = true;

	caps = v1_caps("multi_ack_detailed ofs-delta agent=x");
	check_refused(0, caps, &args, WG_EUNSUPPORTED, "neither side-band-64k nor side-band");
	wg_caps_free(caps);
	caps = v1_caps("side-band-64k deepen-since deepen-not");
	args.depth = 1;
	check_refused(0, caps, &args, WG_EUNSUPPORTED, "no 'shallow' capability");
	wg_caps_free(caps);
	caps = v1_caps("side-band-64k shallow");
	args.depth = 0;
	args.deepen_since = "5";
	check_refused(0, caps, &args, WG_EUNSUPPORTED, "no 'deepen-since' capability");
	args.deepen_since = NULL;
	{
		static const char *const nots[] = { "main" };
		args.deepen_not = nots;
		args.ndeepen_not = 1;
		check_refused(0, caps, &args, WG_EUNSUPPORTED, "no 'deepen-not' capability");
		args.ndeepen_not = 0;
	}
	args.depth = 1;
	args.deepen_relative = true;
	check_refused(0, caps, &args, WG_EUNSUPPORTED, "no 'deepen-relative' capability");
	args.depth = 0;
	args.deepen_relative = false;
	args.filter = "tree:0";
	check_refused(0, caps, &args, WG_EUNSUPPORTED, "no 'filter' capability");
	args.filter = "tree:zero";
	check_refused(0, caps, &args, WG_EINVALID, "invalid filter spec");
	args.filter = NULL;
	wg_caps_free(caps);
	caps = v1_caps("side-band-64k object-format=sha256");
	check_refused(0, caps, &args, WG_EUNSUPPORTED, "uses sha256 object ids");
	wg_caps_free(caps);
}

/* --- responses --------------------------------------------------------------------- */

/* How to make the parser of a run. */
struct parser_spec {
	int version;
	bool done, sideband_all;
	const struct wg_caps *caps;        /* set: wg_fetch_response_new_for */
	const struct wg_fetch_args *args;
	const struct wg_hash_algo *algo;   /* NULL: sha1 */
};

static void trace_event(struct wg_buf *t, struct wg_buf *pack, const struct wg_fetch_event *ev)
{
	char hex[WG_MAX_HEXSZ + 1];
	wg_oid_to_hex(&ev->oid, hex);
	hex[8] = '\0';
	switch (ev->kind) {
	case WG_FETCH_EV_ACK: wg_buf_printf(t, "ACK %s;", hex); break;
	case WG_FETCH_EV_NAK: wg_buf_adds(t, "NAK;"); break;
	case WG_FETCH_EV_READY: wg_buf_printf(t, "READY %s;", hex); break;
	case WG_FETCH_EV_SHALLOW: wg_buf_printf(t, "SH %s;", hex); break;
	case WG_FETCH_EV_UNSHALLOW: wg_buf_printf(t, "UNSH %s;", hex); break;
	case WG_FETCH_EV_WANTED_REF: wg_buf_printf(t, "REF %s %s;", hex, ev->refname); break;
	case WG_FETCH_EV_PACK_DATA:
		CHECK(ev->len > 0);
		wg_buf_printf(t, "D%zu;", ev->len);
		wg_buf_add(pack, ev->data, ev->len);
		break;
	case WG_FETCH_EV_PROGRESS:
		if (ev->progress->kind == WG_PROGRESS_UPDATE)
			wg_buf_printf(t, "P[%s %llu/%llu%s];", ev->progress->phase,
				      (unsigned long long)ev->progress->done,
				      (unsigned long long)ev->progress->total,
				      ev->progress->finished ? " done" : "");
		else
			wg_buf_printf(t, "M[%s];", ev->progress->line);
		break;
	case WG_FETCH_EV_END: wg_buf_adds(t, "END;"); break;
	default: wg_buf_printf(t, "?%d;", (int)ev->kind); break;
	}
}

static struct wg_fetch_response *make_parser(const struct parser_spec *s)
{
	struct wg_fetch_response *r = NULL;
	if (s->caps)
		CHECK_OK(wg_fetch_response_new_for(&r, s->caps, s->args));
	else
		CHECK_OK(wg_fetch_response_new(&r, s->version, s->algo ? s->algo : fx_sha1(), s->done,
					       s->sideband_all));
	return r;
}

static int run_response(const struct parser_spec *s, const struct wg_buf *in, size_t split,
			struct wg_buf *trace, struct wg_buf *pack, char *msg, size_t msgsz)
{
	struct wg_fetch_response *r = make_parser(s);
	struct wg_fetch_event ev;
	struct fx_chunker c;
	unsigned char *chunk;
	size_t n;
	int rc = 0, ended = 0;
	msg[0] = '\0';
	if (!r)
		return WG_ERROR;
	fx_chunker_init(&c, in->data, in->len, split);
	while (!rc && (chunk = fx_chunker_next(&c, &n))) {
		const void *p = chunk;
		while ((rc = wg_fetch_response_next(r, &ev, &p, &n)) == 0) {
			CHECK(!ended);
			trace_event(trace, pack, &ev);
			if (ev.kind == WG_FETCH_EV_END)
				ended = 1;
		}
		if (rc == WG_ENEEDMORE) {
			CHECK(n == 0);
			rc = 0;
		}
		free(chunk);
	}
	if (!rc)
		rc = wg_fetch_response_finish(r);
	if (rc) {
		const void *p = "0000";
		n = 4;
		snprintf(msg, msgsz, "%s", wg_error_message());
		/* Errors are sticky. */
		CHECK_ERR(wg_fetch_response_next(r, &ev, &p, &n), rc);
		CHECK_STR(wg_error_message(), msg);
		CHECK_ERR(wg_fetch_response_finish(r), rc);
	} else {
		CHECK(ended);
		if (!ended)
			fprintf(stderr, "  finished without END\n");
	}
	wg_fetch_response_free(r);
	return rc;
}

/* For inputs of several 64 KiB packets: every offset near the start and
 * the end (where the packet boundaries are), every 61st in between, so
 * the suite stays fast under WASM. */
static bool sparse_splits;

/* Every split must give `want_rc`, the trace `want_trace` (the part
 * before the error, for a failure), the message part `want_msg`, and the
 * pack bytes `want_pack` (when not NULL). */
static void check_response(const struct parser_spec *s, const struct wg_buf *in, int want_rc,
			   const char *want_trace, const char *want_msg, const void *want_pack,
			   size_t want_pack_len)
{
	struct wg_buf trace = WG_BUF_INIT, pack = WG_BUF_INIT;
	char msg[1024];
	size_t i;
	for (i = 0; i <= in->len + 1; i++) {
		size_t split = i == in->len + 1 ? FX_BYTEWISE : i;
		int rc;
		if (sparse_splits && i > 2048 && i + 5000 < in->len && i % 61)
			continue;
		wg_buf_reset(&trace);
		wg_buf_reset(&pack);
		rc = run_response(s, in, split, &trace, &pack, msg, sizeof(msg));
		CHECK(rc == want_rc);
		CHECK_STR(wg_buf_cstr(&trace), want_trace);
		if (want_msg && !strstr(msg, want_msg)) {
			CHECK(strstr(msg, want_msg) != NULL);
			fprintf(stderr, "  wanted '%s' in: %s\n", want_msg, msg);
		}
		if (want_pack) {
			CHECK(pack.len == want_pack_len);
			CHECK(pack.len == want_pack_len && !memcmp(pack.data, want_pack, pack.len));
		}
		if (rc != want_rc || strcmp(wg_buf_cstr(&trace), want_trace)) {
			fprintf(stderr, "  split %zu: rc %d (%s), trace %s\n", split, rc, msg,
				wg_buf_cstr(&trace));
			break;
		}
	}
	wg_buf_release(&trace);
	wg_buf_release(&pack);
}

/* Pack bytes in band-1 packets of at most `max` bytes. */
static void pack_packets(struct wg_buf *b, const unsigned char *data, size_t len, size_t max)
{
	size_t off;
	for (off = 0; off < len; off += max)
		fx_band(b, 1, data + off, len - off < max ? len - off : max);
}

static void test_response_v2_packfile(void)
{
	struct parser_spec s = { 2, true, false, NULL, NULL, NULL };
	struct wg_buf in = WG_BUF_INIT;
	unsigned char *pack = pack_bytes(300, 1);

	/* A clone: just the packfile section, progress around the pack. */
	fx_pkt(&in, "packfile\n");
	fx_pkt(&in, "\2Enumerating objects: 5, done.\n");
	fx_pkt(&in, "\2Counting objects:  40%% (2/5)\rCounting objects: 100%% (5/5), done.\n");
	pack_packets(&in, pack, 300, 128);
	fx_band(&in, 1, "", 0); /* keepalive */
	fx_pkt(&in, "\2Total 5 (delta 0), reused 0 (delta 0), pack-reused 0\n");
	fx_flush(&in);
	check_response(&s, &in, 0,
		       "P[Enumerating objects 5/0 done];P[Counting objects 2/5];"
		       "P[Counting objects 5/5 done];D128;D128;D44;P[Total 5/5 done];END;",
		       NULL, pack, 300);
	/* A stateless response may add 0002 after the flush. */
	CHECK_OK(wg_pkt_write_response_end(&in));
	check_response(&s, &in, 0,
		       "P[Enumerating objects 5/0 done];P[Counting objects 2/5];"
		       "P[Counting objects 5/5 done];D128;D128;D44;P[Total 5/5 done];END;",
		       NULL, pack, 300);

	/* A progress line cut off by the end of the pack is still shown. */
	wg_buf_reset(&in);
	fx_pkt(&in, "packfile\n");
	fx_band(&in, 1, pack, 10);
	fx_pkt(&in, "\2Resolving: 1");
	fx_flush(&in);
	check_response(&s, &in, 0, "D10;P[Resolving 1/0];END;", NULL, pack, 10);
	free(pack);
	wg_buf_release(&in);
}

static void test_response_v2_sections(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct parser_spec done = { 2, true, false, NULL, NULL, NULL };
	struct parser_spec round = { 2, false, false, NULL, NULL, NULL };
	struct wg_buf in = WG_BUF_INIT;
	unsigned char *pack = pack_bytes(1000, 2);

	/* shallow-info, then the pack. */
	fx_pkt(&in, "shallow-info\n");
	fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'a'));
	fx_pkt(&in, "unshallow %s", fx_hexid(h, 'b'));  /* LF optional */
	fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'C'));  /* either case */
	fx_delim(&in);
	fx_pkt(&in, "packfile\n");
	pack_packets(&in, pack, 1000, 65515);
	fx_flush(&in);
	check_response(&done, &in, 0, "SH aaaaaaaa;UNSH bbbbbbbb;SH cccccccc;D1000;END;", NULL,
		       pack, 1000);

	/* wanted-refs and shallow-info, in git's order (wanted-refs first)
	 * and in the spec's. */
	wg_buf_reset(&in);
	fx_pkt(&in, "wanted-refs\n");
	fx_pkt(&in, "%s refs/heads/main\n", fx_hexid(h, '1'));
	fx_pkt(&in, "%s refs/tags/v1.0\n", fx_hexid(h, '2'));
	fx_delim(&in);
	fx_pkt(&in, "shallow-info\n");
	fx_pkt(&in, "shallow %s\n", fx_hexid(h, '3'));
	fx_delim(&in);
	fx_pkt(&in, "packfile\n");
	fx_band(&in, 1, pack, 5);
	fx_flush(&in);
	check_response(&done, &in, 0, "REF 11111111 refs/heads/main;REF 22222222 refs/tags/v1.0;"
		       "SH 33333333;D5;END;", NULL, pack, 5);
	wg_buf_reset(&in);
	fx_pkt(&in, "shallow-info\n");
	fx_delim(&in);
	fx_pkt(&in, "wanted-refs\n");
	fx_pkt(&in, "%s HEAD\n", fx_hexid(h, '1'));
	fx_delim(&in);
	fx_pkt(&in, "packfile\n");
	fx_flush(&in);
	check_response(&done, &in, 0, "REF 11111111 HEAD;END;", NULL, NULL, 0);

	/* A negotiation round that finds enough: acknowledgments with
	 * ready, then the pack in the same response. */
	wg_buf_reset(&in);
	fx_pkt(&in, "acknowledgments\n");
	fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'd'));
	fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'e'));
	fx_pkt(&in, "ready\n");
	fx_delim(&in);
	fx_pkt(&in, "packfile\n");
	fx_pkt(&in, "\2Counting objects: 3, done.\n");
	fx_band(&in, 1, pack, 700);
	fx_flush(&in);
	check_response(&round, &in, 0, "ACK dddddddd;ACK eeeeeeee;READY 00000000;"
		       "P[Counting objects 3/0 done];D700;END;", NULL, pack, 700);

	/* Rounds without ready end after the acknowledgments. */
	wg_buf_reset(&in);
	fx_pkt(&in, "acknowledgments\n");
	fx_pkt(&in, "NAK\n");
	fx_flush(&in);
	check_response(&round, &in, 0, "NAK;END;", NULL, NULL, 0);
	wg_buf_reset(&in);
	fx_pkt(&in, "acknowledgments\n");
	fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'd'));
	fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'e'));
	fx_flush(&in);
	CHECK_OK(wg_pkt_write_response_end(&in));
	check_response(&round, &in, 0, "ACK dddddddd;ACK eeeeeeee;END;", NULL, NULL, 0);
	wg_buf_reset(&in);
	fx_pkt(&in, "acknowledgments\n");
	fx_flush(&in);
	check_response(&round, &in, 0, "END;", NULL, NULL, 0);
	/* A NAK with ready (nothing in common, but the server gives up). */
	wg_buf_reset(&in);
	fx_pkt(&in, "acknowledgments\n");
	fx_pkt(&in, "NAK\n");
	fx_pkt(&in, "ready\n");
	fx_delim(&in);
	fx_pkt(&in, "packfile\n");
	fx_flush(&in);
	check_response(&round, &in, 0, "NAK;READY 00000000;END;", NULL, NULL, 0);
	/* A round with wants but no haves gets the pack directly. */
	wg_buf_reset(&in);
	fx_pkt(&in, "packfile\n");
	fx_band(&in, 1, pack, 3);
	fx_flush(&in);
	check_response(&round, &in, 0, "D3;END;", NULL, pack, 3);

	/* sha256 ids. */
	{
		struct parser_spec s256 = { 2, false, false, NULL, NULL, NULL };
		s256.algo = fx_sha256();
		wg_buf_reset(&in);
		fx_pkt(&in, "acknowledgments\n");
		fx_pkt(&in, "ACK %s\n", fx_hexid(fx_sha256(), 'f'));
		fx_pkt(&in, "ready\n");
		fx_delim(&in);
		fx_pkt(&in, "shallow-info\n");
		fx_pkt(&in, "shallow %s\n", fx_hexid(fx_sha256(), '7'));
		fx_delim(&in);
		fx_pkt(&in, "packfile\n");
		fx_flush(&in);
		check_response(&s256, &in, 0, "ACK ffffffff;READY 00000000;SH 77777777;END;", NULL,
			       NULL, 0);
	}
	free(pack);
	wg_buf_release(&in);
}

static void test_response_v2_sideband_all(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct parser_spec s = { 2, false, true, NULL, NULL, NULL };
	struct wg_buf in = WG_BUF_INIT;
	unsigned char *pack = pack_bytes(64, 3);
	fx_band(&in, 2, "", 0);  /* keepalive */
	fx_band(&in, 1, "acknowledgments\n", 16);
	fx_pkt(&in, "\1ACK %s\n", fx_hexid(h, 'a'));
	fx_band(&in, 2, "", 0);
	fx_band(&in, 1, "ready\n", 6);
	fx_delim(&in);
	fx_band(&in, 1, "shallow-info\n", 13);
	fx_pkt(&in, "\2Enumerating ");
	fx_pkt(&in, "\1shallow %s\n", fx_hexid(h, 'b'));
	fx_pkt(&in, "\2objects: 2, done.\n");
	fx_delim(&in);
	fx_band(&in, 1, "packfile\n", 9);
	fx_band(&in, 1, pack, 64);
	fx_flush(&in);
	check_response(&s, &in, 0, "ACK aaaaaaaa;READY 00000000;SH bbbbbbbb;"
		       "P[Enumerating objects 2/0 done];D64;END;", NULL, pack, 64);

	/* The server's error on band 3, before the pack. */
	wg_buf_reset(&in);
	fx_band(&in, 1, "acknowledgments\n", 16);
	fx_pkt(&in, "\3upload-pack: not our ref %s\n", fx_hexid(h, 'c'));
	check_response(&s, &in, WG_ERROR, "", "remote error: upload-pack: not our ref cccc", NULL, 0);
	/* A header without its band byte. */
	wg_buf_reset(&in);
	fx_pkt(&in, "acknowledgments\n");
	check_response(&s, &in, WG_ECORRUPT, "", "bad side-band number 97", NULL, 0);
	free(pack);
	wg_buf_release(&in);
}

static void test_response_v2_errors(void)
{
	struct parser_spec s = { 2, true, false, NULL, NULL, NULL };
	struct wg_buf in = WG_BUF_INIT;
	/* Band 3 in the pack stops everything with the server's words. */
	fx_pkt(&in, "packfile\n");
	fx_band(&in, 1, "PACK", 4);
	fx_pkt(&in, "\2Counting objects: 1\r");
	fx_pkt(&in, "\3fatal: pack-objects died\n");
	fx_band(&in, 1, "more", 4);
	fx_flush(&in);
	check_response(&s, &in, WG_ERROR, "D4;P[Counting objects 1/0];",
		       "remote error: fatal: pack-objects died", NULL, 0);
	/* An ERR packet instead of a section. */
	wg_buf_reset(&in);
	fx_pkt(&in, "ERR upload-pack: not our ref 1234\n");
	check_response(&s, &in, WG_ERROR, "", "remote error: upload-pack: not our ref 1234", NULL, 0);
	/* Or in the middle of the pack (never a valid side-band packet). */
	wg_buf_reset(&in);
	fx_pkt(&in, "packfile\n");
	fx_band(&in, 1, "PACK", 4);
	fx_pkt(&in, "ERR \x1b[31mred\n");
	check_response(&s, &in, WG_ERROR, "D4;", "remote error: \\x1b[31mred", NULL, 0);
	wg_buf_release(&in);
}

/* A v0 capability list and arguments for wg_fetch_response_new_for. */
struct v0_setup {
	struct wg_caps *caps;
	struct wg_fetch_args args;
	struct wg_oid wants[1];
};

static void v0_setup(struct v0_setup *v, const char *caps, bool done, unsigned depth)
{
	struct wg_fetch_args init = WG_FETCH_ARGS_INIT;
	v->caps = v1_caps(caps);
	v->args = init;
	v->wants[0] = fx_oid_of(fx_sha1(), 'a');
	v->args.algo = fx_sha1();
	v->args.wants = v->wants;
	v->args.nwants = 1;
	v->args.done = done;
	v->args.depth = depth;
}

static void test_response_v0(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct parser_spec clone = { 0, true, false, NULL, NULL, NULL };
	struct parser_spec round = { 1, false, false, NULL, NULL, NULL };
	struct wg_buf in = WG_BUF_INIT;
	unsigned char *pack = pack_bytes(70000, 4);
	struct v0_setup v;

	/* A clone: NAK, then the pack over side-band-64k, then a flush. */
	fx_pkt(&in, "NAK\n");
	fx_pkt(&in, "\2Enumerating objects: 9, done.\n");
	pack_packets(&in, pack, 70000, 65515);
	fx_pkt(&in, "\2Total 9 (delta 1), reused 0 (delta 0), pack-reused 0\n");
	fx_flush(&in);
	sparse_splits = true;
	check_response(&clone, &in, 0, "NAK;P[Enumerating objects 9/0 done];D65515;D4485;"
		       "P[Total 9/9 done];END;", NULL, pack, 70000);
	sparse_splits = false;

	/* multi_ack_detailed with done: common and ready ACKs, the final
	 * ACK, the pack. */
	wg_buf_reset(&in);
	fx_pkt(&in, "ACK %s common\n", fx_hexid(h, 'b'));
	fx_pkt(&in, "ACK %s common\n", fx_hexid(h, 'c'));
	fx_pkt(&in, "ACK %s ready\n", fx_hexid(h, 'd'));
	fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'c'));
	fx_band(&in, 1, pack, 100);
	fx_flush(&in);
	check_response(&clone, &in, 0, "ACK bbbbbbbb;ACK cccccccc;READY dddddddd;ACK cccccccc;"
		       "D100;END;", NULL, pack, 100);

	/* A negotiation round ends with its NAK (the server exits). */
	wg_buf_reset(&in);
	fx_pkt(&in, "ACK %s common\n", fx_hexid(h, 'b'));
	fx_pkt(&in, "ACK %s continue\n", fx_hexid(h, 'c'));
	fx_pkt(&in, "ACK %s ready\n", fx_hexid(h, 'c'));
	fx_pkt(&in, "NAK\n");
	check_response(&round, &in, 0, "ACK bbbbbbbb;ACK cccccccc;READY cccccccc;NAK;END;", NULL,
		       NULL, 0);
	wg_buf_reset(&in);
	fx_pkt(&in, "NAK");
	check_response(&round, &in, 0, "NAK;END;", NULL, NULL, 0);
	/* A server without multi_ack: its one plain ACK ends the round. */
	wg_buf_reset(&in);
	fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'b'));
	check_response(&round, &in, 0, "ACK bbbbbbbb;END;", NULL, NULL, 0);

	/* A shallow clone: the shallow list before the NAK. */
	v0_setup(&v, GIT_V0_CAPS, true, 1);
	{
		struct parser_spec s = { 0, false, false, v.caps, &v.args, NULL };
		wg_buf_reset(&in);
		fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'e'));
		fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'f'));
		fx_flush(&in);
		fx_pkt(&in, "NAK\n");
		fx_band(&in, 1, pack, 20);
		fx_flush(&in);
		check_response(&s, &in, 0, "SH eeeeeeee;SH ffffffff;NAK;D20;END;", NULL, pack, 20);
		/* The simple constructor takes it too. */
		check_response(&clone, &in, 0, "SH eeeeeeee;SH ffffffff;NAK;D20;END;", NULL, pack, 20);
		/* An empty shallow list (nothing is cut). */
		wg_buf_reset(&in);
		fx_flush(&in);
		fx_pkt(&in, "NAK\n");
		fx_band(&in, 1, pack, 20);
		fx_flush(&in);
		check_response(&s, &in, 0, "NAK;D20;END;", NULL, pack, 20);
		check_response(&clone, &in, 0, "NAK;D20;END;", NULL, pack, 20);
		/* Deepening a shallow repository: unshallow lines. */
		wg_buf_reset(&in);
		fx_pkt(&in, "unshallow %s\n", fx_hexid(h, '1'));
		fx_pkt(&in, "shallow %s\n", fx_hexid(h, '2'));
		fx_flush(&in);
		fx_pkt(&in, "ACK %s\n", fx_hexid(h, '3'));
		fx_band(&in, 1, pack, 1);
		fx_flush(&in);
		check_response(&s, &in, 0, "UNSH 11111111;SH 22222222;ACK 33333333;D1;END;", NULL,
			       pack, 1);
		/* Without the list, the depth request was not honoured. */
		wg_buf_reset(&in);
		fx_pkt(&in, "NAK\n");
		check_response(&s, &in, WG_ECORRUPT, "", "expected the shallow list", NULL, 0);
	}
	wg_caps_free(v.caps);

	/* Without a deepen, a shallow list is not expected. */
	v0_setup(&v, GIT_V0_CAPS, true, 0);
	{
		struct parser_spec s = { 0, false, false, v.caps, &v.args, NULL };
		wg_buf_reset(&in);
		fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'e'));
		check_response(&s, &in, WG_ECORRUPT, "", "unexpected shallow list", NULL, 0);
		wg_buf_reset(&in);
		fx_flush(&in);
		check_response(&s, &in, WG_ECORRUPT, "", "expected 'ACK' or 'NAK', got a flush", NULL, 0);
	}
	wg_caps_free(v.caps);

	/* side-band (not 64k): packets of at most 1000 bytes. */
	v0_setup(&v, "side-band multi_ack_detailed", true, 0);
	{
		struct parser_spec s = { 0, false, false, v.caps, &v.args, NULL };
		wg_buf_reset(&in);
		fx_pkt(&in, "NAK\n");
		pack_packets(&in, pack, 2000, 995);
		fx_flush(&in);
		check_response(&s, &in, 0, "NAK;D995;D995;D10;END;", NULL, pack, 2000);
		wg_buf_reset(&in);
		fx_pkt(&in, "NAK\n");
		pack_packets(&in, pack, 1000, 1000);
		check_response(&s, &in, WG_ECORRUPT, "NAK;", "exceeds the 1000-byte limit of side-band",
			       NULL, 0);
	}
	wg_caps_free(v.caps);
	free(pack);
	wg_buf_release(&in);
}

static void test_response_v0_errors(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct parser_spec clone = { 0, true, false, NULL, NULL, NULL };
	struct wg_buf in = WG_BUF_INIT;
	fx_pkt(&in, "ERR upload-pack: not our ref %s\n", fx_hexid(h, 'a'));
	check_response(&clone, &in, WG_ERROR, "", "remote error: upload-pack: not our ref aaaa", NULL, 0);
	wg_buf_reset(&in);
	fx_pkt(&in, "NAK\n");
	fx_band(&in, 1, "PACK", 4);
	fx_pkt(&in, "\3fatal: the remote end hung up\n");
	check_response(&clone, &in, WG_ERROR, "NAK;D4;", "remote error: fatal: the remote end hung up",
		       NULL, 0);
	wg_buf_release(&in);
}

/* Pointers into the caller's input are not kept across calls: a caller
 * may hand over a new buffer after every event. */
static void test_response_input_ownership(void)
{
	static const char *const caps_all[] = { "fetch=sideband-all", NULL };
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	struct wg_caps *caps = v2_caps(caps_all);
	struct wg_fetch_response *r;
	struct wg_fetch_event ev;
	struct wg_buf in = WG_BUF_INIT, trace = WG_BUF_INIT, pack = WG_BUF_INIT;
	struct wg_oid wants[1];
	unsigned char *copy;
	const void *p;
	size_t n;
	int rc;
	wants[0] = fx_oid_of(fx_sha1(), 'a');
	args.algo = fx_sha1();
	args.wants = wants;
	args.nwants = 1;
	args.sideband_all = true;
	fx_band(&in, 1, "packfile\n", 9);
	fx_pkt(&in, "\2Counting objects: 1\rCounting objects: 2\rCounting objects: 3, done.\n");
	fx_band(&in, 1, "PACK", 4);
	fx_flush(&in);
	CHECK_OK(wg_fetch_response_new_for(&r, caps, &args));
	copy = malloc(in.len);
	memcpy(copy, in.data, in.len);
	p = copy;
	n = in.len;
	/* Two packets' worth: the section header and the progress. */
	CHECK_OK(wg_fetch_response_next(r, &ev, &p, &n));
	trace_event(&trace, &pack, &ev);
	/* Replace the input by a fresh copy of what is left, and free the
	 * old one: the remaining progress lines must not point into it. */
	{
		size_t off = in.len - n;
		unsigned char *rest = malloc(n);
		memcpy(rest, copy + off, n);
		free(copy);
		copy = rest;
		p = copy;
	}
	while ((rc = wg_fetch_response_next(r, &ev, &p, &n)) == 0)
		trace_event(&trace, &pack, &ev);
	CHECK(rc == WG_ENEEDMORE);
	free(copy);
	CHECK_STR(wg_buf_cstr(&trace), "P[Counting objects 1/0];P[Counting objects 2/0];"
		  "P[Counting objects 3/0 done];D4;END;");
	/* After the end, no input is just "nothing more". */
	p = NULL;
	n = 0;
	CHECK_ERR(wg_fetch_response_next(r, &ev, &p, &n), WG_ENEEDMORE);
	CHECK_OK(wg_fetch_response_finish(r));
	CHECK(wg_fetch_response_pack_bytes(r) == 4);
	wg_fetch_response_free(r);

	/* An ERR line on band 1 of a sideband-all response. */
	wg_buf_reset(&in);
	fx_band(&in, 1, "ERR access denied\n", 18);
	{
		struct parser_spec s = { 2, false, false, caps, &args, NULL };
		check_response(&s, &in, WG_ERROR, "", "remote error: access denied", NULL, 0);
	}
	wg_caps_free(caps);
	wg_buf_release(&in);
	wg_buf_release(&trace);
	wg_buf_release(&pack);
}

/* --- adversarial ------------------------------------------------------------------- */

static void test_response_adversarial(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct parser_spec v2 = { 2, true, false, NULL, NULL, NULL };
	struct parser_spec v2r = { 2, false, false, NULL, NULL, NULL };
	struct parser_spec v0 = { 0, true, false, NULL, NULL, NULL };
	struct parser_spec v0r = { 0, false, false, NULL, NULL, NULL };
	struct wg_buf in = WG_BUF_INIT;

	/* Truncated: mid-pack, mid-packet, before anything. */
	fx_pkt(&in, "packfile\n");
	fx_band(&in, 1, "PACKxxxx", 8);
	check_response(&v2, &in, WG_ECORRUPT, "D8;", "closed the response early (in the pack data, "
		       "after 8 bytes)", NULL, 0);
	CHECK_OK(wg_buf_adds(&in, "0010\1PAC"));
	check_response(&v2, &in, WG_ECORRUPT, "D8;", "in the middle of a pkt-line", NULL, 0);
	wg_buf_reset(&in);
	check_response(&v2, &in, WG_ECORRUPT, "", "closed the response early (before any section)",
		       NULL, 0);
	check_response(&v0, &in, WG_ECORRUPT, "", "closed the response early (before any "
		       "acknowledgement)", NULL, 0);
	fx_pkt(&in, "NAK\n");
	fx_band(&in, 1, "PACK", 4);
	check_response(&v0, &in, WG_ECORRUPT, "NAK;D4;", "closed the response early (in the pack",
		       NULL, 0);
	wg_buf_reset(&in);
	fx_pkt(&in, "acknowledgments\n");
	fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'a'));
	check_response(&v2r, &in, WG_ECORRUPT, "ACK aaaaaaaa;", "in the acknowledgments section",
		       NULL, 0);
	wg_buf_reset(&in);
	fx_pkt(&in, "shallow-info\n");
	fx_delim(&in);
	check_response(&v2, &in, WG_ECORRUPT, "", "after the shallow-info section", NULL, 0);

	/* Ids of the wrong length or not hex. */
#define BAD(spec, rc, trace, msg, ...) do { \
		wg_buf_reset(&in); \
		__VA_ARGS__; \
		check_response(spec, &in, rc, trace, msg, NULL, 0); \
	} while (0)
	BAD(&v0, WG_ECORRUPT, "", "has 39 hex digits",
	    fx_pkt(&in, "ACK %.39s common\n", fx_hexid(h, 'a')));
	BAD(&v0, WG_ECORRUPT, "", "has 41 hex digits", fx_pkt(&in, "ACK %sa\n", fx_hexid(h, 'a')));
	BAD(&v0, WG_ECORRUPT, "", "a sha256 id, but the sha1 object format is in use",
	    fx_pkt(&in, "ACK %s\n", fx_hexid(fx_sha256(), 'a')));
	BAD(&v0, WG_ECORRUPT, "", "not hexadecimal", fx_pkt(&in, "ACK %.39sg common\n", fx_hexid(h, 'a')));
	BAD(&v0, WG_ECORRUPT, "", "bad 'ACK' line", fx_pkt(&in, "ACK \n"));
	BAD(&v0, WG_ECORRUPT, "", "common, continue or ready",
	    fx_pkt(&in, "ACK %s commons\n", fx_hexid(h, 'a')));
	BAD(&v0, WG_ECORRUPT, "", "common, continue or ready",
	    fx_pkt(&in, "ACK %s common \n", fx_hexid(h, 'a')));
	BAD(&v0, WG_ECORRUPT, "", "expected 'ACK <id> ...' or 'NAK', got 'NAKK'", fx_pkt(&in, "NAKK\n"));
	BAD(&v0, WG_ECORRUPT, "", "expected 'ACK <id> ...' or 'NAK', got 'ACK'", fx_pkt(&in, "ACK"));
	BAD(&v0, WG_ECORRUPT, "", "got ''", fx_pkt(&in, "\n"));
	BAD(&v0, WG_ECORRUPT, "", "bad 'shallow' line", fx_pkt(&in, "shallow %.39s\n", fx_hexid(h, 'a')));
	BAD(&v0, WG_ECORRUPT, "SH aaaaaaaa;", "bad 'unshallow' line",
	    fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'a')); fx_pkt(&in, "unshallow %s \n", fx_hexid(h, 'a')));
	BAD(&v0, WG_ECORRUPT, "SH aaaaaaaa;", "expected 'shallow <id>', 'unshallow <id>' or a flush",
	    fx_pkt(&in, "shallow %s\n", fx_hexid(h, 'a')); fx_pkt(&in, "NAK\n"));
	BAD(&v2r, WG_ECORRUPT, "", "has 39 hex digits",
	    fx_pkt(&in, "acknowledgments\n"); fx_pkt(&in, "ACK %.39s\n", fx_hexid(h, 'a')));
	BAD(&v2r, WG_ECORRUPT, "", "in the acknowledgments section",
	    fx_pkt(&in, "acknowledgments\n"); fx_pkt(&in, "ACK %s common\n", fx_hexid(h, 'a')));
	BAD(&v2, WG_ECORRUPT, "", "bad wanted-refs line",
	    fx_pkt(&in, "wanted-refs\n"); fx_pkt(&in, "%.20s refs/heads/x\n", fx_hexid(h, 'a')));
	BAD(&v2, WG_ECORRUPT, "", "invalid ref name",
	    fx_pkt(&in, "wanted-refs\n"); fx_pkt(&in, "%s refs/heads/a..b\n", fx_hexid(h, 'a')));
	BAD(&v2, WG_ECORRUPT, "", "expected '<id> <refname>'",
	    fx_pkt(&in, "wanted-refs\n"); fx_pkt(&in, "%s\n", fx_hexid(h, 'a')));
	BAD(&v2, WG_ECORRUPT, "", "in the shallow-info section",
	    fx_pkt(&in, "shallow-info\n"); fx_pkt(&in, "deepen %s\n", fx_hexid(h, 'a')));

	/* Unknown or misplaced sections. */
	BAD(&v2, WG_ECORRUPT, "", "expected a section header in the fetch response, got 'bogus'",
	    fx_pkt(&in, "bogus\n"));
	BAD(&v2, WG_ECORRUPT, "", "unknown section in the fetch response, got 'packfile2'",
	    fx_pkt(&in, "shallow-info\n"); fx_delim(&in); fx_pkt(&in, "packfile2\n"));
	BAD(&v2, WG_ECORRUPT, "", "packfile-uris", fx_pkt(&in, "packfile-uris\n"));
	BAD(&v2, WG_ECORRUPT, "", "acknowledgments section in the response to a request that said done",
	    fx_pkt(&in, "acknowledgments\n"));
	BAD(&v2r, WG_ECORRUPT, "", "the acknowledgments section is out of order (after shallow-info)",
	    fx_pkt(&in, "shallow-info\n"); fx_delim(&in); fx_pkt(&in, "acknowledgments\n"));
	BAD(&v2, WG_ECORRUPT, "", "the shallow-info section is out of order",
	    fx_pkt(&in, "shallow-info\n"); fx_delim(&in); fx_pkt(&in, "shallow-info\n"));
	BAD(&v2, WG_ECORRUPT, "", "the wanted-refs section is out of order",
	    fx_pkt(&in, "wanted-refs\n"); fx_delim(&in); fx_pkt(&in, "shallow-info\n"); fx_delim(&in);
	    fx_pkt(&in, "wanted-refs\n"));
	BAD(&v2r, WG_ECORRUPT, "READY 00000000;", "the acknowledgments section is out of order",
	    fx_pkt(&in, "acknowledgments\n"); fx_pkt(&in, "ready\n"); fx_delim(&in);
	    fx_pkt(&in, "acknowledgments\n"));
	BAD(&v2r, WG_ECORRUPT, "READY 00000000;", "said ready but the response ended without a packfile",
	    fx_pkt(&in, "acknowledgments\n"); fx_pkt(&in, "ready\n"); fx_flush(&in));
	BAD(&v2r, WG_ECORRUPT, "NAK;", "more sections after acknowledgments without 'ready'",
	    fx_pkt(&in, "acknowledgments\n"); fx_pkt(&in, "NAK\n"); fx_delim(&in); fx_pkt(&in, "packfile\n"));
	BAD(&v2r, WG_ECORRUPT, "ACK aaaaaaaa;", "a NAK after other acknowledgements",
	    fx_pkt(&in, "acknowledgments\n"); fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'a')); fx_pkt(&in, "NAK\n"));
	BAD(&v2r, WG_ECORRUPT, "NAK;", "an ACK after a NAK",
	    fx_pkt(&in, "acknowledgments\n"); fx_pkt(&in, "NAK\n"); fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'a')));
	BAD(&v2r, WG_ECORRUPT, "READY 00000000;", "after 'ready'",
	    fx_pkt(&in, "acknowledgments\n"); fx_pkt(&in, "ready\n"); fx_pkt(&in, "ACK %s\n", fx_hexid(h, 'a')));
	BAD(&v2, WG_ECORRUPT, "", "without a packfile",
	    fx_pkt(&in, "shallow-info\n"); fx_flush(&in));
	BAD(&v2, WG_ECORRUPT, "", "expected a section header in the fetch response, got a flush",
	    fx_flush(&in));
	BAD(&v2, WG_ECORRUPT, "", "got a delim", fx_delim(&in));
	BAD(&v2, WG_ECORRUPT, "D1;", "unexpected delim packet (0001) in the packfile section",
	    fx_pkt(&in, "packfile\n"); fx_band(&in, 1, "x", 1); fx_delim(&in));
	BAD(&v2, WG_ECORRUPT, "", "response-end packet (0002) in the packfile section",
	    fx_pkt(&in, "packfile\n"); CHECK_OK(wg_pkt_write_response_end(&in)));
	BAD(&v0, WG_ECORRUPT, "NAK;", "delim packet (0001) in a protocol v0 response",
	    fx_pkt(&in, "NAK\n"); fx_delim(&in));
	BAD(&v0, WG_ECORRUPT, "NAK;", "bad side-band number 0",
	    fx_pkt(&in, "NAK\n"); fx_band(&in, 0, "x", 1));
	BAD(&v0, WG_ECORRUPT, "NAK;", "missing band designator",
	    fx_pkt(&in, "NAK\n"); fx_pkt(&in, "%s", ""));

	/* Bad framing. */
	BAD(&v2, WG_ECORRUPT, "", "'0003'", CHECK_OK(wg_buf_adds(&in, "0003")));
	BAD(&v0, WG_ECORRUPT, "NAK;", "'0003'", fx_pkt(&in, "NAK\n"); CHECK_OK(wg_buf_adds(&in, "0003")));
	BAD(&v2, WG_ECORRUPT, "", "bad pkt-line length 'PACK'", CHECK_OK(wg_buf_adds(&in, "PACK")));
	BAD(&v2, WG_ECORRUPT, "", "exceeds the maximum", CHECK_OK(wg_buf_adds(&in, "fff1")));

	/* Garbage after the end. */
	BAD(&v2, WG_ECORRUPT, "END;", "unexpected data after the end of the fetch response",
	    fx_pkt(&in, "packfile\n"); fx_flush(&in); fx_pkt(&in, "NAK\n"));
	BAD(&v2, WG_ECORRUPT, "END;", "unexpected data after the end",
	    fx_pkt(&in, "packfile\n"); fx_flush(&in); CHECK_OK(wg_pkt_write_response_end(&in));
	    CHECK_OK(wg_pkt_write_response_end(&in)));
	BAD(&v2, WG_ECORRUPT, "END;", "unexpected data after the end",
	    fx_pkt(&in, "packfile\n"); fx_flush(&in); fx_flush(&in));
	BAD(&v2, WG_ECORRUPT, "END;", "unexpected data after the end of the fetch response (part of "
	    "a pkt-line)", fx_pkt(&in, "packfile\n"); fx_flush(&in); CHECK_OK(wg_buf_adds(&in, "00")));
	BAD(&v0, WG_ECORRUPT, "NAK;END;", "unexpected data after the end",
	    fx_pkt(&in, "NAK\n"); fx_flush(&in); fx_flush(&in));
	BAD(&v0r, WG_ECORRUPT, "NAK;END;", "unexpected data after the end",
	    fx_pkt(&in, "NAK\n"); fx_band(&in, 1, "PACK", 4));
	BAD(&v0, WG_ECORRUPT, "NAK;END;", "unexpected data after the end",
	    fx_pkt(&in, "NAK\n"); fx_flush(&in); CHECK_OK(wg_pkt_write_response_end(&in)));
#undef BAD
	wg_buf_release(&in);
}

/* --- bounded memory ---------------------------------------------------------------- */





/* Feed `rounds` copies of `unit` (after `head`) in odd-sized pieces and
 * count the events of `kind`: memory must stay at what the parser holds
 * after the first round. */
static void check_endless(const struct parser_spec *s, const struct wg_buf *head,
			  const struct wg_buf *unit, size_t rounds, enum wg_fetch_event_kind kind,
			  size_t per_unit, size_t limit)
{
	struct wg_fetch_response *r;
	struct wg_fetch_event ev;
	struct wg_buf stream = WG_BUF_INIT;
	size_t i, count = 0, off = 0;
	int rc;
	/* A block of many units, fed again and again in 1021-byte pieces. */
	for (i = 0; i < 64; i++)
		CHECK_OK(wg_buf_add(&stream, unit->data, unit->len));
	memset(&fx_tracked, 0, sizeof(fx_tracked));
	wg_allocator_set(&fx_tracking_allocator);
	r = make_parser(s);
	{
		const void *p = head->data;
		size_t n = head->len;
		while ((rc = wg_fetch_response_next(r, &ev, &p, &n)) == 0)
			;
		CHECK(rc == WG_ENEEDMORE);
	}
	for (i = 0; i < rounds; i++) {
		while (off < stream.len) {
			const void *p = stream.data + off;
			size_t n = stream.len - off < 1021 ? stream.len - off : 1021;
			off += n;
			while ((rc = wg_fetch_response_next(r, &ev, &p, &n)) == 0)
				if (ev.kind == kind)
					count++;
			CHECK(rc == WG_ENEEDMORE);
			if (rc != WG_ENEEDMORE) {
				fprintf(stderr, "  %s\n", wg_error_message());
				i = rounds;
				break;
			}
		}
		off = 0;
	}
	/* per_unit 0: some events, however many. */
	CHECK(per_unit ? count == rounds * 64 * per_unit : count > 0);
	if (fx_tracked.peak >= limit)
		fprintf(stderr, "  peak %zu bytes, limit %zu\n", fx_tracked.peak, limit);
	CHECK(fx_tracked.peak < limit);
	wg_fetch_response_free(r);
	CHECK(fx_tracked.live == 0);
	wg_allocator_set(NULL);
	wg_buf_release(&stream);
}

static void test_endless_streams_bounded(void)
{
	const struct wg_hash_algo *h = fx_sha1();
	struct parser_spec v2 = { 2, true, false, NULL, NULL, NULL };
	struct parser_spec v2all = { 2, false, true, NULL, NULL, NULL };
	struct parser_spec v0 = { 0, true, false, NULL, NULL, NULL };
	struct wg_buf head = WG_BUF_INIT, unit = WG_BUF_INIT;
	/* Endless progress in the pack (about 12 MiB of it). */
	fx_pkt(&head, "packfile\n");
	fx_pkt(&unit, "\2Receiving objects:  50%% (1/2)\rReceiving objects:  50%% (1/2)\r");
	check_endless(&v2, &head, &unit, 3000, WG_FETCH_EV_PROGRESS, 2, 4 * WG_PROGRESS_LINE_MAX);
	/* A progress line that never ends: passed on in bounded pieces. */
	wg_buf_reset(&unit);
	{
		char text[600];
		memset(text, 'x', sizeof(text));
		fx_band(&unit, 2, text, sizeof(text));
	}
	check_endless(&v2, &head, &unit, 400, WG_FETCH_EV_PROGRESS, 0, 8 * WG_PROGRESS_LINE_MAX);
	/* Endless ACKs in a v0 negotiation. */
	wg_buf_reset(&head);
	wg_buf_reset(&unit);
	fx_pkt(&unit, "ACK %s common\n", fx_hexid(h, 'a'));
	check_endless(&v0, &head, &unit, 3000, WG_FETCH_EV_ACK, 1, 4096);
	/* Endless keepalives and pack data. */
	wg_buf_reset(&head);
	wg_buf_reset(&unit);
	fx_pkt(&head, "NAK\n");
	fx_band(&unit, 1, "", 0);
	fx_band(&unit, 1, "PACK", 4);
	check_endless(&v0, &head, &unit, 3000, WG_FETCH_EV_PACK_DATA, 1, 4096);
	/* Endless sideband-all acknowledgements and keepalives. */
	wg_buf_reset(&head);
	wg_buf_reset(&unit);
	fx_band(&head, 1, "acknowledgments\n", 16);
	fx_pkt(&unit, "\1ACK %s\n", fx_hexid(h, 'b'));
	fx_band(&unit, 2, "", 0);
	check_endless(&v2all, &head, &unit, 3000, WG_FETCH_EV_ACK, 1, 4096);
	/* Endless shallow lines. */
	wg_buf_reset(&head);
	wg_buf_reset(&unit);
	fx_pkt(&head, "shallow-info\n");
	fx_pkt(&unit, "shallow %s\n", fx_hexid(h, 'c'));
	check_endless(&v2, &head, &unit, 3000, WG_FETCH_EV_SHALLOW, 1, 4096);
	wg_buf_release(&head);
	wg_buf_release(&unit);
}

/* --- allocation failures ------------------------------------------------------------ */

static void test_allocation_failures(void)
{
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	struct wg_caps *c2 = v2_caps(git_v2), *c0 = v1_caps(GIT_V0_CAPS);
	struct wg_buf in = WG_BUF_INIT;
	struct wg_oid wants[1];
	int rc, ok = 0;
	wants[0] = fx_oid_of(fx_sha1(), 'a');
	args.algo = fx_sha1();
	args.wants = wants;
	args.nwants = 1;
	args.filter = "combine:blob:none+tree:3";
	args.depth = 1;
	args.done = true;
	fx_pkt(&in, "shallow-info\n");
	fx_pkt(&in, "shallow %s\n", fx_hexid(fx_sha1(), 'b'));
	fx_delim(&in);
	fx_pkt(&in, "wanted-refs\n");
	fx_pkt(&in, "%s refs/heads/main\n", fx_hexid(fx_sha1(), 'a'));
	fx_delim(&in);
	fx_pkt(&in, "packfile\n");
	fx_pkt(&in, "\2Counting objects: 1, done.\n");
	fx_band(&in, 1, "PACK", 4);
	fx_flush(&in);
	for (fx_fail_at = 0; fx_fail_at < 200; fx_fail_at++) {
		struct wg_buf out = WG_BUF_INIT;
		struct wg_fetch_response *r = NULL;
		struct wg_fetch_event ev;
		const void *p = in.data;
		size_t n = in.len;
		fx_alloc_count = 0;
		wg_allocator_set(&fx_failing_allocator);
		rc = wg_fetch_request_v2(&out, c2, &args);
		if (!rc)
			rc = wg_fetch_request_v0(&out, c0, &args);
		if (!rc)
			rc = wg_fetch_response_new(&r, 2, fx_sha1(), true, false);
		while (!rc && (rc = wg_fetch_response_next(r, &ev, &p, &n)) == 0 &&
		       ev.kind != WG_FETCH_EV_END)
			;
		if (!rc)
			rc = wg_fetch_response_finish(r);
		wg_allocator_set(NULL);
		CHECK(rc == 0 || rc == WG_ENOMEM);
		if (rc && rc != WG_ENOMEM)
			fprintf(stderr, "  fx_fail_at %d: %s\n", fx_fail_at, wg_error_message());
		wg_fetch_response_free(r);
		wg_buf_release(&out);
		if (!rc) {
			ok = 1;
			break;
		}
	}
	CHECK(ok);
	CHECK(fx_fail_at > 5);
	wg_fetch_response_free(NULL);
	wg_caps_free(c2);
	wg_caps_free(c0);
	wg_buf_release(&in);
}

static void test_constructor_errors(void)
{
	struct wg_fetch_response *r = (struct wg_fetch_response *)1;
	CHECK_ERR(wg_fetch_response_new(&r, 3, fx_sha1(), true, false), WG_EINVALID);
	CHECK(r == NULL);
	CHECK_ERR(wg_fetch_response_new(&r, 2, NULL, true, false), WG_EINVALID);
	CHECK_OK(wg_fetch_response_new(&r, 1, fx_sha256(), false, false));
	CHECK(wg_fetch_response_pack_bytes(r) == 0);
	wg_fetch_response_free(r);
}

WG_TEST_MAIN("fetch_protocol",
	WG_TEST(test_request_v2_clone),
	WG_TEST(test_request_v2_shallow_filter_haves),
	WG_TEST(test_request_v2_refused),
	WG_TEST(test_filter_specs),
	WG_TEST(test_request_v0),
	WG_TEST(test_request_v0_refused),
	WG_TEST(test_response_v2_packfile),
	WG_TEST(test_response_v2_sections),
	WG_TEST(test_response_v2_sideband_all),
	WG_TEST(test_response_v2_errors),
	WG_TEST(test_response_v0),
	WG_TEST(test_response_v0_errors),
	WG_TEST(test_response_input_ownership),
	WG_TEST(test_response_adversarial),
	WG_TEST(test_endless_streams_bounded),
	WG_TEST(test_allocation_failures),
	WG_TEST(test_constructor_errors))
