/* objects/info/packs, the list of packs a static ("dumb") Git host serves
 * (written by `git update-server-info`, read by git's dumb HTTP client):
 * one "P pack-<hex>.pack" line per pack, and possibly other lines (older
 * gits wrote "D" and "T" lines; a blank line ends the file), which are
 * skipped as git skips them. */
#ifndef WG_REMOTE_DUMB_PACKS_H
#define WG_REMOTE_DUMB_PACKS_H

#include <stddef.h>

#include "hash/hash.h"
#include "util/strlist.h"

/* Append the packs' base names ("pack-<hex>", without ".pack") to out, in
 * the file's order (git lists the newest first). A "P" line whose name is
 * not "pack-<algo->hexsz hex digits>.pack" is WG_ECORRUPT: the name goes
 * into request URLs, so nothing else (no "../", no '?') may pass. */
int wg_dumb_packs_parse(struct wg_strlist *out, const char *data, size_t len,
			const struct wg_hash_algo *algo);

#endif
