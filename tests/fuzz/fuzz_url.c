/* URLs: the native HTTP client's URL parser and RFC 3986 reference
 * resolution (cli/http/url.c: http_url_parse, http_url_resolve, which a
 * redirect's Location header from the server reaches), and the core's
 * remote URL handling (core/remote/discovery.c, operation.c). Input:
 * "<base URL>\n<reference>". The client's response parser has its own
 * target, fuzz_http_response. */
#include "fuzz.h"

#include "http/url.h"
#include "util/alloc.h"
#include "util/url.h"

#include "remote/operation_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), *ref = strchr(text, '\n');
	struct http_url base, out;
	struct wg_discovery d;
	struct wg_buf b = WG_BUF_INIT;
	char *shown;

	if (ref)
		*ref++ = '\0';
	else
		ref = "../other?x=1#frag";
	if (!http_url_parse(&base, text)) {
		FUZZ_ASSERT(base.host && *base.host && base.path && base.path[0] == '/');
		FUZZ_ASSERT(base.port > 0 && base.port <= 65535);
		{
			/* credentials exactly where the core finds them */
			size_t start, len;
			FUZZ_ASSERT(wg_url_userinfo(text, &start, &len) == (base.user != NULL));
		}
		if ((shown = http_url_display(&base)))
			wg_free(shown);
		(void)http_url_origin(&b, &base);
		if (!http_url_resolve(&out, &base, ref)) {
			FUZZ_ASSERT(out.host && out.path && out.path[0] == '/');
			FUZZ_ASSERT(!out.user && !out.pass);
			(void)http_url_same_origin(&base, &out);
			for (const char *p = out.path; *p; p++)
				FUZZ_ASSERT((unsigned char)*p > 0x20 && *p != 0x7f);
			http_url_release(&out);
		}
		http_url_release(&base);
	}
	if (!wg_discovery_init(&d, text, NULL)) {
		(void)wg_remote_check_response(d.url, 200, ref,
					       "application/x-git-upload-pack-advertisement");
		wg_discovery_release(&d);
	}
	wg_buf_release(&b);
	free(text);
	return 0;
}
