/* One connection of the native HTTP client: a non-blocking socket whose
 * every wait has a deadline, carrying plain bytes or TLS (BearSSL, tls.c).
 * Failures are WG_EIO with a message naming the peer; they also set
 * io_failed (and io_timed_out), which the client's retry logic reads. */
#ifndef WG_CLI_HTTP_CONN_H
#define WG_CLI_HTTP_CONN_H

#include <stdbool.h>
#include <stddef.h>

struct http_tls;
struct http_trust;

struct http_conn {
	int fd;                  /* -1 when closed */
	struct http_tls *tls;    /* NULL: plain bytes */
	long timeout_ms;         /* for connecting and each wait on the network */
	/* Asked when a wait is interrupted by a signal: nonzero stops it. */
	int (*cancelled)(void);
	char peer[280];          /* the host the socket talks to, for messages */
	bool sock_eof;           /* the peer closed its side */
	bool io_failed;          /* a socket call failed (the message is set) */
	bool io_timed_out;       /* ... by a timeout */
};

void http_conn_init(struct http_conn *c, long timeout_ms);
/* Open a TCP connection to host:port. `what` prefixes the host in messages
 * ("" for the server, "proxy " for a proxy). */
int http_conn_connect(struct http_conn *c, const char *host, unsigned port, const char *what);
/* Run a TLS handshake over the open socket, checking the certificate
 * against `trust` (loaded on first use) for `server_name`. */
int http_conn_start_tls(struct http_conn *c, struct http_trust *trust, const char *server_name);
void http_conn_close(struct http_conn *c);
/* Is the idle connection still usable: open, not closed by the peer and
 * with nothing unasked waiting to be read? */
bool http_conn_usable(struct http_conn *c);

/* >0 bytes read, 0 at the end of the stream, <0 error. */
long http_conn_read(struct http_conn *c, void *buf, size_t len);
int http_conn_write(struct http_conn *c, const void *data, size_t len);
/* Push out what TLS still buffers. */
int http_conn_flush(struct http_conn *c);

/* Wait ms milliseconds (a server's Retry-After), the connection untouched;
 * a signal that `cancelled` answers nonzero ends the wait with WG_EIO. */
int http_conn_pause(struct http_conn *c, long ms);

/* WEBGIT_HTTP_TIMEOUT's value `s` (seconds, fractions allowed, above 0
 * and at most a day) in milliseconds. */
int http_parse_timeout(const char *s, long *out);

/* The raw socket, for the TLS layer's callbacks: as http_conn_read and
 * a single send (>0 bytes written). */
long http_sock_recv(struct http_conn *c, void *buf, size_t len);
long http_sock_send(struct http_conn *c, const void *buf, size_t len);

#endif
