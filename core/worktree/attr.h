/* Attributes per path, as git's .gitattributes give them (gitattributes(5)),
 * Git-exact: the same lines accepted and refused (with git's warnings),
 * the same precedence, macro expansion and `-a` order.
 *
 * The engine is sans-IO: it asks its caller for the bytes of each
 * attributes file as it needs them (struct wg_attr_options.read), so the
 * same code reads a disk, IndexedDB, or the index's blobs at checkout.
 * worktree/attr_source.h is the reader for a repository on a file system.
 *
 * Where the lines come from, lowest precedence first (git's stack):
 *   the built-in "[attr]binary -diff -merge -text",
 *   the global file (core.attributesFile, else $XDG_CONFIG_HOME/git/attributes),
 *   .gitattributes of the top directory, then of each directory down to
 *   the path's own,
 *   $GIT_DIR/info/attributes (highest).
 * A later line of a file beats an earlier one, attribute by attribute.
 * Macros ("[attr]name attrs...") may be defined only in the global file,
 * the top .gitattributes and info/attributes. git's system file
 * ($(prefix)/etc/gitattributes) has no place here: webgit has no prefix.
 *
 * Limits, as git: a line of 2048 bytes or more and a file of 100 MiB or
 * more are ignored with a warning. */
#ifndef WG_WORKTREE_ATTR_H
#define WG_WORKTREE_ATTR_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

#define WG_ATTR_MAX_LINE 2048u                          /* git's ATTR_MAX_LINE_LENGTH */
#define WG_ATTR_MAX_FILE_SIZE ((size_t)100 * 1024 * 1024) /* git's ATTR_MAX_FILE_SIZE */

enum wg_attr_state {
	WG_ATTR_UNSPECIFIED = 0, /* nothing says (or "!attr") */
	WG_ATTR_SET,             /* "attr" */
	WG_ATTR_UNSET,           /* "-attr" */
	WG_ATTR_VALUE,           /* "attr=value" */
};

struct wg_attr_value {
	enum wg_attr_state state;
	const char *value; /* WG_ATTR_VALUE only; valid until the next check */
};

/* Which attributes file the engine wants. */
enum wg_attr_file_kind {
	WG_ATTR_FILE_GLOBAL, /* core.attributesFile or the XDG one */
	WG_ATTR_FILE_DIR,    /* <dir>/.gitattributes ("" is the top) */
	WG_ATTR_FILE_INFO,   /* $GIT_DIR/info/attributes */
};

/* One file's bytes, as a reader hands them over. */
struct wg_attr_file {
	struct wg_buf data;
	struct wg_buf name; /* for messages: "sub/.gitattributes" */
	/* A blob (from the index or a tree) rather than a file: git reads
	 * those differently (a NUL ends the text; no BOM or CR stripping). */
	bool blob;
};

struct wg_attr_options {
	/* Fill `out` (whose buffers are empty) with the file of `kind` (for
	 * WG_ATTR_FILE_DIR, the one in `dir`, "" for the top, no trailing
	 * '/'). Return 0, WG_ENOTFOUND for no file (not an error), or
	 * another negative code to stop the check. */
	int (*read)(void *payload, enum wg_attr_file_kind kind, const char *dir,
		    struct wg_attr_file *out);
	/* One line of git's stderr, without the newline ("warning: ..."
	 * where git says so). May be NULL. */
	void (*warn)(void *payload, const char *line);
	void *payload;
	bool ignore_case; /* core.ignoreCase: patterns match without case */
};

struct wg_attr;

int wg_attr_new(struct wg_attr **out, const struct wg_attr_options *opts);
void wg_attr_free(struct wg_attr *attr);

/* The number of an attribute name (added to the engine's dictionary, as
 * git interns names: `-a` lists attributes in this order).
 * WG_EINVALID for a name git refuses ("x: not a valid attribute name"). */
int wg_attr_intern(struct wg_attr *attr, const char *name, unsigned *id_out);
const char *wg_attr_name(const struct wg_attr *attr, unsigned id);
bool wg_attr_name_valid(const char *name, size_t len);

/* The values of attributes ids[0..n) for path (relative to the top, '/'
 * separated; a trailing '/' says it is a directory). */
int wg_attr_check(struct wg_attr *attr, const char *path, const unsigned *ids, size_t n,
		  struct wg_attr_value *out);

/* Every attribute that path has (not unspecified), in dictionary order:
 * *items (owned by the engine, valid until the next call) gets *n of them. */
struct wg_attr_item {
	unsigned id;
	struct wg_attr_value v;
};
int wg_attr_check_all(struct wg_attr *attr, const char *path, const struct wg_attr_item **items,
		      size_t *n);

#endif
