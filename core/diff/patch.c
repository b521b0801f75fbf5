/* One file's patch (patch.h), in the order of git's builtin_diff and
 * fill_metainfo. */
#include <string.h>

#include "diff/patch.h"
#include "diff/rename.h"
#include "util/error.h"
#include "util/quote.h"

#define FIRST_FEW_BYTES 8000   /* git's binary guess looks this far */
#define S_IFMT_BITS 0170000
#define BIG_FILE_THRESHOLD ((size_t)512 * 1024 * 1024)

bool wg_diff_is_binary(const void *data, size_t len)
{
	/* git does not diff a blob past core.bigFileThreshold (512 MiB) */
	if (len > BIG_FILE_THRESHOLD)
		return true;
	return data && memchr(data, 0, len < FIRST_FEW_BYTES ? len : FIRST_FEW_BYTES) != NULL;
}

void wg_diff_abbrev(char *out, struct wg_odb *odb, const struct wg_oid *oid, int min)
{
	char hex[WG_MAX_HEXSZ + 1];
	size_t len, max;
	wg_oid_to_hex(oid, hex);
	max = strlen(hex);
	len = min > 0 && (size_t)min < max ? (size_t)min : max;
	if (odb && !wg_oid_is_null(oid)) {
		struct wg_oid found;
		while (len < max && wg_odb_resolve_prefix(odb, hex, len, &found) == WG_EAMBIGUOUS)
			len++;
		wg_error_clear();
	}
	memcpy(out, hex, len);
	out[len] = '\0';
}

/* the patch text and a caller's sink, fed the same hunks */
struct tee {
	struct wg_buf *out;
	const struct wg_hunk_sink *sink;
};

static int tee_hunk(void *payload, const struct wg_hunk *h)
{
	struct tee *t = payload;
	int err = t->sink->hunk(t->sink->payload, h);
	return err ? err : wg_unified_text_hunk(t->out, h);
}

static int tee_line(void *payload, char type, const struct wg_line *l, long old_no, long new_no)
{
	struct tee *t = payload;
	int err = t->sink->line(t->sink->payload, type, l, old_no, new_no);
	return err ? err : wg_unified_text_line(t->out, type, l, old_no, new_no);
}

/* git's quote_two: "a/" and the name, in quotes together if the name needs them */
static int add_prefixed(struct wg_buf *out, const char *prefix, const char *name)
{
	struct wg_buf whole = WG_BUF_INIT;
	int err;
	if (!(err = wg_buf_adds(&whole, prefix)) && !(err = wg_buf_adds(&whole, name)))
		err = wg_quote_c_style(out, wg_buf_cstr(&whole), whole.len);
	wg_buf_release(&whole);
	return err;
}

static int add_quoted(struct wg_buf *out, const char *name)
{
	return wg_quote_c_style(out, name, strlen(name));
}

/* the "---"/"+++" line: git adds a tab after a name with a space */
static int add_label(struct wg_buf *out, const char *lead, const char *label)
{
	int err;
	if ((err = wg_buf_adds(out, lead)) || (err = wg_buf_adds(out, label)))
		return err;
	return wg_buf_adds(out, strchr(label, ' ') ? "\t\n" : "\n");
}

/* fill_metainfo: similarity and rename lines, then the index line */
static int add_metainfo(struct wg_buf *h, const struct wg_diff_file *f, bool renamed,
			const struct wg_oid *one, const struct wg_oid *two, unsigned mode1,
			unsigned mode2, const struct wg_patch_options *o)
{
	int err = 0;
	if (renamed) {
		const char *what = f->status == 'C' ? "copy" : "rename";
		if ((err = wg_buf_printf(h, "similarity index %d%%\n%s from ",
					 (int)((long)f->score * 100 / WG_RENAME_MAX_SCORE), what)) ||
		    (err = add_quoted(h, f->old_path)) || (err = wg_buf_printf(h, "\n%s to ", what)) ||
		    (err = add_quoted(h, f->new_path)) || (err = wg_buf_addch(h, '\n')))
			return err;
	}
	if (!wg_oid_equal(one, two)) {
		char a[WG_MAX_HEXSZ + 1], b[WG_MAX_HEXSZ + 1];
		wg_diff_abbrev(a, o->odb, one, o->abbrev);
		wg_diff_abbrev(b, o->odb, two, o->abbrev);
		if ((err = wg_buf_printf(h, "index %s..%s", a, b)))
			return err;
		if (mode1 == mode2 && (err = wg_buf_printf(h, " %06o", mode1)))
			return err;
		err = wg_buf_addch(h, '\n');
	}
	return err;
}

/* builtin_diff for one pair; a side with mode 0 is absent */
static int one_pair(struct wg_buf *out, const struct wg_diff_file *f, bool old_side,
		    bool new_side, const struct wg_patch_options *o)
{
	struct wg_buf h = WG_BUF_INIT, lbl_a = WG_BUF_INIT, lbl_b = WG_BUF_INIT;
	struct wg_oid null;
	const char *name_a = old_side ? f->old_path : f->new_path;
	const char *name_b = new_side ? f->new_path : f->old_path;
	unsigned mode1 = old_side ? f->old_mode : 0, mode2 = new_side ? f->new_mode : 0;
	const char *d1 = old_side ? f->old_data : "", *d2 = new_side ? f->new_data : "";
	size_t n1 = old_side ? f->old_len : 0, n2 = new_side ? f->new_len : 0;
	bool renamed = (f->status == 'R' || f->status == 'C') && old_side && new_side;
	bool must_show = renamed;
	int err;

	wg_oid_null(&null, wg_oid_algo(old_side ? &f->old_oid : &f->new_oid));
	if (!d1)
		d1 = "";
	if (!d2)
		d2 = "";
	if ((err = add_prefixed(&lbl_a, "a/", name_a)) || (err = add_prefixed(&lbl_b, "b/", name_b)) ||
	    (err = wg_buf_adds(&h, "diff --git ")) || (err = wg_buf_add(&h, lbl_a.data, lbl_a.len)) ||
	    (err = wg_buf_addch(&h, ' ')) || (err = wg_buf_add(&h, lbl_b.data, lbl_b.len)) ||
	    (err = wg_buf_addch(&h, '\n')))
		goto out;
	if (!old_side || !new_side) {
		if ((err = wg_buf_printf(&h, "%s file mode %06o\n", old_side ? "deleted" : "new",
					 old_side ? mode1 : mode2)))
			goto out;
		must_show = true;
	} else if (mode1 != mode2) {
		if ((err = wg_buf_printf(&h, "old mode %06o\nnew mode %06o\n", mode1, mode2)))
			goto out;
		must_show = true;
	}
	if ((err = add_metainfo(&h, f, renamed, old_side ? &f->old_oid : &null,
				new_side ? &f->new_oid : &null, mode1, mode2, o)))
		goto out;
	if (!old_side)
		wg_buf_reset(&lbl_a), err = wg_buf_adds(&lbl_a, "/dev/null");
	if (!err && !new_side)
		wg_buf_reset(&lbl_b), err = wg_buf_adds(&lbl_b, "/dev/null");
	if (err)
		goto out;

	if (wg_diff_is_binary(d1, n1) || wg_diff_is_binary(d2, n2)) {
		if (n1 == n2 && !memcmp(d1, d2, n1)) {
			if (must_show)
				err = wg_buf_add(out, h.data, h.len);
			goto out;
		}
		if ((err = wg_buf_add(out, h.data, h.len)) ||
		    (err = wg_buf_printf(out, "Binary files %s and %s differ\n", wg_buf_cstr(&lbl_a),
					 wg_buf_cstr(&lbl_b))))
			goto out;
	} else {
		struct wg_line_diff d;
		size_t l1 = n1, l2 = n2;
		if (o->hunks.context <= 0)
			wg_line_diff_trim_tail(d1, &l1, d2, &l2);
		if ((err = wg_line_diff_run_with(&d, d1, l1, d2, l2, &o->lines)))
			goto out;
		if (must_show || d.n)
			err = wg_buf_add(out, h.data, h.len);
		if (!err && d.n) {
			if (!(err = add_label(out, "--- ", wg_buf_cstr(&lbl_a))) &&
			    !(err = add_label(out, "+++ ", wg_buf_cstr(&lbl_b)))) {
				struct tee t = { out, o->sink };
				struct wg_hunk_sink tee = { tee_hunk, tee_line, &t };
				if (o->sink)
					err = wg_unified_walk(&d, &o->hunks, &tee);
				else
					err = wg_unified_hunks(out, &d, &o->hunks);
			}
		}
		wg_line_diff_release(&d);
	}
out:
	wg_buf_release(&h);
	wg_buf_release(&lbl_a);
	wg_buf_release(&lbl_b);
	return err;
}

int wg_diff_patch(struct wg_buf *out, const struct wg_diff_file *f,
		  const struct wg_patch_options *opts)
{
	bool old_side = f->old_mode != 0, new_side = f->new_mode != 0;
	int err;
	if (old_side && new_side && ((f->old_mode ^ f->new_mode) & S_IFMT_BITS)) {
		/* git splits a change of type into a deletion and a creation */
		if ((err = one_pair(out, f, true, false, opts)))
			return err;
		return one_pair(out, f, false, true, opts);
	}
	return one_pair(out, f, old_side, new_side, opts);
}

int wg_diff_count_lines(const struct wg_diff_file *f, long context,
			const struct wg_line_diff_options *lines, size_t *added, size_t *deleted,
			bool *binary)
{
	const char *d1 = f->old_mode && f->old_data ? f->old_data : "";
	const char *d2 = f->new_mode && f->new_data ? f->new_data : "";
	size_t n1 = f->old_mode ? f->old_len : 0, n2 = f->new_mode ? f->new_len : 0;
	struct wg_line_diff d;
	int err;
	*added = *deleted = 0;
	*binary = wg_diff_is_binary(d1, n1) || wg_diff_is_binary(d2, n2);
	if (*binary)
		return 0;
	if (context <= 0)
		wg_line_diff_trim_tail(d1, &n1, d2, &n2);
	if ((err = wg_line_diff_run_with(&d, d1, n1, d2, n2, lines)))
		return err;
	for (size_t i = 0; i < d.n; i++) {
		*added += (size_t)d.v[i].chg2;
		*deleted += (size_t)d.v[i].chg1;
	}
	wg_line_diff_release(&d);
	return 0;
}
