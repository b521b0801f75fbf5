/* webgit ls-tree: list the contents of a tree object (git ls-tree). */
#include <string.h>

#include "cli.h"
#include "object/fsck.h"
#include "object/tree.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/limits.h"
#include "util/quote.h"

struct ls_opts {
	struct wg_repo *repo;
	bool recurse, show_trees, only_trees, long_format, name_only, object_only;
	char term;
	char **paths;
	int npaths;
};

/* Decide whether an entry at `path` is shown and whether we descend into
 * it. As in git: an argument "dir" names the entry itself, "dir/" or
 * "dir/x" make us walk into dir; with -r everything below a named tree. */
static void match_paths(const struct ls_opts *o, const char *path, size_t len, bool is_tree,
			bool is_gitlink, bool *show, bool *descend)
{
	int i;
	*show = o->npaths == 0;
	*descend = is_tree && o->recurse && o->npaths == 0;
	for (i = 0; i < o->npaths; i++) {
		const char *p = o->paths[i];
		size_t plen = strlen(p);
		if (plen == len && !memcmp(p, path, len)) {
			*show = true;
			*descend |= is_tree && o->recurse;
		} else if (plen > len && !memcmp(p, path, len) && p[len] == '/') {
			*descend |= is_tree;
			*show |= o->show_trees;
		} else if (len > plen && !memcmp(p, path, plen) &&
			   (path[plen] == '/' || (plen && p[plen - 1] == '/'))) {
			*show = true;
			*descend |= is_tree && o->recurse;
		}
	}
	/* A tree we walk into is listed only with -t or -d. */
	if (is_tree && *descend && !o->show_trees && !o->only_trees)
		*show = false;
	if (o->only_trees && !is_tree && !is_gitlink)
		*show = false;
}

/* The path as git prints it: quoted unless -z. */
static int add_name(struct wg_buf *line, const struct ls_opts *o, const struct wg_buf *path)
{
	if (o->term == '\n')
		return wg_quote_c_style(line, (const char *)path->data, path->len);
	return wg_buf_add(line, path->data, path->len);
}

/* Recursive, but depth-limited: at most core.maxTreeDepth (util/limits.h)
 * levels, as git's ls-tree. */
static int list_tree(const struct ls_opts *o, const struct wg_oid *tree, const char *prefix,
		     uint64_t depth)
{
	struct wg_buf data = WG_BUF_INIT, path = WG_BUF_INIT, line = WG_BUF_INIT;
	enum wg_object_type type;
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	int err, rc = 0;

	if ((err = wg_limits_check_tree_depth(wg_odb_limits(wg_repo_odb(o->repo)), depth,
					      wg_oid_hex(tree))) ||
	    (err = wg_odb_read(wg_repo_odb(o->repo), tree, &type, &data)))
		return cli_fatal_core();
	if (type != WG_OBJ_TREE) {
		wg_buf_release(&data);
		return cli_fatal("not a tree object: %s", wg_oid_hex(tree));
	}
	{
		/* Listing is for people and scripts that act on names: refuse a
		 * tree we would refuse from a remote, naming the problem. */
		struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
		if (wg_fsck_object(&fsck, wg_repo_algo(o->repo), tree, WG_OBJ_TREE, data.data,
				   data.len)) {
			wg_buf_release(&data);
			return cli_fatal_core();
		}
	}
	wg_tree_iter_init(&it, wg_repo_algo(o->repo), data.data, data.len);
	while (!rc && !(err = wg_tree_iter_next(&it, &e))) {
		bool is_tree = wg_tree_mode_type(e.mode) == WG_OBJ_TREE, show, descend;
		struct wg_tree_entry shown = e;
		wg_buf_reset(&path);
		if (wg_buf_printf(&path, "%s%.*s", prefix, (int)e.namelen, e.name)) {
			rc = cli_fatal_core();
			break;
		}
		match_paths(o, (const char *)path.data, path.len, is_tree,
			    wg_tree_mode_type(e.mode) == WG_OBJ_COMMIT, &show, &descend);
		if (show) {
			shown.name = (const char *)path.data;
			shown.namelen = path.len;
			wg_buf_reset(&line);
			if (o->object_only) {
				err = wg_buf_adds(&line, wg_oid_hex(&e.oid));
			} else if (o->name_only) {
				err = add_name(&line, o, &path);
			} else if (o->long_format) {
				char size[32] = "-";
				if (!is_tree && wg_tree_mode_type(e.mode) == WG_OBJ_BLOB) {
					size_t sz;
					enum wg_object_type t;
					if ((err = wg_odb_read_header(wg_repo_odb(o->repo), &e.oid, &t, &sz))) {
						rc = cli_fatal_core();
						break;
					}
					snprintf(size, sizeof(size), "%zu", sz);
				}
				err = wg_buf_printf(&line, "%06o %s %s %7s\t", e.mode,
						    wg_object_type_name(wg_tree_mode_type(e.mode)),
						    wg_oid_hex(&e.oid), size);
				if (!err)
					err = add_name(&line, o, &path);
			} else {
				err = wg_tree_entry_format(&line, &shown,
							   o->term == '\n' ? WG_TREE_FORMAT_QUOTE : 0);
			}
			if (err || wg_buf_addch(&line, o->term)) {
				rc = cli_fatal_core();
				break;
			}
			rc = cli_write_stdout(line.data, line.len);
		}
		if (!rc && descend) {
			char *sub = wg_strndup((const char *)path.data, path.len);
			struct wg_buf subprefix = WG_BUF_INIT;
			if (!sub || wg_buf_printf(&subprefix, "%s/", sub))
				rc = cli_fatal("out of memory");
			else
				rc = list_tree(o, &e.oid, (const char *)subprefix.data, depth + 1);
			wg_free(sub);
			wg_buf_release(&subprefix);
		}
	}
	if (!rc && err != WG_ITEROVER)
		rc = cli_fatal_core();
	wg_buf_release(&data);
	wg_buf_release(&path);
	wg_buf_release(&line);
	return rc;
}

int cmd_ls_tree(int argc, char **argv)
{
	static const char usage[] = "webgit ls-tree [-d] [-r] [-t] [-l] [-z] [--name-only] "
				    "[--object-only] <tree-ish> [<path>...]";
	struct ls_opts o;
	struct wg_oid oid, tree;
	const char *treeish = NULL;
	int i, rc;

	memset(&o, 0, sizeof(o));
	o.term = '\n';
	o.paths = argv;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (treeish) {
			o.paths[o.npaths++] = argv[i];
		} else if (!strcmp(a, "-r")) {
			o.recurse = true;
		} else if (!strcmp(a, "-t")) {
			o.show_trees = true;
		} else if (!strcmp(a, "-d")) {
			o.only_trees = true;
		} else if (!strcmp(a, "-l") || !strcmp(a, "--long")) {
			o.long_format = true;
		} else if (!strcmp(a, "-z")) {
			o.term = '\0';
		} else if (!strcmp(a, "--name-only") || !strcmp(a, "--name-status")) {
			o.name_only = true;
		} else if (!strcmp(a, "--object-only")) {
			o.object_only = true;
		} else if (!strcmp(a, "--full-name") || !strcmp(a, "--full-tree")) {
			;  /* paths are always relative to the tree root here */
		} else if (a[0] == '-' && a[1]) {
			return cli_usage(usage);
		} else {
			treeish = a;
		}
	}
	if (!treeish)
		return cli_usage(usage);
	if ((rc = cli_open_repo(&o.repo)))
		return rc;
	if (wg_revparse(&oid, o.repo, treeish)) {
		rc = cli_fatal("Not a valid object name %s", treeish);
	} else if (wg_object_peel(&tree, o.repo, &oid, WG_OBJ_TREE)) {
		rc = cli_fatal_core();
	} else {
		rc = list_tree(&o, &tree, "", 0);
	}
	wg_repo_free(o.repo);
	return rc;
}
