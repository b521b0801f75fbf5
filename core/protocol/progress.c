#include "protocol/progress.h"

#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

struct wg_progress_parser {
	struct wg_buf pending;  /* the line being assembled */
	struct wg_buf line;     /* the last completed line (event.line) */
	struct wg_buf phase;    /* event.phase */
	struct wg_buf title;    /* "Title" of a two-line display, or empty */
};

int wg_progress_parser_new(struct wg_progress_parser **out)
{
	struct wg_progress_parser *p = wg_calloc(1, sizeof(*p));
	*out = NULL;
	if (!p)
		return wg_error_set(WG_ENOMEM, "out of memory allocating a progress parser");
	*out = p;
	return 0;
}

void wg_progress_parser_free(struct wg_progress_parser *parser)
{
	if (!parser)
		return;
	wg_buf_release(&parser->pending);
	wg_buf_release(&parser->line);
	wg_buf_release(&parser->phase);
	wg_buf_release(&parser->title);
	wg_free(parser);
}

/* --- recognising git's formats ----------------------------------------------- */

struct cursor {
	const char *p, *end;
};

static bool eat(struct cursor *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return false;
	c->p += n;
	return true;
}

static void eat_spaces(struct cursor *c)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
}

/* Decimal digits into a uint64_t; false if none or on overflow. The count
 * of digits read goes to *ndigits when asked for. */
static bool eat_u64(struct cursor *c, uint64_t *out, unsigned *ndigits)
{
	uint64_t v = 0;
	unsigned n = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		c->p++, n++;
	}
	if (ndigits)
		*ndigits = n;
	*out = v;
	return n > 0;
}

/* "1.20 MiB", "250 bytes", "1 byte" (or the same with "/s" for a rate,
 * when `rate` is set) into bytes. git's strbuf_humanise_bytes: binary
 * prefixes, two decimals above 1 KiB. */
static bool eat_size(struct cursor *c, uint64_t *out, bool rate)
{
	static const struct {
		const char *unit;
		unsigned shift;
	} units[] = {
		{ "bytes", 0 }, { "byte", 0 }, { "B", 0 },
		{ "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 }, { "TiB", 40 },
	};
	uint64_t whole, frac = 0, mult, scale = 1, v;
	unsigned nfrac = 0, i;
	if (!eat_u64(c, &whole, NULL))
		return false;
	if (eat(c, ".") && (!eat_u64(c, &frac, &nfrac) || nfrac > 6))
		return false;
	while (nfrac--)
		scale *= 10;
	if (!eat(c, " "))
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		struct cursor save = *c;
		if (eat(c, units[i].unit) && (!rate || eat(c, "/s")) &&
		    (c->p == c->end || *c->p == ' ' || *c->p == ','))
			break;
		*c = save;
	}
	if (i == sizeof(units) / sizeof(units[0]))
		return false;
	mult = (uint64_t)1 << units[i].shift;
	if (whole > UINT64_MAX / mult)
		return false;
	v = whole * mult;
	/* frac < scale, so frac * mult / scale < mult: no overflow below
	 * unless frac * mult does, which a 6-digit fraction and 2^40 cannot. */
	if (UINT64_MAX - v < frac * mult / scale)
		return false;
	*out = v + frac * mult / scale;
	return true;
}

/* What follows the counters: "" or ", <message>." (finished). */
static bool eat_tail(struct cursor *c, bool *finished)
{
	if (c->p == c->end)
		return true;
	if (!eat(c, ", ") || c->end - c->p < 2 || c->end[-1] != '.')
		return false;
	*finished = true;
	c->p = c->end;
	return true;
}

/* "NNN% (n/total)" or "n", then ", <bytes> | <rate>" and ", done." as
 * git's display() and stop_progress_msg() write them. */
static bool parse_counters(struct cursor c, struct wg_progress_event *ev)
{
	struct cursor save;
	uint64_t n;
	eat_spaces(&c);
	if (!eat_u64(&c, &n, NULL))
		return false;
	if (eat(&c, "%")) {
		/* The percentage is derived from the pair that follows. */
		if (!eat(&c, " (") || !eat_u64(&c, &ev->done, NULL) ||
		    !eat(&c, "/") || !eat_u64(&c, &ev->total, NULL) || !eat(&c, ")"))
			return false;
	} else {
		ev->done = n;
		ev->total = 0;
	}
	save = c;
	if (eat(&c, ", ") && eat_size(&c, &ev->bytes, false)) {
		if (!eat(&c, " | ") || !eat_size(&c, &ev->rate, true))
			return false;
	} else {
		c = save;
	}
	return eat_tail(&c, &ev->finished);
}

/* "Total 12 (delta 3), reused 0 (delta 0), pack-reused 0 (from 0)": the
 * pack-objects summary, the last line a fetch shows from the server. */
static bool parse_total(struct cursor c, struct wg_progress_event *ev)
{
	uint64_t n, deltas;
	if (!eat(&c, "Total ") || !eat_u64(&c, &n, NULL) || !eat(&c, " (delta ") ||
	    !eat_u64(&c, &deltas, NULL) || !eat(&c, ")"))
		return false;
	ev->done = ev->total = n;
	ev->finished = true;
	return true;
}

/* The last ": " of the line, where git's title ends. */
static const char *find_title_end(const char *s, size_t len)
{
	size_t i;
	for (i = len; i >= 2; i--)
		if (s[i - 2] == ':' && s[i - 1] == ' ')
			return s + i - 2;
	return NULL;
}

static int set_phase(struct wg_progress_parser *p, const char *s, size_t len)
{
	wg_buf_reset(&p->phase);
	return wg_buf_add(&p->phase, s, len);
}

/* Describe the completed line in p->line. Returns 0 with *have_event set
 * when there is something to report. */
static int make_event(struct wg_progress_parser *p, struct wg_progress_event *ev, bool eol,
		      bool *have_event)
{
	const char *s;
	size_t len = p->line.len;
	struct cursor all;
	const char *colon;
	int err;
	*have_event = false;
	/* git pads a shorter redraw with spaces to clear the longer one. */
	while (len && p->line.data[len - 1] == ' ')
		len--;
	wg_buf_setlen(&p->line, len);
	if (!len)
		return 0;
	s = (const char *)p->line.data;
	memset(ev, 0, sizeof(*ev));
	ev->line = s;
	ev->eol = eol;
	ev->kind = WG_PROGRESS_UPDATE;
	all.p = s, all.end = s + len;

	if (parse_total(all, ev)) {
		wg_buf_reset(&p->title);
		err = set_phase(p, "Total", 5);
	} else if (s[0] == ' ' && p->title.len && parse_counters(all, ev)) {
		/* The second line of git's two-line display. */
		err = set_phase(p, (const char *)p->title.data, p->title.len);
	} else if ((colon = find_title_end(s, len)) && colon > s &&
		   parse_counters((struct cursor){ colon + 2, s + len }, ev)) {
		wg_buf_reset(&p->title);
		err = set_phase(p, s, (size_t)(colon - s));
	} else {
		memset(ev, 0, sizeof(*ev));
		ev->line = s;
		ev->eol = eol;
		ev->kind = WG_PROGRESS_MESSAGE;
		wg_buf_reset(&p->title);
		/* "Title:" alone may start a two-line display; it is still
		 * shown as a message, since it may just be text. */
		if (len > 1 && s[len - 1] == ':' && s[0] != ' ')
			err = wg_buf_add(&p->title, s, len - 1);
		else
			err = 0;
		if (!err)
			err = set_phase(p, "", 0);
	}
	if (err)
		return err;
	if (ev->finished)
		wg_buf_reset(&p->title);
	ev->phase = wg_buf_cstr(&p->phase);
	*have_event = true;
	return 0;
}

/* --- line assembly --------------------------------------------------------------- */

/* Move the pending line to p->line and describe it. */
static int complete_line(struct wg_progress_parser *p, struct wg_progress_event *out, bool eol,
			 bool *have_event)
{
	struct wg_buf tmp = p->line;
	p->line = p->pending;
	p->pending = tmp;
	wg_buf_reset(&p->pending);
	return make_event(p, out, eol, have_event);
}

int wg_progress_parser_next(struct wg_progress_parser *p, struct wg_progress_event *out,
			    const unsigned char **in, size_t *in_len)
{
	while (*in_len) {
		const unsigned char *s = *in;
		size_t i, k, room = WG_PROGRESS_LINE_MAX - p->pending.len;
		bool have_event = false, eol;
		int err;
		if (!room && *s != '\r' && *s != '\n') {
			/* A full line and more text: pass this piece on now. Only
			 * here, when the next byte is known not to end the line,
			 * so the result does not depend on the chunking. */
			if ((err = complete_line(p, out, false, &have_event)))
				return err;
			if (have_event)
				return 0;
			continue;
		}
		for (i = 0; i < *in_len && i < room && s[i] != '\r' && s[i] != '\n'; i++)
			;
		if ((err = wg_buf_grow(&p->pending, i)))
			return err;
		/* Control bytes other than TAB become '?': the line is meant
		 * for a terminal or a page and comes from the network. */
		for (k = 0; k < i; k++) {
			unsigned char c = s[k];
			p->pending.data[p->pending.len + k] =
				(c < 0x20 && c != '\t') || c == 0x7f ? '?' : c;
		}
		wg_buf_setlen(&p->pending, p->pending.len + i);
		*in += i, *in_len -= i;
		if (!*in_len || (**in != '\r' && **in != '\n'))
			continue;
		eol = **in == '\n';
		(*in)++, (*in_len)--;
		if ((err = complete_line(p, out, eol, &have_event)))
			return err;
		if (have_event)
			return 0;
	}
	return WG_ENEEDMORE;
}

int wg_progress_parser_finish(struct wg_progress_parser *p, struct wg_progress_event *out)
{
	bool have_event = false;
	int err;
	if (!p->pending.len)
		return WG_ITEROVER;
	if ((err = complete_line(p, out, false, &have_event)))
		return err;
	return have_event ? 0 : WG_ITEROVER;
}
