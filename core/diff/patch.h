/* One file's part of a git patch, byte for byte as git diff prints it:
 * "diff --git a/<old> b/<new>", the extended header lines (new/deleted
 * file mode, old/new mode, similarity index with rename from/to, index
 * <old>..<new>[ <mode>]), then "Binary files ... differ" or the ---/+++
 * lines and the unified hunks (diff/unified.h). A change of type (file to
 * symlink) is a deletion and a creation, as git splits it. Binary is git's
 * rule without attributes: a NUL in the first 8000 bytes, or a blob past
 * git's default core.bigFileThreshold (512 MiB). Also the line
 * counts that --stat and --numstat show. */
#ifndef WG_DIFF_PATCH_H
#define WG_DIFF_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/line_diff.h"
#include "diff/unified.h"
#include "hash/oid.h"
#include "odb/odb.h"
#include "util/buf.h"

/* A file pair with both contents at hand (a side that is absent has mode
 * 0, a null id and no data). */
struct wg_diff_file {
	char status;                  /* 'A', 'D', 'M', 'T', 'R', 'C' */
	const char *old_path, *new_path;
	unsigned old_mode, new_mode;
	struct wg_oid old_oid, new_oid;
	int score;                    /* 'R': similarity, 0..WG_RENAME_MAX_SCORE */
	const char *old_data, *new_data;
	size_t old_len, new_len;
};

struct wg_patch_options {
	struct wg_unified_options hunks;
	/* abbreviated ids: at least this many digits, more while the odb
	 * finds the prefix ambiguous (git's find_unique_abbrev); NULL odb or
	 * abbrev 0: full ids */
	struct wg_odb *odb;
	int abbrev;
	struct wg_line_diff_options lines;   /* algorithm, heuristic, whitespace */
	/* also handed every hunk and line the patch prints (NULL: none),
	 * each before its text is appended, so that the sink may note where
	 * in out that text begins (out->len) */
	const struct wg_hunk_sink *sink;
};
#define WG_PATCH_OPTIONS_INIT { WG_UNIFIED_OPTIONS_INIT, NULL, 7, WG_LINE_DIFF_OPTIONS_INIT, NULL }

/* A change of type prints two patches (the deletion, then the creation),
 * and a sink sees the hunks of both, in that order. */
int wg_diff_patch(struct wg_buf *out, const struct wg_diff_file *f,
		  const struct wg_patch_options *opts);

/* git's binary guess for a blob */
bool wg_diff_is_binary(const void *data, size_t len);

/* Lines added and deleted, as --numstat counts them (git diffs with the
 * context setting, which matters only at -U0, and the line diff options,
 * NULL for the defaults); *binary instead when either side is binary. */
int wg_diff_count_lines(const struct wg_diff_file *f, long context,
			const struct wg_line_diff_options *lines, size_t *added, size_t *deleted,
			bool *binary);

/* The shortest unique prefix of oid's hex (at least min digits) in odb,
 * into out (WG_MAX_HEXSZ + 1 bytes). */
void wg_diff_abbrev(char *out, struct wg_odb *odb, const struct wg_oid *oid, int min);

#endif
