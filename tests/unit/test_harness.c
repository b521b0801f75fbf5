/* The unit-test harness itself: a case that fails a CHECK fails, and so
 * does a case that makes no check at all (it proves nothing). The inner
 * runs print their own FAIL lines; those are expected. */
#include "test.h"

static void inner_checks_nothing(void)
{
}

static void inner_passes(void)
{
	CHECK(1);
}

static void inner_fails(void)
{
	CHECK(0);
}

/* Run one inner case in a suite of its own; returns wg_test_run's status
 * and leaves the outer counts as they were. */
static int run_inner(const struct wg_test_case *c)
{
	int failures = wg_test_failures, checks = wg_test_checks, rc;
	const char *data = wg_test_data_dir;
	char arg0[] = "inner";
	char *argv[] = { arg0, NULL };
	fprintf(stderr, "(an inner run of %s follows; a FAIL there may be expected)\n", c->name);
	rc = wg_test_run(1, argv, "harness-inner", c, 1);
	wg_test_failures = failures;
	wg_test_checks = checks;
	wg_test_data_dir = data;
	return rc;
}

static void test_case_without_checks_fails(void)
{
	static const struct wg_test_case c = WG_TEST(inner_checks_nothing);
	CHECK(run_inner(&c) == 1);
}

static void test_passing_and_failing_cases(void)
{
	static const struct wg_test_case pass = WG_TEST(inner_passes);
	static const struct wg_test_case fail = WG_TEST(inner_fails);
	CHECK(run_inner(&pass) == 0);
	CHECK(run_inner(&fail) == 1);
}

WG_TEST_MAIN("harness",
	WG_TEST(test_case_without_checks_fails),
	WG_TEST(test_passing_and_failing_cases))
