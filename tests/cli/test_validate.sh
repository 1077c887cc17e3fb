#!/usr/bin/env bash
# gql validate: JSON errors, exit codes, rule selection, SDL mode.
# $1 = gql binary, $2 = repository root.
set -u
GQL=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { # name expected-status expected-stdout actual-status actual-stdout
  if [ "$2" != "$4" ] || [ "$3" != "$5" ]; then
    echo "FAIL $1: status $4 (want $2), output: $5"
    echo "     want: $3"
    fail=1
  fi
}

cat >"$T/schema.graphql" <<'S'
type Query { dog: Dog name: String }
type Dog { name: String barks: Boolean }
S

out=$(echo '{ dog { name } }' | "$GQL" validate --schema "$T/schema.graphql" -)
check valid 0 '[]' $? "$out"

out=$(echo '{ dog }' | "$GQL" validate --schema "$T/schema.graphql")
check invalid 1 '[{"message":"Field \"dog\" of type \"Dog\" must have a selection of subfields. Did you mean \"dog { ... }\"?","locations":[{"line":1,"column":3}]}]' $? "$out"

printf '{ nme\n  dog }' >"$T/q.graphql"
out=$("$GQL" validate --schema "$T/schema.graphql" --rule FieldsOnCorrectType "$T/q.graphql")
check one_rule 1 '[{"message":"Cannot query field \"nme\" on type \"Query\". Did you mean \"name\"?","locations":[{"line":1,"column":3}]}]' $? "$out"

out=$("$GQL" validate --schema "$T/schema.graphql" --rule ScalarLeafsRule --rule KnownFragmentNames "$T/q.graphql")
check two_rules 1 '[{"message":"Field \"dog\" of type \"Dog\" must have a selection of subfields. Did you mean \"dog { ... }\"?","locations":[{"line":2,"column":3}]}]' $? "$out"

out=$(echo '{ dog {' | "$GQL" validate --schema "$T/schema.graphql")
check syntax 1 '[{"message":"Syntax Error: Expected Name, found <EOF>.","locations":[{"line":2,"column":1}]}]' $? "$out"

out=$(echo '{ name }' | "$GQL" validate --schema "$T/schema.graphql" --rule NoSuchRule 2>/dev/null)
check unknown_rule 2 '' $? "$out"

out=$("$GQL" validate 2>/dev/null </dev/null)
check no_schema 2 '' $? "$out"

printf 'type Query { a: Nope }\n' >"$T/bad.graphql"
out=$(echo '{ a }' | "$GQL" validate --schema "$T/bad.graphql" 2>"$T/err")
check bad_schema 2 '' $? "$out"
grep -q "bad.graphql:1:17: Unknown type \"Nope\"." "$T/err" || {
  echo "FAIL bad_schema stderr: $(cat "$T/err")"
  fail=1
}

# the error limit: the abort error has no locations
python3 -c 'print("{" + " ".join("a%d: nope" % i for i in range(120)) + "}")' >"$T/many.graphql" 2>/dev/null ||
  { printf '{'; for i in $(seq 120); do printf ' a%d: nope' "$i"; done; printf '}'; } >"$T/many.graphql"
out=$("$GQL" validate --schema "$T/schema.graphql" "$T/many.graphql" | tr '}' '\n' | grep -c '"message"')
[ "$out" = 101 ] || { echo "FAIL error_limit: $out errors"; fail=1; }
"$GQL" validate --schema "$T/schema.graphql" "$T/many.graphql" |
  grep -q '{"message":"Too many validation errors, error limit reached. Validation aborted."}]$' ||
  { echo "FAIL error_limit: no abort error"; fail=1; }

# strings escaped as JSON.stringify does
printf '{ dog { name } }\nscalar S\ntype T { a: Int }\n' >"$T/sdl_in_query.graphql"
out=$("$GQL" validate --schema "$T/schema.graphql" --rule ExecutableDefinitionsRule "$T/sdl_in_query.graphql")
check escaping 1 '[{"message":"The \"S\" definition is not executable.","locations":[{"line":2,"column":1}]},{"message":"The \"T\" definition is not executable.","locations":[{"line":3,"column":1}]}]' $? "$out"

# SDL mode, alone and extending the schema
out=$(printf 'type A { a: Int }\ntype A { b: Int }\n' | "$GQL" validate --sdl)
check sdl 1 '[{"message":"There can be only one type named \"A\".","locations":[{"line":1,"column":6},{"line":2,"column":6}]}]' $? "$out"
out=$(printf 'extend type Dog { age: Int }\n' | "$GQL" validate --sdl --schema "$T/schema.graphql")
check sdl_extend 0 '[]' $? "$out"
out=$(printf 'type Dog { a: Int }\n' | "$GQL" validate --sdl --schema "$T/schema.graphql" --rule UniqueTypeNames)
check sdl_rule 1 '[{"message":"Type \"Dog\" already exists in the schema. It cannot also be defined in this type definition.","locations":[{"line":1,"column":6}]}]' $? "$out"

exit $fail
