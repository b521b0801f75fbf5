/* The blobs a blame will read that a partial clone lacks, found from
 * commits and trees alone, so that a caller without blocking I/O can
 * fetch them in one request before the blame runs (as rev_diff.h lists a
 * diff's), instead of one lazy fetch per blob as the walk meets them.
 *
 * The walk follows the blamed path back through every parent the way
 * blame.h does: a parent with the path as a file of the same kind keeps
 * it (the first parent with the very same blob is the only one followed,
 * as blame gives it everything); a parent without it is a rename point,
 * where the files the parent deleted are the candidates rename detection
 * compares. Their blobs are listed, and only once they are all there can
 * the renamed path be known and followed: a caller fetches what is listed
 * and asks again until the list is empty (one more round per rename with
 * an edit, across all branches at once).
 *
 * It lists every version of the file along its history, where blame may
 * stop early once each line has its commit, or leave a later parent's
 * version unread when an earlier one took all lines: a few blobs too many
 * in one request, rather than a request per blob. Lines moved or copied
 * from other files (-M/-C) are not foreseen; blame's own lazy reads still
 * fetch those. */
#ifndef WG_HISTORY_BLAME_MISSING_H
#define WG_HISTORY_BLAME_MISSING_H

#include <stddef.h>

#include "hash/oid.h"
#include "repo/repo.h"

/* The blobs of `path` along the history of `commit` (and the rename
 * candidates at the points it was added) that the repository lacks, each
 * once, into *out (wg_free it) and *n. A commit without the path lists
 * nothing (blame then says so). */
int wg_blame_missing(struct wg_oid **out, size_t *n, struct wg_repo *repo,
		     const struct wg_oid *commit, const char *path);

#endif
