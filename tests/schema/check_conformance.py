#!/usr/bin/env python3
"""Checks `gql print-schema` against graphql-js's recorded cases.

Usage: tests/schema/check_conformance.py BUILD/gql [CONFORMANCE_DIR] [-v]
- every validateSDL case, one rule alone and all rules together;
- every distinct `schema` of validation-cases.jsonl printed back unchanged;
- fixtures/validation-testSchema.printed.graphql printed back unchanged.
"""
import json, os, subprocess, sys, tempfile

gql = sys.argv[1]
conf = sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith('-') else os.path.join(
    os.path.dirname(__file__), '..', '..', '..', 'shared', 'conformance')
verbose = '-v' in sys.argv
tmp = tempfile.mkdtemp()

def write(name, text):
    p = os.path.join(tmp, name)
    with open(p, 'w') as f:
        f.write(text)
    return p

def run(args):
    r = subprocess.run([gql, 'print-schema'] + args, capture_output=True, text=True, timeout=20)
    return r

cases = [json.loads(l) for l in open(os.path.join(conf, 'graphql-js', 'validation-cases.jsonl'))]
ok = total = 0
for c in cases:
    if c['kind'] != 'validateSDL':
        continue
    sdl = write('sdl.graphql', c['sdl'])
    base = []
    if c.get('schema'):
        base = ['--base', write('base.graphql', c['schema'])]
    for rule, want in ((c['rule'], c['errors']), ('all', c['allSpecifiedSDLRulesErrors'])):
        total += 1
        r = run(base + ['--sdl-rule', rule, '--json-errors', sdl])
        try:
            got = json.loads(r.stdout) if r.stdout.strip() else None
        except ValueError:
            got = None
        if got == want:
            ok += 1
        elif verbose:
            print('FAIL', c['test'], rule)
            print('  want', json.dumps(want))
            print('  got ', json.dumps(got), r.stderr.strip())
print(f'validateSDL: {ok}/{total}')
failed = ok != total

schemas = sorted({c['schema'] for c in cases if c.get('schema')})
fixture = open(os.path.join(conf, 'fixtures', 'validation-testSchema.printed.graphql')).read()
schemas.append(fixture.rstrip('\n'))
ok = 0
for s in schemas:
    r = run(['--assume-valid', write('s.graphql', s)])
    if r.returncode == 0 and r.stdout == s + '\n':
        ok += 1
    elif verbose:
        print('PRINT FAIL', r.stderr.strip()[:300])
        import difflib
        print(''.join(list(difflib.unified_diff((s + '\n').splitlines(1), r.stdout.splitlines(1)))[:30]))
print(f'printSchema round trip: {ok}/{len(schemas)}')
failed = failed or ok != len(schemas)
sys.exit(1 if failed else 0)
