/* Config files: the parser, queries and edits against what git 2.53 does.
 *
 * Every expected string below was produced by the reference git
 * (`git config --file test.cfg --list`, `--get`, `--type=bool|int --get`,
 * and `git config --file test.cfg [--add|--replace-all|--unset|--unset-all]
 * key [value]` for the edits), so these tests pin git's behaviour without
 * needing git at run time (they also run as WebAssembly). On top of that:
 * byte-exact round trips, values read back after writing, every error
 * path, truncation at every offset, very long lines, allocation failures,
 * and the file and lock handling.
 *
 * `test_config --driver CMD FILE [KEY [VALUE]]` turns this binary into a
 * tiny `git config` look-alike for tests/interop/t-config.sh. */
#include "test.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "repo/config.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/lockfile.h"

struct list_case {
	const char *name;
	const char *text;
	size_t len;
	const char *expect;  /* git config --list */
};

struct error_case {
	const char *name;
	const char *text;
	size_t len;
	int line;            /* from git's "bad config line N" */
};

struct get_case {
	const char *text;
	const char *key;
	int missing;         /* git config --get exit status */
	const char *expect;  /* NULL: a key written without '=' */
};

struct typed_case {
	const char *value;
	int fails;
	const char *expect;  /* the value git prints, or git's message */
};

struct edit_op {
	const char *op;
	const char *key;
	const char *value;
	int code;
	const char *after;   /* the file after git ran the command */
};

struct edit_case {
	const char *name;
	const char *text;
	size_t len;
	struct edit_op ops[8];
};

static const struct list_case list_cases[] = {
	{ "basic",
	  "[core]\n"
	  "\tbare = false\n"
	  "\tfilemode = true\n"
	  "[remote \"origin\"]\n"
	  "\turl = https://example.com/r.git\n"
	  "\tfetch = +refs/heads/*:refs/remotes/origin/*\n", 134,
	  "core.bare=false\n"
	  "core.filemode=true\n"
	  "remote.origin.url=https://example.com/r.git\n"
	  "remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*\n" },
	{ "case",
	  "[CoRe]\n"
	  "\tFileMode = True\n"
	  "[Remote \"OrIgin\"]\n"
	  "\tURL = x\n", 51,
	  "core.filemode=True\n"
	  "remote.OrIgin.url=x\n" },
	{ "deprecated",
	  "[a.B]\n"
	  "\tx = 1\n"
	  "[a \"B\"]\n"
	  "\ty = 2\n"
	  "[A.b.C]\n"
	  "\tz = 3\n", 43,
	  "a.b.x=1\n"
	  "a.B.y=2\n"
	  "a.b.c.z=3\n" },
	{ "subsection-escapes",
	  "[a \"x\\\"y\\\\z\\q\"]\n"
	  "\tk = v\n"
	  "[a \"sp ace\"]\n"
	  "\tk = w\n"
	  "[a \"\"]\n"
	  "\tk = e\n", 57,
	  "a.x\"y\\zq.k=v\n"
	  "a.sp ace.k=w\n"
	  "a..k=e\n" },
	{ "header-spacing",
	  "[a\t \t\"b\"]\n"
	  "\tk = 1\n"
	  "[c]k=2\n"
	  "[d] k = 3 ; c\n"
	  "[e]#x\n"
	  "\tk=4\n", 49,
	  "a.b.k=1\n"
	  "c.k=2\n"
	  "d.k=3\n"
	  "e.k=4\n" },
	{ "comments",
	  "# top\n"
	  "; semi\n"
	  "[a] # c1\n"
	  "\tk = v # inline\n"
	  "\tl = v;inline\n"
	  "\t# k = no\n"
	  "\t; l = no\n", 72,
	  "a.k=v\n"
	  "a.l=v\n" },
	{ "quotes",
	  "[a]\n"
	  "\tk1 = \"  spaced  \"\n"
	  "\tk2 = \"a # not comment\"\n"
	  "\tk3 = a\"  \"b\n"
	  "\tk4 = \"a\"b\"c\"\n"
	  "\tk5 = \"\"\n"
	  "\tk6 = x \"\" y\n", 96,
	  "a.k1=  spaced  \n"
	  "a.k2=a # not comment\n"
	  "a.k3=a  b\n"
	  "a.k4=abc\n"
	  "a.k5=\n"
	  "a.k6=x  y\n" },
	{ "escapes",
	  "[a]\n"
	  "\tk = \\t\\n"
	  "\\b\\\\\\\"\n"
	  "\tl = \"in\\tquote\\n"
	  "\"\n", 39,
	  "a.k=\t\n"
	  "\x08\\\"\n"
	  "a.l=in\tquote\n"
	  "\n" },
	{ "continuation",
	  "[a]\n"
	  "\tk = one\\\n"
	  " two\n"
	  "\tl = \"q\\\n"
	  "r\"\n"
	  "\tm = end\\\n", 41,
	  "a.k=one two\n"
	  "a.l=qr\n"
	  "a.m=end\n" },
	{ "whitespace",
	  "[a]\n"
	  "\tk =    lead\n"
	  "\tl = trail   \t \n"
	  "\tm = in   side\t\tx\n"
	  "\tn = \t \n"
	  "\to=x   ; c\n", 70,
	  "a.k=lead\n"
	  "a.l=trail\n"
	  "a.m=in   side\t\tx\n"
	  "a.n=\n"
	  "a.o=x\n" },
	{ "empty-and-bare",
	  "[a]\n"
	  "\tempty =\n"
	  "\tempty2 = \"\"\n"
	  "\tbare\n"
	  "\tbare3   \n", 42,
	  "a.empty=\n"
	  "a.empty2=\n"
	  "a.bare\n"
	  "a.bare3\n" },
	{ "equals",
	  "[a]\n"
	  "\tk = x=y=z\n"
	  "\tl==\n"
	  "\tm = \"=\" \n", 30,
	  "a.k=x=y=z\n"
	  "a.l==\n"
	  "a.m==\n" },
	{ "crlf",
	  "[a]\r\n"
	  "\tk = v\r\n"
	  "\tl = \"q\"\r\n"
	  "\tm = x\\\r\n"
	  " y\r\n", 36,
	  "a.k=v\n"
	  "a.l=q\n"
	  "a.m=x y\n" },
	{ "lone-cr",
	  "[a]\n"
	  "\tk = v\rw\n"
	  "\tl = x\r\n", 21,
	  "a.k=v\rw\n"
	  "a.l=x\n" },
	{ "bom",
	  "\xef\xbb\xbf[a]\n"
	  "\tk = v\n", 14,
	  "a.k=v\n" },
	{ "no-final-newline",
	  "[a]\n"
	  "\tk = v", 10,
	  "a.k=v\n" },
	{ "multivar",
	  "[a]\n"
	  "\tk = 1\n"
	  "\tk = 2\n"
	  "[b]\n"
	  "\tk = x\n"
	  "[a]\n"
	  "\tk = 3\n"
	  "\tK = 4\n", 47,
	  "a.k=1\n"
	  "a.k=2\n"
	  "b.k=x\n"
	  "a.k=3\n"
	  "a.k=4\n" },
	{ "before-section",
	  "top = 1\n"
	  "[a]\n"
	  "\tk = 2\n", 19,
	  "top=1\n"
	  "a.k=2\n" },
	{ "key-chars",
	  "[a-b]\n"
	  "\tk-1 = x\n"
	  "\tK9 = y\n"
	  "[.]\n"
	  "\tdot = z\n", 36,
	  "a-b.k-1=x\n"
	  "a-b.k9=y\n"
	  "..dot=z\n" },
	{ "utf8",
	  "[a \"\xc3\xbc\"]\n"
	  "\tk = gr\xc3\xbcn\n", 20,
	  "a.\xc3\xbc.k=gr\xc3\xbcn\n" },
	{ "nul-in-value",
	  "[a]\n"
	  "\tk = x\x00y\n", 13,
	  "a.k=x\n" },
	{ "include",
	  "[include]\n"
	  "\tpath = other.cfg\n"
	  "[includeIf \"gitdir:~/w/\"]\n"
	  "\tpath = w.cfg\n", 68,
	  "include.path=other.cfg\n"
	  "includeif.gitdir:~/w/.path=w.cfg\n" },
	{ "empty",
	  "", 0,
	  "" },
	{ "only-comments",
	  "# nothing\n"
	  "\n"
	  "   \n", 15,
	  "" },
};

static const struct error_case error_cases[] = {
	{ "unterminated-header", "[foo", 4, 2 },
	{ "unterminated-header-nl", "[foo\n"
	  "k = v\n", 11, 1 },
	{ "bad-header-char", "[a]\n"
	  "[b_c]\n", 10, 2 },
	{ "empty-header", "\n"
	  "[]\n", 4, 2 },
	{ "subsection-no-quote", "[a b]\n", 6, 1 },
	{ "subsection-unterminated", "[a \"b\n", 6, 1 },
	{ "subsection-no-bracket", "[a \"b\"\n"
	  "\tk = v\n", 14, 2 },
	{ "subsection-junk", "[a \"b\" ]\n", 9, 1 },
	{ "bad-escape", "[a]\n"
	  "\tk = \\x\n", 12, 2 },
	{ "unterminated-quote", "[a]\n"
	  "\tk = \"abc\n"
	  "\tl = 1\n", 21, 2 },
	{ "unterminated-quote-eof", "[a]\n"
	  "\tk = \"abc", 13, 2 },
	{ "bad-key-start", "[a]\n"
	  "\t1k = v\n", 12, 2 },
	{ "bad-key-char", "[a]\n"
	  "\tk_x = v\n", 13, 2 },
	{ "key-space", "[a]\n"
	  "\tk x = v\n", 13, 2 },
	{ "key-dot", "[a]\n"
	  "\tk.x = v\n", 13, 2 },
	{ "partial-bom", "\xef\xbb[a]\n", 6, 1 },
	{ "bare-with-comment", "[a]\n"
	  "\tk ; c\n", 11, 2 },
	{ "stray-char", "[a]\n"
	  "\tk = v\n"
	  "=x\n", 14, 3 },
	{ "crlf-line-count", "[a]\r\n"
	  "\r\n"
	  "\tk = \"x\r\n", 16, 3 },
	{ "continued-quote", "[a]\n"
	  "\tk = \"a\\\n"
	  "b\n", 15, 3 },
};

static const struct get_case get_cases[] = {
	{ "[a]\n"
	  "\tk = 1\n"
	  "\tk = 2\n",
	  "a.k", 0, "2" },
	{ "[a]\n"
	  "\tk = 1\n"
	  "\tk = 2\n",
	  "A.K", 0, "2" },
	{ "[a \"B\"]\n"
	  "\tk = v\n",
	  "a.B.k", 0, "v" },
	{ "[a \"B\"]\n"
	  "\tk = v\n",
	  "a.b.k", 1, NULL },
	{ "[a.B]\n"
	  "\tk = v\n",
	  "a.b.k", 0, "v" },
	{ "[a.B]\n"
	  "\tk = v\n",
	  "a.B.k", 1, NULL },
	{ "[a]\n"
	  "\tk\n",
	  "a.k", 0, NULL },
	{ "[a]\n"
	  "\tk =\n",
	  "a.k", 0, "" },
	{ "[a]\n"
	  "\tk = x\n",
	  "a.missing", 1, NULL },
};

static const struct typed_case bool_cases[] = {
	{ "0x", 1, "bad boolean config value '0x' for 'a.k'" },
	{ "09", 1, "bad boolean config value '09' for 'a.k'" },
	{ "2147483647", 0, "true" },
	{ "2147483648", 1, "bad boolean config value '2147483648' for 'a.k'" },
	{ "-2147483648", 0, "true" },
	{ "-2147483649", 1, "bad boolean config value '-2147483649' for 'a.k'" },
	{ "2097151k", 0, "true" },
	{ "2097152k", 1, "bad boolean config value '2097152k' for 'a.k'" },
	{ " 0", 0, "false" },
	{ "true", 0, "true" },
	{ "TRUE", 0, "true" },
	{ "yes", 0, "true" },
	{ "On", 0, "true" },
	{ "1", 0, "true" },
	{ "-1", 0, "true" },
	{ "42", 0, "true" },
	{ "1k", 0, "true" },
	{ "0", 0, "false" },
	{ "0x0", 0, "false" },
	{ "false", 0, "false" },
	{ "No", 0, "false" },
	{ "OFF", 0, "false" },
	{ "", 0, "false" },
	{ "  1", 0, "true" },
	{ "0g", 0, "false" },
	{ "x", 1, "bad boolean config value 'x' for 'a.k'" },
	{ "2 ", 1, "bad boolean config value '2 ' for 'a.k'" },
	{ "3000000000", 1, "bad boolean config value '3000000000' for 'a.k'" },
	{ "truee", 1, "bad boolean config value 'truee' for 'a.k'" },
};

static const struct typed_case int_cases[] = {
	{ "0", 0, "0" },
	{ "42", 0, "42" },
	{ "-42", 0, "-42" },
	{ "+7", 0, "7" },
	{ "0x1F", 0, "31" },
	{ "010", 0, "8" },
	{ "1k", 0, "1024" },
	{ "1K", 0, "1024" },
	{ "-2m", 0, "-2097152" },
	{ "3g", 0, "3221225472" },
	{ "8589934591g", 0, "9223372035781033984" },
	{ "9223372036854775807", 0, "9223372036854775807" },
	{ "9223372036854775808", 1, "bad numeric config value '9223372036854775808' for 'a.k' in file test.cfg: out of range" },
	{ "-9223372036854775808", 0, "-9223372036854775808" },
	{ "-9223372036854775809", 1, "bad numeric config value '-9223372036854775809' for 'a.k' in file test.cfg: out of range" },
	{ "1t", 1, "bad numeric config value '1t' for 'a.k' in file test.cfg: invalid unit" },
	{ "", 1, "bad numeric config value '' for 'a.k' in file test.cfg: invalid unit" },
	{ "x", 1, "bad numeric config value 'x' for 'a.k' in file test.cfg: invalid unit" },
	{ "  5", 0, "5" },
	{ "5 ", 1, "bad numeric config value '5 ' for 'a.k' in file test.cfg: invalid unit" },
	{ "1kk", 1, "bad numeric config value '1kk' for 'a.k' in file test.cfg: invalid unit" },
	{ "0x", 1, "bad numeric config value '0x' for 'a.k' in file test.cfg: invalid unit" },
	{ "8388608g", 0, "9007199254740992" },
	{ "8388607g", 0, "9007198180999168" },
	{ "-8388608g", 0, "-9007199254740992" },
	{ "-8388609g", 0, "-9007200328482816" },
	{ "09", 1, "bad numeric config value '09' for 'a.k' in file test.cfg: invalid unit" },
	{ "-0x10", 0, "-16" },
	{ "0X1f", 0, "31" },
	{ " \t-0x7fffffffffffffff", 0, "-9223372036854775807" },
	{ "+", 1, "bad numeric config value '+' for 'a.k' in file test.cfg: invalid unit" },
	{ "-", 1, "bad numeric config value '-' for 'a.k' in file test.cfg: invalid unit" },
	{ "0b1", 1, "bad numeric config value '0b1' for 'a.k' in file test.cfg: invalid unit" },
	{ "1e3", 1, "bad numeric config value '1e3' for 'a.k' in file test.cfg: invalid unit" },
	{ "- 1", 1, "bad numeric config value '- 1' for 'a.k' in file test.cfg: invalid unit" },
	{ "99999999999999999999x", 1, "bad numeric config value '99999999999999999999x' for 'a.k' in file test.cfg: out of range" },
	{ "-0", 0, "0" },
	{ "0x8000000000000000", 1, "bad numeric config value '0x8000000000000000' for 'a.k' in file test.cfg: out of range" },
	{ "-0x8000000000000000", 0, "-9223372036854775808" },
	{ "00000000000000000000000000000012", 0, "10" },
};

static const struct edit_case edit_cases[] = {
	{ "replace-in-place", "# head\n"
	  "[core]\n"
	  "  bare   =  false # c\n"
	  "\tother = 1\n", 47, {
		{ "set", "core.bare", "true", 0,
		  "# head\n"
		  "[core]\n"
		  "\tbare = true\n"
		  "\tother = 1\n" },
	} },
	{ "replace-keeps-crlf-around", "[a]\r\n"
	  "\tk = v\r\n"
	  "\tl = w\r\n", 21, {
		{ "set", "a.k", "new", 0,
		  "[a]\r\n"
		  "\tk = new\n"
		  "\tl = w\r\n" },
	} },
	{ "append-to-section", "[a]\n"
	  "\tk = 1\n"
	  "# trailer\n"
	  "[b]\n"
	  "\tx = 2\n", 32, {
		{ "set", "a.new", "v", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "\tnew = v\n"
		  "# trailer\n"
		  "[b]\n"
		  "\tx = 2\n" },
	} },
	{ "append-to-last-matching", "[a]\n"
	  "\tk = 1\n"
	  "[b]\n"
	  "[a]\n"
	  "\tl = 2\n"
	  "[c]\n", 30, {
		{ "set", "a.m", "3", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "[b]\n"
		  "[a]\n"
		  "\tl = 2\n"
		  "\tm = 3\n"
		  "[c]\n" },
	} },
	{ "append-empty-section", "[a]\n"
	  "[b]\n"
	  "\tx = 1\n", 15, {
		{ "set", "a.k", "v", 0,
		  "[a]\n"
		  "\tk = v\n"
		  "[b]\n"
		  "\tx = 1\n" },
	} },
	{ "append-header-trailing-space", "[a]  \n"
	  "[b]\n", 10, {
		{ "set", "a.k", "v", 0,
		  "[a]\n"
		  "\tk = v\n"
		  "  \n"
		  "[b]\n" },
	} },
	{ "header-and-entry-one-line", "[a] k = 1\n", 10, {
		{ "set", "a.k", "2", 0,
		  "[a]\n"
		  "\tk = 2\n" },
		{ "set", "a.l", "3", 0,
		  "[a]\n"
		  "\tk = 2\n"
		  "\tl = 3\n" },
	} },
	{ "new-section", "[a]\n"
	  "\tk = 1\n", 11, {
		{ "set", "b.k", "v", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "[b]\n"
		  "\tk = v\n" },
		{ "set", "B.sub.Key", "w", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "[b]\n"
		  "\tk = v\n"
		  "[B \"sub\"]\n"
		  "\tKey = w\n" },
		{ "set", "c.x\"y\\\\z.k", "q", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "[b]\n"
		  "\tk = v\n"
		  "[B \"sub\"]\n"
		  "\tKey = w\n"
		  "[c \"x\\\"y\\\\\\\\z\"]\n"
		  "\tk = q\n" },
	} },
	{ "new-section-no-newline", "[a]\n"
	  "\tk = 1", 10, {
		{ "set", "b.k", "v", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "[b]\n"
		  "\tk = v\n" },
	} },
	{ "replace-no-newline", "[a]\n"
	  "\tk = 1", 10, {
		{ "set", "a.k", "2", 0,
		  "[a]\n"
		  "\tk = 2\n" },
	} },
	{ "new-in-empty", "", 0, {
		{ "set", "core.bare", "false", 0,
		  "[core]\n"
		  "\tbare = false\n" },
		{ "set", "core.filemode", "true", 0,
		  "[core]\n"
		  "\tbare = false\n"
		  "\tfilemode = true\n" },
	} },
	{ "key-case-kept", "", 0, {
		{ "set", "Core.FooBar", "x", 0,
		  "[Core]\n"
		  "\tFooBar = x\n" },
		{ "set", "core.foobar", "y", 0,
		  "[Core]\n"
		  "\tfoobar = y\n" },
		{ "set", "CORE.Other", "z", 0,
		  "[Core]\n"
		  "\tfoobar = y\n"
		  "\tOther = z\n" },
	} },
	{ "subsection-case", "[a \"B\"]\n"
	  "\tk = 1\n", 15, {
		{ "set", "a.b.k", "2", 0,
		  "[a \"B\"]\n"
		  "\tk = 1\n"
		  "[a \"b\"]\n"
		  "\tk = 2\n" },
		{ "set", "A.B.k", "3", 0,
		  "[a \"B\"]\n"
		  "\tk = 3\n"
		  "[a \"b\"]\n"
		  "\tk = 2\n" },
	} },
	{ "deprecated-section", "[a.B]\n"
	  "\tk = 1\n", 13, {
		{ "set", "a.b.k", "2", 0,
		  "[a.B]\n"
		  "\tk = 2\n" },
		{ "set", "a.B.l", "3", 0,
		  "[a.B]\n"
		  "\tk = 2\n"
		  "\tl = 3\n" },
	} },
	{ "quote-lead", "[a]\n", 4, {
		{ "set", "a.lead", " x", 0,
		  "[a]\n"
		  "\tlead = \" x\"\n" },
	} },
	{ "quote-trail", "[a]\n", 4, {
		{ "set", "a.trail", "x ", 0,
		  "[a]\n"
		  "\ttrail = \"x \"\n" },
	} },
	{ "quote-hash", "[a]\n", 4, {
		{ "set", "a.hash", "a#b", 0,
		  "[a]\n"
		  "\thash = \"a#b\"\n" },
	} },
	{ "quote-semi", "[a]\n", 4, {
		{ "set", "a.semi", "a;b", 0,
		  "[a]\n"
		  "\tsemi = \"a;b\"\n" },
	} },
	{ "quote-quote", "[a]\n", 4, {
		{ "set", "a.quote", "say \"hi\"", 0,
		  "[a]\n"
		  "\tquote = say \\\"hi\\\"\n" },
	} },
	{ "quote-bs", "[a]\n", 4, {
		{ "set", "a.bs", "c:\\dir", 0,
		  "[a]\n"
		  "\tbs = c:\\\\dir\n" },
	} },
	{ "quote-nl", "[a]\n", 4, {
		{ "set", "a.nl", "one\ntwo", 0,
		  "[a]\n"
		  "\tnl = one\\n"
		  "two\n" },
	} },
	{ "quote-tab", "[a]\n", 4, {
		{ "set", "a.tab", "a\tb", 0,
		  "[a]\n"
		  "\ttab = a\\tb\n" },
	} },
	{ "quote-cr", "[a]\n", 4, {
		{ "set", "a.cr", "a\rb", 0,
		  "[a]\n"
		  "\tcr = \"a\rb\"\n" },
	} },
	{ "quote-empty", "[a]\n", 4, {
		{ "set", "a.empty", "", 0,
		  "[a]\n"
		  "\tempty = \n" },
	} },
	{ "quote-eq", "[a]\n", 4, {
		{ "set", "a.eq", "x = y", 0,
		  "[a]\n"
		  "\teq = x = y\n" },
	} },
	{ "quote-bsp", "[a]\n", 4, {
		{ "set", "a.bsp", "\x08", 0,
		  "[a]\n"
		  "\tbsp = \x08\n" },
	} },
	{ "quote-sp", "[a]\n", 4, {
		{ "set", "a.sp", " ", 0,
		  "[a]\n"
		  "\tsp = \" \"\n" },
	} },
	{ "quote-crlf", "[a]\n", 4, {
		{ "set", "a.crlf", "a\r\nb", 0,
		  "[a]\n"
		  "\tcrlf = \"a\r\\n"
		  "b\"\n" },
	} },
	{ "quote-trailnl", "[a]\n", 4, {
		{ "set", "a.trailnl", "x\n", 0,
		  "[a]\n"
		  "\ttrailnl = x\\n"
		  "\n" },
	} },
	{ "quote-bracket", "[a]\n", 4, {
		{ "set", "a.bracket", "[s] k = v", 0,
		  "[a]\n"
		  "\tbracket = [s] k = v\n" },
	} },
	{ "add", "[a]\n"
	  "\tk = 1\n"
	  "[b]\n", 15, {
		{ "add", "a.k", "2", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "\tk = 2\n"
		  "[b]\n" },
		{ "add", "a.k", "1", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "\tk = 2\n"
		  "\tk = 1\n"
		  "[b]\n" },
		{ "add", "b.k", "x", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "\tk = 2\n"
		  "\tk = 1\n"
		  "[b]\n"
		  "\tk = x\n" },
		{ "add", "c.k", "y", 0,
		  "[a]\n"
		  "\tk = 1\n"
		  "\tk = 2\n"
		  "\tk = 1\n"
		  "[b]\n"
		  "\tk = x\n"
		  "[c]\n"
		  "\tk = y\n" },
	} },
	{ "set-ambiguous", "[a]\n"
	  "\tk = 1\n"
	  "\tk = 2\n", 18, {
		{ "set", "a.k", "3", WG_EAMBIGUOUS,
		  "[a]\n"
		  "\tk = 1\n"
		  "\tk = 2\n" },
	} },
	{ "replace-all", "[a]\n"
	  "\tk = 1\n"
	  "\tl = x\n"
	  "\tk = 2\n"
	  "[b]\n"
	  "[a]\n"
	  "\tk = 3\n"
	  "\tm = y\n", 47, {
		{ "replace-all", "a.k", "new", 0,
		  "[a]\n"
		  "\tl = x\n"
		  "[b]\n"
		  "[a]\n"
		  "\tk = new\n"
		  "\tm = y\n" },
	} },
	{ "unset-keeps-others", "[a]\n"
	  "\tk = 1\n"
	  "\tl = 2\n", 18, {
		{ "unset", "a.k", NULL, 0,
		  "[a]\n"
		  "\tl = 2\n" },
	} },
	{ "unset-removes-section", "[a]\n"
	  "\tk = 1\n"
	  "[b]\n"
	  "\tl = 2\n", 22, {
		{ "unset", "a.k", NULL, 0,
		  "[b]\n"
		  "\tl = 2\n" },
	} },
	{ "unset-last-section", "[a]\n"
	  "\tk = 1\n"
	  "[b]\n"
	  "\tl = 2\n", 22, {
		{ "unset", "b.l", NULL, 0,
		  "[a]\n"
		  "\tk = 1\n" },
	} },
	{ "unset-keeps-commented-section", "[a]\n"
	  "\t# about k\n"
	  "\tk = 1\n"
	  "[b]\n", 26, {
		{ "unset", "a.k", NULL, 0,
		  "[a]\n"
		  "\t# about k\n"
		  "[b]\n" },
	} },
	{ "unset-keeps-section-comment-after", "[a]\n"
	  "\tk = 1\n"
	  "# after\n"
	  "[b]\n", 23, {
		{ "unset", "a.k", NULL, 0,
		  "[a]\n"
		  "# after\n"
		  "[b]\n" },
	} },
	{ "unset-comment-before-header", "# a section\n"
	  "[a]\n"
	  "\tk = 1\n", 23, {
		{ "unset", "a.k", NULL, 0,
		  "# a section\n"
		  "[a]\n" },
	} },
	{ "unset-inline-header", "[x]\n"
	  "[a] k = 1\n", 14, {
		{ "unset", "a.k", NULL, 0,
		  "[x]\n" },
	} },
	{ "unset-missing", "[a]\n"
	  "\tk = 1\n", 11, {
		{ "unset", "a.l", NULL, WG_ENOTFOUND,
		  "[a]\n"
		  "\tk = 1\n" },
	} },
	{ "unset-ambiguous", "[a]\n"
	  "\tk = 1\n"
	  "\tk = 2\n", 18, {
		{ "unset", "a.k", NULL, WG_EAMBIGUOUS,
		  "[a]\n"
		  "\tk = 1\n"
		  "\tk = 2\n" },
	} },
	{ "unset-all", "[a]\n"
	  "\tk = 1\n"
	  "\tl = 2\n"
	  "\tk = 3\n"
	  "[b]\n"
	  "\tk = 4\n"
	  "[a]\n"
	  "\tk = 5\n", 47, {
		{ "unset-all", "a.k", NULL, 0,
		  "[a]\n"
		  "\tl = 2\n"
		  "[b]\n"
		  "\tk = 4\n" },
	} },
	{ "unset-all-sections-go", "[a]\n"
	  "\tk = 1\n"
	  "[a]\n"
	  "\tk = 2\n"
	  "[c]\n"
	  "\tx = 1\n", 33, {
		{ "unset-all", "a.k", NULL, 0,
		  "[c]\n"
		  "\tx = 1\n" },
	} },
	{ "unset-then-set", "[a]\n"
	  "\tk = 1\n", 11, {
		{ "unset", "a.k", NULL, 0,
		  "" },
		{ "set", "a.k", "2", 0,
		  "[a]\n"
		  "\tk = 2\n" },
	} },
	{ "unset-bare", "[a]\n"
	  "\tk\n"
	  "\tl = 1\n", 14, {
		{ "unset", "a.k", NULL, 0,
		  "[a]\n"
		  "\tl = 1\n" },
	} },
	{ "bom-file", "\xef\xbb\xbf[a]\n"
	  "\tk = 1\n", 14, {
		{ "set", "a.k", "2", 0,
		  "\xef\xbb\xbf[a]\n"
		  "\tk = 2\n" },
		{ "set", "b.k", "3", 0,
		  "\xef\xbb\xbf[a]\n"
		  "\tk = 2\n"
		  "[b]\n"
		  "\tk = 3\n" },
	} },
	{ "crlf-append", "[a]\r\n"
	  "\tk = 1\r\n", 13, {
		{ "set", "a.l", "2", 0,
		  "[a]\r\n"
		  "\tk = 1\r\n"
		  "\tl = 2\n" },
	} },
	{ "invalid-key", "[a]\n", 4, {
		{ "set", "a.1k", "v", WG_EINVALID,
		  "[a]\n" },
		{ "set", "a", "v", WG_EINVALID,
		  "[a]\n" },
		{ "set", ".k", "v", WG_EINVALID,
		  "[a]\n" },
		{ "set", "a.k_", "v", WG_EINVALID,
		  "[a]\n" },
		{ "set", "a_b.k", "v", WG_EINVALID,
		  "[a]\n" },
		{ "set", "a.b\nc.k", "v", WG_EINVALID,
		  "[a]\n" },
	} },
	{ "odd-but-valid-keys", "", 0, {
		{ "set", "a..k", "v", 0,
		  "[a \"\"]\n"
		  "\tk = v\n" },
		{ "set", ".a.k", "w", 0,
		  "[a \"\"]\n"
		  "\tk = v\n"
		  "[ \"a\"]\n"
		  "\tk = w\n" },
		{ "set", "a.b.c.k", "x", 0,
		  "[a \"\"]\n"
		  "\tk = v\n"
		  "[ \"a\"]\n"
		  "\tk = w\n"
		  "[a \"b.c\"]\n"
		  "\tk = x\n" },
	} },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool same_bytes(const struct wg_buf *buf, const char *text, size_t len)
{
	return buf->len == len && (len == 0 || !memcmp(buf->data, text, len));
}

/* `git config --list` format. */
static int list_cb(const char *key, const char *value, void *payload)
{
	struct wg_buf *out = payload;
	int err = wg_buf_adds(out, key);
	if (!err && value)
		err = wg_buf_printf(out, "=%s", value);
	if (!err)
		err = wg_buf_addch(out, '\n');
	return err;
}

static void test_list_matches_git(void)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(list_cases); i++) {
		const struct list_case *c = &list_cases[i];
		struct wg_config *cfg = NULL;
		struct wg_buf out = WG_BUF_INIT;
		int err = wg_config_parse(&cfg, c->text, c->len, "test.cfg");
		CHECK_OK(err);
		if (err) {
			fprintf(stderr, "  in case %s\n", c->name);
			continue;
		}
		CHECK_OK(wg_config_foreach(cfg, list_cb, &out));
		if (strcmp(wg_buf_cstr(&out), c->expect))
			fprintf(stderr, "  in case %s\n", c->name);
		CHECK_STR(wg_buf_cstr(&out), c->expect);
		/* Unchanged means the very same bytes. */
		wg_buf_reset(&out);
		CHECK_OK(wg_config_serialize(cfg, &out));
		CHECK(same_bytes(&out, c->text, c->len));
		wg_buf_release(&out);
		wg_config_free(cfg);
	}
}

static void test_errors_match_git(void)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(error_cases); i++) {
		const struct error_case *c = &error_cases[i];
		struct wg_config *cfg = (struct wg_config *)&cfg;
		char expect[128];
		size_t n;
		n = (size_t)snprintf(expect, sizeof(expect), "bad config line %d in file test.cfg (",
				     c->line);
		CHECK_ERR(wg_config_parse(&cfg, c->text, c->len, "test.cfg"), WG_ECORRUPT);
		CHECK(cfg == NULL);
		if (strncmp(wg_error_message(), expect, n))
			fprintf(stderr, "  case %s: '%s', expected '%s...'\n", c->name,
				wg_error_message(), expect);
		CHECK(!strncmp(wg_error_message(), expect, n));
		/* Without a file name, the same line. */
		n = (size_t)snprintf(expect, sizeof(expect), "bad config line %d (", c->line);
		CHECK_ERR(wg_config_parse(&cfg, c->text, c->len, NULL), WG_ECORRUPT);
		CHECK(!strncmp(wg_error_message(), expect, n));
	}
}

static void test_get_matches_git(void)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(get_cases); i++) {
		const struct get_case *c = &get_cases[i];
		struct wg_config *cfg = NULL;
		const char *value = "unset";
		CHECK_OK(wg_config_parse(&cfg, c->text, strlen(c->text), NULL));
		if (c->missing) {
			CHECK_ERR(wg_config_get_string(cfg, c->key, &value), WG_ENOTFOUND);
			CHECK(value == NULL);
		} else {
			CHECK_OK(wg_config_get_string(cfg, c->key, &value));
			if (c->expect)
				CHECK_STR(value, c->expect);
			else
				CHECK(value == NULL);
		}
		wg_config_free(cfg);
	}
}

static struct wg_config *parse_value_line(const char *value)
{
	struct wg_config *cfg = NULL;
	char text[256];
	int n = snprintf(text, sizeof(text), "[a]\n\tk = \"%s\"\n", value);
	CHECK_OK(wg_config_parse(&cfg, text, (size_t)n, "test.cfg"));
	return cfg;
}

static void test_bool_matches_git(void)
{
	size_t i;
	struct wg_config *cfg = NULL;
	bool b = false;
	for (i = 0; i < ARRAY_SIZE(bool_cases); i++) {
		const struct typed_case *c = &bool_cases[i];
		cfg = parse_value_line(c->value);
		if (!cfg)
			continue;
		if (c->fails) {
			CHECK_ERR(wg_config_get_bool(cfg, "a.k", &b), WG_EINVALID);
			CHECK_STR(wg_error_message(), c->expect);
		} else {
			CHECK_OK(wg_config_get_bool(cfg, "a.k", &b));
			CHECK_STR(b ? "true" : "false", c->expect);
		}
		wg_config_free(cfg);
	}
	/* A key without '=' is true; git's `--type=bool` agrees. */
	CHECK_OK(wg_config_parse(&cfg, "[a]\n\tk\n", 7, NULL));
	CHECK_OK(wg_config_get_bool(cfg, "a.k", &b));
	CHECK(b);
	CHECK_ERR(wg_config_get_bool(cfg, "a.missing", &b), WG_ENOTFOUND);
	CHECK_ERR(wg_config_get_bool(cfg, "nodot", &b), WG_EINVALID);
	wg_config_free(cfg);
}

static void test_int64_matches_git(void)
{
	size_t i;
	struct wg_config *cfg = NULL;
	int64_t n = 0;
	char num[32];
	for (i = 0; i < ARRAY_SIZE(int_cases); i++) {
		const struct typed_case *c = &int_cases[i];
		cfg = parse_value_line(c->value);
		if (!cfg)
			continue;
		if (c->fails) {
			CHECK_ERR(wg_config_get_int64(cfg, "a.k", &n), WG_EINVALID);
			CHECK_STR(wg_error_message(), c->expect);
		} else {
			CHECK_OK(wg_config_get_int64(cfg, "a.k", &n));
			snprintf(num, sizeof(num), "%" PRId64, n);
			CHECK_STR(num, c->expect);
		}
		wg_config_free(cfg);
	}
	/* No value is not a number (git: "bad numeric config value ''"). */
	CHECK_OK(wg_config_parse(&cfg, "[a]\n\tk\n", 7, NULL));
	CHECK_ERR(wg_config_get_int64(cfg, "a.k", &n), WG_EINVALID);
	CHECK_STR(wg_error_message(), "bad numeric config value '' for 'a.k': invalid unit");
	wg_config_free(cfg);
}

static int collect_cb(const char *value, void *payload)
{
	struct wg_buf *out = payload;
	int err = wg_buf_adds(out, value ? value : "(none)");
	return err ? err : wg_buf_addch(out, '|');
}

static int stop_cb(const char *value, void *payload)
{
	int *count = payload;
	(void)value;
	return ++*count == 2 ? 42 : 0;
}

static int stop_foreach_cb(const char *key, const char *value, void *payload)
{
	(void)value;
	return stop_cb(key, payload);
}

static void test_multivars(void)
{
	static const char text[] =
		"[remote \"o\"]\n\tfetch = one\n\turl = u\n[other]\n\tfetch = x\n"
		"[Remote \"o\"]\n\tFetch = two\n\tfetch\n\tfetch = \"\"\n";
	struct wg_config *cfg = NULL;
	struct wg_buf out = WG_BUF_INIT;
	const char *value;
	int count = 0;
	CHECK_OK(wg_config_parse(&cfg, text, sizeof(text) - 1, NULL));
	CHECK_OK(wg_config_get_all(cfg, "remote.o.fetch", collect_cb, &out));
	CHECK_STR(wg_buf_cstr(&out), "one|two|(none)||");
	CHECK_OK(wg_config_get_string(cfg, "REMOTE.o.FETCH", &value));
	CHECK_STR(value, "");
	CHECK_ERR(wg_config_get_string(cfg, "remote.O.fetch", &value), WG_ENOTFOUND);
	CHECK_ERR(wg_config_get_all(cfg, "remote.o.push", collect_cb, &out), WG_ENOTFOUND);
	CHECK_ERR(wg_config_get_all(cfg, "remote", collect_cb, &out), WG_EINVALID);
	CHECK_ERR(wg_config_get_all(cfg, "remote.o.fetch", stop_cb, &count), 42);
	count = 0;
	CHECK_ERR(wg_config_foreach(cfg, stop_foreach_cb, &count), 42);
	wg_buf_reset(&out);
	/* A new value lands after the last one of the last matching section. */
	CHECK_OK(wg_config_add(cfg, "remote.o.fetch", "three"));
	CHECK_OK(wg_config_get_all(cfg, "remote.o.fetch", collect_cb, &out));
	CHECK_STR(wg_buf_cstr(&out), "one|two|(none)||three|");
	CHECK_ERR(wg_config_set_string(cfg, "remote.o.fetch", "x"), WG_EAMBIGUOUS);
	CHECK_ERR(wg_config_unset(cfg, "remote.o.fetch"), WG_EAMBIGUOUS);
	CHECK_OK(wg_config_replace_all(cfg, "remote.o.fetch", "only"));
	wg_buf_reset(&out);
	CHECK_OK(wg_config_get_all(cfg, "remote.o.fetch", collect_cb, &out));
	CHECK_STR(wg_buf_cstr(&out), "only|");
	CHECK_OK(wg_config_unset_all(cfg, "remote.o.fetch"));
	CHECK_ERR(wg_config_unset_all(cfg, "remote.o.fetch"), WG_ENOTFOUND);
	CHECK_OK(wg_config_get_string(cfg, "other.fetch", &value));
	CHECK_STR(value, "x");
	wg_buf_release(&out);
	wg_config_free(cfg);
}

static int apply_op(struct wg_config *cfg, const struct edit_op *op)
{
	if (!strcmp(op->op, "set"))
		return wg_config_set_string(cfg, op->key, op->value);
	if (!strcmp(op->op, "add"))
		return wg_config_add(cfg, op->key, op->value);
	if (!strcmp(op->op, "replace-all"))
		return wg_config_replace_all(cfg, op->key, op->value);
	if (!strcmp(op->op, "unset"))
		return wg_config_unset(cfg, op->key);
	if (!strcmp(op->op, "unset-all"))
		return wg_config_unset_all(cfg, op->key);
	return WG_EINVALID;
}

static void test_edits_match_git(void)
{
	size_t i, j;
	for (i = 0; i < ARRAY_SIZE(edit_cases); i++) {
		const struct edit_case *c = &edit_cases[i];
		struct wg_config *cfg = NULL;
		CHECK_OK(wg_config_parse(&cfg, c->text, c->len, "test.cfg"));
		if (!cfg)
			continue;
		for (j = 0; j < ARRAY_SIZE(c->ops) && c->ops[j].op; j++) {
			const struct edit_op *op = &c->ops[j];
			struct wg_buf out = WG_BUF_INIT;
			int err = apply_op(cfg, op);
			CHECK_OK(wg_config_serialize(cfg, &out));
			if (err != op->code || strcmp(wg_buf_cstr(&out), op->after))
				fprintf(stderr, "  case %s, op %zu (%s %s): got %d (%s) and:\n%s\n",
					c->name, j, op->op, op->key, err, wg_error_message(),
					wg_buf_cstr(&out));
			CHECK(err == op->code);
			CHECK_STR(wg_buf_cstr(&out), op->after);
			wg_buf_release(&out);
		}
		wg_config_free(cfg);
	}
}

static void test_edit_errors(void)
{
	static const char text[] = "# keep\n[a]\n\tk = 1\n";
	struct wg_config *cfg = NULL;
	struct wg_buf out = WG_BUF_INIT;
	CHECK_OK(wg_config_parse(&cfg, text, sizeof(text) - 1, NULL));
	CHECK_ERR(wg_config_set_string(cfg, "a.k", NULL), WG_EINVALID);
	CHECK_ERR(wg_config_add(cfg, "a.k", NULL), WG_EINVALID);
	CHECK_ERR(wg_config_set_string(cfg, "a.1", "v"), WG_EINVALID);
	CHECK_STR(wg_error_message(), "invalid key: a.1");
	CHECK_ERR(wg_config_unset(cfg, "a.missing"), WG_ENOTFOUND);
	CHECK_ERR(wg_config_unset(cfg, NULL), WG_EINVALID);
	CHECK_OK(wg_config_add(cfg, "a.k", "2"));
	CHECK_ERR(wg_config_set_string(cfg, "a.k", "3"), WG_EAMBIGUOUS);
	CHECK(strstr(wg_error_message(), "a.k") != NULL);
	CHECK_OK(wg_config_serialize(cfg, &out));
	CHECK_STR(wg_buf_cstr(&out), "# keep\n[a]\n\tk = 1\n\tk = 2\n");
	wg_buf_release(&out);
	wg_config_free(cfg);
	wg_config_free(NULL);
}

/* Values whose writing needs quoting or escaping come back unchanged. The
 * same list, written by us, was read back by the reference git with the
 * same result (see tests/interop/t-config.sh). */
static void check_read_back(const char *key, const char *value, size_t vlen)
{
	struct wg_config *cfg = NULL, *again = NULL;
	struct wg_buf out = WG_BUF_INIT;
	const char *got = NULL;
	char *v = wg_strndup(value, vlen);
	CHECK_OK(wg_config_new(&cfg));
	CHECK_OK(wg_config_set_string(cfg, "a.other", "x"));
	CHECK_OK(wg_config_set_string(cfg, key, v));
	CHECK_OK(wg_config_serialize(cfg, &out));
	CHECK_OK(wg_config_parse(&again, (const char *)out.data, out.len, NULL));
	if (again) {
		CHECK_OK(wg_config_get_string(again, key, &got));
		if (!got || strcmp(got, v))
			fprintf(stderr, "  value of %zu bytes did not read back; file:\n%s\n", vlen,
				wg_buf_cstr(&out));
		CHECK(got && !strcmp(got, v));
		/* Replacing it in place reads back too. */
		CHECK_OK(wg_config_set_string(again, key, "y"));
		CHECK_OK(wg_config_set_string(again, key, v));
		CHECK_OK(wg_config_get_string(again, key, &got));
		CHECK(got && !strcmp(got, v));
	}
	wg_free(v);
	wg_buf_release(&out);
	wg_config_free(cfg);
	wg_config_free(again);
}

static void test_values_read_back(void)
{
	static const char *const values[] = {
		"", " ", "  ", " x", "x ", "  spaced  out  ", "a#b", "#", ";", "a;b",
		"\"", "\"\"", "say \"hi\"", "\\", "\\\\", "c:\\dir\\", "\n", "a\nb", "\n\n",
		"trail\n", "\t", "a\tb", "\t lead", "trail \t", "\r", "a\rb", "\r\n",
		"a\r\nb", "\b", "\\n", "\\t", "x = y", "[section]", "[a] k = v",
		"\x01\x02\x7f", "\xc3\xa9t\xc3\xa9", "\xef\xbb\xbf", "end\\", "\"unbalanced",
		"# comment-like", "; comment-like", "a \"#\" b", "tab\tand space ",
	};
	size_t i;
	int c, d;
	for (i = 0; i < ARRAY_SIZE(values); i++) {
		check_read_back("a.k", values[i], strlen(values[i]));
		check_read_back("a.Sub \"Section\\.K", values[i], strlen(values[i]));
	}
	/* Every byte, alone and between others. */
	for (c = 1; c < 256; c++) {
		char v[4] = { (char)c, 0, 0, 0 };
		check_read_back("a.k", v, 1);
		v[0] = 'x';
		v[1] = (char)c;
		v[2] = 'y';
		check_read_back("a.k", v, 3);
	}
	/* Pairs of the characters the writer treats specially. */
	{
		static const char special[] = " \t\n\r\"\\#;=x";
		for (c = 0; special[c]; c++)
			for (d = 0; special[d]; d++) {
				char v[3] = { special[c], special[d], 0 };
				check_read_back("a.k", v, 2);
			}
	}
}

/* Where git's own edit would be lost on reading back, we differ (see
 * repo/config.h); these pin what we do instead. */
static void test_deliberate_differences(void)
{
	static const char bom[] = "\xef\xbb\xbf";
	static const char *const continued[] = {
		"[a]\n\tk = one\\", "[a]\n\tk = one\\\n", "[a]\n\tk = one\\\r\n",
	};
	struct wg_config *cfg = NULL;
	struct wg_buf out = WG_BUF_INIT;
	const char *value;
	size_t i;

	CHECK_OK(wg_config_parse(&cfg, bom, 3, NULL));
	CHECK_OK(wg_config_set_string(cfg, "a.k", "v"));
	CHECK_OK(wg_config_serialize(cfg, &out));
	CHECK_STR(wg_buf_cstr(&out), "\xef\xbb\xbf[a]\n\tk = v\n");
	wg_config_free(cfg);

	for (i = 0; i < ARRAY_SIZE(continued); i++) {
		CHECK_OK(wg_config_parse(&cfg, continued[i], strlen(continued[i]), NULL));
		CHECK_OK(wg_config_set_string(cfg, "a.l", "two"));
		CHECK_OK(wg_config_set_string(cfg, "b.m", "three"));
		CHECK_OK(wg_config_get_string(cfg, "a.k", &value));
		CHECK_STR(value, "one");
		CHECK_OK(wg_config_get_string(cfg, "a.l", &value));
		CHECK_STR(value, "two");
		CHECK_OK(wg_config_get_string(cfg, "b.m", &value));
		CHECK_STR(value, "three");
		wg_buf_reset(&out);
		CHECK_OK(wg_config_serialize(cfg, &out));
		/* Only one empty line is added, then git's layout. */
		CHECK(out.len == strlen(continued[i]) + (i == 0) + 1 +
		      strlen("\tl = two\n[b]\n\tm = three\n"));
		wg_config_free(cfg);
	}
	wg_buf_release(&out);
}

static void test_key_names(void)
{
	static const char *const valid[] = {
		"a.b", "A.B", "a.b.c", "a-1.b-2", "a.sub with space.k", "a.x\"y\\z.k",
		"a.b.c.d", "a..k", ".a.k", "a.\xc3\xa9.k", "a.B",
	};
	static const struct { const char *key; const char *msg; } invalid[] = {
		{ "", "key does not contain a section: " },
		{ "a", "key does not contain a section: a" },
		{ ".a", "key does not contain a section: .a" },
		{ "a.", "key does not contain variable name: a." },
		{ "a.b.", "key does not contain variable name: a.b." },
		{ "a.1b", "invalid key: a.1b" },
		{ "a.-b", "invalid key: a.-b" },
		{ "a.b_c", "invalid key: a.b_c" },
		{ "a_b.c", "invalid key: a_b.c" },
		{ "a b.c", "invalid key: a b.c" },
		{ "\xc3\xa9.k", "invalid key: \xc3\xa9.k" },
		{ "a.\xc3\xa9", "invalid key: a.\xc3\xa9" },
		{ "a.b\nc.d", "invalid key (newline): a.b\nc.d" },
	};
	char *canon = NULL;
	size_t i;
	for (i = 0; i < ARRAY_SIZE(valid); i++)
		CHECK_OK(wg_config_validate_key(valid[i]));
	for (i = 0; i < ARRAY_SIZE(invalid); i++) {
		CHECK_ERR(wg_config_validate_key(invalid[i].key), WG_EINVALID);
		CHECK_STR(wg_error_message(), invalid[i].msg);
	}
	CHECK_ERR(wg_config_validate_key(NULL), WG_EINVALID);
	CHECK_OK(wg_config_canonical_key(&canon, "Core.Sub.Sec.FooBar"));
	CHECK_STR(canon, "core.Sub.Sec.foobar");
	wg_free(canon);
	CHECK_ERR(wg_config_canonical_key(&canon, "core"), WG_EINVALID);
	CHECK(canon == NULL);
}

/* A prefix of a valid file is valid or a clean ECORRUPT; a valid one still
 * round-trips and can be edited (all kinds of edits when `all_edits`, one
 * set otherwise, to keep the many mutated inputs cheap under WASM). */
static void check_any_input(const char *text, size_t len, bool all_edits)
{
	struct wg_config *cfg = NULL;
	struct wg_buf out = WG_BUF_INIT;
	const char *value;
	int err = wg_config_parse(&cfg, text, len, "t");
	if (err) {
		CHECK(err == WG_ECORRUPT);
		CHECK(cfg == NULL);
		return;
	}
	CHECK_OK(wg_config_foreach(cfg, list_cb, &out));
	wg_buf_reset(&out);
	CHECK_OK(wg_config_serialize(cfg, &out));
	CHECK(same_bytes(&out, text, len));
	(void)wg_config_get_string(cfg, "a.k", &value);
	CHECK_OK(wg_config_set_string(cfg, "z.new", "v"));
	/* What was set reads back, whatever the text around it. */
	value = NULL;
	CHECK_OK(wg_config_get_string(cfg, "z.new", &value));
	if (!value || strcmp(value, "v")) {
		fprintf(stderr, "  after setting z.new in '");
		fwrite(text, 1, len, stderr);
		fprintf(stderr, "'\n");
	}
	if (!all_edits) {
		wg_buf_release(&out);
		wg_config_free(cfg);
		return;
	}
	err = wg_config_set_string(cfg, "a.k", "w");
	CHECK(err == 0 || err == WG_EAMBIGUOUS);
	CHECK_OK(wg_config_add(cfg, "a.b.k", "x"));
	CHECK_OK(wg_config_unset_all(cfg, "a.b.k"));
	CHECK_OK(wg_config_unset(cfg, "z.new"));
	wg_buf_release(&out);
	wg_config_free(cfg);
}

static void test_truncated_and_mutated(void)
{
	static const char specials[] = "[]\"\\\n\r#;= \t.\0\xef";
	size_t i, n, k;
	for (i = 0; i < ARRAY_SIZE(list_cases); i++) {
		const struct list_case *c = &list_cases[i];
		char *copy = wg_malloc(c->len + 1);
		for (n = 0; n <= c->len; n++)
			check_any_input(c->text, n, true);
		/* Each byte replaced by each character the grammar cares
		 * about. */
		if (copy && c->len) {
			for (n = 0; n < c->len; n++)
				for (k = 0; k < sizeof(specials) - 1; k++) {
					memcpy(copy, c->text, c->len);
					copy[n] = specials[k];
					check_any_input(copy, c->len, false);
				}
		}
		wg_free(copy);
	}
	for (i = 0; i < ARRAY_SIZE(error_cases); i++)
		for (n = 0; n <= error_cases[i].len; n++)
			check_any_input(error_cases[i].text, n, true);
	for (i = 0; i < ARRAY_SIZE(edit_cases); i++)
		for (n = 0; n <= edit_cases[i].len; n++)
			check_any_input(edit_cases[i].text, n, true);
	/* No bytes at all: an empty config; a NULL with a length: refused. */
	{
		struct wg_config *cfg = NULL;
		struct wg_buf out = WG_BUF_INIT;
		CHECK_OK(wg_config_parse(&cfg, NULL, 0, NULL));
		CHECK_OK(wg_config_serialize(cfg, &out));
		CHECK(out.len == 0);
		wg_config_free(cfg);
		CHECK_ERR(wg_config_parse(&cfg, NULL, 5, NULL), WG_EINVALID);
		CHECK(cfg == NULL);
		wg_buf_release(&out);
	}
}

/* Append `s` `times` times, checked once (millions of CHECKs would make
 * the test slow, under WASM especially). */
static void add_repeat(struct wg_buf *buf, const char *s, size_t times)
{
	size_t n = strlen(s), i;
	int err = 0;
	for (i = 0; i < times && !err; i++)
		err = wg_buf_add(buf, s, n);
	CHECK_OK(err);
}

static void test_long_inputs(void)
{
	const size_t big = 1 << 20;
	struct wg_buf text = WG_BUF_INIT;
	struct wg_config *cfg = NULL;
	const char *value = NULL;
	char *key;
	int64_t n;
	size_t i;
	int err = 0;

	/* A 1 MiB value, then the same continued over 100000 lines. */
	CHECK_OK(wg_buf_adds(&text, "[a]\n\tk = "));
	add_repeat(&text, "x", big);
	CHECK_OK(wg_buf_adds(&text, "   \n"));
	CHECK_OK(wg_config_parse(&cfg, (const char *)text.data, text.len, NULL));
	CHECK_OK(wg_config_get_string(cfg, "a.k", &value));
	CHECK(value && strlen(value) == big);
	CHECK_OK(wg_config_set_string(cfg, "a.k", "short"));
	CHECK_OK(wg_config_get_string(cfg, "a.k", &value));
	CHECK_STR(value, "short");
	wg_config_free(cfg);

	wg_buf_reset(&text);
	CHECK_OK(wg_buf_adds(&text, "[a]\n\tk = "));
	add_repeat(&text, "ab\\\n", 100000);
	CHECK_OK(wg_config_parse(&cfg, (const char *)text.data, text.len, NULL));
	CHECK_OK(wg_config_get_string(cfg, "a.k", &value));
	CHECK(value && strlen(value) == 200000);
	wg_config_free(cfg);

	/* Long section, subsection and variable names. */
	wg_buf_reset(&text);
	CHECK_OK(wg_buf_addch(&text, '['));
	add_repeat(&text, "S", 100000);
	CHECK_OK(wg_buf_adds(&text, " \""));
	add_repeat(&text, "\\\"", 100000);
	CHECK_OK(wg_buf_adds(&text, "\"]\n\t"));
	add_repeat(&text, "V", 100000);
	CHECK_OK(wg_buf_adds(&text, " = 7k\n"));
	CHECK_OK(wg_config_parse(&cfg, (const char *)text.data, text.len, NULL));
	key = wg_malloc(300003);
	if (key) {
		memset(key, 's', 100000);
		key[100000] = '.';
		memset(key + 100001, '"', 100000);
		key[200001] = '.';
		memset(key + 200002, 'v', 100000);
		key[300002] = '\0';
		CHECK_OK(wg_config_get_int64(cfg, key, &n));
		CHECK(n == 7168);
		/* And a new entry in that section is written after it. */
		CHECK_OK(wg_config_set_string(cfg, key, "8"));
		CHECK_OK(wg_config_get_int64(cfg, key, &n));
		CHECK(n == 8);
		wg_free(key);
	}
	wg_config_free(cfg);

	/* 100000 entries, many sections, long comment and blank lines. */
	wg_buf_reset(&text);
	for (i = 0; i < 100000 && !err; i++)
		err = wg_buf_printf(&text, "%s\tk = %zu\n", i % 10 == 0 ? "[a]\n" : "", i);
	CHECK_OK(err);
	CHECK_OK(wg_buf_addch(&text, '#'));
	add_repeat(&text, " \"", big / 2);
	CHECK_OK(wg_buf_addch(&text, '\n'));
	add_repeat(&text, "\n  ", big / 3);
	CHECK_OK(wg_config_parse(&cfg, (const char *)text.data, text.len, NULL));
	CHECK_OK(wg_config_get_int64(cfg, "a.k", &n));
	CHECK(n == 99999);
	CHECK_OK(wg_config_add(cfg, "a.k", "100000"));
	CHECK_OK(wg_config_get_int64(cfg, "a.k", &n));
	CHECK(n == 100000);
	CHECK_OK(wg_config_set_string(cfg, "b.k", "x"));
	CHECK_OK(wg_config_unset_all(cfg, "a.k"));
	CHECK_ERR(wg_config_get_int64(cfg, "a.k", &n), WG_ENOTFOUND);
	CHECK_OK(wg_config_get_string(cfg, "b.k", &value));
	CHECK_STR(value, "x");
	wg_config_free(cfg);
	wg_buf_release(&text);
}

/* An allocator that fails from the n-th call on, to walk every failure
 * path: each must report WG_ENOMEM, leak nothing (ASan), and leave an
 * edited config as it was. */
struct failing_alloc {
	long left;
};

static void *failing_malloc(size_t size, void *payload)
{
	struct failing_alloc *f = payload;
	if (f->left-- <= 0)
		return NULL;
	return malloc(size ? size : 1);
}

static void *failing_realloc(void *ptr, size_t size, void *payload)
{
	struct failing_alloc *f = payload;
	if (f->left-- <= 0)
		return NULL;
	return realloc(ptr, size ? size : 1);
}

static void failing_free(void *ptr, void *payload)
{
	(void)payload;
	free(ptr);
}

static void test_allocation_failures(void)
{
	static const char text[] =
		"\xef\xbb\xbf# c\n[a]\n\tk = \"q\\t\" x\\\ny ; c\n\tbare\n[a \"S\\\"b\"]\n\tk = 1\n"
		"[b.C]\n\tk = 2\n\tk = 3\n";
	struct failing_alloc f;
	const struct wg_allocator alloc = { failing_malloc, failing_realloc, failing_free, &f };
	long n;
	int err, i;

	for (n = 0;; n++) {
		struct wg_config *cfg = NULL;
		f.left = n;
		wg_allocator_set(&alloc);
		err = wg_config_parse(&cfg, text, sizeof(text) - 1, "t");
		wg_allocator_set(NULL);
		if (!err) {
			wg_config_free(cfg);
			break;
		}
		CHECK_ERR(err, WG_ENOMEM);
		CHECK(cfg == NULL);
	}
	CHECK(n > 10);

	for (i = 0; i < 5; i++) {
		for (n = 0;; n++) {
			struct wg_config *cfg = NULL;
			struct wg_buf out = WG_BUF_INIT;
			CHECK_OK(wg_config_parse(&cfg, text, sizeof(text) - 1, "t"));
			if (!cfg)
				return;
			f.left = n;
			wg_allocator_set(&alloc);
			switch (i) {
			case 0: err = wg_config_set_string(cfg, "a.k", "new value"); break;
			case 1: err = wg_config_set_string(cfg, "new.Sub.key", "v"); break;
			case 2: err = wg_config_add(cfg, "b.c.k", "4"); break;
			case 3: err = wg_config_unset_all(cfg, "b.c.k"); break;
			default: err = wg_config_unset(cfg, "a.bare"); break;
			}
			wg_allocator_set(NULL);
			CHECK_OK(wg_config_serialize(cfg, &out));
			if (err) {
				CHECK_ERR(err, WG_ENOMEM);
				CHECK(same_bytes(&out, text, sizeof(text) - 1));
			}
			wg_buf_release(&out);
			wg_config_free(cfg);
			if (!err)
				break;
		}
	}
}

static char *path_in(const char *dir, const char *name)
{
	static char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static bool file_is(const char *path, const char *expect)
{
	char data[256];
	FILE *f = fopen(path, "rb");
	size_t n;
	if (!f)
		return false;
	n = fread(data, 1, sizeof(data) - 1, f);
	fclose(f);
	data[n] = '\0';
	return n == strlen(expect) && !memcmp(data, expect, n);
}

static void test_files(void)
{
	const char *dir = wg_test_tmpdir("config");
	struct wg_config *cfg = NULL;
	char path[4096], lock[4200];
	const char *value;
	FILE *f;
	CHECK(dir != NULL);
	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s", path_in(dir, "config"));
	snprintf(lock, sizeof(lock), "%s.lock", path);

	CHECK_ERR(wg_config_read_file(&cfg, path), WG_ENOTFOUND);
	CHECK(strstr(wg_error_message(), path) != NULL);
	CHECK(cfg == NULL);

	CHECK_OK(wg_config_new(&cfg));
	CHECK_OK(wg_config_set_string(cfg, "core.bare", "false"));
	CHECK_OK(wg_config_write_file(cfg, path));
	CHECK(file_is(path, "[core]\n\tbare = false\n"));
	CHECK(access(lock, F_OK) != 0);
	wg_config_free(cfg);

	CHECK_OK(wg_config_read_file(&cfg, path));
	CHECK_OK(wg_config_get_string(cfg, "core.bare", &value));
	CHECK_STR(value, "false");

#ifndef __EMSCRIPTEN__
	{
		/* A private config stays private after a rewrite. */
		struct stat st;
		CHECK(chmod(path, 0600) == 0);
		CHECK_OK(wg_config_set_string(cfg, "user.name", "A U Thor"));
		CHECK_OK(wg_config_write_file(cfg, path));
		CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	}
#endif

	/* Someone else holds the lock: nothing is written. */
	f = fopen(lock, "wb");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_OK(wg_config_set_string(cfg, "core.bare", "true"));
	CHECK_ERR(wg_config_write_file(cfg, path), WG_ELOCKED);
	CHECK(strstr(wg_error_message(), "config.lock") != NULL);
	CHECK(strstr(wg_error_message(), "File exists") != NULL);
	CHECK(access(lock, F_OK) == 0);
	unlink(lock);
	CHECK_OK(wg_config_write_file(cfg, path));
	wg_config_free(cfg);
	CHECK_OK(wg_config_read_file(&cfg, path));
	CHECK_OK(wg_config_get_string(cfg, "core.bare", &value));
	CHECK_STR(value, "true");

	/* No directory to write into. */
	CHECK_ERR(wg_config_write_file(cfg, path_in(dir, "missing/config")), WG_EIO);
	wg_config_free(cfg);

	/* Reading a directory, and a broken file. */
	cfg = (struct wg_config *)&cfg;
	CHECK_ERR(wg_config_read_file(&cfg, dir), WG_EIO);
	CHECK(cfg == NULL);
	f = fopen(path, "wb");
	if (f) {
		fputs("[core]\n\tbare = \"oops\n", f);
		fclose(f);
	}
	CHECK_ERR(wg_config_read_file(&cfg, path), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "bad config line 2 in file ") != NULL);
	CHECK(strstr(wg_error_message(), path) != NULL);

	unlink(path);
	rmdir(dir);
}

/* ---- driver for tests/interop/t-config.sh ---------------------------------- */

static int driver_print(const char *key, const char *value, void *payload)
{
	(void)payload;
	if (value)
		printf("%s=%s\n", key, value);
	else
		printf("%s\n", key);
	return 0;
}

/* test_config --driver CMD FILE [KEY [VALUE]], CMD one of list, get, bool,
 * int, set, add, replace-all, unset, unset-all. Exit 0 on success, 1 with
 * the message on stderr otherwise. Edits of a missing file start empty, as
 * with git. */
static int driver(int argc, char **argv)
{
	struct wg_config *cfg = NULL;
	const char *cmd, *file, *key, *value;
	int err;
	if (argc < 2) {
		fprintf(stderr, "usage: test_config --driver CMD FILE [KEY [VALUE]]\n");
		return 2;
	}
	cmd = argv[0];
	file = argv[1];
	key = argc > 2 ? argv[2] : NULL;
	value = argc > 3 ? argv[3] : NULL;
	err = wg_config_read_file(&cfg, file);
	if (err == WG_ENOTFOUND && strcmp(cmd, "list") && strcmp(cmd, "get") &&
	    strcmp(cmd, "bool") && strcmp(cmd, "int"))
		err = wg_config_new(&cfg);
	if (!err) {
		if (!strcmp(cmd, "list")) {
			err = wg_config_foreach(cfg, driver_print, NULL);
		} else if (!strcmp(cmd, "get")) {
			const char *v;
			if (!(err = wg_config_get_string(cfg, key, &v)))
				printf("%s\n", v ? v : "");
		} else if (!strcmp(cmd, "bool")) {
			bool b;
			if (!(err = wg_config_get_bool(cfg, key, &b)))
				printf("%s\n", b ? "true" : "false");
		} else if (!strcmp(cmd, "int")) {
			int64_t n;
			if (!(err = wg_config_get_int64(cfg, key, &n)))
				printf("%" PRId64 "\n", n);
		} else {
			struct edit_op op = { cmd, key, value, 0, NULL };
			err = apply_op(cfg, &op);
			if (!err)
				err = wg_config_write_file(cfg, file);
		}
	}
	wg_config_free(cfg);
	if (err) {
		fprintf(stderr, "error: %s (%s)\n", wg_error_message(), wg_error_name(err));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct wg_test_case cases[] = {
		WG_TEST(test_list_matches_git),
		WG_TEST(test_errors_match_git),
		WG_TEST(test_get_matches_git),
		WG_TEST(test_bool_matches_git),
		WG_TEST(test_int64_matches_git),
		WG_TEST(test_multivars),
		WG_TEST(test_edits_match_git),
		WG_TEST(test_edit_errors),
		WG_TEST(test_values_read_back),
		WG_TEST(test_deliberate_differences),
		WG_TEST(test_key_names),
		WG_TEST(test_truncated_and_mutated),
		WG_TEST(test_long_inputs),
		WG_TEST(test_allocation_failures),
		WG_TEST(test_files),
	};
	if (argc > 1 && !strcmp(argv[1], "--driver"))
		return driver(argc - 2, argv + 2);
	return wg_test_run(argc, argv, "config", cases, ARRAY_SIZE(cases));
}
