#!/usr/bin/env bash
# Records tests/incremental/cases/ anew with graphql-js 17.1 (npm), installed
# into its own folder (default bench/.peers/graphql17, ignored by git; set
# GQL_GRAPHQL17_DIR to use another). Run it after changing cases.mjs and
# commit the cases it writes. Needs node and the npm registry.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
peers=${GQL_GRAPHQL17_DIR:-$root/bench/.peers/graphql17}
version=17.1.0
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "record.sh: node and npm are required (scripts/deps.sh)" >&2; exit 1; }
mkdir -p "$peers"
if [[ $(node -p "try{require('$peers/node_modules/graphql/package.json').version}catch(e){''}") != "$version" ]]; then
  [[ -f $peers/package.json ]] || echo '{"private":true}' >"$peers/package.json"
  echo "record.sh: installing graphql@$version into $peers" >&2
  (cd "$peers" && npm install --no-audit --no-fund --loglevel=error "graphql@$version" >&2)
fi
node "$here/record.mjs" "$peers" "$here/cases"
