/* Working-tree files, one at a time, for editors: read, write, remove and
 * list by a path relative to the top of the working tree, on whatever
 * storage the repository lives on (disk, IndexedDB, memory: util/fs).
 *
 * Every path is checked as checkout checks what it writes (object/path.h:
 * no ".git" in any disguise, no "..", nothing absolute, no empty or "."
 * component), and nothing is read or written through a symbolic link or
 * a file on the way: an editor's path cannot reach into .git or out of
 * the working tree. A write goes to a temporary file beside the target
 * and is renamed over it, so a reader sees the old bytes or the new ones;
 * missing directories on the way are made. */
#ifndef WG_WORKTREE_WORKFILE_H
#define WG_WORKTREE_WORKFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "repo/repo.h"
#include "util/buf.h"

/* The bytes of a file, or a symbolic link's target (WG_ENOTFOUND when
 * absent, WG_EINVALID for a directory). *mode gets 0100644, 0100755 or
 * 0120000 when not NULL. */
int wg_workfile_read(struct wg_buf *out, unsigned *mode, struct wg_repo *repo, const char *path);
/* Replace or create a file with `data`; mode 0100755 makes it executable,
 * 0100644 not, 0 keeps what an existing file has (a new one: 0100644).
 * A directory in the way is WG_EEXISTS. */
int wg_workfile_write(struct wg_repo *repo, const char *path, const void *data, size_t len,
		      unsigned mode);
/* Remove a file or symbolic link (WG_ENOTFOUND when absent), then the
 * directories it leaves empty, as git rm does. */
int wg_workfile_remove(struct wg_repo *repo, const char *path);

struct wg_workfile_entry {
	char *name;
	char kind;       /* 'f' file, 'x' executable file, 'l' link, 'd' directory */
	uint64_t size;   /* bytes of a file or of a link's target; 0 for a directory */
};
/* The entries of the directory `dir` ("" : the top), sorted by name;
 * the repository's own ".git" is never listed. */
int wg_workfile_list(struct wg_workfile_entry **out, size_t *n, struct wg_repo *repo,
		     const char *dir);
void wg_workfile_list_free(struct wg_workfile_entry *v, size_t n);

#endif
