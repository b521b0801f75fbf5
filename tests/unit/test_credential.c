/* Unit tests for git's credential helper protocol in the native CLI
 * (cli/credential/): the key=value answer read whole and cut at every
 * offset, the lines written to a helper (byte for byte what git 2.53
 * writes), context from a URL, credential.<url> matching, the settings
 * read from config layers and the command a helper runs as. */
#include <stdio.h>
#include <string.h>

#include "credential/credential.h"
#include "credential/helper.h"
#include "test.h"
#include "util/buf.h"

static void read_str(struct cli_credential *c, const char *s, int want)
{
	CHECK_ERR(cli_credential_read(c, s, strlen(s), CLI_CRED_OP_HELPER), want);
}

/* --- reading an answer ---------------------------------------------------------------- */

static void test_read_basic(void)
{
	struct cli_credential c;
	cli_credential_init(&c);
	read_str(&c, "username=alice\npassword=pw1\n", 0);
	CHECK_STR(c.username, "alice");
	CHECK_STR(c.password, "pw1");
	CHECK(!c.quit && !c.multistage && !c.ephemeral);
	cli_credential_release(&c);
	CHECK(c.username == NULL && c.password == NULL);
}

static void test_read_end(void)
{
	struct cli_credential c;
	/* no blank line, no final newline: the end of the data ends it */
	cli_credential_init(&c);
	read_str(&c, "username=a\npassword=b", 0);
	CHECK_STR(c.password, "b");
	cli_credential_release(&c);
	/* a blank line ends it; what follows is not read */
	cli_credential_init(&c);
	read_str(&c, "username=a\n\npassword=b\n", 0);
	CHECK_STR(c.username, "a");
	CHECK(c.password == NULL);
	cli_credential_release(&c);
	/* CRLF lines, and a CRLF blank line */
	cli_credential_init(&c);
	read_str(&c, "username=a\r\npassword=b\r\n\r\nquit=1\n", 0);
	CHECK_STR(c.username, "a");
	CHECK_STR(c.password, "b");
	CHECK(!c.quit);
	cli_credential_release(&c);
	/* nothing at all */
	cli_credential_init(&c);
	read_str(&c, "", 0);
	read_str(&c, "\n", 0);
	CHECK(c.username == NULL);
	cli_credential_release(&c);
}

static void test_read_values(void)
{
	struct cli_credential c;
	cli_credential_init(&c);
	/* '=' in a value is the value's; the first '=' splits */
	read_str(&c, "password=a=b==\nusername==x\n", 0);
	CHECK_STR(c.password, "a=b==");
	CHECK_STR(c.username, "=x");
	/* empty values; the last one wins */
	read_str(&c, "username=\nusername=bob\npassword=\n", 0);
	CHECK_STR(c.username, "bob");
	CHECK_STR(c.password, "");
	/* unknown keys, an empty key and url are ignored */
	read_str(&c, "foo=bar\n=x\nurl=https://evil.example/\nhost=h2\n", 0);
	CHECK_STR(c.host, "h2");
	CHECK(c.protocol == NULL);
	/* a CR inside a value stays (only a line's last one goes) */
	read_str(&c, "username=a\rb\n", 0);
	CHECK_STR(c.username, "a\rb");
	/* lists */
	read_str(&c, "wwwauth[]=Basic realm=\"x\"\nstate[]=h:1\nstate[]=h:2\n", 0);
	CHECK(c.wwwauth.n == 1 && c.state.n == 2);
	CHECK_STR(c.state.v[1], "h:2");
	cli_credential_release(&c);
}

static void test_read_bad_lines(void)
{
	struct cli_credential c;
	static const char nul[] = "username=a\npass\0word=x\npassword=y\n";
	cli_credential_init(&c);
	/* a line without '=': an error, what came before stays */
	read_str(&c, "username=a\njunk\npassword=b\n", WG_ECORRUPT);
	CHECK_STR(c.username, "a");
	CHECK(c.password == NULL);
	CHECK(strstr(wg_error_message(), "invalid credential line") != NULL);
	/* the message does not repeat the line (it may be a secret) */
	CHECK(strstr(wg_error_message(), "junk") == NULL);
	/* a NUL byte, in a key or a value */
	CHECK_ERR(cli_credential_read(&c, nul, sizeof(nul) - 1, CLI_CRED_OP_HELPER), WG_ECORRUPT);
	CHECK(c.password == NULL);
	CHECK_ERR(cli_credential_read(&c, "password=x\0y\n", 13, CLI_CRED_OP_HELPER), WG_ECORRUPT);
	CHECK(c.password == NULL);
	/* booleans as git reads them */
	read_str(&c, "quit=bogus\n", WG_EINVALID);
	CHECK(strstr(wg_error_message(), "bad boolean config value 'bogus' for 'quit'") != NULL);
	read_str(&c, "quit=true\ncontinue=1\nephemeral=yes\n", 0);
	CHECK(c.quit && c.multistage && c.ephemeral);
	read_str(&c, "quit=0\n", 0);
	CHECK(!c.quit);
	cli_credential_release(&c);
}

static void test_read_expiry_capability(void)
{
	struct cli_credential c;
	cli_credential_init(&c);
	read_str(&c, "password_expiry_utc=1700000000\n", 0);
	CHECK(c.password_expiry_utc == 1700000000u);
	read_str(&c, "password_expiry_utc=0\n", 0);
	CHECK(c.password_expiry_utc == CLI_CRED_NO_EXPIRY);
	read_str(&c, "password_expiry_utc=soon\n", 0);
	CHECK(c.password_expiry_utc == CLI_CRED_NO_EXPIRY);
	read_str(&c, "password_expiry_utc=99999999999999999999999999\n", 0);
	CHECK(c.password_expiry_utc == CLI_CRED_NO_EXPIRY);
	/* a capability the helper announces back; unknown ones ignored */
	read_str(&c, "capability[]=authtype\ncapability[]=frobnicate\n", 0);
	CHECK(c.capa_authtype.helper && !c.capa_state.helper);
	cli_credential_release(&c);
}

/* An answer cut at every offset: complete only once the blank line is
 * in, and read whole it gives the same as in one piece. */
static void test_read_splits(void)
{
	static const char ans[] = "username=alice\r\npassword=p=w\nquit=0\n\nignored=1\n";
	size_t len = sizeof(ans) - 1, blank = strstr(ans, "\n\n") - ans + 2;
	for (size_t cut = 0; cut <= len; cut++) {
		struct cli_credential c;
		const char *last = ans + cut;
		bool partial_key;
		CHECK(cli_credential_answer_complete(ans, cut) == (cut >= blank));
		/* a last line cut before its '=' is no line at all */
		while (last > ans && last[-1] != '\n')
			last--;
		partial_key = cut < blank && last < ans + cut && !memchr(last, '=', (size_t)(ans + cut - last));
		cli_credential_init(&c);
		CHECK_ERR(cli_credential_read(&c, ans, cut, CLI_CRED_OP_HELPER),
			  partial_key ? WG_ECORRUPT : 0);
		if (cut >= blank) {
			CHECK_STR(c.username, "alice");
			CHECK_STR(c.password, "p=w");
		}
		/* a line cut short counts as a last line: a prefix of the value */
		if (cut > 9 && cut < 14)
			CHECK(c.username && !strncmp("alice", c.username, strlen(c.username)));
		cli_credential_release(&c);
	}
	CHECK(cli_credential_answer_complete("\r\n", 2));
	CHECK(!cli_credential_answer_complete("a=b\r", 4));
}

/* --- writing ---------------------------------------------------------------------------- */

static void make(struct cli_credential *c)
{
	cli_credential_init(c);
	CHECK_OK(cli_credential_from_url(c, "http://127.0.0.1:34609/git/sample.git/"));
	free(c->path);
	c->path = NULL;
	CHECK_OK(cli_strlist_push(&c->wwwauth, "Basic realm=\"webgit-test\""));
}

static void test_write_as_git(void)
{
	struct cli_credential c;
	struct wg_buf out = WG_BUF_INIT;
	make(&c);
	/* git's "get", byte for byte (no blank line at the end) */
	cli_credential_announce_all(&c);
	CHECK_OK(cli_credential_write(&c, &out, CLI_CRED_OP_HELPER));
	CHECK_STR(wg_buf_cstr(&out), "capability[]=authtype\ncapability[]=state\nprotocol=http\n"
		  "host=127.0.0.1:34609\nwwwauth[]=Basic realm=\"webgit-test\"\n");
	/* "store": no capabilities unless the helper gave them back */
	wg_buf_reset(&out);
	cli_strlist_clear(&c.wwwauth);
	read_str(&c, "username=alice\npassword=pw1\n", 0);
	CHECK_OK(cli_credential_write(&c, &out, CLI_CRED_OP_RESPONSE));
	CHECK_STR(wg_buf_cstr(&out), "protocol=http\nhost=127.0.0.1:34609\nusername=alice\n"
		  "password=pw1\n");
	/* ... and with them, all the rest in git's order */
	wg_buf_reset(&out);
	read_str(&c, "capability[]=authtype\ncapability[]=state\nstate[]=h:1\n"
		 "password_expiry_utc=99999999999\noauth_refresh_token=rt\nephemeral=1\n", 0);
	cli_credential_next_state(&c);
	CHECK_OK(cli_credential_write(&c, &out, CLI_CRED_OP_RESPONSE));
	CHECK_STR(wg_buf_cstr(&out), "capability[]=authtype\ncapability[]=state\nephemeral=1\n"
		  "protocol=http\nhost=127.0.0.1:34609\nusername=alice\npassword=pw1\n"
		  "oauth_refresh_token=rt\npassword_expiry_utc=99999999999\nstate[]=h:1\n");
	wg_buf_release(&out);
	cli_credential_release(&c);
}

static void test_write_refused(void)
{
	struct cli_credential c;
	struct wg_buf out = WG_BUF_INIT;
	make(&c);
	CHECK_OK(wg_buf_adds(&out, "kept"));
	/* a newline in a value: refused, nothing appended */
	c.username = strdup("a\nb");
	CHECK_ERR(cli_credential_write(&c, &out, CLI_CRED_OP_HELPER), WG_EINVALID);
	CHECK_STR(wg_error_message(), "credential value for username contains newline");
	CHECK_STR(wg_buf_cstr(&out), "kept");
	/* a CR: refused while credential.protectProtocol is on */
	free(c.username);
	c.username = strdup("a\rb");
	CHECK_ERR(cli_credential_write(&c, &out, CLI_CRED_OP_HELPER), WG_EINVALID);
	CHECK(strstr(wg_error_message(), "contains carriage return") != NULL);
	CHECK_STR(wg_buf_cstr(&out), "kept");
	c.protect_protocol = false;
	CHECK_OK(cli_credential_write(&c, &out, CLI_CRED_OP_HELPER));
	CHECK(strstr(wg_buf_cstr(&out), "username=a\rb\n") != NULL);
	/* a credential needs a protocol and host */
	free(c.host);
	c.host = NULL;
	CHECK_ERR(cli_credential_write(&c, &out, CLI_CRED_OP_HELPER), WG_EINVALID);
	wg_buf_release(&out);
	cli_credential_release(&c);
}

/* --- the context from a URL ------------------------------------------------------------- */

static void test_from_url(void)
{
	struct cli_credential c;
	cli_credential_init(&c);
	CHECK_OK(cli_credential_from_url(&c, "http://Example.COM:8080/git/repo.git/"));
	CHECK_STR(c.protocol, "http");
	CHECK_STR(c.host, "Example.COM:8080");
	CHECK_STR(c.path, "git/repo.git");
	CHECK(c.username == NULL);
	CHECK_OK(cli_credential_from_url(&c, "https://u%40x:pw@h/p%20q//"));
	CHECK_STR(c.username, "u@x");
	CHECK(c.password == NULL);   /* the URL's password is not a helper's business */
	CHECK_STR(c.host, "h");
	CHECK_STR(c.path, "p q");
	CHECK_OK(cli_credential_from_url(&c, "https://h"));
	CHECK(c.path == NULL && c.username == NULL);
	CHECK_OK(cli_credential_from_url(&c, "https://h?x=1"));
	CHECK_STR(c.host, "h");
	CHECK_STR(c.path, "?x=1");
	CHECK_ERR(cli_credential_from_url(&c, "no-scheme"), WG_EINVALID);
	CHECK_ERR(cli_credential_from_url(&c, "://h/"), WG_EINVALID);
	CHECK_ERR(cli_credential_from_url(&c, "https://h/a%0ab"), WG_EINVALID);
	CHECK(strstr(wg_error_message(), "newline in its path") != NULL);
	cli_credential_release(&c);
}

/* --- credential.<url> ------------------------------------------------------------------- */

static bool matches(const char *url, const char *pattern)
{
	struct cli_url_norm u, p;
	bool m;
	if (cli_url_normalize(&u, url, false))
		return false;
	if (cli_url_normalize(&p, pattern, true)) {
		cli_url_norm_release(&u);
		return false;
	}
	m = cli_url_match(&u, &p);
	cli_url_norm_release(&u);
	cli_url_norm_release(&p);
	return m;
}

static void test_url_match(void)
{
	struct cli_url_norm u;
	CHECK(matches("https://example.com/foo.git", "https://example.com"));
	CHECK(matches("https://example.com/foo.git", "HTTPS://Example.COM/"));
	CHECK(!matches("http://example.com/foo.git", "https://example.com"));
	CHECK(!matches("https://foo.example.com/", "https://example.com"));
	CHECK(!matches("https://example.com.evil/", "https://example.com"));
	/* ports: the default one is no port */
	CHECK(matches("https://example.com/x", "https://example.com:443"));
	CHECK(matches("http://example.com:80/x", "http://example.com"));
	CHECK(matches("http://h:008080/x", "http://h:8080"));
	CHECK(!matches("http://h:8080/x", "http://h"));
	CHECK(!matches("http://h/x", "http://h:8080"));
	/* wildcards: one label each */
	CHECK(matches("https://a.example.com/", "https://*.example.com"));
	CHECK(!matches("https://example.com/", "https://*.example.com"));
	CHECK(!matches("https://a.b.example.com/", "https://*.example.com"));
	/* paths: a prefix ending at a '/' */
	CHECK(matches("https://example.com/bar/baz.git", "https://example.com/bar"));
	CHECK(matches("https://example.com/bar/baz.git", "https://example.com/bar/"));
	CHECK(matches("https://example.com/bar", "https://example.com/bar/"));
	CHECK(!matches("https://example.com/barry/repo.git", "https://example.com/bar"));
	CHECK(!matches("https://example.com/other/repo.git", "https://example.com/bar"));
	CHECK(matches("https://example.com/a/./b/../bar/x", "https://example.com/a/bar"));
	CHECK(matches("https://example.com/%62ar/x", "https://example.com/bar"));
	/* user names: only if the pattern has one */
	CHECK(matches("https://me@example.com/", "https://example.com"));
	CHECK(matches("https://me@example.com/", "https://me@example.com"));
	CHECK(!matches("https://you@example.com/", "https://me@example.com"));
	CHECK(!matches("https://example.com/", "https://me@example.com"));
	/* not whole URLs */
	CHECK(cli_url_normalize(&u, "example.com", true) == -1);
	CHECK(cli_url_normalize(&u, "https://", true) == -1);
	CHECK(cli_url_normalize(&u, "https://h:0/", true) == -1);
	CHECK(cli_url_normalize(&u, "https://h:99999/", true) == -1);
	CHECK(cli_url_normalize(&u, "https://h/%zz", true) == -1);
	CHECK(cli_url_normalize(&u, "https://h/../x", true) == -1);
	CHECK(cli_url_normalize(&u, "https://*.h/", false) == -1);
}

static struct wg_config *cfg(const char *text)
{
	struct wg_config *c = NULL;
	CHECK_OK(wg_config_parse(&c, text, strlen(text), NULL));
	return c;
}

static void test_config(void)
{
	struct wg_config *user = cfg("[credential]\n\thelper = first\n\tusername = u1\n"
				     "[credential \"http://127.0.0.1:8080\"]\n\thelper = scoped\n"
				     "[credential \"http://other.example\"]\n\thelper = other\n"
				     "\tusername = nope\n"
				     "[credential \"127.0.0.1:8080\"]\n\thelper = partial\n"
				     "[credential \"http://127.0.0.1:8080/git/r.git\"]\n"
				     "\tuseHttpPath = true\n");
	struct wg_config *repo = cfg("[credential]\n\thelper =\n\thelper = \"!f() { :; }; f\"\n"
				     "\tusername = u2\n");
	const struct wg_config *layers[3] = { user, NULL, repo };
	struct cli_cred_config out;
	struct cli_credential c;

	cli_credential_init(&c);
	CHECK_OK(cli_credential_from_url(&c, "http://127.0.0.1:8080/git/r.git"));
	/* the user's file alone: every matching entry, in file order */
	CHECK_OK(cli_cred_config_read(&out, layers, 1, &c));
	CHECK(out.helpers.n == 3);
	if (out.helpers.n == 3) {
		CHECK_STR(out.helpers.v[0], "first");
		CHECK_STR(out.helpers.v[1], "scoped");
		CHECK_STR(out.helpers.v[2], "partial");
	}
	CHECK_STR(out.username, "u1");
	CHECK(out.use_http_path && out.protect_protocol);
	cli_cred_config_release(&out);
	/* the repository's empty helper resets the list */
	CHECK_OK(cli_cred_config_read(&out, layers, 3, &c));
	CHECK(out.helpers.n == 1);
	if (out.helpers.n == 1)
		CHECK_STR(out.helpers.v[0], "!f() { :; }; f");
	CHECK_STR(out.username, "u2");
	cli_cred_config_release(&out);
	/* another path: useHttpPath's key does not match it */
	CHECK_OK(cli_credential_from_url(&c, "http://127.0.0.1:8080/git/other.git"));
	CHECK_OK(cli_cred_config_read(&out, layers, 1, &c));
	CHECK(!out.use_http_path && out.helpers.n == 3);
	cli_cred_config_release(&out);
	/* another port: neither the URL key nor the partial one */
	CHECK_OK(cli_credential_from_url(&c, "http://127.0.0.1:9/git/r.git"));
	CHECK_OK(cli_cred_config_read(&out, layers, 1, &c));
	CHECK(out.helpers.n == 1);
	cli_cred_config_release(&out);
	wg_config_free(repo);
	/* a helper without a value; a bad boolean */
	repo = cfg("[credential]\n\thelper\n");
	layers[2] = repo;
	CHECK_ERR(cli_cred_config_read(&out, layers + 2, 1, &c), WG_EINVALID);
	CHECK_STR(wg_error_message(), "missing value for 'credential.helper'");
	wg_config_free(repo);
	repo = cfg("[credential]\n\tuseHttpPath = maybe\n");
	layers[2] = repo;
	CHECK_ERR(cli_cred_config_read(&out, layers + 2, 1, &c), WG_EINVALID);
	wg_config_free(repo);
	wg_config_free(user);
	cli_credential_release(&c);
}

static void test_helper_command(void)
{
	struct wg_buf b = WG_BUF_INIT;
	CHECK_OK(cli_credential_helper_command(&b, "!f() { echo x; }; f", "get"));
	CHECK_STR(wg_buf_cstr(&b), "f() { echo x; }; f get");
	wg_buf_reset(&b);
	CHECK_OK(cli_credential_helper_command(&b, "/opt/helper --with args", "store"));
	CHECK_STR(wg_buf_cstr(&b), "/opt/helper --with args store");
	wg_buf_reset(&b);
	CHECK_OK(cli_credential_helper_command(&b, "store --file=F", "erase"));
	CHECK_STR(wg_buf_cstr(&b), "git credential-store --file=F erase");
	wg_buf_release(&b);
}

WG_TEST_MAIN("credential",
	WG_TEST(test_read_basic),
	WG_TEST(test_read_end),
	WG_TEST(test_read_values),
	WG_TEST(test_read_bad_lines),
	WG_TEST(test_read_expiry_capability),
	WG_TEST(test_read_splits),
	WG_TEST(test_write_as_git),
	WG_TEST(test_write_refused),
	WG_TEST(test_from_url),
	WG_TEST(test_url_match),
	WG_TEST(test_config),
	WG_TEST(test_helper_command))
