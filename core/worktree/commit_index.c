/* git commit from the index: trees, the commit object, HEAD and its
 * reflogs (see commit_index.h). */
#include "worktree/commit_index.h"

#include <stdint.h>
#include <string.h>

#include "object/commit.h"
#include "refs/refdb.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"
#include "worktree/index_tree.h"

/* git's isspace: space, tab, newline, carriage return */
static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int wg_commit_message_cleanup(struct wg_buf *msg)
{
	size_t i = 0, j = 0, empties = 0;
	char *s;
	/* room for the newline a last line may lack */
	int err = wg_buf_grow(msg, 1);
	if (err)
		return err;
	s = (char *)msg->data;

	while (i < msg->len) {
		const char *eol = memchr(s + i, '\n', msg->len - i);
		size_t len = eol ? (size_t)(eol - (s + i)) + 1 : msg->len - i, keep = len;
		while (keep && is_space((unsigned char)s[i + keep - 1]))
			keep--;
		if (keep) {
			if (empties && j)
				s[j++] = '\n';
			empties = 0;
			memmove(s + j, s + i, keep);
			j += keep;
			s[j++] = '\n';
		} else {
			empties++;
		}
		i += len;
	}
	wg_buf_setlen(msg, j);
	return 0;
}

bool wg_commit_message_is_empty(const char *msg, size_t len)
{
	static const char sob[] = "Signed-off-by: ";
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(msg + i, '\n', len - i);
		size_t eol = nl ? (size_t)(nl - msg) : len;
		if (eol - i >= sizeof(sob) - 1 && !memcmp(msg + i, sob, sizeof(sob) - 1)) {
			i = eol + 1;
			continue;
		}
		for (; i < eol; i++)
			if (!is_space((unsigned char)msg[i]))
				return false;
		i = eol + 1;
	}
	return true;
}

static int read_commit(struct wg_commit *c, struct wg_repo *repo, const struct wg_oid *oid)
{
	struct wg_buf raw = WG_BUF_INIT;
	enum wg_object_type type;
	int err = wg_odb_read(wg_repo_odb(repo), oid, &type, &raw);
	wg_commit_init(c);
	if (!err && type != WG_OBJ_COMMIT)
		err = wg_error_set(WG_ECORRUPT, "HEAD %s is not a commit", wg_oid_hex(oid));
	if (!err)
		err = wg_commit_parse(c, wg_repo_algo(repo), raw.data, raw.len);
	wg_buf_release(&raw);
	return err;
}

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
	size_t n, i;
	uint32_t cp;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp & 0xfffe) == 0xfffe)
		return 0;
	return n;
}

int wg_commit_message_utf8(struct wg_buf *msg, bool *changed)
{
	struct wg_buf out = WG_BUF_INIT;
	size_t i = 0, n;
	int err = 0;
	*changed = false;
	while (i < msg->len && !err) {
		n = utf8_sequence(msg->data + i, msg->len - i);
		if (n) {
			err = wg_buf_add(&out, msg->data + i, n);
			i += n;
			continue;
		}
		*changed = true;
		if (!(err = wg_buf_addch(&out, 0xc0 | (msg->data[i] >> 6))))
			err = wg_buf_addch(&out, 0x80 | (msg->data[i] & 0x3f));
		i++;
	}
	if (!err && *changed) {
		wg_buf_release(msg);
		*msg = out;
		return 0;
	}
	wg_buf_release(&out);
	return err;
}

/* The reflog message: "<action>: " and the subject line. */
static int reflog_message(struct wg_buf *out, const char *action, const struct wg_buf *msg)
{
	const char *nl = msg->len ? memchr(msg->data, '\n', msg->len) : NULL;
	size_t n = nl ? (size_t)(nl - (const char *)msg->data) : msg->len;
	int err = wg_buf_printf(out, "%s: ", action);
	return err ? err : wg_buf_add(out, msg->data, n);
}

int wg_commit_index(struct wg_oid *out, struct wg_repo *repo, struct wg_index *ix,
		    const struct wg_commit_index_options *opts)
{
	struct wg_refdb *refdb = wg_repo_refdb(repo);
	struct wg_commit head = { 0 }, parent = { 0 }, commit;
	struct wg_buf msg = WG_BUF_INIT, raw = WG_BUF_INIT, reflog = WG_BUF_INIT,
		      path = WG_BUF_INIT, utf8 = WG_BUF_INIT;
	struct wg_oid head_oid, tree;
	const struct wg_oid *ref_tree = NULL;
	bool born, committable, converted = false;
	int err = 0;

	wg_commit_init(&commit);
	wg_commit_init(&head);
	wg_commit_init(&parent);
	if (!opts || !opts->committer)
		return wg_error_set(WG_EINVALID, "a committer is required");
	for (size_t i = 0; i < ix->nr; i++)
		if (ix->entries[i]->stage)
			return wg_error_set(WG_COMMIT_UNMERGED, "Committing is not possible because "
					    "you have unmerged files.");
	if ((err = wg_refdb_resolve(&head_oid, NULL, refdb, "HEAD", WG_RESOLVE_ALLOW_MISSING)))
		return err;
	born = !wg_oid_is_null(&head_oid);
	if (opts->amend && !born)
		return wg_error_set(WG_ENOTFOUND, "You have nothing to amend.");
	if ((err = wg_fs_join(&path, wg_repo_gitdir(repo), "MERGE_HEAD")))
		goto out;
	if (wg_fs_exists(wg_buf_cstr(&path))) {
		err = wg_error_set(WG_EUNSUPPORTED, "committing a merge (MERGE_HEAD exists) is "
				   "not supported yet");
		goto out;
	}
	if (born && (err = read_commit(&head, repo, &head_oid)))
		goto out;
	/* what "nothing to commit" compares with: HEAD, or HEAD^1 to amend */
	if (born && !opts->amend) {
		ref_tree = &head.tree;
	} else if (opts->amend && head.nparents) {
		if ((err = read_commit(&parent, repo, &head.parents[0])))
			goto out;
		ref_tree = &parent.tree;
	}
	if ((err = wg_index_write_tree(&tree, ix, wg_repo_odb(repo))))
		goto out;
	if (ref_tree) {
		committable = !wg_oid_equal(ref_tree, &tree);
	} else {
		committable = false;
		for (size_t i = 0; i < ix->nr && !committable; i++)
			committable = !(ix->entries[i]->flags & WG_INDEX_INTENT_TO_ADD);
	}
	if (!committable && !opts->allow_empty) {
		err = wg_error_set(WG_COMMIT_NOTHING, "nothing to commit");
		goto out;
	}
	if (opts->message)
		err = wg_buf_add(&msg, opts->message, opts->message_len);
	else if (opts->amend)
		err = wg_buf_add(&msg, head.message, head.message_len);
	if (err)
		goto out;
	if ((err = wg_commit_message_cleanup(&msg)))
		goto out;
	if (wg_commit_message_is_empty((const char *)msg.data, msg.len) &&
	    !opts->allow_empty_message) {
		err = wg_error_set(WG_COMMIT_EMPTY_MESSAGE,
				   "Aborting commit due to empty commit message.");
		goto out;
	}

	/* the object holds UTF-8 (git's commit_tree_extended); the reflog
	 * keeps the bytes as given, as git's does */
	if ((err = wg_buf_add(&utf8, msg.data, msg.len)) ||
	    (err = wg_commit_message_utf8(&utf8, &converted)))
		goto out;
	if (converted && opts->warn)
		opts->warn(opts->payload, "Warning: commit message did not conform to UTF-8.\n"
			   "You may want to amend it after fixing the message, or set the config\n"
			   "variable i18n.commitEncoding to the encoding your project uses.");
	commit.tree = tree;
	if (opts->amend) {
		for (size_t i = 0; i < head.nparents && !err; i++)
			err = wg_commit_add_parent(&commit, &head.parents[i]);
		/* git keeps the extra headers (mergetag...) but not signatures */
		for (size_t i = 0; i < head.nheaders && !err; i++)
			if (strcmp(head.headers[i].name, "gpgsig") &&
			    strcmp(head.headers[i].name, "gpgsig-sha256"))
				err = wg_commit_add_header(&commit, head.headers[i].name,
							   head.headers[i].value);
	} else if (born) {
		err = wg_commit_add_parent(&commit, &head_oid);
	}
	if (!err)
		err = wg_commit_set_author(&commit, opts->author ? opts->author
					   : opts->amend && head.author ? head.author
					   : opts->committer);
	if (!err)
		err = wg_commit_set_committer(&commit, opts->committer);
	if (!err)
		err = wg_commit_set_message(&commit, utf8.data, utf8.len);
	if (!err)
		err = wg_commit_serialize(&commit, &raw);
	if (!err)
		err = wg_odb_write(wg_repo_odb(repo), WG_OBJ_COMMIT, raw.data, raw.len, out);
	if (!err)
		err = reflog_message(&reflog, !born ? "commit (initial)"
					      : opts->amend ? "commit (amend)" : "commit", &msg);
	/* HEAD (its branch through it) from the value read above, or from
	 * nothing on an unborn branch */
	if (!err)
		err = wg_refdb_update(refdb, "HEAD", out, &head_oid, 0, wg_buf_cstr(&reflog));
out:
	wg_commit_release(&commit);
	wg_commit_release(&head);
	wg_commit_release(&parent);
	wg_buf_release(&msg);
	wg_buf_release(&raw);
	wg_buf_release(&reflog);
	wg_buf_release(&path);
	wg_buf_release(&utf8);
	return err;
}
