#!/usr/bin/env bash
# gql config check, --config for serve and gateway (flags override the
# file), and the command line's error messages.
# Usage: test_config.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_config.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_config.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

# docs/config.md's complete example is a valid file.
sed -n '/<!-- example:begin -->/,/<!-- example:end -->/p' "$root/docs/config.md" |
  sed '1,2d;$d' | sed '$d' >"$tmp/example.yaml"
grep -q "authentication:" "$tmp/example.yaml" || fail "no example extracted"
# its key set, next to it as the example's file://jwks.json says
echo '{"keys":[{"kty":"oct","kid":"k1","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQ"}]}' >"$tmp/jwks.json"
out=$(env -u GQL_PORT "$gql" config check "$tmp/example.yaml" 2>&1)
[[ $? == 0 && $out == "$tmp/example.yaml: valid" ]] && ok || fail "docs example: $out"

# Every problem on its own line, FILE:LINE:COLUMN, exit 1.
cat >"$tmp/bad.yaml" <<'YAML'
supergraph:
  listen: 127.0.0.1
server:
  threads: many
  idle_timeout: 30
cors:
  origins: ["*"]
YAML
"$gql" config check "$tmp/bad.yaml" >/dev/null 2>"$tmp/bad.err"
[[ $? == 1 ]] && ok || fail "bad file: exit status"
grep -qx "$tmp/bad.yaml:2:11: supergraph.listen '127.0.0.1': needs HOST:PORT (or unix:PATH)" "$tmp/bad.err" &&
  grep -qx "$tmp/bad.yaml:4:12: server.threads needs a number from 1 to 256" "$tmp/bad.err" &&
  grep -q "^$tmp/bad.yaml:5:17: server.idle_timeout needs a duration" "$tmp/bad.err" &&
  grep -q "^$tmp/bad.yaml:7:3: cors: use allow_any_origin" "$tmp/bad.err" &&
  [[ $(wc -l <"$tmp/bad.err") == 4 ]] && ok || fail "bad file errors: $(cat "$tmp/bad.err")"
"$gql" config check "$tmp/missing.yaml" >/dev/null 2>"$tmp/missing.err"
[[ $? == 1 ]] && grep -q "cannot open" "$tmp/missing.err" && ok || fail "missing file: $(cat "$tmp/missing.err")"
"$gql" config check >/dev/null 2>&1
[[ $? == 2 ]] && ok || fail "config check without FILE"
"$gql" config frobnicate x >/dev/null 2>&1
[[ $? == 2 ]] && ok || fail "unknown config subcommand"

# The key sets are read by config check: a missing or broken one is an
# error at its jwks entry.
sed 's|file://jwks.json|file://nope.json|' "$tmp/example.yaml" >"$tmp/nojwks.yaml"
"$gql" config check "$tmp/nojwks.yaml" >/dev/null 2>"$tmp/nojwks.err"
[[ $? == 1 ]] && grep -q "cannot open $tmp/nope.json" "$tmp/nojwks.err" && ok || fail "missing jwks: $(cat "$tmp/nojwks.err")"
echo '{"keys":[{"kty":"RSA","n":"AQAB"}]}' >"$tmp/bad-jwks.json"
sed 's|file://jwks.json|file://bad-jwks.json|' "$tmp/example.yaml" >"$tmp/badjwks.yaml"
"$gql" config check "$tmp/badjwks.yaml" >/dev/null 2>"$tmp/badjwks.err"
st=$?
line=$(grep -n "url: file://bad-jwks.json" "$tmp/badjwks.yaml" | cut -d: -f1)
[[ $st == 1 ]] && grep -q "^gql config check: $tmp/badjwks.yaml:$line:[0-9]*: $tmp/bad-jwks.json: key 0: an RSA key needs n and e" "$tmp/badjwks.err" &&
  ok || fail "broken jwks: $(cat "$tmp/badjwks.err")"

# An unknown flag is one line naming it, pointing at --help.
for c in serve gateway; do
  err=$("$gql" $c --bogus 2>&1 >/dev/null)
  st=$?
  [[ $st == 2 && $err == "gql $c: unknown option '--bogus' (see 'gql $c --help')" ]] &&
    ok || fail "$c --bogus: $st $err"
done
err=$("$gql" serve --port 2>&1 >/dev/null)
[[ $? == 2 && $err == "gql serve: --port needs a value" ]] && ok || fail "serve --port: $err"

# serve --config: listen, path, threads and log level from the file; its
# errors prefixed with the command; a flag overrides the file.
port=$(free_port)
cat >"$tmp/serve.yaml" <<YAML
supergraph:
  listen: 127.0.0.1:\${env.TEST_PORT}
  path: /api
server:
  threads: 1
  log_level: info
serve:
  schema: schema.graphql
  data: data.json
YAML
echo 'type Query { hello: String }' >"$tmp/schema.graphql"
echo '{"hello":"from the file"}' >"$tmp/data.json"
TEST_PORT=$port "$gql" serve --config "$tmp/serve.yaml" >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
pids+=("$pid")
for _ in $(seq 100); do grep -q "on http://" "$tmp/serve.out" && break; sleep 0.05; done
grep -q "on http://127.0.0.1:$port/api$" "$tmp/serve.out" && ok || fail "serve --config banner: $(cat "$tmp/serve.out" "$tmp/serve.err")"
got=$(curl -s -H 'content-type: application/json' --data-binary '{"query":"{ hello }"}' "http://127.0.0.1:$port/api")
[[ $got == '{"data":{"hello":"from the file"}}' ]] && ok || fail "serve --config query: $got"
kill -TERM "$pid"
wait "$pid"
grep -q "^POST /api 200 " "$tmp/serve.err" && ok || fail "log_level info from the file: $(cat "$tmp/serve.err")"

port2=$(free_port)
TEST_PORT=$port "$gql" serve --config "$tmp/serve.yaml" --port "$port2" >"$tmp/serve2.out" 2>&1 &
pid=$!
pids+=("$pid")
for _ in $(seq 100); do grep -q "on http://" "$tmp/serve2.out" && break; sleep 0.05; done
grep -q "on http://127.0.0.1:$port2/api$" "$tmp/serve2.out" && ok || fail "--port over the file: $(cat "$tmp/serve2.out")"
kill -TERM "$pid"
wait "$pid"

"$gql" serve --config "$tmp/serve.yaml" >/dev/null 2>"$tmp/noenv.err"
[[ $? == 1 ]] && grep -qx "gql serve: $tmp/serve.yaml:2:11: environment variable TEST_PORT is not set" "$tmp/noenv.err" &&
  ok || fail "config error through serve: $(cat "$tmp/noenv.err")"
"$gql" gateway --config "$tmp/bad.yaml" >/dev/null 2>"$tmp/gwbad.err"
[[ $? == 1 ]] && grep -q "^gql gateway: $tmp/bad.yaml:4:12: server.threads" "$tmp/gwbad.err" &&
  ok || fail "config error through gateway: $(cat "$tmp/gwbad.err")"

# Sections not applied yet are said so, once each.
cat >"$tmp/later.yaml" <<YAML
supergraph:
  listen: 127.0.0.1:$(free_port)
headers:
  all:
    request:
      - propagate:
          named: x-tenant
YAML
"$gql" serve --config "$tmp/later.yaml" >"$tmp/later.out" 2>"$tmp/later.err" &
pid=$!
pids+=("$pid")
for _ in $(seq 100); do grep -q "on http://" "$tmp/later.out" && break; sleep 0.05; done
kill -TERM "$pid"
wait "$pid"
grep -qx "gql serve: warning: $tmp/later.yaml: headers (propagation to subgraphs: gql gateway only) is checked but not applied yet by this version" "$tmp/later.err" &&
  ok || fail "unapplied warning: $(cat "$tmp/later.err")"
printf 'supergraph:\n  listen: unix:%s/gql.sock\n' "$tmp" >"$tmp/unix.yaml"
"$gql" serve --config "$tmp/unix.yaml" >"$tmp/unix.out" 2>"$tmp/unix.err" &
pid=$!
pids+=("$pid")
for _ in $(seq 100); do grep -q "on unix:" "$tmp/unix.out" && break; sleep 0.05; done
grep -q "on unix:$tmp/gql.sock/graphql" "$tmp/unix.out" && [[ -S $tmp/gql.sock ]] && ok || fail "unix listen: $(cat "$tmp/unix.out" "$tmp/unix.err")"
kill -TERM "$pid"
wait "$pid"

# A schema without --data: every field will be null, and serve says so.
if serve nodata --schema "$tmp/schema.graphql"; then
  grep -q "gql serve: warning: no --data, so every field of $tmp/schema.graphql resolves to null" "$tmp/nodata.err" &&
    ok || fail "no --data warning: $(cat "$tmp/nodata.err")"
  kill -TERM "$pid"
  wait "$pid"
fi

echo "test_config: $passed passed, $failures failed"
((failures == 0))
