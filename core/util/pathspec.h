/* git's pathspecs, as add, rm and mv match them (pathspec.c's
 * match_pathspec_item with no magic but ":(top)" / ":/"): an item is a
 * path from the top of the working tree; it names that path, everything
 * below it when it is a directory ("d" or "d/"), and, when it holds a
 * wildcard ("*", "?", "[", "\"), every path the glob matches with
 * wildmatch's flags 0 ('*' crosses '/', as git's default pathspec glob
 * does). The empty item (git's "." at the top) matches everything.
 *
 * Paths handed to the matcher are relative to the top; turning a
 * command line's paths (relative to the current directory) into these is
 * the caller's business. */
#ifndef WG_WORKTREE_PATHSPEC_H
#define WG_WORKTREE_PATHSPEC_H

#include <stdbool.h>
#include <stddef.h>

struct wg_buf;

/* How an item matched (git's MATCHED_*): the path itself, a path below
 * it, or through the glob. */
enum wg_pathspec_match {
	WG_PATHSPEC_NONE = 0,
	WG_PATHSPEC_RECURSIVELY = 1,
	WG_PATHSPEC_FNMATCH = 2,
	WG_PATHSPEC_EXACTLY = 3,
};

struct wg_pathspec_item {
	char *match;          /* from the top, "" for everything; no magic */
	size_t len;
	size_t nowildcard;    /* leading bytes with no wildcard */
	const char *original; /* as given (not copied) */
};

struct wg_pathspec {
	struct wg_pathspec_item *items;
	size_t nr;
};

/* git's prefix_path() on a relative path: prefix + path from the top,
 * "." and ".." resolved and repeated '/' folded; a trailing '/' (or a
 * last "." or "..") keeps a trailing '/'. 0, 1 when ".." climbs above the
 * top, -1 out of memory. */
int wg_path_normalize(struct wg_buf *out, const char *prefix, const char *path);

/* Parse n items, relative to `prefix` (the current directory below the
 * top: "" or "a/b/"), as git's prefix_path: "." and ".." resolved,
 * repeated '/' folded, a trailing '/' kept; ":(top)x" and ":/x" are x
 * from the top. An item that leaves the working tree is WG_EINVALID
 * ("<item>: '<item>' is outside repository", git's words without the
 * " at '<top>'" the caller adds). */
int wg_pathspec_init(struct wg_pathspec *ps, const char *prefix, const char *const *items,
		     size_t n);
void wg_pathspec_release(struct wg_pathspec *ps);

/* How item i matches path (len bytes, no trailing '/'). */
enum wg_pathspec_match wg_pathspec_match_item(const struct wg_pathspec *ps, size_t i,
					      const char *path, size_t len);
/* Does some item match path? `seen` (ps->nr bytes, may be NULL) records
 * the best match of each item. An empty pathspec matches everything. */
bool wg_pathspec_match(const struct wg_pathspec *ps, const char *path, size_t len,
		       unsigned char *seen);
/* Could a path below the directory dir (len bytes, no trailing '/')
 * match? A walk skips directories that cannot. */
bool wg_pathspec_may_match_below(const struct wg_pathspec *ps, const char *dir, size_t len);

#endif
