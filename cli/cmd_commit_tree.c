/* webgit commit-tree: create a commit object (git commit-tree). */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "object/commit.h"
#include "object/ident.h"
#include "repo/revparse.h"
#include "util/error.h"
#include "util/fs.h"

/* Build "Name <email> <time> <tz>" for "AUTHOR" or "COMMITTER". */
static int make_ident(struct wg_buf *out, struct wg_repo *repo, const char *who)
{
	char var[32];
	const char *name, *email, *date;
	snprintf(var, sizeof(var), "GIT_%s_NAME", who);
	name = getenv(var);
	snprintf(var, sizeof(var), "GIT_%s_EMAIL", who);
	email = getenv(var);
	snprintf(var, sizeof(var), "GIT_%s_DATE", who);
	date = getenv(var);
	if (!name && wg_repo_config_get(repo, "user.name", &name))
		name = NULL;
	if (!email && wg_repo_config_get(repo, "user.email", &email))
		email = getenv("EMAIL");
	wg_error_clear();
	if (!name || !*name || !email)
		return cli_fatal("%s identity unknown: set user.name and user.email in the "
				 "config, or GIT_%s_NAME and GIT_%s_EMAIL",
				 who[0] == 'A' ? "Author" : "Committer", who, who);
	if (wg_ident_format(out, name, email, date))
		return cli_fatal_core();
	return 0;
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

/* git commit-tree stores messages as UTF-8 unless an encoding is set: any
 * byte that is not part of valid UTF-8 is taken as Latin-1 and converted,
 * with git's warning. */
static int force_utf8(struct wg_buf *msg)
{
	struct wg_buf out = WG_BUF_INIT;
	size_t i = 0, n;
	bool changed = false;
	int err = 0;
	while (i < msg->len && !err) {
		n = utf8_sequence(msg->data + i, msg->len - i);
		if (n) {
			err = wg_buf_add(&out, msg->data + i, n);
			i += n;
			continue;
		}
		changed = true;
		if (!(err = wg_buf_addch(&out, 0xc0 | (msg->data[i] >> 6))))
			err = wg_buf_addch(&out, 0x80 | (msg->data[i] & 0x3f));
		i++;
	}
	if (!err && changed) {
		fprintf(stderr, "warning: commit message did not conform to UTF-8.\n"
			"You may want to amend it after fixing the message, or set the config\n"
			"variable i18n.commitEncoding to the encoding your project uses.\n");
		wg_buf_release(msg);
		*msg = out;
		return 0;
	}
	wg_buf_release(&out);
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
	if ((rc = make_ident(&ident, repo, "AUTHOR")))
		goto done;
	if (wg_commit_set_author(&commit, (const char *)ident.data)) {
		rc = cli_fatal_core();
		goto done;
	}
	wg_buf_reset(&ident);
	if ((rc = make_ident(&ident, repo, "COMMITTER")))
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
