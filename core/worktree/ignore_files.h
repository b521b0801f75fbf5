/* A repository's ignore rules from its files, as git gathers them for
 * `status`, `add` and `check-ignore` (dir.c's setup_standard_excludes):
 * core.excludesFile (by default $XDG_CONFIG_HOME/git/ignore, or
 * ~/.config/git/ignore), then $GIT_DIR/info/exclude, then the .gitignore
 * of each directory of the working tree, read lazily through util/fs.h;
 * core.ignoreCase from the config.
 *
 * As git: a missing file is no file; a .gitignore that is a symbolic link
 * is not followed (git's warning, then no patterns); a file git could not
 * read is a warning, not an error. Warnings go to `warn` ("unable to
 * access '<path>': <reason>", "ignoring excessively large pattern file:
 * <path>"), without git's "warning: " in front. */
#ifndef WG_WORKTREE_IGNORE_FILES_H
#define WG_WORKTREE_IGNORE_FILES_H

#include "repo/repo.h"
#include "worktree/ignore.h"

/* The matcher of a repository with a working tree. `gitdir_name` is the
 * git directory as the caller names it in sources (".git/info/exclude");
 * NULL names it ".git" when it is the working tree's ".git", else by its
 * absolute path. */
int wg_ignore_open(struct wg_ignore **out, struct wg_repo *repo, const char *gitdir_name,
		   void (*warn)(void *payload, const char *message), void *payload);

#endif
