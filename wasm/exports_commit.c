/* The WebAssembly module's C ABI, part three: commits. Idents and commit
 * objects are formatted by core/object (ident.c, commit.c), so JavaScript
 * neither parses nor writes commit text (conventions: wasm/exports.c).
 * The log and the other history queries: wasm/exports_log.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exports.h"
#include "hash/oidmap.h"
#include "object/commit.h"
#include "object/fsck.h"
#include "object/ident.h"
#include "odb/commit_queue.h"
#include "odb/odb.h"
#include "repo/revparse.h"
#include "util/error.h"

/* --- idents -------------------------------------------------------------------------------- */

static struct wg_buf identbuf;

/* "Name <email> <time> <zone>" as git writes an ident (wg_ident_format:
 * crud trimmed, '<', '>' and newlines dropped). `date` NULL: now in the
 * host's zone; else any form wg_date_parse() reads, e.g. "1700000000
 * +0100". NULL on error (WG_EINVALID for a bad date); the string lives
 * until the next call. */
API const char *wgjs_ident_format(const char *name, const char *email, const char *date)
{
	wg_error_clear();
	wg_buf_reset(&identbuf);
	if (wg_ident_format(&identbuf, name, email, date))
		return NULL;
	if (!identbuf.len || identbuf.data[0] == ' ') {
		wg_error_set(WG_EINVALID, "empty ident name (for <%s>) not allowed", email);
		return NULL;
	}
	return wg_buf_cstr(&identbuf);
}

/* --- writing a commit ---------------------------------------------------------------------- */

/* Store the commit of tree `tree_hex` with `nparents` parents (full hex
 * ids), the idents `author` and `committer` (as wgjs_ident_format gives
 * them) and `message` (`len` bytes of UTF-8; a final newline is added when
 * it has none, as git commit-tree -m does). What git fsck --strict would
 * reject is refused (WG_EFSCK). Its id (hex), or NULL. */
API const char *wgjs_commit_write(struct wg_repo *repo, const char *tree_hex,
				  const char *const *parents, int nparents, const char *author,
				  const char *committer, const char *message, size_t len)
{
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	struct wg_commit c;
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_oid oid;
	int err;

	wg_error_clear();
	wg_commit_init(&c);
	err = wgjs_parse_oid(&c.tree, repo, tree_hex);
	for (int i = 0; !err && i < nparents; i++) {
		struct wg_oid p;
		if (!(err = wgjs_parse_oid(&p, repo, parents[i])))
			err = wg_commit_add_parent(&c, &p);
	}
	if (!err && !(err = wg_commit_set_author(&c, author)) &&
	    !(err = wg_commit_set_committer(&c, committer)) &&
	    !(err = wg_commit_set_message(&c, message, len)) &&
	    len && message[len - 1] != '\n') {
		/* the message with its final newline */
		struct wg_buf m = WG_BUF_INIT;
		if (!(err = wg_buf_add(&m, message, len)) && !(err = wg_buf_addch(&m, '\n')))
			err = wg_commit_set_message(&c, m.data, m.len);
		wg_buf_release(&m);
	}
	fsck.strict = true;
	if (!err && !(err = wg_commit_serialize(&c, &raw)) &&
	    !(err = wg_fsck_object(&fsck, wg_repo_algo(repo), NULL, WG_OBJ_COMMIT, raw.data, raw.len)))
		err = wg_odb_write(wg_repo_odb(repo), WG_OBJ_COMMIT, raw.data, raw.len, &oid);
	wg_commit_release(&c);
	wg_buf_release(&raw);
	return err ? NULL : wgjs_hex(&oid);
}
