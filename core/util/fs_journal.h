/* A journal of files to put back: for an operation that changes several
 * files one after another (the files ref backend renames one lock per ref),
 * so that a failure half-way can restore every file it already changed and
 * the operation happens entirely or not at all.
 *
 * Record each file just before changing it; on failure, undo puts them back
 * in reverse order: a file that did not exist is removed, a replaced or
 * removed one gets its old bytes again (through a temporary file and a
 * rename, so a reader never sees it half-written), and a file only appended
 * to is cut back to its old length (so a long reflog is not copied).
 *
 *	struct wg_fs_journal j = WG_FS_JOURNAL_INIT;
 *	if (!(err = wg_fs_journal_save(&j, path)))
 *		err = replace(path);
 *	...
 *	if (err)
 *		wg_fs_journal_undo(&j);
 *	wg_fs_journal_release(&j);
 *
 * Undo keeps the error being reported; if a restore fails too, the
 * message says which file could not be put back. */
#ifndef WG_UTIL_FS_JOURNAL_H
#define WG_UTIL_FS_JOURNAL_H

#include <stddef.h>

struct wg_fs_journal_entry;

struct wg_fs_journal {
	struct wg_fs_journal_entry *v;
	size_t nr, alloc;
};

#define WG_FS_JOURNAL_INIT { NULL, 0, 0 }

/* Remember path's bytes (or that it does not exist). Saving a path twice
 * is fine: undo runs backwards, so the first save is what stays. */
int wg_fs_journal_save(struct wg_fs_journal *j, const char *path);
/* Remember path's length (or that it does not exist) before appending. */
int wg_fs_journal_save_append(struct wg_fs_journal *j, const char *path);
/* Put every saved file back, the last saved first. */
void wg_fs_journal_undo(struct wg_fs_journal *j);
void wg_fs_journal_release(struct wg_fs_journal *j);

#endif
