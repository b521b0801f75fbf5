/* Unit tests for core/util/wildmatch.c: the rules by example, and the
 * cases that make a naive matcher take exponential time. Every vector
 * of git's own test is checked by tests/interop/t22-wildmatch.sh. */
#include <string.h>

#include "test.h"
#include "util/wildmatch.h"

#define P WG_WM_PATHNAME
#define I WG_WM_CASEFOLD

static void test_rules(void)
{
	CHECK(wg_wildmatch("foo", "foo", 0) && !wg_wildmatch("foo", "fo", 0));
	CHECK(wg_wildmatch("f*", "foo/bar", 0) && !wg_wildmatch("f*", "foo/bar", P));
	CHECK(wg_wildmatch("*/bar", "foo/bar", P) && !wg_wildmatch("*/bar", "a/foo/bar", P));
	CHECK(wg_wildmatch("**/bar", "bar", P) && wg_wildmatch("**/bar", "a/b/bar", P));
	CHECK(wg_wildmatch("a/**/b", "a/b", P) && wg_wildmatch("a/**/b", "a/x/y/b", P));
	CHECK(!wg_wildmatch("a/**/b", "a/b", 0));   /* no pathname rules: no zero-dir "**" */
	CHECK(wg_wildmatch("a/**", "a/x/y", P) && !wg_wildmatch("a/**", "a", P));
	CHECK(!wg_wildmatch("a**b", "a/b", P) && wg_wildmatch("a**b", "axyb", P));
	CHECK(wg_wildmatch("?", "x", P) && !wg_wildmatch("?", "/", P) && wg_wildmatch("?", "/", 0));
	CHECK(wg_wildmatch("[a-c]x", "bx", 0) && !wg_wildmatch("[!a-c]x", "bx", 0));
	CHECK(wg_wildmatch("[^a-c]x", "dx", 0) && wg_wildmatch("[]]", "]", 0));
	CHECK(wg_wildmatch("[[:digit:]]", "7", 0) && !wg_wildmatch("[[:digit:]]", "x", 0));
	CHECK(!wg_wildmatch("[[:nope:]]", "x", 0) && !wg_wildmatch("[a", "a", 0));
	CHECK(wg_wildmatch("\\*", "*", 0) && !wg_wildmatch("\\*", "x", 0));
	CHECK(!wg_wildmatch("a\\", "a", 0));
	CHECK(wg_wildmatch("[A-Z]", "q", I) && !wg_wildmatch("[A-Z]", "q", 0));
	CHECK(wg_wildmatch("FOO", "foo", I) && wg_wildmatch("[[:upper:]]", "q", I));
	CHECK(!wg_wildmatch("[/]", "/", P) && wg_wildmatch("[/]", "/", 0));
	CHECK(wg_wildmatch("", "", 0) && !wg_wildmatch("", "a", 0) && wg_wildmatch("*", "", 0));
}

/* "*a*a*...*b" against a long run of 'a': a matcher that tries every
 * split is exponential; giving up early keeps it linear-ish. */
static void test_no_exponential_backtracking(void)
{
	char text[4001], pattern[64];

	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	strcpy(pattern, "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b");
	CHECK(!wg_wildmatch(pattern, text, 0));
	CHECK(!wg_wildmatch(pattern, text, P));
	strcpy(pattern, "**/**/**/**/**/**/**/**/b");
	for (size_t i = 1; i < sizeof(text) - 1; i += 2)
		text[i] = '/';
	CHECK(!wg_wildmatch(pattern, text, P));
}

WG_TEST_MAIN("wildmatch",
	WG_TEST(test_rules),
	WG_TEST(test_no_exponential_backtracking))
