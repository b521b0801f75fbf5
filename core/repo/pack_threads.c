#include "repo/pack_threads.h"

#include "repo/config.h"
#include "util/error.h"

int wg_repo_pack_threads(struct wg_repo *repo, unsigned *out)
{
	const char *v;
	int64_t n;
	int err;

	*out = 0;
	err = wg_repo_config_get(repo, "pack.threads", &v);
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	if (err || (err = wg_config_int64_value("pack.threads", v, &n)))
		return err;
	if (n < 0)
		return wg_error_set(WG_EINVALID, "invalid number of threads specified (%lld)",
				    (long long)n);
	*out = n > 1000 ? 1000 : (unsigned)n;
	return 0;
}
