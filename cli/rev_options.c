/* Revision walk options (see rev_options.h). */
#include "rev_options.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "refs/refdb.h"
#include "repo/revparse.h"
#include "repo/shallow.h"
#include "util/buf.h"
#include "util/alloc.h"
#include "util/error.h"

void cli_rev_options_init(struct cli_rev_options *r, int argc)
{
	memset(r, 0, sizeof(*r));
	r->walk.max_parents = -1;
	r->walk.max_count = SIZE_MAX;
	r->revs = calloc((size_t)argc + 1, sizeof(*r->revs));
}

void cli_rev_options_release(struct cli_rev_options *r)
{
	free(r->revs);
	wg_pathspec_release(&r->pathspec);
	wg_oidmap_release(&r->shallow);
}

static int count_value(const char *v, size_t *out)
{
	char *end;
	long long n = strtoll(v, &end, 10);
	if (!*v || *end)
		return cli_fatal("'%s': not an integer", v);
	*out = n < 0 ? SIZE_MAX : (size_t)n;
	return 0;
}

int cli_rev_options_parse(struct cli_rev_options *r, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;
	struct wg_revwalk_options *w = &r->walk;

	if (!strcmp(a, "--")) {   /* the rest are paths */
		r->paths = argv + *i + 1;
		r->npaths = argc - *i - 1;
		r->dashdash = true;
		*i = argc;
		return 1;
	}
	if (!strcmp(a, "--topo-order"))
		w->order = WG_REVWALK_ORDER_TOPO;
	else if (!strcmp(a, "--date-order"))
		w->order = WG_REVWALK_ORDER_DATE;
	else if (!strcmp(a, "--reverse"))
		w->reverse = true;
	else if (!strcmp(a, "--first-parent"))
		w->first_parent = true;
	else if (!strcmp(a, "--full-history"))
		w->full_history = true;
	else if (!strcmp(a, "--merges"))
		w->min_parents = 2;
	else if (!strcmp(a, "--no-merges"))
		w->max_parents = 1;
	else if (!strcmp(a, "--left-right"))
		r->left_right = true;
	else if (!strcmp(a, "--not") || !strcmp(a, "--all"))
		r->revs[r->nrevs++] = a;
	else if ((v = cli_option_value(argc, argv, i, "--max-count")) ||
		 (v = cli_option_value(argc, argv, i, "-n")))
		return count_value(v, &w->max_count) ? 2 : 1;
	else if ((v = cli_option_value(argc, argv, i, "--skip")))
		return count_value(v, &w->skip) ? 2 : 1;
	else if (!strncmp(a, "-n", 2) && a[2])
		return count_value(a + 2, &w->max_count) ? 2 : 1;
	else if (a[0] == '-' && a[1] >= '0' && a[1] <= '9')
		return count_value(a + 1, &w->max_count) ? 2 : 1;
	else
		return 0;
	return 1;
}

void cli_rev_options_add_rev(struct cli_rev_options *r, const char *arg)
{
	r->revs[r->nrevs++] = arg;
}

/* --all: every ref, then HEAD, as git's handle_refs; refs to other
 * objects than commits are left out, as git log leaves them. */
static int push_all(struct wg_revwalk *walk, struct wg_repo *repo, bool not)
{
	struct wg_ref_iter *it = NULL;
	const struct wg_ref *ref;
	struct wg_oid oid, commit;
	int err, r;

	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(repo), NULL)))
		return err;
	while (!(r = wg_ref_iter_next(&ref, it))) {
		if (ref->symbolic) {
			if (wg_refdb_resolve(&oid, NULL, wg_repo_refdb(repo), ref->name, 0)) {
				wg_error_clear();
				continue;
			}
		} else {
			oid = ref->oid;
		}
		if (wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT)) {
			wg_error_clear();
			continue;
		}
		if ((err = wg_revwalk_push(walk, &commit, not ? WG_REVWALK_HIDE : 0)))
			break;
	}
	wg_ref_iter_free(it);
	if (err)
		return err;
	if (r != WG_ITEROVER)
		return r;
	if (!wg_refdb_resolve(&oid, NULL, wg_repo_refdb(repo), "HEAD", 0) &&
	    !wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT))
		return wg_revwalk_push(walk, &commit, not ? WG_REVWALK_HIDE : 0);
	wg_error_clear();
	return 0;
}

static bool path_exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

int cli_rev_options_walk(struct cli_rev_options *r, struct wg_repo *repo,
			 struct wg_revwalk **out)
{
	struct wg_revwalk *walk = NULL;
	struct wg_buf prefix = WG_BUF_INIT;
	bool not = false, any = false;
	int rc = 0;

	*out = NULL;
	/* revisions that are none: paths, if they exist (git's verify_filename);
	 * after a "--" everything before it must be a revision */
	for (int k = 0; !r->dashdash && k < r->nrevs; k++) {
		const char *a = r->revs[k];
		struct wg_oid oid;
		if (!strcmp(a, "--not") || !strcmp(a, "--all") || strstr(a, ".."))
			continue;
		if (!wg_revparse(&oid, repo, a[0] == '^' ? a + 1 : a))
			continue;
		wg_error_clear();
		if (!path_exists(a))
			return cli_fatal("ambiguous argument '%s': unknown revision or path not in the "
					 "working tree.\nUse '--' to separate paths from revisions, like "
					 "this:\n'webgit <command> [<revision>...] -- [<file>...]'", a);
		/* this one and all after it are paths */
		r->paths = (char **)(r->revs + k);
		r->npaths = r->nrevs - k;
		r->nrevs = k;
		break;
	}
	if (r->npaths) {
		if (wg_repo_workdir(repo) && cli_cwd_prefix(&prefix, wg_repo_workdir(repo)))
			return cli_fatal("out of memory");
		if (wg_pathspec_init(&r->pathspec, wg_buf_cstr(&prefix), (const char *const *)r->paths,
				     (size_t)r->npaths)) {
			rc = cli_fatal("%s", wg_error_message());
			goto out;
		}
		r->walk.paths = &r->pathspec;
	}
	if (r->follow_one_path && r->pathspec.nr == 1)
		r->walk.follow = true;
	if (wg_repo_shallow_read(repo, &r->shallow)) {
		rc = cli_fatal_core();
		goto out;
	}
	r->walk.shallow = &r->shallow;
	if (wg_revwalk_new(&walk, wg_repo_odb(repo), &r->walk)) {
		rc = cli_fatal_core();
		goto out;
	}
	for (int k = 0; k < r->nrevs; k++) {
		const char *a = r->revs[k];
		if (!strcmp(a, "--not")) {
			not = !not;
			continue;
		}
		any = true;
		if (!strcmp(a, "--all") ? push_all(walk, repo, not)
					: wg_revwalk_push_arg(walk, repo, a, not)) {
			if (wg_error_code() == WG_ENOTFOUND)
				rc = cli_fatal("ambiguous argument '%s': unknown revision or path not "
					       "in the working tree.\nUse '--' to separate paths from "
					       "revisions, like this:\n'webgit <command> [<revision>...] -- "
					       "[<file>...]'", a);
			else
				rc = cli_fatal_core();
			goto out;
		}
	}
	if (!any) {
		struct wg_oid head;
		char *name = NULL;
		if (!wg_refdb_resolve(&head, &name, wg_repo_refdb(repo), "HEAD",
				      WG_RESOLVE_ALLOW_MISSING) && wg_oid_is_null(&head)) {
			const char *b = name && !strncmp(name, "refs/heads/", 11) ? name + 11 : "HEAD";
			rc = cli_fatal("your current branch '%s' does not have any commits yet", b);
			wg_free(name);
			goto out;
		}
		wg_error_clear();
		wg_free(name);
		if (wg_revwalk_push_arg(walk, repo, "HEAD", false)) {
			rc = cli_fatal_core();
			goto out;
		}
	}
	*out = walk;
	walk = NULL;
out:
	wg_revwalk_free(walk);
	wg_buf_release(&prefix);
	return rc;
}
