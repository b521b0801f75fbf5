/* Loose objects (core/odb/loose.c): a zlib stream holding
 * "<type> <size>\0<content>". The input is inflated as the file as
 * stored, and also deflated first (so the fuzzer's mutations of plain
 * "<type> <size>\0..." text reach the header and size checks); the header
 * parser gets the raw text too. */
#include "fuzz.h"

#include "odb/loose.h"
#include "util/error.h"

#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_buf out = WG_BUF_INIT;
	enum wg_object_type type;
	size_t hsize;
	const uint8_t *nul;

	if (!wg_loose_inflate(data, size, NULL, &type, &out)) {
		FUZZ_ASSERT(type >= WG_OBJ_COMMIT && type <= WG_OBJ_TAG);
		if (out.len)
			(void)out.data[out.len - 1];
	}
	{
		/* A small window and memLevel keep deflate's state (and so
		 * each run) cheap; any window inflates with the default. */
		size_t cap = size + size / 8 + 64;
		unsigned char *z = malloc(cap);
		z_stream zs;
		memset(&zs, 0, sizeof(zs));
		if (deflateInit2(&zs, (int)(size % 10), Z_DEFLATED, 9, 1, Z_DEFAULT_STRATEGY) == Z_OK) {
			zs.next_in = (unsigned char *)(uintptr_t)data;
			zs.avail_in = (uInt)size;
			zs.next_out = z;
			zs.avail_out = (uInt)cap;
			if (deflate(&zs, Z_FINISH) == Z_STREAM_END &&
			    !wg_loose_inflate(z, zs.total_out, NULL, &type, &out))
				FUZZ_ASSERT(type >= WG_OBJ_COMMIT && type <= WG_OBJ_TAG);
			deflateEnd(&zs);
		}
		free(z);
	}
	wg_buf_release(&out);
	nul = memchr(data, 0, size);
	if (nul && nul - data <= 64) {
		char *hdr = malloc((size_t)(nul - data) + 1);
		memcpy(hdr, data, (size_t)(nul - data));
		(void)wg_loose_parse_header(hdr, (size_t)(nul - data), &type, &hsize);
		free(hdr);
	}
	return 0;
}
