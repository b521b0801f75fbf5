#include "remote/dumb_packs.h"

#include <string.h>

#include "util/error.h"
#include "util/hex.h"

static int is_pack_name(const char *p, size_t n, const struct wg_hash_algo *algo)
{
	if (n != 5 + algo->hexsz + 5 || memcmp(p, "pack-", 5) || memcmp(p + n - 5, ".pack", 5))
		return 0;
	for (size_t i = 0; i < algo->hexsz; i++)
		if (wg_hex_value((unsigned char)p[5 + i]) < 0)
			return 0;
	return 1;
}

int wg_dumb_packs_parse(struct wg_strlist *out, const char *data, size_t len,
			const struct wg_hash_algo *algo)
{
	size_t pos = 0, lineno = 0;

	while (pos < len) {
		const char *line = data + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + (nl != NULL);
		lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		if (n < 2 || line[0] != 'P' || line[1] != ' ')
			continue;
		if (!is_pack_name(line + 2, n - 2, algo))
			return wg_error_set(WG_ECORRUPT, "objects/info/packs line %zu does not name "
					    "a pack (\"P pack-<%zu hex digits>.pack\")", lineno,
					    algo->hexsz);
		if (wg_strlist_add(out, line + 2, n - 2 - 5))
			return wg_error_set(WG_ENOMEM, "out of memory");
	}
	return 0;
}
