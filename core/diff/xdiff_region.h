/* A stack of stretches still to diff, for patience and histogram: each
 * stretch's result does not depend on the others, so they are worked off
 * a heap stack in any order instead of by recursion, which deep inputs
 * would take past the C stack (small under WebAssembly). Private to
 * core/diff. */
#ifndef WG_DIFF_XDIFF_REGION_H
#define WG_DIFF_XDIFF_REGION_H

#include <stddef.h>

struct wg_xdiff_region {
	long line1, count1, line2, count2;
};

struct wg_xdiff_regions {
	struct wg_xdiff_region *v;
	size_t n, cap;
};

int wg_xdiff_regions_push(struct wg_xdiff_regions *s, long line1, long count1, long line2,
			  long count2);
void wg_xdiff_regions_release(struct wg_xdiff_regions *s);

/* Work off the stack from the whole of both sides (n1 and n2 lines):
 * each stretch popped goes to one(), which may push more. */
struct wg_xdiff_env;
typedef int (*wg_xdiff_region_fn)(const struct wg_xdiff_env *env, struct wg_xdiff_regions *todo,
				  const struct wg_xdiff_region *r);
int wg_xdiff_regions_run(const struct wg_xdiff_env *env, long n1, long n2, wg_xdiff_region_fn one);

#endif
