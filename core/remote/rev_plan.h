/* What a read of one revision of a remote needs fetched, without its
 * history: a revision expression split into the name it starts from (a
 * ref name, HEAD or "@") and the navigation after it (~<n>, ^<n>, ^{<type>},
 * ^{}), with the generations that navigation may go back. A shallow fetch
 * of that name deepened by generations + 1 holds every commit the
 * expression can reach (deepen counts along every parent), so the
 * expression then resolves locally as "HEAD<navigation>". */
#ifndef WG_REMOTE_REV_PLAN_H
#define WG_REMOTE_REV_PLAN_H

#include <stddef.h>

struct wg_rev_plan {
	size_t name_len;        /* spec's first name_len bytes: the name ("@" is HEAD) */
	const char *navigation; /* the rest of spec */
	unsigned generations;
};

/* WG_EINVALID, saying why, for what cannot be planned so: a :path,
 * reflog forms (@{...}), searches (^{/text}), ranges, an empty name
 * before the navigation, more than WG_REV_PLAN_MAX_GENERATIONS. */
int wg_rev_plan(struct wg_rev_plan *out, const char *spec);

#define WG_REV_PLAN_MAX_GENERATIONS 100000

#endif
