/* A minimal unit-test harness, the same natively and as WASM under Node.
 *
 * A test file defines `static void test_x(void)` functions and lists them
 * in a `WG_TEST_MAIN(...)`; failures are counted, not fatal, so one run
 * reports every broken check. A case that runs no CHECK at all fails.  Data files are found under WG_TEST_DATA
 * (environment) or the directory given as argv[1]. */
#ifndef WG_TEST_TEST_H
#define WG_TEST_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

extern int wg_test_failures;
extern int wg_test_checks;
extern const char *wg_test_data_dir;

#define CHECK(cond) do { \
	wg_test_checks++; \
	if (!(cond)) { \
		wg_test_failures++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", \
			__FILE__, __LINE__, #cond, wg_error_message()); \
	} \
} while (0)

#define CHECK_OK(expr) do { \
	int check_rc_ = (expr); \
	wg_test_checks++; \
	if (check_rc_ != 0) { \
		wg_test_failures++; \
		fprintf(stderr, "%s:%d: %s returned %d (%s): %s\n", __FILE__, \
			__LINE__, #expr, check_rc_, wg_error_name(check_rc_), \
			wg_error_message()); \
	} \
} while (0)

#define CHECK_ERR(expr, code) do { \
	int check_rc_ = (expr); \
	wg_test_checks++; \
	if (check_rc_ != (code)) { \
		wg_test_failures++; \
		fprintf(stderr, "%s:%d: %s returned %d (%s), expected %s\n", \
			__FILE__, __LINE__, #expr, check_rc_, \
			wg_error_name(check_rc_), #code); \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *check_a_ = (a), *check_b_ = (b); \
	wg_test_checks++; \
	if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_)) { \
		wg_test_failures++; \
		fprintf(stderr, "%s:%d: '%s' != '%s'\n", __FILE__, __LINE__, \
			check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)"); \
	} \
} while (0)

#define CHECK_MEM(a, b, n) CHECK(memcmp((a), (b), (n)) == 0)

struct wg_test_case {
	const char *name;
	void (*fn)(void);
};

int wg_test_run(int argc, char **argv, const char *suite,
		const struct wg_test_case *cases, size_t count);

/* Read a whole file from the test data directory; NULL if missing. */
unsigned char *wg_test_read_data(const char *name, size_t *len);
/* A fresh empty directory for a test; returned path is static storage. */
const char *wg_test_tmpdir(const char *name);

#define WG_TEST(fn) { #fn, fn }
#define WG_TEST_MAIN(suite, ...) \
	int main(int argc, char **argv) { \
		static const struct wg_test_case cases_[] = { __VA_ARGS__ }; \
		return wg_test_run(argc, argv, suite, cases_, \
				   sizeof(cases_) / sizeof(cases_[0])); \
	}

#endif
