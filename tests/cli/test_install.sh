#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds a small embedder
# against it twice: with pkg-config and with CMake's find_package(gql).
# $1 = gql binary (its folder is the build tree), $2 = source root.
set -euo pipefail
build=$(cd "$(dirname "$1")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
src=$(cd "$2" && pwd)
for f in include/gql.h include/gql_http.h lib/pkgconfig/gql.pc \
  lib/pkgconfig/gql-http.pc lib/cmake/gql/gqlConfig.cmake; do
  [[ -f $tmp/prefix/$f ]] || { echo "FAIL: $f not installed"; exit 1; }
done
# A sanitized library needs a sanitized embedder (the runtime comes first).
san=()
if grep -q '^GQL_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
  san=(-fsanitize=address,undefined)
fi
libdir=$(dirname "$(find "$tmp/prefix" -name 'libgql.so*' | head -n 1)")
mkdir -p "$tmp/app"
cat >"$tmp/app/main.c" <<'C'
#include <gql.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  gql_arena *a = gql_arena_new(NULL);
  gql_document *doc;
  gql_errors errs = {.arena = a};
  if (gql_parse(a, "{", 1, NULL, &doc, &errs) != GQL_ESYNTAX || errs.count != 1 ||
      errs.items[0].locations[0].column != 2)
    return 2;
  const char *q = "query{hero{name}}";
  if (gql_parse(a, q, strlen(q), NULL, &doc, &errs)) return 1;
  const char *out;
  size_t n;
  if (gql_print(a, doc, &out, &n)) return 1;
  fputs(out, stdout);
  gql_arena_free(a);
  return 0;
}
C
want=$'{\n  hero {\n    name\n  }\n}'
pc=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs gql)
cc "${san[@]}" "$tmp/app/main.c" $pc -Wl,-rpath,"$libdir" -o "$tmp/app/with_pkgconfig"
got=$("$tmp/app/with_pkgconfig")
[[ $got == "$want" ]] || { echo "FAIL: pkg-config build printed: $got"; exit 1; }
cat >"$tmp/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(embedder C)
find_package(gql REQUIRED)
add_executable(with_cmake main.c)
target_link_libraries(with_cmake PRIVATE gql::gql)
CM
cmake -S "$tmp/app" -B "$tmp/app/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_FLAGS="${san[*]}" >/dev/null
cmake --build "$tmp/app/build" >/dev/null
got=$("$tmp/app/build/with_cmake")
[[ $got == "$want" ]] || { echo "FAIL: find_package build printed: $got"; exit 1; }

# The subgraph API (include/gql_subgraph.h, in libgql): entities from JSON.
for f in include/gql_subgraph.h; do
  [[ -f $tmp/prefix/$f ]] || { echo "FAIL: $f not installed"; exit 1; }
done
cat >"$tmp/app/subgraph.c" <<'C'
#include <gql_subgraph.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  const char sdl[] = "type Query { me: User }\n"
                     "type User @key(fields: \"id\") { id: ID! name: String }\n";
  gql_arena *a = gql_arena_new(NULL);
  gql_errors errs = {.arena = a};
  gql_subgraph *sg;
  if (gql_subgraph_new("type Query { x: Nope }", 22, NULL, &sg, &errs) >= 0 || errs.count != 1)
    return 2;
  printf("%s\n", errs.items[0].message);
  if (gql_subgraph_new(sdl, sizeof sdl - 1, NULL, &sg, &errs) < 0) return 3;
  const char data[] = "{\"User\":[{\"id\":\"7\",\"name\":\"Ada\"}]}";
  const gql_value *v;
  if (gql_value_parse(a, data, sizeof data - 1, &v) < 0) return 4;
  gql_subgraph_set_json(sg, v);
  const char q[] = "{ _entities(representations: [{__typename: \"User\", id: 7}]) { ... on User { name } } }";
  gql_str out;
  int rc = gql_graphql(gql_subgraph_schema(sg), q, sizeof q - 1, NULL, NULL, 0, NULL, NULL, a, &out);
  printf("%d %.*s\n", rc, (int)out.len, out.ptr);
  gql_subgraph_free(sg);
  gql_arena_free(a);
  return 0;
}
C
pc=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs gql)
cc "${san[@]}" "$tmp/app/subgraph.c" $pc -Wl,-rpath,"$libdir" -o "$tmp/app/subgraph"
got=$("$tmp/app/subgraph")
want=$'Unknown type "Nope".\n0 {"data":{"_entities":[{"name":"Ada"}]}}'
[[ $got == "$want" ]] || { echo "FAIL: subgraph embedder printed: $got"; exit 1; }

# The server library: examples/embed_server built against the installed
# gql-http, both ways, then serving a query whose field a timer completes.
pcdir=$(dirname "$(find "$tmp/prefix" -name gql-http.pc | head -n 1)")
pc=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs gql-http)
cc "${san[@]}" "$src/examples/embed_server/main.c" $pc -Wl,-rpath,"$libdir" -o "$tmp/app/embed_pkgconfig"
mkdir -p "$tmp/embed"
cat >"$tmp/embed/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(embed_server C)
find_package(gql REQUIRED)
add_executable(embed_cmake $src/examples/embed_server/main.c)
target_link_libraries(embed_cmake PRIVATE gql::gql_http)
CM
cmake -S "$tmp/embed" -B "$tmp/embed/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_FLAGS="${san[*]}" >/dev/null
cmake --build "$tmp/embed/build" >/dev/null
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
want='{"data":{"hello":"hello, you","later":"done after 20 ms"}}'
for bin in "$tmp/app/embed_pkgconfig" "$tmp/embed/build/embed_cmake"; do
  port=$(free_port)
  "$bin" "$port" >"$tmp/embed.out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "on http://" "$tmp/embed.out" && break; sleep 0.05; done
  got=$(curl -s -m 5 "http://127.0.0.1:$port/graphql" -H 'content-type: application/json' \
    -d '{"query":"{ hello(name: \"you\") later(ms: 20) }"}' || true)
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" || { echo "FAIL: $bin exited with $?: $(cat "$tmp/embed.out")"; exit 1; }
  [[ $got == "$want" ]] || { echo "FAIL: $bin answered: $got $(cat "$tmp/embed.out")"; exit 1; }
done
echo "install: headers, libraries, pkg-config and CMake packages work (gql and gql-http)"
