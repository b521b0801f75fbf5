/* A blocking HTTP/1.1 client for the native command line.
 *
 * The core's protocol machines are sans-IO (docs: design.md, rule 1): they
 * hand out requests and consume response bytes. In the browser fetch()
 * moves those bytes; natively this client does, over plain sockets and
 * BearSSL. It lives in cli/ because core/ never owns a socket.
 *
 * One client talks to one origin (scheme, host, port), the one of the base
 * URL it was opened with (or the one a request allowed to leave it for
 * redirected it to), and keeps its connection alive between requests.
 * A request goes out with http_client_send(), which returns once the final
 * response's status and headers are in (after following same-origin
 * redirects and answering an authentication challenge); the body then
 * streams through http_client_read_body() in whatever pieces arrive,
 * de-chunked and gunzipped. http_client_request() does both in one call.
 *
 * Credentials, first found wins: the URL's user information; the
 * environment (below); on a 401, the credential source the caller set
 * (http_client_set_credential_source(): the command line's is git's
 * credential helpers, cli/credential/helper.h); else a prompt on a
 * terminal. Basic goes out only once the server asked for it; the source
 * hears whether what it gave (or what the prompt got) worked. They never
 * go to another origin: when a request moves the client to another one
 * (follow_other_origins), those of the URL, the source's and a token are
 * dropped, and the new origin's 401 asks the source again.
 *
 * Environment (read when the client is opened):
 *   WEBGIT_HTTP_USER, WEBGIT_HTTP_PASSWORD   Basic credentials (credentials
 *                                            in the URL take precedence)
 *   WEBGIT_HTTP_BEARER                       a token sent as
 *                                            "Authorization: Bearer <token>"
 *   WEBGIT_HTTP_TIMEOUT                      seconds (fractions allowed) for
 *                                            connecting and for each wait on
 *                                            the network; default 60
 *   WEBGIT_SSL_CAINFO, GIT_SSL_CAINFO,       PEM file of trusted CAs, first
 *   SSL_CERT_FILE                            one set wins; default
 *                                            /etc/ssl/certs/ca-certificates.crt
 *   http_proxy, https_proxy, all_proxy,      an HTTP proxy, as curl reads them
 *   no_proxy (and upper case; see            (http/proxy.h): absolute URLs to
 *   http/proxy.h)                            it for http, CONNECT for https
 *
 * Errors are the core's codes (util/error.h) with a message in
 * wg_error_message(): WG_EIO for network and TLS failures, WG_ECORRUPT for
 * a malformed response, WG_EUNSUPPORTED for what this client does not do
 * (another scheme, a cross-origin redirect not allowed, an unknown
 * Content-Encoding), WG_EINVALID for a bad request from the caller,
 * WG_EAUTH for credentials missing or refused, WG_ERROR for too many
 * redirects. Messages never contain passwords
 * or tokens: URLs in them are printed without their user information. */
#ifndef WG_CLI_HTTP_CLIENT_H
#define WG_CLI_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "http/response.h"   /* struct http_header */

struct http_client;

/* Receives response body bytes. A non-zero return stops the transfer: a
 * negative value is handed back to the caller unchanged (with the message
 * the callback set), a positive one becomes WG_ERROR. */
typedef int (*http_body_cb)(void *payload, const void *data, size_t len);

/* A request body produced piece by piece, for bodies too large to hold in
 * memory. It goes out with "Transfer-Encoding: chunked". */
struct http_body_source {
	/* Store up to `cap` bytes in `buf` and their count in *out_len; a count
	 * of 0 means the body is complete. Returns 0 or a negative error. */
	int (*read)(void *payload, void *buf, size_t cap, size_t *out_len);
	/* Start over from the first byte. Needed to resend the body after a
	 * 307/308 redirect, a 401 challenge, or a keep-alive connection the
	 * server had closed; NULL if the body cannot be replayed (the request
	 * then fails in those cases instead of sending a wrong body). */
	int (*rewind)(void *payload);
	void *payload;
};

struct http_request {
	/* "GET", "POST", ...; NULL means GET, or POST when there is a body. */
	const char *method;
	/* An absolute URL on the client's origin, or a reference resolved
	 * against the base URL as a browser would ("/path?query" replaces the
	 * path; "info/refs" replaces the base URL's last path segment). NULL:
	 * the base URL itself. User information in it is ignored. */
	const char *url;
	/* Extra header lines "Name: value". Host, Content-Length,
	 * Transfer-Encoding and Connection are the client's and rejected
	 * here; a caller's User-Agent, Accept-Encoding or Authorization
	 * replaces the client's own. */
	const char *const *headers;
	size_t nheaders;
	/* The body: bytes in memory, or a source, or neither. */
	const void *body;
	size_t body_len;
	const struct http_body_source *body_source;
	/* Send the body gzip-compressed with "Content-Encoding: gzip". */
	bool gzip_body;
	/* Follow a redirect to another origin (not from https to http), and
	 * talk to that origin from then on, without the credentials of the
	 * old one: git's http.followRedirects=initial, for an operation's
	 * first request. Without it such a redirect is WG_EUNSUPPORTED. */
	bool follow_other_origins;
};

#define HTTP_REQUEST_INIT { NULL, NULL, NULL, 0, NULL, 0, NULL, false, false }

struct http_response {
	int status;              /* e.g. 200 */
	int version;             /* 10 for HTTP/1.0, 11 for HTTP/1.1 */
	char *reason;            /* reason phrase, may be "" */
	struct http_header *headers; /* in the order received */
	size_t nheaders;
	char *url;               /* the URL that answered (after redirects),
	                            without user information */
	unsigned redirects;      /* redirects followed to get here */
};

struct http_client_stats {
	unsigned connects;       /* connections opened (TCP, plus TLS for https) */
	unsigned requests;       /* requests written, redirects and retries included */
	unsigned reused;         /* requests written on a connection that had
	                            already carried one (keep-alive) */
	unsigned retries;        /* requests resent on a new connection because
	                            the server had closed the kept-alive one */
};

/* Credentials the client gets from its caller on a 401. */
struct http_credential {
	char *user;          /* Basic user name and password; NULL: unknown */
	char *pass;
	char *authorization; /* or a whole Authorization value "<type> <credentials>" */
	bool multistage;     /* a 401 to them asks again rather than failing */
};

struct http_credential_source {
	/* On a 401 while the client has no complete credentials: fill *out
	 * (the client takes over, and wipes, the strings set) with what the
	 * source has; the terminal prompt asks for what is still missing.
	 * `challenges`: the 401's WWW-Authenticate values in order; `user`:
	 * the user name already known, or NULL. A negative return ends the
	 * request with that error. */
	int (*fill)(void *payload, const char *const *challenges, size_t n, const char *user,
		    struct http_credential *out);
	/* The first 2xx response to a request that carried them (once per
	 * client): the user name and password sent, or NULL for an
	 * authorization the source gave. */
	void (*approve)(void *payload, const char *user, const char *pass);
	/* They were refused (a 401 again); `challenges` as for fill. */
	void (*reject)(void *payload, const char *const *challenges, size_t n);
	/* The client moved to another origin (a redirect a request allowed):
	 * from now on fill, approve and reject are about `url` (without user
	 * information), as git's credential_from_url() of the new base URL.
	 * NULL: the source is not asked again. */
	int (*moved)(void *payload, const char *url);
	void *payload;
};

/* Open a client for the origin of `base_url` (http:// or https://, with
 * optional percent-encoded "user:password@"). Connects lazily, on the
 * first request. */
int http_client_new(struct http_client **out, const char *base_url);
/* `cancelled` is asked whenever a wait on the socket is interrupted by a
 * signal; nonzero makes the request fail ("interrupted"). */
void http_client_set_cancel(struct http_client *client, int (*cancelled)(void));
/* Ask `src` (which must outlive the client; NULL: none) on a 401. */
void http_client_set_credential_source(struct http_client *client,
				       const struct http_credential_source *src);
/* Did the last request fail because the server refused the credentials
 * sent (rather than for want of any)? */
bool http_client_auth_refused(const struct http_client *client);
/* Close the connection and free everything; NULL is a no-op. */
void http_client_free(struct http_client *client);

/* Send a request and read the final response's head. On success *out
 * points to a response owned by the client, valid until the next send or
 * free; call http_client_read_body() next (a body left unread is dropped
 * with the connection at the next send). Any HTTP status is a success
 * here except 401, which becomes an error once the credentials available
 * were refused or none could be had. */
int http_client_send(struct http_client *client, const struct http_request *req,
		     const struct http_response **out);

/* Stream the body of the response from the last send to `on_body` (which
 * may be NULL to discard it). Returns 0 when the body is complete. */
int http_client_read_body(struct http_client *client, http_body_cb on_body, void *payload);

/* http_client_send() then http_client_read_body(); *out (may be NULL)
 * receives the response even when reading the body failed. */
int http_client_request(struct http_client *client, const struct http_request *req,
			http_body_cb on_body, void *payload, const struct http_response **out);

/* The value of the first header called `name` (case-insensitive), or NULL. */
const char *http_response_header(const struct http_response *resp, const char *name);

/* The base URL without user information, for messages. */
const char *http_client_url(const struct http_client *client);

void http_client_get_stats(const struct http_client *client, struct http_client_stats *out);

#endif
