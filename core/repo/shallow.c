/* The shallow file (see shallow.h). */
#include "repo/shallow.h"

#include <string.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"

int wg_repo_shallow_read(struct wg_repo *repo, struct wg_oidmap *out)
{
	const struct wg_hash_algo *algo = wg_repo_algo(repo);
	struct wg_buf path = WG_BUF_INIT, text = WG_BUF_INIT;
	size_t at = 0;
	int err;

	if ((err = wg_fs_join(&path, wg_repo_gitdir(repo), "shallow")))
		goto out;
	err = wg_fs_read_file(&text, wg_buf_cstr(&path));
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		err = 0;
		goto out;
	}
	while (!err && at < text.len) {
		const char *line = (const char *)text.data + at;
		const char *eol = memchr(line, '\n', text.len - at);
		size_t len = eol ? (size_t)(eol - line) : text.len - at;
		struct wg_oid oid;
		/* as remote/remote_fetch.c reads it: an id a line, nothing else */
		if (len && (len != algo->hexsz || wg_oid_from_hex(&oid, algo, line)))
			err = wg_error_set(WG_ECORRUPT, "%s: bad line '%.*s'", wg_buf_cstr(&path),
					   (int)(len > 80 ? 80 : len), line);
		else if (len)
			err = wg_oidmap_set(out, &oid, 1, NULL);
		at += len + 1;
	}
out:
	wg_buf_release(&path);
	wg_buf_release(&text);
	return err;
}
