#!/usr/bin/env bash
# Fills DIR with the files the GraphiQL page loads (src/graphiql), for a gql
# that serves them itself (no internet needed by the browser): the prebuilt
# @graphql-yoga/graphiql bundle from npm (GraphiQL 5 with React 19 and
# react-dom inside, its stylesheet, and the Monaco editor's three workers).
# The package is pinned (version from src/graphiql/graphiql.h, sha512 below)
# and checked before anything is unpacked.
# Usage: scripts/graphiql-assets.sh DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: scripts/graphiql-assets.sh DIR}
pkg=@graphql-yoga/graphiql
version=$(sed -n 's/^#define GQL_GRAPHIQL_VERSION "\(.*\)"$/\1/p' "$root/src/graphiql/graphiql.h")
[[ $version == 4.5.0 ]] || { echo "graphiql-assets: pin the sha512 of $pkg@$version here" >&2; exit 1; }
integrity="sha512-mer2/6RUdSGxNXCcE2dccKjDvcvj4DxIdYDKkggS3ltHc/MenhdBwBr/fwMreC7mqTBtn25a/q9e2Hdn36WNJg=="
files=(graphiql.css yoga-graphiql.umd.js monacoeditorwork/editor.worker.bundle.js
  monacoeditorwork/json.worker.bundle.js monacoeditorwork/graphql.worker..bundle.js)

if [[ -f $dir/VERSION && $(cat "$dir/VERSION") == "$pkg@$version" ]]; then
  ok=1
  for f in "${files[@]}"; do [[ -s $dir/$f ]] || ok=0; done
  ((ok)) && { echo "graphiql-assets: $dir already holds $pkg@$version"; exit 0; }
fi
command -v npm >/dev/null || { echo "graphiql-assets: npm is needed (scripts/deps.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null)
tarball=$(ls "$tmp"/*.tgz)
actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [[ $actual != "$integrity" ]]; then
  echo "graphiql-assets: $pkg@$version does not match its pinned sha512" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$tmp" package/dist package/LICENSE
mkdir -p "$dir/monacoeditorwork"
for f in "${files[@]}"; do
  [[ -s $tmp/package/dist/$f ]] || { echo "graphiql-assets: $f missing from $pkg@$version" >&2; exit 1; }
  cp "$tmp/package/dist/$f" "$dir/$f"
done
cp "$tmp/package/LICENSE" "$dir/LICENSE"
echo "$pkg@$version" >"$dir/VERSION"
echo "graphiql-assets: $pkg@$version in $dir ($(du -sh "$dir" | cut -f1))"
