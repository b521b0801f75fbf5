/* Small filesystem helpers over POSIX calls (they work the same on a native
 * disk, Emscripten's MEMFS and IDBFS, and Node's raw filesystem). Errors
 * are WG_ENOTFOUND for a missing path and WG_EIO otherwise, with the path
 * and the system's reason in the message. */
#ifndef WG_UTIL_FS_H
#define WG_UTIL_FS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Append the whole file to out. */
int wg_fs_read_file(struct wg_buf *out, const char *path);
/* Create a directory and its missing parents (mode 0777 & ~umask). */
int wg_fs_mkdir_p(const char *path);
bool wg_fs_is_dir(const char *path);
bool wg_fs_exists(const char *path);
/* Write a new file that must not exist yet (O_EXCL); WG_EEXISTS if it does. */
int wg_fs_write_new_file(const char *path, const void *data, size_t len, int mode);
/* An existing directory with no entries. */
bool wg_fs_dir_is_empty(const char *path);
/* Remove a file, or a directory and everything in it (symlinks are
 * removed, not followed). A missing path is fine. */
int wg_fs_remove_tree(const char *path);
/* Join two path parts with one '/' into out (reset first). */
int wg_fs_join(struct wg_buf *out, const char *a, const char *b);

#endif
