/* Tags (see tag.h), after git's builtin/tag.c. */
#include "repo/tag.h"

#include <string.h>

#include "object/tag.h"
#include "refs/refname.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/wildmatch.h"

int wg_tag_name_check(const char *name)
{
	int ok = wg_refname_short_is_valid("refs/tags/", name);
	if (ok < 0)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (!ok)
		return wg_error_set(WG_EINVALID, "'%s' is not a valid tag name.", name);
	return 0;
}

/* Write the tag object git tag -a writes. */
static int write_tag_object(struct wg_repo *repo, const char *name, const struct wg_oid *target,
			    const struct wg_tag_create_options *opts, struct wg_oid *out)
{
	struct wg_tag tag;
	struct wg_buf raw = WG_BUF_INIT;
	enum wg_object_type type;
	size_t size;
	int err;

	wg_tag_init(&tag);
	if ((err = wg_odb_read_header(wg_repo_odb(repo), target, &type, &size)))
		goto out;
	tag.object = *target;
	tag.type = type;
	if ((err = wg_tag_set_name(&tag, name)) ||
	    (opts->tagger && (err = wg_tag_set_tagger(&tag, opts->tagger))) ||
	    (err = wg_tag_set_message(&tag, opts->message, strlen(opts->message))) ||
	    (err = wg_tag_serialize(&tag, &raw)))
		goto out;
	err = wg_odb_write(wg_repo_odb(repo), WG_OBJ_TAG, raw.data, raw.len, out);
out:
	wg_tag_release(&tag);
	wg_buf_release(&raw);
	return err;
}

int wg_tag_create(struct wg_repo *repo, const char *name, const char *target,
		  const struct wg_tag_create_options *opts, struct wg_oid *was,
		  struct wg_oid *out)
{
	static const struct wg_tag_create_options defaults = WG_TAG_CREATE_OPTIONS_INIT;
	struct wg_buf ref = WG_BUF_INIT;
	struct wg_oid oid, old, value;
	char hex[WG_MAX_HEXSZ + 1];
	bool exists;
	int err;

	if (!opts)
		opts = &defaults;
	if (!target)
		target = "HEAD";
	if ((err = wg_tag_name_check(name)) || (err = wg_buf_printf(&ref, "refs/tags/%s", name)))
		goto out;
	err = wg_refdb_resolve(&old, NULL, wg_repo_refdb(repo), wg_buf_cstr(&ref), 0);
	if (err && err != WG_ENOTFOUND)
		goto out;
	exists = !err;
	wg_error_clear();
	err = 0;
	if (!exists)
		wg_oid_null(&old, wg_repo_algo(repo));
	if (was)
		*was = old;
	if (exists && !opts->force) {
		err = wg_error_set(WG_EEXISTS, "tag '%s' already exists", name);
		goto out;
	}
	err = wg_revparse(&oid, repo, target);
	if (err == WG_ENOTFOUND || err == WG_EINVALID || err == WG_EAMBIGUOUS) {
		err = wg_error_set(WG_ENOTFOUND, "Failed to resolve '%s' as a valid ref.", target);
		goto out;
	}
	if (err)
		goto out;
	/* git's ref update refuses an object it does not have. */
	if (wg_odb_exists(wg_repo_odb(repo), &oid) != 1) {
		/* (git's files backend names the ref twice, its reftable
		 * backend once) */
		bool files = wg_repo_ref_format(repo) == WG_REF_FORMAT_FILES;
		err = wg_error_set(WG_ENOTFOUND, "%s%s%strying to write ref '%s' with "
				   "nonexistent object %s", files ? "cannot update ref '" : "",
				   files ? wg_buf_cstr(&ref) : "", files ? "': " : "",
				   wg_buf_cstr(&ref), wg_oid_to_hex(&oid, hex));
		goto out;
	}
	value = oid;
	if (opts->message && (err = write_tag_object(repo, name, &oid, opts, &value)))
		goto out;
	if ((err = wg_refdb_update(wg_repo_refdb(repo), wg_buf_cstr(&ref), &value,
				   exists ? &old : NULL, 0, "tag: tagging")))
		goto out;
	if (out)
		*out = value;
out:
	wg_buf_release(&ref);
	return err;
}

int wg_tag_delete(struct wg_repo *repo, const char *name, struct wg_oid *was)
{
	struct wg_buf ref = WG_BUF_INIT;
	struct wg_ref raw;
	int err;

	memset(&raw, 0, sizeof(raw));
	if ((err = wg_buf_printf(&ref, "refs/tags/%s", name)))
		goto out;
	if (!wg_refdb_name_is_valid(wg_buf_cstr(&ref)) ||
	    wg_refdb_read(&raw, wg_repo_refdb(repo), wg_buf_cstr(&ref)) || raw.symbolic) {
		err = wg_error_set(WG_ENOTFOUND, "tag '%s' not found.", name);
		goto out;
	}
	*was = raw.oid;
	err = wg_refdb_delete(wg_repo_refdb(repo), wg_buf_cstr(&ref), &raw.oid, WG_REF_NO_DEREF,
			      NULL);
out:
	wg_ref_release(&raw);
	wg_buf_release(&ref);
	return err;
}

int wg_tag_foreach(struct wg_repo *repo, const char *const *patterns, size_t npatterns,
		   wg_tag_list_fn cb, void *payload)
{
	struct wg_ref_iter *it;
	const struct wg_ref *r;
	int err;

	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(repo), "refs/tags/")))
		return err;
	while (!(err = wg_ref_iter_next(&r, it))) {
		const char *name = r->name + 10;
		struct wg_oid oid = r->oid;
		bool match = !npatterns;
		for (size_t i = 0; i < npatterns && !match; i++)
			match = wg_wildmatch(patterns[i], name, 0);
		if (!match)
			continue;
		if (r->symbolic &&
		    wg_refdb_resolve(&oid, NULL, wg_repo_refdb(repo), r->target, 0)) {
			wg_error_clear();
			continue;
		}
		if ((err = cb(name, &oid, payload)))
			break;
	}
	wg_ref_iter_free(it);
	if (err == WG_ITEROVER) {
		wg_error_clear();
		err = 0;
	}
	return err;
}
