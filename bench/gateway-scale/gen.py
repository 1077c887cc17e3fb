#!/usr/bin/env python3
"""A large federated graph for the planning benchmark, deterministic from a seed.

Writes OUT/subgraphs/NAME.graphql (Apollo Federation v2.3 subgraph SDLs),
OUT/subgraphs.json (names, URLs and files, for compose.mjs) and OUT/queries/
qNNN.graphql (client operations that each touch up to 10 subgraphs), plus
OUT/queries.json (the same texts, and per query the subgraphs whose fields it
selects). The supergraph is composed from the subgraphs by compose.mjs with
Apollo's @apollo/composition, so it is one that Apollo's composition produces.

What the graph has (the defaults make about 5,000 supergraph types and 10 MB
of supergraph SDL over 200 subgraphs):
- entities, each owned by one subgraph (its root fields and most fields) and
  extended by 1-7 others; several keys per entity (`id`, `sku`, the composite
  `id version` and the nested composite `code region { key }`); an extending
  subgraph declares one or two of the owner's keys, some only a stub
  (`resolvable: false`) to reference the entity;
- `@shareable` fields resolved by two subgraphs and `@shareable` value types
  defined identically in every subgraph that uses them;
- `@requires` of the owner's fields (flat and nested through a value type)
  with the required fields `@external`;
- `@provides` of another entity's `@shareable` field on a reference field;
- interfaces and unions over the entities of their subgraph, enums, input
  types and root fields with arguments.

Usage: gen.py --out DIR [--seed N] [--subgraphs N] [--entities N]
              [--value-types N] [--enums N] [--inputs N] [--interfaces N]
              [--unions N] [--queries N] [--url-base URL]
"""
import argparse
import json
import os
import random

SCALARS = ["String", "Int", "Float", "Boolean", "ID"]
LINK = ('extend schema\n  @link(url: "https://specs.apollo.dev/federation/v2.3",'
        ' import: ["@key", "@shareable", "@external", "@requires",'
        ' "@provides"])\n')


class Field:
    """A field of a type as one subgraph defines it."""

    def __init__(self, name, typ, target=None, kind="scalar", args=""):
        self.name = name
        self.typ = typ        # as written: "[Dims!]!"
        self.target = target  # the named type when not a built-in scalar
        self.kind = kind      # scalar enum value entity iface union
        self.args = args      # "(first: Int = 10)" or ""
        self.directives = ""  # " @shareable" ...
        self.requires = None  # field names required (for queries)
        self.provides = None

    def sdl(self):
        return "  %s%s: %s%s\n" % (self.name, self.args, self.typ,
                                   self.directives)


class Entity:
    def __init__(self, name, owner, keys):
        self.name = name
        self.owner = owner
        self.keys = keys          # key field sets, the first is "id"
        self.fields = {}          # subgraph -> [Field] (its own fields)
        self.key_fields = []      # Field objects of the key fields
        self.ext = {}             # subgraph -> keys it declares
        self.stubs = {}           # subgraph -> True (resolvable: false)
        self.interfaces = []


class Graph:
    def __init__(self, a):
        self.r = random.Random(a.seed)
        self.a = a
        self.subgraphs = ["s%03d" % i for i in range(a.subgraphs)]
        self.enums = {}        # name -> values
        self.values = {}       # name -> [Field] (scalars / enums only)
        self.inputs = {}       # name -> [(name, type)]
        self.entities = {}     # name -> Entity
        self.ifaces = {}       # name -> (owner, [Field], [entity names])
        self.unions = {}       # name -> (owner, [entity names])
        self.uses = {s: [] for s in self.subgraphs}  # types a subgraph needs
        self.roots = {s: [] for s in self.subgraphs}  # Query fields
        self.counter = 0

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def use(self, sg, name):
        if name not in self.uses[sg]:
            self.uses[sg].append(name)

    # ---------------------------------------------------------- the types
    def make_leaf_types(self):
        r = self.r
        for i in range(self.a.enums):
            self.enums["Enum%d" % i] = ["V%d_%d" % (i, j)
                                        for j in range(r.randint(2, 6))]
        enum_names = list(self.enums)
        for i in range(self.a.value_types):
            fields = []
            for j in range(r.randint(4, 12)):
                if r.random() < 0.05:
                    e = r.choice(enum_names)
                    f = Field("v%d" % j, e, e, "enum")
                else:
                    t = r.choice(SCALARS)
                    f = Field("v%d" % j, t + ("!" if r.random() < 0.3 else ""))
                f.directives = " @shareable"
                fields.append(f)
            self.values["Value%d" % i] = fields
        for i in range(self.a.inputs):
            self.inputs["Input%d" % i] = [
                ("i%d" % j, r.choice(["String", "Int", "Boolean", "ID"]))
                for j in range(r.randint(2, 6))]

    def leaf_field(self, name, sg):
        """A scalar, enum or value-type field (lists sometimes)."""
        r = self.r
        p = r.random()
        if p < 0.55:
            f = Field(name, r.choice(SCALARS) + r.choice(["", "!"]))
        elif p < 0.7:
            e = r.choice(list(self.enums))
            self.use(sg, e)
            f = Field(name, e, e, "enum")
        else:
            v = r.choice(list(self.values))
            self.use(sg, v)
            t = v if r.random() < 0.7 else "[%s!]" % v
            f = Field(name, t, v, "value")
        if r.random() < 0.1 and f.kind == "scalar":
            f.args = "(first: Int = 10)"
        return f

    def make_entities(self):
        r = self.r
        n = self.a.entities
        for i in range(n):
            owner = self.subgraphs[i % len(self.subgraphs)]
            keys = ["id"]
            extra = r.random()
            if extra < 0.25:
                keys.append("sku")
            elif extra < 0.45:
                keys.append("id version")
            elif extra < 0.6:
                keys.append("code region { key }")
            if r.random() < 0.15 and "sku" not in keys:
                keys.append("sku")
            e = Entity("T%d" % i, owner, keys)
            kf = [Field("id", "ID!")]
            for k in keys:
                if "sku" in k.split():
                    kf.append(Field("sku", "String!"))
                if "version" in k.split():
                    kf.append(Field("version", "Int!"))
                if k.startswith("code"):
                    kf.append(Field("code", "String!"))
                    kf.append(Field("region", "Region!", "Region", "value"))
            e.key_fields = kf
            self.entities[e.name] = e
            e.fields[owner] = [self.leaf_field("f%d" % j, owner)
                               for j in range(r.randint(8, 20))]
            # extended by 1-7 other subgraphs
            others = [s for s in self.subgraphs if s != owner]
            for sg in r.sample(others, min(len(others), r.randint(1, 7))):
                ks = [k for k in keys if r.random() < 0.5] or [keys[0]]
                e.ext[sg] = ks[:2]
                e.fields[sg] = [self.leaf_field("%s_f%d" % (sg, j), sg)
                                for j in range(r.randint(2, 8))]
        # @shareable fields: a field of the owner resolved by an extension too
        for e in self.entities.values():
            for sg in list(e.ext):
                if r.random() < 0.3:
                    src = r.choice(e.fields[e.owner])
                    if src.kind != "scalar" or src.args:
                        continue
                    src.directives = " @shareable"
                    f = Field(src.name, src.typ)
                    f.directives = " @shareable"
                    e.fields[sg].append(f)

    def make_requires(self):
        """@requires in extending subgraphs: flat or nested (value type)."""
        r = self.r
        for e in self.entities.values():
            for sg in list(e.ext):
                if r.random() > 0.35:
                    continue
                own = e.fields[e.owner]
                names = [f.name for f in e.fields[sg]]
                cands = [f for f in own if f.kind in ("scalar", "enum")
                         and not f.args and f.name not in names]
                vals = [f for f in own if f.kind == "value" and
                        not f.typ.startswith("[") and f.name not in names]
                if vals and r.random() < 0.3:
                    src = r.choice(vals)
                    sub = self.values[src.target][0].name
                    req = "%s { %s }" % (src.name, sub)
                    ext = [Field(src.name, src.typ, src.target, "value")]
                elif cands:
                    srcs = r.sample(cands, min(len(cands), r.randint(1, 2)))
                    req = " ".join(f.name for f in srcs)
                    ext = [Field(f.name, f.typ, f.target, f.kind)
                           for f in srcs]
                else:
                    continue
                for x in ext:
                    x.directives = " @external"
                    e.fields[sg].append(x)
                f = Field("%s_req%d" % (sg, len(names)), "Int")
                f.directives = ' @requires(fields: "%s")' % req
                f.requires = req
                e.fields[sg].append(f)

    def make_references(self):
        """Fields returning another entity; some with @provides."""
        r = self.r
        names = list(self.entities)
        for e in self.entities.values():
            for sg in list(e.fields):
                for _ in range(r.randint(1, 3) if sg == e.owner else
                               (1 if r.random() < 0.6 else 0)):
                    u = self.entities[r.choice(names)]
                    if u is e:
                        continue
                    many = r.random() < 0.4
                    f = Field("%s_%s%s" % (sg, u.name.lower(),
                                           "s" if many else ""),
                              "[%s!]" % u.name if many else u.name,
                              u.name, "entity")
                    if many:
                        f.args = "(first: Int = 5)"
                    self.reference(sg, u)
                    if sg != u.owner and u.ext.get(sg) is None and \
                            r.random() < 0.25:
                        own = [x for x in u.fields[u.owner]
                               if x.kind == "scalar" and not x.args]
                        if own:
                            p = r.choice(own)
                            p.directives = " @shareable"
                            f.directives = ' @provides(fields: "%s")' % p.name
                            f.provides = p.name
                            u.stub_provided = getattr(u, "stub_provided", {})
                            u.stub_provided.setdefault(sg, [])
                            if p.name not in u.stub_provided[sg]:
                                u.stub_provided[sg].append(p.name)
                    e.fields[sg].append(f)

    def reference(self, sg, u):
        """`sg` refers to entity u: it needs u's type, at least a stub."""
        if sg != u.owner and sg not in u.ext:
            u.stubs[sg] = True

    def make_abstract(self):
        r = self.r
        by_owner = {}
        for e in self.entities.values():
            by_owner.setdefault(e.owner, []).append(e)
        owners = list(by_owner)
        for i in range(self.a.interfaces):
            sg = owners[i % len(owners)]
            members = [e for e in by_owner[sg] if not e.interfaces]
            if len(members) < 2:
                continue
            members = r.sample(members, min(len(members), r.randint(2, 4)))
            name = "Iface%d" % i
            own = [Field("id", "ID!")]
            common = [f for f in members[0].fields[sg] if f.kind == "scalar"
                      and not f.args and all(
                          any(g.name == f.name and g.typ == f.typ
                              for g in m.fields[sg]) for m in members[1:])]
            own += [Field(f.name, f.typ) for f in common[:3]]
            for j in range(r.randint(1, 3)):
                t = r.choice(SCALARS)
                fname = "%s_i%d" % (name.lower(), j)
                own.append(Field(fname, t))
                for m in members:
                    m.fields[sg].append(Field(fname, t))
            for m in members:
                m.interfaces.append(name)
            self.ifaces[name] = (sg, own, [m.name for m in members])
            self.roots[sg].append(Field("%ss" % name.lower(),
                                        "[%s!]!" % name, name, "iface"))
        for i in range(self.a.unions):
            sg = owners[(i * 7) % len(owners)]
            members = by_owner[sg]
            if len(members) < 2:
                continue
            members = r.sample(members, min(len(members), r.randint(2, 4)))
            name = "Union%d" % i
            self.unions[name] = (sg, [m.name for m in members])
            self.roots[sg].append(Field("search%d" % i, "[%s!]!" % name,
                                        name, "union"))

    def make_roots(self):
        r = self.r
        inputs = list(self.inputs)
        for e in self.entities.values():
            sg = e.owner
            base = e.name.lower()
            self.roots[sg].append(Field(base, e.name, e.name, "entity",
                                        "(id: ID!)"))
            if r.random() < 0.5:
                inp = r.choice(inputs)
                self.use(sg, inp)
                self.roots[sg].append(Field(
                    base + "List", "[%s!]!" % e.name, e.name, "entity",
                    "(first: Int = 10, filter: %s)" % inp))

    # ---------------------------------------------------------- printing
    def deps(self, sg):
        """Value types, enums and inputs `sg` needs, in a stable order."""
        need = list(self.uses[sg])
        for e in self.entities.values():
            for f in e.fields.get(sg, []):
                if f.target and f.kind in ("enum", "value"):
                    need.append(f.target)
        for f in self.roots[sg]:
            pass
        out = []
        for n in need:
            if n not in out:
                out.append(n)
        # value types pull their enums
        for n in list(out):
            if n in self.values:
                for f in self.values[n]:
                    if f.kind == "enum" and f.target not in out:
                        out.append(f.target)
        return out

    def subgraph_sdl(self, sg):
        out = [LINK]
        ents = []
        for e in self.entities.values():
            if sg == e.owner or sg in e.ext or sg in e.stubs:
                ents.append(e)
        region = False
        for e in ents:
            impl = ""
            if sg == e.owner:
                keys = e.keys
                kf = e.key_fields
                if e.interfaces:
                    impl = " implements " + " & ".join(e.interfaces)
            elif sg in e.ext:
                keys = e.ext[sg]
                kf = [f for f in e.key_fields if any(
                    f.name in k.replace("{", " ").replace("}", " ").split()
                    for k in keys)]
            else:
                keys = [e.keys[0]]
                kf = [e.key_fields[0]]
            keyd = "".join(' @key(fields: "%s"%s)' % (
                k, ", resolvable: false" if sg in e.stubs and
                sg not in e.ext and sg != e.owner else "") for k in keys)
            lines = ["type %s%s%s {\n" % (e.name, impl, keyd)]
            seen = set()
            for f in kf:
                if f.name not in seen:
                    seen.add(f.name)
                    lines.append(f.sdl())
                    region = region or f.name == "region"
            for f in e.fields.get(sg, []):
                if f.name not in seen:
                    seen.add(f.name)
                    lines.append(f.sdl())
            for p in getattr(e, "stub_provided", {}).get(sg, []):
                if p not in seen:
                    seen.add(p)
                    src = next(x for x in e.fields[e.owner] if x.name == p)
                    lines.append("  %s: %s @external\n" % (p, src.typ))
            lines.append("}\n")
            out.append("".join(lines))
        if region:
            out.append("type Region @shareable {\n  key: ID!\n}\n")
        for name, (owner, fields, members) in self.ifaces.items():
            if owner == sg:
                out.append("interface %s {\n%s}\n" % (
                    name, "".join(f.sdl() for f in fields)))
        for name, (owner, members) in self.unions.items():
            if owner == sg:
                out.append("union %s = %s\n" % (name, " | ".join(members)))
        for n in self.deps(sg):
            if n in self.enums:
                out.append("enum %s {\n%s}\n" % (
                    n, "".join("  %s\n" % v for v in self.enums[n])))
            elif n in self.values:
                out.append("type %s {\n%s}\n" % (
                    n, "".join(f.sdl() for f in self.values[n])))
            elif n in self.inputs:
                out.append("input %s {\n%s}\n" % (n, "".join(
                    "  %s: %s\n" % f for f in self.inputs[n])))
        roots = self.roots[sg] or [Field("%s_ping" % sg, "Boolean")]
        out.append("type Query {\n%s}\n" % "".join(f.sdl() for f in roots))
        return "\n".join(out)

    def generate(self):
        self.make_leaf_types()
        self.make_entities()
        self.make_requires()
        self.make_references()
        self.make_abstract()
        self.make_roots()

    # ----------------------------------------------------------- queries
    def fields_of(self, e, sg):
        """Fields a query may select on e from subgraph sg (not external)."""
        return [f for f in e.fields.get(sg, [])
                if "@external" not in f.directives]

    def select_leaf(self, f, depth):
        r = self.r
        text = f.name
        if f.args and r.random() < 0.5:
            text += "(first: %d)" % r.randint(1, 20)
        if f.kind == "value":
            vf = self.values[f.target]
            pick = r.sample(vf, min(len(vf), r.randint(1, 3)))
            text += " { %s }" % " ".join(x.name for x in pick)
        return text

    def select_entity(self, e, touched, budget, depth):
        """A selection set on entity e; adds the subgraphs it reads."""
        r = self.r
        parts = []
        if r.random() < 0.5:
            parts.append("id")
        homes = [e.owner] + [s for s in e.ext]
        r.shuffle(homes)
        for sg in homes:
            if sg not in touched and len(touched) >= budget:
                continue
            fs = self.fields_of(e, sg)
            if not fs:
                continue
            leaves = [f for f in fs if f.kind != "entity"]
            refs = [f for f in fs if f.kind == "entity"]
            picked = r.sample(leaves, min(len(leaves), r.randint(1, 3)))
            if not picked and not refs:
                continue
            touched.append(sg) if sg not in touched else None
            for f in picked:
                if f.requires and e.owner not in touched:
                    touched.append(e.owner)
                parts.append(self.select_leaf(f, depth))
            if refs and depth < 4 and r.random() < 0.7:
                f = r.choice(refs)
                u = self.entities[f.target]
                sub = self.select_entity(u, touched, budget, depth + 1)
                if sub:
                    arg = "(first: %d)" % r.randint(1, 5) if f.args and \
                        r.random() < 0.5 else ""
                    parts.append("%s%s { %s }" % (f.name, arg, sub))
            if len(touched) >= budget and r.random() < 0.5:
                break
        if e.interfaces and r.random() < 0.2:
            parts.append("__typename")
        return " ".join(parts)

    def query(self, i):
        r = self.r
        budget = 1 + (i % 10)
        for _ in range(50):
            sg = r.choice(self.subgraphs)
            roots = [f for f in self.roots[sg] if f.kind == "entity"]
            if not roots:
                continue
            root = r.choice(roots)
            e = self.entities[root.target]
            touched = [sg]
            sel = self.select_entity(e, touched, budget, 1)
            if not sel:
                continue
            if root.args.startswith("(id"):
                args = '(id: "%d")' % r.randint(1, 1000)
            else:
                args = "(first: %d)" % r.randint(1, 20)
            text = "query Q%d {\n  %s%s { %s }\n" % (i, root.name, args, sel)
            # an abstract root field of a subgraph touched already, now and then
            for f in self.roots[sg]:
                if f.kind == "iface" and r.random() < 0.5:
                    owner, own, members = self.ifaces[f.target]
                    m = self.entities[r.choice(members)]
                    sub = self.select_entity(m, touched, budget, 3)
                    text += "  %s { __typename id ... on %s { %s } }\n" % (
                        f.name, m.name, sub or "id")
                    break
            return text + "}\n", touched
        raise SystemExit("gen.py: no query could be made")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--subgraphs", type=int, default=200)
    ap.add_argument("--entities", type=int, default=2300)
    ap.add_argument("--value-types", type=int, default=1200)
    ap.add_argument("--enums", type=int, default=800)
    ap.add_argument("--inputs", type=int, default=400)
    ap.add_argument("--interfaces", type=int, default=200)
    ap.add_argument("--unions", type=int, default=100)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--url-base", default="http://127.0.0.1:4200/")
    a = ap.parse_args()
    g = Graph(a)
    g.generate()
    os.makedirs(os.path.join(a.out, "subgraphs"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "queries"), exist_ok=True)
    manifest = []
    for sg in g.subgraphs:
        path = os.path.join("subgraphs", sg + ".graphql")
        with open(os.path.join(a.out, path), "w") as f:
            f.write(g.subgraph_sdl(sg))
        manifest.append({"name": sg, "url": a.url_base + sg, "file": path})
    with open(os.path.join(a.out, "subgraphs.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    queries = []
    for i in range(a.queries):
        text, touched = g.query(i)
        path = os.path.join("queries", "q%03d.graphql" % i)
        with open(os.path.join(a.out, path), "w") as f:
            f.write(text)
        queries.append({"name": "Q%d" % i, "file": path, "text": text,
                        "subgraphs": touched})
    with open(os.path.join(a.out, "queries.json"), "w") as f:
        json.dump(queries, f, indent=1)


if __name__ == "__main__":
    main()
