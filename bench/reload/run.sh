#!/usr/bin/env bash
# Hot reload under load (issue 16, item 5): wrk drives `gql serve` (a Star
# Wars-shaped schema over JSON data, the bench's star_wars operation) for a
# steady-state run, then for a run during which the schema and data files
# are swapped between two valid versions and SIGHUP sent every ~50 ms, 100
# times. Prints, for each run, requests/s, p50/p99 latency, non-2xx answers
# and socket errors; the target is 0 non-2xx, 0 socket errors and a p99
# during the reloads at most 2x the steady state's. Not a test
# (tests/cli/test_reload.sh checks every answer's body during reloads).
# Usage: [GQL=build/gql] bench/reload/run.sh [RELOADS] [CONNECTIONS] [THREADS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reloads=${1:-100}
conns=${2:-16}
threads=${3:-1}
if [[ -n ${GQL:-} ]]; then # a gql already built (GQL=build/gql)
  gql=$GQL
else
  "$root/scripts/deps.sh" --bench
  "$root/scripts/build.sh" "$root/build-release" -DCMAKE_BUILD_TYPE=Release >/dev/null
  gql=$root/build-release/gql
fi
work=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

# two versions of the schema (the second adds a field) and their data
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
base = """enum Episode { NEWHOPE EMPIRE JEDI }
type Character { id: ID! name: String friends: [Character] appearsIn: [Episode] %s}
type Query { hero: Character %s}
"""
open(f"{w}/a.graphql", "w").write(base % ("", ""))
open(f"{w}/b.graphql", "w").write(base % ("homePlanet: String ", "version: Int "))
names = ["Luke", "Han", "Leia", "Vader", "R2-D2", "C-3PO"]
def person(i, depth):
    p = {"id": str(1000 + i), "name": names[i % len(names)],
         "appearsIn": ["NEWHOPE", "EMPIRE", "JEDI"], "homePlanet": "Tatooine"}
    if depth:
        p["friends"] = [person((i + k + 1) % len(names), depth - 1) for k in range(3)]
    return p
for name, version in (("a", 1), ("b", 2)):
    json.dump({"hero": person(0, 2), "version": version}, open(f"{w}/{name}.json", "w"))
body = json.dumps({"query": "{ hero { id name friends { name appearsIn friends { name } } } }"})
open(f"{w}/op.lua", "w").write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                                 'wrk.body = %s\n' % json.dumps(body))
PY
cp "$work/a.graphql" "$work/schema.graphql"
cp "$work/a.json" "$work/data.json"
"$gql" serve --port 0 --threads "$threads" --schema "$work/schema.graphql" \
  --data "$work/data.json" >"$work/out" 2>"$work/err" &
pid=$!
port=
for _ in $(seq 200); do
  port=$(sed -n 's|.* on http://127.0.0.1:\([0-9]*\)/graphql$|\1|p' "$work/out" 2>/dev/null || true)
  [[ -n $port ]] && break
  sleep 0.05
done
[[ -n $port ]] || { echo "bench: gql serve did not start: $(cat "$work/err")" >&2; exit 1; }
url=http://127.0.0.1:$port/graphql

# wrk's summary as: req/s p50 p99 non2xx socket_errors
run_wrk() { # SECONDS
  wrk -t1 -c"$conns" -d"$1s" --latency -s "$work/op.lua" "$url" >"$work/wrk.txt"
  python3 - "$work/wrk.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
def ms(s):
    v, u = re.match(r"([\d.]+)(us|ms|s)", s).groups()
    return float(v) * {"us": 0.001, "ms": 1, "s": 1000}[u]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
p50 = ms(re.search(r"\s50%\s+(\S+)", t).group(1))
p99 = ms(re.search(r"\s99%\s+(\S+)", t).group(1))
m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", t)
non2xx = int(m.group(1)) if m else 0
m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
sock = sum(map(int, m.groups())) if m else 0
print(f"{rps:.0f} {p50:.3f} {p99:.3f} {non2xx} {sock}")
PY
}

secs=$(((reloads * 50 + 999) / 1000 + 1))
run_wrk 2 >/dev/null # warm-up
read -r s_rps s_p50 s_p99 s_non s_sock < <(run_wrk "$secs")
# the reloads, from 0.5 s into the run until about its end
(
  sleep 0.5
  for i in $(seq "$reloads"); do
    if ((i % 2)); then v=b; else v=a; fi
    cp "$work/$v.graphql" "$work/schema.tmp" && mv "$work/schema.tmp" "$work/schema.graphql"
    cp "$work/$v.json" "$work/data.tmp" && mv "$work/data.tmp" "$work/data.json"
    kill -HUP "$pid"
    sleep 0.05
  done
) &
reloader=$!
read -r r_rps r_p50 r_p99 r_non r_sock < <(run_wrk "$((secs + 1))")
wait "$reloader"
sleep 0.3
# the last version loaded is served (b for an odd count, a for an even)
want=$(((reloads % 2)) && echo b || echo a)
got=$(curl -s -H 'content-type: application/json' -d '{"query":"{ version }"}' "$url")
case $got in
  '{"data":{"version":2}}') got=b ;;
  *'Cannot query field'*) got=a ;;
esac
failed=$(grep -c 'reload .* failed' "$work/err" || true)

printf "%-22s %9s %9s %9s %9s %14s\n" run "req/s" "p50 ms" "p99 ms" "non-2xx" "socket errors"
printf "%-22s %9s %9s %9s %9s %14s\n" steady "$s_rps" "$s_p50" "$s_p99" "$s_non" "$s_sock"
printf "%-22s %9s %9s %9s %9s %14s\n" "$reloads reloads / 50 ms" "$r_rps" "$r_p50" "$r_p99" "$r_non" "$r_sock"
python3 -c "import sys; s,r=float(sys.argv[1]),float(sys.argv[2]); print(f'p99 during reloads / steady: {r/s:.2f}x (target <= 2x)')" "$s_p99" "$r_p99"
echo "failed reloads: $failed; version served after the last: $got (expected $want)"
