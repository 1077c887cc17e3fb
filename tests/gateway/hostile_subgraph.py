"""A subgraph that misbehaves on purpose, on raw sockets, so that the
gateway's subgraph clients (src/gateway/client.c for queries,
sse_client.c and ws_client.c for subscriptions) meet what a broken or
hostile server can send. The request's x-mode header (propagated by the
gateway's header rules) picks the behaviour; without it the subgraph
answers correctly.

Queries (POST /graphql), answering `{ topProducts { name inStock } }`:
  normal        the right answer (Content-Length)
  huge_declared Content-Length of 1 GiB, then body bytes until the peer goes
  huge_chunked  a chunked body that never ends: a JSON list that keeps growing
  trickle       the right answer, one byte every 0.2 s
  endless_head  a response head whose header line never ends
  deep          200 with [[[[... a million levels deep
  trailing      the right answer followed by a second JSON value
  html          200 text/html with an HTML page
  wrong_list    data.topProducts an object where a list is expected
  wrong_leaf    name an object, inStock a string
  wrong_ints    rank (an Int) as numbers, strings and booleans
  wrong_items   list items that are not objects, leaves graphql-js coerces
  wrong_data    data a list
  wrong_errors  errors a string, data null
  http10        HTTP/1.0 with no Content-Length, the body ending with the socket
  reset         half the body, then a TCP reset
  redirect      302 with a Location to elsewhere
  continue      100 Continue, then the right answer
  garbage       bytes that are not HTTP
(A request for slowCount, whatever the mode, is answered 1 s late.)
Subscriptions (graphql-sse: POST /graphql with Accept: text/event-stream;
graphql-transport-ws: GET /graphql with Upgrade), `subscription { ticks { n } }`:
  sse_normal    three next events, then complete
  sse_huge      one next event whose data is 4 MiB
  sse_longline  a line that never ends
  sse_badjson   a next event whose data is not JSON
  sse_silent    no answer at all for 10 s
  sse_badchunk  a chunk size that is not hex
  sse_unknown   an event that is neither next nor complete
  sse_endless   a next event every 0.2 s, for half an hour
  sse_flood     next events as fast as the socket takes them, for 5 s
  ws_normal     ack, three next, complete
  ws_noack      upgrade, then never connection_ack
  ws_unknown_id ack, then a next for an id the gateway never used
  ws_huge       ack, then one 4 MiB text message
  ws_flood      ack, then next messages as fast as the socket takes them, for 5 s
Prints "listening PORT" once ready. Usage: hostile_subgraph.py PORT
"""
import base64
import hashlib
import json
import socket
import struct
import sys
import threading
import time

ANSWER = json.dumps({"data": {"topProducts": [
    {"name": "Table", "inStock": True}, {"name": "Couch", "inStock": False}]}}).encode()


def read_request(s):
    """The request's head (lowercased header names) and body, or None."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            return None
        buf += d
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", "0"))
    while len(rest) < n:
        d = s.recv(65536)
        if not d:
            return None
        rest += d
    return lines[0], headers, rest[:n]


def respond(s, status, ctype, body, extra=""):
    s.sendall(("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n"
               % (status, ctype, len(body), extra)).encode() + body)


def send_all_until_gone(s, head, piece, seconds=20):
    s.sendall(head)
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            s.sendall(piece)
    except OSError:
        pass


def chunk(b):
    return b"%x\r\n%s\r\n" % (len(b), b)


# ------------------------------------------------------------ queries

def query(s, mode, body=b""):
    if b"slowCount" in body:  # the deferred fragment's request answers late
        time.sleep(1.0)
        respond(s, "200 OK", "application/json", b'{"data":{"slowCount":5}}')
        return True
    if mode == "huge_declared":
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
               b"Content-Length: 1073741824\r\n\r\n{\"data\":{\"topProducts\":["
        send_all_until_gone(s, head, b"{\"name\":\"x\",\"inStock\":true}," * 2000)
        return False
    if mode == "huge_chunked":
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
               b"Transfer-Encoding: chunked\r\n\r\n" + chunk(b"{\"data\":{\"topProducts\":[")
        send_all_until_gone(s, head, chunk(b"{\"name\":\"x\",\"inStock\":true}," * 2000))
        return False
    if mode == "trickle":
        msg = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" \
            % (len(ANSWER), ANSWER)
        try:
            for i in range(len(msg)):
                s.sendall(msg[i:i + 1])
                time.sleep(0.2)
        except OSError:
            pass
        return False
    if mode == "endless_head":
        send_all_until_gone(s, b"HTTP/1.1 200 OK\r\nX-Long: ", b"a" * 65536)
        return False
    if mode == "deep":
        respond(s, "200 OK", "application/json", b"[" * 1000000)
        return True
    if mode == "trailing":
        respond(s, "200 OK", "application/json", ANSWER + b'{"data":{}}')
        return True
    if mode == "html":
        respond(s, "200 OK", "text/html", b"<html><body><h1>Welcome to nginx!</h1></body></html>")
        return True
    if mode == "wrong_list":
        respond(s, "200 OK", "application/json",
                b'{"data":{"topProducts":{"name":"Table","inStock":true}}}')
        return True
    if mode == "wrong_leaf":
        respond(s, "200 OK", "application/json",
                b'{"data":{"topProducts":[{"name":{"first":"Ta"},"inStock":"yes"}]}}')
        return True
    if mode == "wrong_items":
        respond(s, "200 OK", "application/json",
                b'{"data":{"topProducts":[1,"x",{"name":5.5,"inStock":0},{"name":true,"inStock":[]}]}}')
        return True
    if mode == "wrong_ints":
        respond(s, "200 OK", "application/json",
                b'{"data":{"topProducts":[{"rank":1.5e94},{"rank":"12"},{"rank":3.0},'
                b'{"rank":true},{"rank":2147483648},{"rank":"x"},{"rank":2.5}]}}')
        return True
    if mode == "wrong_data":
        respond(s, "200 OK", "application/json", b'{"data":[1,2,3]}')
        return True
    if mode == "wrong_errors":
        respond(s, "200 OK", "application/json", b'{"data":null,"errors":"boom"}')
        return True
    if mode == "http10":
        s.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + ANSWER)
        return False
    if mode == "reset":
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                  % (len(ANSWER), ANSWER[:len(ANSWER) // 2]))
        time.sleep(0.05)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        return False
    if mode == "redirect":
        respond(s, "302 Found", "text/plain", b"moved",
                "Location: http://127.0.0.1:1/graphql\r\n")
        return True
    if mode == "continue":
        s.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        respond(s, "200 OK", "application/json", ANSWER)
        return True
    if mode == "garbage":
        s.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
        return False
    respond(s, "200 OK", "application/json", ANSWER)
    return True


# ------------------------------------------------------------ graphql-sse

def sse(s, mode, body):
    field = "sseTicks" if b"sseTicks" in body else "ticks"
    if mode == "sse_silent":
        time.sleep(10)
        return
    s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")

    def event(data, kind=b"next"):
        s.sendall(chunk(b"event: " + kind + b"\ndata: " + data + b"\n\n"))

    def tick(n):
        return json.dumps({"data": {field: {"n": n}}}).encode()

    try:
        if mode == "sse_huge":
            event(b'{"data":{"' + field.encode() + b'":{"n":1,"pad":"' + b"x" * (4 << 20) + b'"}}}')
        elif mode == "sse_longline":
            send_all_until_gone(s, chunk(b"data: "), chunk(b"y" * 65536), 10)
        elif mode == "sse_badjson":
            event(b"{not json")
        elif mode == "sse_badchunk":
            s.sendall(b"zz\r\nevent: next\r\n")
        elif mode == "sse_unknown":
            event(tick(1), b"surprise")
        elif mode == "sse_flood":
            end = time.monotonic() + 5
            n = 0
            while time.monotonic() < end:
                n += 1
                s.sendall(chunk((b"event: next\ndata: %s\n\n" % tick(n)) * 100))
        elif mode == "sse_endless":
            for n in range(1, 10000):
                event(tick(n))
                time.sleep(0.2)
        else:
            for n in (1, 2, 3):
                event(tick(n))
            s.sendall(chunk(b"event: complete\ndata:\n\n") + b"0\r\n\r\n")
        time.sleep(2)
    except OSError:
        pass


# ------------------------------------------------------------ graphql-ws

def ws_frame(text):
    b = text if isinstance(text, bytes) else text.encode()
    n = len(b)
    if n < 126:
        head = struct.pack("!BB", 0x81, n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    return head + b


def ws_read(s, buf):
    """One frame's (opcode, payload) from the client (masked), and the rest."""
    while True:
        if len(buf) >= 2:
            op, ln = buf[0] & 0x0F, buf[1] & 0x7F
            off = 2
            if ln == 126:
                if len(buf) < 4:
                    ln = None
                else:
                    ln, off = struct.unpack("!H", buf[2:4])[0], 4
            elif ln == 127:
                if len(buf) < 10:
                    ln = None
                else:
                    ln, off = struct.unpack("!Q", buf[2:10])[0], 10
            if ln is not None and len(buf) >= off + 4 + ln:
                mask = buf[off:off + 4]
                data = bytes(c ^ mask[i % 4] for i, c in enumerate(buf[off + 4:off + 4 + ln]))
                return op, data, buf[off + 4 + ln:]
        d = s.recv(65536)
        if not d:
            return None, None, buf
        buf += d


def ws(s, headers, mode):
    key = headers.get("sec-websocket-key", "")
    acc = base64.b64encode(hashlib.sha1(
        (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
    s.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n"
               "Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n" % acc).encode())
    buf = b""
    op, init, buf = ws_read(s, buf)  # connection_init
    if op is None:
        return
    if mode == "ws_noack":
        s.settimeout(30)
        try:
            while s.recv(65536):
                pass
        except OSError:
            pass
        return
    s.sendall(ws_frame('{"type":"connection_ack"}'))
    op, sub, buf = ws_read(s, buf)  # subscribe
    if op is None:
        return
    sid = json.loads(sub)["id"]

    def nxt(n, i=sid):
        return ws_frame(json.dumps({"id": i, "type": "next",
                                    "payload": {"data": {"ticks": {"n": n}}}}))

    try:
        if mode == "ws_unknown_id":
            s.sendall(nxt(1, "not-" + sid))
        elif mode == "ws_huge":
            s.sendall(ws_frame(json.dumps({"id": sid, "type": "next", "payload": {
                "data": {"ticks": {"n": 1, "pad": "x" * (4 << 20)}}}})))
        elif mode == "ws_flood":
            end = time.monotonic() + 5
            n = 0
            while time.monotonic() < end:
                n += 1
                s.sendall(b"".join(nxt(n * 100 + i) for i in range(100)))
        else:
            for n in (1, 2, 3):
                s.sendall(nxt(n))
            s.sendall(ws_frame(json.dumps({"id": sid, "type": "complete"})))
        s.settimeout(3)
        while s.recv(65536):
            pass
    except OSError:
        pass


def serve(s):
    try:
        while True:
            req = read_request(s)
            if req is None:
                return
            line, headers, body = req
            mode = headers.get("x-mode", "normal")
            if headers.get("upgrade", "").lower() == "websocket":
                ws(s, headers, mode if mode.startswith("ws_") else "ws_normal")
                return
            if "text/event-stream" in headers.get("accept", ""):
                sse(s, mode if mode.startswith("sse_") else "sse_normal", body)
                return
            if not query(s, mode, body):
                return
    except OSError:
        pass
    finally:
        try:
            s.close()
        except OSError:
            pass


def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", int(sys.argv[1])))
    srv.listen(128)
    print("listening", srv.getsockname()[1], flush=True)
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


if __name__ == "__main__":
    main()
