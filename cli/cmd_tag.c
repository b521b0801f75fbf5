/* webgit tag: list, create (lightweight or annotated with -m) and delete
 * tags (git tag), on repo/tag.h. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "reach_filter.h"
#include "repo/revparse.h"
#include "repo/tag.h"
#include "util/alloc.h"
#include "util/error.h"
#include "worktree/commit_index.h"

static const char usage[] =
	"webgit tag [-l | --list] [--contains [<commit>]] [--no-contains [<commit>]]\n"
	"           [--merged [<commit>]] [--no-merged [<commit>]] [<pattern>...]\n"
	"   or: webgit tag [-a] [-f] [-m <msg>] <tagname> [<commit> | <object>]\n"
	"   or: webgit tag -d <tagname>...";

struct tag_list {
	struct wg_repo *repo;
	const struct cli_reach_filter *filter;
};

static int print_tag(const char *name, const struct wg_oid *oid, void *payload)
{
	struct tag_list *l = payload;
	if (cli_reach_keeps(l->filter, l->repo, oid))
		printf("%s\n", name);
	return 0;
}

/* git's advice when an annotated tag points at another tag. */
static void nested_tag_hint(struct wg_repo *repo, const char *name, const char *target)
{
	struct wg_oid oid;
	enum wg_object_type type;
	size_t size;
	if (!wg_revparse(&oid, repo, target) &&
	    !wg_odb_read_header(wg_repo_odb(repo), &oid, &type, &size) && type == WG_OBJ_TAG)
		fprintf(stderr, "hint: You have created a nested tag. The object referred to by "
			"your new tag is\nhint: already a tag. If you meant to tag the object "
			"that it points to, use:\nhint:\nhint: \tgit tag -f %s %s^{}\nhint: "
			"Disable this message with \"git config set advice.nestedTag false\"\n",
			name, target);
	wg_error_clear();
}

int cmd_tag(int argc, char **argv)
{
	struct wg_repo *repo = NULL;
	struct wg_tag_create_options co = WG_TAG_CREATE_OPTIONS_INIT;
	struct wg_buf msg = WG_BUF_INIT, tagger = WG_BUF_INIT;
	char **args = wg_calloc((size_t)argc + 1, sizeof(*args));
	bool del = false, list = false, annotate = false, have_msg = false, ddash = false;
	int i, n = 0, rc = 0;
	struct cli_reach_filter filter;

	if (!args || cli_reach_init(&filter, argc)) {
		wg_free(args);
		return cli_fatal("out of memory");
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (ddash || a[0] != '-' || !a[1])
			args[n++] = argv[i];
		else if (!strcmp(a, "--"))
			ddash = true;
		else if (!strcmp(a, "-d") || !strcmp(a, "--delete"))
			del = true;
		else if (!strcmp(a, "-l") || !strcmp(a, "--list"))
			list = true;
		else if (!strcmp(a, "-a") || !strcmp(a, "--annotate"))
			annotate = true;
		else if (!strcmp(a, "-f") || !strcmp(a, "--force"))
			co.force = true;
		else if ((v = cli_option_value(argc, argv, &i, "-m")) ||
			 (v = cli_option_value(argc, argv, &i, "--message"))) {
			/* Several -m are paragraphs, as git joins them. */
			if (have_msg)
				wg_buf_adds(&msg, "\n\n");
			wg_buf_adds(&msg, v);
			have_msg = true;
		} else if (!strncmp(a, "-m", 2) && a[2]) {
			if (have_msg)
				wg_buf_adds(&msg, "\n\n");
			wg_buf_adds(&msg, a + 2);
			have_msg = true;
		} else if (cli_reach_option(&filter, argc, argv, &i)) {
			list = true; /* each implies --list */
		} else {
			wg_free(args);
			wg_buf_release(&msg);
			cli_reach_release(&filter);
			return cli_usage(usage);
		}
	}
	if ((rc = cli_open_repo(&repo)) || (rc = cli_reach_resolve(&filter, repo)))
		goto out;
	if (filter.n && (have_msg || annotate || co.force) && !del) {
		rc = cli_usage(usage);
		goto out;
	}
	if (filter.n && del) {
		rc = cli_fatal("the '%s' option is only allowed in list mode",
			       cli_reach_first_option(&filter));
		goto out;
	}
	if (del) {
		if (!n) {
			rc = cli_usage(usage);
			goto out;
		}
		for (i = 0; i < n; i++) {
			struct wg_oid was;
			char ab[WG_MAX_HEXSZ + 1];
			if (wg_tag_delete(repo, args[i], &was)) {
				fprintf(stderr, "error: %s\n", wg_error_message());
				wg_error_clear();
				rc = 1;
				continue;
			}
			cli_abbrev(ab, repo, &was);
			printf("Deleted tag '%s' (was %s)\n", args[i], ab);
		}
	} else if (list || !n) {
		struct tag_list l = { repo, &filter };
		if (wg_tag_foreach(repo, (const char *const *)args, (size_t)n, print_tag, &l))
			rc = cli_fatal_core();
	} else if (n > 2) {
		rc = cli_fatal("too many arguments");
	} else {
		struct wg_oid was, now;
		if (annotate && !have_msg) {
			rc = cli_fatal("no tag message?");
			goto out;
		}
		if (have_msg) {
			if (wg_commit_message_cleanup(&msg) || wg_buf_adds(&msg, "")) {
				rc = cli_fatal_core();
				goto out;
			}
			if ((rc = cli_ident(&tagger, repo, "COMMITTER")))
				goto out;
			co.message = wg_buf_cstr(&msg);
			co.tagger = wg_buf_cstr(&tagger);
		}
		if (wg_tag_create(repo, args[0], n == 2 ? args[1] : NULL, &co, &was, &now)) {
			rc = cli_fatal_core();
			goto out;
		}
		if (have_msg)
			nested_tag_hint(repo, args[0], n == 2 ? args[1] : "HEAD");
		if (co.force && !wg_oid_is_null(&was) && !wg_oid_equal(&was, &now)) {
			char ab[WG_MAX_HEXSZ + 1];
			cli_abbrev(ab, repo, &was);
			printf("Updated tag '%s' (was %s)\n", args[0], ab);
		}
	}
out:
	wg_buf_release(&msg);
	wg_buf_release(&tagger);
	wg_free(args);
	cli_reach_release(&filter);
	wg_repo_free(repo);
	return rc;
}
