/* Path component safety, as Git checks it before it lets a tree entry reach
 * a working tree (design rule 5: we check out what we accept).
 *
 * A repository can be checked out on a case-insensitive file system (macOS
 * HFS+/APFS, Windows NTFS), so a name that merely looks harmless on Linux can
 * still land on the repository's own ".git". These predicates recognise
 * every spelling Git knows about, on every platform, because a tree made on
 * one machine is checked out on another:
 *
 *  - case: ".GIT", ".Git";
 *  - HFS+: code points HFS+ ignores when comparing names (zero-width joiners,
 *    direction marks, U+FEFF...) anywhere in the name: ".g\u200cit";
 *  - NTFS: trailing dots and spaces (".git. . "), alternate data streams
 *    (".git::$INDEX_ALLOCATION"), 8.3 short names ("git~1", "GI7EBA~1" for
 *    .gitmodules), and a backslash as a directory separator.
 *
 * Names are (pointer, length) pairs: no NUL terminator is needed and none is
 * read past `len`. */
#ifndef WG_OBJECT_PATH_H
#define WG_OBJECT_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* ".git" as HFS+ would see it (case folded, ignorable code points
 * dropped), optionally followed by '/' and anything. */
bool wg_path_is_hfs_dotgit(const char *name, size_t len);
/* ".git" or "git~1" as NTFS would see it: followed by nothing but dots and
 * spaces up to the end, a ':' (stream) or a '/' or '\\' separator. */
bool wg_path_is_ntfs_dotgit(const char *name, size_t len);
/* Either of the two. (fsck's hasDotgit and wg_path_component_valid()
 * also apply the NTFS test after every backslash in a name.) */
bool wg_path_is_dotgit(const char *name, size_t len);

/* The same for the special files Git reads from the tree itself, where a
 * symbolic link could make Git read or write outside the repository. The
 * NTFS forms include the short names Windows derives from a hash of the
 * long name ("gi7eba~1" for .gitmodules, "gi7d29~1" for .gitattributes,
 * "gi250a~1" for .gitignore, "maba30~1" for .mailmap) as well as the
 * truncated form ("gitmod~1"). */
bool wg_path_is_hfs_dotgitmodules(const char *name, size_t len);
bool wg_path_is_ntfs_dotgitmodules(const char *name, size_t len);
bool wg_path_is_dotgitmodules(const char *name, size_t len);
bool wg_path_is_dotgitattributes(const char *name, size_t len);
bool wg_path_is_dotgitignore(const char *name, size_t len);
bool wg_path_is_dotmailmap(const char *name, size_t len);

/* Can a tree entry with this name and mode be written into a working tree?
 * False for: an empty name, ".", "..", any '/' or NUL inside, ".git" in any
 * disguise above (also after a backslash, which Windows treats as a
 * separator), and for a symbolic link, ".gitmodules" in any disguise.
 * This is Git's verify_path() for one component with core.protectHFS and
 * core.protectNTFS both on, whatever the platform. */
bool wg_path_component_valid(const char *name, size_t len, unsigned mode);
/* The same, returning 0 or WG_EINVALID with a message naming the problem. */
int wg_path_check_component(const char *name, size_t len, unsigned mode);

/* A whole '/'-separated path (an index entry, a path given to checkout):
 * no leading, trailing or doubled '/', and every component valid. `mode`
 * applies to the last component; the others are directories. 0 or
 * WG_EINVALID. */
int wg_path_check(const char *path, size_t len, unsigned mode);

#endif
