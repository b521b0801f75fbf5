/* The WebAssembly module's C ABI, part five: branches and tags. Creating,
 * deleting, renaming and listing them is the core's (repo/branch.h,
 * repo/tag.h): the reflogs, config and tag objects are written there as
 * git writes them; JavaScript only passes names (conventions:
 * wasm/exports.c). */
#include <string.h>

#include "exports.h"
#include "repo/branch.h"
#include "repo/tag.h"
#include "repo/upstream.h"
#include "util/error.h"
#include "worktree/commit_index.h"

static struct wg_buf upbuf;

/* --- branches ------------------------------------------------------------------------------ */

/* git branch [-f] [--track | --no-track] <name> [<start>]: `track` 0 as
 * branch.autoSetupMerge says, 1 never, 2 always. The upstream set up
 * (short, "origin/main"), "" for none, or NULL on error; the string lives
 * until the next call. */
API const char *wgjs_branch_create(struct wg_repo *repo, const char *name, const char *start,
				   int force, int track)
{
	struct wg_branch_create_options co = WG_BRANCH_CREATE_OPTIONS_INIT;

	wg_error_clear();
	co.force = force != 0;
	co.track = track == 1 ? WG_BRANCH_TRACK_NEVER : track == 2 ? WG_BRANCH_TRACK_ALWAYS :
		   WG_BRANCH_TRACK_AUTO;
	wg_buf_reset(&upbuf);
	if (wg_branch_create(repo, name, start, &co, &upbuf))
		return NULL;
	return wg_buf_cstr(&upbuf);
}

/* git branch -d / -D (force) / -r (remote): the value the branch had
 * (hex), or NULL. A branch not fully merged is WG_EINVALID with git's
 * message. */
API const char *wgjs_branch_delete(struct wg_repo *repo, const char *name, int force, int remote)
{
	struct wg_oid was;
	int err;

	wg_error_clear();
	err = wg_branch_delete(repo, name, (force ? WG_BRANCH_FORCE : 0) |
			       (remote ? WG_BRANCH_REMOTE : 0), &was, NULL, NULL);
	if (err)
		return NULL;
	return wgjs_hex(&was);
}

/* git branch -m / -M / -c / -C; `old_name` NULL: the current branch. */
API int wgjs_branch_rename(struct wg_repo *repo, const char *old_name, const char *new_name,
			   int force, int copy)
{
	struct wg_buf cur = WG_BUF_INIT;
	int err;

	wg_error_clear();
	if (!old_name) {
		if ((err = wg_branch_current(&cur, repo)))
			goto out;
		if (!cur.len) {
			err = wg_error_set(WG_EINVALID, "cannot %s the current branch while not on "
					   "any", copy ? "copy" : "rename");
			goto out;
		}
		old_name = wg_buf_cstr(&cur);
	}
	err = wg_branch_rename(repo, old_name, new_name, (force ? WG_BRANCH_FORCE : 0) |
			       (copy ? WG_BRANCH_COPY : 0));
out:
	wg_buf_release(&cur);
	return err;
}

/* git branch -u <upstream> [<branch>]: the upstream's short name, or NULL. */
API const char *wgjs_branch_set_upstream(struct wg_repo *repo, const char *branch,
					 const char *upstream)
{
	wg_error_clear();
	wg_buf_reset(&upbuf);
	if (wg_branch_track(repo, branch, upstream, &upbuf))
		return NULL;
	return wg_buf_cstr(&upbuf);
}

API int wgjs_branch_unset_upstream(struct wg_repo *repo, const char *branch)
{
	wg_error_clear();
	return wg_branch_unset_upstream(repo, branch);
}

struct list_arg {
	struct wgjs_object *list;
	struct wg_repo *repo;
};

static int add_branch(const struct wg_branch_info *info, void *payload)
{
	struct list_arg *a = payload;
	struct wg_buf full = WG_BUF_INIT, shortname = WG_BUF_INIT;
	const char *f[6];
	char hex[WG_MAX_HEXSZ + 1];
	int err;

	if (!info->remote && wg_branch_upstream(&full, &shortname, a->repo, info->name))
		wg_error_clear();
	f[0] = info->name;
	f[1] = info->refname;
	f[2] = wg_oid_is_null(&info->oid) ? "" : wg_oid_to_hex(&info->oid, hex);
	f[3] = info->symref;
	f[4] = info->head ? "1" : "";
	f[5] = wg_buf_cstr(&shortname);
	err = wgjs_record_add(a->list, f, 6);
	wg_buf_release(&full);
	wg_buf_release(&shortname);
	return err;
}

/* The branches (`kinds`: 1 local, 2 remote-tracking, 3 both): records of
 * six fields, the short name, the full ref, the id (hex, "" for a symref
 * that dangles), a symref's target (short, "" otherwise), "1" for the
 * branch HEAD names, and the upstream's short name ("" for none). */
API struct wgjs_object *wgjs_branch_list(struct wg_repo *repo, int kinds)
{
	struct list_arg a = { NULL, repo };

	wg_error_clear();
	if (!(a.list = wgjs_object_alloc(WG_OBJ_NONE)))
		return NULL;
	if (wg_branch_foreach(repo, (unsigned)kinds, add_branch, &a)) {
		wgjs_object_free(a.list);
		return NULL;
	}
	return a.list;
}

/* --- tags ---------------------------------------------------------------------------------- */

/* git tag [-f] [-m <message>] <name> [<target>]: annotated when `message`
 * is not NULL (`len` bytes, cleaned up as git's -m does; `tagger` an
 * ident as wgjs_ident_format gives it). Records of one row, the ref's new
 * value and the value it had ("" for none), or NULL. */
API struct wgjs_object *wgjs_tag_create(struct wg_repo *repo, const char *name,
					const char *target, int force, const char *message,
					size_t len, const char *tagger)
{
	struct wg_tag_create_options co = WG_TAG_CREATE_OPTIONS_INIT;
	struct wg_buf msg = WG_BUF_INIT;
	struct wgjs_object *out = NULL;
	struct wg_oid was, now;
	char a[WG_MAX_HEXSZ + 1], b[WG_MAX_HEXSZ + 1];
	const char *f[2];

	wg_error_clear();
	co.force = force != 0;
	if (message) {
		if (wg_buf_add(&msg, message, len) || wg_commit_message_cleanup(&msg) ||
		    wg_buf_adds(&msg, ""))
			goto out;
		co.message = wg_buf_cstr(&msg);
		co.tagger = tagger;
	}
	if (wg_tag_create(repo, name, target, &co, &was, &now))
		goto out;
	f[0] = wg_oid_to_hex(&now, a);
	f[1] = wg_oid_is_null(&was) ? "" : wg_oid_to_hex(&was, b);
	if ((out = wgjs_object_alloc(WG_OBJ_NONE)) && wgjs_record_add(out, f, 2)) {
		wgjs_object_free(out);
		out = NULL;
	}
out:
	wg_buf_release(&msg);
	return out;
}

/* git tag -d: the value the tag had (hex), or NULL. */
API const char *wgjs_tag_delete(struct wg_repo *repo, const char *name)
{
	struct wg_oid was;

	wg_error_clear();
	if (wg_tag_delete(repo, name, &was))
		return NULL;
	return wgjs_hex(&was);
}

static int add_tag(const char *name, const struct wg_oid *oid, void *payload)
{
	char hex[WG_MAX_HEXSZ + 1];
	const char *f[2] = { name, wg_oid_to_hex(oid, hex) };
	return wgjs_record_add(payload, f, 2);
}

/* git tag -l [<pattern>...]: records of two fields, the name and the
 * ref's value (hex). */
API struct wgjs_object *wgjs_tag_list(struct wg_repo *repo, const char *const *patterns,
				      int npatterns)
{
	struct wgjs_object *list;

	wg_error_clear();
	if (!(list = wgjs_object_alloc(WG_OBJ_NONE)))
		return NULL;
	if (wg_tag_foreach(repo, patterns, (size_t)npatterns, add_tag, list)) {
		wgjs_object_free(list);
		return NULL;
	}
	return list;
}
