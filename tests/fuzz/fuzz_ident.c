/* Identities (core/object/ident.c): "Name <email> <time> <tz>" as in
 * commits, tags and reflogs. The parser and the fsck checker must agree
 * on the fields, and a formatted ident must parse. */
#include "fuzz.h"

#include "object/ident.h"
#include "util/alloc.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *v = (const char *)data;
	struct wg_ident id;
	enum wg_ident_problem prob;
	struct wg_buf out = WG_BUF_INIT;

	prob = wg_ident_check(v, size);
	FUZZ_ASSERT(wg_ident_problem_message(prob) != NULL);
	if (!wg_ident_parse(&id, v, size)) {
		FUZZ_ASSERT(id.name >= v && id.name + id.name_len <= v + size);
		FUZZ_ASSERT(id.email >= v && id.email + id.email_len <= v + size);
		if (id.has_date) {
			FUZZ_ASSERT(id.date >= v && id.date + id.date_len <= v + size);
			FUZZ_ASSERT(id.tz >= v && id.tz + id.tz_len <= v + size);
		}
		if (prob == WG_IDENT_OK && id.has_date) {
			char *name = wg_strndup(id.name, id.name_len);
			char *email = wg_strndup(id.email, id.email_len);
			char *date = malloc(id.date_len + id.tz_len + 2);
			memcpy(date, id.date, id.date_len);
			date[id.date_len] = ' ';
			memcpy(date + id.date_len + 1, id.tz, id.tz_len);
			date[id.date_len + 1 + id.tz_len] = '\0';
			if (name && email && !wg_ident_format(&out, name, email, date)) {
				struct wg_ident again;
				FUZZ_ASSERT(wg_ident_parse(&again, (const char *)out.data, out.len) == 0);
			}
			wg_free(name);
			wg_free(email);
			free(date);
		}
	}
	wg_buf_release(&out);
	return 0;
}
