"""A subgraph that answers with the headers it received: POST /NAME with a
query naming the field echo<NAME> gets {"data":{"echo<NAME>": JSON}} where
JSON is the list of [name (lower case), value] pairs as received. Prints
"listening PORT" once ready. Usage: echo_subgraph.py PORT"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(n) or b"{}")
        query = body.get("query", "")
        seen = [[k.lower(), v] for k, v in self.headers.items()]
        data = {}
        for field in ("echoA", "echoB"):
            if field in query:
                data[field] = json.dumps(seen)
        out = json.dumps({"data": data}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


srv = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Echo)
print("listening", srv.server_address[1], flush=True)
srv.serve_forever()
