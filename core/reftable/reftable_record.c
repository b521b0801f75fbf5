/* reftable records: ownership helpers for the public record structs, and
 * the key encoding shared by every block type (prefix compression). */
#include <string.h>

#include "reftable/reftable_internal.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

void wg_reftable_ref_release(struct wg_reftable_ref *ref)
{
	if (!ref)
		return;
	wg_free(ref->refname);
	wg_free(ref->target);
	memset(ref, 0, sizeof(*ref));
}

void wg_reftable_log_release(struct wg_reftable_log *log)
{
	if (!log)
		return;
	wg_free(log->refname);
	wg_free(log->name);
	wg_free(log->email);
	wg_free(log->message);
	memset(log, 0, sizeof(*log));
}

static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = wg_strdup(src);
	return *dst ? 0 : wg_error_set(WG_ENOMEM, "out of memory copying a reftable record");
}

int wg_reftable_ref_copy(struct wg_reftable_ref *dst, const struct wg_reftable_ref *src)
{
	struct wg_reftable_ref tmp = *src;
	int err;

	tmp.refname = tmp.target = NULL;
	if ((err = dup_opt(&tmp.refname, src->refname)) ||
	    (err = dup_opt(&tmp.target, src->target))) {
		wg_reftable_ref_release(&tmp);
		return err;
	}
	wg_reftable_ref_release(dst);
	*dst = tmp;
	return 0;
}

int wg_reftable_log_copy(struct wg_reftable_log *dst, const struct wg_reftable_log *src)
{
	struct wg_reftable_log tmp = *src;
	int err;

	tmp.refname = tmp.name = tmp.email = tmp.message = NULL;
	if ((err = dup_opt(&tmp.refname, src->refname)) ||
	    (err = dup_opt(&tmp.name, src->name)) ||
	    (err = dup_opt(&tmp.email, src->email)) ||
	    (err = dup_opt(&tmp.message, src->message))) {
		wg_reftable_log_release(&tmp);
		return err;
	}
	wg_reftable_log_release(dst);
	*dst = tmp;
	return 0;
}

void rt_rec_release(struct rt_rec *rec)
{
	wg_buf_release(&rec->key);
	wg_free(rec->pos);
	memset(rec, 0, sizeof(*rec));
}

/* Errors accumulate in *err so encoders can chain calls and check once. */
void rt_put_varint(struct wg_buf *out, uint64_t v, int *err)
{
	unsigned char tmp[WG_VARINT_MAX];
	size_t n = wg_varint_ofs_encode(tmp, v);

	if (!*err && wg_buf_add(out, tmp, n))
		*err = WG_ENOMEM;
}

int rt_encode_key(struct wg_buf *out, const unsigned char *prev, size_t prev_len,
		  const unsigned char *key, size_t key_len, uint8_t val_type, bool *restart)
{
	size_t prefix = 0;
	int err = 0;

	while (prefix < prev_len && prefix < key_len && prev[prefix] == key[prefix])
		prefix++;
	/* A record that shares nothing with its predecessor is a natural
	 * restart point: listing it costs 3 bytes and speeds up seeks. */
	*restart = prefix == 0;
	rt_put_varint(out, prefix, &err);
	rt_put_varint(out, (uint64_t)(key_len - prefix) << 3 | val_type, &err);
	if (!err && wg_buf_add(out, key + prefix, key_len - prefix))
		err = WG_ENOMEM;
	return err ? wg_error_set(WG_ENOMEM, "out of memory encoding a reftable record") : 0;
}

int rt_log_key(struct wg_buf *out, const char *refname, uint64_t update_index)
{
	unsigned char be[8];

	wg_buf_reset(out);
	wg_put_be64(be, ~update_index);
	if (wg_buf_add(out, refname, strlen(refname) + 1) || wg_buf_add(out, be, 8))
		return wg_error_set(WG_ENOMEM, "out of memory building a reflog key");
	return 0;
}

int rt_key_cmp(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c = n ? memcmp(a, b, n) : 0;

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

void *rt_zalloc(void *opaque, unsigned items, unsigned size)
{
	(void)opaque;
	return wg_calloc(items, size);
}

void rt_zfree(void *opaque, void *ptr)
{
	(void)opaque;
	wg_free(ptr);
}
