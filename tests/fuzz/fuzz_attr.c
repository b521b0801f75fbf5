/* Attributes (core/worktree/attr.c) and line endings (convert.c). Input:
 * one option byte (bit 0: the files are blobs, bit 1: core.ignoreCase),
 * then sections split at 0xff: the top .gitattributes, d/.gitattributes,
 * d/e/.gitattributes, info/attributes, the global file, and paths (one a
 * line). Every path is checked (all attributes, and a few by name). The
 * whole input also goes through the streaming converters and stats in
 * chunks, which must equal the whole-buffer ones. */
#include "fuzz.h"

#include "util/buf.h"
#include "util/error.h"
#include "worktree/attr.h"
#include "worktree/convert.h"

struct input {
	const uint8_t *sec[6];
	size_t len[6];
	bool blob;
};

static int read_cb(void *payload, enum wg_attr_file_kind kind, const char *dir,
		   struct wg_attr_file *out)
{
	const struct input *in = payload;
	int i = kind == WG_ATTR_FILE_GLOBAL ? 4 : kind == WG_ATTR_FILE_INFO ? 3
		: !strcmp(dir, "") ? 0 : !strcmp(dir, "d") ? 1 : !strcmp(dir, "d/e") ? 2 : -1;

	if (i < 0 || !in->sec[i])
		return WG_ENOTFOUND;
	out->blob = in->blob;
	if (wg_buf_add(&out->data, in->sec[i], in->len[i]) || wg_buf_adds(&out->name, "f"))
		return WG_ENOMEM;
	return 0;
}

static void warn_cb(void *payload, const char *line)
{
	(void)payload;
	FUZZ_ASSERT(line != NULL);
}

static void check_stream(const uint8_t *data, size_t size)
{
	static const enum wg_eol_conv convs[] = { WG_EOL_CONV_NONE, WG_EOL_CONV_LF_TO_CRLF,
						  WG_EOL_CONV_CRLF_TO_LF };
	struct wg_text_stat whole, st;

	wg_text_stat_gather(&whole, data, size);
	for (size_t c = 0; c < 3; c++) {
		struct wg_buf want = WG_BUF_INIT, got = WG_BUF_INIT;
		struct wg_eol_stream s;
		struct fz_chunks ch;
		const uint8_t *p;
		size_t n;

		if (wg_convert_buffer(&want, convs[c], data, size))
			return;
		wg_eol_stream_init(&s, convs[c]);
		wg_text_stat_init(&st);
		fz_chunks_init(&ch, data, size, fz_hash(data, size) + c);
		while ((p = fz_chunks_next(&ch, &n)) != NULL) {
			FUZZ_ASSERT(!wg_eol_stream_feed(&s, &got, p, n));
			wg_text_stat_update(&st, p, n);
		}
		FUZZ_ASSERT(!wg_eol_stream_finish(&s, &got));
		wg_text_stat_finish(&st);
		FUZZ_ASSERT(got.len == want.len && (!got.len || !memcmp(got.data, want.data, got.len)));
		FUZZ_ASSERT(st.crlf == whole.crlf && st.lonecr == whole.lonecr &&
			    st.lonelf == whole.lonelf && st.nul == whole.nul &&
			    st.printable == whole.printable && st.nonprintable == whole.nonprintable);
		/* converting back and forth: CRLF to LF undoes LF to CRLF */
		if (convs[c] == WG_EOL_CONV_LF_TO_CRLF && !whole.crlf && !whole.lonecr) {
			struct wg_buf back = WG_BUF_INIT;
			if (!wg_convert_buffer(&back, WG_EOL_CONV_CRLF_TO_LF, got.data, got.len))
				FUZZ_ASSERT(back.len == size && (!size || !memcmp(back.data, data, size)));
			wg_buf_release(&back);
		}
		wg_buf_release(&want);
		wg_buf_release(&got);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "text", "eol", "binary", "diff", "a" };
	struct input in;
	struct wg_attr_options o = { read_cb, warn_cb, &in, false };
	struct wg_attr *a = NULL;
	const uint8_t *p, *end, *paths;
	size_t npaths;
	int k = 0;

	if (size < 1)
		return 0;
	memset(&in, 0, sizeof(in));
	check_stream(data, size);
	in.blob = data[0] & 1;
	o.ignore_case = data[0] & 2;
	p = data + 1;
	end = data + size;
	while (k < 5) {
		const uint8_t *ff = memchr(p, 0xff, (size_t)(end - p));
		in.sec[k] = p;
		in.len[k] = ff ? (size_t)(ff - p) : (size_t)(end - p);
		k++;
		if (!ff) {
			p = end;
			break;
		}
		p = ff + 1;
	}
	paths = p;
	npaths = (size_t)(end - p);

	if (wg_attr_new(&a, &o))
		return 0;
	for (const uint8_t *q = paths; q < paths + npaths;) {
		const uint8_t *nl = memchr(q, '\n', (size_t)(paths + npaths - q));
		size_t len = nl ? (size_t)(nl - q) : (size_t)(paths + npaths - q);
		char *path = fz_cstr(q, len); /* (a NUL inside ends the path) */
		unsigned ids[5];
		struct wg_attr_value v[5];
		const struct wg_attr_item *items;
		size_t n;

		for (int i = 0; i < 5; i++)
			FUZZ_ASSERT(!wg_attr_intern(a, names[i], &ids[i]));
		if (!wg_attr_check(a, path, ids, 5, v)) {
			struct wg_conv_attrs ca;
			struct wg_eol_config cfg = { (enum wg_autocrlf)(len % 3), WG_CORE_EOL_UNSET };
			wg_convert_attrs(&ca, &v[0], &v[1], NULL, &cfg);
			(void)wg_convert_checkout(&ca, &cfg, NULL);
			FUZZ_ASSERT(v[0].state != WG_ATTR_VALUE || v[0].value);
		}
		if (!wg_attr_check_all(a, path, &items, &n))
			for (size_t i = 0; i < n; i++) {
				FUZZ_ASSERT(items[i].v.state != WG_ATTR_UNSPECIFIED);
				FUZZ_ASSERT(wg_attr_name(a, items[i].id) != NULL);
				FUZZ_ASSERT(items[i].v.state != WG_ATTR_VALUE || items[i].v.value);
			}
		free(path);
		wg_error_clear();
		q = nl ? nl + 1 : paths + npaths;
	}
	wg_attr_free(a);
	return 0;
}
