#include "worktree/convert.h"

#include <string.h>

#include "repo/config.h"
#include "util/error.h"

/* --- config --------------------------------------------------------------------------- */

static bool ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a | 0x20) != (*b | 0x20))
			return false;
	return !*a && !*b;
}

int wg_autocrlf_parse(enum wg_autocrlf *out, const char *value)
{
	bool b;
	int err;

	if (value && ieq(value, "input")) {
		*out = WG_AUTOCRLF_INPUT;
		return 0;
	}
	/* (a bare "autocrlf" key, value NULL, is true to git) */
	if ((err = wg_config_bool_value("core.autocrlf", value, &b)))
		return err;
	*out = b ? WG_AUTOCRLF_TRUE : WG_AUTOCRLF_FALSE;
	return 0;
}

void wg_core_eol_parse(enum wg_core_eol *out, const char *value)
{
	if (value && (ieq(value, "lf") || ieq(value, "native")))
		*out = WG_CORE_EOL_LF;
	else if (value && ieq(value, "crlf"))
		*out = WG_CORE_EOL_CRLF;
	else
		*out = WG_CORE_EOL_UNSET;
}

/* --- the decision --------------------------------------------------------------------- */

/* git's git_path_check_crlf, for the text and the old crlf attribute. */
static enum wg_crlf_action check_crlf(const struct wg_attr_value *v)
{
	if (!v || v->state == WG_ATTR_UNSPECIFIED)
		return WG_CRLF_UNDEFINED;
	if (v->state == WG_ATTR_SET)
		return WG_CRLF_TEXT;
	if (v->state == WG_ATTR_UNSET)
		return WG_CRLF_BINARY;
	if (!strcmp(v->value, "input"))
		return WG_CRLF_TEXT_INPUT;
	if (!strcmp(v->value, "auto"))
		return WG_CRLF_AUTO;
	return WG_CRLF_UNDEFINED;
}

/* Where a text file's lines end in the working tree without an eol
 * attribute: git's text_eol_is_crlf. */
static bool text_eol_is_crlf(const struct wg_eol_config *cfg)
{
	if (cfg->autocrlf == WG_AUTOCRLF_TRUE)
		return true;
	if (cfg->autocrlf == WG_AUTOCRLF_INPUT)
		return false;
	return cfg->eol == WG_CORE_EOL_CRLF;
}

void wg_convert_attrs(struct wg_conv_attrs *out, const struct wg_attr_value *text,
		      const struct wg_attr_value *eol, const struct wg_attr_value *crlf,
		      const struct wg_eol_config *cfg)
{
	enum wg_crlf_action a = check_crlf(text);

	if (a == WG_CRLF_UNDEFINED)
		a = check_crlf(crlf);
	if (a != WG_CRLF_BINARY && eol && eol->state == WG_ATTR_VALUE) {
		/* eol=lf|crlf makes a path text when nothing said */
		bool lf = !strcmp(eol->value, "lf"), cr = !strcmp(eol->value, "crlf");
		if (a == WG_CRLF_AUTO && (lf || cr))
			a = lf ? WG_CRLF_AUTO_INPUT : WG_CRLF_AUTO_CRLF;
		else if (lf)
			a = WG_CRLF_TEXT_INPUT;
		else if (cr)
			a = WG_CRLF_TEXT_CRLF;
	}
	out->attr_action = a;
	if (a == WG_CRLF_TEXT)
		a = text_eol_is_crlf(cfg) ? WG_CRLF_TEXT_CRLF : WG_CRLF_TEXT_INPUT;
	else if (a == WG_CRLF_UNDEFINED)
		a = cfg->autocrlf == WG_AUTOCRLF_TRUE	 ? WG_CRLF_AUTO_CRLF
		    : cfg->autocrlf == WG_AUTOCRLF_INPUT ? WG_CRLF_AUTO_INPUT
							 : WG_CRLF_BINARY;
	out->crlf_action = a;
}

const char *wg_convert_attr_ascii(enum wg_crlf_action a)
{
	switch (a) {
	case WG_CRLF_BINARY: return "-text";
	case WG_CRLF_TEXT: return "text";
	case WG_CRLF_TEXT_INPUT: return "text eol=lf";
	case WG_CRLF_TEXT_CRLF: return "text eol=crlf";
	case WG_CRLF_AUTO: return "text=auto";
	case WG_CRLF_AUTO_CRLF: return "text=auto eol=crlf";
	case WG_CRLF_AUTO_INPUT: return "text=auto eol=lf";
	case WG_CRLF_UNDEFINED: break;
	}
	return "";
}

/* --- content statistics --------------------------------------------------------------- */

void wg_text_stat_init(struct wg_text_stat *st)
{
	memset(st, 0, sizeof(*st));
}

void wg_text_stat_update(struct wg_text_stat *st, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i = 0;

	if (!len)
		return;
	if (st->held_cr) {
		st->held_cr = false;
		if (p[0] == '\n') {
			st->crlf++;
			i = 1;
		} else {
			st->lonecr++;
		}
	}
	for (; i < len; i++) {
		unsigned char c = p[i];
		if (c == '\r') {
			if (i + 1 == len)
				st->held_cr = true;  /* its partner may come next */
			else if (p[i + 1] == '\n')
				st->crlf++, i++;
			else
				st->lonecr++;
		} else if (c == '\n') {
			st->lonelf++;
		} else if (c == 127) {
			st->nonprintable++;
		} else if (c < 32) {
			/* BS, HT, ESC and FF pass for text */
			if (c == '\b' || c == '\t' || c == '\033' || c == '\014') {
				st->printable++;
			} else {
				if (!c)
					st->nul++;
				st->nonprintable++;
			}
		} else {
			st->printable++;
		}
	}
	st->size += len;
	st->last = p[len - 1];
}

void wg_text_stat_finish(struct wg_text_stat *st)
{
	if (st->held_cr) {
		st->held_cr = false;
		st->lonecr++;
	}
	/* a final ^Z (DOS end of file) is not held against the text */
	if (st->size && st->last == '\032') {
		st->nonprintable--;
		st->last = 0;
	}
}

void wg_text_stat_gather(struct wg_text_stat *st, const void *data, size_t len)
{
	wg_text_stat_init(st);
	wg_text_stat_update(st, data, len);
	wg_text_stat_finish(st);
}

bool wg_text_stat_is_binary(const struct wg_text_stat *st)
{
	return st->lonecr || st->nul || (st->printable >> 7) < st->nonprintable;
}

const char *wg_text_stat_ascii(const struct wg_text_stat *st)
{
	if (!st->size)
		return "none";
	if (wg_text_stat_is_binary(st))
		return "-text";
	if (st->crlf && st->lonelf)
		return "mixed";
	if (st->crlf)
		return "crlf";
	return st->lonelf ? "lf" : "none";
}

bool wg_text_stat_index_has_crlf(const struct wg_text_stat *blob)
{
	return blob->crlf && !wg_text_stat_is_binary(blob);
}

/* --- the per-content decision --------------------------------------------------------- */

static bool is_auto(enum wg_crlf_action a)
{
	return a == WG_CRLF_AUTO || a == WG_CRLF_AUTO_INPUT || a == WG_CRLF_AUTO_CRLF;
}

/* git's output_eol: does the working tree want CRLF? */
static bool output_crlf(enum wg_crlf_action a, const struct wg_eol_config *cfg)
{
	switch (a) {
	case WG_CRLF_TEXT_CRLF:
	case WG_CRLF_UNDEFINED:
	case WG_CRLF_AUTO_CRLF:
		return true;
	case WG_CRLF_TEXT:
	case WG_CRLF_AUTO:
		return text_eol_is_crlf(cfg);
	case WG_CRLF_BINARY:
	case WG_CRLF_TEXT_INPUT:
	case WG_CRLF_AUTO_INPUT:
		break;
	}
	return false;
}

enum wg_eol_conv wg_convert_checkout(const struct wg_conv_attrs *ca,
				     const struct wg_eol_config *cfg,
				     const struct wg_text_stat *blob)
{
	if (!output_crlf(ca->crlf_action, cfg))
		return WG_EOL_CONV_NONE;
	if (!blob)
		return is_auto(ca->crlf_action) ? WG_EOL_CONV_NEED_STATS : WG_EOL_CONV_LF_TO_CRLF;
	if (!blob->size || !blob->lonelf)
		return WG_EOL_CONV_NONE;
	/* text=auto leaves anything with a CR in it, or binary, alone */
	if (is_auto(ca->crlf_action) &&
	    (blob->lonecr || blob->crlf || wg_text_stat_is_binary(blob)))
		return WG_EOL_CONV_NONE;
	return WG_EOL_CONV_LF_TO_CRLF;
}

enum wg_eol_conv wg_convert_checkin(const struct wg_conv_attrs *ca,
				    const struct wg_text_stat *file, bool index_has_crlf)
{
	if (ca->crlf_action == WG_CRLF_BINARY)
		return WG_EOL_CONV_NONE;
	if (!file)
		return WG_EOL_CONV_NEED_STATS;
	if (!file->crlf)
		return WG_EOL_CONV_NONE;
	/* text=auto: binary content stays, and so does a file that was
	 * already in the index with CRLF in it */
	if (is_auto(ca->crlf_action) && (wg_text_stat_is_binary(file) || index_has_crlf))
		return WG_EOL_CONV_NONE;
	return WG_EOL_CONV_CRLF_TO_LF;
}

/* --- the conversions ------------------------------------------------------------------ */

int wg_convert_buffer(struct wg_buf *out, enum wg_eol_conv conv, const void *data, size_t len)
{
	const char *src = data, *end = src + len;
	int err = 0;

	if (conv == WG_EOL_CONV_LF_TO_CRLF) {
		/* each LF that has no CR before it gets one (crlf_to_worktree) */
		while (!err && src < end) {
			const char *nl = memchr(src, '\n', (size_t)(end - src));
			if (!nl)
				break;
			if (nl > src && nl[-1] == '\r')
				err = wg_buf_add(out, src, (size_t)(nl + 1 - src));
			else if (!(err = wg_buf_add(out, src, (size_t)(nl - src))))
				err = wg_buf_add(out, "\r\n", 2);
			src = nl + 1;
		}
	} else if (conv == WG_EOL_CONV_CRLF_TO_LF) {
		/* each CR that an LF follows goes (crlf_to_git) */
		while (!err && src < end) {
			const char *cr = memchr(src, '\r', (size_t)(end - src));
			if (!cr)
				break;
			if (cr + 1 < end && cr[1] == '\n')
				err = wg_buf_add(out, src, (size_t)(cr - src));
			else
				err = wg_buf_add(out, src, (size_t)(cr + 1 - src));
			src = cr + 1;
		}
	}
	if (!err)
		err = wg_buf_add(out, src, (size_t)(end - src));
	return err ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

void wg_eol_stream_init(struct wg_eol_stream *s, enum wg_eol_conv conv)
{
	s->conv = conv;
	s->held_cr = false;
	s->prev_cr = false;
}

int wg_eol_stream_feed(struct wg_eol_stream *s, struct wg_buf *out, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	if (!len)
		return 0;
	/* the output is at most twice the input, plus a held CR */
	if (wg_buf_grow(out, len * 2 + 1))
		return wg_error_set(WG_ENOMEM, "out of memory");
	switch (s->conv) {
	case WG_EOL_CONV_LF_TO_CRLF:
		/* no byte needs holding: an LF only asks what came before */
		for (i = 0; i < len; i++) {
			if (p[i] == '\n' && !s->prev_cr)
				out->data[out->len++] = '\r';
			out->data[out->len++] = p[i];
			s->prev_cr = p[i] == '\r';
		}
		break;
	case WG_EOL_CONV_CRLF_TO_LF:
		for (i = 0; i < len; i++) {
			if (s->held_cr) {
				s->held_cr = false;
				if (p[i] != '\n')
					out->data[out->len++] = '\r';
			}
			if (p[i] == '\r')
				s->held_cr = true;
			else
				out->data[out->len++] = p[i];
		}
		break;
	default:
		memcpy(out->data + out->len, p, len);
		out->len += len;
		break;
	}
	out->data[out->len] = '\0';
	return 0;
}

int wg_eol_stream_finish(struct wg_eol_stream *s, struct wg_buf *out)
{
	if (s->held_cr) {
		s->held_cr = false;
		if (wg_buf_addch(out, '\r'))
			return wg_error_set(WG_ENOMEM, "out of memory");
	}
	return 0;
}
