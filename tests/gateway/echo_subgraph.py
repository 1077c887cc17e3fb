"""A subgraph that answers with the headers it received: POST /NAME with a
query naming the field echo<NAME> gets {"data":{"echo<NAME>": JSON}} where
JSON is the list of [name (lower case), value] pairs as received. Fields
`secret` and `admin` answer their names; `me` answers {"name": "ann",
"email": "ann@example.com"}; the mutation field `wipe` answers true. With
LOG, each query received is appended to that file, one a line (what the
gateway asked). Prints "listening PORT" once ready.
Usage: echo_subgraph.py PORT [LOG]"""
import re
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(n) or b"{}")
        query = body.get("query", "")
        if len(sys.argv) > 2:
            with open(sys.argv[2], "a") as log:
                log.write(query.replace("\n", " ") + "\n")
        seen = [[k.lower(), v] for k, v in self.headers.items()]
        data = {}
        for field in ("echoA", "echoB"):
            if field in query:
                data[field] = json.dumps(seen)
        for field in ("secret", "admin"):
            if re.search(r"\b%s\b" % field, query):
                data[field] = field
        if re.search(r"\bwipe\b", query):
            data["wipe"] = True
        if re.search(r"\bme\b", query):
            data["me"] = {"name": "ann", "email": "ann@example.com"}
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
