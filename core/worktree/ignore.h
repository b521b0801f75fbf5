/* git's ignore rules (gitignore(5)), Git-exact: which untracked paths
 * `status` and `add` leave alone, and what `check-ignore` reports.
 *
 * Sans-IO: the engine never opens a file. Pattern files come in as bytes,
 * the per-directory ones through a small source vtable the caller
 * provides (the working tree on disk, IndexedDB, a tree object), so the
 * same code serves every storage; worktree/ignore_files.h is the disk's.
 *
 * Pattern lines, as git's dir.c parses them: a UTF-8 BOM at the start is
 * skipped; lines end at '\n', one '\r' before it is dropped; a line is cut
 * at its first NUL byte; empty lines and lines starting with '#' are
 * nothing; trailing spaces go unless escaped with '\'; a leading '!'
 * negates; a trailing '/' matches directories only; a pattern with no
 * other '/' matches the basename at any depth below its file, one with a
 * '/' (leading or inside) matches the path relative to its file's
 * directory with wildmatch's pathname rules (util/wildmatch.h, `**`).
 *
 * Precedence (git's last_matching_pattern): within a file the last
 * matching line wins; the deepest directory's .gitignore is asked first,
 * then its parents', then the global files in the reverse of the order
 * they were added (git adds core.excludesFile, then info/exclude, so
 * info/exclude wins). A negated line that matches decides too: the path
 * is not excluded. Before a path is matched, each of its parent
 * directories is matched (as a directory, against the files above it):
 * an excluded parent decides for everything below it, and its own
 * .gitignore is never read -- "it is not possible to re-include a file
 * if a parent directory of that file is excluded". */
#ifndef WG_WORKTREE_IGNORE_H
#define WG_WORKTREE_IGNORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* git refuses pattern files this large or larger (dir.c's
 * PATTERN_MAX_FILE_SIZE counts the newline it appends): it warns
 * "ignoring excessively large pattern file" and goes on without it. */
#define WG_IGNORE_MAX_FILE_SIZE ((size_t)100 << 20)

/* What a path is, as far as a directory-only pattern cares. */
enum wg_ignore_type {
	WG_IGNORE_TYPE_UNKNOWN = 0, /* ask the source (see below) */
	WG_IGNORE_TYPE_DIR,
	WG_IGNORE_TYPE_OTHER,       /* a file, a symlink, nothing at all */
};

/* Pattern flags (git's PATTERN_FLAG_*). */
#define WG_IGNORE_NEGATIVE  0x1u  /* "!pattern" */
#define WG_IGNORE_MUSTBEDIR 0x2u  /* "pattern/" */
#define WG_IGNORE_NODIR     0x4u  /* no '/': matches the basename */
#define WG_IGNORE_ENDSWITH  0x8u  /* "*literal": a suffix compare */

struct wg_ignore_list;

struct wg_ignore_pattern {
	const struct wg_ignore_list *list; /* the file it came from */
	const char *pattern;  /* without '!' and the trailing '/', NUL-terminated */
	uint32_t len;         /* of pattern */
	uint32_t nowildcard;  /* leading bytes with no wildcard */
	uint32_t lineno;      /* 1-based line in its file */
	unsigned flags;       /* WG_IGNORE_* */
};

/* One pattern file's patterns. */
struct wg_ignore_list {
	char *src;            /* as git names it: ".gitignore", "a/.gitignore",
				 ".git/info/exclude", a core.excludesFile path */
	char *base;           /* the directory it applies to: "" or "a/b/" */
	size_t baselen;
	char *text;           /* the file's bytes, patterns cut out in place */
	struct wg_ignore_pattern *patterns;
	size_t nr, alloc;
};

/* Parse a pattern file's bytes into a new list. WG_ELIMIT ("ignoring
 * excessively large pattern file: <src>", git's words) when len + 1 >
 * max_size (0: WG_IGNORE_MAX_FILE_SIZE); any bytes are accepted. */
int wg_ignore_list_parse(struct wg_ignore_list **out, const char *src, const char *base,
			 const void *data, size_t len, size_t max_size);
void wg_ignore_list_free(struct wg_ignore_list *list);

/* The source of the per-directory pattern files. */
struct wg_ignore_source {
	/* Append the bytes of the pattern file at `path` (relative to the
	 * top: ".gitignore", "a/b/.gitignore") to out. WG_ENOTFOUND when
	 * there is none to read; any other error stops the match and is
	 * returned from it. */
	int (*read)(void *payload, const char *path, struct wg_buf *out);
	/* What `path` is, asked only when a directory-only pattern could
	 * decide and the caller did not say. NULL: WG_IGNORE_TYPE_OTHER. */
	enum wg_ignore_type (*type)(void *payload, const char *path);
	/* A warning git would print on stderr (a pattern file too large);
	 * NULL to drop it. */
	void (*warn)(void *payload, const char *message);
	/* Called by wg_ignore_free() when the matcher owns the payload;
	 * may be NULL. */
	void (*release)(void *payload);
	void *payload;
};

struct wg_ignore_options {
	bool ignore_case;        /* core.ignoreCase */
	const char *per_dir;     /* NULL: ".gitignore"; "" reads none */
	size_t max_file_size;    /* 0: WG_IGNORE_MAX_FILE_SIZE */
};
#define WG_IGNORE_OPTIONS_INIT { false, NULL, 0 }

struct wg_ignore;

/* A matcher over `source` (copied; NULL: no per-directory files). */
int wg_ignore_new(struct wg_ignore **out, const struct wg_ignore_source *source,
		  const struct wg_ignore_options *opts);
void wg_ignore_free(struct wg_ignore *ig);

/* Add a whole-repository pattern file (core.excludesFile first, then
 * $GIT_DIR/info/exclude: each one added wins over the ones before it).
 * Its patterns are relative to the top. Too large: the source's warning,
 * and the file is left out (0 returned), as git does. */
int wg_ignore_add_file(struct wg_ignore *ig, const char *src, const void *data, size_t len);

/* The pattern that decides `path` (relative to the top, '/'-separated, no
 * "." or ".." parts; a trailing '/' is kept as git keeps it): *out is
 * NULL when none matches, else the pattern, which excludes the path
 * unless it has WG_IGNORE_NEGATIVE. `type` says whether path is a
 * directory, or UNKNOWN to ask the source when it matters. The pattern
 * lives until the next call or wg_ignore_free(). */
int wg_ignore_match(const struct wg_ignore_pattern **out, struct wg_ignore *ig,
		    const char *path, enum wg_ignore_type type);
/* Is path excluded (a pattern decides it and is not negated)? */
int wg_ignore_is_excluded(bool *out, struct wg_ignore *ig, const char *path,
			  enum wg_ignore_type type);

#endif
