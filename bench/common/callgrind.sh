# Sourced by the bench scripts that count instructions of a server under
# callgrind (bench/http, bench/gateway callgrind_request.sh).
# free_port: a free loopback TCP port.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# cg_total FILE: the total instructions of callgrind's output FILE.
cg_total() {
  callgrind_annotate "$1" 2>/dev/null |
    awk '/PROGRAM TOTALS/ && !done {gsub(",","",$1); print $1; done = 1}'
}
