/* webgit diff: the working tree against the index (no argument), the index
 * against a commit (--cached [<commit>], HEAD by default), or two commits
 * (<commit> <commit>), as patches by default or in the other formats of
 * cli/diff_output.h, limited to the paths after "--". Renames as git diff
 * finds them (diff.renames, on by default, "copies" for -C; the working
 * tree side is never paired, as in git). -C -C's unchanged sources are
 * looked for between trees only (the index and the working tree give -C's
 * sources). Unmerged paths are left out (git prints "* Unmerged
 * path"); working tree files are compared as they are, without the clean
 * conversions of attributes or core.autocrlf. */
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
#include "worktree/index_tree.h"
#include "worktree/status.h"
#include "worktree/workfile.h"

static const char usage[] =
	"webgit diff [<options>] [--cached [<commit>] | <commit> <commit>] [--] [<path>...]";

static bool type_differs(unsigned a, unsigned b)
{
	return ((a ^ b) & 0170000) != 0;
}

static bool counts(const struct wg_index_entry *e)
{
	return e->stage == 0 && !(e->flags & WG_INDEX_INTENT_TO_ADD);
}

/* the index against a tree, entry by entry in path order */
static int cached_changes(struct wg_diff_changes *out, struct wg_repo *repo, struct wg_index *ix,
			  const struct wg_oid *tree, const struct cli_diff_options *o)
{
	struct wg_index *tx = NULL;
	struct wg_oid null;
	size_t i = 0, j = 0;
	int err;
	wg_oid_null(&null, wg_repo_algo(repo));
	if ((err = wg_index_new(&tx, wg_repo_algo(repo))))
		return err;
	if (tree && (err = wg_index_read_tree(tx, wg_repo_odb(repo), tree)))
		goto out;
	while (!err && (i < tx->nr || j < ix->nr)) {
		const struct wg_index_entry *a = i < tx->nr ? tx->entries[i] : NULL;
		const struct wg_index_entry *b = j < ix->nr ? ix->entries[j] : NULL;
		int cmp;
		if (b && !counts(b)) {
			/* an unmerged path hides the tree's entry too */
			if (b->stage && a && !strcmp(a->path, b->path))
				i++;
			j++;
			continue;
		}
		cmp = !a ? 1 : !b ? -1 : strcmp(a->path, b->path);
		if (cmp < 0) {
			if (cli_diff_path_matches(o, a->path))
				err = wg_diff_changes_add(out, 'D', a->path, a->mode, &a->oid, 0, &null);
			i++;
		} else if (cmp > 0) {
			if (cli_diff_path_matches(o, b->path))
				err = wg_diff_changes_add(out, 'A', b->path, 0, &null, b->mode, &b->oid);
			j++;
		} else {
			if ((a->mode != b->mode || !wg_oid_equal(&a->oid, &b->oid)) &&
			    cli_diff_path_matches(o, a->path))
				err = wg_diff_changes_add(out, type_differs(a->mode, b->mode) ? 'T' : 'M',
							  a->path, a->mode, &a->oid, b->mode, &b->oid);
			i++;
			j++;
		}
	}
	if (!err)
		err = cli_diff_find_renames(out, repo, o, true);
out:
	wg_index_free(tx);
	return err;
}

struct worktree_loader {
	struct wg_repo *repo;
};

static int load_worktree(void *payload, const struct wg_diff_change *c, struct wg_buf *out)
{
	struct worktree_loader *w = payload;
	return wg_workfile_read(out, NULL, w->repo, c->path);
}

/* the working tree against the index, from status's findings */
static int worktree_changes(struct wg_diff_changes *out, struct wg_repo *repo,
			    struct wg_index *ix, const struct cli_diff_options *o)
{
	struct wg_status_options so = WG_STATUS_OPTIONS_INIT;
	struct wg_status *st = NULL;
	struct wg_buf data = WG_BUF_INIT;
	struct wg_oid null;
	int err;
	wg_oid_null(&null, wg_repo_algo(repo));
	so.untracked = WG_UNTRACKED_NO;
	so.renames = 0;
	if ((err = wg_status_collect(&st, repo, ix, NULL, &so)))
		return err;
	for (size_t i = 0; i < st->n && !err; i++) {
		const struct wg_status_entry *e = &st->v[i];
		struct wg_oid oid;
		unsigned mode = 0;
		if (e->unmerged || e->x == '?' || e->x == '!' || e->y == '.' ||
		    !cli_diff_path_matches(o, e->path))
			continue;
		if (e->y == 'D' || (e->x == 'A' && e->mode_index == 0)) {
			if (e->mode_index)
				err = wg_diff_changes_add(out, 'D', e->path, e->mode_index,
							  &e->oid_index, 0, &null);
			continue;
		}
		wg_buf_reset(&data);
		if ((err = wg_workfile_read(&data, &mode, repo, e->path)))
			break;
		if (e->mode_index == 0160000)
			continue;   /* submodules: not yet */
		if ((err = wg_object_hash(&oid, wg_repo_algo(repo), WG_OBJ_BLOB, data.data, data.len)))
			break;
		if (mode == e->mode_index && wg_oid_equal(&oid, &e->oid_index))
			continue;
		err = wg_diff_changes_add(out, type_differs(e->mode_index, mode) ? 'T' : 'M', e->path,
					  e->mode_index, &e->oid_index, mode, &oid);
	}
	wg_buf_release(&data);
	wg_status_free(st);
	return err;
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
	struct worktree_loader wl;
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
	if ((cached && nrevs > 1) || (nrevs == 1 && !cached))
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
		if (cli_read_index(&ix, repo)) {
			rc = cli_fatal("index file corrupt");
			goto out;
		}
		if (cached) {
			r = cached_changes(&changes, repo, ix, unborn ? NULL : &trees[0], &o);
		} else if (wg_repo_require_workdir(repo)) {
			r = -1;
		} else {
			r = worktree_changes(&changes, repo, ix, &o);
			wl.repo = repo;
			o.load_new = load_worktree;
			o.payload = &wl;
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
