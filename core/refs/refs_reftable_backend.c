/* The reftable ref backend: a thin adapter from the refdb interface to the
 * reftable stack library (reftable.h). Until that library's stack is
 * complete, opening or creating a reftable ref store fails clearly. */
#include "refs/refdb.h"

#include "util/error.h"

int wg_refdb_reftable_new(struct wg_refdb_backend **out, const struct wg_refdb_config *cfg)
{
	(void)out;
	(void)cfg;
	return wg_error_set(WG_EUNSUPPORTED, "the reftable ref format is not available yet in "
			    "this build; use --ref-format=files");
}

int wg_refdb_reftable_init(const char *gitdir, const struct wg_hash_algo *algo,
			   const char *head_target)
{
	(void)gitdir;
	(void)algo;
	(void)head_target;
	return wg_error_set(WG_EUNSUPPORTED, "the reftable ref format is not available yet in "
			    "this build; use --ref-format=files");
}
