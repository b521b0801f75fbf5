/* The connection of the native HTTP client (see conn.h): a non-blocking
 * socket, so that every wait is bounded by the client's timeout and a
 * signal can cancel it, under an optional TLS layer (tls.c). */
#include "http/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "http/tls.h"
#include "util/alloc.h"
#include "util/error.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

void http_conn_init(struct http_conn *c, long timeout_ms)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->timeout_ms = timeout_ms;
}

static double timeout_secs(const struct http_conn *c)
{
	return (double)c->timeout_ms / 1000.0;
}

/* 64-bit: a 32-bit long (wasm32) overflows after 24 days of uptime. */
static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for `events`; 0, or WG_EIO after the timeout. */
static int sock_wait(struct http_conn *c, short events, const char *doing)
{
	int64_t deadline = now_ms() + c->timeout_ms;
	for (;;) {
		struct pollfd pfd = { c->fd, events, 0 };
		int64_t left = deadline - now_ms();
		int n;
		if (left < 0)
			left = 0;
		n = poll(&pfd, 1, (int)left);
		if (n > 0)
			return 0;
		if (n == 0) {
			c->io_timed_out = true;
			c->io_failed = true;
			return wg_error_set(WG_EIO, "timed out after %g s %s %s (set WEBGIT_HTTP_TIMEOUT "
					    "to wait longer)", timeout_secs(c), doing, c->peer);
		}
		if (errno != EINTR) {
			c->io_failed = true;
			return wg_error_set(WG_EIO, "poll failed %s %s: %s", doing, c->peer,
					    strerror(errno));
		}
		if (c->cancelled && c->cancelled()) {
			c->io_failed = true;
			return wg_error_set(WG_EIO, "interrupted %s %s", doing, c->peer);
		}
	}
}

int http_conn_pause(struct http_conn *c, long ms)
{
	struct timespec left = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&left, &left)) {
		if (errno != EINTR)
			return wg_error_set(WG_EIO, "nanosleep failed: %s", strerror(errno));
		if (c->cancelled && c->cancelled())
			return wg_error_set(WG_EIO, "interrupted while waiting to ask %s again",
					    c->peer);
	}
	return 0;
}

/* >0 bytes read, 0 end of stream, <0 error. */
long http_sock_recv(struct http_conn *c, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = recv(c->fd, buf, len, 0);
		if (n > 0)
			return (long)n;
		if (n == 0) {
			c->sock_eof = true;
			return 0;
		}
		if (errno == EINTR && c->cancelled && c->cancelled()) {
			c->io_failed = true;
			return wg_error_set(WG_EIO, "interrupted reading from %s", c->peer);
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int err = sock_wait(c, POLLIN, "waiting for data from");
			if (err)
				return err;
			continue;
		}
		c->io_failed = true;
		return wg_error_set(WG_EIO, "error reading from %s: %s", c->peer,
				    strerror(errno));
	}
}

/* >0 bytes written, <0 error. */
long http_sock_send(struct http_conn *c, const void *buf, size_t len)
{
	for (;;) {
		ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
		if (n >= 0)
			return (long)n;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int err = sock_wait(c, POLLOUT, "sending to");
			if (err)
				return err;
			continue;
		}
		c->io_failed = true;
		return wg_error_set(WG_EIO, "error sending to %s: %s", c->peer, strerror(errno));
	}
}

void http_conn_close(struct http_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	wg_free(c->tls);
	c->tls = NULL;
	c->sock_eof = false;
}

int http_conn_connect(struct http_conn *c, const char *host, unsigned port, const char *what)
{
	struct addrinfo hints, *res = NULL, *ai;
	char portstr[16];
	int rc, last_errno = 0;
	bool timed_out = false;

	http_conn_close(c);
	snprintf(c->peer, sizeof(c->peer), "%s", host);
	c->io_failed = c->io_timed_out = false;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc)
		return wg_error_set(WG_EIO, "unable to resolve %shost '%s': %s", what, host,
				    rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			last_errno = errno;
			continue;
		}
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
			last_errno = errno;
			close(fd);
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			c->fd = fd;
			break;
		}
		if (errno == EINPROGRESS) {
			int soerr = 0;
			socklen_t sl = sizeof(soerr);
			c->fd = fd;
			if (sock_wait(c, POLLOUT, "connecting to")) {
				timed_out = true;
			} else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && !soerr) {
				break;
			} else {
				last_errno = soerr ? soerr : errno;
			}
			c->fd = -1;
		} else {
			last_errno = errno;
		}
		close(fd);
	}
	freeaddrinfo(res);
	c->io_failed = c->io_timed_out = false;
	if (c->fd < 0) {
		if (timed_out && !last_errno)
			return wg_error_set(WG_EIO, "unable to connect to %s%s port %u: timed out "
					    "after %g s", what, host, port, timeout_secs(c));
		return wg_error_set(WG_EIO, "unable to connect to %s%s port %u: %s", what, host, port,
				    strerror(last_errno ? last_errno : ECONNREFUSED));
	}
	{
		int one = 1;
		/* Requests go out as one write per piece; do not let Nagle hold
		 * back the last small one. */
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return 0;
}

bool http_conn_usable(struct http_conn *c)
{
	struct pollfd pfd;
	if (c->fd < 0 || c->sock_eof)
		return false;
	if (c->tls && http_tls_closed(c))
		return false;
	pfd.fd = c->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	return poll(&pfd, 1, 0) == 0;
}

long http_conn_read(struct http_conn *c, void *buf, size_t len)
{
	return c->tls ? http_tls_read(c, buf, len) : http_sock_recv(c, buf, len);
}

int http_conn_write(struct http_conn *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	if (c->tls)
		return http_tls_write(c, data, len);
	while (len) {
		long n = http_sock_send(c, p, len);
		if (n < 0)
			return (int)n;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int http_conn_flush(struct http_conn *c)
{
	return c->tls ? http_tls_flush(c) : 0;
}

int http_parse_timeout(const char *s, long *out)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	/* at most a day: the milliseconds fit a 32-bit int (poll's argument) */
	if (errno || end == s || *end || !(v > 0) || v > 86400.0)
		return wg_error_set(WG_EINVALID, "WEBGIT_HTTP_TIMEOUT must be a number of seconds "
				    "above 0 and at most 86400, not '%s'", s);
	*out = (long)(v * 1000.0);
	if (*out < 1)
		*out = 1;
	return 0;
}
