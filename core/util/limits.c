#include "util/limits.h"

#include "util/error.h"

static const struct wg_limits builtin = WG_LIMITS_INIT;
static struct wg_limits current = WG_LIMITS_INIT;

const struct wg_limits *wg_limits_default(void) { return &current; }

void wg_limits_set_default(const struct wg_limits *limits)
{
	current = limits ? *limits : builtin;
}

const struct wg_limits *wg_limits_or_default(const struct wg_limits *limits)
{
	return limits ? limits : &current;
}

int wg_limits_check_object_size(const struct wg_limits *limits, uint64_t size, const char *what)
{
	limits = wg_limits_or_default(limits);
	if (limits->max_object_size && size > limits->max_object_size)
		return wg_error_set(WG_ELIMIT, "%s declares %llu bytes, more than the limit of "
				    "%llu (max_object_size): refusing to hold it in memory",
				    what, (unsigned long long)size,
				    (unsigned long long)limits->max_object_size);
	return 0;
}

int wg_limits_check_inflate(const struct wg_limits *limits, uint64_t out, uint64_t in,
			    const char *what)
{
	limits = wg_limits_or_default(limits);
	if (!limits->max_inflate_ratio || out <= limits->inflate_ratio_floor)
		return 0;
	if (out / limits->max_inflate_ratio > in)
		return wg_error_set(WG_ELIMIT, "%s inflates %llu compressed bytes to over %llu: "
				    "more than %u times (max_inflate_ratio), a zlib bomb?",
				    what, (unsigned long long)in, (unsigned long long)out,
				    (unsigned)limits->max_inflate_ratio);
	return 0;
}

int wg_limits_check_tree_depth(const struct wg_limits *limits, uint64_t depth,
			       const char *tree_hex)
{
	limits = wg_limits_or_default(limits);
	if (limits->max_tree_depth && depth > limits->max_tree_depth)
		return wg_error_set(WG_ELIMIT, "tree %s is nested more than %u deep "
				    "(core.maxTreeDepth)", tree_hex,
				    (unsigned)limits->max_tree_depth);
	return 0;
}
