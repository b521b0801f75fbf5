/* webgit mktree: build a tree object from ls-tree formatted text on
 * standard input (git mktree). The tree is validated like anything else we
 * accept before it is written. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "object/fsck.h"
#include "object/tree.h"
#include "util/error.h"
#include "util/quote.h"

static int parse_entry(struct wg_repo *repo, struct wg_tree_builder *tb, char *line,
		       size_t len, bool allow_missing)
{
	const struct wg_hash_algo *algo = wg_repo_algo(repo);
	char *sp1, *sp2, *tab, *end;
	unsigned long mode;
	enum wg_object_type type, mode_type;
	struct wg_oid oid;
	int err;

	line[len] = '\0';
	/* "<mode> SP <type> SP <oid> TAB <name>" */
	mode = strtoul(line, &end, 8);
	sp1 = end;
	if (sp1 == line || *sp1 != ' ')
		return cli_fatal("input format error: %s", line);
	sp2 = strchr(sp1 + 1, ' ');
	tab = sp2 ? strchr(sp2 + 1, '\t') : NULL;
	if (!sp2 || !tab || (size_t)(tab - sp2 - 1) != algo->hexsz)
		return cli_fatal("input format error: %s", line);
	type = wg_object_type_from_name(sp1 + 1, (size_t)(sp2 - sp1 - 1));
	if (type == WG_OBJ_BAD)
		return cli_fatal("input format error: %s", line);
	if (wg_oid_from_hex(&oid, algo, sp2 + 1))
		return cli_fatal("input format error: %s", line);
	if (strchr(tab + 1, '/'))
		return cli_fatal("path %s contains slash", tab + 1);
	mode_type = wg_tree_mode_type((unsigned)mode);
	if (mode_type != type)
		return cli_fatal("entry '%s' object type (%s) doesn't match mode type (%s)",
				 tab + 1, wg_object_type_name(type), wg_object_type_name(mode_type));
	if (!allow_missing && type != WG_OBJ_COMMIT) {
		enum wg_object_type actual;
		size_t size;
		err = wg_odb_read_header(wg_repo_odb(repo), &oid, &actual, &size);
		if (err == WG_ENOTFOUND)
			return cli_fatal("entry '%s' object %s is unavailable", tab + 1,
					 wg_oid_hex(&oid));
		if (err)
			return cli_fatal_core();
		if (actual != type)
			return cli_fatal("entry '%s' object %s is a %s but specified type was (%s)",
					 tab + 1, wg_oid_hex(&oid), wg_object_type_name(actual),
					 wg_object_type_name(type));
	}
	if (wg_tree_builder_add(tb, (unsigned)mode, tab + 1, strlen(tab + 1), &oid))
		return cli_fatal("invalid tree entry '%s': %s", tab + 1, wg_error_message());
	return 0;
}

static int parse_line(struct wg_repo *repo, struct wg_tree_builder *tb, char *line,
		      size_t len, bool allow_missing, bool nul_terminated)
{
	struct wg_buf unquoted = WG_BUF_INIT;
	int rc;
	char *tab = memchr(line, '\t', len);
	/* Without -z, names come C-quoted as ls-tree prints them. */
	if (!nul_terminated && tab && tab[1] == '"') {
		if (wg_unquote_c_style(&unquoted, tab + 1, len - (size_t)(tab + 1 - line)))
			return cli_fatal("invalid quoting in: %.*s", (int)len, line);
		if (memchr(unquoted.data, '\0', unquoted.len)) {
			wg_buf_release(&unquoted);
			return cli_fatal("path contains a NUL byte: %.*s", (int)len, line);
		}
		memcpy(tab + 1, unquoted.data, unquoted.len);  /* never longer */
		len = (size_t)(tab + 1 - line) + unquoted.len;
	}
	wg_buf_release(&unquoted);
	rc = parse_entry(repo, tb, line, len, allow_missing);
	return rc;
}

int cmd_mktree(int argc, char **argv)
{
	static const char usage[] = "webgit mktree [-z] [--missing]";
	struct wg_repo *repo = NULL;
	struct wg_tree_builder *tb = NULL;
	struct wg_buf input = WG_BUF_INIT, tree = WG_BUF_INIT;
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	struct wg_oid oid;
	bool allow_missing = false;
	char term = '\n';
	size_t pos = 0;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-z"))
			term = '\0';
		else if (!strcmp(argv[i], "--missing"))
			allow_missing = true;
		else
			return cli_usage(usage);
	}
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (wg_tree_builder_new(&tb, wg_repo_algo(repo)) || cli_read_stream(stdin, &input)) {
		rc = cli_fatal_core();
		goto done;
	}
	while (pos < input.len && !rc) {
		char *line = (char *)input.data + pos;
		char *eol = memchr(line, term, input.len - pos);
		size_t len = eol ? (size_t)(eol - line) : input.len - pos;
		pos += len + 1;
		if (len == 0)
			continue;  /* git mktree ignores empty lines */
		rc = parse_line(repo, tb, line, len, allow_missing, term == '\0');
	}
	if (rc)
		goto done;
	if (wg_tree_builder_write(tb, &tree)) {
		rc = cli_fatal_core();
		goto done;
	}
	/* Refuse what we would refuse from a remote: .git, .., bad modes. */
	if (wg_fsck_object(&fsck, wg_repo_algo(repo), NULL, WG_OBJ_TREE, tree.data, tree.len)) {
		rc = cli_fatal("refusing to write tree: %s", wg_error_message());
		goto done;
	}
	if (wg_odb_write(wg_repo_odb(repo), WG_OBJ_TREE, tree.data, tree.len, &oid)) {
		rc = cli_fatal_core();
		goto done;
	}
	printf("%s\n", wg_oid_hex(&oid));
done:
	wg_tree_builder_free(tb);
	wg_buf_release(&input);
	wg_buf_release(&tree);
	wg_repo_free(repo);
	return rc;
}
