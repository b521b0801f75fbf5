#include "util/staged_dir.h"

#include <errno.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"

int wg_staged_dir_begin(struct wg_staged_dir *sd, const char *final_path)
{
	struct wg_buf name = WG_BUF_INIT;
	size_t len = strlen(final_path);
	int err = 0;

	/* "r/" and "r" are one directory: the suffix goes on its name. */
	while (len > 1 && final_path[len - 1] == '/')
		len--;
	if (!(sd->final_path = wg_strndup(final_path, len)) ||
	    wg_buf_printf(&name, "%s.webgit-tmp-XXXXXX", sd->final_path))
		return wg_error_set(WG_ENOMEM, "out of memory");
	/* mkstemp picks a name no one has; the directory takes its place. A
	 * process that made the same name between the unlink and the mkdir
	 * makes mkdir fail with EEXIST, and we try another. */
	for (int tries = 0;; tries++) {
		char *tmpl = (char *)name.data;
		int fd;
		memcpy(tmpl + name.len - 6, "XXXXXX", 6);
		if ((fd = wg_fs_mkstemp(tmpl)) < 0) {
			err = wg_error_set(WG_EIO, "cannot create a temporary directory beside "
					   "'%s': %s", sd->final_path, strerror(errno));
			break;
		}
		wg_fs_close(fd);
		if (wg_fs_unlink(tmpl)) {
			err = wg_error_set(WG_EIO, "cannot remove '%s': %s", tmpl, strerror(errno));
			wg_fs_unlink(tmpl);   /* once more: a passing failure leaves nothing */
			break;
		}
		if (!wg_fs_mkdir(tmpl, 0777))
			break;
		if (errno != EEXIST || tries == 9) {
			err = wg_error_set(WG_EIO, "cannot create '%s': %s", tmpl, strerror(errno));
			break;
		}
	}
	if (!err)
		sd->path = (char *)wg_buf_detach(&name, NULL);
	wg_buf_release(&name);
	return err;
}

int wg_staged_dir_publish(struct wg_staged_dir *sd)
{
	if (wg_fs_rename(sd->path, sd->final_path))
		return wg_error_set(WG_EIO, "cannot rename '%s' to '%s': %s", sd->path,
				    sd->final_path, strerror(errno));
	sd->published = true;
	return 0;
}

void wg_staged_dir_release(struct wg_staged_dir *sd)
{
	if (sd->path && !sd->published) {
		struct wg_error_saved first;
		wg_error_save(&first);
		wg_fs_remove_tree(sd->path);
		wg_error_restore(&first);
	}
	wg_free(sd->path);
	wg_free(sd->final_path);
	sd->path = sd->final_path = NULL;
	sd->published = false;
}
