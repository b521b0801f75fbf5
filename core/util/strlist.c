#include "util/strlist.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

int wg_strlist_add(struct wg_strlist *l, const char *s, size_t len)
{
	char *copy;
	if (l->n == l->alloc) {
		size_t na = l->alloc ? 2 * l->alloc : 16;
		char **v = wg_realloc(l->v, na * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory");
		l->v = v;
		l->alloc = na;
	}
	if (!(copy = wg_strndup(s, len)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	l->v[l->n++] = copy;
	return 0;
}

void wg_strlist_release(struct wg_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		wg_free(l->v[i]);
	wg_free(l->v);
	memset(l, 0, sizeof(*l));
}
