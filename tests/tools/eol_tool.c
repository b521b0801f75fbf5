/* eol_tool: for t24-attr.sh, core/worktree/convert.c from the command
 * line. The attributes come as `webgit check-attr text eol crlf` prints
 * them (set, unset, unspecified or a value), the config as git spells it
 * ("-" for unset):
 *
 *   eol_tool all TEXT EOL CRLF BLOBDIR OUTDIR FILE...
 *	for each of git's configurations, what git checkout, git ls-files
 *	--eol and git add give (see run_all)
 *   eol_tool checkin TEXT EOL CRLF AUTOCRLF COREEOL INDEXBLOB < file > blob
 *	the blob git add stores (INDEXBLOB: the index's current content,
 *	"-" for none) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"
#include "worktree/convert.h"

static struct wg_attr_value attr_arg(const char *s)
{
	struct wg_attr_value v = { WG_ATTR_VALUE, s };
	if (!strcmp(s, "set"))
		v.state = WG_ATTR_SET;
	else if (!strcmp(s, "unset"))
		v.state = WG_ATTR_UNSET;
	else if (!strcmp(s, "unspecified"))
		v.state = WG_ATTR_UNSPECIFIED;
	return v;
}

static int read_all(FILE *f, struct wg_buf *b)
{
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (wg_buf_add(b, chunk, n))
			return -1;
	return ferror(f) ? -1 : 0;
}

static int die(const char *what)
{
	fprintf(stderr, "eol_tool: %s: %s\n", what, wg_error_message());
	return 2;
}

static int load(struct wg_buf *b, const char *dir, const char *name)
{
	struct wg_buf path = WG_BUF_INIT;
	int err;
	wg_buf_reset(b);
	err = wg_fs_join(&path, dir, name) || wg_fs_read_file(b, wg_buf_cstr(&path));
	wg_buf_release(&path);
	return err;
}

/* git checkout: stats first (in chunks too) when text=auto needs them,
 * then the streaming converter fed small chunks of varying size. */
static int checkout(FILE *out, const struct wg_conv_attrs *ca, const struct wg_eol_config *cfg,
		    const struct wg_buf *in)
{
	struct wg_buf chunk = WG_BUF_INIT;
	struct wg_eol_stream s;
	struct wg_text_stat st;
	enum wg_eol_conv conv = wg_convert_checkout(ca, cfg, NULL);
	size_t pos, step;

	if (conv == WG_EOL_CONV_NEED_STATS) {
		wg_text_stat_init(&st);
		for (pos = 0, step = 1; pos < in->len; pos += step, step = step % 7 + 1)
			wg_text_stat_update(&st, in->data + pos, in->len - pos < step ? in->len - pos : step);
		wg_text_stat_finish(&st);
		conv = wg_convert_checkout(ca, cfg, &st);
	}
	wg_eol_stream_init(&s, conv);
	for (pos = 0, step = 3; pos < in->len; pos += step, step = step % 5 + 1) {
		if (wg_eol_stream_feed(&s, &chunk, in->data + pos, in->len - pos < step ? in->len - pos : step))
			break;
		if (chunk.len)
			fwrite(chunk.data, 1, chunk.len, out);
		wg_buf_reset(&chunk);
	}
	if (pos >= in->len && !wg_eol_stream_finish(&s, &chunk) && chunk.len)
		fwrite(chunk.data, 1, chunk.len, out);
	wg_buf_release(&chunk);
	return pos >= in->len ? 0 : -1;
}

/* git's configurations: core.autocrlf, then core.eol ("-": unset) */
static const char *const CONFIGS[][2] = {
	{ "false", "-" }, { "false", "crlf" }, { "false", "native" },
	{ "true", "-" },  { "true", "crlf" }, { "input", "-" },   { "input", "crlf" },
};

static int write_file(const char *dir, const char *sub, const char *name, const struct wg_buf *b)
{
	struct wg_buf path = WG_BUF_INIT;
	FILE *f = NULL;
	int err = wg_buf_printf(&path, "%s/%s/%s", dir, sub, name);
	if (!err && (f = fopen(wg_buf_cstr(&path), "wb")) != NULL) {
		if (b->len)
			fwrite(b->data, 1, b->len, f);
		err = fclose(f);
	} else {
		err = -1;
	}
	wg_buf_release(&path);
	return err;
}

/* all TEXT EOL CRLF BLOBDIR OUTDIR FILE...: for each configuration C
 * ("<autocrlf>-<eol>", OUTDIR/C must exist):
 *   OUTDIR/C/FILE     the bytes git checkout writes for blob BLOBDIR/FILE
 *   OUTDIR/C/ls-eol   git ls-files --eol's lines (w/ from that checkout)
 *   OUTDIR/C/add-FILE the blob git add stores when FILE, whose index blob
 *                     is BLOBDIR/FILE, gets the content of the next FILE */
static int run_all(const struct wg_attr_value *text, const struct wg_attr_value *eol,
		   const struct wg_attr_value *crlf, const char *blobdir, const char *outdir,
		   char **files, int nfiles)
{
	struct wg_buf in = WG_BUF_INIT, out = WG_BUF_INIT, next = WG_BUF_INIT, ls = WG_BUF_INIT;
	int rc = 0;

	for (size_t c = 0; c < sizeof(CONFIGS) / sizeof(CONFIGS[0]) && !rc; c++) {
		struct wg_eol_config cfg = WG_EOL_CONFIG_INIT;
		struct wg_conv_attrs ca;
		char sub[64];

		snprintf(sub, sizeof(sub), "%s-%s", CONFIGS[c][0], strcmp(CONFIGS[c][1], "-") ? CONFIGS[c][1] : "");
		if (wg_autocrlf_parse(&cfg.autocrlf, CONFIGS[c][0]))
			return die("core.autocrlf");
		if (strcmp(CONFIGS[c][1], "-"))
			wg_core_eol_parse(&cfg.eol, CONFIGS[c][1]);
		wg_convert_attrs(&ca, text, eol, crlf, &cfg);
		wg_buf_reset(&ls);
		for (int i = 0; i < nfiles && !rc; i++) {
			struct wg_text_stat st, ws, is;
			struct wg_buf path = WG_BUF_INIT;
			FILE *f;

			if (load(&in, blobdir, files[i]) || load(&next, blobdir, files[(i + 1) % nfiles]))
				return die(files[i]);
			/* checkout, streamed */
			if (wg_buf_printf(&path, "%s/%s/%s", outdir, sub, files[i]) ||
			    !(f = fopen(wg_buf_cstr(&path), "wb")))
				return die(wg_buf_cstr(&path));
			rc = checkout(f, &ca, &cfg, &in);
			if (fclose(f))
				rc = -1;
			wg_buf_reset(&out);
			if (!rc)
				rc = wg_fs_read_file(&out, wg_buf_cstr(&path));
			wg_buf_release(&path);
			wg_text_stat_gather(&st, in.data, in.len);
			wg_text_stat_gather(&ws, out.data, out.len);
			if (!rc)
				rc = wg_buf_printf(&ls, "i/%-5s w/%-5s attr/%-17s\t%s\n",
						   wg_text_stat_ascii(&st), wg_text_stat_ascii(&ws),
						   wg_convert_attr_ascii(ca.attr_action), files[i]);
			/* check-in of the next file's content in its place */
			wg_text_stat_gather(&is, next.data, next.len);
			wg_buf_reset(&out);
			if (!rc)
				rc = wg_convert_buffer(&out,
						       wg_convert_checkin(&ca, &is, wg_text_stat_index_has_crlf(&st)),
						       next.data, next.len);
			if (!rc) {
				char name[256];
				snprintf(name, sizeof(name), "add-%s", files[i]);
				rc = write_file(outdir, sub, name, &out);
			}
		}
		if (!rc)
			rc = write_file(outdir, sub, "ls-eol", &ls);
	}
	wg_buf_release(&in);
	wg_buf_release(&out);
	wg_buf_release(&next);
	wg_buf_release(&ls);
	return rc ? die("converting") : 0;
}

int main(int argc, char **argv)
{
	struct wg_eol_config cfg = WG_EOL_CONFIG_INIT;
	struct wg_buf in = WG_BUF_INIT, out = WG_BUF_INIT, other = WG_BUF_INIT;
	struct wg_attr_value text, eol, crlf;
	struct wg_conv_attrs ca;
	struct wg_text_stat st;
	int rc = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: eol_tool (all|checkin) TEXT EOL CRLF ...\n");
		return 2;
	}
	text = attr_arg(argv[2]);
	eol = attr_arg(argv[3]);
	crlf = attr_arg(argv[4]);
	if (!strcmp(argv[1], "all") && argc >= 8)
		return run_all(&text, &eol, &crlf, argv[5], argv[6], argv + 7, argc - 7);
	if (strcmp(argv[1], "checkin") || argc != 8)
		return die("bad arguments");
	if (strcmp(argv[5], "-") && wg_autocrlf_parse(&cfg.autocrlf, argv[5]))
		return die("core.autocrlf");
	if (strcmp(argv[6], "-"))
		wg_core_eol_parse(&cfg.eol, argv[6]);
	wg_convert_attrs(&ca, &text, &eol, &crlf, &cfg);
	{
		/* checkin ... INDEXBLOB < file > blob, INDEXBLOB "-" for none */
		bool has_crlf = false;
		if (strcmp(argv[7], "-")) {
			struct wg_text_stat is;
			if (wg_fs_read_file(&other, argv[7]))
				return die(argv[7]);
			wg_text_stat_gather(&is, other.data, other.len);
			has_crlf = wg_text_stat_index_has_crlf(&is);
		}
		if (read_all(stdin, &in))
			return die("reading stdin");
		wg_text_stat_gather(&st, in.data, in.len);
		rc = wg_convert_buffer(&out, wg_convert_checkin(&ca, &st, has_crlf), in.data, in.len);
		if (!rc && out.len)
			fwrite(out.data, 1, out.len, stdout);
	}
	wg_buf_release(&in);
	wg_buf_release(&out);
	wg_buf_release(&other);
	if (rc)
		return die("converting");
	return fflush(stdout) ? 2 : 0;
}
