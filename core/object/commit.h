/* Commit objects: parse and serialize, byte-exact.
 *
 * Layout Git writes (commit-tree):
 *
 *     tree <hex>\n
 *     parent <hex>\n          (zero or more)
 *     author <ident>\n
 *     committer <ident>\n
 *     encoding <name>\n       (only when not UTF-8)
 *     <extra headers>         (mergetag, gpgsig, gpgsig-sha256, ...)
 *     \n
 *     <message>
 *
 * A header value that spans lines continues on lines starting with one
 * space. Here such a value is held with its lines joined by '\n' and the
 * one leading space of each continuation removed, so "gpgsig A\n B\n \n"
 * has the value "A\nB\n" and serializes back to the same bytes.
 *
 * wg_commit_parse() followed by wg_commit_serialize() reproduces the input
 * exactly for every commit Git writes and for most it does not; objects it
 * cannot represent exactly are refused rather than silently changed, with
 * one exception documented at wg_commit_parse(). */
#ifndef WG_OBJECT_COMMIT_H
#define WG_OBJECT_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "util/buf.h"

/* One header line (with its continuations) of a commit or tag. */
struct wg_header_field {
	char *name;   /* the key: no space, no newline, never empty */
	char *value;  /* continuations joined by '\n'; NULL when the line was
		       * only a key with no space after it */
};

/* Append "name value\n" to out, writing each '\n' inside the value as a
 * continuation ("\n "). A NULL value writes "name\n". */
int wg_header_field_write(struct wg_buf *out, const char *name, const char *value);
/* What commits and tags end with: their extra header fields, then, unless
 * no_body, the blank line and the message. */
int wg_header_tail_write(struct wg_buf *out, const struct wg_header_field *fields,
			 size_t nfields, bool no_body, const char *message, size_t message_len);

struct wg_commit {
	struct wg_oid tree;
	struct wg_oid *parents;
	size_t nparents;
	/* The header values as written ("A U Thor <a@x> 1700000000 +0100");
	 * read them with wg_ident_parse(). NULL when the header is absent or
	 * not in its place (then it is among the extra headers). */
	char *author;
	char *committer;
	char *encoding;  /* NULL when absent, which means UTF-8 */
	/* Every other header, in order, e.g. mergetag, gpgsig. */
	struct wg_header_field *headers;
	size_t nheaders;
	/* Everything after the blank line that ends the headers. May be empty,
	 * may hold NUL bytes; NUL-terminated for convenience (not counted). */
	char *message;
	size_t message_len;
	/* True when the object ends with its headers, without the blank line.
	 * Git never writes such commits; zero (false) is the normal case. */
	bool no_body;
};

/* A zeroed commit ready to fill in; equivalent to `= {0}`. */
void wg_commit_init(struct wg_commit *commit);
/* Free everything the commit owns and zero it. NULL is a no-op. */
void wg_commit_release(struct wg_commit *commit);

/* Parse a raw commit (the object's content, without the "commit <size>\0"
 * header). `out` is initialised here and must be released even on
 * failure. WG_ECORRUPT, as Git's reader, when the first line is not
 * "tree <hex>", a "parent" line right after it is not "parent <hex>", a
 * header holds a NUL, the headers do not end with a newline, or a
 * continuation line has no header to continue.
 *
 * Hex ids are read in either case, as Git reads them; serialization
 * writes lower case, so a hand-made object with upper-case ids is the one
 * thing that does not round-trip (git fsck does not flag it either). */
int wg_commit_parse(struct wg_commit *out, const struct wg_hash_algo *algo,
		    const void *data, size_t len);

/* Append the raw commit to out: exactly what `git commit-tree` writes for
 * the same fields, and the original bytes for a parsed commit. A newline
 * inside any header value is written as a continuation line, so no value
 * can inject a header of its own. WG_EINVALID for a tree id of no known
 * algorithm, a parent of another algorithm than the tree, a header name
 * that is empty or holds a space or newline, or a message with no_body
 * set. */
int wg_commit_serialize(const struct wg_commit *commit, struct wg_buf *out);

/* Builders for serialization from scratch; they copy their arguments. */
int wg_commit_add_parent(struct wg_commit *commit, const struct wg_oid *parent);
int wg_commit_set_author(struct wg_commit *commit, const char *ident);
int wg_commit_set_committer(struct wg_commit *commit, const char *ident);
/* NULL removes the header (UTF-8). */
int wg_commit_set_encoding(struct wg_commit *commit, const char *encoding);
/* Append an extra header; value NULL writes the bare key. */
int wg_commit_add_header(struct wg_commit *commit, const char *name, const char *value);
int wg_commit_set_message(struct wg_commit *commit, const void *message, size_t len);

/* The first extra header with this name, or NULL. */
const struct wg_header_field *wg_commit_header(const struct wg_commit *commit,
					       const char *name);

/* Shared by commits and tags: split a raw object into its header fields
 * and body. Lines that start "tree ", "parent ", "author " and so on are
 * returned as fields like any other; the caller gives them meaning.
 * `*fields` is an array of `*nfields` entries the caller frees with
 * wg_header_fields_free(). `*body` points into data after the blank line,
 * or is NULL when there is none (*no_body is then true). WG_ECORRUPT for a
 * NUL in the headers, headers not ended by a newline, or a continuation
 * line before any header. `what` ("commit", "tag") goes in messages. */
int wg_header_fields_parse(struct wg_header_field **fields, size_t *nfields,
			   const char **body, size_t *body_len, bool *no_body,
			   const char *what, const char *data, size_t len);
void wg_header_fields_free(struct wg_header_field *fields, size_t nfields);

#endif
