/* Capability lists (core/protocol/capabilities.c): the input is parsed
 * both as a v0/v1 list (the text after the NUL of the first ref line) and
 * as v2 advertisement lines (split at LF), then queried. */
#include "fuzz.h"

#include "protocol/capabilities.h"
#include "util/error.h"

static void query(const struct wg_caps *caps)
{
	const struct wg_hash_algo *algo;
	size_t n = wg_caps_count(caps);
	for (size_t i = 0; i < n; i++) {
		const char *name = wg_caps_name_at(caps, i), *value = wg_caps_value_at(caps, i);
		FUZZ_ASSERT(name != NULL);
		FUZZ_ASSERT(wg_caps_has(caps, name));
		(void)strlen(name);
		if (value) {
			(void)strlen(value);
			FUZZ_ASSERT(wg_caps_get(caps, name, 0) != NULL);
			(void)wg_caps_has_feature(caps, name, "shallow");
		}
	}
	(void)wg_caps_get(caps, "symref", 1);
	(void)wg_caps_has_feature(caps, "fetch", "filter");
	(void)wg_caps_has_feature(caps, "ls-refs", "unborn");
	(void)wg_caps_hash_algo(caps, &algo);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_caps *caps = NULL;
	const char *p = (const char *)data, *end = p + size;

	if (!wg_caps_parse_v1(&caps, p, size)) {
		FUZZ_ASSERT(wg_caps_version(caps) == 1);
		query(caps);
	}
	wg_caps_free(caps);

	if (wg_caps_new(&caps, 2))
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (wg_caps_add_v2_line(caps, p, len))
			break;
		p += len;
	}
	query(caps);
	wg_caps_free(caps);
	return 0;
}
