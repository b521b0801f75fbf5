/* A directory built under a temporary name beside its final place and
 * renamed there when complete.
 *
 * A process killed while building a new repository (init, clone) cannot
 * take back what it made; built aside, it leaves nothing at the final
 * path, only "<final>.webgit-tmp-XXXXXX" beside it, which no reader takes
 * for a repository and the user may remove. One rename publishes the
 * whole directory, so a reader sees nothing or all of it.
 *
 *	struct wg_staged_dir sd = WG_STAGED_DIR_INIT;
 *	if (!(err = wg_staged_dir_begin(&sd, "r")))
 *		err = build(sd.path);
 *	if (!err)
 *		err = wg_staged_dir_publish(&sd);
 *	wg_staged_dir_release(&sd);    (removes the temporary unless published)
 *
 * The final path must not exist, or be an empty directory, which the
 * rename replaces (POSIX allows that for an empty directory). */
#ifndef WG_UTIL_STAGED_DIR_H
#define WG_UTIL_STAGED_DIR_H

#include <stdbool.h>

struct wg_staged_dir {
	char *final_path;
	char *path;         /* the temporary directory being built */
	bool published;
};

#define WG_STAGED_DIR_INIT { NULL, NULL, false }

/* Create the temporary directory beside final_path (its parent must
 * exist). */
int wg_staged_dir_begin(struct wg_staged_dir *sd, const char *final_path);
/* Rename it to the final path. */
int wg_staged_dir_publish(struct wg_staged_dir *sd);
/* Remove the temporary directory unless published, keeping the error
 * being reported; free the names. */
void wg_staged_dir_release(struct wg_staged_dir *sd);

#endif
