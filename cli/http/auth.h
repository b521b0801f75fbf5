/* Authentication of the native HTTP client: credentials from the URL
 * (precedence), else WEBGIT_HTTP_USER/WEBGIT_HTTP_PASSWORD or
 * WEBGIT_HTTP_BEARER, else on a 401 the credential source (git's
 * credential helpers, set by the caller: http_client.h), else a prompt on
 * a terminal. Basic is sent only once the server asked (as git and curl
 * do), then on every request; a Bearer token, or the source's ready
 * authorization, always. The source hears how what it gave (or what the
 * prompt got) fared: approve after a 2xx, reject after a refusal. Secrets
 * are wiped before their memory is freed. */
#ifndef WG_CLI_HTTP_AUTH_H
#define WG_CLI_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "http/response.h"
#include "http_client.h"
#include "http/url.h"
#include "util/buf.h"

struct http_auth {
	char *user;
	char *pass;
	/* a whole Authorization value, sent with every request: "Bearer
	 * <token>" (WEBGIT_HTTP_BEARER) or the source's "<type> <credential>" */
	char *authz;
	bool basic_active;
	const struct http_credential_source *src;  /* NULL: none */
	bool hooked;      /* the credentials came from src or the prompt */
	bool approved;    /* src was told they worked */
	bool multistage;  /* src said another round follows a 401 */
	unsigned rounds;  /* fills after a refusal (multistage) */
	bool refused;     /* the client failed because credentials were refused */
};

/* Take the credentials of `base` (moved out of it), or the environment's. */
int http_auth_init(struct http_auth *a, struct http_url *base);
void http_auth_release(struct http_auth *a);

/* Append the Authorization header line, if there is one to send; *sent
 * tells whether there was. */
int http_auth_add_header(const struct http_auth *a, struct wg_buf *head, bool *sent);
/* Append "<field>: Basic base64(user:pass)\r\n". */
int http_basic_line(struct wg_buf *out, const char *field, const char *user, const char *pass);

/* Does a `field` challenge (WWW-Authenticate, Proxy-Authenticate) among
 * the headers offer `scheme`? *any: was there a challenge at all. */
bool http_auth_offers(const struct http_header *headers, size_t n, const char *field,
		      const char *scheme, bool *any);

/* A 401 for `url`: 0 when the request should be sent again with
 * credentials (from the source, else asked for on a terminal when
 * missing), else the error that ends it (WG_EAUTH when the server wants
 * what we cannot give or refused what we gave). `refused`: credentials
 * went with the request already; the source, if they were its, is told
 * to reject them (or asked again, for a multistage authentication). */
int http_auth_challenge(struct http_auth *a, const struct http_url *base,
			const struct http_header *headers, size_t n, const char *url, bool refused);

/* A response to a request with credentials: a 2xx approves those of the
 * source (once per client). */
void http_auth_response(struct http_auth *a, int status);

#endif
