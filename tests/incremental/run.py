#!/usr/bin/env python3
"""Checks gql against the graphql-js 17.1 incremental-delivery corpus
(tests/incremental/cases, see README.md) and prints `N passed, N failed`
per part and in total. Exits 1 on any failure.

Parts:
  merge       merge.py gives every execution case's recorded merged results
              from its recorded payloads (the runner's merge, checked on
              graphql-js's own answers before it judges gql's)
  schemas     `gql print-schema [--defer-stream]` prints every schema the
              cases use as graphql-js 17's printSchema does
  validation  `gql validate [--defer-stream]` with each recorded rule alone
              and with all rules: the same errors, locations and order
  exec        every execution case through gql_execute_incremental (the
              incremental_exec program, env GQL_INCREMENTAL_EXEC, else next
              to GQL_BINARY): the initial payload identical, the same
              pending ids with their paths and labels, the same completed
              ids with their errors, the last payload hasNext false, and
              the same merged result
  sync        every execution case with its $async values written at once,
              in tree mode (incremental_exec --now) and with synchronous
              resolvers (--sync: the initial result in direct mode where
              the types allow, and its deferred groups without nested
              fragments run eagerly, while it is written): the same
              payloads, byte for byte; or where they differ, the initial
              payload byte for byte and the payloads after it as part exec
              judges them (the same pending and completed entries, hasNext,
              the same merged result); a case without $async values is
              also judged against its recording as part exec judges it
              (operations whose @defer all wrap whole objects run in one
              walk there: src/execution/eager.c)
  legacy      Apollo's deferSpec=20220824 format: each case's recorded
              payloads, and gql's (incremental_exec), through the converter
              of src/http/incremental_legacy.c (the incremental_legacy
              program, env GQL_INCREMENTAL_LEGACY, else next to
              GQL_BINARY): the initial payload identical to graphql-js's
              legacyExecuteIncrementally's, every payload but the last with
              hasNext true, and the same merged result (merge_legacy);
              BRANCHING lists the cases where graphql-js's legacy executor
              answers otherwise, and why

Usage: run.py GQL_BINARY [--verbose] [--only PART]
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import merge  # noqa: E402

CASES = os.path.join(HERE, "cases")


class Part:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failures = []

    def check(self, ok, label, why):
        if ok:
            self.passed += 1
        else:
            self.failures.append((label, why))


class Gql:
    def __init__(self, binary):
        self.binary = binary
        self.tmp = tempfile.mkdtemp(prefix="gql-incremental-")

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def run(self, args):
        p = subprocess.run([self.binary] + args, capture_output=True,
                           timeout=60)
        return (p.returncode, p.stdout.decode("utf-8", "replace"),
                p.stderr.decode("utf-8", "replace"))


def exec_cases():
    folder = os.path.join(CASES, "exec")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                yield json.load(f)


def jsonl(name):
    with open(os.path.join(CASES, name), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def part_merge(gql, part):
    for c in exec_cases():
        for key, fn, want in (("payloads", merge.merge, "merged"),
                              ("legacyPayloads", merge.merge_legacy,
                               "legacyMerged")):
            try:
                got = fn(c[key])
                why = "want %s\n got %s" % (json.dumps(c[want])[:400],
                                            json.dumps(got)[:400])
                ok = got == c[want]
            except merge.MergeError as e:
                ok, why = False, str(e)
            part.check(ok, "%s (%s)" % (c["name"], key), why)


def part_schemas(gql, part):
    for n, c in enumerate(jsonl("schemas.jsonl")):
        args = ["print-schema"]
        if c["deferStreamDirectives"]:
            args.append("--defer-stream")
        rc, out, err = gql.run(args + [gql.write("schema.graphql", c["schema"])])
        part.check(rc == 0 and out == c["printed"], "schema %d" % n,
                   "rc=%d %s\n%s" % (rc, err[:300], diff(c["printed"], out)))


def validate(gql, case, rule):
    args = ["validate", "--schema", gql.write("schema.graphql", case["schema"])]
    if case["deferStreamDirectives"]:
        args.append("--defer-stream")
    if rule:
        args += ["--rule", rule]
    rc, out, err = gql.run(args + [gql.write("doc.graphql", case["document"])])
    try:
        errors = json.loads(out)
    except ValueError:
        return "rc=%d, no JSON: %r %r" % (rc, out[:200], err[:200])
    if (rc == 0) != (errors == []):
        return "rc=%d does not agree with %d errors" % (rc, len(errors))
    return errors


def part_validation(gql, part):
    for c in jsonl("validation.jsonl"):
        runs = [(rule, want) for rule, want in c["rules"].items()]
        if c["allSpecifiedRulesErrors"] is not None:
            runs.append((None, c["allSpecifiedRulesErrors"]))
        for rule, want in runs:
            got = validate(gql, c, rule)
            part.check(got == want, "%s (%s)" % (c["name"], rule or "all rules"),
                       "want %s\n got %s" % (json.dumps(want)[:600],
                                             json.dumps(got)[:600]))


def exec_binary(gql):
    return os.environ.get("GQL_INCREMENTAL_EXEC") or os.path.join(
        os.path.dirname(os.path.abspath(gql.binary)), "incremental_exec")


def pending_set(payloads):
    return sorted((p["id"], json.dumps(p["path"]), p.get("label"))
                  for x in payloads for p in x.get("pending", []))


def completed_set(payloads):
    return sorted((c["id"], json.dumps(c.get("errors"), sort_keys=True))
                  for x in payloads for c in x.get("completed", []))


def check_exec(case, got):
    """None when gql's payloads `got` answer `case` as graphql-js did."""
    want = case["payloads"]
    if not got:
        return "no payload"
    if got[0] != want[0]:
        return "initial payload\n want %s\n got  %s" % (
            json.dumps(want[0]), json.dumps(got[0]))
    if pending_set(got) != pending_set(want):
        return "pending\n want %s\n got  %s" % (pending_set(want),
                                                pending_set(got))
    if completed_set(got) != completed_set(want):
        return "completed\n want %s\n got  %s" % (completed_set(want),
                                                  completed_set(got))
    if len(got) > 1 and (got[-1].get("hasNext") is not False or any(
            p.get("hasNext") is not True for p in got[:-1])):
        return "hasNext: %s" % [p.get("hasNext") for p in got]
    try:
        merged = merge.merge(got)
    except merge.MergeError as e:
        return "merge: %s" % e
    if merged != case["merged"]:
        return "merged\n want %s\n got  %s" % (json.dumps(case["merged"]),
                                               json.dumps(merged))
    return None


_exec_runs = {}


def run_exec(binary, path):
    """incremental_exec on one case, run once for the parts exec and legacy."""
    if (binary, path) not in _exec_runs:
        _exec_runs[(binary, path)] = subprocess.run(
            [binary, path], capture_output=True, timeout=60)
    return _exec_runs[(binary, path)]


def part_exec(gql, part):
    binary = exec_binary(gql)
    folder = os.path.join(CASES, "exec")
    for case in exec_cases():
        path = os.path.join(folder, case["name"] + ".json")
        p = run_exec(binary, path)
        if p.returncode != 0:
            part.check(False, case["name"], "exit %d: %s" % (
                p.returncode, p.stderr.decode("utf-8", "replace")[:400]))
            continue
        try:
            got = [json.loads(line) for line in
                   p.stdout.decode("utf-8").splitlines() if line.strip()]
        except ValueError as e:
            part.check(False, case["name"], "not JSON lines: %s" % e)
            continue
        why = check_exec(case, got)
        part.check(why is None, case["name"], why or "")


def same_payloads(now, sync):
    """None when --sync's payloads (bytes) answer as --now's: byte for
    byte, or the initial payload byte for byte and the rest as check_exec
    judges them against --now's."""
    if now == sync:
        return None
    lines = [x.splitlines() for x in (now, sync)]
    if not lines[0] or not lines[1] or lines[0][0] != lines[1][0]:
        return "initial payload differs"
    try:
        want = [json.loads(x) for x in lines[0] if x.strip()]
        got = [json.loads(x) for x in lines[1] if x.strip()]
        merged = merge.merge(want)
    except (ValueError, merge.MergeError) as e:
        return "--now: %s" % e
    return check_exec({"payloads": want, "merged": merged}, got)


def part_sync(gql, part):
    """Every case with its $async values written at once, tree mode
    (incremental_exec --now) against direct mode where the types allow
    (--sync: synchronous resolvers, eager groups): the same payloads (see
    same_payloads)."""
    binary = exec_binary(gql)
    folder = os.path.join(CASES, "exec")
    for case in exec_cases():
        path = os.path.join(folder, case["name"] + ".json")
        runs = [subprocess.run([binary, flag, path], capture_output=True,
                               timeout=60) for flag in ("--now", "--sync")]
        bad = [r for r in runs if r.returncode != 0]
        if bad:
            part.check(False, case["name"], "exit %d: %s" % (
                bad[0].returncode,
                bad[0].stderr.decode("utf-8", "replace")[:400]))
            continue
        why = same_payloads(runs[0].stdout, runs[1].stdout)
        if why is None and "$async" not in json.dumps(case.get("rootValue")):
            # nothing pends in the recording either: --sync (direct mode,
            # eager_only operations' one walk) against graphql-js's payloads
            try:
                got = [json.loads(x) for x in
                       runs[1].stdout.decode("utf-8").splitlines()
                       if x.strip()]
                why = check_exec(case, got)
            except ValueError as e:
                why = "--sync: not JSON lines: %s" % e
            why = why and "--sync against the recording: " + why
        part.check(why is None, case["name"],
                   "%s\n--now\n %s\n--sync\n %s" % (
                       why, runs[0].stdout.decode("utf-8", "replace")[:600],
                       runs[1].stdout.decode("utf-8", "replace")[:600]))


# Cases where graphql-js 17's legacy executor answers otherwise than a
# conversion of its incremental executor's payloads can (the reason with
# each, shared with clients/clients.mjs).
with open(os.path.join(HERE, "legacy_branching.json"), encoding="utf-8") as f:
    BRANCHING = json.load(f)["cases"]


def legacy_binary(gql):
    return os.environ.get("GQL_INCREMENTAL_LEGACY") or os.path.join(
        os.path.dirname(os.path.abspath(gql.binary)), "incremental_legacy")


_legacy_runs = {}


def to_legacy(binary, payloads):
    """Converted payloads, or an error string (each input converted once:
    a process per conversion is most of this test's time under ASan)."""
    text = "".join(json.dumps(p, separators=(",", ":"), ensure_ascii=False)
                   + "\n" for p in payloads)
    key = (binary, text)
    if key not in _legacy_runs:
        _legacy_runs[key] = subprocess.run([binary], input=text.encode("utf-8"),
                                           capture_output=True, timeout=60)
    p = _legacy_runs[key]
    if p.returncode != 0:
        return "exit %d: %s" % (p.returncode,
                                p.stderr.decode("utf-8", "replace")[:400])
    try:
        return [json.loads(line) for line in
                p.stdout.decode("utf-8").splitlines() if line.strip()]
    except ValueError as e:
        return "not JSON lines: %s" % e


def check_legacy(case, got, recorded):
    """None when converted payloads `got` answer as graphql-js's legacy
    executor did (BRANCHING: as its incremental executor did)."""
    if isinstance(got, str):
        return got
    if not got:
        return "no payload"
    branching = case["name"] in BRANCHING
    want0 = recorded[0] if branching else case["legacyPayloads"][0]
    if got[0] != want0:
        return "initial payload\n want %s\n got  %s" % (json.dumps(want0),
                                                        json.dumps(got[0]))
    if len(got) > 1 and (got[-1].get("hasNext") is not False or any(
            p.get("hasNext") is not True for p in got[:-1])):
        return "hasNext: %s" % [p.get("hasNext") for p in got]
    if any("pending" in p or "completed" in p or any(
            "id" in e for e in p.get("incremental", [])) for p in got):
        return "graphql-js 17's keys left: %s" % json.dumps(got)[:400]
    try:
        merged = merge.merge_legacy(got)
    except merge.MergeError as e:
        return "merge: %s" % e
    want = case["merged"] if branching else case["legacyMerged"]
    if merged != want:
        return "merged\n want %s\n got  %s" % (json.dumps(want),
                                               json.dumps(merged))
    return None


def part_legacy(gql, part):
    binary = legacy_binary(gql)
    exec_bin = exec_binary(gql)
    folder = os.path.join(CASES, "exec")
    identical = 0
    for case in exec_cases():
        # the recorded payloads (the converter alone)
        recorded = to_legacy(binary, case["payloads"])
        identical += recorded == case["legacyPayloads"]
        why = check_legacy(case, recorded, recorded)
        part.check(why is None, case["name"] + " (recorded)", why or "")
        # gql's own payloads
        path = os.path.join(folder, case["name"] + ".json")
        p = run_exec(exec_bin, path)
        if p.returncode != 0:
            part.check(False, case["name"], "incremental_exec: exit %d"
                       % p.returncode)
            continue
        got = [json.loads(line) for line in
               p.stdout.decode("utf-8").splitlines() if line.strip()]
        why = check_legacy(case, to_legacy(binary, got),
                           to_legacy(binary, case["payloads"]))
        part.check(why is None, case["name"] + " (gql)", why or "")
    print("incremental legacy: %d of the recorded cases converted byte for "
          "byte as graphql-js's legacyPayloads; %d answered as graphql-js 17 "
          "(BRANCHING)" % (identical, len(BRANCHING)))


def diff(a, b):
    import difflib
    return "".join(list(difflib.unified_diff(
        a.splitlines(True), b.splitlines(True), "want", "got"))[:40])


PARTS = [("merge", part_merge), ("schemas", part_schemas),
         ("validation", part_validation), ("exec", part_exec),
         ("sync", part_sync), ("legacy", part_legacy)]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    verbose = "--verbose" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1]
        args = [a for a in args if a != only]
    if len(args) != 1:
        print(__doc__)
        return 2
    gql = Gql(args[0])
    total_pass = total_fail = 0
    for name, fn in PARTS:
        if only and only != name:
            continue
        part = Part(name)
        fn(gql, part)
        shown = part.failures if verbose else part.failures[:15]
        for label, why in shown:
            print("  FAIL %s: %s\n    %s" % (name, label,
                                            why.replace("\n", "\n    ")))
        if len(shown) < len(part.failures):
            print("  ... %d more failures (--verbose shows all)"
                  % (len(part.failures) - len(shown)))
        print("incremental %s: %d passed, %d failed"
              % (name, part.passed, len(part.failures)))
        total_pass += part.passed
        total_fail += len(part.failures)
    print("%d passed, %d failed" % (total_pass, total_fail))
    return 1 if total_fail or not total_pass else 0


if __name__ == "__main__":
    sys.exit(main())
