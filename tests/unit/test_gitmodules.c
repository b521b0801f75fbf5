/* The .gitmodules and .gitattributes content checks (repo/gitmodules.h,
 * object/fsck.h): submodule names and URLs as git 2.53 judges them (every
 * name and URL below was put to git's own `test-tool submodule check-name`
 * and `check-url`, which agreed, except the empty name its line reader
 * cannot take), the blob checks with their message ids and severities, and
 * the config parser's partial entries that make a syntax error no way
 * around the check. */
#include "test.h"

#include "hash/oid.h"
#include "object/fsck.h"
#include "repo/config.h"
#include "repo/gitmodules.h"
#include "util/buf.h"

static void test_names(void)
{
	static const char *const ok[] = {
		"lib", "a/b", "a..b", "..a", "a/..b", "a\\b", "...", "x/.../y", ".", "a/./b",
	};
	static const char *const bad[] = {
		"", "..", "../x", "x/..", "x/../y", "..\\x", "x\\..", "x\\..\\y", "a/b/..",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		CHECK(wg_submodule_name_ok(ok[i]));
		if (!wg_submodule_name_ok(ok[i]))
			fprintf(stderr, "  name refused: '%s'\n", ok[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK(!wg_submodule_name_ok(bad[i]));
		if (wg_submodule_name_ok(bad[i]))
			fprintf(stderr, "  name accepted: '%s'\n", bad[i]);
	}
}

static void test_urls(void)
{
	static const char *const ok[] = {
		"https://example.com/repo.git",
		"http://user:pw@example.com:8080/a/b.git",
		"https://example.com:443/x",          /* default port */
		"https://example.com:/x",             /* empty port */
		"https://example.com:0080/x",         /* leading zeros */
		"https://[::1]:8080/x",               /* IPv6 literal */
		"https://example.com/a/../b",         /* resolvable .. */
		"https://example.com/%41%7e?q=%0d",   /* escapes; CR is not LF */
		"http::https://example.com/x",
		"ftp://example.com/x",
		"ssh://example.com/x",                 /* not curl's: not normalized */
		"git@example.com:x.git",
		"./sub", "../sub", "../../a/b", "./../x", "git://example.com/x",
		"x%0a",                                /* no scheme, not relative: passes */
		"file:///tmp/x",
		"https://example.com/%00",             /* %00 is not decoded */
		"https:example.com", "1http://example.com",   /* not curl's URLs */
		"../\\x",                             /* climbs onto neither ':' nor '/' */
	};
	static const char *const bad[] = {
		"-oProxyCommand=x", "--upload-pack=x",
		"https://example.com/%0a", "https://example.com/%0A", "https://u%0a@example.com/x",
		"https://example.com/x?%0a", "https://example.com/x#%0A",
		"https://exa mple.com/x", "https://example.com:99999/x", "https://example.com:0/x",
		"https://example.com:8a/x", "https://example.com/%zz", "https://example.com/%4",
		"https:///x", "https://:80/x", "https://example.com/../x",
		"http::-x://e", "https://ex%41mple.com/",
		"./x%0a", "../x%0A.git", "git://example.com/%0a", "./x\ny",
		"../:x", "../../:example.com/x", "./../../:x", "..//x", "..\\:x",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		CHECK(wg_submodule_url_ok(ok[i]));
		if (!wg_submodule_url_ok(ok[i]))
			fprintf(stderr, "  url refused: '%s'\n", ok[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK(!wg_submodule_url_ok(bad[i]));
		if (wg_submodule_url_ok(bad[i]))
			fprintf(stderr, "  url accepted: '%s'\n", bad[i]);
	}
	/* ".." resolved away takes the bad segment with it, as in git. */
	CHECK(wg_submodule_url_ok("https://example.com/%0a/../x"));
	CHECK(!wg_submodule_url_ok("https://example.com/x/../%0a"));
}

struct seen {
	int n;
	enum wg_fsck_msg_id id[16];
	enum wg_fsck_severity sev[16];
};

static void collect(void *payload, const struct wg_oid *oid, enum wg_object_type type,
		    enum wg_fsck_msg_id id, enum wg_fsck_severity severity, const char *message)
{
	struct seen *s = payload;
	(void)oid;
	(void)message;
	CHECK(type == WG_OBJ_BLOB);
	if (s->n < 16) {
		s->id[s->n] = id;
		s->sev[s->n] = severity;
	}
	s->n++;
}

static int gitmodules(const char *text, struct seen *s, bool strict)
{
	struct wg_fsck_options o = WG_FSCK_OPTIONS_INIT;
	struct wg_oid oid;
	wg_object_hash(&oid, wg_hash_algo_by_id(WG_HASH_SHA1), WG_OBJ_BLOB, text, strlen(text));
	memset(s, 0, sizeof(*s));
	o.strict = strict;
	o.report = collect;
	o.payload = s;
	return wg_fsck_gitmodules_blob(&o, &oid, text, strlen(text));
}

static void test_gitmodules_blob(void)
{
	struct seen s;

	CHECK_OK(gitmodules("[submodule \"a\"]\n\tpath = a\n\turl = ../a.git\n\tupdate = merge\n",
			    &s, true));
	CHECK(s.n == 0);
	CHECK_ERR(gitmodules("[submodule \"../x\"]\n\tpath = a\n", &s, false), WG_EFSCK);
	CHECK(s.n == 1 && s.id[0] == WG_FSCK_GITMODULES_NAME && s.sev[0] == WG_FSCK_ERROR);
	CHECK(strstr(wg_error_message(), "gitmodulesName: disallowed submodule name: ../x"));
	CHECK(strstr(wg_error_message(), "error in blob "));
	CHECK_ERR(gitmodules("[submodule \"x\"]\n\tURL = -x\n", &s, false), WG_EFSCK);
	CHECK(s.n == 1 && s.id[0] == WG_FSCK_GITMODULES_URL);
	CHECK_ERR(gitmodules("[Submodule \"x\"]\n\tpath = -x\n", &s, false), WG_EFSCK);
	CHECK(s.n == 1 && s.id[0] == WG_FSCK_GITMODULES_PATH);
	CHECK_ERR(gitmodules("[submodule \"x\"]\n\tupdate = !sh\n", &s, false), WG_EFSCK);
	CHECK(s.n == 1 && s.id[0] == WG_FSCK_GITMODULES_UPDATE);
	/* The deprecated [section.subsection] form and a dotted subsection. */
	CHECK_ERR(gitmodules("[submodule.x]\n\turl = -x\n", &s, false), WG_EFSCK);
	CHECK(s.n == 1 && s.id[0] == WG_FSCK_GITMODULES_URL);
	CHECK_ERR(gitmodules("[submodule \"a.b/..\"]\n\turl = x\n", &s, false), WG_EFSCK);
	CHECK(s.n == 1 && s.id[0] == WG_FSCK_GITMODULES_NAME);
	/* Not submodule entries, or no subsection, or no value: nothing. */
	CHECK_OK(gitmodules("[core]\n\turl = -x\n[submodule]\n\turl = -x\n"
			    "[submodule \"y\"]\n\turl\n\tpath\n", &s, true));
	CHECK(s.n == 0);
	/* Several problems: all reported, the first in the message. */
	CHECK_ERR(gitmodules("[submodule \"..\"]\n\turl = -u\n\tpath = -p\n", &s, false),
		  WG_EFSCK);
	/* (the name once per entry, as git checks it) */
	CHECK(s.n == 4 && s.id[0] == WG_FSCK_GITMODULES_NAME && s.id[1] == WG_FSCK_GITMODULES_URL &&
	      s.id[2] == WG_FSCK_GITMODULES_NAME && s.id[3] == WG_FSCK_GITMODULES_PATH);
	CHECK(strstr(wg_error_message(), "(and more errors)"));
	/* A syntax error: gitmodulesParse is info (never fails), but what
	 * came before it is checked. */
	CHECK_OK(gitmodules("[submodule \"x\"\n\tpath = x\n", &s, true));
	CHECK(s.n == 1 && s.id[0] == WG_FSCK_GITMODULES_PARSE && s.sev[0] == WG_FSCK_INFO);
	CHECK_ERR(gitmodules("[submodule \"x\"]\n\turl = -x\n[broken\n", &s, false), WG_EFSCK);
	CHECK(s.n == 2 && s.id[0] == WG_FSCK_GITMODULES_URL && s.id[1] == WG_FSCK_GITMODULES_PARSE);
	/* An entry cut by the error is not reported (git never sees it). */
	CHECK_OK(gitmodules("[submodule \"x\"]\n\turl = \"-x\n", &s, false));
	CHECK(s.n == 1 && s.id[0] == WG_FSCK_GITMODULES_PARSE);
}

static void test_gitmodules_overrides(void)
{
	struct wg_fsck_options o = WG_FSCK_OPTIONS_INIT;
	const char *text = "[submodule \"x\"]\n\turl = -x\n";
	CHECK_OK(wg_fsck_set_severity_by_name(&o, "gitmodulesUrl", "ignore"));
	CHECK_OK(wg_fsck_gitmodules_blob(&o, NULL, text, strlen(text)));
	CHECK_OK(wg_fsck_set_severity_by_name(&o, "gitmodulesUrl", "warn"));
	CHECK_OK(wg_fsck_gitmodules_blob(&o, NULL, text, strlen(text)));
	/* An explicit severity wins over strict, as in git. */
	o.strict = true;
	CHECK_OK(wg_fsck_gitmodules_blob(&o, NULL, text, strlen(text)));
	CHECK_OK(wg_fsck_set_severity_by_name(&o, "gitmodulesUrl", "error"));
	CHECK_ERR(wg_fsck_gitmodules_blob(&o, NULL, text, strlen(text)), WG_EFSCK);
	CHECK(strstr(wg_error_message(), "error in blob: gitmodulesUrl"));
}

static void test_gitattributes_blob(void)
{
	struct wg_buf b = WG_BUF_INIT;
	size_t i;

	for (i = 0; i < WG_FSCK_ATTR_MAX_LINE_LENGTH - 1; i++)
		wg_buf_addch(&b, 'x');
	wg_buf_adds(&b, "\n*.c text\n");
	CHECK_OK(wg_fsck_gitattributes_blob(NULL, NULL, b.data, b.len));   /* 2047 */
	wg_buf_reset(&b);
	wg_buf_adds(&b, "*.c text\n");
	for (i = 0; i < WG_FSCK_ATTR_MAX_LINE_LENGTH; i++)
		wg_buf_addch(&b, 'x');
	CHECK_ERR(wg_fsck_gitattributes_blob(NULL, NULL, b.data, b.len), WG_EFSCK);   /* 2048 */
	CHECK(strstr(wg_error_message(), "gitattributesLineLength"));
	/* git stops reading at a NUL byte. */
	wg_buf_reset(&b);
	wg_buf_adds(&b, "a");
	wg_buf_addch(&b, 0);
	for (i = 0; i < 3 * WG_FSCK_ATTR_MAX_LINE_LENGTH; i++)
		wg_buf_addch(&b, 'x');
	CHECK_OK(wg_fsck_gitattributes_blob(NULL, NULL, b.data, b.len));
	CHECK_OK(wg_fsck_gitattributes_blob(NULL, NULL, "", 0));
	wg_buf_release(&b);
}

static int count_entry(const char *key, const char *value, void *payload)
{
	int *n = payload;
	(void)value;
	CHECK(!strncmp(key, "a.", 2));
	(*n)++;
	return 0;
}

static void test_parse_entries(void)
{
	int n = 0;
	const char *ok = "[a]\n\tx = 1\n\ty\n";
	const char *bad = "[a]\n\tx = 1\n\ty = 2\n%%%\n\tz = 3\n";
	CHECK_OK(wg_config_parse_entries(ok, strlen(ok), NULL, count_entry, &n));
	CHECK(n == 2);
	n = 0;
	CHECK_ERR(wg_config_parse_entries(bad, strlen(bad), ".gitmodules", count_entry, &n),
		  WG_ECORRUPT);
	CHECK(n == 2);
	CHECK(strstr(wg_error_message(), "bad config line 4"));
}

WG_TEST_MAIN("gitmodules",
	WG_TEST(test_names),
	WG_TEST(test_urls),
	WG_TEST(test_gitmodules_blob),
	WG_TEST(test_gitmodules_overrides),
	WG_TEST(test_gitattributes_blob),
	WG_TEST(test_parse_entries))
