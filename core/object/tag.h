/* Annotated tag objects: parse and serialize, byte-exact.
 *
 * Layout Git writes (git tag -a, git mktag):
 *
 *     object <hex>\n
 *     type <commit|tree|blob|tag>\n
 *     tag <name>\n
 *     tagger <ident>\n        (missing in some very old tags)
 *     <extra headers>         (e.g. gpgsig-sha256 for the other hash)
 *     \n
 *     <message>
 *
 * The signature of a signed tag (for the object's own hash) is the end of
 * the message, kept byte for byte. Multi-line header values follow the
 * convention described in commit.h. */
#ifndef WG_OBJECT_TAG_H
#define WG_OBJECT_TAG_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "object/commit.h"
#include "object/object.h"
#include "util/buf.h"

struct wg_tag {
	struct wg_oid object;
	enum wg_object_type type;   /* of the tagged object */
	char *tag;                  /* the tag's name, "v1.0" */
	char *tagger;               /* raw ident value; NULL when absent */
	struct wg_header_field *headers;  /* anything else, in order */
	size_t nheaders;
	char *message;              /* after the blank line; NUL-terminated */
	size_t message_len;
	bool no_body;               /* the object ends with its headers */
};

void wg_tag_init(struct wg_tag *tag);
/* Free what the tag owns and zero it. NULL is a no-op. */
void wg_tag_release(struct wg_tag *tag);

/* Parse a raw tag. `out` is initialised here and must be released even on
 * failure. WG_ECORRUPT, as Git's reader, unless the object starts with
 * "object <hex>", "type <one of the four types>" and "tag <name>" lines,
 * and for the structural problems listed at wg_commit_parse(). A tagger
 * is recognised only right after the tag line; any other header,
 * including a misplaced one, is kept among the extra headers. */
int wg_tag_parse(struct wg_tag *out, const struct wg_hash_algo *algo,
		 const void *data, size_t len);

/* Append the raw tag to out: what Git writes for these fields, and the
 * original bytes for a parsed tag. WG_EINVALID for an object id of no
 * known algorithm, a type that is not one of the four, a missing name, a
 * bad extra header name, or a message with no_body set. */
int wg_tag_serialize(const struct wg_tag *tag, struct wg_buf *out);

/* Builders for serialization from scratch; they copy their arguments. */
int wg_tag_set_name(struct wg_tag *tag, const char *name);
int wg_tag_set_tagger(struct wg_tag *tag, const char *ident);
int wg_tag_add_header(struct wg_tag *tag, const char *name, const char *value);
int wg_tag_set_message(struct wg_tag *tag, const void *message, size_t len);

#endif
