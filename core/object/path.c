#include "object/path.h"

#include <stdint.h>
#include <string.h>

#include "util/error.h"

#define MODE_TYPE_MASK 0170000u
#define MODE_SYMLINK 0120000u

/* The byte at i, or 0 past the end: the checks below were specified for
 * NUL-terminated names, so "past the end" must behave exactly like a NUL. */
static unsigned char at(const char *name, size_t len, size_t i)
{
	return i < len ? (unsigned char)name[i] : 0;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* Case-insensitive ASCII comparison of n bytes of name from `off` with
 * needle; false if the name is too short. */
static bool iequal_at(const char *name, size_t len, size_t off, const char *needle, size_t n)
{
	size_t i;
	if (off > len || len - off < n)
		return false;
	for (i = 0; i < n; i++)
		if (lower((unsigned char)name[off + i]) != needle[i])
			return false;
	return true;
}

/* Decode one UTF-8 character at *pos. Returns the code point, 0 at the end
 * of the name, and also 0 for malformed UTF-8 (overlong forms, surrogates,
 * U+FFFE/U+FFFF, beyond U+10FFFF, truncated sequences): HFS+ would store
 * such a name percent-escaped, and treating it as "end of name" is the
 * conservative answer Git gives too (".git\xff" counts as ".git"). */
static uint32_t utf8_next(const char *name, size_t len, size_t *pos)
{
	const unsigned char *s = (const unsigned char *)name + *pos;
	size_t left = len - *pos;
	uint32_t ch;
	size_t n;

	if (!left)
		return 0;
	if (s[0] < 0x80) {
		ch = s[0];
		n = 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		if (left < 2 || (s[1] & 0xc0) != 0x80 || (s[0] & 0xfe) == 0xc0)
			return 0;
		ch = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		n = 2;
	} else if ((s[0] & 0xf0) == 0xe0) {
		if (left < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[0] == 0xe0 && (s[1] & 0xe0) == 0x80) ||   /* overlong */
		    (s[0] == 0xed && (s[1] & 0xe0) == 0xa0) ||   /* surrogate */
		    (s[0] == 0xef && s[1] == 0xbf && (s[2] & 0xfe) == 0xbe))
			return 0;
		ch = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		n = 3;
	} else if ((s[0] & 0xf8) == 0xf0) {
		if (left < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80 ||
		    (s[0] == 0xf0 && (s[1] & 0xf0) == 0x80) ||   /* overlong */
		    (s[0] == 0xf4 && s[1] > 0x8f) || s[0] > 0xf4) /* > U+10FFFF */
			return 0;
		ch = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
		     (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
		n = 4;
	} else {
		return 0;
	}
	*pos += n;
	return ch;
}

/* The next character HFS+ would compare: it drops these code points from
 * names entirely, so ".g\u200cit" opens ".git". */
static uint32_t hfs_next(const char *name, size_t len, size_t *pos)
{
	for (;;) {
		uint32_t ch = utf8_next(name, len, pos);
		switch (ch) {
		case 0x200c: case 0x200d: case 0x200e: case 0x200f:
		case 0x202a: case 0x202b: case 0x202c: case 0x202d: case 0x202e:
		case 0x206a: case 0x206b: case 0x206c: case 0x206d: case 0x206e:
		case 0x206f: case 0xfeff:
			continue;
		default:
			return ch;
		}
	}
}

/* "." + needle (lower-case ASCII) as HFS+ compares it, then the end of the
 * name or a '/'. */
static bool hfs_is_dot(const char *name, size_t len, const char *needle)
{
	size_t pos = 0;
	uint32_t ch;

	if (hfs_next(name, len, &pos) != '.')
		return false;
	for (; *needle; needle++) {
		ch = hfs_next(name, len, &pos);
		/* Only ASCII can fold to our ASCII needles. */
		if (ch > 127 || lower((int)ch) != *needle)
			return false;
	}
	ch = hfs_next(name, len, &pos);
	return !ch || ch == '/';
}

bool wg_path_is_hfs_dotgit(const char *name, size_t len)
{
	return hfs_is_dot(name, len, "git");
}

bool wg_path_is_ntfs_dotgit(const char *name, size_t len)
{
	size_t i;
	int c = at(name, len, 0);

	if (c == '.') {
		if (!iequal_at(name, len, 1, "git", 3))
			return false;
		i = 4;
	} else if (c == 'g' || c == 'G') {
		/* Git always writes .git first into a directory, so on NTFS it
		 * gets the short name GIT~1 and never GIT~2. */
		if (!iequal_at(name, len, 0, "git~1", 5))
			return false;
		i = 5;
	} else {
		return false;
	}
	/* NTFS drops trailing dots and spaces, and "name:stream" opens name. */
	for (;; i++) {
		c = at(name, len, i);
		if (!c || c == '/' || c == '\\' || c == ':')
			return true;
		if (c != '.' && c != ' ')
			return false;
	}
}

bool wg_path_is_dotgit(const char *name, size_t len)
{
	return wg_path_is_hfs_dotgit(name, len) || wg_path_is_ntfs_dotgit(name, len);
}

/* After a matched stem: only dots and spaces up to the end or a ':'. */
static bool ntfs_only_trailing(const char *name, size_t len, size_t i)
{
	for (;; i++) {
		int c = at(name, len, i);
		if (!c || c == ':')
			return true;
		if (c != ' ' && c != '.')
			return false;
	}
}

/* ".<dotname>" as NTFS resolves it. `shortprefix` is the 6-character stem
 * Windows uses for the hashed 8.3 short name of ".<dotname>". */
static bool ntfs_is_dot(const char *name, size_t len, const char *dotname,
			const char *shortprefix)
{
	size_t n = strlen(dotname), i;
	bool saw_tilde = false;

	if (at(name, len, 0) == '.' && iequal_at(name, len, 1, dotname, n))
		return ntfs_only_trailing(name, len, n + 1);

	/* The plain short name: the first six characters, then ~1 to ~4. */
	if (iequal_at(name, len, 0, dotname, 6) && at(name, len, 6) == '~' &&
	    at(name, len, 7) >= '1' && at(name, len, 7) <= '4')
		return ntfs_only_trailing(name, len, 8);

	/* The hashed short name: up to six characters of the stem, '~', a
	 * non-zero digit, more digits, eight characters in all. */
	for (i = 0; i < 8; i++) {
		int c = at(name, len, i);
		if (!c)
			return false;
		if (saw_tilde) {
			if (c < '0' || c > '9')
				return false;
		} else if (c == '~') {
			c = at(name, len, ++i);
			if (c < '1' || c > '9')
				return false;
			saw_tilde = true;
		} else if (i >= 6 || (c & 0x80) || lower(c) != shortprefix[i]) {
			return false;
		}
	}
	return ntfs_only_trailing(name, len, i);
}

bool wg_path_is_hfs_dotgitmodules(const char *name, size_t len)
{
	return hfs_is_dot(name, len, "gitmodules");
}

bool wg_path_is_ntfs_dotgitmodules(const char *name, size_t len)
{
	return ntfs_is_dot(name, len, "gitmodules", "gi7eba");
}

bool wg_path_is_dotgitmodules(const char *name, size_t len)
{
	return wg_path_is_hfs_dotgitmodules(name, len) ||
	       wg_path_is_ntfs_dotgitmodules(name, len);
}

bool wg_path_is_dotgitattributes(const char *name, size_t len)
{
	return hfs_is_dot(name, len, "gitattributes") ||
	       ntfs_is_dot(name, len, "gitattributes", "gi7d29");
}

bool wg_path_is_dotgitignore(const char *name, size_t len)
{
	return hfs_is_dot(name, len, "gitignore") ||
	       ntfs_is_dot(name, len, "gitignore", "gi250a");
}

bool wg_path_is_dotmailmap(const char *name, size_t len)
{
	return hfs_is_dot(name, len, "mailmap") || ntfs_is_dot(name, len, "mailmap", "maba30");
}

/* Why a component is refused, or NULL if it is fine. */
static const char *component_problem(const char *name, size_t len, unsigned mode)
{
	bool symlink = (mode & MODE_TYPE_MASK) == MODE_SYMLINK;
	const char *p, *end = name + len;

	if (!len)
		return "empty path component";
	if (memchr(name, '\0', len))
		return "NUL byte in a path component";
	if (memchr(name, '/', len))
		return "'/' inside a path component";
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return "'.' and '..' cannot be checked out";
	if (wg_path_is_dotgit(name, len))
		return "it names the repository's .git directory on some file system";
	if (symlink && wg_path_is_dotgitmodules(name, len))
		return ".gitmodules cannot be a symbolic link";
	/* Windows reads a backslash as a directory separator, so "a\.git"
	 * would be a .git directory there. */
	for (p = memchr(name, '\\', len); p; p = memchr(p, '\\', (size_t)(end - p))) {
		p++;
		if (wg_path_is_ntfs_dotgit(p, (size_t)(end - p)))
			return "it names a .git directory after a backslash (a separator on Windows)";
		if (symlink && wg_path_is_ntfs_dotgitmodules(p, (size_t)(end - p)))
			return ".gitmodules cannot be a symbolic link";
	}
	return NULL;
}

bool wg_path_component_valid(const char *name, size_t len, unsigned mode)
{
	return component_problem(name, len, mode) == NULL;
}

int wg_path_check_component(const char *name, size_t len, unsigned mode)
{
	const char *why = component_problem(name, len, mode);
	if (why)
		return wg_error_set(WG_EINVALID, "refusing path component '%.*s': %s",
				    (int)(len > 256 ? 256 : len), name, why);
	return 0;
}

int wg_path_check(const char *path, size_t len, unsigned mode)
{
	const char *p = path, *end = path + len;

	for (;;) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);
		/* Leading components are directories. */
		const char *why = component_problem(p, n, slash ? 0040000u : mode);
		if (why)
			return wg_error_set(WG_EINVALID, "refusing path '%.*s': %s",
					    (int)(len > 1024 ? 1024 : len), path, why);
		if (!slash)
			return 0;
		p = slash + 1;
	}
}
