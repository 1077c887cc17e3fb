#!/usr/bin/env bash
# `gql format`: graphql-js goldens, stdin, syntax errors, --help.
# Usage: test_format.sh GQL_BINARY REPO_ROOT
set -uo pipefail
gql=${1:?usage: test_format.sh GQL_BINARY REPO_ROOT}
root=${2:?usage: test_format.sh GQL_BINARY REPO_ROOT}
fixtures=$root/../shared/conformance/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_format NAME INPUT EXPECTED: `gql format -` of INPUT prints EXPECTED
# followed by one newline, exits 0, and is idempotent.
expect_format() {
  local name=$1 input=$2 want=$3
  printf '%s\n' "$want" >"$tmp/want"
  if ! printf '%s' "$input" | "$gql" format - >"$tmp/got" 2>"$tmp/err"; then
    fail "$name: exit status $? ($(cat "$tmp/err"))"
    return
  fi
  if ! cmp -s "$tmp/got" "$tmp/want"; then
    fail "$name: output differs"
    diff "$tmp/want" "$tmp/got" | head -20
    return
  fi
  "$gql" format "$tmp/got" >"$tmp/again" 2>/dev/null
  cmp -s "$tmp/again" "$tmp/want" || fail "$name: not idempotent"
}

# ---- graphql-js goldens
if [[ -d $fixtures ]]; then
  for name in kitchen-sink schema-kitchen-sink; do
    src=$fixtures/$name.graphql
    want=$fixtures/$name.printed.graphql
    if ! "$gql" format "$src" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
      fail "$name: gql format exited non-zero: $(cat "$tmp/$name.err")"
      continue
    fi
    if cmp -s "$tmp/$name.out" "$want"; then
      echo "ok: $name matches graphql-js print()"
    else
      fail "$name: differs from $want"
      diff "$want" "$tmp/$name.out" | head -40
    fi
    # print(parse(print(parse(x)))) == print(parse(x))
    "$gql" format "$tmp/$name.out" >"$tmp/$name.again" 2>&1
    cmp -s "$tmp/$name.again" "$tmp/$name.out" ||
      fail "$name: printing the printed document changes it"
  done
else
  echo "note: $fixtures not found; graphql-js goldens skipped," \
    "in-repo cases still run"
fi

# ---- in-repo cases
expect_format "shorthand query" 'query { a, b }' $'{\n  a\n  b\n}'
expect_format "named operation with variables" \
  'query Q($a: Int = 1 @d, $b: [String!]!) @x { f(a: $a) { g } }' \
  $'query Q($a: Int = 1 @d, $b: [String!]!) @x {\n  f(a: $a) {\n    g\n  }\n}'
expect_format "long arguments wrap" \
  '{trip(wheelchair:false arriveBy:false includePlannedCancellations:true transitDistanceReluctance:2000){dateTime}}' \
  $'{\n  trip(\n    wheelchair: false\n    arriveBy: false\n    includePlannedCancellations: true\n    transitDistanceReluctance: 2000\n  ) {\n    dateTime\n  }\n}'
expect_format "type system" \
  '"""desc""" type T implements A & B { "f" f(x: Int = 2): [T!] } union U = | A | B directive @d repeatable on FIELD | QUERY' \
  $'"""desc"""\ntype T implements A & B {\n  "f"\n  f(x: Int = 2): [T!]\n}\n\nunion U = A | B\n\ndirective @d repeatable on FIELD | QUERY'
expect_format "string escapes" '{ f(s: "a\u0001\"\\\u00e9") }' \
  $'{\n  f(s: "a\\u0001\\"\\\\\xc3\xa9")\n}'

# no argument at all reads standard input too
printf '{a}' | "$gql" format >"$tmp/noarg" 2>&1
[[ $(cat "$tmp/noarg") == $'{\n  a\n}' ]] || fail "format without FILE does not read stdin"

# ---- syntax errors: FILE:LINE:COLUMN: MESSAGE on stderr, exit 1
printf '{\n  a(b: )\n}\n' >"$tmp/bad.graphql"
"$gql" format "$tmp/bad.graphql" >"$tmp/out" 2>"$tmp/err"
status=$?
[[ $status -eq 1 ]] || fail "syntax error: exit status $status, want 1"
[[ -s $tmp/out ]] && fail "syntax error: something was printed on stdout"
want="$tmp/bad.graphql:2:8: Syntax Error: Unexpected \")\"."
[[ $(cat "$tmp/err") == "$want" ]] ||
  fail "syntax error: stderr is '$(cat "$tmp/err")', want '$want'"

printf '{ a' | "$gql" format - >/dev/null 2>"$tmp/err"
status=$?
[[ $status -eq 1 ]] || fail "stdin syntax error: exit status $status, want 1"
want="<stdin>:1:4: Syntax Error: Expected Name, found <EOF>."
[[ $(cat "$tmp/err") == "$want" ]] ||
  fail "stdin syntax error: stderr is '$(cat "$tmp/err")', want '$want'"

"$gql" format "$tmp/does-not-exist.graphql" >/dev/null 2>"$tmp/err"
status=$?
[[ $status -ne 0 ]] || fail "missing file: exit status 0"
grep -q 'does-not-exist' "$tmp/err" || fail "missing file: no message naming it"

# ---- help
if "$gql" format --help >"$tmp/help" 2>&1; then
  grep -q 'Usage: gql format' "$tmp/help" || fail "--help: no usage text"
else
  fail "--help: exit status $?"
fi

grep -q '^  format ' <<<"$("$gql" --help 2>&1)" || fail "gql --help does not list format"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "all format checks passed"
