/* webgit show-ref: list refs with their object ids (git show-ref). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "repo/revparse.h"
#include "util/error.h"

struct show_opts {
	struct wg_repo *repo;
	bool deref, hash_only, quiet;
	int abbrev;
};

static void show_one(struct show_opts *o, const char *name, const struct wg_oid *oid)
{
	const char *hex = wg_oid_hex(oid);
	struct wg_oid peeled;
	if (o->quiet)
		return;
	if (o->hash_only)
		printf("%.*s\n", o->abbrev ? o->abbrev : (int)strlen(hex), hex);
	else
		printf("%.*s %s\n", o->abbrev ? o->abbrev : (int)strlen(hex), hex, name);
	if (o->deref && !wg_object_peel(&peeled, o->repo, oid, WG_OBJ_NONE) &&
	    !wg_oid_equal(&peeled, oid)) {
		hex = wg_oid_hex(&peeled);
		if (o->hash_only)
			printf("%.*s\n", o->abbrev ? o->abbrev : (int)strlen(hex), hex);
		else
			printf("%.*s %s^{}\n", o->abbrev ? o->abbrev : (int)strlen(hex), hex, name);
	}
	wg_error_clear();
}

/* git's show-ref pattern rule: the whole name, or a tail after a '/'. */
static bool tail_match(char **patterns, int n, const char *name)
{
	int i;
	size_t len = strlen(name);
	if (!n)
		return true;
	for (i = 0; i < n; i++) {
		size_t pl = strlen(patterns[i]);
		if (pl > len)
			continue;
		if (!strcmp(name + len - pl, patterns[i]) &&
		    (pl == len || name[len - pl - 1] == '/'))
			return true;
	}
	return false;
}

int cmd_show_ref(int argc, char **argv)
{
	static const char usage[] = "webgit show-ref [--head] [-d | --dereference] [-s | --hash[=<n>]] "
		"[--abbrev[=<n>]] [--branches] [--tags] [--] [<pattern>...]\n"
		"   or: webgit show-ref --verify [-q | --quiet] [-d | --dereference] [-s | --hash[=<n>]] "
		"[--abbrev[=<n>]] [--] [<ref>...]\n   or: webgit show-ref --exists <ref>";
	struct show_opts o;
	struct wg_repo *repo = NULL;
	struct wg_ref_iter *it = NULL;
	const struct wg_ref *ref;
	bool heads = false, tags = false, verify = false, head = false, exists = false;
	char **patterns = argv + argc;
	int i, rc, npat = 0, found = 0, err;

	memset(&o, 0, sizeof(o));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--heads") || !strcmp(a, "--branches")) {
			heads = true;
		} else if (!strcmp(a, "--tags")) {
			tags = true;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--dereference")) {
			o.deref = true;
		} else if (!strcmp(a, "-s") || !strcmp(a, "--hash")) {
			o.hash_only = true;
		} else if (!strncmp(a, "--hash=", 7)) {
			o.hash_only = true;
			o.abbrev = atoi(a + 7);
		} else if (!strcmp(a, "--abbrev")) {
			o.abbrev = 7;
		} else if (!strncmp(a, "--abbrev=", 9)) {
			o.abbrev = atoi(a + 9);
		} else if (!strcmp(a, "--verify")) {
			verify = true;
		} else if (!strcmp(a, "--exists")) {
			exists = true;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o.quiet = true;
		} else if (!strcmp(a, "--head")) {
			head = true;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage(usage);
		} else {
			break;
		}
	}
	if (o.abbrev && o.abbrev < 4)
		o.abbrev = 4;
	patterns = argv + i;
	npat = argc - i;
	if ((rc = cli_open_repo(&repo)))
		return rc;
	o.repo = repo;
	if (exists) {
		struct wg_ref r;
		if (npat != 1) {
			wg_repo_free(repo);
			return cli_fatal("--exists requires exactly one reference");
		}
		err = wg_refdb_read(&r, wg_repo_refdb(repo), patterns[0]);
		wg_ref_release(&r);
		if (err == WG_ENOTFOUND)
			fprintf(stderr, "error: reference does not exist\n");
		else if (err)
			fprintf(stderr, "error: %s\n", wg_error_message());
		wg_repo_free(repo);
		return err == WG_ENOTFOUND ? 2 : err ? 1 : 0;
	}
	if (verify) {
		if (!npat) {
			wg_repo_free(repo);
			return cli_fatal("--verify requires a reference");
		}
		for (i = 0; i < npat; i++) {
			struct wg_oid oid;
			if ((strncmp(patterns[i], "refs/", 5) && !wg_refname_is_root(patterns[i])) ||
			    wg_refdb_resolve(&oid, NULL, wg_repo_refdb(repo), patterns[i], 0)) {
				wg_error_clear();
				if (!o.quiet)
					rc = cli_fatal("'%s' - not a valid ref", patterns[i]);
				else
					rc = 1;
				break;
			}
			show_one(&o, patterns[i], &oid);
		}
		wg_repo_free(repo);
		return rc;
	}
	if (head) {
		struct wg_oid oid;
		if (!wg_refdb_resolve(&oid, NULL, wg_repo_refdb(repo), "HEAD", 0)) {
			show_one(&o, "HEAD", &oid);
			found++;
		}
		wg_error_clear();
	}
	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(repo), "refs/"))) {
		wg_repo_free(repo);
		return cli_fatal_core();
	}
	while (!(err = wg_ref_iter_next(&ref, it))) {
		struct wg_oid oid = ref->oid;
		if ((heads || tags) && !((heads && !strncmp(ref->name, "refs/heads/", 11)) ||
					 (tags && !strncmp(ref->name, "refs/tags/", 10))))
			continue;
		if (!tail_match(patterns, npat, ref->name))
			continue;
		if (ref->symbolic &&
		    wg_refdb_resolve(&oid, NULL, wg_repo_refdb(repo), ref->target, 0)) {
			wg_error_clear();
			continue;
		}
		show_one(&o, ref->name, &oid);
		found++;
	}
	if (err != WG_ITEROVER)
		rc = cli_fatal_core();
	wg_ref_iter_free(it);
	wg_repo_free(repo);
	return rc ? rc : found ? 0 : 1;
}
