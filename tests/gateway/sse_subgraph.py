"""A subgraph that serves one subscription over graphql-sse (distinct
connections) at POST /stream only, behaving as the request's x-mode header
says, so the gateway's SSE client meets each ending a real server can give:
  complete: two next events, then `event: complete` (the connection kept)
  end:      two next events, then the chunked body's end (no complete event)
  cut:      one next event, then the connection closed mid-stream
  status:   503 with a GraphQL error in JSON
  json:     200 application/json instead of the event stream
  hold:     one next event, then nothing until the gateway closes the
            connection (or 30 s)
Each event is {"data":{"ticks":{"n":N,"seen":"ACCEPT|X-FROM"}}}: the
request's Accept and x-from headers, to check what the gateway sent. Other
paths get 404. Prints "listening PORT" once ready.
Usage: sse_subgraph.py PORT"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Stream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def chunk(self, text):
        b = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))
        self.wfile.flush()

    def answer(self, status, ctype, body):
        b = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        self.rfile.read(n)
        if self.path != "/stream":
            self.answer(404, "application/json", {"errors": [{"message": "no such path"}]})
            return
        mode = self.headers.get("x-mode", "complete")
        if mode == "status":
            self.answer(503, "application/json", {"errors": [{"message": "overloaded"}]})
            return
        if mode == "json":
            self.answer(200, "application/json", {"data": {"ticks": None}})
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self.chunk(":\n\n")
        seen = "%s|%s" % (self.headers.get("accept", ""), self.headers.get("x-from", ""))
        for i in range(1 if mode in ("cut", "hold") else 2):
            data = json.dumps({"data": {"ticks": {"n": i + 1, "seen": seen}}})
            self.chunk("event: next\r\ndata: %s\r\n\r\n" % data)
        if mode == "cut":
            self.close_connection = True
            return
        if mode == "hold":
            self.connection.settimeout(30)
            try:
                self.connection.recv(1)  # b"" (or an error) once closed
            except OSError:
                pass
            self.close_connection = True
            return
        if mode == "complete":
            self.chunk("event: complete\ndata:\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def log_message(self, *args):
        pass


srv = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Stream)
print("listening", srv.server_address[1], flush=True)
srv.serve_forever()
