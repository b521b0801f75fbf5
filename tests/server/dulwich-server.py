#!/usr/bin/python3
# tests/server/dulwich-server.py: a second smart-HTTP Git server for the
# tests, Dulwich's (Debian's python3-dulwich, a pure-Python implementation
# that shares no code with git), so that webgit is checked against a server
# that is not git http-backend. Protocol v0/v1 only, as Dulwich 0.21 speaks;
# fetch (also shallow) and push; no filter, no protocol v2.
#
#   /usr/bin/python3 tests/server/dulwich-server.py --root DIR [options]
#
#   --root DIR        every DIR/<name>.git is served at /git/<name>.git
#   --port N          0 (the default) picks a free port
#   --pid-file FILE   write the server's PID to FILE
#   --port-file FILE  write the port to FILE once listening (atomically)
#   --log FILE        append "METHOD PATH STATUS" per request to FILE
#
# It listens on 127.0.0.1 only. tests/server/start.sh --dulwich starts it
# like git-http-server.mjs (same state directory, same URL layout), and
# tests/server/stop.sh stops it by its PID.
import argparse
import os
import socketserver
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from dulwich.repo import Repo
from dulwich.server import DictBackend
from dulwich.web import make_wsgi_chain


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--pid-file")
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    opts = ap.parse_args()

    repos = {}
    for name in sorted(os.listdir(opts.root)):
        path = os.path.join(opts.root, name)
        if name.endswith(".git") and os.path.isdir(path):
            repos["/git/" + name] = Repo(path)
    app = make_wsgi_chain(DictBackend(repos))

    log = open(opts.log, "a", buffering=1) if opts.log else None

    class Handler(WSGIRequestHandler):
        def log_request(self, code="-", size="-"):
            if log:
                log.write("%s %s %s\n" % (self.command, self.path, code))

        def log_message(self, format, *args):
            sys.stderr.write("%s\n" % (format % args))

    # One thread per connection: a client that keeps its connection open
    # (Node's fetch does) must not hold up the next one.
    class Server(socketserver.ThreadingMixIn, WSGIServer):
        daemon_threads = True

    server = make_server("127.0.0.1", opts.port, app, server_class=Server,
                         handler_class=Handler)
    if opts.pid_file:
        with open(opts.pid_file, "w") as f:
            f.write("%d\n" % os.getpid())
    if opts.port_file:
        tmp = opts.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % server.server_port)
        os.rename(tmp, opts.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
