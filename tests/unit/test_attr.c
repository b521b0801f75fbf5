/* Unit tests for core/worktree/attr.c and convert.c: the syntax, macros
 * and precedence by example (t24-attr.sh compares many more cases with
 * git itself), the line-ending decision for every combination, text=auto
 * detection, the streaming converter split at every offset, and
 * allocation failures. */
#include <string.h>

#include "fixtures.h"
#include "test.h"
#include "util/alloc.h"
#include "worktree/attr.h"
#include "worktree/convert.h"

/* An in-memory tree of attributes files: "dir\0contents" pairs. */
struct files {
	const char *global, *info;
	const char *dirs[8][2];
	bool blob;
	struct wg_buf warnings;
	int reads;
};

static int read_cb(void *payload, enum wg_attr_file_kind kind, const char *dir,
		   struct wg_attr_file *out)
{
	struct files *f = payload;
	const char *text = NULL;

	f->reads++;
	if (kind == WG_ATTR_FILE_GLOBAL)
		text = f->global;
	else if (kind == WG_ATTR_FILE_INFO)
		text = f->info;
	else
		for (int i = 0; i < 8 && f->dirs[i][0]; i++)
			if (!strcmp(f->dirs[i][0], dir))
				text = f->dirs[i][1];
	if (!text)
		return WG_ENOTFOUND;
	out->blob = f->blob;
	if (wg_buf_adds(&out->data, text) || wg_buf_printf(&out->name, "%s%s.gitattributes", dir ? dir : "",
							     dir && *dir ? "/" : ""))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}

static void warn_cb(void *payload, const char *line)
{
	struct files *f = payload;
	wg_buf_adds(&f->warnings, line);
	wg_buf_addch(&f->warnings, '\n');
}

static struct wg_attr *engine(struct files *f)
{
	struct wg_attr_options o = { read_cb, warn_cb, f, false };
	struct wg_attr *a = NULL;
	CHECK_OK(wg_attr_new(&a, &o));
	return a;
}

/* "name=state" for one attribute of path: set, unset, unspecified or the value. */
static const char *get(struct wg_attr *a, const char *path, const char *name)
{
	static char buf[256];
	struct wg_attr_value v;
	unsigned id;

	if (wg_attr_intern(a, name, &id) || wg_attr_check(a, path, &id, 1, &v))
		return "(error)";
	switch (v.state) {
	case WG_ATTR_SET: return "set";
	case WG_ATTR_UNSET: return "unset";
	case WG_ATTR_UNSPECIFIED: return "unspecified";
	case WG_ATTR_VALUE: snprintf(buf, sizeof(buf), "=%s", v.value); return buf;
	}
	return "?";
}

/* Everything -a lists for path, as "name:state " pairs. */
static const char *all(struct wg_attr *a, const char *path)
{
	static char buf[1024];
	const struct wg_attr_item *items;
	size_t n, len = 0;

	buf[0] = '\0';
	if (wg_attr_check_all(a, path, &items, &n))
		return "(error)";
	for (size_t i = 0; i < n; i++) {
		const struct wg_attr_value *v = &items[i].v;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s:%s", i ? " " : "",
					wg_attr_name(a, items[i].id),
					v->state == WG_ATTR_SET ? "set" : v->state == WG_ATTR_UNSET ? "unset" : v->value);
	}
	return buf;
}

static void test_syntax(void)
{
	struct files f = { .dirs = { { "", "# comment\n"
					    "  *.c\ttext  -diff !merge a=b=c e=  \n"
					    "\"q x\" quoted\n"
					    "\"bad\\q\" x\n"
					    "!neg y\n"
					    "*.h bad%name ok\n"
					    "*.h builtin_objectmode\n"
					    "x.c -text\n"
					    "dir/ isdir\n"
					    "/top only-top\n" } } };
	struct wg_attr *a = engine(&f);

	CHECK_STR(all(a, "x.c"), "diff:unset text:unset a:b=c e:");
	CHECK_STR(get(a, "y.c", "text"), "set");
	CHECK_STR(get(a, "y.c", "merge"), "unspecified");
	CHECK_STR(get(a, "q x", "quoted"), "set");
	CHECK_STR(get(a, "\"badq\"", "x"), "set");  /* a bad quote is a plain pattern */
	CHECK_STR(get(a, "neg", "y"), "unspecified");
	CHECK_STR(get(a, "z.h", "ok"), "unspecified"); /* a bad name drops the line */
	CHECK_STR(get(a, "dir", "isdir"), "unspecified");
	CHECK_STR(get(a, "dir/", "isdir"), "set");
	CHECK_STR(get(a, "sub/dir/", "isdir"), "set");
	CHECK_STR(get(a, "dir/file", "isdir"), "unspecified"); /* not recursive */
	CHECK_STR(get(a, "top", "only-top"), "set");
	CHECK_STR(get(a, "sub/top", "only-top"), "unspecified");
	CHECK(strstr((char *)f.warnings.data, "warning: Negative patterns are ignored in git attributes\n"
					      "Use '\\!' for literal leading exclamation.\n") != NULL);
	CHECK(strstr((char *)f.warnings.data, "bad%name is not a valid attribute name: .gitattributes:6\n"));
	CHECK(strstr((char *)f.warnings.data, "builtin_objectmode is not a valid attribute name: .gitattributes:7\n"));
	CHECK(wg_attr_intern(a, "-x", &(unsigned){ 0 }) == WG_EINVALID);
	wg_attr_free(a);
	wg_buf_release(&f.warnings);
}

static void test_macros_and_precedence(void)
{
	struct files f = {
		.global = "[attr]gm g1 -g2\n* glob=1 gm\n*.c mac\n",
		.info = "*.c info=1\n[attr]mac m1 m2=v\n",
		.dirs = { { "", "[attr]mac top1\n* lvl=top\n*.bin binary\n*.c -m1\n" },
			  { "d", "[attr]sub x\n* lvl=d\n*.c mac\n" },
			  { "d/e", "* lvl=e\n" } },
	};
	struct wg_attr *a = engine(&f);

	/* the deepest .gitattributes wins, info/attributes beats all */
	CHECK_STR(get(a, "f", "lvl"), "=top");
	CHECK_STR(get(a, "d/f", "lvl"), "=d");
	CHECK_STR(get(a, "d/e/f", "lvl"), "=e");
	CHECK_STR(get(a, "d/e/f", "glob"), "=1");
	CHECK_STR(get(a, "d/e/f.c", "info"), "=1");
	/* info's macro definition wins; a line that sets m1 outright beats
	 * the macro only when it is nearer the top */
	CHECK_STR(get(a, "d/x.c", "m2"), "=v");
	CHECK_STR(get(a, "d/x.c", "m1"), "set");
	CHECK_STR(get(a, "x.c", "m1"), "unset");
	CHECK_STR(get(a, "x.c", "top1"), "unspecified");
	/* a macro in a subdirectory is refused */
	CHECK_STR(get(a, "d/x", "sub"), "unspecified");
	CHECK(strstr((char *)f.warnings.data, "[attr]sub x not allowed: d/.gitattributes:1\n"));
	/* binary, and -a order: the dictionary's, names in the order they
	 * were first seen ("lvl" by the first check above, then the built-in
	 * macro, then the files in the order git reads them) */
	CHECK_STR(all(a, "p.bin"), "lvl:top binary:set diff:unset merge:unset text:unset gm:set g1:set g2:unset glob:1");
	wg_attr_free(a);
	wg_buf_release(&f.warnings);
}

static void test_file_kinds(void)
{
	/* a file: CRLF and a BOM go; a blob: a NUL ends everything */
	struct files f = { .dirs = { { "", "\xef\xbb\xbf*.c a\r\n*.h b\r\n" } } };
	struct wg_attr *a = engine(&f);
	CHECK_STR(get(a, "x.c", "a"), "set");
	CHECK_STR(get(a, "x.h", "b"), "set");
	wg_attr_free(a);

	f.blob = true;
	a = engine(&f);
	CHECK_STR(get(a, "x.c", "a"), "unspecified"); /* the BOM stays in a blob */
	CHECK_STR(get(a, "x.h", "b"), "set");
	wg_attr_free(a);
	wg_buf_release(&f.warnings);
}

static void test_limits(void)
{
	static char big[WG_ATTR_MAX_LINE + 64];
	struct files f = { .dirs = { { "", big } } };
	struct wg_attr *a;

	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, "* a\n* b=", 8);
	a = engine(&f);
	CHECK_STR(get(a, "x", "a"), "set");
	CHECK_STR(get(a, "x", "b"), "unspecified");
	CHECK_STR((char *)f.warnings.data, "warning: ignoring overly long attributes line 2\n");
	wg_attr_free(a);
	wg_buf_release(&f.warnings);
}

static void test_alloc_failures(void)
{
	struct files f = { .global = "[attr]m a b=c\n* m\n", .info = "*.c \"x\"\n",
			   .dirs = { { "", "*.c text eol=crlf\n\"q\\tx\" y\n" }, { "d", "* z\n" } } };
	int ok = 0;

	for (int fail = 0; fail < 200; fail++) {
		struct wg_attr_options o = { read_cb, NULL, &f, false };
		struct wg_attr *a = NULL;
		const struct wg_attr_item *items;
		size_t n;
		int err;

		fx_fail_at = fail;
		fx_alloc_count = 0;
		wg_allocator_set(&fx_failing_allocator);
		err = wg_attr_new(&a, &o);
		if (!err)
			err = wg_attr_check_all(a, "d/x.c", &items, &n);
		if (!err)
			err = wg_attr_check_all(a, "q\tx", &items, &n);
		wg_allocator_set(NULL);
		CHECK(err == 0 || err == WG_ENOMEM);
		if (!err)
			ok++;
		wg_attr_free(a);
	}
	CHECK(ok > 0);
}

/* --- conversion ----------------------------------------------------------------------- */

static struct wg_attr_value av(const char *s)
{
	struct wg_attr_value v = { WG_ATTR_VALUE, s };
	if (!s)
		v.state = WG_ATTR_UNSPECIFIED;
	else if (!strcmp(s, "+"))
		v.state = WG_ATTR_SET;
	else if (!strcmp(s, "-"))
		v.state = WG_ATTR_UNSET;
	return v;
}

/* git's table, written out from gitattributes(5) and convert.c's rules
 * (t24 checks the same against git's bytes). */
static void test_decision_table(void)
{
	static const struct {
		const char *text, *eol, *crlf;
		enum wg_crlf_action attr;
	} rows[] = {
		{ NULL, NULL, NULL, WG_CRLF_UNDEFINED },
		{ "+", NULL, NULL, WG_CRLF_TEXT },
		{ "-", NULL, NULL, WG_CRLF_BINARY },
		{ "auto", NULL, NULL, WG_CRLF_AUTO },
		{ "input", NULL, NULL, WG_CRLF_TEXT_INPUT },
		{ "bogus", NULL, NULL, WG_CRLF_UNDEFINED },
		{ "+", "lf", NULL, WG_CRLF_TEXT_INPUT },
		{ "+", "crlf", NULL, WG_CRLF_TEXT_CRLF },
		{ "auto", "lf", NULL, WG_CRLF_AUTO_INPUT },
		{ "auto", "crlf", NULL, WG_CRLF_AUTO_CRLF },
		{ NULL, "crlf", NULL, WG_CRLF_TEXT_CRLF },
		{ NULL, "lf", NULL, WG_CRLF_TEXT_INPUT },
		{ NULL, "bogus", NULL, WG_CRLF_UNDEFINED },
		{ "-", "crlf", NULL, WG_CRLF_BINARY },
		{ NULL, NULL, "+", WG_CRLF_TEXT },
		{ NULL, NULL, "-", WG_CRLF_BINARY },
		{ NULL, NULL, "input", WG_CRLF_TEXT_INPUT },
		{ NULL, NULL, "auto", WG_CRLF_AUTO },
		{ "+", NULL, "-", WG_CRLF_TEXT },
		{ "bogus", NULL, "-", WG_CRLF_BINARY },
	};
	static const enum wg_autocrlf acs[] = { WG_AUTOCRLF_FALSE, WG_AUTOCRLF_TRUE, WG_AUTOCRLF_INPUT };
	static const enum wg_core_eol eols[] = { WG_CORE_EOL_UNSET, WG_CORE_EOL_LF, WG_CORE_EOL_CRLF };
	struct wg_text_stat lf, crlf, bin;

	wg_text_stat_gather(&lf, "a\nb\n", 4);
	wg_text_stat_gather(&crlf, "a\r\nb\n", 5);
	wg_text_stat_gather(&bin, "a\0\nb\n", 5);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		for (size_t i = 0; i < 3; i++)
			for (size_t j = 0; j < 3; j++) {
				struct wg_eol_config cfg = { acs[i], eols[j] };
				struct wg_attr_value t = av(rows[r].text), e = av(rows[r].eol),
						     c = av(rows[r].crlf);
				struct wg_conv_attrs ca;
				enum wg_crlf_action want = rows[r].attr;
				bool crlf_out;

				wg_convert_attrs(&ca, &t, &e, &c, &cfg);
				CHECK(ca.attr_action == want);
				/* the config decides what the attributes left open */
				if (want == WG_CRLF_TEXT)
					want = cfg.autocrlf == WG_AUTOCRLF_TRUE ||
					       (cfg.autocrlf == WG_AUTOCRLF_FALSE && cfg.eol == WG_CORE_EOL_CRLF)
						       ? WG_CRLF_TEXT_CRLF : WG_CRLF_TEXT_INPUT;
				if (want == WG_CRLF_UNDEFINED)
					want = cfg.autocrlf == WG_AUTOCRLF_TRUE ? WG_CRLF_AUTO_CRLF
					       : cfg.autocrlf == WG_AUTOCRLF_INPUT ? WG_CRLF_AUTO_INPUT
					       : WG_CRLF_BINARY;
				CHECK(ca.crlf_action == want);
				crlf_out = want == WG_CRLF_TEXT_CRLF || want == WG_CRLF_AUTO_CRLF ||
					   (want == WG_CRLF_AUTO && (cfg.autocrlf == WG_AUTOCRLF_TRUE ||
								     (cfg.autocrlf == WG_AUTOCRLF_FALSE &&
								      cfg.eol == WG_CORE_EOL_CRLF)));
				CHECK(wg_convert_checkout(&ca, &cfg, &lf) ==
				      (crlf_out ? WG_EOL_CONV_LF_TO_CRLF : WG_EOL_CONV_NONE));
				/* text=auto leaves content with CRLF or binary alone */
				CHECK(wg_convert_checkout(&ca, &cfg, &crlf) ==
				      (crlf_out && (want == WG_CRLF_TEXT_CRLF) ? WG_EOL_CONV_LF_TO_CRLF
									       : WG_EOL_CONV_NONE));
				CHECK(wg_convert_checkout(&ca, &cfg, &bin) ==
				      (crlf_out && (want == WG_CRLF_TEXT_CRLF) ? WG_EOL_CONV_LF_TO_CRLF
									       : WG_EOL_CONV_NONE));
				CHECK(wg_convert_checkin(&ca, &lf, false) == WG_EOL_CONV_NONE);
				CHECK(wg_convert_checkin(&ca, &crlf, false) ==
				      (want == WG_CRLF_BINARY ? WG_EOL_CONV_NONE : WG_EOL_CONV_CRLF_TO_LF));
				CHECK(wg_convert_checkin(&ca, &crlf, true) ==
				      (want == WG_CRLF_BINARY || want == WG_CRLF_AUTO ||
				       want == WG_CRLF_AUTO_CRLF || want == WG_CRLF_AUTO_INPUT
					       ? WG_EOL_CONV_NONE : WG_EOL_CONV_CRLF_TO_LF));
			}
	CHECK_STR(wg_convert_attr_ascii(WG_CRLF_AUTO_CRLF), "text=auto eol=crlf");
	CHECK_STR(wg_convert_attr_ascii(WG_CRLF_UNDEFINED), "");
}

static void test_detection(void)
{
	static const struct { const char *data; size_t len; const char *ascii; } v[] = {
		{ "", 0, "none" },
		{ "abc", 3, "none" },
		{ "a\nb\n", 4, "lf" },
		{ "a\r\nb\r\n", 6, "crlf" },
		{ "a\r\nb\n", 5, "mixed" },
		{ "a\rb\n", 4, "-text" },     /* a lone CR */
		{ "a\r", 2, "-text" },        /* ... also at the end */
		{ "a\0b\n", 4, "-text" },     /* a NUL */
		{ "\x01\x02 ab\n", 6, "-text" },
		{ "a\nb\x1a", 4, "lf" },      /* a final ^Z is forgiven */
		{ "\b\t\033\014x\n", 6, "lf" },
	};
	char many[300];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct wg_text_stat st;
		wg_text_stat_gather(&st, v[i].data, v[i].len);
		CHECK_STR(wg_text_stat_ascii(&st), v[i].ascii);
	}
	/* one control character per 128 printable ones is still text */
	memset(many, 'x', sizeof(many));
	many[0] = 1;
	many[1] = 2;
	for (size_t n = 200; n <= 300; n += 100) {
		struct wg_text_stat st;
		wg_text_stat_gather(&st, many, n);
		CHECK(wg_text_stat_is_binary(&st) == (n < 258));
	}
}

/* The streamed stats and conversions equal the whole-buffer ones, split
 * at every offset (and in two places at once). */
static void test_stream_every_split(void)
{
	static const char *inputs[] = { "a\r\nb\nc\rd\r\r\ne\n\r", "\r\n\r\n", "\n\n\r", "\r", "x\r\r",
					"one\r\ntwo\nthree\r\n\032" };
	static const enum wg_eol_conv convs[] = { WG_EOL_CONV_NONE, WG_EOL_CONV_LF_TO_CRLF,
						  WG_EOL_CONV_CRLF_TO_LF };

	for (size_t k = 0; k < sizeof(inputs) / sizeof(inputs[0]); k++) {
		const char *in = inputs[k];
		size_t len = strlen(in);
		struct wg_text_stat whole;
		wg_text_stat_gather(&whole, in, len);
		for (size_t c = 0; c < 3; c++) {
			struct wg_buf want = WG_BUF_INIT;
			CHECK_OK(wg_convert_buffer(&want, convs[c], in, len));
			for (size_t i = 0; i <= len; i++)
				for (size_t j = i; j <= len; j++) {
					struct wg_eol_stream s;
					struct wg_buf got = WG_BUF_INIT;
					struct wg_text_stat st;
					wg_eol_stream_init(&s, convs[c]);
					wg_text_stat_init(&st);
					CHECK_OK(wg_eol_stream_feed(&s, &got, in, i));
					CHECK_OK(wg_eol_stream_feed(&s, &got, in + i, j - i));
					CHECK_OK(wg_eol_stream_feed(&s, &got, in + j, len - j));
					CHECK_OK(wg_eol_stream_finish(&s, &got));
					wg_text_stat_update(&st, in, i);
					wg_text_stat_update(&st, in + i, j - i);
					wg_text_stat_update(&st, in + j, len - j);
					wg_text_stat_finish(&st);
					CHECK(got.len == want.len && !memcmp(got.data, want.data, got.len));
					CHECK(st.crlf == whole.crlf && st.lonecr == whole.lonecr &&
					      st.lonelf == whole.lonelf && st.nonprintable == whole.nonprintable &&
					      st.printable == whole.printable);
					wg_buf_release(&got);
				}
			wg_buf_release(&want);
		}
	}
	{
		struct wg_buf b = WG_BUF_INIT;
		CHECK_OK(wg_convert_buffer(&b, WG_EOL_CONV_LF_TO_CRLF, "a\nb\r\nc", 6));
		CHECK_STR(wg_buf_cstr(&b), "a\r\nb\r\nc");
		wg_buf_reset(&b);
		CHECK_OK(wg_convert_buffer(&b, WG_EOL_CONV_CRLF_TO_LF, "a\r\nb\rc\r", 7));
		CHECK_STR(wg_buf_cstr(&b), "a\nb\rc\r");
		wg_buf_release(&b);
	}
}

static void test_config_values(void)
{
	enum wg_autocrlf ac;
	enum wg_core_eol e;

	CHECK_OK(wg_autocrlf_parse(&ac, "Input"));
	CHECK(ac == WG_AUTOCRLF_INPUT);
	CHECK_OK(wg_autocrlf_parse(&ac, "yes"));
	CHECK(ac == WG_AUTOCRLF_TRUE);
	CHECK_OK(wg_autocrlf_parse(&ac, NULL));
	CHECK(ac == WG_AUTOCRLF_TRUE);
	CHECK_ERR(wg_autocrlf_parse(&ac, "maybe"), WG_EINVALID);
	wg_core_eol_parse(&e, "CRLF");
	CHECK(e == WG_CORE_EOL_CRLF);
	wg_core_eol_parse(&e, "native");
	CHECK(e == WG_CORE_EOL_LF);
	wg_core_eol_parse(&e, "what");
	CHECK(e == WG_CORE_EOL_UNSET);
}

WG_TEST_MAIN("attr",
	WG_TEST(test_syntax),
	WG_TEST(test_macros_and_precedence),
	WG_TEST(test_file_kinds),
	WG_TEST(test_limits),
	WG_TEST(test_alloc_failures),
	WG_TEST(test_decision_table),
	WG_TEST(test_detection),
	WG_TEST(test_stream_every_split),
	WG_TEST(test_config_values))
