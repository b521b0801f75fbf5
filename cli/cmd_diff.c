/* webgit diff: the working tree against the index (no argument), the index
 * against a commit (--cached [<commit>], HEAD by default), the working
 * tree against a commit (<commit>) or two commits (<commit> <commit>), as
 * patches by default or in the other formats of cli/diff_output.h,
 * limited to the paths after "--". The lists of changes with the index or
 * the working tree as a side come from worktree/worktree_diff.h (working
 * tree files as git add would store them). Renames as git diff finds them
 * (diff.renames, on by default, "copies" for -C; git diff without a
 * commit has no additions to pair). -C -C's unchanged sources are looked
 * for between trees only (the index and the working tree give -C's
 * sources). Unmerged paths are left out (git prints "* Unmerged path"). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff_output.h"
#include "index/index.h"
#include "object/object.h"
#include "refs/refdb.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "odb/memory_backend.h"
#include "worktree/worktree_diff.h"

static const char usage[] =
	"webgit diff [<options>] [--cached [<commit>] | <commit> [<commit>]] [--] [<path>...]";

static bool path_wanted(void *payload, const char *path)
{
	return cli_diff_path_matches(payload, path);
}

/* prefix + path with "." and ".." resolved; NULL above the top */
static char *top_relative(const char *prefix, const char *path)
{
	struct wg_buf in = WG_BUF_INIT, out = WG_BUF_INIT;
	const char *p;
	wg_buf_adds(&in, prefix);
	wg_buf_adds(&in, path);
	p = wg_buf_cstr(&in);
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 2 && !strncmp(p, "..", 2)) {
			if (!out.len) {
				wg_buf_release(&in);
				wg_buf_release(&out);
				return NULL;
			}
			while (out.len && out.data[out.len - 1] != '/')
				out.len--;
			if (out.len)
				out.len--;
			wg_buf_setlen(&out, out.len);
		} else if (n && !(n == 1 && *p == '.')) {
			if (out.len)
				wg_buf_addch(&out, '/');
			wg_buf_add(&out, p, n);
		}
		p += n + (e ? 1 : 0);
	}
	wg_buf_release(&in);
	if (!out.len)
		wg_buf_adds(&out, "");
	return (char *)wg_buf_detach(&out, NULL);
}

int cmd_diff(int argc, char **argv)
{
	struct cli_diff_options o;
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_diff_changes changes = { 0 };
	struct wg_buf out = WG_BUF_INIT;
	struct wg_worktree_diff_options wo = { path_wanted, NULL, NULL };
	struct wg_buf prefix = WG_BUF_INIT;
	char **rel = NULL;
	const char *revs[2];
	struct wg_oid trees[2];
	int nrevs = 0, rc = 0, r;
	bool cached = false;

	cli_diff_options_init(&o);
	o.raw_abbrev = -1;   /* porcelain: abbreviated ids in --raw */
	o.ui_config = true;   /* porcelain: diff.algorithm applies */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			o.paths = argv + i + 1;
			o.npaths = argc - i - 1;
			break;
		}
		if (!strcmp(argv[i], "--cached") || !strcmp(argv[i], "--staged")) {
			cached = true;
			continue;
		}
		if ((r = cli_diff_parse_option(&o, argc, argv, &i)) == 1)
			continue;
		if (r)
			return r;
		if (argv[i][0] == '-' || nrevs == 2)
			return cli_usage(usage);
		revs[nrevs++] = argv[i];
	}
	if (cached && nrevs > 1)
		return cli_usage(usage);
	if ((r = cli_diff_options_done(&o)))
		return r;
	if ((rc = cli_open_repo(&repo)))
		return rc;
	/* paths are relative to the current directory, as git's pathspecs */
	if (o.npaths && wg_repo_workdir(repo)) {
		if (cli_cwd_prefix(&prefix, wg_repo_workdir(repo))) {
			rc = cli_fatal("out of memory");
			goto out;
		}
		if (prefix.len) {
			rel = calloc((size_t)o.npaths, sizeof(*rel));
			if (!rel) {
				rc = cli_fatal("out of memory");
				goto out;
			}
			for (int k = 0; k < o.npaths; k++)
				if (!(rel[k] = top_relative(wg_buf_cstr(&prefix), o.paths[k]))) {
					rc = cli_fatal("%s: '%s' is outside repository", o.paths[k],
						       o.paths[k]);
					goto out;
				}
			o.paths = rel;
		}
	}
	bool unborn = false;
	if (cached && !nrevs) {
		/* no commit yet: the index against the empty tree, as git */
		struct wg_oid head;
		revs[nrevs++] = "HEAD";
		unborn = wg_refdb_resolve(&head, NULL, wg_repo_refdb(repo), "HEAD", 0) != 0;
		wg_error_clear();
	}
	for (int k = 0; k < nrevs && !unborn; k++) {
		struct wg_oid oid;
		if (wg_revparse(&oid, repo, revs[k]) ||
		    wg_object_peel(&trees[k], repo, &oid, WG_OBJ_TREE)) {
			rc = cli_fatal("ambiguous argument '%s': unknown revision or path not in the "
				       "working tree.", revs[k]);
			goto out;
		}
	}
	if (nrevs == 2) {
		r = cli_diff_tree_changes(&changes, repo, &trees[0], &trees[1], &o, true);
	} else {
		enum wg_worktree_diff_kind kind = cached ? WG_WORKTREE_DIFF_CACHED
					       : nrevs ? WG_WORKTREE_DIFF_TREE : WG_WORKTREE_DIFF_FILES;
		struct wg_memory_backend *pretend = NULL;
		if (cli_read_index(&ix, repo)) {
			rc = cli_fatal("index file corrupt");
			goto out;
		}
		wo.payload = &o;
		if (!cached && wg_repo_require_workdir(repo)) {
			r = -1;
		} else if (!cached && wg_memory_backend_attach(&pretend, wg_repo_odb(repo))) {
			/* the working tree's versions, read by id by the patch and stats */
			r = -1;
		} else {
			wo.pretend = pretend;
			r = wg_worktree_diff_changes(&changes, repo, ix, kind, nrevs && !unborn ? &trees[0] : NULL,
						     &wo);
			if (!r && kind != WG_WORKTREE_DIFF_FILES)
				r = cli_diff_find_renames(&changes, repo, &o, true);
		}
	}
	if (r || cli_diff_print(&out, repo, &changes, &o, CLI_DIFF_PATCH)) {
		rc = cli_fatal_core();
		goto out;
	}
	rc = cli_write_stdout(out.data, out.len);
out:
	fflush(stdout);
	if (!rc)
		cli_diff_warn_rename_limit();
	if (rel)
		for (int k = 0; k < o.npaths; k++)
			wg_free(rel[k]);
	free(rel);
	wg_buf_release(&prefix);
	wg_buf_release(&out);
	wg_diff_changes_release(&changes);
	wg_index_free(ix);
	wg_repo_free(repo);
	return rc;
}
