/* Error codes and the per-thread last-error message (design rule 6).
 *
 * Every fallible function returns an int: 0 on success, a negative WG_E*
 * code on failure. The function that detects a failure records a message a
 * person can act on with wg_error_set(); callers that add context may wrap
 * it with wg_error_prefix(). */
#ifndef WG_UTIL_ERROR_H
#define WG_UTIL_ERROR_H

enum wg_error_code {
	WG_OK = 0,
	WG_ERROR = -1,        /* generic failure */
	WG_ENOMEM = -2,       /* allocation failed */
	WG_ENOTFOUND = -3,    /* object, ref, file or key does not exist */
	WG_EEXISTS = -4,      /* would overwrite something that exists */
	WG_EINVALID = -5,     /* invalid argument from the caller */
	WG_ECORRUPT = -6,     /* malformed or inconsistent data */
	WG_EIO = -7,          /* the operating system refused an I/O call */
	WG_ECOLLISION = -8,   /* SHA-1 collision attack detected */
	WG_EAMBIGUOUS = -9,   /* a short name matches several things */
	WG_EUNSUPPORTED = -10,/* valid but not supported (unknown extension...) */
	WG_ELOCKED = -11,     /* a lock is held by someone else */
	WG_EFSCK = -12,       /* an object failed validation */
	WG_ENEEDMORE = -13,   /* a streaming parser needs more input (not fatal) */
	WG_ITEROVER = -14,    /* iteration is over (not an error) */
	WG_EAUTH = -15,       /* the server wants credentials, or refused them */
	WG_ELIMIT = -16,      /* input exceeds a configured limit (util/limits.h) */
};

/* Record a message for the calling thread and return `code`, so callers can
 * write `return wg_error_set(WG_ECORRUPT, "...")`. */
int wg_error_set(int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* Prepend "<context>: " to the current message; returns the current code. */
int wg_error_prefix(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* Replace every occurrence of `secret` in the current message with "***"
 * (a password that a server echoed back, say); NULL or "" does nothing. */
void wg_error_mask(const char *secret);

/* The last message set on this thread ("" if none). */
const char *wg_error_message(void);
/* The last code set on this thread (WG_OK if none). */
int wg_error_code(void);
void wg_error_clear(void);
/* The current error, kept while cleanup that may fail (and set its own)
 * runs, so the caller still reports the first failure:
 *
 *	struct wg_error_saved saved;
 *	wg_error_save(&saved);
 *	undo_what_was_done();
 *	wg_error_restore(&saved);
 *
 * A copy, not an allocation: saving cannot fail. */
#define WG_ERROR_MESSAGE_MAX 1024
struct wg_error_saved {
	int code;
	char message[WG_ERROR_MESSAGE_MAX];
};
void wg_error_save(struct wg_error_saved *out);
void wg_error_restore(const struct wg_error_saved *saved);

/* A stable symbolic name for a code, e.g. "ECORRUPT". */
const char *wg_error_name(int code);

#endif
