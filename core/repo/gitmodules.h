/* What git's fsck checks in a .gitmodules blob (transfer.fsckObjects,
 * `git fsck`): submodule names that would escape .git/modules, URLs and
 * paths that a later `git submodule` would pass to a command as an
 * option, URLs that smuggle a newline into a credential request or climb
 * out of their host (CVE-2018-17456, CVE-2020-5260, CVE-2020-11008), and
 * `update = !command` settings. The rules are git 2.53's to the letter
 * (submodule-config.c, urlmatch.c), so that a blob git refuses is refused
 * here and one it accepts is accepted.
 *
 * Lives in repo/ because a .gitmodules file is read with the config
 * parser; the object layer only tells which blobs are .gitmodules
 * (wg_fsck_options.special_blob). */
#ifndef WG_REPO_GITMODULES_H
#define WG_REPO_GITMODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "object/fsck.h"

/* A .gitmodules larger than this is not parsed (gitmodulesLarge), as git
 * does for blobs past core.bigFileThreshold's default. */
#define WG_GITMODULES_MAX_SIZE ((size_t)512 * 1024 * 1024)

/* git's check_submodule_name(): not empty, no ".." path component ('/'
 * and '\\' both separate). */
bool wg_submodule_name_ok(const char *name);

/* git's check_submodule_url(): no leading '-'; a relative or git:// URL
 * must not decode to a newline nor climb ("../") onto ':' or '/'; an
 * http(s)/ftp(s) URL (also "http::...") must normalize as git's
 * url_normalize() does and not decode to a newline. Other URLs pass. */
bool wg_submodule_url_ok(const char *url);

/* Check a .gitmodules blob's contents: gitmodulesName, gitmodulesUrl,
 * gitmodulesPath, gitmodulesUpdate, and gitmodulesParse (info) when it is
 * not valid config syntax (the entries before the error are still
 * checked, as git checks them). gitmodulesLarge past
 * WG_GITMODULES_MAX_SIZE. Returns 0, WG_EFSCK (see wg_fsck_object()) or
 * WG_ENOMEM. */
int wg_fsck_gitmodules_blob(const struct wg_fsck_options *opts, const struct wg_oid *oid,
			    const void *data, size_t len);

#endif
