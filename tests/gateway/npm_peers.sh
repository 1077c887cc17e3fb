# Sourced by the gateway's npm-backed tests: npm_peers DIR installs the
# JavaScript peers (the benchmark's subgraphs on @apollo/subgraph +
# graphql-yoga, Apollo Gateway on @apollo/server) into DIR once; later runs
# find DIR/installed.txt naming the same packages and reuse it. A lock on
# DIR serialises concurrent tests. No npm, or no registry, is a failure:
# the caller exits non-zero (these checks are required, never skipped).
NPM_PEER_PACKAGES="graphql@16 @apollo/subgraph@2.14 graphql-yoga@5 @apollo/gateway@2.14 @apollo/server@5"

npm_peers() {
  local dir=$1
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "FAIL: node and npm are required (scripts/deps.sh installs them)" >&2
    return 1
  fi
  mkdir -p "$dir" || return 1
  (
    flock 9 || exit 1
    if [[ -f $dir/installed.txt && $(cat "$dir/installed.txt") == "$NPM_PEER_PACKAGES" &&
      -d $dir/node_modules/@apollo/gateway ]]; then
      exit 0
    fi
    rm -f "$dir/installed.txt"
    [[ -f $dir/package.json ]] || echo '{"private":true}' >"$dir/package.json"
    echo "installing $NPM_PEER_PACKAGES into $dir" >&2
    # shellcheck disable=SC2086
    if ! (cd "$dir" && npm install --no-audit --no-fund --loglevel=error \
      $NPM_PEER_PACKAGES >"$dir/npm.log" 2>&1); then
      echo "FAIL: npm install failed (is the npm registry reachable?):" >&2
      tail -n 20 "$dir/npm.log" >&2
      exit 1
    fi
    echo "$NPM_PEER_PACKAGES" >"$dir/installed.txt"
  ) 9>"$dir/.lock"
}

# npm_version DIR PACKAGE: the installed version of PACKAGE
npm_version() {
  node -p "require('$1/node_modules/$2/package.json').version" 2>/dev/null
}
