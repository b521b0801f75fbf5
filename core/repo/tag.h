/* Tags as `git tag` makes them: lightweight (a ref) and annotated (a tag
 * object written Git-exact, then the ref), deletion and the list. Errors
 * carry git's wording for the front ends to print. */
#ifndef WG_REPO_TAG_H
#define WG_REPO_TAG_H

#include <stdbool.h>
#include <stddef.h>

#include "repo/repo.h"

struct wg_tag_create_options {
	unsigned version;
	bool force;               /* -f: replace an existing tag */
	/* Annotated when message is not NULL: the message as it goes into the
	 * object (the caller cleans it up as git's -m does) and the tagger
	 * ("Name <email> time tz", as a commit's committer). */
	const char *message;
	const char *tagger;
};
#define WG_TAG_CREATE_OPTIONS_VERSION 1
#define WG_TAG_CREATE_OPTIONS_INIT { WG_TAG_CREATE_OPTIONS_VERSION, false, NULL, NULL }

/* Is `name` acceptable as a tag name? WG_EINVALID "'<name>' is not a
 * valid tag name." if not. */
int wg_tag_name_check(const char *name);

/* Tag `target` (any revision; NULL: HEAD) as refs/tags/<name>. *was (may
 * be NULL) gets the value the tag had (null when it is new), for git's
 * "Updated tag 'x' (was abc1234)"; *out (may be NULL) the ref's new
 * value (the tag object for an annotated tag). Refuses an existing tag
 * without force ("tag 'x' already exists"). */
int wg_tag_create(struct wg_repo *repo, const char *name, const char *target,
		  const struct wg_tag_create_options *opts, struct wg_oid *was,
		  struct wg_oid *out);

/* Delete refs/tags/<name>; *was gets its value. WG_ENOTFOUND "tag 'x' not
 * found." if there is none. */
int wg_tag_delete(struct wg_repo *repo, const char *name, struct wg_oid *was);

/* Tags in name order whose names match one of `patterns` (git's wildmatch
 * without pathname rules; none: every tag). A nonzero return from `cb`
 * stops and is returned. */
typedef int (*wg_tag_list_fn)(const char *name, const struct wg_oid *oid, void *payload);
int wg_tag_foreach(struct wg_repo *repo, const char *const *patterns, size_t npatterns,
		   wg_tag_list_fn cb, void *payload);

#endif
