#!/usr/bin/env bash
# SLOW (~75 s): `gql serve --trace-otlp` under 60 s of keep-alive load (30 s
# under the sanitizers) while
# the collector is unreachable, in two variants at once:
#   closed: the URL's port has no listener (connection refused);
#   hang:   a sink accepts connections and never answers (the transport's
#           --trace-timeout must give up, else the exporter would hang).
# Checks: every request answers 200 with the right body; the server's RSS
# (VmRSS) stays within a bound after warm-up; the tracer's counters (GET
# /metrics, sampled every 2 s) show the dropped count growing through the
# run and never more than the queue bound (2048, plus the 512 of the batch
# being sent) pending; at exit the
# tracer accounts for every span the requests made (queued + dropped) —
# spans queued without bound fail this test; SIGTERM still exits promptly
# and cleanly.
# Usage: test_serve_trace_load.sh GQL_BINARY REPO_ROOT
# LOAD_SECONDS (default 60) shortens the load for a quick manual run.
set -uo pipefail
gql=${1:?usage: test_serve_trace_load.sh GQL_BINARY REPO_ROOT}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
seconds=${LOAD_SECONDS:-60}

# Under AddressSanitizer freed memory sits in a quarantine (256 MiB by
# default) that looks like growth: keep it small here, and allow for the
# sanitizer's own bookkeeping.
rss_bound_kib=12288
# (ldd's output is read whole: `ldd | grep -q` under pipefail fails at
# random when grep exits before ldd has written everything)
if [[ $(ldd "$gql" 2>/dev/null) == *libasan* ]]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
  rss_bound_kib=32768
  # Half the load: LeakSanitizer already checks the exit for leaks, and the
  # load keeps both cores busy while the other sanitized tests wait.
  seconds=${LOAD_SECONDS:-30}
fi


python3 "$here/otlp_sink.py" "$tmp/hang.port" "$tmp/hang.log" --hang --lifetime $((seconds + 60)) &
sink=$!
pids+=("$sink")
for _ in $(seq 100); do [[ -s $tmp/hang.port ]] && break; sleep 0.05; done
hang_port=$(cat "$tmp/hang.port" 2>/dev/null)
[[ -n $hang_port ]] || { echo "FAIL: the sink did not start"; exit 1; }
closed_port=$(free_port) # nothing listens there

serve closed --trace-otlp "http://127.0.0.1:$closed_port/v1/traces" || exit 1
closed_pid=$pid closed_srv=$port
serve hang --trace-otlp "http://127.0.0.1:$hang_port/v1/traces" --trace-timeout 1000 || exit 1
hang_pid=$pid hang_srv=$port

# execute + hero + hero.name + hero.friends + hero.friends.*.name
query='{ hero { name friends { name } } }'
spans_per_request=5
expected='{"data":{"hero":{"name":"R2-D2","friends":[{"name":"Luke Skywalker"},{"name":"Han Solo"},{"name":"Leia Organa"}]}}}'
python3 "$here/load_client.py" "$seconds" 3 "$query" "$expected" \
  "$closed_srv:$closed_pid" "$hang_srv:$hang_pid" >"$tmp/load.json" ||
  fail "load client: $(cat "$tmp/load.json")"

for name in closed hang; do
  [[ $name == closed ]] && pid=$closed_pid srv=$closed_srv || pid=$hang_pid srv=$hang_srv
  t0=$(date +%s%N)
  kill -TERM "$pid"
  wait "$pid" && ok || fail "$name: exit status $?"
  ms=$((($(date +%s%N) - t0) / 1000000))
  # closed: attempts fail at once; hang: the batch being sent (3 x 1 s)
  # plus the flush's bound (4 x 1 s)
  ((ms < 12000)) && ok || fail "$name: SIGTERM took $ms ms"
  echo "$name: stopped in $ms ms; $(grep 'trace:' "$tmp/$name.err")"
  python3 - "$tmp/load.json" "$srv" "$tmp/$name.err" "$spans_per_request" "$threads" \
    "$rss_bound_kib" "$name" <<'PY' && ok || fail "$name (above)"
import json, re, sys
load, srv, err, per, threads, bound, name = sys.argv[1:]
per, threads, bound = int(per), int(threads), int(bound)
bound_spans = 2048 + 512  # the queue, and the batch being sent
r = json.load(open(load))[srv]
fails = []
def need(c, m):
    if not c:
        fails.append(m)
n = r["requests"]
need(n >= 200, f"only {n} requests answered")
need(r["wrong"] == 0, f"{r['wrong']} wrong answers: {r['wrong_samples']}")
need(r["errors"] == 0, f"{r['errors']} connection errors: {r['error_samples']}")
rss = [x for x in r["rss_kib"] if x]
# warm-up: the first 10 s (5 samples); then no growth beyond the bound
warm = rss[5] if len(rss) > 6 else rss[-1]
need(len(rss) >= 10, f"few RSS samples {rss}")
need(max(rss[5:]) - warm <= bound, f"RSS grew {max(rss[5:]) - warm} KiB after warm-up: {rss}")
m = re.search(r"trace: (\d+) spans queued, (\d+) exported, (\d+) dropped, "
              r"(\d+) export errors, (\d+) unsent", open(err).read())
need(m, "no trace stats line")
if m:
    q, e, d, f, u = map(int, m.groups())
    made = q + d
    # every request made its spans; parse + validate once per worker at most
    need(per * n + 2 <= made <= per * n + 2 * threads,
         f"{made} spans accounted for, {n} requests make {per * n}+2..{2 * threads}")
    need(d > 0, "nothing dropped: the exporter cannot have kept up")
    need(e == 0, f"{e} exported to nowhere")
    need(f > 0, "no export attempt failed")
    need(q == e + f + u, f"queued {q} != exported {e} + failed {f} + unsent {u}")
    need(u <= bound_spans, f"{u} spans unsent at exit: more than the queue bound")
ms = r["metrics"]
need(all("error" not in x for x in ms), f"/metrics failed: {ms[:3]}")
ms = [x for x in ms if "dropped" in x]
need(len(ms) >= 10, f"few /metrics samples: {len(ms)}")
if len(ms) >= 10:
    d = [x["dropped"] for x in ms]
    need(all(a <= b for a, b in zip(d, d[1:])), f"dropped went down: {d}")
    # still growing after warm-up: the exporter never catches up
    need(d[-1] > d[5] > d[1], f"dropped does not grow: {d}")
    need(max(x["pending"] for x in ms) <= bound_spans,
         f"pending beyond the queue bound: {[x['pending'] for x in ms]}")
    print(f"{name}: dropped {d[1]} -> {d[5]} -> {d[-1]}, pending max "
          f"{max(x['pending'] for x in ms)}")
print(f"{name}: {n} requests, RSS {min(rss)}..{max(rss)} KiB (after warm-up +"
      f"{max(rss[5:]) - warm if len(rss) > 6 else 0} KiB)")
for m_ in fails:
    print(f"{name}: {m_}")
sys.exit(1 if fails else 0)
PY
done

kill -TERM "$sink" 2>/dev/null
wait "$sink" 2>/dev/null
accepted=$(sed -n 's/^HANG accepted //p' "$tmp/hang.log")
# the exporter gave up on each silent connection and came back
((${accepted:-0} >= 3)) && ok || fail "the hanging sink saw ${accepted:-no} connections"
echo "hang sink: $accepted connections"

echo "$passed passed, $failures failed"
[[ $failures == 0 ]]
