/* In-memory objects for one operation (memory_backend.h). */
#include <stdlib.h>
#include <string.h>

#include "hash/oidmap.h"
#include "odb/memory_backend.h"
#include "util/alloc.h"
#include "util/error.h"

struct held {
	enum wg_object_type type;
	struct wg_buf data;
};

struct wg_memory_backend {
	struct wg_odb_backend base;     /* first: the odb's view */
	const struct wg_hash_algo *algo;
	struct wg_oidmap index;         /* id -> its slot in v, plus one */
	struct held *v;
	size_t n, alloc, bytes;
};

static const struct held *find(const struct wg_memory_backend *m, const struct wg_oid *oid)
{
	unsigned slot = wg_oidmap_get(&m->index, oid);
	return slot ? &m->v[slot - 1] : NULL;
}

static int mem_read(struct wg_odb_backend *backend, const struct wg_oid *oid,
		    enum wg_object_type *type_out, struct wg_buf *out)
{
	const struct held *h = find((struct wg_memory_backend *)backend, oid);
	if (!h)
		return WG_ENOTFOUND;
	*type_out = h->type;
	wg_buf_reset(out);
	return wg_buf_add(out, h->data.data, h->data.len);
}

static int mem_read_header(struct wg_odb_backend *backend, const struct wg_oid *oid,
			   enum wg_object_type *type_out, size_t *size_out)
{
	const struct held *h = find((struct wg_memory_backend *)backend, oid);
	if (!h)
		return WG_ENOTFOUND;
	*type_out = h->type;
	*size_out = h->data.len;
	return 0;
}

static int mem_exists(struct wg_odb_backend *backend, const struct wg_oid *oid)
{
	return find((struct wg_memory_backend *)backend, oid) != NULL;
}

static void mem_free(struct wg_odb_backend *backend)
{
	struct wg_memory_backend *m = (struct wg_memory_backend *)backend;
	for (size_t i = 0; i < m->n; i++)
		wg_buf_release(&m->v[i].data);
	wg_free(m->v);
	wg_oidmap_release(&m->index);
	wg_free(m);
}

int wg_memory_backend_new(struct wg_memory_backend **out, const struct wg_hash_algo *algo)
{
	struct wg_memory_backend *m = wg_calloc(1, sizeof(*m));
	*out = NULL;
	if (!m)
		return wg_error_set(WG_ENOMEM, "out of memory");
	m->base.version = WG_ODB_BACKEND_VERSION;
	m->base.name = "memory";
	m->base.read = mem_read;
	m->base.read_header = mem_read_header;
	m->base.exists = mem_exists;
	m->base.free = mem_free;
	m->algo = algo;
	*out = m;
	return 0;
}

struct wg_odb_backend *wg_memory_backend_base(struct wg_memory_backend *m)
{
	return &m->base;
}

int wg_memory_backend_add(struct wg_memory_backend *m, enum wg_object_type type, const void *data,
			  size_t len, struct wg_oid *out)
{
	struct wg_oid oid;
	struct held *h;
	int err;

	if ((err = wg_object_hash(&oid, m->algo, type, data, len)))
		return err;
	if (out)
		*out = oid;
	if (find(m, &oid))
		return 0;
	if (m->n == m->alloc) {
		size_t grow = m->alloc ? m->alloc * 2 : 8;
		struct held *nv = wg_realloc(m->v, grow * sizeof(*nv));
		if (!nv)
			return wg_error_set(WG_ENOMEM, "out of memory");
		m->v = nv;
		m->alloc = grow;
	}
	h = &m->v[m->n];
	h->type = type;
	memset(&h->data, 0, sizeof(h->data));
	if ((err = wg_buf_add(&h->data, data, len)) ||
	    (err = wg_oidmap_set(&m->index, &oid, (unsigned)(m->n + 1), NULL))) {
		wg_buf_release(&h->data);
		return err;
	}
	m->n++;
	m->bytes += len;
	return 0;
}

int wg_memory_backend_attach(struct wg_memory_backend **out, struct wg_odb *odb)
{
	int err = wg_memory_backend_new(out, wg_odb_algo(odb));
	if (!err)
		err = wg_odb_add_backend(odb, wg_memory_backend_base(*out), -1);
	return err;
}

size_t wg_memory_backend_count(const struct wg_memory_backend *m)
{
	return m->n;
}

size_t wg_memory_backend_bytes(const struct wg_memory_backend *m)
{
	return m->bytes;
}
