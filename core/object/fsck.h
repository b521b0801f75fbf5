/* Validation of objects received from outside, as `git fsck`,
 * `transfer.fsckObjects` and `git index-pack --strict` do it, with Git's
 * message ids so messages and configuration (`fsck.<id> = warn`) carry
 * over unchanged.
 *
 * One object at a time, from its raw bytes: nothing is looked up, so
 * connectivity (missing objects, a tag whose type does not match its
 * target) and the contents of .gitmodules blobs are the caller's to check;
 * `special_blob` tells the caller which blobs a tree names .gitmodules or
 * .gitattributes so it can do that.
 *
 * Severities: Git's defaults, except where webgit checks out what it
 * accepts and so must refuse what Git only warns about:
 *
 *   id                  git    webgit   why
 *   hasDot              warn   error    "." cannot be checked out
 *   hasDotdot           warn   error    ".." would escape the directory
 *   hasDotgit           warn   error    would write into .git (any disguise)
 *   emptyName           warn   error    cannot be checked out
 *   fullPathname        warn   error    a '/' in a name escapes its tree
 *   badFilemode         info   error    a mode checkout cannot honour
 *   gitmodulesSymlink   error  error    (unchanged)
 *
 * zeroPaddedFilemode stays a warning: real repositories (redis, for one)
 * have trees with "040000" modes and must stay cloneable. A 100664 mode is
 * accepted silently unless `strict`, as in Git (early Git wrote them).
 * `strict` turns every warning into an error, as `git fsck --strict` does;
 * it does not touch info-level ids (those are reported as warnings and
 * never fail an object). Explicit per-id severities win over both.
 *
 * Deliberate differences from git 2.53:
 *  - An empty name in a tree is reported as emptyName. Git's tree reader
 *    refuses the whole tree first, so git reports badTree instead.
 *  - A mode with more than 16 bits ("1100644") is badFilemode. Git keeps
 *    16 bits of it, reads 100644 and says nothing.
 *  - Whether an object fails is decided by the severity of what was
 *    reported, never by the order of later checks (in git a bad tagger
 *    followed by an ignored extra header can leave the object "passing",
 *    although the error is printed).
 *
 * Ids reported by this module: every object id below except the ref,
 * packed-refs, reftable and blob-content ones (badRef*, badPackedRef*,
 * badHeadTarget, badReferentName, badReftableTableName, packedRef*,
 * emptyPackedRefsFile, refMissingNewline, symlinkRef,
 * symrefTargetIsNotARef, trailingRefContent, gitmodules{Blob,Large,
 * Missing,Name,Path,Update,Url,Parse}, gitattributes{Blob,Missing});
 * they are listed so their names and severities have one home. The
 * contents of a .gitattributes blob are checked by
 * wg_fsck_gitattributes_blob() below, those of a .gitmodules blob by
 * repo/gitmodules.h (it needs the config parser), both reporting through
 * a wg_fsck_reporter. As in git, badGpgsig, badHeaderContinuation, missingType
 * and missingTag cannot actually fire once the header check has passed. */
#ifndef WG_OBJECT_FSCK_H
#define WG_OBJECT_FSCK_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "object/object.h"

/* X(ID, "camelCaseName", git default, webgit default), in Git's order. */
#define WG_FSCK_FOREACH_MSG(X) \
	X(NUL_IN_HEADER, "nulInHeader", FATAL, FATAL) \
	X(UNTERMINATED_HEADER, "unterminatedHeader", FATAL, FATAL) \
	X(BAD_HEADER_CONTINUATION, "badHeaderContinuation", ERROR, ERROR) \
	X(BAD_DATE, "badDate", ERROR, ERROR) \
	X(BAD_DATE_OVERFLOW, "badDateOverflow", ERROR, ERROR) \
	X(BAD_EMAIL, "badEmail", ERROR, ERROR) \
	X(BAD_GPGSIG, "badGpgsig", ERROR, ERROR) \
	X(BAD_HEAD_TARGET, "badHeadTarget", ERROR, ERROR) \
	X(BAD_NAME, "badName", ERROR, ERROR) \
	X(BAD_OBJECT_SHA1, "badObjectSha1", ERROR, ERROR) \
	X(BAD_PACKED_REF_ENTRY, "badPackedRefEntry", ERROR, ERROR) \
	X(BAD_PACKED_REF_HEADER, "badPackedRefHeader", ERROR, ERROR) \
	X(BAD_PARENT_SHA1, "badParentSha1", ERROR, ERROR) \
	X(BAD_REFERENT_NAME, "badReferentName", ERROR, ERROR) \
	X(BAD_REF_CONTENT, "badRefContent", ERROR, ERROR) \
	X(BAD_REF_FILETYPE, "badRefFiletype", ERROR, ERROR) \
	X(BAD_REF_NAME, "badRefName", ERROR, ERROR) \
	X(BAD_REF_OID, "badRefOid", ERROR, ERROR) \
	X(BAD_TIMEZONE, "badTimezone", ERROR, ERROR) \
	X(BAD_TREE, "badTree", ERROR, ERROR) \
	X(BAD_TREE_SHA1, "badTreeSha1", ERROR, ERROR) \
	X(BAD_TYPE, "badType", ERROR, ERROR) \
	X(DUPLICATE_ENTRIES, "duplicateEntries", ERROR, ERROR) \
	X(GITATTRIBUTES_BLOB, "gitattributesBlob", ERROR, ERROR) \
	X(GITATTRIBUTES_LARGE, "gitattributesLarge", ERROR, ERROR) \
	X(GITATTRIBUTES_LINE_LENGTH, "gitattributesLineLength", ERROR, ERROR) \
	X(GITATTRIBUTES_MISSING, "gitattributesMissing", ERROR, ERROR) \
	X(GITMODULES_BLOB, "gitmodulesBlob", ERROR, ERROR) \
	X(GITMODULES_LARGE, "gitmodulesLarge", ERROR, ERROR) \
	X(GITMODULES_MISSING, "gitmodulesMissing", ERROR, ERROR) \
	X(GITMODULES_NAME, "gitmodulesName", ERROR, ERROR) \
	X(GITMODULES_PATH, "gitmodulesPath", ERROR, ERROR) \
	X(GITMODULES_SYMLINK, "gitmodulesSymlink", ERROR, ERROR) \
	X(GITMODULES_UPDATE, "gitmodulesUpdate", ERROR, ERROR) \
	X(GITMODULES_URL, "gitmodulesUrl", ERROR, ERROR) \
	X(MISSING_AUTHOR, "missingAuthor", ERROR, ERROR) \
	X(MISSING_COMMITTER, "missingCommitter", ERROR, ERROR) \
	X(MISSING_EMAIL, "missingEmail", ERROR, ERROR) \
	X(MISSING_NAME_BEFORE_EMAIL, "missingNameBeforeEmail", ERROR, ERROR) \
	X(MISSING_OBJECT, "missingObject", ERROR, ERROR) \
	X(MISSING_SPACE_BEFORE_DATE, "missingSpaceBeforeDate", ERROR, ERROR) \
	X(MISSING_SPACE_BEFORE_EMAIL, "missingSpaceBeforeEmail", ERROR, ERROR) \
	X(MISSING_TAG, "missingTag", ERROR, ERROR) \
	X(MISSING_TAG_ENTRY, "missingTagEntry", ERROR, ERROR) \
	X(MISSING_TREE, "missingTree", ERROR, ERROR) \
	X(MISSING_TYPE, "missingType", ERROR, ERROR) \
	X(MISSING_TYPE_ENTRY, "missingTypeEntry", ERROR, ERROR) \
	X(MULTIPLE_AUTHORS, "multipleAuthors", ERROR, ERROR) \
	X(PACKED_REF_ENTRY_NOT_TERMINATED, "packedRefEntryNotTerminated", ERROR, ERROR) \
	X(PACKED_REF_UNSORTED, "packedRefUnsorted", ERROR, ERROR) \
	X(TREE_NOT_SORTED, "treeNotSorted", ERROR, ERROR) \
	X(UNKNOWN_TYPE, "unknownType", ERROR, ERROR) \
	X(ZERO_PADDED_DATE, "zeroPaddedDate", ERROR, ERROR) \
	X(BAD_REFTABLE_TABLE_NAME, "badReftableTableName", WARN, WARN) \
	X(EMPTY_NAME, "emptyName", WARN, ERROR) \
	X(FULL_PATHNAME, "fullPathname", WARN, ERROR) \
	X(HAS_DOT, "hasDot", WARN, ERROR) \
	X(HAS_DOTDOT, "hasDotdot", WARN, ERROR) \
	X(HAS_DOTGIT, "hasDotgit", WARN, ERROR) \
	X(LARGE_PATHNAME, "largePathname", WARN, WARN) \
	X(NULL_SHA1, "nullSha1", WARN, WARN) \
	X(NUL_IN_COMMIT, "nulInCommit", WARN, WARN) \
	X(ZERO_PADDED_FILEMODE, "zeroPaddedFilemode", WARN, WARN) \
	X(BAD_FILEMODE, "badFilemode", INFO, ERROR) \
	X(BAD_TAG_NAME, "badTagName", INFO, INFO) \
	X(EMPTY_PACKED_REFS_FILE, "emptyPackedRefsFile", INFO, INFO) \
	X(GITATTRIBUTES_SYMLINK, "gitattributesSymlink", INFO, INFO) \
	X(GITIGNORE_SYMLINK, "gitignoreSymlink", INFO, INFO) \
	X(GITMODULES_PARSE, "gitmodulesParse", INFO, INFO) \
	X(MAILMAP_SYMLINK, "mailmapSymlink", INFO, INFO) \
	X(MISSING_TAGGER_ENTRY, "missingTaggerEntry", INFO, INFO) \
	X(REF_MISSING_NEWLINE, "refMissingNewline", INFO, INFO) \
	X(SYMLINK_REF, "symlinkRef", INFO, INFO) \
	X(SYMREF_TARGET_IS_NOT_A_REF, "symrefTargetIsNotARef", INFO, INFO) \
	X(TRAILING_REF_CONTENT, "trailingRefContent", INFO, INFO) \
	X(EXTRA_HEADER_ENTRY, "extraHeaderEntry", IGNORE, IGNORE)

#define WG_FSCK_MSG_ENUM_(id, name, git, webgit) WG_FSCK_##id,
enum wg_fsck_msg_id {
	WG_FSCK_FOREACH_MSG(WG_FSCK_MSG_ENUM_)
	WG_FSCK_MSG_COUNT
};
#undef WG_FSCK_MSG_ENUM_

enum wg_fsck_severity {
	WG_FSCK_DEFAULT = 0,  /* in overrides: no override */
	WG_FSCK_IGNORE,       /* not reported */
	WG_FSCK_INFO,         /* reported (git prints it as a warning), never fails */
	WG_FSCK_WARN,         /* reported; an error under `strict` */
	WG_FSCK_ERROR,        /* reported; the object fails */
	WG_FSCK_FATAL,        /* the object fails and checking it stops */
};

/* What a tree names that the caller may want to check further: the blob
 * id of a (non-symlink) .gitmodules or .gitattributes in any spelling. */
enum wg_fsck_special {
	WG_FSCK_SPECIAL_GITMODULES,
	WG_FSCK_SPECIAL_GITATTRIBUTES,
};

struct wg_fsck_options {
	bool strict;
	/* Called for every reported problem (severity info and up), in the
	 * order Git reports them. `oid` is NULL when the caller passed none;
	 * `message` is "<camelId>: <text>", as Git prints after "error in
	 * tree <hex>: ". May be NULL. */
	void (*report)(void *payload, const struct wg_oid *oid, enum wg_object_type type,
		       enum wg_fsck_msg_id id, enum wg_fsck_severity severity,
		       const char *message);
	void *payload;
	/* Optional: called for each .gitmodules / .gitattributes blob a tree
	 * names (tree_oid is the `oid` given to wg_fsck_object(), maybe NULL). */
	void (*special_blob)(void *payload, const struct wg_oid *tree_oid,
			     const struct wg_oid *blob_oid, enum wg_fsck_special kind);
	/* Per-id overrides (enum wg_fsck_severity values); 0 keeps the
	 * default. Set with wg_fsck_set_severity(), which refuses to demote
	 * the fatal ids. */
	unsigned char severity[WG_FSCK_MSG_COUNT];
	/* largePathname fires above this many bytes in one name; 0 is Git's
	 * 4096. */
	size_t max_path_len;
};

#define WG_FSCK_OPTIONS_INIT { 0 }

/* "badDate"; NULL for an out-of-range id. */
const char *wg_fsck_msg_name(enum wg_fsck_msg_id id);
/* An id from its name, case-insensitively as git config reads
 * "fsck.<id>"; -1 if unknown. */
int wg_fsck_msg_from_name(const char *name);
/* "ignore", "info", "warn", "error", "fatal". */
const char *wg_fsck_severity_name(enum wg_fsck_severity severity);
/* Git's default, and webgit's (see the table above). */
enum wg_fsck_severity wg_fsck_git_default_severity(enum wg_fsck_msg_id id);
enum wg_fsck_severity wg_fsck_default_severity(enum wg_fsck_msg_id id);
/* The severity a report of `id` gets under these options (NULL: defaults). */
enum wg_fsck_severity wg_fsck_severity_of(const struct wg_fsck_options *opts,
					  enum wg_fsck_msg_id id);

/* Override one id. WG_EINVALID for an unknown id or severity, or an
 * attempt to make a fatal id less than an error (Git refuses it too:
 * later checks rely on the headers being sane). */
int wg_fsck_set_severity(struct wg_fsck_options *opts, enum wg_fsck_msg_id id,
			 enum wg_fsck_severity severity);
/* The same from configuration text: ("hasDotgit", "warn"); the severity is
 * one of "error", "warn", "ignore" as Git accepts. */
int wg_fsck_set_severity_by_name(struct wg_fsck_options *opts, const char *id,
				 const char *severity);

/* Check one object's raw content (no "<type> <size>\0" header). `opts` may
 * be NULL for the defaults; `oid` may be NULL (messages then name only the
 * type). Returns 0 when nothing reached error severity; WG_EFSCK when
 * something did, with a message in Git's words for the first such
 * problem, e.g. "error in tree <hex>: hasDotgit: contains '.git'" (and a
 * count of any others); WG_ENOMEM if memory ran out. Every problem of
 * severity info and up also goes to opts->report. */
int wg_fsck_object(const struct wg_fsck_options *opts, const struct wg_hash_algo *algo,
		   const struct wg_oid *oid, enum wg_object_type type,
		   const void *data, size_t len);

/* --- checks made outside wg_fsck_object() ---------------------------
 * Blob contents (.gitmodules, .gitattributes) are checked by whoever can
 * read the blobs a tree named; they report through a reporter, so their
 * problems get the same severities, report callback and message as
 * wg_fsck_object()'s. */
struct wg_fsck_reporter {
	const struct wg_fsck_options *opts;
	const struct wg_oid *oid;
	enum wg_object_type type;
	int errors;            /* reports at error level so far */
	char first[512];       /* the first of them, "<camelId>: <text>" */
};

void wg_fsck_reporter_init(struct wg_fsck_reporter *r, const struct wg_fsck_options *opts,
			   const struct wg_oid *oid, enum wg_object_type type);
/* Report one problem; 1 if it reached error level, else 0. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int wg_fsck_reportf(struct wg_fsck_reporter *r, enum wg_fsck_msg_id id, const char *fmt, ...);
/* 0, or WG_EFSCK with "error in blob <hex>: <first>" as wg_fsck_object(). */
int wg_fsck_reporter_result(const struct wg_fsck_reporter *r);

/* Git's attribute-file limits (attr.h): larger files and longer lines are
 * refused, since git would not read them. */
#define WG_FSCK_ATTR_MAX_FILE_SIZE ((size_t)100 * 1024 * 1024)
#define WG_FSCK_ATTR_MAX_LINE_LENGTH ((size_t)2048)

/* The contents of a blob a tree names .gitattributes: gitattributesLarge,
 * gitattributesLineLength. */
int wg_fsck_gitattributes_blob(const struct wg_fsck_options *opts, const struct wg_oid *oid,
			       const void *data, size_t len);

#endif
