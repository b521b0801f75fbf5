#include "index/resolve_undo.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

void wg_resolve_undo_free(struct wg_resolve_undo *ru)
{
	if (!ru)
		return;
	for (size_t i = 0; i < ru->nr; i++)
		wg_free(ru->v[i].path);
	wg_free(ru->v);
	wg_free(ru);
}

/* An octal number terminated by NUL, in bounds. */
static int parse_mode(const unsigned char **p, const unsigned char *end, uint32_t *out)
{
	const unsigned char *q = *p;
	uint32_t v = 0;

	if (q == end || *q < '0' || *q > '7')
		return -1;
	while (q < end && *q >= '0' && *q <= '7') {
		v = v * 8 + (uint32_t)(*q++ - '0');
		if (v > 07777777)
			return -1;
	}
	if (q == end || *q++)
		return -1;
	*out = v;
	*p = q;
	return 0;
}

int wg_resolve_undo_parse(struct wg_resolve_undo **out, const struct wg_hash_algo *algo,
			  const unsigned char *data, size_t len)
{
	const unsigned char *p = data, *end = data + len;
	struct wg_resolve_undo *ru = wg_calloc(1, sizeof(*ru));

	if (!ru)
		return wg_error_set(WG_ENOMEM, "out of memory");
	while (p < end) {
		const unsigned char *nul = memchr(p, '\0', (size_t)(end - p));
		struct wg_resolve_undo_entry *e;
		if (!nul)
			goto bad;
		if (ru->nr == ru->alloc) {
			size_t n = ru->alloc ? ru->alloc * 2 : 8;
			void *v = wg_realloc(ru->v, n * sizeof(*ru->v));
			if (!v)
				goto nomem;
			ru->v = v;
			ru->alloc = n;
		}
		e = &ru->v[ru->nr];
		memset(e, 0, sizeof(*e));
		if (!(e->path = wg_strndup((const char *)p, (size_t)(nul - p))))
			goto nomem;
		ru->nr++;
		p = nul + 1;
		for (int i = 0; i < 3; i++)
			if (parse_mode(&p, end, &e->mode[i]))
				goto bad;
		for (int i = 0; i < 3; i++) {
			if (!e->mode[i])
				continue;
			if ((size_t)(end - p) < algo->rawsz)
				goto bad;
			wg_oid_from_raw(&e->oid[i], algo, p);
			p += algo->rawsz;
		}
	}
	*out = ru;
	return 0;
bad:
	wg_resolve_undo_free(ru);
	return wg_error_set(WG_ECORRUPT, "index: malformed resolve-undo (REUC) extension");
nomem:
	wg_resolve_undo_free(ru);
	return wg_error_set(WG_ENOMEM, "out of memory");
}

int wg_resolve_undo_serialize(struct wg_buf *out, const struct wg_resolve_undo *ru)
{
	for (size_t i = 0; i < ru->nr; i++) {
		const struct wg_resolve_undo_entry *e = &ru->v[i];
		if (wg_buf_adds(out, e->path) || wg_buf_addch(out, '\0'))
			return wg_error_set(WG_ENOMEM, "out of memory");
		for (int s = 0; s < 3; s++)
			if (wg_buf_printf(out, "%o", e->mode[s]) || wg_buf_addch(out, '\0'))
				return wg_error_set(WG_ENOMEM, "out of memory");
		for (int s = 0; s < 3; s++)
			if (e->mode[s] && wg_buf_add(out, e->oid[s].hash, wg_oid_rawsz(&e->oid[s])))
				return wg_error_set(WG_ENOMEM, "out of memory");
	}
	return 0;
}
