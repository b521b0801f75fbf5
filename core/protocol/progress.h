/* Git's progress text, as a remote writes it on side-band 2.
 *
 * git redraws a progress line by ending it with '\r' and finishes it with
 * "\n"; the bytes arrive split across packets anywhere. This parser puts
 * lines back together and recognises git's formats (progress.c):
 *
 *   "Enumerating objects: 12, done."                count, no total
 *   "Counting objects:  50% (6/12)"                 percent (done/total)
 *   "Compressing objects: 100% (10/10), done."      finished
 *   "Receiving objects:  42% (5/12), 1.20 MiB | 2.00 MiB/s"
 *   "Total 12 (delta 3), reused 0 (delta 0), pack-reused 0 (from 0)"
 *
 * and the two-line form git uses on narrow terminals ("Title:" alone, then
 * "  42% (5/12)"). Any other line is passed on as a plain message. The
 * text is only for display, so nothing here is ever a protocol error. */
#ifndef WG_PROTOCOL_PROGRESS_H
#define WG_PROTOCOL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line kept; a longer one is passed on in pieces of this size, so
 * a peer that never ends its line cannot make us buffer without bound. */
#define WG_PROGRESS_LINE_MAX 4096

enum wg_progress_kind {
	WG_PROGRESS_UPDATE = 1,  /* a counter line (or the "Total" summary) */
	WG_PROGRESS_MESSAGE = 2, /* any other text: show `line` as is */
};

struct wg_progress_event {
	enum wg_progress_kind kind;
	const char *phase;  /* "Counting objects", "Total"; "" for a message */
	uint64_t done;      /* objects (or items) done so far */
	uint64_t total;     /* 0 if unknown */
	uint64_t bytes;     /* transferred so far, 0 if not shown (approximate:
			     * git prints "1.20 MiB") */
	uint64_t rate;      /* bytes per second, 0 if not shown */
	bool finished;      /* the phase's last line (", done." or similar) */
	bool eol;           /* the line ended in '\n' (not redrawn by '\r') */
	const char *line;   /* the line without '\r'/'\n' and trailing padding;
			     * control bytes other than TAB (NUL, ESC...) are
			     * replaced by '?', so it is safe to display */
};

struct wg_progress_parser;

int wg_progress_parser_new(struct wg_progress_parser **out);
void wg_progress_parser_free(struct wg_progress_parser *parser);

/* Take band-2 bytes from *in (advancing it) until a line is complete.
 * Returns 0 with an event in *out, WG_ENEEDMORE when the input is used
 * up, or WG_ENOMEM. The event's strings stay valid until the next call.
 * Empty lines produce no event. */
int wg_progress_parser_next(struct wg_progress_parser *parser, struct wg_progress_event *out,
			    const unsigned char **in, size_t *in_len);

/* At the end of the stream: 0 with an event for a last unterminated line,
 * WG_ITEROVER if there is none. */
int wg_progress_parser_finish(struct wg_progress_parser *parser, struct wg_progress_event *out);

#endif
