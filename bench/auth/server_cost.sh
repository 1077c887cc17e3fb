#!/usr/bin/env bash
# The cost of JWT authentication in the server's request path, on a
# repeated token (RS256, issuer and audience checked): `gql serve` with the
# configuration's authentication.router.jwt against the same server
# without it, same requests (bench/http/callgrind_request.sh: keep-alive
# POSTs of a small query, the token in Authorization).
#   callgrind: instructions per request inside gql_http_conn_feed, both
#   ways (stable; timings of the server process on the shared machine were
#   dominated by noise). build/bench/bench_auth times the verification
#   itself (ns per cached token).
# Usage: bench/auth/server_cost.sh [GQL_BINARY] [N]
set -euo pipefail
gql=${1:-build/gql}
n=${2:-2000}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/rsa.pem" 2>/dev/null
nmod=$(openssl rsa -in "$tmp/rsa.pem" -noout -modulus 2>/dev/null | cut -d= -f2 | xxd -r -p | b64url)
echo "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"k\",\"alg\":\"RS256\",\"n\":\"$nmod\",\"e\":\"AQAB\"}]}" >"$tmp/jwks.json"
h=$(printf '{"alg":"RS256","kid":"k","typ":"JWT"}' | b64url)
p=$(printf '{"sub":"alice","iss":"https://issuer.example","aud":"gql","scope":"read write","exp":%d}' $(($(date +%s) + 86400)) | b64url)
sig=$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -sign "$tmp/rsa.pem" -binary | b64url)
export AUTH="Bearer $h.$p.$sig"
cat >"$tmp/auth.yaml" <<YAML
authentication:
  router:
    jwt:
      jwks:
        - url: file://$tmp/jwks.json
          issuers: [https://issuer.example]
          audiences: [gql]
YAML
echo "" >"$tmp/none.yaml"
cg() { "$here/../http/callgrind_request.sh" "$gql" "$n" -- --config "$tmp/$1.yaml" | awk '{print $NF}'; }
a=$(cg none)
b=$(cg auth)
echo "callgrind, instructions per request: without auth $a, with auth $b, auth $((b - a))"
