/* --contains, --no-contains, --merged and --no-merged (reach_filter.h). */
#include "reach_filter.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "odb/reachable.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"

static const char *const option_name[] = { "contains", "no-contains", "merged", "no-merged" };

int cli_reach_init(struct cli_reach_filter *f, int argc)
{
	f->n = 0;
	f->v = wg_calloc((size_t)argc + 1, sizeof(*f->v));
	return f->v ? 0 : -1;
}

void cli_reach_release(struct cli_reach_filter *f)
{
	wg_free(f->v);
	f->v = NULL;
	f->n = 0;
}

/* "--merged=<commit>", "--merged <commit>", or "--merged" as the last
 * argument, which means HEAD (git's "last argument default"). */
bool cli_reach_option(struct cli_reach_filter *f, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (strncmp(a, "--", 2))
		return false;
	for (enum cli_reach_kind k = CLI_CONTAINS; k <= CLI_NO_MERGED; k++) {
		size_t len = strlen(option_name[k]);
		struct cli_reach *r = &f->v[f->n];
		if (strncmp(a + 2, option_name[k], len))
			continue;
		if (a[2 + len] == '=')
			r->spec = a + 3 + len;
		else if (a[2 + len])
			continue;
		else
			r->spec = *i + 1 < argc ? argv[++*i] : "HEAD";
		r->kind = k;
		f->n++;
		return true;
	}
	return false;
}

const char *cli_reach_first_option(const struct cli_reach_filter *f)
{
	static const char *const dashed[] = { "--contains", "--no-contains", "--merged",
					      "--no-merged" };
	enum cli_reach_kind first = CLI_NO_MERGED;
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].kind < first)
			first = f->v[i].kind;
	return dashed[first];
}

int cli_reach_resolve(struct cli_reach_filter *f, struct wg_repo *repo)
{
	for (size_t i = 0; i < f->n; i++) {
		struct cli_reach *r = &f->v[i];
		bool contains = r->kind == CLI_CONTAINS || r->kind == CLI_NO_CONTAINS;
		struct wg_oid oid;
		if (wg_revparse(&oid, repo, r->spec)) {
			wg_error_clear();
			/* git reads --contains's commit as an error of the
			 * option (129), --merged's as a fatal one (128) */
			if (contains) {
				fprintf(stderr, "error: malformed object name %s\n", r->spec);
				return 129;
			}
			return cli_fatal("malformed object name %s", r->spec);
		}
		if (wg_object_peel(&r->commit, repo, &oid, WG_OBJ_COMMIT)) {
			fprintf(stderr, "error: %s\n", wg_error_message());
			wg_error_clear();
			if (contains)
				fprintf(stderr, "error: no such commit %s\n", r->spec);
			else
				fprintf(stderr, "error: option `%s' must point to a commit\n",
					option_name[r->kind]);
			return 129;
		}
	}
	return 0;
}

bool cli_reach_keeps(const struct cli_reach_filter *f, struct wg_repo *repo,
		     const struct wg_oid *tip)
{
	bool any_contains = false, contained = false, any_merged = false, merged = false;
	struct wg_oid commit;
	if (!f->n)
		return true;
	if (wg_object_peel(&commit, repo, tip, WG_OBJ_COMMIT)) {
		wg_error_clear();
		return false;
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct cli_reach *r = &f->v[i];
		bool yes = false;
		if (r->kind == CLI_CONTAINS || r->kind == CLI_NO_CONTAINS)
			wg_odb_is_ancestor(wg_repo_odb(repo), &r->commit, &commit, &yes);
		else
			wg_odb_is_ancestor(wg_repo_odb(repo), &commit, &r->commit, &yes);
		wg_error_clear();
		switch (r->kind) {
		case CLI_CONTAINS:
			any_contains = true;
			contained |= yes;
			break;
		case CLI_MERGED:
			any_merged = true;
			merged |= yes;
			break;
		case CLI_NO_CONTAINS:
		case CLI_NO_MERGED:
			if (yes)
				return false;
			break;
		}
	}
	return (!any_contains || contained) && (!any_merged || merged);
}
