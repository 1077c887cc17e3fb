#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds a small embedder
# against it twice: with pkg-config and with CMake's find_package(gql).
# $1 = gql binary (its folder is the build tree), $2 = source root.
set -euo pipefail
build=$(cd "$(dirname "$1")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in include/gql.h lib/pkgconfig/gql.pc lib/cmake/gql/gqlConfig.cmake; do
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
  gql_syntax_error err;
  const char *q = "query{hero{name}}";
  if (gql_parse(a, q, strlen(q), NULL, &doc, &err)) return 1;
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
echo "install: headers, libraries, pkg-config and CMake package work"
