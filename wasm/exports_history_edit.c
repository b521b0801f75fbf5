/* The WebAssembly module's C ABI: history edits, reword and split with
 * their descendants rewritten (core/worktree/history_edit.h; conventions:
 * wasm/exports.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exports.h"
#include "hash/hash.h"
#include "util/error.h"
#include "util/pathspec.h"
#include "worktree/history_edit.h"

/* Reword (split 0) or split `commit_hex` (a full id). message (len
 * bytes): the reword's message, or the split's second commit's (NULL:
 * the commit's own); first_message (first_len bytes, NULL: the commit's
 * own), the pathspec `paths` (npaths items, from the top) and parts of
 * files: the split's first commit. The parts are the files
 * `hunk_paths` (nhunk_paths) and `hunk_words`: for each file in turn,
 * its count of hunks, then their numbers (wg_split_hunks). `committer`
 * as wgjs_ident_format gives it. A listing of
 * records of three fields: ("commit", old id, new id) for each commit
 * rewritten, parents first; ("first", id, "") for a split's first commit;
 * ("ref", name, "") for each ref moved. NULL on error. */
API struct wgjs_object *wgjs_history_edit(struct wg_repo *repo, int split, const char *commit_hex,
					  const char *message, size_t len,
					  const char *first_message, size_t first_len,
					  const char **paths, uint32_t npaths,
					  const char **hunk_paths, uint32_t nhunk_paths,
					  const uint32_t *hunk_words, uint32_t nwords,
					  const char *committer, int allow_published)
{
	struct wg_split_hunks *hunks = NULL;
	struct wg_history_edit_options opts = { 0 };
	struct wg_history_rewrite rw = { 0 };
	struct wg_pathspec ps = { 0 };
	struct wgjs_object *out = NULL;
	struct wg_oid commit;
	char a[WG_MAX_HEXSZ + 1], b[WG_MAX_HEXSZ + 1];
	int err;

	wg_error_clear();
	if ((err = wgjs_parse_oid(&commit, repo, commit_hex)))
		return NULL;
	opts.committer = committer;
	opts.allow_published = allow_published != 0;
	opts.message = message;
	opts.message_len = message ? len : 0;
	if (split) {
		uint32_t at = 0;
		if (nhunk_paths && !(hunks = calloc(nhunk_paths, sizeof(*hunks)))) {
			wg_error_set(WG_ENOMEM, "out of memory");
			return NULL;
		}
		for (uint32_t i = 0; i < nhunk_paths; i++) {
			if (at >= nwords || hunk_words[at] > nwords - at - 1) {
				wg_error_set(WG_EINVALID, "split: the hunks of '%s' are cut short",
					     hunk_paths[i]);
				goto out;
			}
			hunks[i].path = hunk_paths[i];
			hunks[i].n = hunk_words[at];
			hunks[i].hunks = hunk_words + at + 1;
			at += 1 + hunk_words[at];
		}
		opts.hunks = hunks;
		opts.nhunks = nhunk_paths;
		if ((err = wg_pathspec_init(&ps, "", paths, npaths)))
			goto out;
		opts.paths = &ps;
		opts.first_message = first_message;
		opts.first_message_len = first_message ? first_len : 0;
		err = wg_history_split(&rw, repo, &commit, &opts);
	} else {
		err = wg_history_reword(&rw, repo, &commit, &opts);
	}
	if (err || !(out = wgjs_object_alloc(WG_OBJ_BLOB)))
		goto out;
	for (size_t i = 0; i < rw.nr && !err; i++) {
		const char *f[3] = { "commit", wg_oid_to_hex(&rw.old_ids[i], a),
				     wg_oid_to_hex(&rw.new_ids[i], b) };
		err = wgjs_record_add(out, f, 3);
	}
	if (!err && split) {
		const char *f[3] = { "first", wg_oid_to_hex(&rw.first, a), NULL };
		err = wgjs_record_add(out, f, 3);
	}
	for (size_t i = 0; i < rw.nrefs && !err; i++) {
		const char *f[3] = { "ref", rw.refs[i], NULL };
		err = wgjs_record_add(out, f, 3);
	}
	if (err) {
		wgjs_object_free(out);
		out = NULL;
	}
out:
	wg_history_rewrite_release(&rw);
	wg_pathspec_release(&ps);
	free(hunks);
	return out;
}
