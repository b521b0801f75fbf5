/* Line endings between the repository and the working tree: git's
 * decision (convert.c's convert_attrs, output_eol, crlf_to_git,
 * crlf_to_worktree) from the attributes text, eol and crlf and the
 * config core.autocrlf and core.eol, and the conversions themselves, on
 * a whole buffer or streamed chunk by chunk (a blob is written to disk
 * at checkout without ever being whole in memory).
 *
 * No core.safecrlf here: git only warns by default, and a refusal is the
 * caller's business (the stats before and after say what changed). No
 * filters, ident or working-tree-encoding either. */
#ifndef WG_WORKTREE_CONVERT_H
#define WG_WORKTREE_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "worktree/attr.h"

enum wg_autocrlf { WG_AUTOCRLF_FALSE, WG_AUTOCRLF_TRUE, WG_AUTOCRLF_INPUT };
/* core.eol; "native" is LF: webgit runs on no platform whose native
 * line ending is CRLF (git for Windows is the one that differs). */
enum wg_core_eol { WG_CORE_EOL_UNSET, WG_CORE_EOL_LF, WG_CORE_EOL_CRLF };

struct wg_eol_config {
	enum wg_autocrlf autocrlf;
	enum wg_core_eol eol;
};
#define WG_EOL_CONFIG_INIT { WG_AUTOCRLF_FALSE, WG_CORE_EOL_UNSET }

/* core.autocrlf: "input" (any case), else a git boolean. WG_EINVALID
 * with git's "bad boolean config value" message otherwise. */
int wg_autocrlf_parse(enum wg_autocrlf *out, const char *value);
/* core.eol: lf, crlf, native (any case); anything else is unset, as git. */
void wg_core_eol_parse(enum wg_core_eol *out, const char *value);

/* git's convert_crlf_action. */
enum wg_crlf_action {
	WG_CRLF_UNDEFINED,
	WG_CRLF_BINARY,
	WG_CRLF_TEXT,
	WG_CRLF_TEXT_INPUT,
	WG_CRLF_TEXT_CRLF,
	WG_CRLF_AUTO,
	WG_CRLF_AUTO_INPUT,
	WG_CRLF_AUTO_CRLF,
};

struct wg_conv_attrs {
	enum wg_crlf_action attr_action; /* what the attributes say */
	enum wg_crlf_action crlf_action; /* the decision, config applied */
};

/* The decision for a path from its attributes text, eol and crlf. */
void wg_convert_attrs(struct wg_conv_attrs *out, const struct wg_attr_value *text,
		      const struct wg_attr_value *eol, const struct wg_attr_value *crlf,
		      const struct wg_eol_config *cfg);
/* git ls-files --eol's attr/ column ("", "-text", "text eol=lf", ...). */
const char *wg_convert_attr_ascii(enum wg_crlf_action attr_action);

/* git's gather_stats, fed in chunks (a CR at the end of one chunk and the
 * LF that starts the next are one CRLF). */
struct wg_text_stat {
	uint64_t nul, lonecr, lonelf, crlf, printable, nonprintable;
	/* streaming state */
	uint64_t size;
	bool held_cr;
	unsigned char last;
};
void wg_text_stat_init(struct wg_text_stat *st);
void wg_text_stat_update(struct wg_text_stat *st, const void *data, size_t len);
void wg_text_stat_finish(struct wg_text_stat *st);
/* Whole buffer: init, update, finish. */
void wg_text_stat_gather(struct wg_text_stat *st, const void *data, size_t len);
/* git's convert_is_binary: a lone CR, a NUL, or more than one control
 * character per 128 printable ones. */
bool wg_text_stat_is_binary(const struct wg_text_stat *st);
/* git ls-files --eol's i/ and w/ columns: "-text", "lf", "crlf", "mixed"
 * or "none" (also for empty content). */
const char *wg_text_stat_ascii(const struct wg_text_stat *st);

enum wg_eol_conv {
	WG_EOL_CONV_NONE,
	WG_EOL_CONV_LF_TO_CRLF,  /* checkout: an LF without a CR before it gets one */
	WG_EOL_CONV_CRLF_TO_LF,  /* check-in: a CR before an LF goes */
	WG_EOL_CONV_NEED_STATS,  /* ask again with the content's stats */
};

/* Checkout (index to working tree). `blob` is the content's stats, or
 * NULL: then the answer is NEED_STATS only for text=auto kinds; for the
 * others LF_TO_CRLF is already exact (a streaming caller converts
 * without a first pass; content with no lone LF comes out unchanged). */
enum wg_eol_conv wg_convert_checkout(const struct wg_conv_attrs *ca,
				     const struct wg_eol_config *cfg,
				     const struct wg_text_stat *blob);
/* Check-in (working tree to index). `file` is the new content's stats
 * (NULL: NEED_STATS unless nothing can convert); index_has_crlf says the
 * index's current blob for the path is text with CRLF in it (git then
 * leaves text=auto content alone; wg_text_stat_index_has_crlf). */
enum wg_eol_conv wg_convert_checkin(const struct wg_conv_attrs *ca,
				    const struct wg_text_stat *file, bool index_has_crlf);
bool wg_text_stat_index_has_crlf(const struct wg_text_stat *blob);

/* The conversions, appending to out. */
int wg_convert_buffer(struct wg_buf *out, enum wg_eol_conv conv, const void *data, size_t len);

/* The same as a stream: feed chunks, then finish. A CR at a chunk's end
 * is held until the next byte shows what it is. */
struct wg_eol_stream {
	enum wg_eol_conv conv;
	bool held_cr;
	bool prev_cr;
};
void wg_eol_stream_init(struct wg_eol_stream *s, enum wg_eol_conv conv);
int wg_eol_stream_feed(struct wg_eol_stream *s, struct wg_buf *out, const void *data, size_t len);
int wg_eol_stream_finish(struct wg_eol_stream *s, struct wg_buf *out);

#endif
