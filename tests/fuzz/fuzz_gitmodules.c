/* The .gitmodules and .gitattributes content checks (core/repo/gitmodules.c,
 * core/object/fsck.c), which read blobs a server sent. Input: one option
 * byte (bit 0: strict, bit 1: the .gitattributes check instead), then the
 * blob. Also each line on its own as a submodule name and a URL, since
 * those are what the blob check feeds them. Every report must be one of
 * the ids these checks own; a refusal says "error in blob". */
#include "fuzz.h"

#include "object/fsck.h"
#include "repo/gitmodules.h"
#include "util/error.h"

static void report(void *payload, const struct wg_oid *oid, enum wg_object_type type,
		   enum wg_fsck_msg_id id, enum wg_fsck_severity severity, const char *message)
{
	(void)payload; (void)oid; (void)severity;
	FUZZ_ASSERT(type == WG_OBJ_BLOB);
	FUZZ_ASSERT(id == WG_FSCK_GITMODULES_NAME || id == WG_FSCK_GITMODULES_URL ||
		    id == WG_FSCK_GITMODULES_PATH || id == WG_FSCK_GITMODULES_UPDATE ||
		    id == WG_FSCK_GITMODULES_PARSE || id == WG_FSCK_GITMODULES_LARGE ||
		    id == WG_FSCK_GITATTRIBUTES_LINE_LENGTH || id == WG_FSCK_GITATTRIBUTES_LARGE);
	FUZZ_ASSERT(message && strlen(message) > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_fsck_options fo = WG_FSCK_OPTIONS_INIT;
	const char *blob;
	size_t len, i, start;
	char *line;
	int rc;

	if (size < 1)
		return 0;
	fo.strict = data[0] & 1;
	fo.report = report;
	blob = (const char *)data + 1;
	len = size - 1;
	if (data[0] & 2)
		rc = wg_fsck_gitattributes_blob(&fo, NULL, blob, len);
	else
		rc = wg_fsck_gitmodules_blob(&fo, NULL, blob, len);
	FUZZ_ASSERT(rc == 0 || rc == WG_EFSCK || rc == WG_ENOMEM);
	if (rc == WG_EFSCK)
		FUZZ_ASSERT(strstr(wg_error_message(), "error in blob"));

	/* Every line as a name and as a URL. */
	line = malloc(len + 1);
	for (start = 0, i = 0; i <= len; i++) {
		if (i < len && blob[i] != '\n')
			continue;
		memcpy(line, blob + start, i - start);
		line[i - start] = '\0';
		(void)wg_submodule_name_ok(line);
		(void)wg_submodule_url_ok(line);
		/* A leading '-' is always refused, whatever follows. */
		if (line[0] == '-')
			FUZZ_ASSERT(!wg_submodule_url_ok(line));
		if (!line[0])
			FUZZ_ASSERT(!wg_submodule_name_ok(line));
		start = i + 1;
	}
	free(line);
	wg_error_clear();
	return 0;
}
