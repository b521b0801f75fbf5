/* TLS for the native HTTP client, with BearSSL: trust anchors from a PEM
 * file, the handshake over a connection's socket, and errors a person can
 * act on. */
#ifndef WG_CLI_HTTP_TLS_H
#define WG_CLI_HTTP_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include <bearssl.h>

#include "http/conn.h"

/* The CAs a client trusts, loaded once, at its first TLS connection:
 * WEBGIT_SSL_CAINFO, GIT_SSL_CAINFO, SSL_CERT_FILE (the first set), else
 * /etc/ssl/certs/ca-certificates.crt. */
struct http_trust {
	br_x509_trust_anchor *tas;
	size_t ntas;
	bool loaded;
	char *ca_file;
};

void http_trust_release(struct http_trust *t);

struct http_tls {
	br_ssl_client_context sc;
	br_x509_minimal_context xc;
	br_sslio_context ioc;
	const char *ca_file;     /* the trust's, for messages */
	char server_name[256];
	unsigned char iobuf[BR_SSL_BUFSIZE_BIDI];
};

/* The TLS halves of http_conn_read/write/flush and usable (conn.c). */
long http_tls_read(struct http_conn *c, void *buf, size_t len);
int http_tls_write(struct http_conn *c, const void *data, size_t len);
int http_tls_flush(struct http_conn *c);
bool http_tls_closed(const struct http_conn *c);

#endif
