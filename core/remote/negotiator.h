/* Which commits to offer as "have" in a fetch negotiation (git's default
 * negotiator, simplified): local tips first, then their ancestors newest
 * first by committer date; once the server acknowledges a commit as
 * common, its ancestors are not offered (the server has them too). */
#ifndef WG_REMOTE_NEGOTIATOR_H
#define WG_REMOTE_NEGOTIATOR_H

#include "hash/oid.h"
#include "odb/odb.h"

struct wg_negotiator;

int wg_negotiator_new(struct wg_negotiator **out, struct wg_odb *odb);
void wg_negotiator_free(struct wg_negotiator *n);
/* A local ref's value (annotated tags are peeled; non-commits and missing
 * objects are ignored). */
int wg_negotiator_add_tip(struct wg_negotiator *n, const struct wg_oid *oid);
/* The next commit to offer: 0 with *out, WG_ITEROVER when none is left. */
int wg_negotiator_next(struct wg_negotiator *n, struct wg_oid *out);
/* The server has `oid`: do not offer its ancestors. */
int wg_negotiator_ack(struct wg_negotiator *n, const struct wg_oid *oid);

#endif
