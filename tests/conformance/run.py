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
        self.reworded = 0   # 2018 messages graphql-js 16 words otherwise
        self.relocated = 0  # 2018 locations graphql-js 16 puts elsewhere
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
        self.js_validation = None

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



# -------------------------------------------------------------- validation

def validate(r, schema_text, doc_text, rules=(), sdl=False):
    """Runs `gql validate`; returns the error list, or a string saying what
    went wrong."""
    args = ["validate"]
    if schema_text is not None:
        args += ["--schema", r.write("schema.graphql", schema_text)]
    for rule in rules:
        args += ["--rule", rule]
    if sdl:
        args.append("--sdl")
    args.append(r.write("doc.graphql", doc_text))
    rc, out, err = r.run(args)
    try:
        errors = json.loads(out)
    except ValueError:
        return "rc=%d, no JSON: %r %r" % (rc, out[:200], err[:200])
    if (rc == 0) != (errors == []):
        return "rc=%d does not agree with %d errors" % (rc, len(errors))
    return errors


def corpus_validation(r, c, kind):
    path = os.path.join(r.root, "graphql-js", "validation-cases.jsonl")
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            case = json.loads(line)
            if case["kind"] != kind:
                continue
            sdl = kind == "validateSDL"
            doc = case["sdl"] if sdl else case["query"]
            schema = case.get("schema")
            all_key = ("allSpecifiedSDLRulesErrors" if sdl
                       else "allSpecifiedRulesErrors")
            for rules, want in (([case["rule"]], case["errors"]),
                                ((), case[all_key])):
                got = validate(r, schema, doc, rules, sdl)
                label = "line %d %s (%s)" % (n, case["test"][:70],
                                             rules[0] if rules else "all rules")
                if got == want:
                    c.ok()
                else:
                    c.fail(label, "want %s\n got %s" % (
                        json.dumps(want)[:600], json.dumps(got)[:600]))


def corpus_print_schema(r, c):
    """Every schema of the recorded validation cases is printSchema output,
    as is the validation test schema fixture: building and printing each
    must give it back byte for byte."""
    path = os.path.join(r.root, "graphql-js", "validation-cases.jsonl")
    with open(path, encoding="utf-8") as f:
        schemas = sorted({json.loads(l).get("schema") or "" for l in f} - {""})
    with open(os.path.join(r.root, "fixtures",
                           "validation-testSchema.printed.graphql"),
              encoding="utf-8") as f:
        schemas.append(f.read().rstrip("\n"))
    for n, text in enumerate(schemas):
        # --assume-valid: some recorded schemas have no query type, which
        # printSchema does not mind either.
        rc, out, err = r.run(["print-schema", "--assume-valid",
                              r.write("schema.graphql", text)])
        if rc == 0 and out == text + "\n":
            c.ok()
        else:
            c.fail("schema %d" % n, "rc=%d %s\n%s" % (rc, err[:200],
                                                      diff(text + "\n", out)))


def corpus_validate(r, c):
    corpus_validation(r, c, "validate")


def corpus_validate_sdl(r, c):
    corpus_validation(r, c, "validateSDL")


TOKEN = re.compile(r'"""(?:\\"""|[^"]|"(?!""))*"""|"(?:\\.|[^"\\])*"|\.\.\.|'
                   r'[-\w.]+|[^\s,\w]')


def tokens_with_locations(text):
    out = []
    for m in TOKEN.finditer(text):
        before = text[:m.start()]
        line = before.count("\n") + 1
        col = m.start() - (before.rfind("\n") + 1) + 1
        out.append((m.group(0), line, col))
    return out


def recorded_js_locations(r, query, rule):
    """graphql-js 16's recorded locations for the same document (same tokens
    in the same order) under the same rule, translated into this text's
    lines and columns by token index; None when the corpus does not have it.
    The 2018 scenarios sometimes locate an error on another node than
    graphql-js 16 does; the recorded graphql-js answer decides then."""
    if r.js_validation is None:
        path = os.path.join(r.root, "graphql-js", "validation-cases.jsonl")
        with open(path, encoding="utf-8") as f:
            r.js_validation = [json.loads(l) for l in f]
    mine = tokens_with_locations(query)
    words = [t[0] for t in mine]
    for case in r.js_validation:
        if case["kind"] != "validate" or case["rule"] != rule:
            continue
        theirs = tokens_with_locations(case["query"])
        if [t[0] for t in theirs] != words:
            continue
        index = {(t[1], t[2]): i for i, t in enumerate(theirs)}
        result = []
        for e in case["errors"]:
            locs = []
            for l in e.get("locations", []):
                i = index.get((l["line"], l["column"]))
                if i is None:
                    return None
                locs.append((mine[i][1], mine[i][2]))
            result.append(locs)
        return result
    return None


def cats_locations(x):
    loc = x.get("loc")
    if loc is None:
        return None
    if isinstance(loc, dict):
        loc = [loc]
    return [(l["line"], l["column"]) if isinstance(l, dict) else tuple(l)
            for l in loc]


# The directives graphql-cats's test schemas use (its README's "Schema
# Directives", and @enumInt for enum values' internal values).
CATS_DIRECTIVES = {
    "resolveString": "(value: String!) on FIELD_DEFINITION",
    "argumentsJson": " on FIELD_DEFINITION",
    "resolvePromiseString": "(value: String!) on FIELD_DEFINITION",
    "resolveEmptyObject": " on FIELD_DEFINITION",
    "resolveTestData": "(name: String!) on FIELD_DEFINITION",
    "resolvePromiseTestData": "(name: String!) on FIELD_DEFINITION",
    "resolvePromise": " on FIELD_DEFINITION",
    "resolveError": "(message: String!) on FIELD_DEFINITION",
    "resolveErrorList": "(values: [String!]!, messages: [String!]!) on FIELD_DEFINITION",
    "resolvePromiseReject": "(message: String!) on FIELD_DEFINITION",
    "resolvePromiseRejectList": "(values: [String!]!, messages: [String!]!) on FIELD_DEFINITION",
    "enumInt": "(value: Int!) on ENUM_VALUE",
}


def with_cats_directives(schema_text):
    """The schema with definitions for the test directives it uses."""
    if schema_text is None:
        return None
    used = set(re.findall(r"@(\w+)", schema_text))
    defined = set(re.findall(r"directive\s+@(\w+)", schema_text))
    prelude = "".join("directive @%s%s\n" % (d, CATS_DIRECTIVES[d])
                      for d in sorted(used - defined) if d in CATS_DIRECTIVES)
    return prelude + schema_text


def corpus_cats_validation(r, c):
    folder = os.path.join(r.root, "graphql-cats", "scenarios", "validation")
    mapping = load_yaml(os.path.join(r.root, "graphql-cats", "scenarios",
                                     "error-mapping.yaml"))
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".yaml"):
            continue
        scenario = load_yaml(os.path.join(folder, name))
        bg = scenario.get("background", {})
        schema_text = None
        if "schema-file" in bg:
            with open(os.path.join(folder, bg["schema-file"]),
                      encoding="utf-8") as f:
                schema_text = f.read()
        schema_text = bg.get("schema", schema_text)
        for t in scenario["tests"]:
            given = t["given"]
            rules = [x if x.endswith("Rule") else x + "Rule"
                     for x in t["when"]["validate"]]
            schema = with_cats_directives(given.get("schema", schema_text))
            got = validate(r, schema, given["query"], rules)
            label = "%s: %s" % (name, t["name"])
            if isinstance(got, str):
                c.fail(label, got)
                continue
            then = t["then"]
            thens = then if isinstance(then, list) else [then]
            why = check_cats_errors(r, thens, got, given["query"], rules,
                                    mapping, c)
            if why:
                c.fail(label, why + "\n got %s" % json.dumps(got)[:400])
            else:
                c.ok()


def selection_set_after(query, locs):
    """The location of the first "{" after each location: graphql-js 16
    reports ScalarLeafsRule's noSubselectionAllowed at the field's selection
    set (`nodes: selectionSet`), where the 2018 scenarios name the field."""
    toks = tokens_with_locations(query)
    out = []
    for loc in locs:
        after = [t for t in toks if (t[1], t[2]) > loc and t[0] == "{"]
        if not after:
            return None
        out.append((after[0][1], after[0][2]))
    return out


# Error codes whose location graphql-js 16 moved since the 2018 scenarios:
# code -> function(query, scenario locations) -> graphql-js 16 locations.
RELOCATED_SINCE_2018 = {"noSubselectionAllowed": selection_set_after}


def check_cats_errors(r, thens, got, query, rules, mapping, c):
    got_locs = [[(l["line"], l["column"]) for l in e.get("locations", [])]
                for e in got]
    for x in thens:
        if x.get("passes") and got:
            return "want no error"
        if "error-count" in x and x["error-count"] != len(got):
            return "want %d errors" % x["error-count"]
        if "error-code" in x:
            want_locs = cats_locations(x)
            template = mapping.get(x["error-code"], {}).get("message", "")
            message = re.sub(r"\$\{(\w+)\}",
                             lambda m: str(x.get("args", {}).get(m.group(1), "")),
                             template)
            candidates = [e for e in got if e["message"] == message]
            if not candidates:
                # 2018 wording that graphql-js 16 no longer uses: compare
                # locations only (the count was checked above).
                c.reworded += 1
                candidates = got
            if want_locs is None:
                continue
            if any(got_locs[got.index(e)] == want_locs for e in candidates):
                continue
            js = recorded_js_locations(r, query, rules[0]) if len(rules) == 1 else None
            if js is not None and sorted(js) == sorted(got_locs):
                c.relocated += 1
                continue
            moved = RELOCATED_SINCE_2018.get(x["error-code"])
            if moved and any(got_locs[got.index(e)] == moved(query, want_locs)
                             for e in candidates):
                c.relocated += 1
                continue
            return "want an error at %s (%s)" % (want_locs, message)
    return None


# --------------------------------------------------------------- execution

def ordered(v):
    """A JSON value with objects as lists of pairs, so that == compares key
    order too."""
    if isinstance(v, dict):
        return [(k, ordered(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [ordered(x) for x in v]
    return v


def exec_gql(r, schema_text, data, query, variables=None, operation=None,
             extra=()):
    # The recorded results come from graphql-js's execute(), which runs a
    # subscription operation once: ask gql for that behaviour.
    args = ["exec", "--subscription-once",
            "--schema", r.write("schema.graphql", schema_text),
            "--data", r.write("data.json", json.dumps(data))]
    if variables is not None:
        args += ["--variables", r.write("variables.json", json.dumps(variables))]
    if operation is not None:
        args += ["--operation", operation]
    args += list(extra) + [r.write("query.graphql", query)]
    rc, out, err = r.run(args)
    try:
        got = json.loads(out)
    except ValueError:
        return None, "rc=%d, no JSON: %r %r" % (rc, out[:200], err[:200])
    if (rc == 0) != ("errors" not in got):
        return None, "rc=%d does not agree with the errors" % rc
    return got, None


def corpus_execution(r, c):
    path = os.path.join(r.root, "graphql-js", "execution-replayable.jsonl")
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            case = json.loads(line)
            # graphql-js executed these whether or not they validate.
            extra = [] if case.get("documentPassesValidation") else ["--no-validate"]
            got, why = exec_gql(r, case["schema"], case.get("rootValue"),
                                case["query"], case.get("variables"),
                                case.get("operationName"), extra)
            label = "line %d %s" % (n, case["test"][:80])
            if why:
                c.fail(label, why)
            elif ordered(got) == ordered(case["result"]):
                c.ok()
            else:
                c.fail(label, "want %s\n got %s" % (
                    json.dumps(case["result"])[:500], json.dumps(got)[:500]))


def corpus_cats_execution(r, c):
    """graphql-cats execution scenarios, through tests/execution/cats_exec
    (the scenarios' directive-driven resolvers are C resolvers there)."""
    helper = os.environ.get("GQL_CATS_EXEC") or os.path.join(
        os.path.dirname(r.gql), "cats_exec")
    folder = os.path.join(r.root, "graphql-cats", "scenarios", "execution")
    for name in sorted(os.listdir(folder)):
        scenario = load_yaml(os.path.join(folder, name))
        bg = scenario.get("background", {})
        for t in scenario["tests"]:
            given = t["given"]
            when = t["when"]["execute"]
            when = when if isinstance(when, dict) else {}
            schema = with_cats_directives(given.get("schema", bg.get("schema")))
            data = given.get("test-data", bg.get("test-data", {}))
            args = [helper, r.write("schema.graphql", schema),
                    r.write("data.json", json.dumps(data)),
                    r.write("query.graphql", given["query"]),
                    "--validate", "yes" if when.get("validate-query", True) else "no"]
            if "test-value" in when:
                args += ["--test-value", when["test-value"]]
            if "operation-name" in when:
                args += ["--operation", when["operation-name"]]
            if "variables" in when:
                args += ["--variables", r.write("vars.json",
                                                json.dumps(when["variables"]))]
            p = subprocess.run(args, capture_output=True, timeout=60)
            label = "%s: %s" % (name, t["name"])
            try:
                got = json.loads(p.stdout)
            except ValueError:
                c.fail(label, "no JSON: %r %r" % (p.stdout[:200], p.stderr[:200]))
                continue
            then = t["then"]
            why = check_cats_execution(then if isinstance(then, list) else [then],
                                       got, c)
            if why:
                c.fail(label, why + "\n got %s" % json.dumps(got)[:500])
            else:
                c.ok()


def introspection_since_2018(v):
    """Two introspection answers graphql-js 16 gives differently from the
    2018 reference: an interface's `interfaces` is [] (interfaces may
    implement interfaces now), not null; and possibleTypes come in schema
    order, where the 2018 reference's hand-built schema listed them
    otherwise. Normalised on both sides before the second comparison."""
    if isinstance(v, dict):
        out = {k: introspection_since_2018(x) for k, x in v.items()}
        if out.get("kind") == "INTERFACE" and out.get("interfaces") == []:
            out["interfaces"] = None
        if isinstance(out.get("possibleTypes"), list):
            out["possibleTypes"] = sorted(out["possibleTypes"],
                                          key=lambda t: json.dumps(t))
        return out
    if isinstance(v, list):
        return [introspection_since_2018(x) for x in v]
    return v


def check_cats_execution(thens, got, c):
    errors = got.get("errors", [])
    for x in thens:
        if "data" in x and got.get("data") != x["data"]:
            if introspection_since_2018(got.get("data")) != \
                    introspection_since_2018(x["data"]):
                return "want data %s" % json.dumps(x["data"])[:300]
            c.relocated += 1
        if "error-count" in x and len(errors) != x["error-count"]:
            return "want %d errors" % x["error-count"]
        if "exception" in x:
            # A request error: errors and no data at all.
            if "data" in got or not errors:
                return "want a request error (%s)" % x["exception"]
            if not any(x["exception"] in e["message"] for e in errors):
                c.reworded += 1
        if "error" in x:
            matching = [e for e in errors if x["error"] in e["message"]]
            if not matching:
                return "want an error containing %r" % x["error"]
            locs = cats_locations(x)
            if locs is not None and not any(
                    [(l["line"], l["column"]) for l in e.get("locations", [])]
                    == locs for e in matching):
                return "want %r at %s" % (x["error"], locs)
    return None


def drop_builtin_descriptions(v, builtin=False):
    """Descriptions of built-in types, fields and directives are graphql-js
    wording (the introspection README): blank them before comparing."""
    if isinstance(v, dict):
        name = v.get("name")
        is_builtin = builtin or (isinstance(name, str) and (
            name.startswith("__") or name in BUILTIN_NAMES) and
            ("kind" in v or "locations" in v))
        out = {}
        for k, x in v.items():
            if k == "description" and is_builtin:
                out[k] = None
            else:
                out[k] = drop_builtin_descriptions(x, is_builtin)
        return out
    if isinstance(v, list):
        return [drop_builtin_descriptions(x, builtin) for x in v]
    return v


BUILTIN_NAMES = {"String", "Int", "Float", "Boolean", "ID", "include", "skip",
                 "deprecated", "specifiedBy", "oneOf"}


def corpus_introspection(r, c):
    folder = os.path.join(r.root, "introspection")
    with open(os.path.join(folder, "sept2025-features.graphql"),
              encoding="utf-8") as f:
        schema = f.read()
    checks = [
        # query, expected result, extra gql exec flags
        ("graphql16.15-all-options.graphql",
         "sept2025-features.all-options.expected-sept2025-spec.json",
         ["--spec-introspection"]),
        ("graphql16.15-all-options.graphql",
         "sept2025-features.all-options.result.graphql16.15.json", []),
        ("graphql16.15-default.graphql",
         "sept2025-features.default.result.graphql16.15.json", []),
    ]
    for query_file, result_file, extra in checks:
        with open(os.path.join(folder, query_file), encoding="utf-8") as f:
            query = f.read()
        with open(os.path.join(folder, result_file), encoding="utf-8") as f:
            want = json.load(f)
        got, why = exec_gql(r, schema, {}, query, extra=extra)
        label = "%s -> %s" % (query_file, result_file)
        if why:
            c.fail(label, why)
            continue
        a = ordered(drop_builtin_descriptions(want))
        b = ordered(drop_builtin_descriptions(got))
        if a == b:
            c.ok()
        else:
            c.fail(label, diff(json.dumps(drop_builtin_descriptions(want), indent=1),
                               json.dumps(drop_builtin_descriptions(got), indent=1)))


def diff(a, b):
    import difflib
    return "".join(list(difflib.unified_diff(
        a.splitlines(True), b.splitlines(True), "want", "got"))[:40])


CORPORA = [
    ("graphql-js syntax errors", corpus_syntax_errors, False),
    ("graphql-cats parsing", corpus_cats_parsing, True),
    ("printer fixtures", corpus_fixtures, False),
    ("graphql-js validate", corpus_validate, False),
    ("graphql-js validateSDL", corpus_validate_sdl, False),
    ("graphql-js printSchema", corpus_print_schema, False),
    ("graphql-cats validation", corpus_cats_validation, True),
    ("graphql-js execution", corpus_execution, False),
    ("introspection", corpus_introspection, False),
    ("graphql-cats execution", corpus_cats_execution, True),
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
        extra = ""
        if c.reworded or c.relocated:
            extra = " (graphql-js 16 differs from the 2018 scenario: %d " \
                    "messages reworded, %d locations or answers changed)" % (
                        c.reworded, c.relocated)
        print("%s: %d passed, %d failed%s" % (name, c.passed, c.failed, extra))
        total_pass += c.passed
        total_fail += c.failed
    print("conformance: %d passed, %d failed" % (total_pass, total_fail))
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
