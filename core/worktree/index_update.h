/* Staging: git add and git rm on an index in memory (builtin/add.c,
 * builtin/rm.c, read-cache.c's add_to_index), without printing.
 *
 * Paths and pathspecs are relative to the top of the working tree
 * (worktree/pathspec.h). Files are hashed as git add hashes them
 * (worktree/workdir.h: attributes and core.autocrlf line endings,
 * symbolic links, core.fileMode) and their blobs written; a directory
 * holding its own .git becomes a gitlink (160000) at its HEAD. Added
 * entries get the file's stat data, so the next status reads nothing;
 * cache tree nodes along changed paths are invalidated. Nothing is
 * written to the index file: the caller writes `ix` (wg_index_write).
 *
 * What git prints goes to callbacks, in git's order:
 *   report(payload, 'a', path)  "add '<path>'" (-v, -n); a new nested
 *                               repository is named "sub/" as git does
 *   report(payload, 'r', path)  "remove '<path>'" (add -A/-u of a
 *                               deleted file, -v/-n), and "rm '<path>'"
 *                               for wg_index_remove_paths
 *   report(payload, 'i', path)  an ignored path a pathspec named, left
 *                               out (git's "The following paths are
 *                               ignored..." block, then exit code 1)
 *   report(payload, 'e', path)  an embedded repository was added (git's
 *                               "adding embedded git repository" warning)
 * `warn` gets the lines git prints as warnings (without "warning: ")
 * and, for a refused rm, each "error: " block's text. */
#ifndef WG_WORKTREE_INDEX_UPDATE_H
#define WG_WORKTREE_INDEX_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "index/index.h"
#include "repo/repo.h"
#include "worktree/ignore.h"

struct wg_index_update_options {
	bool all;            /* add -A: deleted files leave the index (git's default with a pathspec) */
	bool update_only;    /* add -u: only paths already tracked */
	bool force;          /* add -f: ignored files too */
	bool intent_to_add;  /* add -N */
	bool dry_run;        /* -n: decide and report, change nothing, write no object */
	struct wg_ignore *ignore;   /* the rules (worktree/ignore_files.h); NULL: none */
	const char *prefix;  /* the pathspecs' directory below the top: NULL, "" or "a/b/" */
	void (*report)(void *payload, char action, const char *path);
	void (*warn)(void *payload, const char *line);
	void *payload;
};

/* git add: stage the working-tree state of the paths matching the
 * pathspecs (n == 0: everything, as add -A at the top). A pathspec that
 * matches nothing is WG_ENOTFOUND ("pathspec 'x' did not match any
 * files"; with update_only, a path that exists but is not tracked:
 * "pathspec 'x' did not match any file(s) known to git") before anything
 * changes. Ignored paths named by a pathspec are reported ('i') and
 * left out; the rest is still added (git then exits 1). */
int wg_index_add_paths(struct wg_repo *repo, struct wg_index *ix, const char *const *pathspecs,
		       size_t n, const struct wg_index_update_options *opts);

/* git rm [--cached] [-r] [-f]: remove the matching index entries, and
 * the files (and the directories they leave empty) unless cached.
 * Refused before anything changes, as git refuses: a pathspec matching
 * nothing (WG_ENOTFOUND), a directory without recursive ("not removing
 * 'd' recursively without -r", WG_EINVALID), and unless force, content
 * that differs between the file, the index and HEAD (WG_EEXISTS; each of
 * git's "error: " blocks went to warn). Each removed path is reported
 * ('r') before the files are removed. opts: dry_run, report, warn. */
int wg_index_remove_paths(struct wg_repo *repo, struct wg_index *ix, const char *const *pathspecs,
			  size_t n, bool cached, bool recursive, bool force,
			  const struct wg_index_update_options *opts);

#endif
