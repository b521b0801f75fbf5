#include "util/wildmatch.h"

#include <ctype.h>
#include <string.h>

/* Besides match and no match, a failed attempt can tell the caller that
 * no later starting point can match either, which keeps "*" from trying
 * every position of a long text again and again:
 *   GIVE_UP         the text ran out: nothing can match from here on;
 *   GIVE_UP_TO_STAR a '/' stopped a single "*": only a "**" further out
 *                   may still match by taking the '/'. */
enum { MATCH, NO_MATCH, GIVE_UP, GIVE_UP_TO_STAR };

static unsigned char fold(unsigned char c, unsigned flags)
{
	return (flags & WG_WM_CASEFOLD) && c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static bool in_class(const char *name, size_t len, unsigned char c, unsigned flags, bool *known)
{
	static const struct {
		const char *name;
		int (*test)(int);
	} classes[] = {
		{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
		{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
		{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
		{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
	};

	*known = false;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (strlen(classes[i].name) != len || memcmp(classes[i].name, name, len))
			continue;
		*known = true;
		if (c >= 0x80)
			return false;
		/* without case, [:upper:] takes lower-case letters too */
		if ((flags & WG_WM_CASEFOLD) && !strcmp(classes[i].name, "upper"))
			return isalpha(c);
		return classes[i].test(c) != 0;
	}
	return false;
}

/* A bracket set at *pp (just past '['), against c (already folded).
 * Leaves *pp on the closing ']'. MATCH, NO_MATCH, or GIVE_UP for a set
 * that never closes or names an unknown class. */
static int match_set(const unsigned char **pp, unsigned char c, unsigned flags)
{
	const unsigned char *p = *pp;
	bool negated = false, matched = false;
	unsigned char prev = 0;   /* the last single character, for a range */

	if (*p == '!' || *p == '^') {
		negated = true;
		p++;
	}
	/* a ']' first is an ordinary member */
	for (bool first = true; first || *p != ']'; first = false, p++) {
		unsigned char m = *p;
		if (!m)
			return GIVE_UP;
		if (m == '\\') {
			if (!(m = *++p))
				return GIVE_UP;
			if (fold(m, flags) == c)
				matched = true;
			prev = m;
		} else if (m == '-' && prev && p[1] && p[1] != ']') {
			unsigned char hi = *++p;
			if (hi == '\\' && !(hi = *++p))
				return GIVE_UP;
			if (c >= prev && c <= hi)
				matched = true;
			/* without case: the letter's other case may be in range */
			else if ((flags & WG_WM_CASEFOLD) && c >= 'a' && c <= 'z' &&
				 c - 32 >= prev && c - 32 <= hi)
				matched = true;
			prev = 0;
		} else if (m == '[' && p[1] == ':') {
			const unsigned char *name = p + 2, *end = name;
			bool known;
			while (*end && *end != ']')
				end++;
			if (!*end)
				return GIVE_UP;
			if (end - name < 1 || end[-1] != ':') {
				/* no ":]": an ordinary '[' */
				if (c == '[')
					matched = true;
				prev = '[';
				continue;
			}
			if (in_class((const char *)name, (size_t)(end - 1 - name), c, flags, &known))
				matched = true;
			if (!known)
				return GIVE_UP;
			p = end;
			prev = 0;
		} else {
			if (fold(m, flags) == c)
				matched = true;
			prev = m;
		}
	}
	*pp = p;
	return matched != negated ? MATCH : NO_MATCH;
}

static int match_here(const unsigned char *pattern, const unsigned char *p,
		      const unsigned char *t, unsigned flags)
{
	const bool pathname = flags & WG_WM_PATHNAME;

	for (; *p; p++, t++) {
		unsigned char c = fold(*t, flags);
		bool any_slash;
		int r;

		if (!*t && *p != '*')
			return GIVE_UP;
		switch (*p) {
		case '\\':
			/* a literal; a trailing backslash matches nothing */
			if (!p[1] || fold(p[1], flags) != c)
				return NO_MATCH;
			p++;
			continue;
		case '?':
			if (pathname && c == '/')
				return NO_MATCH;
			continue;
		case '[':
			p++;
			if ((r = match_set(&p, c, flags)) != MATCH)
				return r;
			if (pathname && c == '/')
				return NO_MATCH;
			continue;
		case '*': {
			const unsigned char *star = p;
			while (p[1] == '*')
				p++;
			if (!pathname) {
				/* without pathname rules every "*" crosses '/' */
				any_slash = true;
			} else if (p > star) {
				/* "**": across '/' when it is a whole component */
				bool alone_before = star == pattern || star[-1] == '/';
				bool alone_after = !p[1] || p[1] == '/' || (p[1] == '\\' && p[2] == '/');
				if (alone_before && alone_after) {
					/* "**" and a '/' may also stand for no directory */
					if (p[1] == '/' && match_here(pattern, p + 2, t, flags) == MATCH)
						return MATCH;
					any_slash = true;
				} else {
					any_slash = false;
				}
			} else {
				any_slash = false;
			}
			p++;
			if (!*p) {
				/* at the end: the rest, unless a single "*" meets a '/' */
				return any_slash || !strchr((const char *)t, '/') ? MATCH : NO_MATCH;
			}
			if (!any_slash && *p == '/') {
				/* "*" then '/': this component, whatever it is */
				const unsigned char *slash = (const unsigned char *)strchr((const char *)t, '/');
				if (!slash)
					return NO_MATCH;
				t = slash;
				continue;  /* the loop steps over the '/' in both */
			}
			for (;; t++) {
				if (!*t)
					return GIVE_UP;
				r = match_here(pattern, p, t, flags);
				if (r != NO_MATCH && (any_slash ? r != GIVE_UP_TO_STAR : true))
					return r;
				if (!any_slash && *t == '/')
					return GIVE_UP_TO_STAR;
			}
		}
		default:
			if (fold(*p, flags) != c)
				return NO_MATCH;
			continue;
		}
	}
	return *t ? NO_MATCH : MATCH;
}

bool wg_wildmatch(const char *pattern, const char *text, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)pattern;
	return match_here(p, p, (const unsigned char *)text, flags) == MATCH;
}
