/* The WebAssembly module's C ABI, part two: repositories, objects and
 * refs (conventions: wasm/exports.c). */
#include <stdlib.h>
#include <string.h>

#include "exports.h"
#include "hash/hash.h"
#include "object/fsck.h"
#include "object/tree.h"
#include "odb/odb.h"
#include "refs/refdb.h"
#include "remote/promisor_fetch.h"
#include "repo/revparse.h"
#include "util/error.h"

/* --- repositories ---------------------------------------------------------------------------- */

/* The repository whose git directory or working tree is `path`, or NULL. */
API struct wg_repo *wgjs_repo_open(const char *path)
{
	struct wg_repo *repo = NULL;

	wg_error_clear();
	if (wg_repo_open(&repo, path))
		return NULL;
	return repo;
}

/* `git init`: object_format, ref_format and branch may be NULL (SHA-256,
 * reftable, "main": Git 3.0's defaults). 0 or an error. */
API int wgjs_repo_init(const char *path, int bare, const char *object_format,
		       const char *ref_format, const char *branch)
{
	struct wg_repo_init_options opts = WG_REPO_INIT_OPTIONS_INIT;
	struct wg_repo *repo = NULL;
	int err;

	wg_error_clear();
	opts.bare = bare != 0;
	opts.object_format = object_format;
	opts.ref_format = ref_format;
	opts.initial_branch = branch;
	err = wg_repo_init(&repo, path, &opts);
	wg_repo_free(repo);
	return err;
}

API void wgjs_repo_free(struct wg_repo *repo)
{
	wg_repo_free(repo);
}

API const char *wgjs_repo_object_format(struct wg_repo *repo)
{
	return wg_repo_algo(repo)->name;
}

/* Whether a remote lazily supplies missing objects (a partial clone's
 * "origin"): 1 or 0. */
API int wgjs_repo_promisor_remote(struct wg_repo *repo)
{
	return wg_repo_promisor_remote(repo, NULL);
}

/* The object the odb last found missing (hex), or NULL if none yet. After
 * a read failed with WG_ENOTFOUND and this changed, a partial clone's
 * caller fetches it and reads again. */
API const char *wgjs_repo_last_missing(struct wg_repo *repo)
{
	const struct wg_oid *oid = wg_odb_last_missing(wg_repo_odb(repo));
	return oid && oid->algo != WG_HASH_UNKNOWN ? wgjs_hex(oid) : NULL;
}

/* `git rev-parse <spec>`: the id in hex, or NULL (WG_ENOTFOUND, ...). */
API const char *wgjs_revparse(struct wg_repo *repo, const char *spec)
{
	struct wg_oid oid;

	wg_error_clear();
	if (wg_revparse(&oid, repo, spec))
		return NULL;
	return wgjs_hex(&oid);
}

/* --- objects ------------------------------------------------------------------------------- */

static struct wgjs_object *object_read(struct wg_repo *repo, const struct wg_oid *oid)
{
	struct wgjs_object *obj = wgjs_object_alloc(WG_OBJ_NONE);

	if (!obj)
		return NULL;
	if (wg_odb_read(wg_repo_odb(repo), oid, &obj->type, &obj->data)) {
		wgjs_object_free(obj);
		return NULL;
	}
	return obj;
}

/* The object with this full hex id, or NULL (WG_ENOTFOUND, ...). */
API struct wgjs_object *wgjs_object_read(struct wg_repo *repo, const char *oid_hex)
{
	struct wg_oid oid;

	wg_error_clear();
	if (wgjs_parse_oid(&oid, repo, oid_hex))
		return NULL;
	return object_read(repo, &oid);
}

/* Store an object of type `type_name` after the checks `git hash-object`
 * makes (fsck, strict), so that what JavaScript writes `git fsck --strict`
 * accepts. Its id (hex), or NULL (WG_EFSCK with git's message, ...). */
API const char *wgjs_object_write(struct wg_repo *repo, const char *type_name,
				  const void *data, size_t len)
{
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	enum wg_object_type type;
	struct wg_oid oid;

	wg_error_clear();
	type = wg_object_type_from_name(type_name, strlen(type_name));
	if (type != WG_OBJ_COMMIT && type != WG_OBJ_TREE && type != WG_OBJ_BLOB &&
	    type != WG_OBJ_TAG) {
		wg_error_set(WG_EINVALID, "invalid object type \"%s\"", type_name);
		return NULL;
	}
	fsck.strict = true;
	if (wg_fsck_object(&fsck, wg_repo_algo(repo), NULL, type, data, len) ||
	    wg_odb_write(wg_repo_odb(repo), type, data, len, &oid))
		return NULL;
	return wgjs_hex(&oid);
}

/* The entries of a tree (a commit or tag is peeled to its tree), as a
 * wgjs_object of type "tree" whose data is, per entry,
 * "<octal mode> <type> <hex id> <name>\0" in the tree's order. NULL on error. */
API struct wgjs_object *wgjs_tree_list(struct wg_repo *repo, const char *oid_hex)
{
	struct wg_oid oid, tree;
	struct wgjs_object *raw, *list;
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	int err;

	wg_error_clear();
	if (wgjs_parse_oid(&oid, repo, oid_hex) || wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE))
		return NULL;
	if (!(raw = object_read(repo, &tree)))
		return NULL;
	if (!(list = wgjs_object_alloc(WG_OBJ_TREE))) {
		wgjs_object_free(raw);
		return NULL;
	}
	wg_tree_iter_init(&it, wg_repo_algo(repo), raw->data.data, raw->data.len);
	while (!(err = wg_tree_iter_next(&it, &e))) {
		if ((err = wg_buf_printf(&list->data, "%o %s %s ", e.mode,
					    wg_object_type_name(wg_tree_mode_type(e.mode)),
					    wgjs_hex(&e.oid))) ||
		    (err = wg_buf_add(&list->data, e.name, e.namelen)) ||
		    (err = wg_buf_addch(&list->data, '\0')))
			break;
	}
	wgjs_object_free(raw);
	if (err != WG_ITEROVER) {
		wgjs_object_free(list);
		return NULL;
	}
	return list;
}

/* Store the tree of `n` entries given in any order: octal modes
 * ("100644", "40000", ...), names and full hex ids, sorted in git's order
 * and written by the core's tree builder, after git fsck --strict's checks.
 * Its id (hex), or NULL (WG_EINVALID for a bad mode, name or id, WG_EEXISTS
 * for a name given twice, WG_EFSCK). */
API const char *wgjs_tree_write(struct wg_repo *repo, const char *const *modes,
			       const char *const *names, const char *const *oids, int n)
{
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	struct wg_tree_builder *b = NULL;
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_oid oid;
	int err;

	wg_error_clear();
	err = wg_tree_builder_new(&b, wg_repo_algo(repo));
	for (int i = 0; !err && i < n; i++) {
		char *end;
		unsigned long mode = strtoul(modes[i], &end, 8);
		if (!*modes[i] || *end || !wg_tree_mode_is_canonical((unsigned)mode))
			err = wg_error_set(WG_EINVALID, "bad mode '%s' for '%s'", modes[i], names[i]);
		else if (!(err = wgjs_parse_oid(&oid, repo, oids[i])))
			err = wg_tree_builder_add(b, (unsigned)mode, names[i], strlen(names[i]), &oid);
	}
	fsck.strict = true;
	if (!err && !(err = wg_tree_builder_write(b, &raw)) &&
	    !(err = wg_fsck_object(&fsck, wg_repo_algo(repo), NULL, WG_OBJ_TREE, raw.data, raw.len)))
		err = wg_odb_write(wg_repo_odb(repo), WG_OBJ_TREE, raw.data, raw.len, &oid);
	wg_tree_builder_free(b);
	wg_buf_release(&raw);
	return err ? NULL : wgjs_hex(&oid);
}

/* --- refs ---------------------------------------------------------------------------------- */

/* The refs whose names start with `prefix` (NULL: every ref under refs/),
 * sorted by name, as a buffer of "<name>\0<hex id or empty>\0<symref
 * target or empty>\0<peeled hex or empty>\0" records. NULL on error. */
API struct wgjs_object *wgjs_refs_list(struct wg_repo *repo, const char *prefix)
{
	struct wgjs_object *list;
	struct wg_ref_iter *it = NULL;
	const struct wg_ref *ref;
	char oid_hex[WG_MAX_HEXSZ + 1], peeled_hex[WG_MAX_HEXSZ + 1];
	int err;

	wg_error_clear();
	if (!(list = wgjs_object_alloc(WG_OBJ_NONE)))
		return NULL;
	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(repo), prefix))) {
		wgjs_object_free(list);
		return NULL;
	}
	while (!(err = wg_ref_iter_next(&ref, it))) {
		const char *fields[] = {
			ref->name, ref->symbolic ? NULL : wg_oid_to_hex(&ref->oid, oid_hex),
			ref->symbolic ? ref->target : NULL,
			ref->has_peeled ? wg_oid_to_hex(&ref->peeled, peeled_hex) : NULL,
		};
		if ((err = wgjs_record_add(list, fields, 4)))
			break;
	}
	wg_ref_iter_free(it);
	if (err != WG_ITEROVER) {
		wgjs_object_free(list);
		return NULL;
	}
	return list;
}

/* The ref a symbolic ref names ("HEAD" -> "refs/heads/main"), or NULL
 * (WG_ENOTFOUND; WG_EINVALID when `name` is not symbolic). */
API struct wgjs_object *wgjs_ref_target(struct wg_repo *repo, const char *name)
{
	struct wg_ref ref = { 0 };
	struct wgjs_object *out;

	wg_error_clear();
	if (wg_refdb_read(&ref, wg_repo_refdb(repo), name))
		return NULL;
	if (!ref.symbolic) {
		wg_error_set(WG_EINVALID, "'%s' is not a symbolic ref", name);
		wg_ref_release(&ref);
		return NULL;
	}
	if ((out = wgjs_object_alloc(WG_OBJ_NONE)) && wg_buf_adds(&out->data, ref.target)) {
		wgjs_object_free(out);
		out = NULL;
	}
	wg_ref_release(&ref);
	return out;
}

/* Set `name` to `new_hex` (a null id deletes it), like `git update-ref -m
 * message name new [old]`: old_hex NULL checks nothing, "" requires that
 * the ref does not exist, an id requires that value. `committer` ("Name
 * <email> <time> <tz>", may be NULL) is the reflog identity. 0 or an error
 * (git's messages: "cannot lock ref ...: is at X but expected Y"). */
API int wgjs_ref_update(struct wg_repo *repo, const char *name, const char *new_hex,
			const char *old_hex, const char *message, const char *committer)
{
	struct wg_ref_transaction *tx = NULL;
	struct wg_oid new_oid, old_oid;
	int err;

	wg_error_clear();
	if ((err = wgjs_parse_oid(&new_oid, repo, new_hex)))
		return err;
	if (old_hex && *old_hex && (err = wgjs_parse_oid(&old_oid, repo, old_hex)))
		return err;
	if (old_hex && !*old_hex)
		wg_oid_null(&old_oid, wg_repo_algo(repo));
	if ((err = wg_ref_transaction_new(&tx, wg_repo_refdb(repo))))
		return err;
	if (!(committer && (err = wg_ref_transaction_set_committer(tx, committer))) &&
	    !(err = wg_ref_transaction_update(tx, name, &new_oid, old_hex ? &old_oid : NULL, 0,
					      message)))
		err = wg_ref_transaction_commit(tx);
	wg_ref_transaction_free(tx);
	return err;
}
