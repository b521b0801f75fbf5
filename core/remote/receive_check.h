/* The check of everything a clone, fetch or promisor fetch receives: git's
 * `transfer.fsckObjects`, but on unless the repository turns it off,
 * because webgit checks out what it accepts (design rule 5).
 *
 * Every commit, tree and tag is checked as the indexer produces it
 * (object/fsck.h); the blobs trees name .gitmodules or .gitattributes are
 * checked once the whole pack is resolved and before it is installed
 * (repo/gitmodules.h), read from the pack or, when a fetch's pack builds
 * on them, from the repository. A refused object fails the indexing, so
 * no pack is left and no ref, reflog, shallow file or config is written.
 *
 * Policy, from the repository's config as git reads it:
 *   fetch.fsckObjects, else transfer.fsckObjects:
 *     unset  webgit's default: problems at error level (webgit's table in
 *            object/fsck.h, which refuses what a checkout could not
 *            honour) refuse the object; warnings (zeroPaddedFilemode, ...)
 *            are reported through the operation's progress and accepted,
 *            so that old public histories stay cloneable;
 *     true   git's own: warnings refuse too (index-pack --strict);
 *     false  nothing is checked (the documented opt-out).
 *   fetch.fsck.<msg-id> = error | warn | ignore overrides one id.
 * A .gitmodules or .gitattributes blob that did not arrive and is not in
 * the repository (a partial clone) is not checked, as in git.
 * Not read: fetch.fsck.skipList. */
#ifndef WG_REMOTE_RECEIVE_CHECK_H
#define WG_REMOTE_RECEIVE_CHECK_H

#include <stdbool.h>

#include "hash/oidmap.h"
#include "object/fsck.h"
#include "pack/indexer.h"
#include "remote/operation_internal.h"
#include "repo/repo.h"

struct wg_receive_check {
	bool enabled;
	struct wg_fsck_options fsck;
	struct wg_repo *repo;
	struct wg_remote_op *op;      /* warnings go to its progress */
	struct wg_oidmap special;     /* blob ids trees named: WG_RECEIVE_* bits */
	int error;                    /* sticky: out of memory noting a blob */
	unsigned warnings;            /* reported so far */
};

/* Read the policy of `repo`'s config. WG_EINVALID for a bad value. */
int wg_receive_check_init(struct wg_receive_check *rc, struct wg_repo *repo,
			  struct wg_remote_op *op);
void wg_receive_check_release(struct wg_receive_check *rc);
/* The fsck options for the indexer (wg_indexer_options.fsck); NULL when
 * the check is off. */
const struct wg_fsck_options *wg_receive_check_fsck(struct wg_receive_check *rc);
/* The blob checks, from the indexer's before_install hook (ix: the pack
 * being installed), or with ix NULL once what was received is in the
 * repository (the dumb walker, whose objects come in several parts). */
int wg_receive_check_blobs(struct wg_receive_check *rc, struct wg_indexer *ix);

#endif
