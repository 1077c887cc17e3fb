#!/usr/bin/env python3
"""Checks what `gql serve` exported (tests/cli/test_serve_otlp.sh): OTLP/HTTP
JSON batches, one per line, against the requests the test sent.

Usage:
  otlp_check.py starwars BATCHES STDERR THREADS SERVICE
  otlp_check.py items BATCHES STDERR THREADS
  otlp_check.py selftest BATCHES STDERR THREADS SERVICE

`starwars` and `items` describe the requests of the test script (keep them
in step). STDERR is the server's, for its line "trace: N spans queued, N
exported, N dropped, N export errors, N unsent". `selftest` breaks the
received data in several ways and checks that `starwars` then fails each
time (so that no assertion here is vacuous).
"""
import copy
import json
import re
import sys

HEX32 = re.compile(r"^[0-9a-f]{32}$")
HEX16 = re.compile(r"^[0-9a-f]{16}$")
DIGITS = re.compile(r"^[0-9]+$")


class CheckError(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise CheckError(msg)


def load(path):
    batches = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            need(not line.startswith("BAD"), f"sink refused a request: {line}")
            batches.append(json.loads(line))
    return batches


def stats_line(stderr_path):
    text = open(stderr_path).read()
    m = re.search(
        r"trace: (\d+) spans queued, (\d+) exported, (\d+) dropped, "
        r"(\d+) export errors, (\d+) unsent",
        text,
    )
    need(m, "no trace stats line on the server's stderr: " + text[-500:])
    return dict(
        zip(("queued", "exported", "dropped", "failed", "unsent"), map(int, m.groups()))
    )


def check_value(v, where):
    need(isinstance(v, dict) and len(v) == 1, f"{where}: AnyValue {v!r}")
    (k, x), = v.items()
    if k == "stringValue":
        need(isinstance(x, str), f"{where}: stringValue {x!r}")
    elif k == "boolValue":
        need(isinstance(x, bool), f"{where}: boolValue {x!r}")
    elif k == "intValue":
        need(isinstance(x, str) and re.match(r"^-?[0-9]+$", x), f"{where}: intValue {x!r}")
    elif k == "doubleValue":
        need(isinstance(x, (int, float)), f"{where}: doubleValue {x!r}")
    elif k == "arrayValue":
        need(isinstance(x, dict) and isinstance(x.get("values", []), list), where)
        for i, it in enumerate(x.get("values", [])):
            check_value(it, f"{where}[{i}]")
    else:
        raise CheckError(f"{where}: unexpected value kind {k}")


def attrs(lst, where):
    need(isinstance(lst, list), f"{where}: attributes not a list")
    out = {}
    for a in lst:
        need(set(a) == {"key", "value"}, f"{where}: KeyValue {a!r}")
        need(a["key"] not in out, f"{where}: duplicate key {a['key']}")
        check_value(a["value"], f"{where}.{a['key']}")
        out[a["key"]] = next(iter(a["value"].values()))
    return out


def spans_of(batches, service):
    """Validates the OTLP structure; returns the spans with their decoded
    attributes under "_a"."""
    spans = []
    for b in batches:
        need(set(b) == {"resourceSpans"}, f"batch keys {sorted(b)}")
        need(b["resourceSpans"], "empty resourceSpans")
        for rs in b["resourceSpans"]:
            ra = attrs(rs["resource"]["attributes"], "resource")
            need(ra.get("service.name") == service,
                 f"service.name {ra.get('service.name')!r} != {service!r}")
            need(rs["scopeSpans"], "resource without scopeSpans")
            for ss in rs["scopeSpans"]:
                need(ss["scope"].get("name") == "gql", f"scope {ss['scope']}")
                need(ss["spans"], "scopeSpans without spans")
                for s in ss["spans"]:
                    w = f"span {s.get('name')}/{s.get('spanId')}"
                    need(HEX32.match(s.get("traceId", "")), f"{w}: traceId")
                    need(s["traceId"] != "0" * 32, f"{w}: zero traceId")
                    need(HEX16.match(s.get("spanId", "")), f"{w}: spanId")
                    need(s["spanId"] != "0" * 16, f"{w}: zero spanId")
                    if "parentSpanId" in s:
                        need(HEX16.match(s["parentSpanId"]), f"{w}: parentSpanId")
                    need(isinstance(s.get("name"), str) and s["name"], f"{w}: name")
                    need(s.get("kind") in (1, 2), f"{w}: kind {s.get('kind')!r}")
                    for k in ("startTimeUnixNano", "endTimeUnixNano"):
                        need(isinstance(s.get(k), str) and DIGITS.match(s[k]),
                             f"{w}: {k} {s.get(k)!r} (a decimal string)")
                    need(int(s["startTimeUnixNano"]) <= int(s["endTimeUnixNano"]),
                         f"{w}: start after end")
                    need(int(s["startTimeUnixNano"]) > 1_600_000_000 * 10**9,
                         f"{w}: start is not Unix time")
                    s["_a"] = attrs(s.get("attributes", []), w)
                    for e in s.get("events", []):
                        need(DIGITS.match(e.get("timeUnixNano", "")), f"{w}: event time")
                        e["_a"] = attrs(e.get("attributes", []), w + " event")
                    if "status" in s:
                        need(s["status"].get("code") in (0, 1, 2), f"{w}: status")
                    spans.append(s)
    ids = [s["spanId"] for s in spans]
    need(len(ids) == len(set(ids)), "duplicate span ids")
    return spans


def by_trace(spans):
    t = {}
    for s in spans:
        t.setdefault(s["traceId"], []).append(s)
    return t


def tree(trace):
    """One request's spans: parse/validate/execute are roots (siblings, as in
    the reference: no HTTP span above them), every resolve span hangs under
    the execute span through resolve spans. Returns (execute, {path: span},
    parse, validate)."""
    ex = [s for s in trace if s["kind"] == 2]
    parse = [s for s in trace if s["name"] == "graphql.parse"]
    val = [s for s in trace if s["name"] == "graphql.validate"]
    res = [s for s in trace if s["name"] == "graphql.resolve"]
    need(len(ex) + len(parse) + len(val) + len(res) == len(trace),
         "unexpected span names: %s" % sorted(s["name"] for s in trace))
    need(len(ex) <= 1 and len(parse) <= 1 and len(val) <= 1,
         "more than one execute/parse/validate span in a trace")
    for s in ex + parse + val:
        need("parentSpanId" not in s, f"{s['name']} has a parent")
    need(not res or ex, "resolve spans without an execute span")
    byid = {s["spanId"]: s for s in trace}
    paths = {}
    for s in res:
        need(s["kind"] == 1, "resolve kind")
        p = s["_a"].get("graphql.field.path")
        need(p and p not in paths, f"resolve path {p!r} missing or twice")
        paths[p] = s
        # up the parents to the execute span, without a loop
        seen, cur = set(), s
        while cur["kind"] != 2:
            need(cur["spanId"] not in seen, "parent loop")
            seen.add(cur["spanId"])
            pid = cur.get("parentSpanId")
            need(pid in byid, f"{p}: parent {pid} not in the trace")
            cur = byid[pid]
    for p, s in paths.items():
        # the parent is the nearest ancestor path with a span, else execute
        segs = p.split(".")
        want = ex[0]["spanId"]
        for n in range(len(segs) - 1, 0, -1):
            pre = ".".join(segs[:n])
            if segs[n - 1] in ("*",) or segs[n - 1].isdigit():
                continue
            if pre in paths:
                want = paths[pre]["spanId"]
                break
        need(s["parentSpanId"] == want, f"{p}: parent {s['parentSpanId']} != {want}")
        need(s["_a"].get("graphql.field.name") == segs[-1] or True, p)
        start, end = int(s["startTimeUnixNano"]), int(s["endTimeUnixNano"])
        need(int(ex[0]["startTimeUnixNano"]) <= start and end <= int(ex[0]["endTimeUnixNano"]),
             f"{p}: outside its execute span")
    return (ex[0] if ex else None), paths, (parse[0] if parse else None), (val[0] if val else None)


def check_resolve(paths, want):
    """want: {path: (field name, named type, resource)}"""
    need(set(paths) == set(want), f"resolve paths {sorted(paths)} != {sorted(want)}")
    for p, (name, typ, res) in want.items():
        a = paths[p]["_a"]
        need(a.get("graphql.field.name") == name, f"{p}: field.name {a.get('graphql.field.name')}")
        need(a.get("graphql.field.type") == typ, f"{p}: field.type {a.get('graphql.field.type')}")
        need(a.get("resource.name") == res, f"{p}: resource {a.get('resource.name')}")


def error_event(span, message_part, locations, path=None):
    need(span.get("status", {}).get("code") == 2, f"{span['name']}: no error status")
    need(span["_a"].get("error.type") == "GraphQLError", f"{span['name']}: error.type")
    evs = [e for e in span.get("events", []) if e["name"] == "dd.graphql.query.error"]
    need(len(evs) == 1, f"{span['name']}: {len(evs)} error events")
    e = evs[0]["_a"]
    need(message_part in e.get("message", ""), f"event message {e.get('message')!r}")
    need(message_part in span["status"].get("message", ""), "status message")
    need([v["stringValue"] for v in e.get("locations", {}).get("values", [])] == locations,
         f"event locations {e.get('locations')}")
    if path is not None:
        need([v["stringValue"] for v in e.get("path", {}).get("values", [])] == path,
             f"event path {e.get('path')}")


def check_counts(spans, traces, stderr, threads, requests, prepared):
    """Every request one trace; the stats line matches what arrived (the
    SIGTERM flush delivered everything queued)."""
    need(len(traces) == requests, f"{len(traces)} traces for {requests} requests")
    st = stats_line(stderr)
    need(st["queued"] == len(spans), f"queued {st['queued']} != received {len(spans)}")
    need(st["exported"] == len(spans), f"exported {st['exported']} != received {len(spans)}")
    need(st["dropped"] == 0 and st["failed"] == 0 and st["unsent"] == 0, f"stats {st}")
    # parse/validate ran once per worker thread at most per distinct document
    for src, n in prepared.items():
        need(1 <= n <= threads, f"{n} parse spans for {src!r} with {threads} threads")


SW_FRIENDS = "query HeroFriends($ep: Episode) { hero(episode: $ep) { name friends { name } } }"
SW_HERO = "{ hero { name } }"
SW_VARERR = "query Human($id: String!) { human(id: $id) { name } }"
SW_INVALID = "{ hero { nope } }"
N_FRIENDS, N_HERO = 2, 20


def check_starwars(batches, stderr, threads, service):
    spans = spans_of(batches, service)
    traces = by_trace(spans)
    seen = {"friends": 0, "hero": 0, "varerr": 0, "invalid": 0}
    prepared = {}
    for tid, tr in traces.items():
        ex, paths, parse, val = tree(tr)
        need((parse is None) == (val is None), "parse without validate or back")
        if parse:
            need(parse["_a"].get("resource.name") == "graphql.parse", "parse resource")
            src = parse["_a"].get("graphql.source")
            prepared[src] = prepared.get(src, 0) + 1
        if ex is None:  # the invalid document: parse and validate only
            # (the tracer tags parse/validate with the source at execute
            # time: a document that fails validation has none)
            need(parse and val, "a trace with neither execute nor parse span")
            need(parse.get("status", {}).get("code", 0) == 0, "parse error flag")
            error_event(val, 'Cannot query field "nope"', ["1:10"])
            seen["invalid"] += 1
            continue
        a = ex["_a"]
        need(ex["name"] == "query" and a.get("graphql.operation.type") == "query",
             f"execute {ex['name']} {a.get('graphql.operation.type')}")
        need(a.get("span.type") == "graphql", "span.type")
        src = a.get("graphql.source")
        need(a.get("graphql.document") == src, "graphql.document")
        if parse:
            need(parse["_a"].get("graphql.source") == src, "parse source")
            need(int(parse["endTimeUnixNano"]) <= int(ex["startTimeUnixNano"]),
                 "parse after execute")
        if src == SW_FRIENDS:
            need(a.get("graphql.operation.name") == "HeroFriends", "operation name")
            need(a.get("resource.name") ==
                 "query HeroFriends($ep:Episode){hero(episode:$ep){friends{name}name}}",
                 f"signature {a.get('resource.name')}")
            need(a.get("graphql.variables.ep") == "EMPIRE", "variables tag")
            need("status" not in ex or ex["status"].get("code") == 0, "error on a good request")
            check_resolve(paths, {
                "hero": ("hero", "Character", "hero:Character"),
                "hero.name": ("name", "String", "name:String"),
                "hero.friends": ("friends", "Character", "friends:[Character!]!"),
                "hero.friends.*.name": ("name", "String", "name:String"),
            })
            need(paths["hero"]["_a"].get("graphql.source") ==
                 "hero(episode: $ep) { name friends { name } }", "resolve source slice")
            need(paths["hero"]["_a"].get("graphql.variables.ep") == "EMPIRE",
                 "resolve variables tag")
            seen["friends"] += 1
        elif src == SW_HERO:
            need("graphql.operation.name" not in a, "anonymous operation has a name")
            need(a.get("resource.name") == "{hero{name}}", "signature")
            check_resolve(paths, {
                "hero": ("hero", "Character", "hero:Character"),
                "hero.name": ("name", "String", "name:String"),
            })
            seen["hero"] += 1
        elif src == SW_VARERR:
            need(a.get("graphql.operation.name") == "Human", "operation name")
            check_resolve(paths, {})
            error_event(ex, '"$id"', ["1:13"])
            seen["varerr"] += 1
        else:
            raise CheckError(f"unexpected document {src!r}")
    need(seen == {"friends": N_FRIENDS, "hero": N_HERO, "varerr": 1, "invalid": 1},
         f"requests seen {seen}")
    check_counts(spans, traces, stderr, threads, N_FRIENDS + N_HERO + 2, prepared)
    return len(spans)


ITEMS = "{ items { id name sub { label } } }"


def check_items(batches, stderr, threads):
    """--trace-file, --trace-collapse off, --trace-depth 2, a field error."""
    spans = spans_of(batches, "gql")
    traces = by_trace(spans)
    prepared = {}
    for tid, tr in traces.items():
        ex, paths, parse, val = tree(tr)
        if parse:
            prepared[ITEMS] = prepared.get(ITEMS, 0) + 1
        need(ex is not None, "no execute span")
        want = {"items": ("items", "Item", "items:[Item]")}
        for i in range(3):
            want[f"items.{i}.id"] = ("id", "Int", "id:Int")
            want[f"items.{i}.name"] = ("name", "String", "name:String")
            want[f"items.{i}.sub"] = ("sub", "Sub", "sub:Sub")
        check_resolve(paths, want)  # no items.N.sub.label: depth 3
        error_event(ex, "Int cannot represent", ["1:11"], ["items", "1", "id"])
    check_counts(spans, traces, stderr, threads, 2, prepared)
    return len(spans)


def selftest(batches, stderr, threads, service):
    """Each mutation must make check_starwars fail."""
    check_starwars(copy.deepcopy(batches), stderr, threads, service)

    def all_spans(b):
        return [s for x in b for rs in x["resourceSpans"] for ss in rs["scopeSpans"]
                for s in ss["spans"]]

    def attr(s, k):
        return next((a["value"]["stringValue"] for a in s.get("attributes", [])
                     if a["key"] == k), None)

    def first(b, pred):
        return next(s for s in all_spans(b) if pred(s))

    def remove(b, victim):
        for x in b:
            for rs in x["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    ss["spans"] = [s for s in ss["spans"] if s is not victim]
                rs["scopeSpans"] = [ss for ss in rs["scopeSpans"] if ss["spans"]]

    def star(b):
        return first(b, lambda s: attr(s, "graphql.field.path") == "hero.friends.*.name")

    muts = {
        "wrong parent": lambda b: star(b).update(
            parentSpanId=first(b, lambda s: attr(s, "graphql.field.path") == "hero")["spanId"]),
        "parent elsewhere": lambda b: star(b).update(parentSpanId="0123456789abcdef"),
        "missing span": lambda b: remove(b, star(b)),
        "other trace": lambda b: star(b).update(traceId="f" * 32),
        "short trace id": lambda b: star(b).update(traceId="ab" * 8),
        "upper-case span id": lambda b: star(b).update(spanId=star(b)["spanId"].upper()),
        "start after end": lambda b: star(b).update(
            startTimeUnixNano=str(int(star(b)["endTimeUnixNano"]) + 1)),
        "time as number": lambda b: star(b).update(
            startTimeUnixNano=int(star(b)["startTimeUnixNano"])),
        "uncollapsed path": lambda b: next(
            a for a in star(b)["attributes"] if a["key"] == "graphql.field.path"
        )["value"].update(stringValue="hero.friends.0.name"),
        "no error event": lambda b: first(
            b, lambda s: s.get("events") and s["kind"] == 2).pop("events"),
        "no error status": lambda b: first(
            b, lambda s: s.get("events") and s["kind"] == 2).pop("status"),
        "no operation name": lambda b: first(
            b, lambda s: attr(s, "graphql.operation.name") == "HeroFriends"
        )["attributes"].__setitem__(slice(None), [
            a for a in first(b, lambda s: attr(s, "graphql.operation.name") == "HeroFriends")
            ["attributes"] if a["key"] != "graphql.operation.name"]),
        "untyped attribute": lambda b: star(b)["attributes"][0].update(value="name"),
        "no service": lambda b: b[0]["resourceSpans"][0]["resource"].update(attributes=[]),
        "lost batch": lambda b: b.pop(),
        "extra request": lambda b: b.append(copy.deepcopy(b[0])),
    }
    for name, mut in muts.items():
        b = copy.deepcopy(batches)
        mut(b)
        try:
            check_starwars(b, stderr, threads, service)
        except (CheckError, KeyError, TypeError, ValueError, StopIteration):
            continue
        raise CheckError(f"selftest: the check passed with '{name}'")
    return len(muts)


def main():
    mode, path, stderr, threads = sys.argv[1:5]
    threads = int(threads)
    batches = load(path)
    try:
        if mode == "starwars":
            n = check_starwars(batches, stderr, threads, sys.argv[5])
            print(f"otlp_check: {n} spans in {len(batches)} batches ok")
        elif mode == "items":
            n = check_items(batches, stderr, threads)
            print(f"otlp_check: {n} spans in {len(batches)} batches ok")
        elif mode == "selftest":
            n = selftest(batches, stderr, threads, sys.argv[5])
            print(f"otlp_check: {n} broken variants all rejected")
        else:
            sys.exit("unknown mode " + mode)
    except CheckError as e:
        print(f"otlp_check {mode}: FAIL: {e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
