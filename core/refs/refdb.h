/* The ref database: reading, iterating, reflogs and transactions over a
 * repository's ref storage, with the backend chosen by extensions.refStorage
 * ("files": loose refs + packed-refs, or "reftable").
 *
 * Semantics follow Git (refs.c, refs/files-backend.c):
 *  - names are checked as `git check-ref-format` does; outside refs/ only
 *    HEAD and root refs (ALL_CAPS with '_', e.g. FETCH_HEAD) are accepted;
 *  - symbolic refs are followed at most WG_SYMREF_MAX_DEPTH levels;
 *  - a transaction locks every ref it touches, checks every expected old
 *    value, and only then writes; any failure leaves everything as it was;
 *  - reflogs are appended as core.logAllRefUpdates says (git's defaults).
 *
 * Error messages use git's wording ("cannot lock ref 'X': is at A but
 * expected B") so a CLI can print them after "fatal: ". */
#ifndef WG_REFS_REFDB_H
#define WG_REFS_REFDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/oid.h"

enum wg_ref_format {
	WG_REF_FORMAT_FILES = 1,
	WG_REF_FORMAT_REFTABLE = 2,
};

/* Git follows at most this many symbolic refs (SYMREF_MAXDEPTH). */
#define WG_SYMREF_MAX_DEPTH 5

/* core.logAllRefUpdates */
enum wg_log_refs {
	WG_LOG_REFS_NONE = 0,    /* "false": only refs whose reflog exists */
	WG_LOG_REFS_NORMAL = 1,  /* "true": also HEAD, refs/heads, remotes, notes */
	WG_LOG_REFS_ALWAYS = 2,  /* "always": every ref */
};

/* Fully peel `oid` if it names an annotated tag: return 1 with *out set to
 * the first non-tag object, 0 if it is not a tag, <0 on error. The refdb
 * uses it to write ^peeled lines (pack-refs); the repository supplies one
 * backed by its object database. */
typedef int (*wg_refdb_peel_fn)(struct wg_oid *out, const struct wg_oid *oid, void *payload);

struct wg_refdb_options {
	unsigned version;
	enum wg_log_refs log_all_ref_updates;
	/* Reflog identity ("Name <email> <time> <tz>"). NULL name/email: the
	 * name "unknown" and an empty email. NULL date: now, in local time;
	 * otherwise any form wg_date_parse() accepts (GIT_COMMITTER_DATE). */
	const char *committer_name;
	const char *committer_email;
	const char *committer_date;
	wg_refdb_peel_fn peel;
	void *peel_payload;
	bool fsync;                  /* fsync ref files before renaming */
};
#define WG_REFDB_OPTIONS_VERSION 1
#define WG_REFDB_OPTIONS_INIT { WG_REFDB_OPTIONS_VERSION, WG_LOG_REFS_NORMAL, \
				NULL, NULL, NULL, NULL, NULL, false }

struct wg_refdb;

struct wg_ref {
	char *name;
	bool symbolic;
	char *target;          /* for a symbolic ref */
	struct wg_oid oid;     /* for a direct ref */
	bool has_peeled;
	struct wg_oid peeled;  /* what an annotated tag points at, if known */
};

/* Open the ref storage of the git directory `gitdir` (opts may be NULL; the
 * strings are copied). The reftable backend needs $GIT_DIR/reftable. */
int wg_refdb_open(struct wg_refdb **out, const char *gitdir, enum wg_ref_format format,
		  const struct wg_hash_algo *algo, const struct wg_refdb_options *opts);
void wg_refdb_free(struct wg_refdb *refdb);
const struct wg_hash_algo *wg_refdb_algo(const struct wg_refdb *refdb);
enum wg_ref_format wg_refdb_format(const struct wg_refdb *refdb);

/* Create the empty storage for a new repository with HEAD -> `head_target`
 * ("refs/heads/main"): the files layout (HEAD, refs/heads, refs/tags) or
 * git's reftable layout (HEAD "ref: refs/heads/.invalid", a refs/heads
 * file, reftable/tables.list and a table holding the HEAD symref). An
 * existing HEAD is kept (re-init). */
int wg_refdb_init(const char *gitdir, enum wg_ref_format format,
		  const struct wg_hash_algo *algo, const char *head_target);

/* Is `name` acceptable as a ref to read or write here: "HEAD", a root ref
 * (FETCH_HEAD, ORIG_HEAD...), or a valid name under refs/? */
bool wg_refdb_name_is_valid(const char *name);

/* --- reading ----------------------------------------------------------- */

/* Read one ref without following symrefs. WG_ENOTFOUND if absent. */
int wg_refdb_read(struct wg_ref *out, struct wg_refdb *refdb, const char *name);
void wg_ref_release(struct wg_ref *ref);

/* Follow symrefs to an object id. resolved_name (may be NULL) receives the
 * name of the last ref in the chain (free with wg_free). Without
 * WG_RESOLVE_ALLOW_MISSING an unborn branch (HEAD -> refs/heads/main that
 * does not exist) is WG_ENOTFOUND; with it, the result is 0 with the null
 * id and resolved_name "refs/heads/main" (git's resolve_ref without
 * RESOLVE_REF_READING). */
#define WG_RESOLVE_ALLOW_MISSING 1u
int wg_refdb_resolve(struct wg_oid *out, char **resolved_name, struct wg_refdb *refdb,
		     const char *name, unsigned flags);

/* --- iteration --------------------------------------------------------- */

struct wg_ref_iter;

/* Refs whose names start with `prefix` (NULL or "": every ref under
 * refs/), sorted by name (byte order), loose refs overriding packed ones.
 * Peeled values are filled in when the storage knows them. */
int wg_refdb_iter_new(struct wg_ref_iter **out, struct wg_refdb *refdb, const char *prefix);
/* *out stays valid until the next call or the free. */
int wg_ref_iter_next(const struct wg_ref **out, struct wg_ref_iter *it);
void wg_ref_iter_free(struct wg_ref_iter *it);

/* --- reflogs ----------------------------------------------------------- */

struct wg_reflog_entry {
	struct wg_oid old_oid;
	struct wg_oid new_oid;
	char *committer;       /* "Name <email>" */
	int64_t time;
	int tz;                /* minutes east of UTC */
	char *message;         /* without the trailing newline; "" if none */
};

struct wg_reflog_iter;

#define WG_REFLOG_OLDEST_FIRST 1u
/* Entries of the reflog of `name`, newest first (git reflog order) unless
 * WG_REFLOG_OLDEST_FIRST. WG_ENOTFOUND if the ref has no reflog. */
int wg_reflog_iter_new(struct wg_reflog_iter **out, struct wg_refdb *refdb, const char *name,
		       unsigned flags);
int wg_reflog_iter_next(const struct wg_reflog_entry **out, struct wg_reflog_iter *it);
void wg_reflog_iter_free(struct wg_reflog_iter *it);
/* 1 if a reflog exists, 0 if not, <0 on error. */
int wg_refdb_reflog_exists(struct wg_refdb *refdb, const char *name);
/* Create an empty reflog (git reflog --create / update-ref --create-reflog). */
int wg_refdb_reflog_create(struct wg_refdb *refdb, const char *name);
int wg_refdb_reflog_delete(struct wg_refdb *refdb, const char *name);

/* --- transactions ------------------------------------------------------ */

enum wg_ref_update_flags {
	WG_REF_NO_DEREF = 1u << 0,        /* update a symref itself, not its target */
	WG_REF_FORCE_REFLOG = 1u << 1,    /* create a reflog even if not logging */
	WG_REF_SKIP_REFLOG = 1u << 2,     /* write no reflog entry (git clone's
					   * remote-tracking refs and tags) */
	/* Set by the refdb and backends (visible for backend writers): */
	WG_REF_HAVE_NEW = 1u << 8,
	WG_REF_HAVE_OLD = 1u << 9,
	WG_REF_LOG_ONLY = 1u << 10,       /* write only the reflog entry */
	WG_REF_DELETING = 1u << 11,
	WG_REF_VIA_HEAD = 1u << 12,       /* split off an update of HEAD */
	WG_REF_NEEDS_COMMIT = 1u << 13,
	WG_REF_LOG_VIA_SPLIT = 1u << 14,  /* the HEAD entry added for its branch */
};

struct wg_ref_transaction;

int wg_ref_transaction_new(struct wg_ref_transaction **out, struct wg_refdb *refdb);
/* Rolls back whatever is prepared and not committed. */
void wg_ref_transaction_free(struct wg_ref_transaction *tx);

/* Queue changes. new_oid NULL: keep the value (only verify); a null
 * new_oid deletes. old_oid NULL: no check; a null old_oid: the ref must
 * not exist. msg (may be NULL) is the reflog message, whitespace collapsed
 * as git does. Names are checked here (WG_EINVALID, git's message). */
int wg_ref_transaction_update(struct wg_ref_transaction *tx, const char *name,
			      const struct wg_oid *new_oid, const struct wg_oid *old_oid,
			      unsigned flags, const char *msg);
int wg_ref_transaction_create(struct wg_ref_transaction *tx, const char *name,
			      const struct wg_oid *new_oid, unsigned flags, const char *msg);
int wg_ref_transaction_delete(struct wg_ref_transaction *tx, const char *name,
			      const struct wg_oid *old_oid, unsigned flags, const char *msg);
int wg_ref_transaction_verify(struct wg_ref_transaction *tx, const char *name,
			      const struct wg_oid *old_oid, unsigned flags);
/* Make `name` a symref to `new_target` (which need not exist). old_target
 * (may be NULL) must be its current target. Updates `name` itself unless
 * it is a symref and WG_REF_NO_DEREF is absent. */
int wg_ref_transaction_symref_update(struct wg_ref_transaction *tx, const char *name,
				     const char *new_target, const char *old_target,
				     unsigned flags, const char *msg);
/* Override the reflog identity for this transaction ("Name <email> time tz"). */
int wg_ref_transaction_set_committer(struct wg_ref_transaction *tx, const char *ident);

/* Lock every ref and check every expectation; nothing visible changes. */
int wg_ref_transaction_prepare(struct wg_ref_transaction *tx);
/* Prepare if needed, then make every change visible. */
int wg_ref_transaction_commit(struct wg_ref_transaction *tx);
/* Release the locks of a prepared transaction; it may not be used again. */
void wg_ref_transaction_abort(struct wg_ref_transaction *tx);
size_t wg_ref_transaction_count(const struct wg_ref_transaction *tx);

/* Convenience: one update in its own transaction. */
int wg_refdb_update(struct wg_refdb *refdb, const char *name, const struct wg_oid *new_oid,
		    const struct wg_oid *old_oid, unsigned flags, const char *msg);
int wg_refdb_delete(struct wg_refdb *refdb, const char *name, const struct wg_oid *old_oid,
		    unsigned flags, const char *msg);
int wg_refdb_symref_update(struct wg_refdb *refdb, const char *name, const char *target,
			   const char *msg);

/* --- renaming ---------------------------------------------------------- */

#define WG_REF_RENAME_FORCE 1u   /* replace new_name if it exists */
#define WG_REF_RENAME_COPY 2u    /* keep old_name (git branch -c) */
/* Rename (or copy) the direct ref `old_name` to `new_name` with its reflog,
 * as git branch -m / -c does: the reflog moves (or is copied) along and
 * gets one more entry with `msg` ("Branch: renamed refs/heads/a to
 * refs/heads/b"); each backend writes the entries git's own backend
 * writes (files: old -> old; reftable: a deletion then a creation), and
 * HEAD's reflog records the deletion when HEAD names old_name (HEAD itself
 * is left to the caller). WG_ENOTFOUND if old_name does not exist,
 * WG_EINVALID if it is a symbolic ref, WG_EEXISTS if new_name exists and
 * WG_REF_RENAME_FORCE is absent. */
int wg_refdb_rename(struct wg_refdb *refdb, const char *old_name, const char *new_name,
		    unsigned flags, const char *msg);

/* --- maintenance ------------------------------------------------------- */

#define WG_REFDB_PACK_ALL 1u     /* pack every ref, not only tags and packed ones */
#define WG_REFDB_PACK_PRUNE 2u   /* remove the loose copies */
/* git pack-refs (files) / full compaction (reftable). */
int wg_refdb_pack(struct wg_refdb *refdb, unsigned flags);

/* Called for each problem found: the ref (or file) name and a message in
 * git's `refs verify` style; return nonzero to stop. */
typedef int (*wg_refdb_verify_cb)(const char *name, const char *message, void *payload);
/* Check the storage (git refs verify): every ref's name and content, the
 * packed-refs or tables. Returns the number of problems (>= 0) or <0. */
int wg_refdb_verify(struct wg_refdb *refdb, wg_refdb_verify_cb cb, void *payload);

/* Is `name` "HEAD" or a root ref (all caps/underscore, ending in _HEAD or
 * one of git's pseudo refs)? */
bool wg_refname_is_root(const char *name);

#endif
