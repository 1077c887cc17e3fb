// Federation shapes for the gateway's end-to-end test (test_shapes.sh):
// small subgraphs (@apollo/subgraph) with the queries a correct gateway
// answers, each with the subgraph requests gql's plan makes (never more
// than Apollo's planner makes for it). Written for this project, in the
// spirit of the public federation gateway audit: abstract types across
// subgraphs, keys of every kind and multi-hop key jumps, entities and value
// types of one type, fields reached through parent entities, null keys,
// circular @requires, @provides on unions, union members spread over
// subgraphs, @interfaceObject extended indirectly, @override (progressive
// too), @skip/@include with variables, aliases on key fields, enum values
// the API hides, fields typed differently per subgraph, errors inside
// _entities, introspection mixed with subgraph fields.
const link = (imports) =>
  `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: [${imports
    .map((i) => `"@${i}"`)
    .join(", ")}])\n`;
const FED = link(["key", "external", "requires", "provides", "shareable",
  "interfaceObject", "override", "inaccessible"]);
const sub = (name, typeDefs, resolvers) => ({ name, typeDefs: FED + typeDefs, resolvers });
const byId = (list) => (r) => list.find((x) => x.id === r.id) || null;

const books = [{ id: "b1", title: "Book 1" }, { id: "b2", title: "Book 2" }];
const mags = [{ id: "m1", title: "Mag 1" }];

const abstractAcross = {
  id: "abstract-across",
  subgraphs: [
    sub("a", `
      type Query { products: [Product] search: [Result] }
      interface Product { id: ID! title: String price: Int }
      type Book implements Product @key(fields: "id") { id: ID! title: String price: Int @external }
      type Magazine implements Product @key(fields: "id") { id: ID! title: String price: Int @external }
      union Result = Book | Magazine`, {
      Query: {
        products: () => [{ __typename: "Book", ...books[0] }, { __typename: "Magazine", ...mags[0] }, { __typename: "Book", ...books[1] }],
        search: () => [{ __typename: "Magazine", ...mags[0] }, { __typename: "Book", ...books[1] }],
      },
      Product: { __resolveType: (o) => o.__typename },
      Result: { __resolveType: (o) => o.__typename },
      Book: { __resolveReference: byId(books) },
      Magazine: { __resolveReference: byId(mags) },
    }),
    sub("b", `type Book @key(fields: "id") { id: ID! price: Int reviews: [String] }`, {
      Book: { __resolveReference: (r) => ({ id: r.id, price: r.id === "b1" ? 10 : 20, reviews: [r.id + "-r1"] }) },
    }),
    sub("c", `
      type Magazine @key(fields: "id") { id: ID! price: Int issue: Int }
      type Query { magazine: Magazine }`, {
      Query: { magazine: () => ({ id: "m1", price: 5, issue: 7 }) },
      Magazine: { __resolveReference: (r) => ({ id: r.id, price: 5, issue: 7 }) },
    }),
  ],
  tests: [
    // an interface field each implementation gets from another subgraph
    { query: `{ products { id price } }`, fetches: 3,
      data: { products: [{ id: "b1", price: 10 }, { id: "m1", price: 5 }, { id: "b2", price: 20 }] } },
    { query: `{ products { __typename ... on Book { reviews } ... on Magazine { issue } } }`, fetches: 3,
      data: { products: [{ __typename: "Book", reviews: ["b1-r1"] }, { __typename: "Magazine", issue: 7 }, { __typename: "Book", reviews: ["b2-r1"] }] } },
    { query: `{ search { ... on Product { title price } ... on Book { reviews } } }`, fetches: 3,
      data: { search: [{ title: "Mag 1", price: 5 }, { title: "Book 2", price: 20, reviews: ["b2-r1"] }] } },
    { query: `{ magazine { title issue } }`, fetches: 2, data: { magazine: { title: "Mag 1", issue: 7 } } },
  ],
};

const P = [{ id: "p1", sku: { code: "S1", vendor: { name: "V" } }, region: "eu", upc: "u1" },
  { id: "p2", sku: { code: "S2", vendor: { name: "W" } }, region: "us", upc: "u2" }];
const findP = (r) => P.find((p) => (r.id && p.id === r.id) || (r.upc && p.upc === r.upc) ||
  (r.sku && p.sku.code === r.sku.code && p.region === r.region)) || null;
const keysMashup = {
  id: "keys-mashup",
  subgraphs: [
    sub("a", `
      type Query { products: [Product] }
      type Product @key(fields: "id") @key(fields: "sku { code } region") {
        id: ID! sku: Sku! region: String! name: String }
      type Sku @shareable { code: String! vendor: Vendor }
      type Vendor @shareable { name: String }`, {
      Query: { products: () => P.map((p) => ({ ...p, name: "name-" + p.id })) },
      Product: { __resolveReference: (r) => { const p = findP(r); return p && { ...p, name: "name-" + p.id }; } },
    }),
    sub("b", `
      type Product @key(fields: "sku { code } region") { sku: Sku! region: String! stock: Int }
      type Sku @shareable { code: String! }`, {
      Product: { __resolveReference: (r) => { const p = findP(r); return p && { sku: p.sku, region: p.region, stock: p.id === "p1" ? 3 : 4 }; } },
    }),
    sub("c", `
      type Query { topProduct: Product }
      type Product @key(fields: "upc") { upc: String! rating: Int }`, {
      Query: { topProduct: () => ({ upc: "u2", rating: 5 }) },
      Product: { __resolveReference: (r) => { const p = findP(r); return p && { upc: p.upc, rating: p.id === "p1" ? 4 : 5 }; } },
    }),
    sub("d", `type Product @key(fields: "id") @key(fields: "upc") { id: ID! upc: String! }`, {
      Product: { __resolveReference: (r) => { const p = findP(r); return p && { id: p.id, upc: p.upc }; } },
    }),
  ],
  tests: [
    // a composite key (b) and another subgraph's key (c, by upc through d)
    { query: `{ products { id stock rating } }`, fetches: 4,
      data: { products: [{ id: "p1", stock: 3, rating: 4 }, { id: "p2", stock: 4, rating: 5 }] } },
    // multi-hop: c has upc; d maps upc to id; a gives sku and region; b
    { query: `{ topProduct { rating stock name sku { code vendor { name } } } }`, fetches: 4,
      data: { topProduct: { rating: 5, stock: 4, name: "name-p2", sku: { code: "S2", vendor: { name: "W" } } } } },
    { query: `{ topProduct { id } }`, fetches: 2, data: { topProduct: { id: "p2" } } },
  ],
};

const shapes = {
  id: "value-types-and-parents",
  subgraphs: [
    sub("a", `
      type Query { products: [Product] }
      type Product @key(fields: "id") { id: ID! category: Category @shareable }
      type Category @key(fields: "id") { id: ID! name: String sub: Sub @shareable }
      type Sub @shareable { code: String }`, {
      Query: { products: () => [{ id: "p1", category: { id: "c1", name: "C1", sub: { code: "x" } } }, { id: "p2", category: null }] },
      Product: { __resolveReference: (r) => ({ id: r.id, category: r.id === "p1" ? { id: "c1", name: "C1", sub: { code: "x" } } : null }) },
      Category: { __resolveReference: (r) => ({ id: r.id, name: r.id.toUpperCase(), sub: { code: "x" } }) },
    }),
    sub("b", `
      type Product @key(fields: "id") { id: ID! category: Category @shareable }
      type Category @shareable { id: ID! sub: Sub }
      type Sub @shareable { code: String depth: Int }
      type Query { featured: Product }`, {
      Query: { featured: () => ({ id: "p1" }) },
      Product: {
        __resolveReference: (r) => ({ id: r.id }),
        category: (p) => (p.id === "p1" ? { id: "c1", sub: { code: "x", depth: 2 } } : null),
      },
    }),
  ],
  tests: [
    // Sub.depth only in b, where Category is a value type: through the
    // parent entity Product, two levels up
    { query: `{ products { id category { name sub { code depth } } } }`, fetches: 2,
      data: { products: [{ id: "p1", category: { name: "C1", sub: { code: "x", depth: 2 } } }, { id: "p2", category: null }] } },
    // Category.name only in a, where Category is an entity: by its key
    { query: `{ featured { category { id name sub { depth } } } }`, fetches: 2,
      data: { featured: { category: { id: "c1", name: "C1", sub: { depth: 2 } } } } },
  ],
};

const requiresCircular = {
  id: "requires-circular",
  subgraphs: [
    sub("a", `
      type Query { item: Item }
      type Item @key(fields: "id") { id: ID! base: Int y: Int @external x: Int @requires(fields: "y") }`, {
      Query: { item: () => ({ id: "i1", base: 2 }) },
      Item: {
        __resolveReference: (r) => ({ id: r.id, base: 2, y: r.y }),
        x: (i) => { if (typeof i.y !== "number") throw new Error("y missing"); return i.y * 10; },
      },
    }),
    sub("b", `
      type Item @key(fields: "id") { id: ID! base: Int @external y: Int @requires(fields: "base") z: Int }`, {
      Item: {
        __resolveReference: (r) => ({ id: r.id, base: r.base, z: 9 }),
        y: (i) => { if (typeof i.base !== "number") throw new Error("base missing"); return i.base + 1; },
      },
    }),
  ],
  tests: [
    // a.x needs b.y, which needs a.base: a, b, then a again
    { query: `{ item { x } }`, fetches: 3, data: { item: { x: 30 } } },
    { query: `{ item { x y z base } }`, fetches: 3, data: { item: { x: 30, y: 3, z: 9, base: 2 } } },
  ],
};

const nullKeys = {
  id: "null-keys",
  subgraphs: [
    sub("a", `
      type Query { books: [Book] }
      type Book @key(fields: "id") { id: ID! isbn: String @shareable }`, {
      Query: { books: () => [{ id: "b1", isbn: "i1" }, { id: "b2", isbn: null }] },
      Book: { __resolveReference: (r) => ({ id: r.id, isbn: r.id === "b1" ? "i1" : null }) },
    }),
    sub("b", `type Book @key(fields: "isbn") { isbn: String title: String }`, {
      Book: { __resolveReference: (r) => { if (r.isbn == null) throw new Error("a null key was sent"); return { isbn: r.isbn, title: "T-" + r.isbn }; } },
    }),
  ],
  tests: [
    { query: `{ books { id title } }`, fetches: 2, data: { books: [{ id: "b1", title: "T-i1" }, { id: "b2", title: null }] } },
  ],
};

const unions = {
  id: "unions",
  subgraphs: [
    sub("a", `
      type Query { feed: [Item] @shareable picks: [Item] @provides(fields: "... on Book { title }") }
      union Item = Book | Movie
      type Book @key(fields: "id") { id: ID! title: String @external }
      type Movie @key(fields: "id") { id: ID! }`, {
      Query: {
        feed: () => [{ __typename: "Book", id: "b1" }, { __typename: "Movie", id: "m1" }],
        picks: () => [{ __typename: "Book", id: "b1", title: "Picked" }, { __typename: "Movie", id: "m1" }],
      },
      Item: { __resolveType: (o) => o.__typename },
    }),
    sub("b", `
      type Query { feed: [Item] @shareable }
      union Item = Book | Song
      type Book @key(fields: "id") { id: ID! title: String @shareable }
      type Song @key(fields: "id") { id: ID! title: String }`, {
      Query: { feed: () => [{ __typename: "Book", id: "b1", title: "Book" }, { __typename: "Song", id: "s1", title: "Song" }] },
      Item: { __resolveType: (o) => o.__typename },
      Book: { __resolveReference: (r) => ({ id: r.id, title: "Book" }) },
    }),
    sub("c", `type Movie @key(fields: "id") { id: ID! title: String }`, {
      Movie: { __resolveReference: (r) => ({ id: r.id, title: "Movie" }) },
    }),
  ],
  tests: [
    // @provides on a union: the book's title comes with picks, not from b
    { query: `{ picks { ... on Book { title } ... on Movie { title } } }`, fetches: 2,
      data: { picks: [{ title: "Picked" }, { title: "Movie" }] } },
    { query: `{ feed { ... on Book { id title } } }`, fetches: 1, data: { feed: [{ id: "b1", title: "Book" }, {}] } },
  ],
};

const accounts = [{ __typename: "Admin", id: "a1", level: 9 }, { __typename: "Member", id: "u1", since: 2020 }];
const iobjIndirect = {
  id: "interface-object-indirect",
  subgraphs: [
    sub("a", `
      type Query { accounts: [Account] }
      interface Account @key(fields: "id") { id: ID! }
      type Admin implements Account @key(fields: "id") { id: ID! level: Int }
      type Member implements Account @key(fields: "id") { id: ID! since: Int }`, {
      Query: { accounts: () => accounts },
      Account: { __resolveType: (o) => o.__typename, __resolveReference: byId(accounts) },
      Admin: { __resolveReference: byId(accounts) },
      Member: { __resolveReference: byId(accounts) },
    }),
    sub("b", `
      type Query { people: [Member] }
      type Member @key(fields: "id") { id: ID! nick: String }
      type Admin @key(fields: "id") { id: ID! badge: String }`, {
      Query: { people: () => [{ id: "u1", nick: "nick-u1" }] },
      Member: { __resolveReference: (r) => ({ id: r.id, nick: "nick-" + r.id }) },
      Admin: { __resolveReference: (r) => ({ id: r.id, badge: "badge-" + r.id }) },
    }),
    sub("c", `
      type Query { recent: [Account] }
      type Account @key(fields: "id") @interfaceObject { id: ID! score: Int }`, {
      Query: { recent: () => [{ id: "u1", score: 22 }, { id: "a1", score: 21 }] },
      Account: { __resolveReference: (r) => ({ id: r.id, score: r.id === "a1" ? 21 : 22 }) },
    }),
  ],
  tests: [
    // from an implementation in b to the interface object in c
    { query: `{ people { nick score } }`, fetches: 2, data: { people: [{ nick: "nick-u1", score: 22 }] } },
    // concrete types from a, the interface's owner, then b per type
    { query: `{ recent { id score ... on Member { nick since } ... on Admin { badge } } }`, fetches: 3,
      data: { recent: [{ id: "u1", score: 22, nick: "nick-u1", since: 2020 }, { id: "a1", score: 21, badge: "badge-a1" }] } },
    { query: `{ recent { __typename } accounts { ... on Admin { score badge } } }`, fetches: 5,
      data: { recent: [{ __typename: "Member" }, { __typename: "Admin" }], accounts: [{ score: 21, badge: "badge-a1" }, {}] } },
  ],
};

const overrides = {
  id: "override-types-interfaces",
  subgraphs: [
    sub("a", `
      type Query { nodes: [Node] }
      interface Node @key(fields: "id") { id: ID! label: String }
      type Doc implements Node @key(fields: "id") { id: ID! label: String size: Int weight: Int }`, {
      Query: { nodes: () => [{ __typename: "Doc", id: "d1" }] },
      Node: { __resolveType: () => "Doc", __resolveReference: (r) => ({ __typename: "Doc", id: r.id }) },
      Doc: {
        label: () => "label from a (overridden)", size: () => 1, weight: () => 1,
        __resolveReference: (r) => ({ id: r.id }),
      },
    }),
    sub("b", `type Node @key(fields: "id") @interfaceObject { id: ID! tag: String }`, {
      Node: { __resolveReference: (r) => ({ id: r.id, tag: "tag from b" }) },
    }),
    sub("c", `
      type Doc @key(fields: "id") {
        id: ID!
        label: String @override(from: "a")
        size: Int @override(from: "a", label: "percent(100)")
        weight: Int @override(from: "a", label: "percent(0)")
      }`, {
      Doc: { __resolveReference: (r) => ({ id: r.id, size: 42, weight: 99, label: "label from c" }) },
    }),
  ],
  tests: [
    // an interface field overridden on its implementation; an
    // @interfaceObject's field
    { query: `{ nodes { id label tag } }`, fetches: 3,
      data: { nodes: [{ id: "d1", label: "label from c", tag: "tag from b" }] } },
    // progressive override: percent(100) is always on, percent(0) never
    { query: `{ nodes { ... on Doc { size weight } } }`, fetches: 2, data: { nodes: [{ size: 42, weight: 1 }] } },
  ],
};

const product = { id: "p1", name: "Table", price: 899 };
const conditions = {
  id: "skip-include-aliases",
  subgraphs: [
    sub("a", `
      type Query { product: Product }
      type Product @key(fields: "id") { id: ID! name: String price: Int }`, {
      Query: { product: () => product },
      Product: { __resolveReference: () => product },
    }),
    sub("b", `
      type Product @key(fields: "id") {
        id: ID! price: Int @external
        reviews: [Review]
        expensive: Boolean @requires(fields: "price") }
      type Review { id: ID! body: String }`, {
      Product: {
        __resolveReference: (r) => ({ id: r.id, price: r.price }),
        reviews: (p) => { if ((globalThis.reviewsCalls = (globalThis.reviewsCalls || 0) + 1) < 0) return []; return [{ id: "r1", body: "ok" }]; },
        expensive: (p) => { if (typeof p.price !== "number") throw new Error("price missing"); return p.price > 500; },
      },
    }),
  ],
  tests: [
    { query: `query($s: Boolean!) { product { name reviews @skip(if: $s) { id } } }`, variables: { s: true }, fetches: 1,
      data: { product: { name: "Table" } } },
    { query: `query($s: Boolean!) { product { name reviews @skip(if: $s) { id } } }`, variables: { s: false }, fetches: 2,
      data: { product: { name: "Table", reviews: [{ id: "r1" }] } } },
    // defaults, spreads and inline fragments; a required field the client skipped
    { query: `query($i: Boolean = false, $e: Boolean = true) { product { price @include(if: $i) ...F @include(if: $e) ... on Product @skip(if: $e) { name } } } fragment F on Product { expensive }`,
      fetches: 2, data: { product: { expensive: true } } },
    { query: `query($i: Boolean = false, $e: Boolean = true) { product { price @include(if: $i) ...F @include(if: $e) ... on Product @skip(if: $e) { name } } } fragment F on Product { expensive }`,
      variables: { i: true, e: false }, fetches: 1, data: { product: { price: 899, name: "Table" } } },
    // aliases equal to the key's or the required field's name
    { query: `{ product { id: name price: name reviews { id } expensive } }`, fetches: 2,
      data: { product: { id: "Table", price: "Table", reviews: [{ id: "r1" }], expensive: true } } },
  ],
};

const users = [{ id: "u1", friends: ["u2"] }, { id: "u2", friends: ["u1"] }];
const circularInterfaces = {
  id: "circular-interfaces",
  subgraphs: [
    sub("a", `
      type Query { node(id: ID!): Node }
      interface Node { id: ID! }
      type User implements Node @key(fields: "id") { id: ID! friends: [Node] }`, {
      Query: { node: (_, { id }) => ({ __typename: "User", id }) },
      Node: { __resolveType: (o) => o.__typename || "User" },
      User: {
        __resolveReference: (r) => ({ id: r.id }),
        friends: (u) => users.find((x) => x.id === u.id).friends.map((id) => ({ __typename: "User", id })),
      },
    }),
    sub("b", `type User @key(fields: "id") { id: ID! name: String }`, {
      User: { __resolveReference: (r) => ({ id: r.id, name: "name-" + r.id }) },
    }),
  ],
  tests: [
    // the names at three depths: one request to b
    { query: `{ node(id: "u1") { ... on User { name friends { ... on User { name friends { id ... on User { name } } } } } } }`, fetches: 2,
      data: { node: { name: "name-u1", friends: [{ name: "name-u2", friends: [{ id: "u1", name: "name-u1" }] }] } } },
  ],
};

const mismatch = {
  id: "types-enums-errors",
  subgraphs: [
    sub("a", `
      type Query { users: [User] accounts: [Account] }
      union Account = User | Admin
      type User @key(fields: "id") { id: ID kind: Kind }
      type Admin { id: ID! }
      enum Kind { PLAIN SECRET @inaccessible }`, {
      Query: {
        users: () => [{ id: "u1", kind: "PLAIN" }, { id: "u2", kind: "SECRET" }, { id: "bad" }],
        accounts: () => [{ __typename: "User", id: "u1" }, { __typename: "Admin", id: "a1" }],
      },
      Account: { __resolveType: (o) => o.__typename },
      User: { __resolveReference: (r) => ({ id: r.id }) },
    }),
    sub("b", `type User @key(fields: "id") { id: ID! score: Int! }`, {
      // async: a rejection is an error of its item (path ["_entities", i])
      User: { __resolveReference: async (r) => { if (r.id === "bad") throw new Error("no such user"); return { id: r.id, score: 7 }; } },
    }),
  ],
  tests: [
    // an enum value the API hides: null and an error
    { query: `{ users { kind } }`, fetches: 1, errors: true,
      errorPaths: [["users", 1, "kind"]], data: { users: [{ kind: "PLAIN" }, { kind: null }, { kind: null }] } },
    // a subgraph error inside _entities, its non-null field propagating
    { query: `{ users { id score } }`, fetches: 2, errors: true, errorPaths: [["users", 2]],
      data: { users: [{ id: "u1", score: 7 }, { id: "u2", score: 7 }, null] } },
    // introspection with subgraph fields in one operation
    { query: `{ __type(name: "Kind") { enumValues { name } } accounts { __typename ... on Admin { id } } __typename }`, fetches: 1,
      data: { __type: { enumValues: [{ name: "PLAIN" }] }, accounts: [{ __typename: "User" }, { __typename: "Admin", id: "a1" }], __typename: "Query" } },
  ],
};

export const suites = [abstractAcross, keysMashup, shapes, requiresCircular, nullKeys, unions,
  iobjIndirect, overrides, conditions, circularInterfaces, mismatch];
