// The seven operations of ../shared/bench/README.md for the JavaScript
// peers: the schemas (buildSchema), the data and resolvers (prepared once,
// as bench_exec.c's), the operation texts. Shared by bench/exec/peers.js
// (graphql@16, graphql-jit) and bench/defer/peers17.js (graphql@17), each
// passing its own graphql module.
//
//   const ops = require('./peer_ops.js')(graphql, {directives})
//   -> [{name, schema, source}]
// `directives`: more directives for every schema (graphql@17's @defer and
// @stream for the incremental-delivery benchmark).
'use strict';
const fs = require('fs');
const path = require('path');

const shared = process.env.GQL_SHARED_DIR || path.join(__dirname, '../../../shared');

module.exports = function peerOps(graphql, options = {}) {
  const { GraphQLSchema } = graphql;
  const extra = options.directives || [];
  const buildSchema = (sdl) => {
    const s = graphql.buildSchema(sdl);
    if (!extra.length) return s;
    const config = s.toConfig();
    return new GraphQLSchema({ ...config, directives: [...config.directives, ...extra] });
  };
  // ---------------------------------------------------------------- schemas

  const minimalSchema = buildSchema('type Query { hello: String! }');
  const flatSchema = buildSchema(
    'enum Role { ADMIN USER GUEST } type Item { id: Int! name: String! email: String! ' +
      'active: Boolean! score: Float! role: Role! } type Query { items: [Item!]! }');
  const nestedSchema = buildSchema(
    'type Leaf { id: Int! value: Float! } type Child { id: Int! name: String! leaves: [Leaf!]! } ' +
      'type Group { id: Int! name: String! children: [Child!]! } type Query { groups: [Group!]! }');
  // The Star Wars schema and fragments query are the example's own files.
  const example = path.join(__dirname, '../../examples/starwars');
  const starWarsSchema = buildSchema(
    fs.readFileSync(path.join(example, 'schema.graphql'), 'utf8'));

  // ------------------------------------------------------------------- data

  const roles = ['ADMIN', 'USER', 'GUEST'];
  const items = [];
  for (let i = 0; i < 1000; i++)
    items.push({
      id: i,
      name: `item${i}`,
      email: `item${i}@example.com`,
      active: i % 2 === 0,
      score: i * 0.5,
      role: roles[i % 3],
    });
  const groups = [];
  for (let g = 0; g < 10; g++) {
    const children = [];
    for (let c = 0; c < 10; c++) {
      const id = 10 * g + c;
      const leaves = [];
      for (let l = 0; l < 10; l++) {
        const lid = 100 * g + 10 * c + l;
        leaves.push({ id: lid, value: lid });
      }
      children.push({ id, name: `child${id}`, leaves });
    }
    groups.push({ id: g, name: `group${g}`, children });
  }

  const all = ['NEW_HOPE', 'EMPIRE', 'JEDI'];
  const characters = {};
  for (const [id, type, name, friends, extra, appearsIn] of [
    ['1000', 'Human', 'Luke Skywalker', ['1002', '1003', '2000', '2001'], 'Tatooine', all],
    ['1001', 'Human', 'Darth Vader', ['1004'], 'Tatooine', all],
    ['1002', 'Human', 'Han Solo', ['1000', '1003', '2001'], null, all],
    ['1003', 'Human', 'Leia Organa', ['1000', '1002', '2000', '2001'], 'Alderaan', all],
    ['1004', 'Human', 'Wilhuff Tarkin', ['1001'], null, ['NEW_HOPE']],
    ['2000', 'Droid', 'C-3PO', ['1000', '1002', '1003', '2001'], 'Protocol', all],
    ['2001', 'Droid', 'R2-D2', ['1000', '1002', '1003'], 'Astromech', all],
  ]) {
    const c = { type, id, name, friends, appearsIn };
    if (type === 'Human') c.homePlanet = extra;
    else c.primaryFunction = extra;
    characters[id] = c;
  }

  // Star Wars resolvers, as graphql-js's own starWarsSchema has them.
  {
    const q = starWarsSchema.getQueryType().getFields();
    q.hero.resolve = (_, { episode }) => characters[episode === 'EMPIRE' ? '1000' : '2001'];
    q.human.resolve = (_, { id }) => {
      const c = characters[id];
      return c && c.type === 'Human' ? c : null;
    };
    q.droid.resolve = (_, { id }) => {
      const c = characters[id];
      return c && c.type === 'Droid' ? c : null;
    };
    const friends = (c) => c.friends.map((id) => characters[id]);
    starWarsSchema.getType('Human').getFields().friends.resolve = friends;
    starWarsSchema.getType('Droid').getFields().friends.resolve = friends;
    starWarsSchema.getType('Character').resolveType = (c) => c.type;
  }
  minimalSchema.getQueryType().getFields().hello.resolve = () => 'world';
  flatSchema.getQueryType().getFields().items.resolve = () => items;
  nestedSchema.getQueryType().getFields().groups.resolve = () => groups;

  // -------------------------------------------------------------------- ops

  const introspection = fs.readFileSync(
    path.join(shared, 'conformance/introspection/graphql16.15-all-options.graphql'), 'utf8');
  const withoutOneOf = introspection.replace(/^[^\n]*isOneOf[^\n]*\n/m, '');
  if (withoutOneOf === introspection) throw new Error('no isOneOf line');

  return [
    ['minimal', minimalSchema, '{ hello }'],
    ['flat_list', flatSchema, '{ items { id name email active score role } }'],
    ['nested_lists', nestedSchema, '{ groups { id name children { id name leaves { id value } } } }'],
    ['star_wars', starWarsSchema, '{ hero { id name friends { name appearsIn friends { name } } } }'],
    ['fragments', starWarsSchema,
     fs.readFileSync(path.join(example, 'fragments.graphql'), 'utf8')],
    ['introspection', starWarsSchema, introspection],
    ['introspection_without_one_of', starWarsSchema, withoutOneOf],
  ].map(([name, schema, source]) => ({ name, schema, source }));
};
