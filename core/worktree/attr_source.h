/* Attributes files for the engine (worktree/attr.h) from a repository:
 * the working tree through util/fs.h, the index's blobs, info/attributes
 * and the global file, in the order git's direction asks for.
 *
 *	CHECKIN   the working tree's .gitattributes, else the index's (what
 *	          git check-attr and git add use)
 *	CHECKOUT  the index's, else the working tree's (git checkout)
 *	INDEX     the index's only (git check-attr --cached; bare repositories)
 *
 * In-tree .gitattributes are not followed through a symbolic link (git
 * warns "unable to access"); a file or blob of WG_ATTR_MAX_FILE_SIZE or
 * more is skipped with git's warning, and the other place is tried. */
#ifndef WG_WORKTREE_ATTR_SOURCE_H
#define WG_WORKTREE_ATTR_SOURCE_H

#include "index/index.h"
#include "odb/odb.h"
#include "worktree/attr.h"

enum wg_attr_direction { WG_ATTR_CHECKIN, WG_ATTR_CHECKOUT, WG_ATTR_INDEX };

struct wg_attr_source {
	const char *workdir;     /* NULL for a bare repository */
	const char *info_file;   /* $GIT_DIR/info/attributes, or NULL */
	const char *info_name;   /* its name in messages (NULL: info_file) */
	const char *global_file; /* wg_attr_global_path's answer, or NULL */
	const struct wg_index *index; /* NULL: no index */
	struct wg_odb *odb;
	enum wg_attr_direction direction;
	/* where the source's own warnings go (git's stderr lines) */
	void (*warn)(void *payload, const char *line);
	void *payload;
};

/* The engine's read callback; payload is a struct wg_attr_source. */
int wg_attr_source_read(void *payload, enum wg_attr_file_kind kind, const char *dir,
			struct wg_attr_file *out);

/* git's global attributes file: core.attributesFile (`configured`, with
 * "~/" meaning home), else $XDG_CONFIG_HOME/git/attributes when xdg is
 * set and not empty, else $HOME/.config/git/attributes; out stays empty
 * when there is none (no home either). */
int wg_attr_global_path(struct wg_buf *out, const char *configured, const char *home,
			const char *xdg);

#endif
