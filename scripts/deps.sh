#!/usr/bin/env bash
# Installs the Debian packages gql needs to build and test, when missing.
# Usage: scripts/deps.sh [--bench]   (--bench adds what the benchmarks use)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang clang-format libclang-rt-14-dev
  libcriterion-dev libxxhash-dev libdouble-conversion-dev
  libuv1-dev node-llhttp python3 python3-yaml curl
  libhiredis-dev libssl-dev openssl libyaml-dev libpcre2-dev libwslay-dev
  # test-only counterparts, started by the tests themselves: Redis for the
  # shared persisted-operation store, Chromium for the GraphiQL page,
  # HAProxy for docs/deploy.md's TLS proxy; xxd for the JWT tests' keys
  redis-server chromium haproxy xxd
  # promtool checks the /metrics exposition in the tests (Debian's
  # prometheus: about 20 MB to fetch, its web UI's JS libraries beside;
  # its service is not started by the tests)
  prometheus
)
# The graphql-http audit test and the benchmarks' peers run on Node.js,
# which may come from elsewhere than Debian (its npm then conflicts with
# Debian's): ask for Debian's only when the commands are missing.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(valgrind wrk hyperfine libcjson-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
