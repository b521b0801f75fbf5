/* Rename detection: which added path is a deleted one moved (and maybe
 * edited), as git's diffcore-rename decides it, so that status and diffs
 * pair the same files with the same scores as git.
 *
 * In git's order: exact renames first (the same blob; among several
 * sources the first unused one, preferring the same basename); then, for
 * sources and destinations whose basename is unique on both sides, a
 * pair at least halfway between the minimum score and 100%; then the
 * full matrix of similarities (each destination's four best sources,
 * best scores first, a source used once), unless it would exceed the
 * rename limit squared. Similarity is git's: the bytes of the
 * destination that come from the source, counted over chunks of a line
 * (or 64 bytes) by hash, CR of CRLF ignored in text, over the larger
 * size; only regular files are compared inexactly.
 *
 * Copies (-C) as git finds them: files that stay (modified ones; with
 * -C -C, --find-copies-harder, unmodified ones too) are sources beside
 * the deleted ones. A source may then serve several destinations: the
 * exact pass prefers a source not used yet, the basename pass is skipped,
 * the matrix keeps every source, and after the rename pairs (unused
 * sources only) a second round pairs what is left, used sources too.
 * Each use of a staying file is a copy; of a deleted one, the last use
 * in destination order is the rename and earlier ones copies (git's
 * rename_used count). Over the rename limit, -C -C falls back to the
 * modified sources when they fit (git's "only found copies from modified
 * paths" warning), else the inexact passes are skipped as for renames.
 *
 * Not here (yet): break detection (-B), directory-rename guesses (merge
 * only), and the "diff" attribute's binary flag (binary is a NUL in the
 * first 8000 bytes). */
#ifndef WG_DIFF_RENAME_H
#define WG_DIFF_RENAME_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "odb/odb.h"
#include "util/buf.h"

#define WG_RENAME_MAX_SCORE 60000
#define WG_RENAME_DEFAULT_SCORE 30000   /* 50% */

/* What a source is to its diff: deleted, or a file that stays (a copy
 * source only). Destinations are added files (WG_RENAME_GONE). */
enum wg_rename_kept {
	WG_RENAME_GONE = 0,        /* deleted (or, for a destination, added) */
	WG_RENAME_MODIFIED,        /* stays, changed: -C's sources */
	WG_RENAME_UNMODIFIED,      /* stays unchanged: -C -C's sources */
};

struct wg_rename_file {
	const char *path;
	unsigned mode;
	struct wg_oid oid;
	enum wg_rename_kept kept;
};

/* What counts as a source (git's detect_rename and find_copies_harder). */
enum wg_copies {
	WG_COPIES_NONE = 0,        /* renames only: staying files are ignored */
	WG_COPIES_MODIFIED,        /* -C */
	WG_COPIES_HARDER,          /* -C -C, --find-copies-harder */
};

struct wg_rename_options {
	int min_score;        /* 0..WG_RENAME_MAX_SCORE; 0: the default (50%) */
	int limit;            /* the rename limit; <= 0: none */
	bool skip_empty;      /* empty files are no candidates (diff's rename_empty off) */
	enum wg_copies copies;
};
#define WG_RENAME_OPTIONS_INIT { WG_RENAME_DEFAULT_SCORE, 1000, false, WG_COPIES_NONE }

/* A similarity as -M<n> gives it: git's digits as a fraction ("5" and
 * "50" are 50%, "055" 5.5%, "50%" and "0.5" too), capped at 100%; -1
 * when anything follows. */
int wg_rename_parse_score(const char *s);

/* Pair deleted files `src` with added files `dst` (each in path order).
 * For each destination i, src_of[i] gets its source's index or -1, and
 * score[i] its score (0..WG_RENAME_MAX_SCORE). *limited is set when the
 * inexact pass was skipped for the limit (git's warning then). Blobs are
 * read from `odb`. */
int wg_detect_renames(struct wg_odb *odb, const struct wg_rename_file *src, size_t nsrc,
		      const struct wg_rename_file *dst, size_t ndst,
		      const struct wg_rename_options *opts, int *src_of, int *score,
		      bool *limited);

/* git's estimate_similarity of each of the n files `src` with the one
 * file `dst`, as the inexact pass computes it (0..WG_RENAME_MAX_SCORE;
 * 0 for a file that is not regular or whose size is too far from dst's
 * to reach min_score), into score[0..n). For a caller that picks among
 * sources by rules of its own (log --follow's search for a copy's
 * source, history/follow.h). */
int wg_rename_similarities(struct wg_odb *odb, const struct wg_rename_file *dst,
			   const struct wg_rename_file *src, size_t n, int min_score, int *score);

/* What a detection found beyond the pairs. */
struct wg_rename_result {
	bool limited;         /* the inexact passes were skipped for the limit */
	bool degraded;        /* -C -C fell back to -C's sources for the limit */
	size_t needed;        /* limited or degraded: the limit that would do */
};

/* wg_detect_renames with copies as opts->copies asks (sources that stay
 * carry their `kept`): is_copy[i] tells a copy from a rename. */
int wg_detect_copies(struct wg_odb *odb, const struct wg_rename_file *src, size_t nsrc,
		     const struct wg_rename_file *dst, size_t ndst,
		     const struct wg_rename_options *opts, int *src_of, int *score,
		     bool *is_copy, struct wg_rename_result *res);

/* One detection run over candidates a caller picks from its own list:
 * each source and destination keeps the caller's position (`at`), and
 * after wg_rename_run_detect, src_of[d] is the index of destination d's
 * source in src (or -1) and score[d] its score. */
struct wg_rename_run {
	struct wg_rename_file *src, *dst;
	size_t *src_at, *dst_at;
	size_t nsrc, ndst;
	int *src_of, *score;
	bool *is_copy;          /* destination d is a copy, not a rename */
	bool limited;           /* the inexact pass was skipped for the limit */
	struct wg_rename_result result;
};

/* Room for up to `max` sources and as many destinations. */
int wg_rename_run_init(struct wg_rename_run *run, size_t max);
void wg_rename_run_add_src(struct wg_rename_run *run, struct wg_rename_file f, size_t at);
void wg_rename_run_add_dst(struct wg_rename_run *run, struct wg_rename_file f, size_t at);
/* Pair them (nothing to do without sources or destinations). */
int wg_rename_run_detect(struct wg_rename_run *run, struct wg_odb *odb,
			 const struct wg_rename_options *opts);
void wg_rename_run_release(struct wg_rename_run *run);

/* git's name for a rename in stats and summaries: the common leading
 * directories and trailing part outside braces ("a/{b => c}/d",
 * "{bin => scripts}/run.sh", "old => new"); names that need quoting are
 * shown whole, quoted. Appended to out. */
int wg_rename_label(struct wg_buf *out, const char *a, const char *b);

#endif
