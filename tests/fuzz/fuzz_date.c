/* Date parsing (core/util/date.c): every form wg_date_parse accepts
 * (GIT_COMMITTER_DATE, --date), and the zone formatter on its result. */
#include "fuzz.h"

#include "util/date.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), tz[6];
	int64_t ts;
	int tzm;

	if (!wg_date_parse(text, &ts, &tzm)) {
		wg_date_format_tz(tz, tzm);
		FUZZ_ASSERT(strlen(tz) == 5 && (tz[0] == '+' || tz[0] == '-'));
	}
	free(text);
	return 0;
}
