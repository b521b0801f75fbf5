/* Shell-style pattern matching as git does it (wildmatch): the matcher
 * behind .gitignore, .gitattributes, pathspecs and ref patterns.
 *
 *	*        any run of characters; with WG_WM_PATHNAME, not '/'
 *	**       as a whole path component (at the start or after a '/',
 *	         and at the end or before a '/'), any number of directories;
 *	         elsewhere, the same as "*"
 *	?        one character (not '/' with WG_WM_PATHNAME)
 *	[...]    a set: ranges, "!" or "^" to negate, [:class:] names
 *	         (alnum alpha blank cntrl digit graph lower print punct space
 *	         upper xdigit), "\" escapes; never '/' with WG_WM_PATHNAME
 *	\c       the character c itself
 *
 * WG_WM_CASEFOLD compares ASCII letters without case. Checked against
 * git's own test vectors (t3070, read from the git source bootstrap
 * fetches) in tests/interop/t22-wildmatch.sh. */
#ifndef WG_UTIL_WILDMATCH_H
#define WG_UTIL_WILDMATCH_H

#include <stdbool.h>

#define WG_WM_CASEFOLD 0x1u
#define WG_WM_PATHNAME 0x2u

bool wg_wildmatch(const char *pattern, const char *text, unsigned flags);

#endif
