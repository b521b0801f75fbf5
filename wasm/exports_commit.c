/* The WebAssembly module's C ABI, part three: commits. Idents and commit
 * objects are formatted by core/object (ident.c, commit.c), and the log is
 * walked with core/odb's commit queue, so JavaScript neither parses nor
 * writes commit text (conventions: wasm/exports.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exports.h"
#include "hash/oidmap.h"
#include "object/commit.h"
#include "object/fsck.h"
#include "object/ident.h"
#include "odb/commit_queue.h"
#include "odb/odb.h"
#include "repo/revparse.h"
#include "util/error.h"

/* --- idents -------------------------------------------------------------------------------- */

static struct wg_buf identbuf;

/* "Name <email> <time> <zone>" as git writes an ident (wg_ident_format:
 * crud trimmed, '<', '>' and newlines dropped). `date` NULL: now in the
 * host's zone; else any form wg_date_parse() reads, e.g. "1700000000
 * +0100". NULL on error (WG_EINVALID for a bad date); the string lives
 * until the next call. */
API const char *wgjs_ident_format(const char *name, const char *email, const char *date)
{
	wg_error_clear();
	wg_buf_reset(&identbuf);
	if (wg_ident_format(&identbuf, name, email, date))
		return NULL;
	if (!identbuf.len || identbuf.data[0] == ' ') {
		wg_error_set(WG_EINVALID, "empty ident name (for <%s>) not allowed", email);
		return NULL;
	}
	return wg_buf_cstr(&identbuf);
}

/* --- writing a commit ---------------------------------------------------------------------- */

/* Store the commit of tree `tree_hex` with `nparents` parents (full hex
 * ids), the idents `author` and `committer` (as wgjs_ident_format gives
 * them) and `message` (`len` bytes of UTF-8; a final newline is added when
 * it has none, as git commit-tree -m does). What git fsck --strict would
 * reject is refused (WG_EFSCK). Its id (hex), or NULL. */
API const char *wgjs_commit_write(struct wg_repo *repo, const char *tree_hex,
				  const char *const *parents, int nparents, const char *author,
				  const char *committer, const char *message, size_t len)
{
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	struct wg_commit c;
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_oid oid;
	int err;

	wg_error_clear();
	wg_commit_init(&c);
	err = wgjs_parse_oid(&c.tree, repo, tree_hex);
	for (int i = 0; !err && i < nparents; i++) {
		struct wg_oid p;
		if (!(err = wgjs_parse_oid(&p, repo, parents[i])))
			err = wg_commit_add_parent(&c, &p);
	}
	if (!err && !(err = wg_commit_set_author(&c, author)) &&
	    !(err = wg_commit_set_committer(&c, committer)) &&
	    !(err = wg_commit_set_message(&c, message, len)) &&
	    len && message[len - 1] != '\n') {
		/* the message with its final newline */
		struct wg_buf m = WG_BUF_INIT;
		if (!(err = wg_buf_add(&m, message, len)) && !(err = wg_buf_addch(&m, '\n')))
			err = wg_commit_set_message(&c, m.data, m.len);
		wg_buf_release(&m);
	}
	fsck.strict = true;
	if (!err && !(err = wg_commit_serialize(&c, &raw)) &&
	    !(err = wg_fsck_object(&fsck, wg_repo_algo(repo), NULL, WG_OBJ_COMMIT, raw.data, raw.len)))
		err = wg_odb_write(wg_repo_odb(repo), WG_OBJ_COMMIT, raw.data, raw.len, &oid);
	wg_commit_release(&c);
	wg_buf_release(&raw);
	return err ? NULL : wgjs_hex(&oid);
}

/* --- the log ----------------------------------------------------------------------------------- */

/* A walk from one commit, newest first by committer date (git log's
 * default order; commits of equal date in the order they were met, as
 * git's queue has them). It holds ids and parsed commits only, not the
 * repository: each step is given the repository open at that moment, so
 * JavaScript can walk in batches, one repository call each. */
struct wgjs_log {
	struct wg_commit_queue queue;   /* tag: the slot of the parsed commit */
	struct wg_oidmap seen;
	struct wg_commit *slots;        /* commits read, waiting in the queue */
	size_t nslots;
	size_t *free;                   /* free slots */
	size_t nfree;
	uint32_t seq;                   /* pushes so far, for the ties */
	struct wg_buf buf;
};

/* Queue key: the date, then (for equal dates) first met first. */
static uint64_t log_key(struct wgjs_log *w, uint64_t date)
{
	const uint64_t max_date = (UINT64_C(1) << 43) - 1;
	return (date > max_date ? max_date : date) << 20 | (0xfffff - (w->seq++ & 0xfffff));
}

/* Read `oid` and queue it; a commit the repository lacks (a shallow
 * clone's boundary) ends that line quietly. */
static int log_push(struct wgjs_log *w, struct wg_repo *repo, const struct wg_oid *oid)
{
	struct wg_commit c;
	bool found;
	size_t slot;
	int err;

	if ((err = wg_commit_read(wg_repo_odb(repo), oid, &c, &w->buf, &found)) || !found) {
		wg_commit_release(&c);
		return err;
	}
	if (w->nfree) {
		slot = w->free[--w->nfree];
	} else {
		struct wg_commit *s = realloc(w->slots, (w->nslots + 1) * sizeof(*s));
		size_t *f = realloc(w->free, (w->nslots + 1) * sizeof(*f));
		if (s)
			w->slots = s;
		if (f)
			w->free = f;
		if (!s || !f) {
			wg_commit_release(&c);
			return wg_error_set(WG_ENOMEM, "out of memory in a commit walk");
		}
		slot = w->nslots++;
	}
	w->slots[slot] = c;
	if ((err = wg_commit_queue_push(&w->queue, oid, log_key(w, wg_commit_date(&c)),
					(unsigned)slot))) {
		wg_commit_release(&w->slots[slot]);
		w->free[w->nfree++] = slot;
	}
	return err;
}

API void wgjs_log_free(struct wgjs_log *w)
{
	if (!w)
		return;
	while (w->queue.nr) {
		struct wg_commit_qent e = wg_commit_queue_pop(&w->queue);
		wg_commit_release(&w->slots[e.tag]);
	}
	wg_commit_queue_release(&w->queue);
	wg_oidmap_release(&w->seen);
	free(w->slots);
	free(w->free);
	wg_buf_release(&w->buf);
	free(w);
}

/* A walk from `spec` (a revision, peeled to a commit), or NULL. */
API struct wgjs_log *wgjs_log_new(struct wg_repo *repo, const char *spec)
{
	struct wgjs_log *w;
	struct wg_oid oid, commit;

	wg_error_clear();
	if (wg_revparse(&oid, repo, spec) || wg_object_peel(&commit, repo, &oid, WG_OBJ_COMMIT))
		return NULL;
	if (!(w = calloc(1, sizeof(*w)))) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	if (wg_oidmap_set(&w->seen, &commit, 1, NULL) || log_push(w, repo, &commit)) {
		wgjs_log_free(w);
		return NULL;
	}
	return w;
}

static int add_field(struct wg_buf *out, const char *s, size_t len)
{
	int err = wg_buf_add(out, s, len);
	return err ? err : wg_buf_addch(out, '\0');
}

/* name, email, timestamp, zone; four empty fields when there is no such
 * header (or it has no email). */
static int add_ident(struct wg_buf *out, const char *value)
{
	struct wg_ident id;
	int err;

	if (!value || wg_ident_parse(&id, value, strlen(value))) {
		wg_error_clear();
		return wg_buf_add(out, "\0\0\0\0", 4);
	}
	if ((err = add_field(out, id.name, id.name_len)) ||
	    (err = add_field(out, id.email, id.email_len)))
		return err;
	if (!id.has_date)
		return wg_buf_add(out, "0\0+0000\0", 8);
	if ((err = wg_buf_printf(out, "%llu", (unsigned long long)id.timestamp)) ||
	    (err = wg_buf_addch(out, '\0')))
		return err;
	return add_field(out, id.tz, id.tz_len);
}

/* The next commit of the walk, read from `repo`: a wgjs_object whose data
 * is 11 NUL-terminated fields (id, tree, the parents' ids separated by
 * spaces, then name, email, timestamp and zone of the author and of the
 * committer) followed by the message's bytes. NULL at the end (the last
 * error code is then 0) or on error. */
API struct wgjs_object *wgjs_log_next(struct wgjs_log *w, struct wg_repo *repo)
{
	char hex[WG_MAX_HEXSZ + 1];
	struct wgjs_object *out;
	struct wg_commit_qent e;
	struct wg_commit c;
	int err = 0;

	wg_error_clear();
	if (!w->queue.nr)
		return NULL;
	e = wg_commit_queue_pop(&w->queue);
	c = w->slots[e.tag];
	w->free[w->nfree++] = e.tag;
	for (size_t i = 0; i < c.nparents && !err; i++) {
		unsigned old;
		if (!(err = wg_oidmap_set(&w->seen, &c.parents[i], 1, &old)) && !old)
			err = log_push(w, repo, &c.parents[i]);
	}
	if (!err && (out = wgjs_object_alloc(WG_OBJ_COMMIT))) {
		struct wg_buf *d = &out->data;
		if ((err = wg_buf_adds(d, wg_oid_to_hex(&e.oid, hex))) || (err = wg_buf_addch(d, '\0')) ||
		    (err = wg_buf_adds(d, wg_oid_to_hex(&c.tree, hex))) || (err = wg_buf_addch(d, '\0')))
			goto fail;
		for (size_t i = 0; i < c.nparents && !err; i++) {
			if (i)
				err = wg_buf_addch(d, ' ');
			if (!err)
				err = wg_buf_adds(d, wg_oid_to_hex(&c.parents[i], hex));
		}
		if (err || (err = wg_buf_addch(d, '\0')) || (err = add_ident(d, c.author)) ||
		    (err = add_ident(d, c.committer)) || (err = wg_buf_add(d, c.message, c.message_len)))
			goto fail;
		wg_commit_release(&c);
		return out;
fail:
		wgjs_object_free(out);
	}
	wg_commit_release(&c);
	if (!wg_error_code())
		wg_error_set(WG_ENOMEM, "out of memory");
	return NULL;
}
