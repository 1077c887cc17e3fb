#!/usr/bin/env python3
"""gql's conformance runner.

Reads the shared corpora (graphql-js recordings, graphql-cats scenarios,
printer fixtures) from the conformance folder given as an argument, runs
each case through the `gql` command, and prints `N passed, N failed` per
corpus and in total. Exits 1 on any failure.

Usage: run.py GQL_BINARY CONFORMANCE_DIR [--verbose] [--only CORPUS]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # the project's scripts/deps.sh installs python3-yaml
    yaml = None


class Corpus:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.notes = 0
        self.failures = []

    def ok(self):
        self.passed += 1

    def fail(self, case, why):
        self.failed += 1
        self.failures.append((case, why))


class Runner:
    def __init__(self, gql, root, verbose):
        self.gql = gql
        self.root = root
        self.verbose = verbose
        self.tmp = tempfile.mkdtemp(prefix="gql-conformance-")

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        # Lone surrogates (JavaScript strings allow them) are written as
        # their 3-byte WTF-8 forms, which gql reports as graphql-js does.
        with open(path, "w", encoding="utf-8", errors="surrogatepass",
                  newline="") as f:
            f.write(text)
        return path

    def run(self, args, stdin=None):
        p = subprocess.run([self.gql] + args, input=stdin,
                           capture_output=True, timeout=60)
        return p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace")


# ---------------------------------------------------------------- language

ERR_LINE = re.compile(r"^(.*):(\d+):(\d+): (.*)$")


def parse_error_of(r, text):
    """Runs `gql format` on text; returns None when it parsed, else
    (message, line, column)."""
    path = r.write("doc.graphql", text)
    rc, out, err = r.run(["format", path])
    if rc == 0:
        return None
    first = err.strip().splitlines()[0] if err.strip() else ""
    m = ERR_LINE.match(first)
    if not m or m.group(1) != path:
        return ("<unexpected output rc=%d: %r>" % (rc, err[:200]), 0, 0)
    return (m.group(4), int(m.group(2)), int(m.group(3)))


def corpus_syntax_errors(r, c):
    path = os.path.join(r.root, "graphql-js", "syntax-error-cases.jsonl")
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            case = json.loads(line)
            want = case.get("parseError") or case["error"]
            got = parse_error_of(r, case["text"])
            loc = want["locations"][0]
            expect = (want["message"], loc["line"], loc["column"])
            if got == expect:
                c.ok()
            else:
                c.fail("line %d %r" % (n, case["text"][:40]),
                       "want %r got %r" % (expect, got))


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def corpus_cats_parsing(r, c):
    folder = os.path.join(r.root, "graphql-cats", "scenarios", "parsing")
    for name in sorted(os.listdir(folder)):
        scenario = load_yaml(os.path.join(folder, name))
        for t in scenario["tests"]:
            then = t["then"]
            thens = then if isinstance(then, list) else [then]
            got = parse_error_of(r, t["given"]["query"])
            want_pass = any(x.get("passes") for x in thens)
            want_error = any(x.get("syntax-error") for x in thens)
            if want_pass and got is None or want_error and got is not None:
                c.ok()
            else:
                c.fail("%s: %s" % (name, t["name"]),
                       "want %s, got %r" % ("pass" if want_pass else
                                            "syntax error", got))


def corpus_fixtures(r, c):
    folder = os.path.join(r.root, "fixtures")
    for name in ("kitchen-sink", "schema-kitchen-sink"):
        src = os.path.join(folder, name + ".graphql")
        with open(os.path.join(folder, name + ".printed.graphql"),
                  encoding="utf-8") as f:
            golden = f.read()
        rc, out, err = r.run(["format", src])
        if rc == 0 and out == golden:
            c.ok()
        else:
            c.fail(name + " print", "rc=%d, output differs from golden:\n%s"
                   % (rc, diff(golden, out)))
        rc2, out2, _ = r.run(["format", "-"], stdin=out.encode())
        if rc2 == 0 and out2 == out:
            c.ok()
        else:
            c.fail(name + " idempotent", "print(parse(print(x))) differs:\n%s"
                   % diff(out, out2))


def diff(a, b):
    import difflib
    return "".join(list(difflib.unified_diff(
        a.splitlines(True), b.splitlines(True), "want", "got"))[:40])


CORPORA = [
    ("graphql-js syntax errors", corpus_syntax_errors, False),
    ("graphql-cats parsing", corpus_cats_parsing, True),
    ("printer fixtures", corpus_fixtures, False),
]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    verbose = "--verbose" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1]
        args = [a for a in args if a != only]
    if len(args) != 2:
        print(__doc__)
        return 2
    gql, root = args
    if not os.path.isdir(root):
        # Said plainly, not failed: a checkout without ../shared can still
        # run its own tests. scripts/test.sh says the same before ctest.
        print("conformance: %s NOT FOUND: no conformance corpus was run" % root)
        return 0
    r = Runner(gql, root, verbose)
    total_pass = total_fail = 0
    for name, fn, needs_yaml in CORPORA:
        if only and only not in name:
            continue
        c = Corpus(name)
        if needs_yaml and yaml is None:
            c.fail(name, "python3-yaml is missing (scripts/deps.sh installs it)")
        else:
            fn(r, c)
        shown = c.failures if verbose else c.failures[:15]
        for case, why in shown:
            print("  FAIL %s: %s\n    %s" % (name, case, why.replace("\n", "\n    ")))
        if len(shown) < len(c.failures):
            print("  ... %d more failures (--verbose shows all)"
                  % (len(c.failures) - len(shown)))
        print("%s: %d passed, %d failed" % (name, c.passed, c.failed))
        total_pass += c.passed
        total_fail += c.failed
    print("conformance: %d passed, %d failed" % (total_pass, total_fail))
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
