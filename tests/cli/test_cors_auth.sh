#!/usr/bin/env bash
# CORS and JWT authentication in the request path of gql serve and gql
# gateway, from their configuration files (issue 16, items 2 and 3), over
# real HTTP, with keys made by openssl here: RS256 (kid selection) and
# HS256 key sets.
# Usage: test_cors_auth.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_cors_auth.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_cors_auth.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

# ---- keys and tokens
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/rsa.pem" 2>/dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/other.pem" 2>/dev/null
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
mod=$(openssl rsa -in "$tmp/rsa.pem" -noout -modulus 2>/dev/null | cut -d= -f2)
n=$(echo -n "$mod" | xxd -r -p | b64url)
secret=$(head -c 32 /dev/urandom | b64url)
cat >"$tmp/jwks.json" <<JSON
{"keys":[{"kty":"RSA","kid":"rsa1","alg":"RS256","use":"sig","n":"$n","e":"AQAB"},
         {"kty":"oct","kid":"hs1","alg":"HS256","k":"$secret"}]}
JSON
# token ALG KID PAYLOAD [KEYFILE]: a compact JWS
token() {
  local alg=$1 kid=$2 payload=$3 key=${4:-$tmp/rsa.pem}
  local h p sig
  h=$(printf '{"alg":"%s","kid":"%s","typ":"JWT"}' "$alg" "$kid" | b64url)
  p=$(printf '%s' "$payload" | b64url)
  if [[ $alg == HS256 ]]; then
    local hexkey
    hexkey=$(printf '%s' "$secret" | tr -- '-_' '+/' | sed 's/$/==/' | openssl base64 -d -A 2>/dev/null | xxd -p | tr -d '\n')
    sig=$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | b64url)
  else
    sig=$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -sign "$key" -binary | b64url)
  fi
  printf '%s.%s.%s' "$h" "$p" "$sig"
}
now=$(date +%s)
claims="{\"sub\":\"alice\",\"iss\":\"https://issuer.example\",\"aud\":\"gql\",\"exp\":$((now + 600))}"
good=$(token RS256 rsa1 "$claims")
good_hs=$(token HS256 hs1 "$claims")
expired=$(token RS256 rsa1 "{\"sub\":\"alice\",\"iss\":\"https://issuer.example\",\"aud\":\"gql\",\"exp\":$((now - 3600))}")
wrong_kid=$(token RS256 nope "$claims")
wrong_key=$(token RS256 rsa1 "$claims" "$tmp/other.pem")
wrong_iss=$(token RS256 rsa1 "{\"sub\":\"a\",\"iss\":\"https://evil.example\",\"aud\":\"gql\",\"exp\":$((now + 600))}")
tampered="${good%%.*}.$(printf '%s' "${claims/alice/admin}" | b64url).${good##*.}"

echo 'type Query { hello: String }' >"$tmp/schema.graphql"
echo '{"hello":"world"}' >"$tmp/data.json"
config() { # config FILE REQUIRE
  cat >"$1" <<YAML
serve:
  schema: schema.graphql
  data: data.json
cors:
  policies:
    - origins: [https://app.example.com]
      allow_credentials: true
      allow_headers: [content-type, authorization]
      methods: [GET, POST]
      max_age: 10m
authentication:
  router:
    jwt:
      jwks:
        - url: file://jwks.json
          issuers: [https://issuer.example]
          audiences: [gql]
authorization:
  require_authentication: $2
YAML
}
config "$tmp/optional.yaml" false
config "$tmp/required.yaml" true

# req URL [CURL ARGS]: status in $st, head (lower case names) in $tmp/head,
# body in $tmp/body
req() {
  local url=$1
  shift
  st=$(curl -s -o "$tmp/body" -D "$tmp/h" -w '%{http_code}' "$@" "$url")
  tr -d '\r' <"$tmp/h" | sed 's/^\([^:]*\):/\L\1:/' >"$tmp/head"
}
post() { # post URL TOKEN|"" [CURL ARGS]
  local url=$1 tok=$2
  shift 2
  local auth=()
  [[ -n $tok ]] && auth=(-H "authorization: Bearer $tok")
  req "$url" -H 'content-type: application/json' "${auth[@]}" "$@" --data-binary '{"query":"{ __typename }"}'
}
body_is() { [[ $(cat "$tmp/body") == "$1" ]]; }
has() { grep -qix "$1" "$tmp/head"; }

check_server() { # NAME URL KIND (serve|gateway)
  local name=$1 url=$2
  # -- CORS: a preflight from an allowed origin: 204 with the policy
  req "$url" -X OPTIONS -H 'origin: https://app.example.com' \
    -H 'access-control-request-method: POST' -H 'access-control-request-headers: content-type'
  [[ $st == 204 ]] && has 'access-control-allow-origin: https://app.example.com' &&
    has 'access-control-allow-methods: GET, POST' &&
    has 'access-control-allow-headers: content-type, authorization' &&
    has 'access-control-allow-credentials: true' && has 'access-control-max-age: 600' &&
    ! grep -qi '^content-length:' "$tmp/head" && [[ ! -s $tmp/body ]] &&
    ok || fail "$name preflight: $st $(cat "$tmp/head")"
  # from an origin not allowed: no Access-Control-* header at all
  req "$url" -X OPTIONS -H 'origin: https://evil.example' -H 'access-control-request-method: POST'
  ! grep -qi '^access-control-' "$tmp/head" && has 'vary: origin' && ok || fail "$name evil preflight: $(cat "$tmp/head")"
  # an actual request from an allowed origin runs and gets the headers
  post "$url" "" -H 'origin: https://app.example.com'
  [[ $st == 200 ]] && body_is '{"data":{"__typename":"Query"}}' &&
    has 'access-control-allow-origin: https://app.example.com' && ok || fail "$name cors actual: $st $(cat "$tmp/head" "$tmp/body")"
  post "$url" "" -H 'origin: https://evil.example'
  [[ $st == 200 ]] && ! grep -qi '^access-control-' "$tmp/head" && ok || fail "$name cors evil actual: $(cat "$tmp/head")"
  # OPTIONS that is no preflight: still 405
  req "$url" -X OPTIONS
  [[ $st == 405 ]] && ok || fail "$name plain OPTIONS: $st"

  # -- JWT, optional: no token passes; good ones pass; bad ones get 401
  post "$url" ""
  [[ $st == 200 ]] && ok || fail "$name no token: $st $(cat "$tmp/body")"
  post "$url" "$good"
  [[ $st == 200 ]] && body_is '{"data":{"__typename":"Query"}}' && ok || fail "$name RS256 token: $st $(cat "$tmp/body")"
  post "$url" "$good" # the cache's answer
  [[ $st == 200 ]] && ok || fail "$name repeated token: $st"
  post "$url" "$good_hs"
  [[ $st == 200 ]] && ok || fail "$name HS256 token: $st $(cat "$tmp/body")"
  local t why var
  for t in expired:expired wrong_kid:"unknown kid" wrong_key:"bad signature" tampered:"bad signature" wrong_iss:"issuer not accepted"; do
    why=${t#*:}
    var=${t%%:*}
    post "$url" "${!var}"
    [[ $st == 401 ]] && body_is "{\"errors\":[{\"message\":\"Invalid JWT: $why.\",\"extensions\":{\"code\":\"AUTH_ERROR\"}}]}" &&
      has "www-authenticate: Bearer error=\"invalid_token\", error_description=\"$why\"" &&
      ok || fail "$name ${t%%:*}: $st $(cat "$tmp/head" "$tmp/body")"
  done
  post "$url" "" -H 'authorization: Bearer not.a.jwt'
  [[ $st == 401 ]] && grep -q '"Invalid JWT: malformed."' "$tmp/body" && ok || fail "$name malformed: $st $(cat "$tmp/body")"
  post "$url" "" -H 'authorization: Basic YWxpY2U6eA=='
  [[ $st == 401 ]] && ok || fail "$name other prefix: $st"
  # a GraphQL-over-HTTP client gets the refusal in its media type
  post "$url" "$expired" -H 'accept: application/graphql-response+json'
  [[ $st == 401 ]] && grep -qi '^content-type: application/graphql-response+json' "$tmp/head" && ok || fail "$name 401 media type"
  # /health is no GraphQL request: no token needed
  req "${url%/graphql}/health" -H "authorization: Bearer $expired"
  [[ $st == 200 ]] && ok || fail "$name health with a bad token: $st"
}

check_required() { # NAME URL
  post "$2" ""
  [[ $st == 401 ]] && body_is '{"errors":[{"message":"The request is not authenticated.","extensions":{"code":"AUTH_ERROR"}}]}' &&
    has 'www-authenticate: Bearer' && ok || fail "$1 required, missing: $st $(cat "$tmp/head" "$tmp/body")"
  post "$2" "$good"
  [[ $st == 200 ]] && ok || fail "$1 required, good: $st $(cat "$tmp/body")"
  # a preflight needs no token
  req "$2" -X OPTIONS -H 'origin: https://app.example.com' -H 'access-control-request-method: POST'
  [[ $st == 204 ]] && ok || fail "$1 required, preflight: $st"
}

if serve optional --config "$tmp/optional.yaml"; then
  check_server serve "http://127.0.0.1:$port/graphql"
  kill -TERM "$pid"
  wait "$pid" && ok || fail "serve exit status"
  grep -qi "error" "$tmp/optional.err" && fail "serve logged errors: $(cat "$tmp/optional.err")" || ok
fi
if serve required --config "$tmp/required.yaml"; then
  check_required serve "http://127.0.0.1:$port/graphql"
  kill -TERM "$pid"
  wait "$pid"
fi

# The gateway: the same hooks before any subgraph is asked (__typename is
# the gateway's own).
sg="$root/tests/gateway/data/keys.graphql"
gw() { # gw NAME CONFIG
  local name=$1 cfg=$2
  port=$(free_port)
  "$gql" gateway --supergraph "$sg" --config "$cfg" --port "$port" --threads 2 >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 200); do grep -q "on http://" "$tmp/$name.out" && return 0; sleep 0.05; done
  fail "$name: no banner: $(cat "$tmp/$name.out" "$tmp/$name.err")"
  return 1
}
if gw gw_optional "$tmp/optional.yaml"; then
  check_server gateway "http://127.0.0.1:$port/graphql"
  kill -TERM "$pid"
  wait "$pid"
fi
if gw gw_required "$tmp/required.yaml"; then
  check_required gateway "http://127.0.0.1:$port/graphql"
  kill -TERM "$pid"
  wait "$pid"
fi

echo "test_cors_auth: $passed passed, $failures failed"
((failures == 0))
