#!/usr/bin/env python3
"""A cache server that answers nothing in time: every request waits SECONDS
before its 404 (tests/cli/cli_remote_cache.sh, the time limit). Listens on
127.0.0.1 on a free port, which it writes to PORT_FILE."""
import http.server
import socketserver
import sys
import time

SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 30.0


class Slow(http.server.BaseHTTPRequestHandler):
    def answer(self):
        time.sleep(SECONDS)
        try:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
        except OSError:
            pass  # the client gave up long ago

    do_GET = do_HEAD = do_PUT = answer

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Slow)
with open(sys.argv[1], "w") as f:
    f.write("%d\n" % server.server_address[1])
server.serve_forever()
