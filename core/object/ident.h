/* Author, committer and tagger values: "Name <email> 1234567890 +0100".
 *
 * Two readers with different purposes, both following Git:
 *  - wg_ident_parse() is lenient like Git's split_ident_line(), for showing
 *    history: it accepts whatever old or odd tools wrote and returns what it
 *    can find;
 *  - wg_ident_check() is strict like git fsck, for validating objects that
 *    come from outside, and says exactly which rule is broken. */
#ifndef WG_OBJECT_IDENT_H
#define WG_OBJECT_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Pieces point into the parsed value; nothing is allocated. */
struct wg_ident {
	const char *name;      /* leading blanks kept, trailing blanks dropped */
	size_t name_len;
	const char *email;     /* between '<' and the first '>' */
	size_t email_len;
	bool has_date;         /* false for a "person only" ident */
	/* Seconds since the epoch, saturated at UINT64_MAX. Git treats any
	 * value above INT64_MAX as an overflow (fsck: badDateOverflow; log
	 * shows the date as 0). */
	uint64_t timestamp;
	int tz_offset;         /* minutes east of UTC: "+0100" -> 60, "-0530" -> -330 */
	const char *date;      /* the digits as written */
	size_t date_len;
	const char *tz;        /* the zone as written, sign included: "+0100" */
	size_t tz_len;
};

/* Split `len` bytes (no trailing newline needed; parsing stops at a NUL as
 * Git's does). WG_ECORRUPT when there is no "<...>" email part. When the
 * date or zone is missing or malformed the ident is still returned, with
 * has_date false and the date fields zero. */
int wg_ident_parse(struct wg_ident *out, const char *value, size_t len);

/* What git fsck finds wrong with an ident, in the order it checks. */
enum wg_ident_problem {
	WG_IDENT_OK = 0,
	WG_IDENT_MISSING_NAME_BEFORE_EMAIL,  /* starts with '<' */
	WG_IDENT_MISSING_EMAIL,              /* no '<' at all */
	WG_IDENT_BAD_NAME,                   /* '>' before the '<' */
	WG_IDENT_MISSING_SPACE_BEFORE_EMAIL,
	WG_IDENT_BAD_EMAIL,                  /* no '>', or a second '<' */
	WG_IDENT_MISSING_SPACE_BEFORE_DATE,
	WG_IDENT_BAD_DATE,                   /* not digits, or not followed by ' ' */
	WG_IDENT_ZERO_PADDED_DATE,           /* "0123" (a lone "0" is fine) */
	WG_IDENT_BAD_DATE_OVERFLOW,          /* above INT64_MAX */
	WG_IDENT_BAD_TIMEZONE,               /* not [+-]dddd at the very end */
};

/* Check `len` bytes as fsck does (the value stops at the first newline if
 * there is one). Blanks and tabs between the email and the date are
 * tolerated, as Git always has. */
enum wg_ident_problem wg_ident_check(const char *value, size_t len);

/* A short description of a problem, as git fsck words it
 * ("invalid author/committer line - bad date"). */
const char *wg_ident_problem_message(enum wg_ident_problem problem);

/* Append "Name <email> <time> <zone>" as git writes an ident: crud (blanks
 * and .,:;<>"\' ) is dropped from both ends of the name and the email, and
 * '<', '>' and newlines from inside them. `date` is any form
 * wg_date_parse() reads, or NULL/"" for now. WG_EINVALID for a bad date. */
int wg_ident_format(struct wg_buf *out, const char *name, const char *email, const char *date);

#endif
