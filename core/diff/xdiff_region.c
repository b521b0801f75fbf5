/* The stack of stretches of xdiff_region.h */
#include "diff/xdiff_region.h"
#include "util/alloc.h"
#include "util/error.h"

int wg_xdiff_regions_push(struct wg_xdiff_regions *s, long line1, long count1, long line2,
			  long count2)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 32;
		struct wg_xdiff_region *v = wg_realloc(s->v, ncap * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory diffing lines");
		s->v = v;
		s->cap = ncap;
	}
	s->v[s->n++] = (struct wg_xdiff_region){ line1, count1, line2, count2 };
	return 0;
}

void wg_xdiff_regions_release(struct wg_xdiff_regions *s)
{
	wg_free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

int wg_xdiff_regions_run(const struct wg_xdiff_env *env, long n1, long n2, wg_xdiff_region_fn one)
{
	struct wg_xdiff_regions todo = { 0 };
	int err = wg_xdiff_regions_push(&todo, 0, n1, 0, n2);
	while (!err && todo.n) {
		struct wg_xdiff_region r = todo.v[--todo.n];
		err = one(env, &todo, &r);
	}
	wg_xdiff_regions_release(&todo);
	return err;
}
