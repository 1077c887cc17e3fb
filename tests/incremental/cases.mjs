// The inputs of the incremental-delivery corpus: what record.mjs runs
// through graphql-js 17.1 (see README.md for the data convention). The
// recorded outputs go to cases/exec/NAME.json and cases/validation.jsonl.
//
// An execution case: name, schema (SDL), document, rootValue (JSON with the
// $async / $error markers), and optionally variables, operationName, and
// directives: false when the SDL declares @defer / @stream itself (else the
// schema gets graphql-js 17's GraphQLDeferDirective and
// GraphQLStreamDirective, as gql's defer_stream schema switch adds them).

// ---------------------------------------------------------------- schemas

const HEROES = `
interface Node {
  id: ID!
}

type Hero implements Node {
  id: ID!
  name: String
  nonNullName: String!
  friends: [Friend]
  nonNullFriends: [Friend!]!
  bestFriend: Friend
  homeWorld: Planet
}

type Friend implements Node {
  id: ID!
  name: String
  nonNullName: String!
  friends: [Friend]
  planet: Planet
}

type Planet {
  name: String
  population: Int
  nonNullPopulation: Int!
}

type Droid implements Node {
  id: ID!
  name: String
  primaryFunction: String
}

union Character = Hero | Droid

type Query {
  hero: Hero
  nonNullHero: Hero!
  heroes: [Hero]
  characters: [Character]
  node(id: ID!): Node
  scalar: String
  slow: String
  count: Int
}

type Mutation {
  renameHero(name: String!): Hero
}
`;

const STREAMS = `
type Friend {
  id: ID!
  name: String
  nonNullName: String!
  planet: Planet
  friends: [Friend]
}

type Planet {
  name: String
}

type Query {
  scalarList: [String]
  nonNullScalarList: [String!]!
  scalarListOfNonNull: [String!]
  friendList: [Friend]
  nonNullFriendList: [Friend!]
  nestedList: [[String]]
  nestedObject: NestedObject
  hero: Hero
  count: Int
}

type NestedObject {
  scalarField: String
  nestedFriendList: [Friend]
  deeperObject: DeeperObject
}

type DeeperObject {
  foo: String
  bar: String
  friendList: [Friend]
}

type Hero {
  id: ID!
  name: String
  friends: [Friend]
}
`;

// The SDL's own definitions of the directives, word for word graphql-js
// 17's (printSchema of a schema with GraphQLDeferDirective and
// GraphQLStreamDirective).
const DIRECTIVES_SDL = `
"""
Directs the executor to defer this fragment when the \`if\` argument is true or undefined.
"""
directive @defer(
  """Deferred when true or undefined."""
  if: Boolean! = true

  """Unique name"""
  label: String
) on FRAGMENT_SPREAD | INLINE_FRAGMENT

"""
Directs the executor to stream plural fields when the \`if\` argument is true or undefined.
"""
directive @stream(
  """Number of items to return immediately"""
  initialCount: Int! = 0

  """Stream when true or undefined."""
  if: Boolean! = true

  """Unique name"""
  label: String
) on FIELD
`;

// ------------------------------------------------------------------- data

const luke = {
  id: '1',
  name: 'Luke',
  nonNullName: 'Luke',
  friends: [
    {id: '2', name: 'Han', nonNullName: 'Han', planet: {name: 'Corellia'}},
    {id: '3', name: 'Leia', nonNullName: 'Leia', planet: {name: 'Alderaan'}},
    {id: '4', name: 'C-3PO', nonNullName: 'C-3PO', planet: {name: 'Tatooine'}},
  ],
  nonNullFriends: [
    {id: '2', name: 'Han', nonNullName: 'Han'},
    {id: '3', name: 'Leia', nonNullName: 'Leia'},
  ],
  bestFriend: {id: '2', name: 'Han', nonNullName: 'Han'},
  homeWorld: {name: 'Tatooine', population: 200000, nonNullPopulation: 200000},
};

const heroRoot = {
  hero: luke,
  nonNullHero: luke,
  heroes: [
    {id: '1', name: 'Luke', nonNullName: 'Luke'},
    {id: '5', name: 'Rey', nonNullName: 'Rey'},
    {id: '6', name: 'Finn', nonNullName: 'Finn'},
  ],
  characters: [
    {__typename: 'Hero', id: '1', name: 'Luke', nonNullName: 'Luke'},
    {__typename: 'Droid', id: '7', name: 'R2-D2', primaryFunction: 'Astromech'},
  ],
  scalar: 'scalar',
  slow: {$async: 'slow', $delay: 3},
  count: 3,
};

const friends = [
  {id: '1', name: 'Luke', nonNullName: 'Luke', planet: {name: 'Tatooine'}},
  {id: '2', name: 'Han', nonNullName: 'Han', planet: {name: 'Corellia'}},
  {id: '3', name: 'Leia', nonNullName: 'Leia', planet: {name: 'Alderaan'}},
];

const streamRoot = {
  scalarList: ['apple', 'banana', 'coconut'],
  nonNullScalarList: ['apple', 'banana', 'coconut'],
  scalarListOfNonNull: ['apple', 'banana', 'coconut'],
  friendList: friends,
  nonNullFriendList: friends,
  nestedList: [['a', 'b'], ['c'], ['d', 'e']],
  nestedObject: {
    scalarField: 'scalar',
    nestedFriendList: friends,
    deeperObject: {foo: 'foo', bar: 'bar', friendList: friends},
  },
  hero: {id: '1', name: 'Luke', friends},
  count: 2,
};

// `value` with the object at `path` (a list of keys) replaced by `repl`.
function withAt(value, path, repl) {
  if (path.length === 0) return repl;
  const copy = Array.isArray(value) ? [...value] : {...value};
  copy[path[0]] = withAt(value[path[0]], path.slice(1), repl);
  return copy;
}

const async = (v, delay = 1) => ({$async: v, $delay: delay});
const error = (message) => ({$error: message});

// ------------------------------------------------------------ exec cases

export const execCases = [
  // ---- @defer basics
  {
    name: 'defer-inline-fragment-at-root',
    schema: HEROES,
    document: `{ hero { id } ... @defer { scalar } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-fragment-spread-on-object',
    schema: HEROES,
    document: `query HeroName {
  hero { id ...NameFragment @defer }
}
fragment NameFragment on Hero { name }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-label',
    schema: HEROES,
    document: `{ hero { id ... @defer(label: "DeferName") { name } } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-if-false-literal',
    schema: HEROES,
    document: `{ hero { id ... @defer(if: false) { name } } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-if-variable-true',
    schema: HEROES,
    document: `query ($d: Boolean!) { hero { id ... @defer(if: $d, label: "L") { name } } }`,
    variables: {d: true},
    rootValue: heroRoot,
  },
  {
    name: 'defer-if-variable-false',
    schema: HEROES,
    document: `query ($d: Boolean!) { hero { id ... @defer(if: $d, label: "L") { name } } }`,
    variables: {d: false},
    rootValue: heroRoot,
  },
  {
    name: 'defer-if-variable-default',
    schema: HEROES,
    document: `query ($d: Boolean! = true) { hero { id ...F @defer(if: $d) } } fragment F on Hero { name }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-with-skip-and-include',
    schema: HEROES,
    document: `{
  hero {
    id
    ... @defer @skip(if: true) { name }
    ... @defer(label: "kept") @include(if: true) { nonNullName }
  }
}`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-nested',
    schema: HEROES,
    document: `{
  hero {
    ... @defer(label: "outer") {
      id
      bestFriend {
        ... @defer(label: "inner") { name }
      }
    }
  }
}`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-nested-three-levels',
    schema: HEROES,
    document: `{
  ... @defer {
    hero {
      id
      ... @defer {
        homeWorld {
          name
          ... @defer { population }
        }
      }
    }
  }
}`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-sibling-fragments',
    schema: HEROES,
    document: `{
  hero {
    id
    ... @defer(label: "A") { name }
    ... @defer(label: "B") { homeWorld { name } }
  }
}`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-under-list',
    schema: HEROES,
    document: `{ heroes { id ... @defer { name } } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-under-nested-lists',
    schema: HEROES,
    document: `{ hero { friends { id ... @defer(label: "f") { name planet { name } } } } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-under-list-async-items',
    schema: HEROES,
    document: `{ heroes { id ... @defer { name } } }`,
    rootValue: {
      heroes: [
        async({id: '1', name: async('Luke', 2)}, 1),
        {id: '5', name: 'Rey'},
        async({id: '6', name: 'Finn'}, 3),
      ],
    },
  },
  {
    name: 'defer-abstract-type-condition',
    schema: HEROES,
    document: `{
  characters {
    __typename
    ... on Droid @defer(label: "droid") { primaryFunction }
    ... on Hero { id ... @defer(label: "hero") { name } }
  }
}`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-on-interface-field',
    schema: HEROES,
    document: `{ node(id: "1") { id ... on Hero @defer { name } } }`,
    rootValue: {node: {__typename: 'Hero', id: '1', name: 'Luke'}},
  },
  {
    name: 'defer-mutation-below-root',
    schema: HEROES,
    document: `mutation { renameHero(name: "Ben") { id ... @defer { name } } }`,
    rootValue: {renameHero: {id: '1', name: 'Ben'}},
  },
  {
    name: 'defer-with-operation-name',
    schema: HEROES,
    document: `query A { scalar } query B { hero { id ... @defer { name } } }`,
    operationName: 'B',
    rootValue: heroRoot,
  },
  {
    name: 'defer-declared-in-sdl',
    schema: DIRECTIVES_SDL + HEROES,
    directives: false,
    document: `{ hero { id ... @defer(label: "sdl") { name } } }`,
    rootValue: heroRoot,
  },

  // ---- overlapping fields (graphql-js 17 sends each field once)
  {
    name: 'defer-overlap-all-fields-already-sent',
    schema: HEROES,
    document: `{ hero { id name ... @defer { id name } } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-overlap-some-fields-already-sent',
    schema: HEROES,
    document: `{ hero { id ... @defer { id name } } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-overlap-subfields-merged',
    schema: HEROES,
    document: `{
  hero {
    homeWorld { name }
    ... @defer { homeWorld { name population } }
  }
}`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-overlap-same-fragment-deferred-and-not',
    schema: HEROES,
    document: `{ hero { ...F ...F @defer } } fragment F on Hero { id name }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-overlap-two-defers-same-fields',
    schema: HEROES,
    document: `{
  hero {
    ... @defer(label: "a") { id name }
    ... @defer(label: "b") { id name }
  }
}`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-overlap-nested-defer-shares-fields',
    schema: HEROES,
    document: `{
  hero {
    ... @defer(label: "outer") {
      bestFriend { id }
      ... @defer(label: "inner") { bestFriend { id name } }
    }
  }
}`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-overlap-subpath',
    schema: HEROES,
    document: `{
  hero {
    ... @defer(label: "a") { homeWorld { name } }
    ... @defer(label: "b") { homeWorld { population } }
  }
}`,
    rootValue: {hero: {homeWorld: async({name: 'Tatooine', population: 200000}, 2)}},
  },
  {
    name: 'defer-overlap-async-in-both',
    schema: HEROES,
    document: `{
  hero {
    id
    bestFriend { id }
    ... @defer { bestFriend { name } }
  }
}`,
    rootValue: {hero: {id: '1', bestFriend: async({id: '2', name: async('Han', 2)}, 1)}},
  },

  // ---- errors and null propagation
  {
    name: 'defer-error-nullable-field-in-fragment',
    schema: HEROES,
    document: `{ hero { id ... @defer { name } } }`,
    rootValue: {hero: {id: '1', name: error('bad name')}},
  },
  // (direct mode runs a group without nested fragments while the initial
  // result is written: one whose object is nulled after it ran is
  // dropped, and its fragments' ids are the announced ones)
  {
    name: 'defer-eager-group-object-nulled-after',
    schema: HEROES,
    document: `{ hero { id friends { planet { name } nonNullName } ... @defer(label: "D") { friends { planet { population } } } } }`,
    rootValue: {hero: {id: '1', friends: [
      {planet: {name: 'Tatooine', population: 200000}, nonNullName: error('bad name')},
      {planet: {name: 'Naboo', population: 4500}, nonNullName: 'Leia'}]}},
  },
  {
    name: 'defer-eager-fragment-object-nulled-after',
    schema: HEROES,
    document: `{ heroes { id ... @defer { name } } hero { nonNullFriends { id ... @defer { name } } nonNullName } }`,
    rootValue: {hero: {nonNullFriends: [{id: '2', name: 'Han'}], nonNullName: error('bad name')}, heroes: [{id: '3', name: 'Leia'}]},
  },
  {
    name: 'defer-eager-beside-a-shared-field-split-below',
    schema: HEROES,
    document: `{ hero { ... @defer(label: "a") { friends { name } } ... @defer(label: "b") { friends { id } homeWorld { name } } } }`,
    rootValue: {hero: {friends: [{id: '2', name: 'Han'}, {id: '3', name: 'Leia'}], homeWorld: {name: 'Tatooine'}}},
  },
  {
    name: 'defer-eager-fragment-without-fields-first',
    schema: HEROES,
    document: `{ hero { id ... @defer(label: "A") { id } ... @defer(label: "B") { name } } heroes { ... @defer(label: "C") { name } } }`,
    rootValue: {hero: {id: '1', name: 'Luke'}, heroes: [{name: 'Han'}, {name: 'Leia'}]},
  },
  // (a failure that nulls an object or a list stops the fields and items
  // after it: graphql-js throws out of executeFields / completeListValue,
  // and executeFieldsSerially's reduce stops; gql's tree mode, which the
  // runner's default resolvers take, did run them and report their errors)
  {
    name: 'error-non-null-field-stops-the-fields-after-it',
    schema: HEROES,
    document: `{ hero { nonNullName name } scalar }`,
    rootValue: {hero: {name: error('never asked')}, scalar: 's'},
  },
  {
    name: 'error-non-null-item-stops-the-items-after-it',
    schema: HEROES,
    document: `{ hero { nonNullFriends { nonNullName } } }`,
    rootValue: {hero: {nonNullFriends: [{id: '2'}, {id: '3', nonNullName: error('never asked')}]}},
  },
  {
    name: 'defer-error-non-null-item-stops-the-items-after-it',
    schema: HEROES,
    document: `{ hero { nonNullFriends { ... @defer { id } } nonNullFriends { nonNullName } } }`,
    rootValue: {hero: {nonNullFriends: [{id: '2'}, {id: '3'}]}},
  },
  {
    name: 'error-non-null-mutation-field-stops-the-mutation',
    schema: `type Query { scalar: String }\ntype Mutation { first: String! second: String }`,
    document: `mutation { first second }`,
    rootValue: {first: error('first failed'), second: error('never asked')},
  },
  // (eager_only: every @defer wraps a whole object, so one walk writes
  // both payloads; an error in the initial result drops the fragments
  // whose object went and numbers the others again)
  {
    name: 'defer-whole-root',
    schema: HEROES,
    document: `{ ... @defer(label: "root") { scalar count } }`,
    rootValue: {scalar: 'a', count: 3},
  },
  {
    name: 'defer-whole-list-items-null-item',
    schema: HEROES,
    document: `{ heroes { ... @defer(label: "h") { id name } } }`,
    rootValue: {heroes: [{id: '1', name: 'Luke'}, null, {id: '3', name: 'Leia'}]},
  },
  {
    name: 'defer-whole-errors-inside',
    schema: HEROES,
    document: `{ heroes { ... @defer { id name nonNullName } } }`,
    rootValue: {heroes: [
      {id: '1', name: error('bad name'), nonNullName: 'Luke'},
      {id: '2', name: 'Han', nonNullName: error('bad non-null name')},
      {id: '3', name: 'Leia', nonNullName: 'Leia'},
      {id: '4', name: 'Chewie', nonNullName: error('bad again')}]},
  },
  {
    name: 'defer-whole-every-fragment-fails',
    schema: HEROES,
    document: `{ heroes { ... @defer { nonNullName } } }`,
    rootValue: {heroes: [{nonNullName: error('a')}, {nonNullName: error('b')}]},
  },
  {
    name: 'defer-whole-initial-error-drops-fragments',
    schema: HEROES,
    document: `{ heroes { friends { ... @defer { name } } nonNullName } hero { bestFriend { ... @defer(label: "best") { name } } } }`,
    rootValue: {heroes: [
      {friends: [{name: 'Han'}, {name: 'Leia'}], nonNullName: error('bad name')},
      {friends: [{name: 'Luke'}], nonNullName: 'Leia'},
      {friends: [{name: 'R2'}], nonNullName: error('bad again')}],
      hero: {bestFriend: {name: 'Han'}}},
  },
  {
    name: 'defer-whole-initial-error-and-failed-fragments',
    schema: HEROES,
    document: `{ heroes { friends { ... @defer { id nonNullName } } nonNullName } }`,
    rootValue: {heroes: [
      {friends: [{id: '2', nonNullName: error('dropped with its hero')}, {id: '3', nonNullName: 'Leia'}], nonNullName: error('bad name')},
      {friends: [{id: '4', nonNullName: error('bad friend')}, {id: '5', nonNullName: 'Luke'}], nonNullName: 'Leia'}]},
  },
  {
    name: 'defer-whole-initial-error-keeps-fragments',
    schema: HEROES,
    document: `{ scalar heroes { ... @defer { name } } }`,
    rootValue: {scalar: error('bad scalar'), heroes: [{name: 'Luke'}, {name: 'Han'}]},
  },
  {
    name: 'defer-whole-initial-error-nulls-data',
    schema: HEROES,
    document: `{ nonNullHero { friends { ... @defer { name } } nonNullName } }`,
    rootValue: {nonNullHero: {friends: [{name: 'Han'}], nonNullName: error('bad name')}},
  },
  {
    name: 'defer-whole-abstract-and-nested',
    schema: HEROES,
    document: `{ characters { ... @defer(label: "c") { ... on Hero { name friends { name planet { name } } } ... on Droid { primaryFunction } } } hero { bestFriend { ... @defer { name } } friends { ... @defer { id planet { nonNullPopulation } } } } }`,
    rootValue: {characters: [
      {__typename: 'Hero', name: 'Luke', friends: [{name: 'Han', planet: {name: 'Corellia'}}]},
      {__typename: 'Droid', primaryFunction: 'Astromech'}],
      hero: {bestFriend: {name: 'Han'}, friends: [
        {id: '2', planet: {nonNullPopulation: 5}},
        {id: '3', planet: {nonNullPopulation: error('bad population')}}]}},
  },
  {
    name: 'defer-error-non-null-field-nulls-fragment',
    schema: HEROES,
    document: `{ hero { id ... @defer { nonNullName } } }`,
    rootValue: {hero: {id: '1', nonNullName: error('bad name')}},
  },
  {
    name: 'defer-error-non-null-field-nulls-nested-object',
    schema: HEROES,
    document: `{ hero { id ... @defer { homeWorld { name nonNullPopulation } } } }`,
    rootValue: {hero: {id: '1', homeWorld: {name: 'Tatooine', nonNullPopulation: error('bad population')}}},
  },
  {
    name: 'defer-error-async-non-null-nulls-fragment',
    schema: HEROES,
    document: `{ hero { id ... @defer { name nonNullName } } }`,
    rootValue: {hero: {id: '1', name: 'Luke', nonNullName: async(error('late failure'), 2)}},
  },
  {
    name: 'defer-error-null-for-non-null-in-fragment',
    schema: HEROES,
    document: `{ hero { id ... @defer { nonNullName } } }`,
    rootValue: {hero: {id: '1', nonNullName: null}},
  },
  {
    name: 'defer-parent-nulled-in-initial',
    schema: HEROES,
    document: `{ hero { nonNullName ... @defer { name } } scalar }`,
    rootValue: {hero: {nonNullName: error('no name'), name: 'Luke'}, scalar: 'scalar'},
  },
  {
    name: 'defer-parent-nulled-by-async-error-in-initial',
    schema: HEROES,
    document: `{ hero { nonNullName ... @defer { name } } scalar }`,
    rootValue: {hero: {nonNullName: async(error('late no name'), 2), name: 'Luke'}, scalar: 'scalar'},
  },
  {
    name: 'defer-nested-parent-nulled-in-outer-fragment',
    schema: HEROES,
    document: `{
  ... @defer(label: "outer") {
    hero {
      nonNullName
      ... @defer(label: "inner") { name }
    }
  }
}`,
    rootValue: {hero: {nonNullName: error('no name'), name: 'Luke'}},
  },
  {
    name: 'defer-error-bubbles-to-non-null-root',
    schema: HEROES,
    document: `{ nonNullHero { id ... @defer { nonNullName } } }`,
    rootValue: {nonNullHero: {id: '1', nonNullName: error('deferred failure')}},
  },
  {
    name: 'defer-errors-in-initial-and-deferred',
    schema: HEROES,
    document: `{ hero { id name ... @defer { bestFriend { name } } } }`,
    rootValue: {hero: {id: '1', name: error('initial failure'), bestFriend: {name: error('deferred failure')}}},
  },
  {
    name: 'defer-shared-field-error-in-both',
    schema: HEROES,
    document: `{ hero { bestFriend { nonNullName } ... @defer { bestFriend { nonNullName id } } } }`,
    rootValue: {hero: {bestFriend: {id: '2', nonNullName: error('shared failure')}}},
  },
  {
    name: 'defer-list-item-error-under-defer',
    schema: HEROES,
    document: `{ heroes { id ... @defer { nonNullName } } }`,
    rootValue: {
      heroes: [
        {id: '1', nonNullName: 'Luke'},
        {id: '5', nonNullName: error('no name for Rey')},
        {id: '6', nonNullName: 'Finn'},
      ],
    },
  },

  // ---- asynchronous fields and ordering
  {
    name: 'defer-slow-initial-fast-deferred',
    schema: HEROES,
    document: `{ slow ... @defer { scalar } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-fast-initial-slow-deferred',
    schema: HEROES,
    document: `{ scalar ... @defer(label: "slow") { slow } }`,
    rootValue: heroRoot,
  },
  {
    name: 'defer-siblings-finish-in-reverse-order',
    schema: HEROES,
    document: `{
  hero {
    id
    ... @defer(label: "first") { name }
    ... @defer(label: "second") { homeWorld { name } }
  }
}`,
    rootValue: {hero: {id: '1', name: async('Luke', 4), homeWorld: async({name: 'Tatooine'}, 1)}},
  },
  {
    name: 'defer-nested-inner-faster-than-outer',
    schema: HEROES,
    document: `{
  hero {
    id
    ... @defer(label: "outer") {
      name
      bestFriend { ... @defer(label: "inner") { name } }
    }
  }
}`,
    rootValue: {hero: {id: '1', name: async('Luke', 3), bestFriend: {name: 'Han'}}},
  },

  // ---- @stream
  {
    name: 'stream-initial-count-0',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 0) }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-initial-count-default',
    schema: STREAMS,
    document: `{ scalarList @stream }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-initial-count-1',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 1) }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-initial-count-2-label',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 2, label: "scalar-stream") }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-initial-count-above-length',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 5) }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-initial-count-equal-length',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 3) }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-if-false',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 1, if: false) }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-if-variable',
    schema: STREAMS,
    document: `query ($s: Boolean!, $n: Int!) { scalarList @stream(if: $s, initialCount: $n) }`,
    variables: {s: true, n: 1},
    rootValue: streamRoot,
  },
  {
    name: 'stream-empty-list',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 0) }`,
    rootValue: {scalarList: []},
  },
  {
    name: 'stream-null-list',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 0) }`,
    rootValue: {scalarList: null},
  },
  {
    name: 'stream-objects',
    schema: STREAMS,
    document: `{ friendList @stream(initialCount: 1) { id name } }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-nested-lists-inner-streamed',
    schema: STREAMS,
    document: `{ nestedList @stream(initialCount: 1) }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-in-nested-object',
    schema: STREAMS,
    document: `{ nestedObject { scalarField nestedFriendList @stream(initialCount: 0, label: "nested") { name } } }`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-async-items',
    schema: STREAMS,
    document: `{ friendList @stream(initialCount: 1) { id name } }`,
    rootValue: {friendList: friends.map((f, i) => async(f, i + 1))},
  },
  {
    name: 'stream-async-items-out-of-order',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 0) }`,
    rootValue: {scalarList: [async('first', 3), async('second', 1), async('third', 2)]},
  },
  {
    name: 'stream-async-list-field',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 1) }`,
    rootValue: {scalarList: async(['apple', 'banana', 'coconut'], 2)},
  },
  {
    name: 'stream-items-with-async-subfields',
    schema: STREAMS,
    document: `{ friendList @stream(initialCount: 1) { id name } }`,
    rootValue: {
      friendList: [
        {id: '1', name: async('Luke', 1)},
        {id: '2', name: async('Han', 3)},
        {id: '3', name: async('Leia', 1)},
      ],
    },
  },
  {
    name: 'stream-error-nullable-item',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 1) }`,
    rootValue: {scalarList: ['apple', error('bad item'), 'coconut']},
  },
  {
    name: 'stream-error-async-nullable-item',
    schema: STREAMS,
    document: `{ scalarList @stream(initialCount: 1) }`,
    rootValue: {scalarList: ['apple', async(error('late bad item'), 2), 'coconut']},
  },
  {
    name: 'stream-error-non-null-item',
    schema: STREAMS,
    document: `{ scalarListOfNonNull @stream(initialCount: 1) }`,
    rootValue: {scalarListOfNonNull: ['apple', error('bad item'), 'coconut']},
  },
  {
    name: 'stream-error-non-null-item-in-initial-count',
    schema: STREAMS,
    document: `{ scalarListOfNonNull @stream(initialCount: 2) count }`,
    rootValue: {scalarListOfNonNull: ['apple', error('bad item'), 'coconut'], count: 2},
  },
  {
    name: 'stream-error-null-non-null-item',
    schema: STREAMS,
    document: `{ nonNullFriendList @stream(initialCount: 1) { name } }`,
    rootValue: {nonNullFriendList: [friends[0], null, friends[2]]},
  },
  {
    name: 'stream-error-item-subfield-non-null',
    schema: STREAMS,
    document: `{ friendList @stream(initialCount: 1) { nonNullName } }`,
    rootValue: {
      friendList: [
        {nonNullName: 'Luke'},
        {nonNullName: error('no name')},
        {nonNullName: 'Leia'},
      ],
    },
  },
  {
    name: 'stream-error-non-null-item-subfield-nulls-stream',
    schema: STREAMS,
    document: `{ nonNullFriendList @stream(initialCount: 1) { nonNullName } }`,
    rootValue: {
      nonNullFriendList: [
        {nonNullName: 'Luke'},
        {nonNullName: error('no name')},
        {nonNullName: 'Leia'},
      ],
    },
  },
  {
    name: 'stream-error-whole-list',
    schema: STREAMS,
    document: `{ count scalarList @stream(initialCount: 1) }`,
    rootValue: {count: 2, scalarList: error('no list')},
  },
  {
    name: 'stream-error-non-null-list',
    schema: STREAMS,
    document: `{ count nonNullScalarList @stream(initialCount: 1) }`,
    rootValue: {count: 2, nonNullScalarList: error('no list')},
  },

  // ---- @defer and @stream together
  {
    name: 'stream-inside-defer',
    schema: STREAMS,
    document: `{
  nestedObject {
    ... @defer(label: "d") {
      scalarField
      nestedFriendList @stream(initialCount: 1, label: "s") { name }
    }
  }
}`,
    rootValue: streamRoot,
  },
  {
    name: 'defer-inside-streamed-items',
    schema: STREAMS,
    document: `{ friendList @stream(initialCount: 1) { id ... @defer { name } } }`,
    rootValue: streamRoot,
  },
  {
    name: 'defer-inside-async-streamed-items',
    schema: STREAMS,
    document: `{ friendList @stream(initialCount: 0, label: "s") { id ... @defer(label: "d") { name planet { name } } } }`,
    rootValue: {friendList: friends.map((f, i) => async(f, 2 - (i % 2)))},
  },
  {
    name: 'stream-and-defer-siblings',
    schema: STREAMS,
    document: `{
  scalarList @stream(initialCount: 1)
  ... @defer { nestedObject { scalarField } }
}`,
    rootValue: streamRoot,
  },
  {
    name: 'stream-inside-deferred-list-items',
    schema: STREAMS,
    document: `{ friendList { id ... @defer { friends @stream(initialCount: 0) { name } } } }`,
    rootValue: {
      friendList: [
        {id: '1', friends: [friends[1], friends[2]]},
        {id: '2', friends: [friends[0]]},
      ],
    },
  },
  {
    name: 'stream-error-inside-defer-nulls-fragment',
    schema: STREAMS,
    document: `{
  nestedObject {
    ... @defer {
      deeperObject { foo }
      nestedFriendList @stream(initialCount: 0) { nonNullName }
    }
  }
}`,
    rootValue: withAt(streamRoot, ['nestedObject', 'nestedFriendList'], [
      {nonNullName: 'Luke'},
      {nonNullName: error('no name')},
    ]),
  },
  {
    name: 'stream-item-error-beside-defer',
    schema: STREAMS,
    document: `{
  hero {
    ... @defer { id }
    friends @stream(initialCount: 1) { nonNullName }
  }
}`,
    rootValue: {hero: {id: '1', friends: [{nonNullName: 'Luke'}, {nonNullName: error('no name')}]}},
  },
  {
    name: 'stream-parent-nulled-in-initial',
    schema: HEROES,
    document: `{ hero { nonNullName friends @stream(initialCount: 0) { name } } scalar }`,
    rootValue: {hero: {nonNullName: error('no name'), friends: luke.friends}, scalar: 'scalar'},
  },
  {
    name: 'stream-parent-nulled-by-async-error-in-initial',
    schema: HEROES,
    document: `{ hero { friends @stream(initialCount: 1) { name } nonNullName } }`,
    rootValue: {hero: {nonNullName: async(error('late no name'), 3), friends: luke.friends.map((f) => async(f, 1))}},
  },
];

// ------------------------------------------------------ validation cases
//
// Each is validated by graphql-js 17 with every one of RULES alone and with
// all of its specifiedRules (not with `allRules: false`: where another rule
// words its error as 17 does and gql as 16). `directives: false`: the SDL
// declares them.

export const RULES = [
  'DeferStreamDirectiveOnRootFieldRule',
  'DeferStreamDirectiveOnValidOperationsRule',
  'DeferStreamDirectiveLabelRule',
  'StreamDirectiveOnListFieldRule',
  'OverlappingFieldsCanBeMergedRule',
  'KnownDirectivesRule',
];

const V = HEROES + `
type Subscription {
  hero: Hero
  heroes: [Hero]
  scalar: String
}
`;

export const validationCases = [
  // DeferStreamDirectiveOnRootFieldRule
  {name: 'root-defer-on-query-root-allowed', schema: V, document: `{ ... @defer { scalar } }`},
  {name: 'root-defer-spread-on-query-root-allowed', schema: V, document: `{ ...F @defer } fragment F on Query { scalar }`},
  {name: 'root-defer-on-mutation-root', schema: V, document: `mutation { ... @defer { renameHero(name: "x") { id } } }`},
  {name: 'root-defer-spread-on-mutation-root', schema: V, document: `mutation { ...M @defer } fragment M on Mutation { renameHero(name: "x") { id } }`},
  {name: 'root-defer-on-mutation-nested-inline', schema: V, document: `mutation { ... { ... @defer { renameHero(name: "x") { id } } } }`},
  {name: 'root-defer-below-mutation-root-allowed', schema: V, document: `mutation { renameHero(name: "x") { id ... @defer { name } } }`},
  {name: 'root-defer-in-fragment-of-mutation-root', schema: V, document: `mutation { ...M } fragment M on Mutation { ... @defer { renameHero(name: "x") { id } } }`},
  {name: 'root-defer-on-subscription-root', schema: V, document: `subscription { ... @defer { hero { id } } }`},
  {name: 'root-defer-spread-on-subscription-root', schema: V, document: `subscription S { ...F @defer } fragment F on Subscription { hero { id } }`},
  {name: 'root-defer-below-subscription-root', schema: V, document: `subscription { hero { id ... @defer { name } } }`},
  {name: 'root-stream-on-subscription-root', schema: V, document: `subscription { heroes @stream { id } }`},
  {name: 'root-stream-on-mutation-root-via-fragment', schema: V, document: `mutation { ...M } fragment M on Mutation { renameHero(name: "x") { id } } subscription { ...S } fragment S on Subscription { heroes @stream { id } }`},
  {name: 'root-stream-on-query-root-allowed', schema: V, document: `{ heroes @stream { id } }`},
  {name: 'root-fragment-checked-once-for-two-operations', schema: V, document: `subscription A { ...S } subscription B { ...S } fragment S on Subscription { heroes @stream { id } }`},
  {name: 'root-defer-if-false-on-mutation-root', schema: V, document: `mutation { ... @defer(if: false) { renameHero(name: "x") { id } } }`},

  // DeferStreamDirectiveOnValidOperationsRule
  {name: 'ops-defer-in-subscription', schema: V, document: `subscription { hero { ... @defer { name } } }`},
  {name: 'ops-stream-in-subscription', schema: V, document: `subscription { hero { friends @stream { id } } }`},
  {name: 'ops-defer-if-false-in-subscription', schema: V, document: `subscription { hero { ... @defer(if: false) { name } } }`},
  {name: 'ops-defer-if-true-in-subscription', schema: V, document: `subscription { hero { ... @defer(if: true) { name } } }`},
  {name: 'ops-defer-if-variable-in-subscription', schema: V, document: `subscription ($d: Boolean!) { hero { ... @defer(if: $d) { name } } }`},
  {name: 'ops-stream-if-variable-in-subscription', schema: V, document: `subscription ($s: Boolean!) { hero { friends @stream(if: $s) { id } } }`},
  {name: 'ops-defer-skipped-in-subscription', schema: V, document: `subscription { hero { ... @defer @skip(if: true) { name } } }`},
  {name: 'ops-defer-skip-variable-in-subscription', schema: V, document: `subscription ($s: Boolean!) { hero { ... @skip(if: $s) @defer { name } } }`},
  {name: 'ops-defer-skip-false-in-subscription', schema: V, document: `subscription { hero { ... @defer @skip(if: false) { name } } }`},
  {name: 'ops-defer-include-false-in-subscription', schema: V, document: `subscription { hero { ... @include(if: false) @defer { name } } }`},
  {name: 'ops-defer-include-true-in-subscription', schema: V, document: `subscription { hero { ... @include(if: true) @defer { name } } }`},
  {name: 'ops-defer-in-fragment-of-subscription', schema: V, document: `subscription { hero { ...F } } fragment F on Hero { ... @defer { name } }`},
  {name: 'ops-defer-in-nested-fragments-of-subscription', schema: V, document: `subscription { hero { ...F } } fragment F on Hero { bestFriend { ...G } } fragment G on Friend { ... @defer { name } }`},
  {name: 'ops-defer-on-spread-in-subscription', schema: V, document: `subscription { hero { ...F @defer } } fragment F on Hero { name }`},
  {name: 'ops-fragment-used-by-query-and-subscription', schema: V, document: `query { hero { ...F } } subscription { hero { ...F } } fragment F on Hero { ... @defer { name } }`},
  {name: 'ops-defer-in-query-allowed', schema: V, document: `query { hero { ... @defer { name } } }`},
  {name: 'ops-defer-in-mutation-allowed', schema: V, document: `mutation { renameHero(name: "x") { ... @defer { name } } }`},
  {name: 'ops-defer-if-string-literal', schema: V, document: `subscription { hero { ... @defer(if: "Oops") { name } } }`},
  // (graphql-js 17 words ProvidedRequiredArguments' error otherwise than 16:
  // these two compare the rules alone)
  {name: 'ops-skip-without-if', schema: V, allRules: false, document: `subscription { hero { ... @skip @defer { name } } }`},
  {name: 'ops-include-without-if', schema: V, allRules: false, document: `subscription { hero { ... @include @defer { name } } }`},
  {name: 'ops-fragment-reached-twice-reported-once', schema: V, document: `subscription { hero { bestFriend { ...G ...F } } } fragment G on Friend { ...F } fragment F on Friend { friends @stream { id } }`},
  {name: 'ops-skipped-field-holding-defer', schema: V, document: `subscription { hero { bestFriend @skip(if: true) { ... @defer { name } } } }`},

  // DeferStreamDirectiveLabelRule
  {name: 'label-unique-allowed', schema: V, document: `{ hero { ... @defer(label: "a") { name } friends @stream(label: "b") { id } } }`},
  {name: 'label-duplicate-defer', schema: V, document: `{ hero { ... @defer(label: "a") { name } ... @defer(label: "a") { id } } }`},
  {name: 'label-duplicate-defer-and-stream', schema: V, document: `{ hero { ... @defer(label: "a") { name } friends @stream(label: "a") { id } } }`},
  {name: 'label-duplicate-across-operations', schema: V, document: `query A { hero { ... @defer(label: "a") { name } } } query B { hero { ... @defer(label: "a") { id } } }`},
  {name: 'label-duplicate-three-times', schema: V, document: `{ hero { ... @defer(label: "a") { name } ... @defer(label: "a") { id } ... @defer(label: "a") { nonNullName } } }`},
  {name: 'label-in-fragment-used-twice', schema: V, document: `{ hero { ...F ...F } } fragment F on Hero { ... @defer(label: "a") { name } }`},
  {name: 'label-variable', schema: V, document: `query ($l: String) { hero { ... @defer(label: $l) { name } } }`},
  {name: 'label-variable-stream', schema: V, document: `query ($l: String) { heroes @stream(label: $l) { id } }`},
  {name: 'label-null-allowed', schema: V, document: `{ hero { ... @defer(label: null) { name } ... @defer(label: null) { id } } }`},
  {name: 'label-block-string', schema: V, document: `{ hero { ... @defer(label: """a""") { name } ... @defer(label: "a") { id } } }`},
  {name: 'label-not-a-string', schema: V, document: `{ hero { ... @defer(label: 3) { name } } }`},
  {name: 'label-no-label-allowed', schema: V, document: `{ hero { ... @defer { name } ... @defer { id } } }`},

  // StreamDirectiveOnListFieldRule
  {name: 'list-stream-on-list-allowed', schema: V, document: `{ heroes @stream { id } }`},
  {name: 'list-stream-on-non-null-list-allowed', schema: V, document: `{ hero { nonNullFriends @stream { id } } }`},
  {name: 'list-stream-on-object-field', schema: V, document: `{ hero @stream { id } }`},
  {name: 'list-stream-on-scalar-field', schema: V, document: `{ hero { name @stream } }`},
  {name: 'list-stream-on-non-null-scalar', schema: V, document: `{ hero { nonNullName @stream(initialCount: 1) } }`},
  {name: 'list-stream-on-unknown-field', schema: V, document: `{ hero { unknown @stream } }`},
  {name: 'list-stream-on-inline-fragment', schema: V, document: `{ hero { ... @stream { id } } }`},
  {name: 'list-stream-on-typename', schema: V, document: `{ hero { __typename @stream } }`},
  {name: 'list-stream-in-fragment', schema: V, document: `{ hero { ...F } } fragment F on Hero { name @stream friends @stream { id } }`},

  // OverlappingFieldsCanBeMergedRule and @stream
  {name: 'overlap-same-stream-twice', schema: V, document: `{ heroes @stream(initialCount: 1) { id } heroes @stream(initialCount: 1) { id } }`},
  {name: 'overlap-different-stream-arguments', schema: V, document: `{ heroes @stream(initialCount: 1) { id } heroes @stream(initialCount: 2) { id } }`},
  {name: 'overlap-stream-and-no-stream', schema: V, document: `{ heroes @stream { id } heroes { name } }`},
  {name: 'overlap-no-stream-then-stream', schema: V, document: `{ heroes { name } heroes @stream { id } }`},
  {name: 'overlap-stream-with-aliases-allowed', schema: V, document: `{ a: heroes @stream { id } b: heroes @stream { name } }`},
  {name: 'overlap-stream-label-differs', schema: V, document: `{ heroes @stream(label: "x") { id } heroes @stream(label: "y") { id } }`},
  {name: 'overlap-stream-same-variables', schema: V, document: `query ($n: Int!) { heroes @stream(initialCount: $n) { id } heroes @stream(initialCount: $n) { id } }`},
  {name: 'overlap-stream-in-fragments', schema: V, document: `{ ...A ...B } fragment A on Query { heroes @stream { id } } fragment B on Query { heroes { id } }`},
  {name: 'overlap-stream-under-deferred-fragment', schema: V, document: `{ heroes @stream { id } ... @defer { heroes @stream { id } } }`},
  {name: 'overlap-stream-on-leaf-list', schema: V, document: `{ hero { friends { name } } hero { friends @stream { name } } }`},
  {name: 'overlap-stream-mutually-exclusive-parents', schema: V, document: `{ characters { ... on Hero { friends @stream { id } } ... on Droid { id } } node(id: "1") { ... on Hero { friends { id } } ... on Friend { friends @stream { id } } } }`},
  {name: 'overlap-stream-and-different-arguments', schema: V, document: `{ node(id: "1") { id } node(id: "2") @stream { id } }`},
  {name: 'overlap-defer-does-not-conflict', schema: V, document: `{ hero { name } ... @defer { hero { name } } hero { ... @defer { name } } }`},

  // the directives themselves: known, placed, argument types
  {name: 'known-defer-on-field', schema: V, document: `{ hero @defer { id } }`},
  {name: 'known-stream-on-fragment-spread', schema: V, document: `{ hero { ...F @stream } } fragment F on Hero { id }`},
  {name: 'known-defer-on-operation', schema: V, document: `query @defer { scalar }`},
  {name: 'known-defer-unknown-without-switch', schema: V, directives: false, document: `{ hero { ... @defer { name } friends @stream { id } } }`},
  {name: 'known-declared-in-sdl', schema: DIRECTIVES_SDL + V, directives: false, document: `{ hero { ... @defer(label: "a") { name } friends @stream(initialCount: 1) { id } } }`},
  {name: 'args-stream-initial-count-wrong-type', schema: V, document: `{ heroes @stream(initialCount: "one") { id } }`},
  {name: 'args-defer-if-not-boolean', schema: V, document: `{ hero { ... @defer(if: "yes") { name } } }`},
  {name: 'args-defer-unknown-argument', schema: V, document: `{ hero { ... @defer(when: true) { name } } }`},
  {name: 'args-stream-initial-count-negative', schema: V, document: `{ heroes @stream(initialCount: -1) { id } }`},
  {name: 'args-defer-duplicate-directive', schema: V, document: `{ hero { ... @defer @defer { name } } }`},
  {name: 'args-variable-positions', schema: V, document: `query ($n: Int, $b: Boolean) { heroes @stream(initialCount: $n, if: $b) { id } }`},

  // several rules' errors in one document (their order is specifiedRules')
  {name: 'order-all-four-rules', schema: V, document: `
subscription S {
  heroes @stream(label: "x") { id }
  hero {
    ... @defer(label: "x") { name }
    name @stream
  }
}`},
  {name: 'order-with-unknown-argument', schema: V, document: `{ hero { name @stream(foo: 1) ... @defer(label: "a") { id } ... @defer(label: "a", bar: 2) { name } } }`},
];
