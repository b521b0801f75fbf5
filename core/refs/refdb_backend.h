/* The ref database's backend interface: what a ref storage implements
 * (refs_files.c, refs_reftable_backend.c) and the helpers they share. The
 * public API is refdb.h; only backends include this header (as libgit2's
 * sys/ headers), so callers cannot reach past the refdb into a backend.
 *
 * MUST rules for a backend:
 *   - read/iter return what a committed transaction left, never a half-
 *     applied one (iterators may see a later snapshot, never a torn one);
 *   - prepare takes every lock and checks every expectation (with
 *     wg_ref_update_check) before anything is written; after a failed
 *     prepare, or abort, nothing has changed and no lock is left;
 *   - finish makes all the prepared updates visible, or reports an error;
 *   - pack and verify change no ref's value. */
#ifndef WG_REFS_REFDB_BACKEND_H
#define WG_REFS_REFDB_BACKEND_H

#include "refs/refdb.h"

/* A backend embeds `struct wg_refdb_backend` first. The refdb checks names,
 * splits symref updates (an update of HEAD -> refs/heads/main becomes an
 * update of refs/heads/main plus a LOG_ONLY update of HEAD, and an update
 * of the branch HEAD names gets a LOG_ONLY update of HEAD as git does), sorts
 * the updates by name and refuses duplicates before calling prepare. */

struct wg_ref_update {
	char *name;
	unsigned flags;
	struct wg_oid new_oid;       /* WG_REF_HAVE_NEW (null: delete) */
	struct wg_oid old_oid;       /* WG_REF_HAVE_OLD (null: must not exist) */
	char *new_target;            /* symref update */
	char *old_target;            /* symref expectation */
	char *msg;                   /* normalised reflog message ("" if none) */
	struct wg_ref_update *parent;/* the update a LOG_ONLY entry mirrors */
	/* Filled by prepare: the value before the transaction (null if none),
	 * used for the reflog's old id. */
	struct wg_oid current;
	bool current_symbolic;
	void *backend_data;
};

struct wg_ref_transaction {
	struct wg_refdb *refdb;
	struct wg_ref_update **updates;   /* sorted by name after prepare */
	size_t nr, alloc;
	char *committer;                  /* "Name <email> time tz" */
	int state;                        /* 0 open, 1 prepared, 2 closed */
	void *backend_data;
};

struct wg_ref_iter {
	int (*next)(const struct wg_ref **out, struct wg_ref_iter *it);
	void (*free)(struct wg_ref_iter *it);
};

struct wg_reflog_iter {
	int (*next)(const struct wg_reflog_entry **out, struct wg_reflog_iter *it);
	void (*free)(struct wg_reflog_iter *it);
};

/* What wg_refdb_rename() checked and hands a backend's rename. */
struct wg_ref_rename {
	const char *old_name, *new_name;
	struct wg_oid oid;           /* old_name's value */
	bool copy;                   /* keep old_name */
	bool new_exists;             /* new_name exists (forced) */
	const char *msg;             /* normalised reflog message */
	const char *committer;       /* "Name <email> time tz" */
};

#define WG_REFDB_BACKEND_VERSION 1

struct wg_refdb_backend {
	unsigned version;
	int (*read)(struct wg_refdb_backend *b, struct wg_ref *out, const char *name);
	int (*iter)(struct wg_ref_iter **out, struct wg_refdb_backend *b, const char *prefix);
	int (*reflog_iter)(struct wg_reflog_iter **out, struct wg_refdb_backend *b,
			   const char *name, unsigned flags);
	int (*reflog_exists)(struct wg_refdb_backend *b, const char *name);
	int (*reflog_create)(struct wg_refdb_backend *b, const char *name);
	int (*reflog_delete)(struct wg_refdb_backend *b, const char *name);
	int (*prepare)(struct wg_refdb_backend *b, struct wg_ref_transaction *tx);
	int (*finish)(struct wg_refdb_backend *b, struct wg_ref_transaction *tx);
	void (*abort)(struct wg_refdb_backend *b, struct wg_ref_transaction *tx);
	int (*pack)(struct wg_refdb_backend *b, unsigned flags);
	int (*verify)(struct wg_refdb_backend *b, wg_refdb_verify_cb cb, void *payload);
	/* Rename or copy a ref and its reflog; the refdb has checked the
	 * names and values, the backend re-checks what it locks. `db` is the
	 * refdb the backend belongs to (for transactions of its own). */
	int (*rename)(struct wg_refdb_backend *b, struct wg_refdb *db,
		      const struct wg_ref_rename *r);
	void (*free)(struct wg_refdb_backend *b);
};

/* What backends share: the git directory, hash, options. */
struct wg_refdb_config {
	const char *gitdir;
	const struct wg_hash_algo *algo;
	const struct wg_refdb_options *opts;
};

int wg_refdb_files_new(struct wg_refdb_backend **out, const struct wg_refdb_config *cfg);
int wg_refdb_reftable_new(struct wg_refdb_backend **out, const struct wg_refdb_config *cfg);
int wg_refdb_files_init(const char *gitdir, const char *head_target);
int wg_refdb_reftable_init(const char *gitdir, const struct wg_hash_algo *algo,
			   const char *head_target);

/* Helpers shared by backends. */
/* Should an update of `name` write a reflog entry when none exists yet? */
bool wg_refdb_should_autocreate_reflog(const struct wg_refdb_options *opts, const char *name);
/* Parse one reflog line ("<old> <new> <ident>\t<msg>", no newline). */
int wg_reflog_parse_line(struct wg_reflog_entry *out, const struct wg_hash_algo *algo,
			 const char *line, size_t len);
void wg_reflog_entry_release(struct wg_reflog_entry *e);

/* For a backend's prepare: the name the caller used for `u` (walking back
 * from split-off updates), an error "cannot lock ref '<name>': <reason>"
 * with git's wording, and the check of u's expectations (old value, old
 * symref target, must-not-exist) against the ref as read under the lock:
 * `cur` is its raw value (symbolic or not), `exists` whether it exists,
 * and u->current its resolved value (null if none). */
const char *wg_ref_update_original_name(const struct wg_ref_transaction *tx,
					const struct wg_ref_update *u);
int wg_ref_update_error(const struct wg_ref_transaction *tx, const struct wg_ref_update *u,
			int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
int wg_ref_update_check(const struct wg_ref_transaction *tx, const struct wg_ref_update *u,
			const struct wg_ref *cur, bool exists);
/* In a prepared transaction (updates sorted): the update of the first
 * `len` bytes of `name`, and whether it deletes that ref. */
struct wg_ref_update *wg_ref_transaction_find(const struct wg_ref_transaction *tx,
					      const char *name, size_t len);
bool wg_ref_transaction_deletes(const struct wg_ref_transaction *tx, const char *name,
				size_t len);

#endif
