/* The working tree as the index sees it: a file's stat data, whether it
 * still matches its index entry (git's ie_match_stat / ie_modified), and
 * the blob a file would become (git add's view: line endings converted
 * from the attributes). Shared by checkout and status.
 *
 * Stat data is trusted as git trusts it on Linux (no USE_NSEC, no
 * USE_STDEV): seconds of mtime and ctime (ctime unless core.trustCtime is
 * false), uid, gid and inode (unless core.checkStat is "minimal"), and the
 * size. An entry whose stat data says nothing changed is still compared
 * by content when it is racily clean (as new as the index file), and an
 * entry with size 0 that is not the empty blob (fresh from a tree, or
 * smudged) is compared by content too. Files are read and hashed in
 * pieces: never whole in memory. */
#ifndef WG_WORKTREE_WORKDIR_H
#define WG_WORKTREE_WORKDIR_H

#include <stdbool.h>
#include <sys/stat.h>

#include "hash/oid.h"
#include "index/index.h"
#include "odb/odb.h"
#include "repo/repo.h"
#include "worktree/attr.h"
#include "worktree/attr_source.h"
#include "worktree/convert.h"

struct wg_workdir {
	struct wg_repo *repo;
	const char *root;          /* the top of the working tree */
	struct wg_odb *odb;
	const struct wg_hash_algo *algo;
	bool filemode;             /* core.fileMode (default true) */
	bool symlinks;             /* core.symlinks (default true) */
	bool trustctime;           /* core.trustCtime (default true) */
	bool check_stat;           /* core.checkStat is not "minimal" */
	struct wg_eol_config eol;  /* core.autocrlf, core.eol */
	/* the attributes line endings come from, for checkout (the index's
	 * first) or check-in (the working tree's first) */
	struct wg_attr *attr;
	struct wg_attr_source attr_src;
	unsigned attr_ids[3];      /* text, eol, crlf */
	struct wg_buf path, info_file, global_file;  /* scratch and owned */
	struct wg_buf clean_dir;   /* the last directory found to be a real one */
};

struct wg_workdir_options {
	enum wg_attr_direction direction;
	const struct wg_index *index;   /* for .gitattributes blobs; may be NULL */
	void (*warn)(void *payload, const char *line);
	void *payload;
};

/* Open the working tree of a repository that has one (WG_EINVALID for a
 * bare repository), reading its core.* settings. */
int wg_workdir_open(struct wg_workdir **out, struct wg_repo *repo,
		    const struct wg_workdir_options *opts);
void wg_workdir_free(struct wg_workdir *wd);

/* "<root>/<path>" (in the workdir's scratch buffer: valid until the next
 * call), or NULL when out of memory. */
const char *wg_workdir_path(struct wg_workdir *wd, const char *path);

/* Is a leading directory of path (not the path itself) missing, a file or
 * a symbolic link? Then nothing at path belongs to the working tree: it
 * is not read, not removed, not written through (git's
 * has_symlink_or_noent_leading_path). The last directory found whole is
 * remembered, so a walk in index order costs one lstat per directory. */
bool wg_workdir_leading_unsafe(struct wg_workdir *wd, const char *path);

/* The line-ending decision for a path. */
int wg_workdir_conv_attrs(struct wg_workdir *wd, const char *path, struct wg_conv_attrs *out);

/* The mode git gives a file it finds (read-cache.c's ce_mode_from_stat):
 * a link is a link, a directory a gitlink; `was`, the mode of the entry
 * it would replace (0: none), is kept where the file system cannot tell
 * (a file standing for a link without core.symlinks, the executable bit
 * without core.filemode). */
unsigned wg_workdir_mode_from_stat(const struct wg_workdir *wd, const struct stat *st,
				   unsigned was);

/* stat(2) as the index keeps it (32 bits each). */
void wg_index_stat_from(struct wg_index_stat *out, const struct stat *st);

/* Does the file at path (lstat'ed into st) hold entry e? git's
 * ie_modified: stat data first, then content where stat cannot say.
 * `ix` is the index e belongs to (its file's mtime decides raciness, its
 * blobs what text=auto keeps). */
int wg_workdir_entry_modified(struct wg_workdir *wd, const struct wg_index *ix,
			      const struct wg_index_entry *e, const struct stat *st,
			      bool *modified);

/* The id the file at path (lstat'ed into st) would have as a blob: a
 * symbolic link's target, or the file's content with the check-in
 * conversion (`ix`, may be NULL: the index text=auto consults). */
int wg_workdir_hash_file(struct wg_workdir *wd, const struct wg_index *ix, const char *path,
			 const struct stat *st, struct wg_oid *out);
/* The bytes that id is the hash of: what git add would store for the file
 * at path (lstat'ed into st), into out (reset first). Whole in memory:
 * for diffs, which read both sides whole anyway. */
int wg_workdir_read_clean(struct wg_workdir *wd, const struct wg_index *ix, const char *path,
			  const struct stat *st, struct wg_buf *out);

#endif
