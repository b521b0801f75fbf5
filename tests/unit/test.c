#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int wg_test_failures;
int wg_test_checks;
const char *wg_test_data_dir;

int wg_test_run(int argc, char **argv, const char *suite,
		const struct wg_test_case *cases, size_t count)
{
	size_t i;
	int failed_cases = 0;
	const char *only = NULL;
	wg_test_data_dir = getenv("WG_TEST_DATA");
	if (argc > 1)
		wg_test_data_dir = argv[1];
	if (argc > 2)
		only = argv[2];
	for (i = 0; i < count; i++) {
		int before = wg_test_failures, checks = wg_test_checks;
		if (only && strcmp(only, cases[i].name))
			continue;
		wg_error_clear();
		cases[i].fn();
		if (wg_test_checks == checks) {
			/* A case that checks nothing proves nothing: it was
			 * cut short, or never had a CHECK. */
			wg_test_failures++;
			fprintf(stderr, "%s/%s: the case made no checks\n", suite,
				cases[i].name);
		}
		if (wg_test_failures != before) {
			failed_cases++;
			fprintf(stderr, "FAIL %s/%s\n", suite, cases[i].name);
		}
	}
	printf("%s: %zu cases, %d checks, %d failed\n", suite, count, wg_test_checks,
	       wg_test_failures);
	return failed_cases ? 1 : 0;
}

unsigned char *wg_test_read_data(const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	unsigned char *data;
	long size;
	if (!wg_test_data_dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", wg_test_data_dir, name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc((size_t)size + 1);
	if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
		free(data);
		data = NULL;
	}
	fclose(f);
	if (data)
		*len = (size_t)size;
	return data;
}

const char *wg_test_tmpdir(const char *name)
{
	/* mkdtemp: a fresh directory every call, also under WASM where
	 * getpid() is a constant and names would collide across runs. */
	static char path[4096];
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	snprintf(path, sizeof(path), "%s/wgtest-%s-XXXXXX", base, name);
	if (!mkdtemp(path))
		return NULL;
	return path;
}
