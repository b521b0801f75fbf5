/* The WebAssembly module's C ABI: diffs between revisions, for js/diff.js.
 * core/diff/rev_diff.h does every step (the tree diff, the blobs a partial
 * clone lacks, renames, each file's patch); this file hands each file to
 * JavaScript as git's patch text plus records that point into it, so the
 * structured hunks and the text are one walk (conventions:
 * wasm/exports.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/rev_diff.h"
#include "exports.h"
#include "object/object.h"
#include "odb/memory_backend.h"
#include "repo/revparse.h"
#include "worktree/index_file.h"
#include "worktree/worktree_diff.h"
#include "util/alloc.h"
#include "util/error.h"

#define REC_WORDS 7           /* u32 words per hunk or line record */
#define REC_HUNK 1            /* a line record's kind is its type: ' ', '-', '+' */

/* One diff between two revisions, walked file by file. Like the log walk
 * it holds no repository: each call is given the one open at the time. */
struct wgjs_diff {
	struct wg_rev_diff diff;
	size_t next;                  /* the next file to hand out */
	struct wg_buf a, b;           /* the two sides of the file at hand */
};

API void wgjs_diff_free(struct wgjs_diff *d)
{
	if (!d)
		return;
	wg_rev_diff_release(&d->diff);
	wg_buf_release(&d->a);
	wg_buf_release(&d->b);
	free(d);
}

/* The diff from `from` (NULL: to's first parent, or the empty tree) to
 * `to`, limited to `npaths` paths (none: all), with renames (`renames`
 * 1; 2 copies too, -C; 3 copies harder, -C -C; 0 none), `context` and `inter_hunk` lines of context and the
 * algorithm named `algorithm` (NULL: git's default). NULL on error; a tree
 * a partial clone lacks is WG_ENOTFOUND with the repository's last
 * missing id set, for a lazy fetch. */
/* The options both kinds of diff take; 0 or an error code. */
static int diff_options(struct wg_rev_diff_options *o, const char *const *paths, int npaths,
			int renames, int context, int inter_hunk, const char *algorithm)
{
	if (context < 0 || inter_hunk < 0 || npaths < 0)
		return wg_error_set(WG_EINVALID, "context lines and paths cannot be negative");
	if (algorithm && wg_diff_algorithm_parse(algorithm, &o->algorithm))
		return WG_EINVALID;
	o->paths = paths;
	o->npaths = (size_t)npaths;
	o->renames = renames != 0;
	o->copies = renames == 3 ? WG_COPIES_HARDER : renames == 2 ? WG_COPIES_MODIFIED
								   : WG_COPIES_NONE;
	o->hunks.context = context;
	o->hunks.inter_hunk = inter_hunk;
	return 0;
}

API struct wgjs_diff *wgjs_diff_new(struct wg_repo *repo, const char *from, const char *to,
				    const char *const *paths, int npaths, int renames, int context,
				    int inter_hunk, const char *algorithm)
{
	struct wg_rev_diff_options o = WG_REV_DIFF_OPTIONS_INIT;
	struct wgjs_diff *d;

	wg_error_clear();
	if (diff_options(&o, paths, npaths, renames, context, inter_hunk, algorithm))
		return NULL;
	if (!(d = calloc(1, sizeof(*d)))) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	if (wg_rev_diff_begin(&d->diff, repo, from, to ? to : "HEAD", &o)) {
		wgjs_diff_free(d);
		return NULL;
	}
	return d;
}

struct path_filter {
	const char *const *paths;
	size_t n;
};

static bool path_wanted(void *payload, const char *path)
{
	const struct path_filter *f = payload;
	return wg_diff_path_in(f->paths, f->n, path);
}

/* The diff with the index or the working tree as a side (kind: 0 the
 * index to the working tree, git diff; 1 `from` to the index, git diff
 * --cached; 2 `from` to the working tree, git diff <from>); `from` NULL
 * is HEAD, and an unborn HEAD the empty tree. The working tree's versions
 * of changed files are held in memory, seen through the repository's
 * object database for this diff only (odb/memory_backend.h). Then as
 * wgjs_diff_new. */
API struct wgjs_diff *wgjs_diff_new_worktree(struct wg_repo *repo, int kind, const char *from,
					     const char *const *paths, int npaths, int renames,
					     int context, int inter_hunk, const char *algorithm)
{
	struct wg_rev_diff_options o = WG_REV_DIFF_OPTIONS_INIT;
	struct wg_worktree_diff_options wo = { path_wanted, NULL, NULL };
	struct wg_diff_changes changes = { 0 };
	struct path_filter filter;
	struct wg_memory_backend *pretend = NULL;
	struct wg_index *ix = NULL;
	struct wg_oid tree;
	bool has_tree = false;
	struct wgjs_diff *d = NULL;
	int err;

	wg_error_clear();
	if (kind < WG_WORKTREE_DIFF_FILES || kind > WG_WORKTREE_DIFF_TREE) {
		wg_error_set(WG_EINVALID, "no such diff kind %d", kind);
		return NULL;
	}
	if (diff_options(&o, paths, npaths, renames, context, inter_hunk, algorithm))
		return NULL;
	if (kind != WG_WORKTREE_DIFF_FILES) {
		struct wg_oid oid;
		if (!wg_revparse(&oid, repo, from ? from : "HEAD")) {
			if (wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE))
				return NULL;
			has_tree = true;
		} else if (from || kind == WG_WORKTREE_DIFF_TREE) {
			return NULL;
		}
		wg_error_clear();   /* an unborn HEAD: the empty tree, as git */
	}
	filter.paths = paths;
	filter.n = (size_t)npaths;
	wo.payload = &filter;
	if ((err = wg_repo_index_read(&ix, repo, NULL)))
		return NULL;
	if (kind != WG_WORKTREE_DIFF_CACHED) {
		if ((err = wg_memory_backend_attach(&pretend, wg_repo_odb(repo))))
			goto out;
		wo.pretend = pretend;
	}
	if ((err = wg_worktree_diff_changes(&changes, repo, ix, (enum wg_worktree_diff_kind)kind,
					    has_tree ? &tree : NULL, &wo)))
		goto out;
	if (!(d = calloc(1, sizeof(*d)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	wg_rev_diff_begin_changes(&d->diff, repo, &changes, &o);
out:
	wg_diff_changes_release(&changes);
	wg_index_free(ix);
	if (err && !wg_error_code())
		wg_error_set(err, "diff failed");
	return err ? NULL : d;
}

/* The blobs the diff will read that the repository lacks: a listing of
 * hex ids (wgjs_oid_list), to fetch in one request before
 * wgjs_diff_renames. */
API struct wgjs_object *wgjs_diff_missing(struct wgjs_diff *d, struct wg_repo *repo)
{
	struct wgjs_object *list;
	struct wg_oid *oids;
	size_t n;

	wg_error_clear();
	if (wg_rev_diff_missing(&d->diff, wg_repo_odb(repo), &oids, &n))
		return NULL;
	list = wgjs_oid_list(oids, n);
	wg_free(oids);
	return list;
}

/* Pair renames (once). 0 or an error code. */
API int wgjs_diff_renames(struct wgjs_diff *d, struct wg_repo *repo)
{
	wg_error_clear();
	return wg_rev_diff_renames(&d->diff, repo);
}

/* How the records of one file are collected while its patch is printed. */
struct file_sink {
	struct wg_buf *patch;   /* the file's patch text so far */
	struct wg_buf recs;     /* REC_WORDS little-endian u32 each */
	size_t added, deleted;
};

static int add_rec(struct file_sink *s, const uint32_t w[REC_WORDS])
{
	unsigned char b[REC_WORDS * 4];
	for (size_t i = 0; i < REC_WORDS; i++) {
		b[i * 4] = (unsigned char)w[i];
		b[i * 4 + 1] = (unsigned char)(w[i] >> 8);
		b[i * 4 + 2] = (unsigned char)(w[i] >> 16);
		b[i * 4 + 3] = (unsigned char)(w[i] >> 24);
	}
	return wg_buf_add(&s->recs, b, sizeof(b));
}

/* [1, old start, old lines, new start, new lines, function text's offset
 * in the patch, its length]; called before the header is printed */
static int sink_hunk(void *payload, const struct wg_hunk *h)
{
	struct file_sink *s = payload;
	uint32_t w[REC_WORDS] = { REC_HUNK, (uint32_t)h->old_start, (uint32_t)h->old_count,
				  (uint32_t)h->new_start, (uint32_t)h->new_count,
				  (uint32_t)(s->patch->len + h->func_at), (uint32_t)h->func_len };
	return add_rec(s, w);
}

/* [type, old number, new number, no newline at end, 0, text's offset in
 * the patch (after the type), its length without the newline] */
static int sink_line(void *payload, char type, const struct wg_line *l, long old_no, long new_no)
{
	struct file_sink *s = payload;
	bool eol = l->size && l->ptr[l->size - 1] == '\n';
	uint32_t w[REC_WORDS] = { (uint32_t)(unsigned char)type, (uint32_t)old_no, (uint32_t)new_no,
				  !eol, 0, (uint32_t)(s->patch->len + 1),
				  (uint32_t)(l->size - (eol ? 1 : 0)) };
	if (type == '+')
		s->added++;
	else if (type == '-')
		s->deleted++;
	return add_rec(s, w);
}

static int add_field(struct wg_buf *out, const char *s)
{
	return wg_buf_add(out, s, strlen(s) + 1);
}

static int add_number(struct wg_buf *out, const char *fmt, unsigned long n)
{
	char num[32];
	snprintf(num, sizeof(num), fmt, n);
	return add_field(out, num);
}

/* The next file of the diff, read from `repo`: a wgjs_object whose data
 * is 13 NUL-terminated fields (status, old path, new path, old mode and
 * new mode in octal, old id, new id (absent sides: empty), similarity in
 * percent (R: else empty), binary "1"/"0", additions and deletions as
 * --numstat counts them (empty for a binary file), the patch's length in
 * bytes, the number of records), then the file's patch text exactly as
 * git diff prints it, then the records (REC_WORDS u32 each, little
 * endian; see sink_hunk and sink_line). NULL at the end (the last error
 * code is then 0) or on error: WG_ENOTFOUND for a blob the repository
 * lacks. */
API struct wgjs_object *wgjs_diff_next(struct wgjs_diff *d, struct wg_repo *repo)
{
	struct wg_buf patch = WG_BUF_INIT, fields = WG_BUF_INIT;
	struct file_sink s = { &patch, WG_BUF_INIT, 0, 0 };
	struct wg_hunk_sink sink = { sink_hunk, sink_line, &s };
	struct wg_patch_options po = d->diff.patch;
	struct wgjs_object *out = NULL;
	const struct wg_diff_change *c;
	struct wg_diff_file f;
	char status[2];
	bool binary;
	int err;

	wg_error_clear();
	if (d->next >= d->diff.changes.n)
		return NULL;
	c = &d->diff.changes.v[d->next];
	po.odb = wg_repo_odb(repo);
	po.sink = &sink;
	if ((err = wg_rev_diff_load(&f, &d->a, &d->b, po.odb, c)) ||
	    (err = wg_diff_patch(&patch, &f, &po)))
		goto out;
	binary = wg_diff_is_binary(f.old_data, f.old_len) || wg_diff_is_binary(f.new_data, f.new_len);
	if (c->status == 'T' && !binary) {
		/* the patch is a deletion and a creation; numstat diffs the
		 * contents as one pair */
		if ((err = wg_diff_count_lines(&f, po.hunks.context, &po.lines, &s.added, &s.deleted, &binary)))
			goto out;
	}
	status[0] = c->status;
	status[1] = '\0';
	if ((err = add_field(&fields, status)) ||
	    (err = add_field(&fields, c->old_mode ? f.old_path : "")) ||
	    (err = add_field(&fields, c->new_mode ? f.new_path : "")) ||
	    (err = add_number(&fields, "%lo", c->old_mode)) ||
	    (err = add_number(&fields, "%lo", c->new_mode)) ||
	    (err = add_field(&fields, c->old_mode ? wgjs_hex(&c->old_oid) : "")) ||
	    (err = add_field(&fields, c->new_mode ? wgjs_hex(&c->new_oid) : "")))
		goto out;
	if (c->status == 'R' || c->status == 'C')
		err = add_number(&fields, "%lu",
				 (unsigned long)((long)c->score * 100 / WG_RENAME_MAX_SCORE));
	else
		err = wg_buf_addch(&fields, '\0');
	if (err || (err = add_field(&fields, binary ? "1" : "0")))
		goto out;
	if (binary)
		err = wg_buf_add(&fields, "\0\0", 2);
	else
		if (!(err = add_number(&fields, "%lu", s.added)))
			err = add_number(&fields, "%lu", s.deleted);
	if (err || (err = add_number(&fields, "%lu", patch.len)) ||
	    (err = add_number(&fields, "%lu", s.recs.len / (REC_WORDS * 4))))
		goto out;
	if (!(out = wgjs_object_alloc(WG_OBJ_NONE))) {
		err = WG_ENOMEM;
		goto out;
	}
	if ((err = wg_buf_add(&out->data, fields.data, fields.len)) ||
	    (err = wg_buf_add(&out->data, patch.data, patch.len)) ||
	    (err = wg_buf_add(&out->data, s.recs.data, s.recs.len))) {
		wgjs_object_free(out);
		out = NULL;
		goto out;
	}
	d->next++;
out:
	wg_buf_release(&patch);
	wg_buf_release(&fields);
	wg_buf_release(&s.recs);
	wg_buf_reset(&d->a);
	wg_buf_reset(&d->b);
	if (err && !wg_error_code())
		wg_error_set(err, "diff failed");
	return out;
}
