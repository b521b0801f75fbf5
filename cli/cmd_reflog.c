/* webgit reflog: show reflogs (git reflog [show] [<ref>]) and check for
 * one (git reflog exists <ref>). */
#include <string.h>

#include "cli.h"
#include "util/error.h"

/* git's dwim_log(): the first of the DWIM names that has a reflog. */
static int find_log(struct wg_refdb *db, const char *name, char *out, size_t outsz)
{
	static const char *const rules[] = { "%s", "refs/%s", "refs/tags/%s", "refs/heads/%s",
					     "refs/remotes/%s", "refs/remotes/%s/HEAD", NULL };
	int i;
	for (i = 0; rules[i]; i++) {
		snprintf(out, outsz, rules[i], name);
		if (wg_refdb_reflog_exists(db, out) == 1)
			return 0;
	}
	return WG_ENOTFOUND;
}

static size_t unique_len(struct wg_repo *repo, const struct wg_oid *oid)
{
	const char *hex = wg_oid_hex(oid);
	size_t len, hexsz = wg_repo_algo(repo)->hexsz;
	for (len = 7; len < hexsz; len++) {
		struct wg_oid found;
		if (wg_odb_resolve_prefix(wg_repo_odb(repo), hex, len, &found) != WG_EAMBIGUOUS)
			break;
	}
	wg_error_clear();
	return len;
}

int cmd_reflog(int argc, char **argv)
{
	static const char usage[] = "webgit reflog [show] [<ref>]\n   or: webgit reflog exists <ref>";
	struct wg_repo *repo = NULL;
	struct wg_reflog_iter *it = NULL;
	const struct wg_reflog_entry *e;
	const char *ref = "HEAD";
	char full[1024];
	int i = 1, rc, err, n = 0;

	if (i < argc && !strcmp(argv[i], "exists")) {
		if (argc != 3)
			return cli_usage(usage);
		if ((rc = cli_open_repo(&repo)))
			return rc;
		rc = wg_refdb_reflog_exists(wg_repo_refdb(repo), argv[2]) == 1 ? 0 : 1;
		wg_repo_free(repo);
		return rc;
	}
	if (i < argc && !strcmp(argv[i], "show"))
		i++;
	if (i < argc && argv[i][0] == '-')
		return cli_usage(usage);
	if (i < argc)
		ref = argv[i++];
	if (i < argc)
		return cli_usage(usage);
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if (find_log(wg_repo_refdb(repo), ref, full, sizeof(full))) {
		struct wg_oid oid;
		/* A ref without a reflog shows nothing, as git does. */
		if (wg_refdb_resolve(&oid, NULL, wg_repo_refdb(repo), ref, 0) &&
		    strcmp(ref, "HEAD")) {
			wg_error_clear();
			rc = cli_fatal("ambiguous argument '%s': unknown revision or path not in "
				       "the working tree.", ref);
		}
		wg_repo_free(repo);
		return rc;
	}
	if ((err = wg_reflog_iter_new(&it, wg_repo_refdb(repo), full, 0))) {
		wg_repo_free(repo);
		return cli_fatal_core();
	}
	while (!(err = wg_reflog_iter_next(&e, it))) {
		const char *hex = wg_oid_hex(&e->new_oid);
		printf("%.*s %s@{%d}: %s\n", (int)unique_len(repo, &e->new_oid), hex, ref, n++,
		       e->message);
	}
	if (err != WG_ITEROVER)
		rc = cli_fatal_core();
	wg_reflog_iter_free(it);
	wg_repo_free(repo);
	return rc;
}
