#!/usr/bin/env bash
# docs/deploy.md's HAProxy configuration, run as written (paths and the
# port replaced): HAProxy from Debian terminates TLS (a certificate made
# here) and forwards to gql serve listening on a Unix socket; GraphQL over
# HTTPS (HTTP/1.1 and HTTP/2), the health check, and --listen unix:PATH's
# socket file (replaced when stale, refused when live, removed at exit).
# Usage: test_deploy.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_deploy.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_deploy.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)
[[ -x $haproxy ]] || { echo "FAIL: haproxy is not installed (scripts/deps.sh installs it)"; exit 1; }

sock="$tmp/run/gql.sock"
mkdir -p "$tmp/run"
# a stale socket file (no process behind it) is replaced
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$sock"
"$gql" serve --listen "unix:$sock" --threads 2 >"$tmp/gql.out" 2>"$tmp/gql.err" &
gpid=$!
pids+=("$gpid")
for _ in $(seq 100); do grep -q "on unix:" "$tmp/gql.out" && break; sleep 0.05; done
grep -qx "gql serve: serving the Star Wars demo on unix:$sock/graphql" "$tmp/gql.out" && ok || fail "banner: $(cat "$tmp/gql.out" "$tmp/gql.err")"
got=$(curl -s --unix-socket "$sock" -H 'content-type: application/json' -d '{"query":"{ hero { name } }"}' http://gql/graphql)
[[ $got == '{"data":{"hero":{"name":"R2-D2"}}}' ]] && ok || fail "over the socket: $got"
# a second server on the live socket is refused
"$gql" serve --listen "unix:$sock" >/dev/null 2>"$tmp/second.err"
[[ $? != 0 ]] && grep -q "cannot listen on unix:$sock" "$tmp/second.err" && ok || fail "live socket taken over: $(cat "$tmp/second.err")"

# the certificate and the configuration of docs/deploy.md
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
cat "$tmp/cert.pem" "$tmp/key.pem" >"$tmp/gql.pem"
port=$(free_port)
sed -n '/<!-- haproxy:begin -->/,/<!-- haproxy:end -->/p' "$root/docs/deploy.md" | sed '1,2d;$d' | sed '$d' |
  sed -e "s|bind :443|bind 127.0.0.1:$port|" -e "s|/etc/haproxy/certs/gql.pem|$tmp/gql.pem|" \
    -e "s|/run/gql/gql.sock|$sock|" >"$tmp/haproxy.cfg"
grep -q "server gql unix@$sock check" "$tmp/haproxy.cfg" && ok || fail "config not extracted: $(cat "$tmp/haproxy.cfg")"
"$haproxy" -c -f "$tmp/haproxy.cfg" >"$tmp/check.out" 2>&1 && ok || fail "haproxy -c: $(cat "$tmp/check.out")"
"$haproxy" -db -f "$tmp/haproxy.cfg" >"$tmp/haproxy.log" 2>&1 &
pids+=($!)
url="https://localhost:$port"
for _ in $(seq 100); do curl -sk -o /dev/null "$url/health" && break; sleep 0.1; done

got=$(curl -s --cacert "$tmp/cert.pem" --http1.1 -H 'content-type: application/json' \
  -d '{"query":"{ hero { name } }"}' "$url/graphql")
[[ $got == '{"data":{"hero":{"name":"R2-D2"}}}' ]] && ok || fail "HTTPS/1.1: $got $(cat "$tmp/haproxy.log")"
got=$(curl -s --cacert "$tmp/cert.pem" --http2 -w ' %{http_version}' -H 'content-type: application/json' \
  -d '{"query":"{ hero { name } }"}' "$url/graphql")
[[ $got == '{"data":{"hero":{"name":"R2-D2"}}} 2' ]] && ok || fail "HTTP/2: $got"
got=$(curl -s --cacert "$tmp/cert.pem" "$url/graphql?query=%7Bhero%7Bid%7D%7D")
[[ $got == '{"data":{"hero":{"id":"2001"}}}' ]] && ok || fail "GET over HTTPS: $got"
got=$(curl -s --cacert "$tmp/cert.pem" "$url/health")
[[ $got == '{"status":"ok"}' ]] && ok || fail "health: $got"
# plain HTTP to the TLS port gets nothing useful
got=$(curl -s -m 5 "http://localhost:$port/health")
[[ $got != '{"status":"ok"}' ]] && ok || fail "plain HTTP answered"

kill -TERM "$gpid"
wait "$gpid" && ok || fail "gql exit status"
[[ ! -e $sock ]] && ok || fail "socket file left behind"
echo "test_deploy: $passed passed, $failures failed"
((failures == 0))
