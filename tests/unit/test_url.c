/* Unit tests for util/url.h: the user information of a URL is cut out of
 * every form that is stored or shown (wg_url_redact), turned into an HTTP
 * Basic header (wg_url_basic_auth), and masked in messages (wg_str_mask,
 * wg_error_mask). */
#include <string.h>

#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/url.h"

static void check_redact(const char *url, const char *want)
{
	struct wg_buf b = WG_BUF_INIT;
	char *d;

	CHECK_OK(wg_url_redact(&b, url));
	CHECK_STR(wg_buf_cstr(&b), want);
	wg_buf_release(&b);
	d = wg_url_redact_dup(url);
	CHECK_STR(d, want);
	wg_free(d);
}

static void test_redact(void)
{
	check_redact("http://user:SECRET@127.0.0.1:8080/git/r.git",
		     "http://127.0.0.1:8080/git/r.git");
	check_redact("https://user@host/repo", "https://host/repo");
	check_redact("https://:tok@host", "https://host");
	check_redact("https://user:pw@host?x=1", "https://host?x=1");
	check_redact("https://user:pw@host#frag", "https://host#frag");
	/* a raw '@' in the password: the last '@' of the authority ends it */
	check_redact("http://u:p@ss@word@host/x", "http://host/x");
	/* percent-encoded parts go as a whole */
	check_redact("http://al%40ice:p%3Ass@host/", "http://host/");
	/* an '@' past the authority is the path's */
	check_redact("https://host/@scope/pkg", "https://host/@scope/pkg");
	check_redact("https://host/a?b=c@d", "https://host/a?b=c@d");
	check_redact("https://host#a@b", "https://host#a@b");
	check_redact("http://u:p@host\\@evil/", "http://host\\@evil/");
	/* without credentials, and what is not a URL, unchanged */
	check_redact("http://host/repo.git", "http://host/repo.git");
	check_redact("origin", "origin");
	check_redact("user@host:repo.git", "user@host:repo.git");
	check_redact("", "");
	check_redact("1http://u:p@host/", "1http://u:p@host/");
	check_redact("git+https://u:p@host/", "git+https://host/");
}

static void test_userinfo(void)
{
	size_t start = 99, len = 99;

	CHECK(wg_url_userinfo("http://a:b@h/", &start, &len));
	CHECK(start == 7 && len == 3);
	CHECK(wg_url_userinfo("http://@h/", &start, &len));
	CHECK(start == 7 && len == 0);
	CHECK(!wg_url_userinfo("http://h/a@b", &start, &len));
	CHECK(!wg_url_userinfo("h@x:y", &start, &len));
	CHECK(!wg_url_userinfo(NULL, &start, &len));
}

static void check_basic(const char *url, const char *want, const char *want_pw)
{
	struct wg_buf b = WG_BUF_INIT;
	char *pw = (char *)"x";

	CHECK_OK(wg_url_basic_auth(&b, url, &pw));
	CHECK_STR(wg_buf_cstr(&b), want);
	if (want_pw)
		CHECK_STR(pw, want_pw);
	else
		CHECK(pw == NULL);
	wg_url_free_secret(pw);
	wg_url_release_secret(&b);
}

static void test_basic_auth(void)
{
	/* base64("user:SECRET") */
	check_basic("http://user:SECRET@h/r", "Authorization: Basic dXNlcjpTRUNSRVQ=", "SECRET");
	/* percent-decoded: "al@ice" and "p:ss w" */
	check_basic("http://al%40ice:p%3ass%20w@h/", "Authorization: Basic YWxAaWNlOnA6c3Mgdw==",
		    "p:ss w");
	/* a ':' in the decoded user name does not split the password */
	check_basic("http://a%3Ab:c@h/", "Authorization: Basic YTpiOmM=", "c");
	/* user only: an empty password */
	check_basic("http://user@h/", "Authorization: Basic dXNlcjo=", "");
	check_basic("http://h/r", "", NULL);
	check_basic("not a url", "", NULL);
	/* lengths 1, 2 and 3 of base64's last group: "a:" "ab:" "a:bc" */
	check_basic("http://a:@h/", "Authorization: Basic YTo=", "");
	check_basic("http://ab:@h/", "Authorization: Basic YWI6", "");

	/* a bad escape is refused without repeating it */
	{
		struct wg_buf b = WG_BUF_INIT;
		char *pw = NULL;
		CHECK_ERR(wg_url_basic_auth(&b, "http://u:SECRET%zz@h/", &pw), WG_EINVALID);
		CHECK(strstr(wg_error_message(), "SECRET") == NULL);
		CHECK(b.len == 0 && pw == NULL);
		CHECK_ERR(wg_url_basic_auth(&b, "http://u:abc%4@h/", NULL), WG_EINVALID);
		CHECK_ERR(wg_url_basic_auth(&b, "http://u%:abc@h/", NULL), WG_EINVALID);
		wg_url_release_secret(&b);
	}
}

static void check_mask(const char *in, const char *secret, const char *want, size_t n)
{
	char buf[256];

	strcpy(buf, in);
	CHECK(wg_str_mask(buf, secret) == n);
	CHECK_STR(buf, want);
}

static void test_mask(void)
{
	check_mask("a SECRET b SECRETSECRET", "SECRET", "a *** b ******", 3);
	check_mask("nothing here", "SECRET", "nothing here", 0);
	check_mask("ab", "ab", "**", 1);
	check_mask("xSECRE", "SECRET", "xSECRE", 0);
	check_mask("same", NULL, "same", 0);
	check_mask("same", "", "same", 0);

	wg_error_set(WG_EAUTH, "server said: bad password 'hunter22' for hunter22");
	wg_error_mask("hunter22");
	CHECK_STR(wg_error_message(), "server said: bad password '***' for ***");
	CHECK(wg_error_code() == WG_EAUTH);
	wg_error_clear();
}

static void test_same_origin(void)
{
	CHECK(wg_url_same_origin("http://h/a.git", "http://h/b.git/info/refs?x"));
	CHECK(wg_url_same_origin("http://h:80/a", "http://H/b"));
	CHECK(wg_url_same_origin("HTTPS://h:443/a", "https://h"));
	CHECK(wg_url_same_origin("http://u:p@h:8080/a", "http://h:8080?q"));
	CHECK(wg_url_same_origin("http://h#f", "http://h/"));
	CHECK(!wg_url_same_origin("http://h/a", "https://h/a"));
	CHECK(!wg_url_same_origin("http://h:8080/a", "http://h/a"));
	CHECK(!wg_url_same_origin("https://h:80/a", "https://h/a"));
	CHECK(!wg_url_same_origin("http://h.example/a", "http://h/a"));
	CHECK(!wg_url_same_origin("http://evil@good/", "http://evil/"));
	/* the authority ends at '\\' as the userinfo rules say */
	CHECK(!wg_url_same_origin("http://good\\@evil/", "http://evil/"));
	CHECK(!wg_url_same_origin("h/a", "h/a"));
	CHECK(!wg_url_same_origin(NULL, "http://h"));
}

WG_TEST_MAIN("url",
	WG_TEST(test_redact),
	WG_TEST(test_userinfo),
	WG_TEST(test_basic_auth),
	WG_TEST(test_mask),
	WG_TEST(test_same_origin))
