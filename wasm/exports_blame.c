/* The WebAssembly module's C ABI: blame. The core places every line
 * (core/history/blame.h); this hands its groups to JavaScript as one
 * listing (conventions: wasm/exports.c). */
#include <stdio.h>
#include <string.h>

#include "exports.h"
#include "history/blame.h"
#include "history/blame_missing.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "worktree/worktree_blame.h"

/* The blobs a blame of `path` at `spec` will read that a partial clone
 * lacks, as far as trees show them now (history/blame_missing.h): a
 * listing of hex ids (wgjs_oid_list) to fetch in one request, then ask
 * again until it is empty. NULL on error. */
API struct wgjs_object *wgjs_blame_missing(struct wg_repo *repo, const char *spec,
					   const char *path)
{
	struct wg_oid oid, commit, *oids;
	struct wgjs_object *list;
	size_t n;

	wg_error_clear();
	if (wg_revparse(&oid, repo, spec) || wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT) ||
	    wg_blame_missing(&oids, &n, repo, &commit, path))
		return NULL;
	list = wgjs_oid_list(oids, n);
	wg_free(oids);
	return list;
}

/* The email of a "<...>" as git blame shows it, without the brackets,
 * into `out`. */
static const char *bare_mail(struct wg_buf *out, const char *mail)
{
	size_t len = strlen(mail);

	wg_buf_reset(out);
	if (len >= 2 && mail[0] == '<' && mail[len - 1] == '>')
		wg_buf_add(out, mail + 1, len - 2);
	else
		wg_buf_adds(out, mail);
	return wg_buf_cstr(out);
}

/* Blame `path` at `spec` (a revision, peeled to a commit; NULL: the
 * working tree's version, as git blame <path>, its uncommitted lines
 * those of the commit whose id is all zeros), with -M
 * (moves: 0 off, else on; move_score 0: git's default) and -C given
 * `copies` times (copy_score 0: git's default): a listing with one record
 * of 17 fields per group of lines, in line order: commit id, first line
 * (1-based), line count, the line in the commit's version, the path
 * there, "1" for a boundary commit (else ""), the author's name, email,
 * time and zone, the committer's, the subject line, and the previous
 * version's commit id and path (or "" and ""). NULL on error. */
API struct wgjs_object *wgjs_blame(struct wg_repo *repo, const char *spec, const char *path,
				   int moves, int move_score, int copies, int copy_score)
{
	struct wg_blame_options opts = { 0 };
	struct wg_blame b;
	struct wg_oid oid, commit;
	struct wgjs_object *out = NULL;
	struct wg_buf amail = WG_BUF_INIT, cmail = WG_BUF_INIT;
	int err;

	wg_error_clear();
	if (move_score < 0 || copy_score < 0 || copies < 0 || copies > 3) {
		wg_error_set(WG_EINVALID, "blame: bad move or copy options");
		return NULL;
	}
	opts.moves = moves != 0;
	opts.move_score = (unsigned)move_score;
	opts.copies = (unsigned)copies;
	opts.copy_score = (unsigned)copy_score;
	if (spec && (wg_revparse(&oid, repo, spec) ||
		     wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT)))
		return NULL;
	if (spec) {
		err = wg_blame_run(&b, repo, &commit, path, &opts);
	} else {
		bool from_worktree;
		err = wg_worktree_blame(&b, repo, path, &opts, &from_worktree);
	}
	if (err || !(out = wgjs_object_alloc(WG_OBJ_NONE)))
		goto out;
	for (size_t i = 0; i < b.nentries && !err; i++) {
		const struct wg_blame_entry *e = &b.entries[i];
		const struct wg_blame_origin *o = &b.origins[e->origin];
		const struct wg_blame_commit *c = &b.commits[o->commit];
		char hex[WG_MAX_HEXSZ + 1], prev[WG_MAX_HEXSZ + 1], num[5][24];
		const char *f[17];

		snprintf(num[0], sizeof(num[0]), "%ld", e->lno + 1);
		snprintf(num[1], sizeof(num[1]), "%ld", e->num_lines);
		snprintf(num[2], sizeof(num[2]), "%ld", e->s_lno + 1);
		f[0] = wg_oid_to_hex(&c->oid, hex);
		f[1] = num[0];
		f[2] = num[1];
		f[3] = num[2];
		f[4] = o->path;
		f[5] = c->boundary ? "1" : "";
		f[6] = c->author.name;
		f[7] = bare_mail(&amail, c->author.mail);
		snprintf(num[3], sizeof(num[3]), "%llu", (unsigned long long)c->author.time);
		f[8] = num[3];
		f[9] = c->author.tz;
		f[10] = c->committer.name;
		f[11] = bare_mail(&cmail, c->committer.mail);
		snprintf(num[4], sizeof(num[4]), "%llu", (unsigned long long)c->committer.time);
		f[12] = num[4];
		f[13] = c->committer.tz;
		f[14] = c->summary;
		f[15] = o->has_previous ? wg_oid_to_hex(&o->previous_commit, prev) : "";
		f[16] = o->has_previous ? o->previous_path : "";
		err = wgjs_record_add(out, f, 17);
	}
out:
	wg_blame_release(&b);
	wg_buf_release(&amail);
	wg_buf_release(&cmail);
	if (err && out) {
		wgjs_object_free(out);
		out = NULL;
	}
	return out;
}
