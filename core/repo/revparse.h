/* Revision expressions, as `git rev-parse` reads them: full and short
 * object ids, ref names in Git's lookup order, "@" for HEAD, the suffixes
 * ^, ^N, ~N, ^{type}, ^{} and ^{object}, <tree-ish>:<path>, and the
 * reflog forms <ref>@{<n>} (the value n updates ago; @{<n>}: the current
 * branch's), @{-<n>} (the n-th branch or commit checked out before) and
 * [<branch>]@{upstream} (@{u}). Reflog dates (@{yesterday}), @{push}
 * and searches (:/text) are not supported yet. */
#ifndef WG_REPO_REVPARSE_H
#define WG_REPO_REVPARSE_H

#include "repo/repo.h"

/* WG_ENOTFOUND for a name that resolves to nothing, WG_EAMBIGUOUS for a
 * short id that matches several objects, WG_EINVALID with git's message
 * for a reflog form that asks too much ("log for 'main' only has 3
 * entries", "no upstream configured for branch 'main'"). */
int wg_revparse(struct wg_oid *out, struct wg_repo *repo, const char *spec);

/* Follow tags (and, for a tree target, a commit to its tree) until an
 * object of type `want` is reached. WG_OBJ_NONE peels tags only, stopping
 * at the first non-tag. WG_EINVALID if the object cannot become `want`. */
int wg_object_peel(struct wg_oid *out, struct wg_repo *repo, const struct wg_oid *oid,
		   enum wg_object_type want);

/* Find the entry at `path` ("a/b/c") below a tree. */
int wg_tree_lookup_path(struct wg_oid *out, unsigned *mode_out, struct wg_repo *repo,
			const struct wg_oid *tree, const char *path);

#endif
