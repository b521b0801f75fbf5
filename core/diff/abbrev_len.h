/* How many hex digits git abbreviates object ids to by default: core.abbrev
 * when it is a number, else ("auto", the default) from the number of
 * packed objects, as git's find_unique_abbrev sizes it: half the bits of
 * the count in hex digits, rounded up, at least 7 (so 8 from 2^14 packed
 * objects, 9 from 2^16). Loose objects do not count, as in git; packs are
 * counted from their .idx headers (a multi-pack-index's duplicates would
 * count twice here). */
#ifndef WG_DIFF_ABBREV_LEN_H
#define WG_DIFF_ABBREV_LEN_H

#include "repo/repo.h"

int wg_default_abbrev_len(struct wg_repo *repo);

#endif
