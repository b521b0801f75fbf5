/* Unit tests for core/remote/rev_plan.h: a revision expression split into
 * the name a remote read fetches and the depth that reaches what the
 * expression names; what cannot be planned so is refused, saying why.
 * The reads themselves: tests/js/edge.test.mjs (compared with git show). */
#include <string.h>

#include "remote/rev_plan.h"
#include "test.h"
#include "util/error.h"

static void check_plan(const char *spec, const char *name, const char *navigation,
		       unsigned generations)
{
	struct wg_rev_plan p;
	int err = wg_rev_plan(&p, spec);

	CHECK_OK(err);
	if (err)
		return;
	CHECK(p.name_len == strlen(name) && !strncmp(spec, name, p.name_len));
	CHECK_STR(p.navigation, navigation);
	CHECK(p.generations == generations);
	if (p.generations != generations)
		fprintf(stderr, "  %s: %u generations, expected %u\n", spec, p.generations,
			generations);
}

static void test_plans(void)
{
	check_plan("main", "main", "", 0);
	check_plan("HEAD", "HEAD", "", 0);
	check_plan("@", "@", "", 0);
	check_plan("refs/heads/dev", "refs/heads/dev", "", 0);
	check_plan("v1.0", "v1.0", "", 0);
	/* ~ and ^ with and without a count */
	check_plan("main~", "main", "~", 1);
	check_plan("main~3", "main", "~3", 3);
	check_plan("main^", "main", "^", 1);
	check_plan("main^2", "main", "^2", 1);
	check_plan("main^0", "main", "^0", 0);
	check_plan("main~0", "main", "~0", 0);
	check_plan("main~2^2~3", "main", "~2^2~3", 6);
	check_plan("HEAD^^^", "HEAD", "^^^", 3);
	/* peeling costs no generation */
	check_plan("v1.0^{}", "v1.0", "^{}", 0);
	check_plan("v1.0^{commit}~1", "v1.0", "^{commit}~1", 1);
	check_plan("@^{tree}", "@", "^{tree}", 0);
	check_plan("main^{object}^{blob}", "main", "^{object}^{blob}", 0);
	/* a full id is a name like any other here */
	check_plan("0123456789abcdef0123456789abcdef01234567~2",
		   "0123456789abcdef0123456789abcdef01234567", "~2", 2);
	/* the largest depth taken */
	check_plan("main~100000", "main", "~100000", WG_REV_PLAN_MAX_GENERATIONS);
	check_plan("main~99999^", "main", "~99999^", WG_REV_PLAN_MAX_GENERATIONS);
}

static void check_refused(const char *spec, const char *why)
{
	struct wg_rev_plan p;

	CHECK_ERR(wg_rev_plan(&p, spec), WG_EINVALID);
	CHECK(strstr(wg_error_message(), why) != NULL);
	if (!strstr(wg_error_message(), why))
		fprintf(stderr, "  %s: '%s' does not say '%s'\n", spec, wg_error_message(), why);
	CHECK(strstr(wg_error_message(), spec) != NULL);
}

static void test_refused(void)
{
	check_refused("main:README", "a path goes in its own argument");
	check_refused("main@{1}", "reflogs are local");
	check_refused("@{-1}", "reflogs are local");
	check_refused("main..dev", "a range is not one revision");
	check_refused("main...dev", "a range is not one revision");
	check_refused("~2", "no name before the suffix");
	check_refused("^{tree}", "no name before the suffix");
	check_refused("main^{/fix}", "only ^{<type>} and ^{} peel here");
	check_refused("main^{tree", "only ^{<type>} and ^{} peel here");
	check_refused("main^{commitx}", "only ^{<type>} and ^{} peel here");
	check_refused("main~2x", "not a ~<n>, ^<n> or ^{<type>} suffix");
	check_refused("main~100001", "too many generations back");
	check_refused("main~99999999999999999999", "too many generations back");
	check_refused("main~50000~50000^", "too many generations back");
}

WG_TEST_MAIN("rev_plan",
	     WG_TEST(test_plans),
	     WG_TEST(test_refused))
