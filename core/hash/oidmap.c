#include "hash/oidmap.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

/* Ids are uniformly distributed: their first bytes are a fine hash. */
static size_t slot_of(const struct wg_oid *oid, size_t size)
{
	size_t h;
	memcpy(&h, oid->hash, sizeof(h));
	return h & (size - 1);
}

/* A slot is empty when its flags are 0: every stored id has a bit set. */
static size_t find(const struct wg_oidmap *m, const struct wg_oid *oid)
{
	size_t i = slot_of(oid, m->size);
	while (m->flags[i] && !wg_oid_equal(&m->keys[i], oid))
		i = (i + 1) & (m->size - 1);
	return i;
}

static int grow(struct wg_oidmap *m)
{
	struct wg_oidmap n = WG_OIDMAP_INIT;

	n.size = m->size ? 2 * m->size : 256;
	n.keys = wg_malloc(n.size * sizeof(*n.keys));
	n.flags = wg_calloc(n.size, sizeof(*n.flags));
	if (!n.keys || !n.flags) {
		wg_oidmap_release(&n);
		return wg_error_set(WG_ENOMEM, "out of memory in an object id map");
	}
	for (size_t i = 0; i < m->size; i++)
		if (m->flags[i]) {
			size_t j = find(&n, &m->keys[i]);
			n.keys[j] = m->keys[i];
			n.flags[j] = m->flags[i];
		}
	n.nr = m->nr;
	wg_oidmap_release(m);
	*m = n;
	return 0;
}

void wg_oidmap_release(struct wg_oidmap *m)
{
	wg_free(m->keys);
	wg_free(m->flags);
	memset(m, 0, sizeof(*m));
}

unsigned wg_oidmap_get(const struct wg_oidmap *m, const struct wg_oid *oid)
{
	return m->size ? m->flags[find(m, oid)] : 0;
}

int wg_oidmap_set(struct wg_oidmap *m, const struct wg_oid *oid, unsigned bits, unsigned *old)
{
	size_t i;
	int err;

	if (!bits)
		return wg_error_set(WG_EINVALID, "oidmap: no flag bits to set");
	if (2 * (m->nr + 1) > m->size && (err = grow(m)))
		return err;
	i = find(m, oid);
	if (old)
		*old = m->flags[i];
	if (!m->flags[i]) {
		m->keys[i] = *oid;
		m->nr++;
	}
	m->flags[i] |= bits;
	return 0;
}
