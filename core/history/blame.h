/* Blame: which commit last brought each line of a file into the state
 * it has at a given commit, as git blame finds it.
 *
 * Git's way, which this follows: every (commit, path) that may hold lines
 * of the file is an origin; an origin's lines are offered to the parents
 * of its commit in order. A parent with the same blob at the same path
 * (or, failing that, at the path the file was renamed from, as git's
 * rename detection pairs them with this path as the only destination)
 * takes them all; otherwise each parent takes the lines its version has
 * in common with this one (git's Myers line diff, as blame runs it), and
 * the first taker wins. With -M, lines still unclaimed are looked for
 * anywhere in the parents' versions of the file, with -C in the parents'
 * other files too (git's find_move_in_parent, find_copy_in_parent): a
 * stretch of them goes where the best match is if it has enough letters
 * and digits. Lines no parent takes are this origin's. A root commit, and
 * a shallow clone's cut-off commit, take the rest of their lines as a
 * boundary (unless show_root). Lines travel in git's blame entries, split
 * where git splits them, since with -M/-C an entry's size decides whether
 * it is looked for elsewhere. Each entry's fate depends on it alone, not
 * on the order origins are visited, so they are visited newest commit
 * first as git does, but without its bookkeeping.
 *
 * Not here: the whitespace options but -w, revision ranges, --reverse,
 * mailmap, textconv, --ignore-rev. */
#ifndef WG_HISTORY_BLAME_H
#define WG_HISTORY_BLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"
#include "repo/repo.h"

struct wg_blame_options {
	bool show_root;         /* --root: a root commit is no boundary */
	unsigned whitespace;    /* -w: WG_DIFF_IGNORE_ALL_SPACE (diff/line_diff.h) */
	/* -L: line ranges of the blamed file, 0-based, end exclusive, sorted
	 * and not overlapping (wg_blame_ranges_add keeps them so); none means
	 * the whole file. */
	long *ranges;
	size_t nranges;
	/* -M: lines moved or copied within the file are followed to where
	 * they were before. -C once: also to the files the commit changed
	 * or deleted (implies -M); twice: to any file of the parent when
	 * the file is new or renamed there; three times: always to any
	 * file of the parent. */
	bool moves;
	unsigned copies;        /* 0..3 */
	/* how many letters and digits a stretch of lines must have (more
	 * than) to be looked for as a move or a copy; 0: git's defaults */
	unsigned move_score, copy_score;
};

#define WG_BLAME_DEFAULT_MOVE_SCORE 20
#define WG_BLAME_DEFAULT_COPY_SCORE 40

/* An ident as git blame shows it: the name, the email in angle brackets,
 * the time and the zone as written ("(unknown)" for an ident git cannot
 * split, with time 0). */
struct wg_blame_person {
	char *name;
	char *mail;
	uint64_t time;
	char *tz;
};

struct wg_blame_commit {
	struct wg_oid oid;
	struct wg_blame_person author, committer;
	char *summary;          /* the subject line, or "(<hex>)" when empty */
	bool boundary;          /* shown with '^', "boundary" in porcelain */
	bool several_paths;     /* lines blamed to it under more than one path */
};

struct wg_blame_origin {
	size_t commit;          /* into commits */
	char *path;
	/* The first parent version the lines were compared with (porcelain's
	 * "previous"): none for boundaries and whole-file passes. */
	bool has_previous;
	struct wg_oid previous_commit;
	char *previous_path;
};

/* num_lines lines from line lno of the blamed file are line s_lno on of
 * the origin's version (both 0-based). In line order, adjacent entries of
 * one origin that continue each other merged, as git's coalescing does. */
struct wg_blame_entry {
	long lno, s_lno, num_lines;
	size_t origin;
};

struct wg_blame {
	char *text;             /* the blamed file at the start commit */
	size_t size;
	long nlines;            /* a last line without newline counts */
	struct wg_blame_entry *entries;
	size_t nentries;
	struct wg_blame_origin *origins;   /* only those with entries */
	size_t norigins;
	struct wg_blame_commit *commits;   /* only those with entries */
	size_t ncommits;
};

/* Add the 0-based range [start, end) to opts, merged with those it
 * overlaps or touches (as git merges -L ranges). */
int wg_blame_ranges_add(struct wg_blame_options *opts, long start, long end);
void wg_blame_options_release(struct wg_blame_options *opts);

/* Blame `path` as of `commit`. WG_ENOTFOUND when the commit does not have
 * the path (or has it as no file), WG_EINVALID for a range past the end
 * of the file. `out` is initialised here; release it in any case. */
int wg_blame_run(struct wg_blame *out, struct wg_repo *repo, const struct wg_oid *commit,
		 const char *path, const struct wg_blame_options *opts);

/* The working tree's version of a file, blamed as `git blame <path>` (no
 * revision) does it: a commit of its own whose id is all zeros, "Not
 * Committed Yet" as author and committer at `time` in zone `tz`,
 * "Version of <path> from <path>" as its subject; its parents are HEAD
 * and the commits being merged (MERGE_HEAD); its tree is the index with
 * the file's working tree version in it (git diffs the parents with the
 * index there: renames and -C copies are found against it), and the
 * file in it is `blob` with `mode`. Both must be readable through the
 * repository's odb (written nowhere: odb/memory_backend.h); the
 * worktree layer makes them (worktree/worktree_blame.h). The lines a
 * parent has come out as blamed from `parents` on; the others are that
 * commit's. */
struct wg_blame_worktree {
	const struct wg_oid *parents;
	size_t nparents;
	struct wg_oid tree, blob;
	unsigned mode;
	uint64_t time;
	const char *tz;
};

/* Blame the working tree's version of `path` (wg_blame_worktree), with
 * opts as wg_blame_run takes them. */
int wg_blame_run_worktree(struct wg_blame *out, struct wg_repo *repo,
			  const struct wg_blame_worktree *wt, const char *path,
			  const struct wg_blame_options *opts);
void wg_blame_release(struct wg_blame *b);

#endif
