/* webgit commit-tree: create a commit object (git commit-tree). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "object/commit.h"
#include "object/ident.h"
#include "repo/revparse.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/commit_index.h"

/* git commit-tree stores messages as UTF-8 unless an encoding is set
 * (worktree/commit_index.h), with git's warning when it converted. */
static int force_utf8(struct wg_buf *msg)
{
	bool changed;
	int err = wg_commit_message_utf8(msg, &changed);
	if (!err && changed)
		fprintf(stderr, "Warning: commit message did not conform to UTF-8.\n"
			"You may want to amend it after fixing the message, or set the config\n"
			"variable i18n.commitEncoding to the encoding your project uses.\n");
	return err;
}

static int resolve_commitish(struct wg_oid *out, struct wg_repo *repo, const char *name,
			     enum wg_object_type type)
{
	struct wg_oid oid;
	if (wg_revparse(&oid, repo, name))
		return cli_fatal("not a valid object name %s", name);
	if (wg_object_peel(out, repo, &oid, type))
		return cli_fatal("%s is not a valid '%s' object", name, wg_object_type_name(type));
	return 0;
}

int cmd_commit_tree(int argc, char **argv)
{
	static const char usage[] = "webgit commit-tree <tree> [(-p <parent>)...] "
				    "[(-m <message>)...] [(-F <file>)...]";
	struct wg_repo *repo = NULL;
	struct wg_commit commit;
	struct wg_buf msg = WG_BUF_INIT, ident = WG_BUF_INIT, raw = WG_BUF_INIT;
	struct wg_oid oid;
	const char *tree = NULL, *v;
	bool have_msg = false;
	int i, rc;

	wg_commit_init(&commit);
	if ((rc = cli_open_repo(&repo)))
		return rc;
	for (i = 1; i < argc && !rc; i++) {
		if ((v = cli_option_value(argc, argv, &i, "-p"))) {
			struct wg_oid parent;
			if (!(rc = resolve_commitish(&parent, repo, v, WG_OBJ_COMMIT)) &&
			    wg_commit_add_parent(&commit, &parent))
				rc = cli_fatal_core();
		} else if ((v = cli_option_value(argc, argv, &i, "-m"))) {
			/* Each -m is a paragraph, as in git. */
			if ((msg.len && wg_buf_addch(&msg, '\n')) || wg_buf_adds(&msg, v) ||
			    (msg.len && msg.data[msg.len - 1] != '\n' && wg_buf_addch(&msg, '\n')))
				rc = cli_fatal_core();
			have_msg = true;
		} else if ((v = cli_option_value(argc, argv, &i, "-F"))) {
			struct wg_buf file = WG_BUF_INIT;
			int err = !strcmp(v, "-") ? cli_read_stream(stdin, &file)
						  : wg_fs_read_file(&file, v);
			if (err)
				rc = cli_fatal("could not read log file '%s': %s", v, wg_error_message());
			else if ((msg.len && wg_buf_addch(&msg, '\n')) ||
				 wg_buf_add(&msg, file.data, file.len))
				rc = cli_fatal_core();
			wg_buf_release(&file);
			have_msg = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			rc = cli_usage(usage);
		} else if (!tree) {
			tree = argv[i];
		} else {
			rc = cli_usage(usage);
		}
	}
	if (rc)
		goto done;
	if (!tree) {
		rc = cli_usage(usage);
		goto done;
	}
	if ((rc = resolve_commitish(&commit.tree, repo, tree, WG_OBJ_TREE)))
		goto done;
	if (!have_msg && cli_read_stream(stdin, &msg)) {
		rc = cli_fatal_core();
		goto done;
	}
	{
		const char *enc = NULL;
		if ((wg_repo_config_get(repo, "i18n.commitencoding", &enc) || !enc ||
		     !strcasecmp(enc, "utf-8") || !strcasecmp(enc, "utf8")) && force_utf8(&msg)) {
			rc = cli_fatal_core();
			goto done;
		}
		if (enc && strcasecmp(enc, "utf-8") && strcasecmp(enc, "utf8") &&
		    wg_commit_set_encoding(&commit, enc)) {
			rc = cli_fatal_core();
			goto done;
		}
		wg_error_clear();
	}
	if ((rc = cli_ident(&ident, repo, "AUTHOR")))
		goto done;
	if (wg_commit_set_author(&commit, (const char *)ident.data)) {
		rc = cli_fatal_core();
		goto done;
	}
	wg_buf_reset(&ident);
	if ((rc = cli_ident(&ident, repo, "COMMITTER")))
		goto done;
	if (wg_commit_set_committer(&commit, (const char *)ident.data) ||
	    wg_commit_set_message(&commit, msg.data, msg.len) ||
	    wg_commit_serialize(&commit, &raw) ||
	    wg_odb_write(wg_repo_odb(repo), WG_OBJ_COMMIT, raw.data, raw.len, &oid)) {
		rc = cli_fatal_core();
		goto done;
	}
	printf("%s\n", wg_oid_hex(&oid));
done:
	wg_commit_release(&commit);
	wg_buf_release(&msg);
	wg_buf_release(&ident);
	wg_buf_release(&raw);
	wg_repo_free(repo);
	return rc;
}
