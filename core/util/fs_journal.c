#include "util/fs_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/lockfile.h"

struct wg_fs_journal_entry {
	char *path;
	bool existed;
	bool append;          /* only appended to: cut back to `size` */
	int64_t size;
	struct wg_buf data;   /* the old bytes, when not `append` */
};

static int add(struct wg_fs_journal *j, const char *path, bool append)
{
	struct wg_fs_journal_entry *e;
	struct stat st;
	int err;

	if (j->nr == j->alloc) {
		size_t n = j->alloc ? 2 * j->alloc : 8;
		void *v = wg_realloc(j->v, n * sizeof(*j->v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		j->v = v;
		j->alloc = n;
	}
	e = &j->v[j->nr];
	memset(e, 0, sizeof(*e));
	if (!(e->path = wg_strdup(path)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	e->append = append;
	if (wg_fs_lstat(path, &st)) {
		if (errno != ENOENT && errno != ENOTDIR) {
			err = wg_error_set(WG_EIO, "cannot stat '%s': %s", path, strerror(errno));
			wg_free(e->path);
			return err;
		}
	} else {
		e->existed = true;
		e->size = (int64_t)st.st_size;
		if (!append && (err = wg_fs_read_file(&e->data, path))) {
			wg_buf_release(&e->data);
			wg_free(e->path);
			return err;
		}
	}
	j->nr++;
	return 0;
}

int wg_fs_journal_save(struct wg_fs_journal *j, const char *path)
{
	return add(j, path, false);
}

int wg_fs_journal_save_append(struct wg_fs_journal *j, const char *path)
{
	return add(j, path, true);
}

/* Put one file back; 0 or -1 with errno set. */
static int restore(const struct wg_fs_journal_entry *e)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	int fd, r;

	if (!e->existed)
		return wg_fs_unlink(e->path) && errno != ENOENT ? -1 : 0;
	if (e->append) {
		if ((fd = wg_fs_open(e->path, O_WRONLY, 0)) < 0)
			return -1;
		r = wg_fs_ftruncate(fd, e->size);
		if (wg_fs_close(fd))
			r = -1;
		return r;
	}
	/* Its directory may have gone with it (an emptied refs/heads/x/). */
	{
		const char *slash = strrchr(e->path, '/');
		if (slash && slash != e->path) {
			char *dir = wg_strndup(e->path, (size_t)(slash - e->path));
			if (dir && !wg_fs_is_dir(dir) && wg_fs_mkdir_p(dir))
				wg_error_clear();
			wg_free(dir);
		}
	}
	/* Through a lock file, so a reader never sees it half-written. */
	if (wg_lockfile_acquire(&lk, e->path) ||
	    wg_lockfile_write(&lk, e->data.data ? e->data.data : (unsigned char *)"",
			      e->data.len) ||
	    wg_lockfile_commit(&lk)) {
		wg_lockfile_rollback(&lk);
		errno = EIO;
		return -1;
	}
	return 0;
}

void wg_fs_journal_undo(struct wg_fs_journal *j)
{
	struct wg_error_saved first;
	const char *lost = NULL;
	int lost_errno = 0;

	wg_error_save(&first);
	for (size_t i = j->nr; i-- > 0;) {
		if (restore(&j->v[i]) && !lost) {
			lost = j->v[i].path;
			lost_errno = errno;
		}
	}
	wg_error_restore(&first);
	if (lost)
		wg_error_set(first.code ? first.code : WG_EIO,
			     "%s; and '%s' could not be put back: %s", first.message, lost,
			     strerror(lost_errno));
}

void wg_fs_journal_release(struct wg_fs_journal *j)
{
	for (size_t i = 0; i < j->nr; i++) {
		wg_free(j->v[i].path);
		wg_buf_release(&j->v[i].data);
	}
	wg_free(j->v);
	j->v = NULL;
	j->nr = j->alloc = 0;
}
