/* Fetch refspecs (e.g. "+refs/heads/<star>:refs/remotes/origin/<star>"): which remote refs
 * a fetch takes and where it stores them. One '*' per side at most, as git
 * allows; a leading '+' allows non-fast-forward updates. */
#ifndef WG_REFS_REFSPEC_H
#define WG_REFS_REFSPEC_H

#include <stdbool.h>

#include "util/buf.h"

struct wg_refspec {
	bool force;
	char *src;
	char *dst;       /* NULL: fetch without storing (only FETCH_HEAD) */
	bool pattern;    /* both sides have one '*' */
};

int wg_refspec_parse(struct wg_refspec *out, const char *spec);
void wg_refspec_release(struct wg_refspec *rs);
/* If `name` matches the source, put the local name in *out (reset first)
 * and return 1; 0 if it does not match. */
int wg_refspec_map(const struct wg_refspec *rs, const char *name, struct wg_buf *out);
/* The reverse: is `local` a destination of this refspec (for pruning)? */
bool wg_refspec_dst_matches(const struct wg_refspec *rs, const char *local);
/* What a ref-prefix for ls-refs can say of the source: the part before
 * the '*', or the whole name. */
const char *wg_refspec_prefix(const struct wg_refspec *rs, struct wg_buf *out);

#endif
