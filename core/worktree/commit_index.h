/* git commit: the index becomes a commit on top of HEAD, and HEAD (the
 * branch it points to, or HEAD itself when detached) moves to it, as git
 * commit does without an editor (builtin/commit.c, sequencer.c).
 *
 * The message is cleaned as git cleans a -m/-F message when no editor
 * runs (its "whitespace" mode, strbuf_stripspace without comments):
 * trailing blanks of each line go, runs of blank lines become one, blank
 * lines at both ends go, and the last line ends with a newline. It is
 * empty when nothing but blanks and "Signed-off-by: " lines is left.
 *
 * Checks, in git's order, each a refusal with git's message:
 *  - conflict stages in the index: WG_COMMIT_UNMERGED ("Committing is not
 *    possible because you have unmerged files.");
 *  - amend without a commit to amend: WG_ENOTFOUND ("You have nothing to
 *    amend.");
 *  - a merge in progress (MERGE_HEAD): WG_EUNSUPPORTED (not yet);
 *  - nothing to commit (the tree is the parent's, or an empty index on an
 *    unborn branch) without allow_empty: WG_COMMIT_NOTHING;
 *  - an empty message without allow_empty_message: WG_COMMIT_EMPTY_MESSAGE
 *    ("Aborting commit due to empty commit message.").
 *
 * The index's cache tree is filled by writing the trees: the caller
 * writes the index back afterwards, as git does. HEAD moves in one ref
 * transaction that expects the value read at the start (so a concurrent
 * commit is refused, not lost), with git's reflog message on the branch
 * and on HEAD: "commit: <subject>", "commit (initial): <subject>" or
 * "commit (amend): <subject>". */
#ifndef WG_WORKTREE_COMMIT_INDEX_H
#define WG_WORKTREE_COMMIT_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "index/index.h"
#include "repo/repo.h"
#include "util/error.h"

/* The refusals a front end reports in its own words (see above). */
#define WG_COMMIT_UNMERGED       WG_ECORRUPT
#define WG_COMMIT_NOTHING        WG_EEXISTS
#define WG_COMMIT_EMPTY_MESSAGE  WG_EINVALID

struct wg_commit_index_options {
	/* The message as given (several -m joined by the caller as git
	 * does); NULL with amend: the amended commit's message. */
	const char *message;
	size_t message_len;
	/* "Name <email> <time> <tz>" (object/ident.h formats one); NULL:
	 * the amended commit's author with amend, else the committer. */
	const char *author;
	const char *committer;   /* required */
	bool amend;              /* replace HEAD: its parents, its extra headers */
	bool allow_empty;        /* a commit whose tree is its parent's */
	bool allow_empty_message;
	/* git's warning when the message was not UTF-8 (its bytes were taken
	 * as Latin-1 and converted); NULL: none */
	void (*warn)(void *payload, const char *line);
	void *payload;
};

/* Commit the index `ix` of `repo`; the new commit's id goes to *out. */
int wg_commit_index(struct wg_oid *out, struct wg_repo *repo, struct wg_index *ix,
		    const struct wg_commit_index_options *opts);

/* git's strbuf_stripspace without comment lines, in place. */
int wg_commit_message_cleanup(struct wg_buf *msg);
/* The message as git stores it without i18n.commitEncoding: bytes that
 * are not part of valid UTF-8 are taken as Latin-1 and converted
 * (*changed says so). */
int wg_commit_message_utf8(struct wg_buf *msg, bool *changed);
/* Only blanks and Signed-off-by lines (git's message_is_empty)? */
bool wg_commit_message_is_empty(const char *msg, size_t len);

#endif
