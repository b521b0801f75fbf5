/* Unit tests for the sans-IO parts of the native HTTP client (cli/http/):
 * the no_proxy matcher, the request head writer, URL parsing where it
 * must agree with the core's wg_url_userinfo(), and Retry-After. */
#include <stdlib.h>
#include <string.h>

#include "http/proxy.h"
#include "http/request.h"
#include "http/retry.h"
#include "http/url.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/url.h"

static void test_no_proxy(void)
{
	/* curl's rules: names, domains, "*", IP addresses and CIDR */
	CHECK(http_no_proxy_match("*", "anything.example", 443));
	CHECK(http_no_proxy_match("example.com", "example.com", 80));
	CHECK(http_no_proxy_match("example.com", "www.example.com", 80));
	CHECK(http_no_proxy_match(".example.com", "www.example.com", 80));
	CHECK(http_no_proxy_match(".example.com", "example.com", 80));
	CHECK(http_no_proxy_match("*.example.com", "a.b.example.com", 80));
	CHECK(http_no_proxy_match("EXAMPLE.com.", "www.Example.COM", 80));
	CHECK(http_no_proxy_match("example.com", "example.com.", 80));
	CHECK(!http_no_proxy_match("example.com", "notexample.com", 80));
	CHECK(!http_no_proxy_match("example.com", "example.com.org", 80));
	CHECK(!http_no_proxy_match("www.example.com", "example.com", 80));
	CHECK(http_no_proxy_match("a.test, b.test ,c.test", "b.test", 80));
	CHECK(http_no_proxy_match("a.test c.test", "c.test", 80));
	CHECK(!http_no_proxy_match("a.test,,b.test", "c.test", 80));
	CHECK(!http_no_proxy_match("", "c.test", 80));
	CHECK(!http_no_proxy_match("**", "c.test", 80));
	CHECK(http_no_proxy_match("127.0.0.1", "127.0.0.1", 8080));
	CHECK(!http_no_proxy_match("127.0.0.1", "127.0.0.10", 8080));
	CHECK(!http_no_proxy_match("0.0.1", "127.0.0.1", 8080));
	CHECK(http_no_proxy_match("10.0.0.0/8", "10.200.3.4", 80));
	CHECK(!http_no_proxy_match("10.0.0.0/8", "11.0.0.1", 80));
	CHECK(http_no_proxy_match("192.168.0.0/17", "192.168.127.1", 80));
	CHECK(!http_no_proxy_match("192.168.0.0/17", "192.168.128.1", 80));
	CHECK(http_no_proxy_match("0.0.0.0/0", "8.8.8.8", 80));
	CHECK(!http_no_proxy_match("10.0.0.0/33", "10.0.0.1", 80));
	CHECK(!http_no_proxy_match("10.0.0.0/8", "ten.example", 80));
	CHECK(!http_no_proxy_match("example.com/8", "example.com", 80));
	/* IPv6, with or without brackets, and a host given with brackets */
	CHECK(http_no_proxy_match("::1", "::1", 80));
	CHECK(http_no_proxy_match("[::1]", "::1", 80));
	CHECK(http_no_proxy_match("::1", "[::1]", 80));
	CHECK(http_no_proxy_match("fd00::/8", "fd12:3456::1", 80));
	CHECK(!http_no_proxy_match("fd00::/8", "fe80::1", 80));
	CHECK(!http_no_proxy_match("::1", "127.0.0.1", 80));
	/* host:port matches that port only */
	CHECK(http_no_proxy_match("example.com:8080", "www.example.com", 8080));
	CHECK(!http_no_proxy_match("example.com:8080", "example.com", 80));
	CHECK(http_no_proxy_match("[::1]:8443", "::1", 8443));
	CHECK(!http_no_proxy_match("[::1]:8443", "::1", 443));
	CHECK(!http_no_proxy_match("example.com:x", "example.com", 80));
	CHECK(!http_no_proxy_match(NULL, "example.com", 80));
}

static void test_request_head(void)
{
	static const char *const hdrs[] = { "Git-Protocol: version=2", "Accept: */*" };
	struct http_request req = HTTP_REQUEST_INIT;
	struct http_head_spec spec;
	struct wg_buf out = WG_BUF_INIT;

	req.headers = hdrs;
	req.nheaders = 2;
	memset(&spec, 0, sizeof(spec));
	spec.method = "POST";
	spec.target = "http://h:8080/r.git/git-upload-pack";
	spec.host = "h:8080";
	spec.req = &req;
	spec.auth_line = "Authorization: Basic dTpw\r\n";
	spec.proxy_auth_line = "Proxy-Authorization: Basic cDpx\r\n";
	spec.framing = HTTP_REQ_LENGTH;
	spec.length = 12;
	spec.gzip = true;
	CHECK_OK(http_request_head(&out, &spec));
	CHECK_STR(wg_buf_cstr(&out), "POST http://h:8080/r.git/git-upload-pack HTTP/1.1\r\n"
		  "Host: h:8080\r\nUser-Agent: webgit/0.1\r\nAccept-Encoding: gzip\r\n"
		  "Authorization: Basic dTpw\r\nProxy-Authorization: Basic cDpx\r\n"
		  "Git-Protocol: version=2\r\nAccept: */*\r\nContent-Length: 12\r\n"
		  "Content-Encoding: gzip\r\n\r\n");
	/* a CONNECT: authority-form, no body, no Accept-Encoding */
	req.nheaders = 0;
	memset(&spec, 0, sizeof(spec));
	spec.method = "CONNECT";
	spec.target = spec.host = "[::1]:443";
	spec.req = &req;
	spec.connect = true;
	CHECK_OK(http_request_head(&out, &spec));
	CHECK_STR(wg_buf_cstr(&out), "CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n"
		  "User-Agent: webgit/0.1\r\n\r\n");
	CHECK_OK(http_chunk_frame(&out, "hello", 5));
	CHECK_STR(wg_buf_cstr(&out), "5\r\nhello\r\n");
	wg_buf_release(&out);

	/* what the caller may not ask for */
	{
		static const char *const bad[] = { "Host: evil", "X-A: 1\r\nX-B: 2", "No colon",
						   "Bad Name: x", "transfer-encoding: chunked" };
		size_t i;
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			req.headers = &bad[i];
			req.nheaders = 1;
			CHECK_ERR(http_request_check(&req, "GET"), WG_EINVALID);
		}
		req.nheaders = 0;
		CHECK_ERR(http_request_check(&req, "GE T"), WG_EINVALID);
		CHECK_ERR(http_request_check(&req, ""), WG_EINVALID);
		CHECK_OK(http_request_check(&req, "PROPFIND"));
	}
}

/* The client and the core must cut the user information out of a URL at
 * the same place, or a password could go to one host while the redacted
 * URL names another. */
static void test_url_userinfo_agrees(void)
{
	static const char *const urls[] = {
		"http://u:p@host/x", "http://u:p@h@host:81/x@y", "https://host/p@q",
		"http://u:p@h\\x@y/", "http://a@b?c@d/", "http://a@b#c@d/", "http://host",
	};
	size_t i;
	for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		struct http_url u;
		size_t start, len;
		bool core = wg_url_userinfo(urls[i], &start, &len);
		int rc = http_url_parse(&u, urls[i]);
		if (rc) {
			/* refused outright is fine: nothing is sent anywhere */
			CHECK(rc == WG_EINVALID);
			continue;
		}
		CHECK(core == (u.user != NULL));
		if (core && u.user) {
			/* the host starts right after the core's userinfo and its '@' */
			char *redacted = wg_url_redact_dup(urls[i]);
			CHECK(strstr(redacted, u.host) == redacted + strlen("http") + u.https + 3 +
			      (u.host[0] == '[' ? 1 : 0));
			wg_free(redacted);
		}
		http_url_release(&u);
	}
	{
		struct http_url u;
		CHECK_ERR(http_url_parse(&u, "http://u:p@h\\x@y/"), WG_EINVALID);
		CHECK(strstr(wg_error_message(), "backslash") != NULL);
		CHECK(strstr(wg_error_message(), ":p@") == NULL);
		CHECK_OK(http_url_parse(&u, "http://u:p@h@host:81/x@y"));
		CHECK_STR(u.user, "u");
		CHECK_STR(u.pass, "p@h");
		CHECK_STR(u.host, "host");
		CHECK(u.port == 81);
		CHECK_STR(u.path, "/x@y");
		http_url_release(&u);
	}
}

static void clear_proxy_env(void)
{
	static const char *const vars[] = { "http_proxy", "HTTP_PROXY", "https_proxy",
					    "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
					    "NO_PROXY", "REQUEST_METHOD" };
	size_t i;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

/* Which proxy the environment names, as curl reads it. */
static void test_retry_after(void)
{
	/* 1994-11-06 08:49:37 UTC, RFC 9110's example date */
	const time_t t = 784111777;
	long ms = -1;

	CHECK(http_status_retryable(429) && http_status_retryable(503));
	CHECK(!http_status_retryable(500) && !http_status_retryable(200) &&
	      !http_status_retryable(401));
	CHECK(http_retry_after_ms("120", t, &ms) && ms == 120000);
	CHECK(http_retry_after_ms(" 0 ", t, &ms) && ms == 0);
	/* very long: saturated, never overflowing, and over the bound */
	CHECK(http_retry_after_ms("99999999999999999999999", t, &ms) && ms > HTTP_MAX_RETRY_WAIT_MS);
	/* the three date forms, 5 s after t */
	CHECK(http_retry_after_ms("Sun, 06 Nov 1994 08:49:42 GMT", t, &ms) && ms == 5000);
	CHECK(http_retry_after_ms("Sunday, 06-Nov-94 08:49:42 GMT", t, &ms) && ms == 5000);
	CHECK(http_retry_after_ms("Sun Nov  6 08:49:42 1994", t, &ms) && ms == 5000);
	CHECK(http_retry_after_ms("Sun Nov 16 08:49:37 1994", t, &ms) && ms > HTTP_MAX_RETRY_WAIT_MS);
	CHECK(http_retry_after_ms("Sun Nov 06 08:49:38 1994", t, &ms) && ms == 1000);
	/* a leap day and a year boundary */
	CHECK(http_retry_after_ms("Tue, 29 Feb 2028 00:00:00 GMT", (time_t)1835395200 - 1, &ms) &&
	      ms == 1000);
	CHECK(http_retry_after_ms("Fri, 01 Jan 2027 00:00:00 GMT", (time_t)1798761600, &ms) &&
	      ms == 0);
	/* in the past: no wait */
	CHECK(http_retry_after_ms("Sun, 06 Nov 1994 08:00:00 GMT", t, &ms) && ms == 0);
	/* malformed: no retry */
	CHECK(!http_retry_after_ms(NULL, t, &ms));
	CHECK(!http_retry_after_ms("", t, &ms));
	CHECK(!http_retry_after_ms("soon", t, &ms));
	CHECK(!http_retry_after_ms("12s", t, &ms));
	CHECK(!http_retry_after_ms("-1", t, &ms));
	CHECK(!http_retry_after_ms("Sun, 06 Nov 1994 08:49:42 UTC", t, &ms));
	CHECK(!http_retry_after_ms("Sun, 06 Foo 1994 08:49:42 GMT", t, &ms));
	CHECK(!http_retry_after_ms("Sun, 32 Nov 1994 08:49:42 GMT", t, &ms));
	CHECK(!http_retry_after_ms("Sun, 06 Nov 1994 25:49:42 GMT", t, &ms));
	CHECK(!http_retry_after_ms("Sun, 06 Nov 1994 08:49:42 GMT junk", t, &ms));
	CHECK(!http_retry_after_ms("Sun, 06 Nov 1994", t, &ms));
	/* every prefix of a valid date is refused */
	{
		const char *d = "Sun, 06 Nov 1994 08:49:42 GMT";
		char buf[64];
		for (size_t n = 1; n < strlen(d); n++) {
			memcpy(buf, d, n);
			buf[n] = '\0';
			CHECK(!http_retry_after_ms(buf, t, &ms));
		}
	}
}

static void test_proxy_env(void)
{
	struct http_url http, https;
	struct http_proxy px;

	CHECK_OK(http_url_parse(&http, "http://git.example:8080/r.git"));
	CHECK_OK(http_url_parse(&https, "https://git.example/r.git"));
	clear_proxy_env();
	CHECK_OK(http_proxy_from_env(&px, &http));
	CHECK(!px.on);

	/* no scheme: http://; credentials percent-decoded, for the proxy only */
	setenv("http_proxy", "user:p%40ss@proxy.example:3128", 1);
	CHECK_OK(http_proxy_from_env(&px, &http));
	CHECK(px.on && !strcmp(px.url.host, "proxy.example") && px.url.port == 3128);
	CHECK_STR(px.auth_line, "Proxy-Authorization: Basic dXNlcjpwQHNz\r\n");
	CHECK_STR(px.shown, "http://proxy.example:3128");
	CHECK_STR(px.var, "http_proxy");
	http_proxy_release(&px);
	/* ... and not for https */
	CHECK_OK(http_proxy_from_env(&px, &https));
	CHECK(!px.on);

	/* curl's default port */
	setenv("HTTPS_PROXY", "http://[::1]", 1);
	CHECK_OK(http_proxy_from_env(&px, &https));
	CHECK(px.on && px.url.port == 1080 && !strcmp(px.url.host, "::1") && !px.auth_line);
	http_proxy_release(&px);
	setenv("no_proxy", ".example", 1);
	CHECK_OK(http_proxy_from_env(&px, &https));
	CHECK(!px.on);
	unsetenv("no_proxy");

	/* HTTP_PROXY, but not in a CGI program (httpoxy) */
	clear_proxy_env();
	setenv("HTTP_PROXY", "proxy.example:81", 1);
	CHECK_OK(http_proxy_from_env(&px, &http));
	CHECK(px.on && px.url.port == 81);
	http_proxy_release(&px);
	setenv("REQUEST_METHOD", "GET", 1);
	CHECK_OK(http_proxy_from_env(&px, &http));
	CHECK(!px.on);
	setenv("ALL_PROXY", "proxy.example:82", 1);
	CHECK_OK(http_proxy_from_env(&px, &http));
	CHECK(px.on && px.url.port == 82);
	http_proxy_release(&px);

	/* what cannot be used */
	clear_proxy_env();
	setenv("https_proxy", "socks5://proxy.example:1080", 1);
	CHECK_ERR(http_proxy_from_env(&px, &https), WG_EUNSUPPORTED);
	CHECK(strstr(wg_error_message(), "https_proxy") != NULL);
	setenv("https_proxy", "https://proxy.example", 1);
	CHECK_ERR(http_proxy_from_env(&px, &https), WG_EUNSUPPORTED);
	setenv("https_proxy", "http://user:secret-pw@proxy.example:99999", 1);
	CHECK_ERR(http_proxy_from_env(&px, &https), WG_EINVALID);
	CHECK(strstr(wg_error_message(), "bad proxy URL in https_proxy") != NULL);
	CHECK(strstr(wg_error_message(), "secret-pw") == NULL);
	clear_proxy_env();
	http_url_release(&http);
	http_url_release(&https);
}

WG_TEST_MAIN("http_parts",
	     WG_TEST(test_retry_after),
	     WG_TEST(test_proxy_env),
	     WG_TEST(test_no_proxy),
	     WG_TEST(test_request_head),
	     WG_TEST(test_url_userinfo_agrees))
