/* webgit cat-file: show an object's type, size or content (git cat-file). */
#include <string.h>

#include "cli.h"
#include "object/fsck.h"
#include "object/tree.h"
#include "repo/revparse.h"
#include "util/error.h"

static int pretty_tree(const struct wg_hash_algo *algo, const struct wg_buf *data)
{
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	struct wg_buf line = WG_BUF_INIT;
	int err, rc = 0;
	wg_tree_iter_init(&it, algo, data->data, data->len);
	while (!rc && !(err = wg_tree_iter_next(&it, &e))) {
		wg_buf_reset(&line);
		if (wg_tree_entry_format(&line, &e, WG_TREE_FORMAT_QUOTE) ||
		    wg_buf_addch(&line, '\n'))
			rc = cli_fatal_core();
		else
			rc = cli_write_stdout(line.data, line.len);
	}
	wg_buf_release(&line);
	if (!rc && err != WG_ITEROVER)
		rc = cli_fatal_core();
	return rc;
}

int cmd_cat_file(int argc, char **argv)
{
	static const char usage[] = "webgit cat-file (-t | -s | -e | -p | <type>) <object>";
	struct wg_repo *repo = NULL;
	struct wg_buf data = WG_BUF_INIT;
	enum wg_object_type type, want = WG_OBJ_NONE;
	struct wg_oid oid;
	const char *mode, *name;
	size_t size;
	int rc, err;

	if (argc != 3)
		return cli_usage(usage);
	mode = argv[1];
	name = argv[2];
	if (mode[0] != '-') {
		want = wg_object_type_from_name(mode, strlen(mode));
		if (want == WG_OBJ_BAD)
			return cli_fatal("invalid object type \"%s\"", mode);
	} else if (strcmp(mode, "-t") && strcmp(mode, "-s") && strcmp(mode, "-e") &&
		   strcmp(mode, "-p")) {
		return cli_usage(usage);
	}
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if ((err = wg_revparse(&oid, repo, name))) {
		if (err == WG_ENOTFOUND || err == WG_EINVALID)
			rc = cli_fatal("Not a valid object name %s", name);
		else
			rc = cli_fatal_core();
		goto done;
	}
	if (!strcmp(mode, "-e")) {
		/* Exists and is readable: read it whole so corruption shows. */
		err = wg_odb_read(wg_repo_odb(repo), &oid, &type, &data);
		if (err && err != WG_ENOTFOUND)
			rc = cli_fatal_core();
		else
			rc = err ? 1 : 0;
		goto done;
	}
	if (!strcmp(mode, "-t") || !strcmp(mode, "-s")) {
		if ((err = wg_odb_read_header(wg_repo_odb(repo), &oid, &type, &size))) {
			rc = err == WG_ENOTFOUND ? cli_fatal("git cat-file: could not get object "
							     "info") : cli_fatal_core();
			goto done;
		}
		if (mode[1] == 't')
			printf("%s\n", wg_object_type_name(type));
		else
			printf("%zu\n", size);
		goto done;
	}
	if (want != WG_OBJ_NONE) {
		/* "cat-file tree <commit>" shows the commit's tree, as git does. */
		if ((err = wg_object_peel(&oid, repo, &oid, want))) {
			rc = cli_fatal_core();
			goto done;
		}
	}
	if ((err = wg_odb_read(wg_repo_odb(repo), &oid, &type, &data))) {
		rc = cli_fatal_core();
		goto done;
	}
	if (want != WG_OBJ_NONE && type != want) {
		rc = cli_fatal("git cat-file %s: bad file", name);
		goto done;
	}
	if (want == WG_OBJ_NONE && type != WG_OBJ_BLOB) {
		/* Pretty-printing is for people: refuse what we would refuse
		 * from a remote (a ".git" entry, a bad mode, a missing header)
		 * with the reason, rather than show it as if it were fine. */
		struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
		if (wg_fsck_object(&fsck, wg_repo_algo(repo), &oid, type, data.data, data.len)) {
			rc = cli_fatal_core();
			goto done;
		}
	}
	if (want == WG_OBJ_NONE && type == WG_OBJ_TREE)
		rc = pretty_tree(wg_repo_algo(repo), &data);
	else
		rc = cli_write_stdout(data.data, data.len);
done:
	wg_buf_release(&data);
	wg_repo_free(repo);
	return rc;
}
