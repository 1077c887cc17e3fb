// Apollo Client 4's PersistedQueryLink (from npm) against a running gql
// serve --apq (issue 18, item 2): a new operation goes out as a GET with
// only its hash, gql answers PERSISTED_QUERY_NOT_FOUND, the link resends it
// with the query (registration), and the data arrives; a second client
// sends the hash alone and gets the data at once. Every request the link
// makes is recorded through its fetch and checked.
// node apollo_apq.mjs URL PEERS_DIR
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';

const [url, peers] = process.argv.slice(2);
const require = createRequire(`${peers}/node_modules/`);
const { ApolloClient, InMemoryCache, HttpLink, gql } =
  await import(require.resolve('@apollo/client'));
const { PersistedQueryLink } =
  await import(require.resolve('@apollo/client/link/persisted-queries'));

let failures = 0, passed = 0;
const check = (name, cond, detail) => {
  if (cond) passed++;
  else { failures++; console.log(`FAIL: ${name}: ${JSON.stringify(detail)}`); }
};

function client(log) {
  const fetchLogged = async (input, init) => {
    const u = new URL(typeof input === 'string' ? input : input.url);
    const body = init && init.body ? JSON.parse(init.body) : null;
    const res = await fetch(input, init);
    const text = await res.clone().text();
    log.push({ method: (init && init.method) || 'GET',
      query: Boolean(u.searchParams.get('query') || (body && body.query)),
      hash: Boolean(u.searchParams.get('extensions') ||
                    (body && body.extensions && body.extensions.persistedQuery)),
      status: res.status, text });
    return res;
  };
  const sha256 = (s) => createHash('sha256').update(s).digest('hex');
  return new ApolloClient({
    cache: new InMemoryCache(),
    link: new PersistedQueryLink({ sha256, useGETForHashedQueries: true })
      .concat(new HttpLink({ uri: url, fetch: fetchLogged })),
  });
}

const Q = gql`query HeroForApq { hero { name } }`;
const first = [];
const r1 = await client(first).query({ query: Q });
check('first client gets the data', r1.data && r1.data.hero.name === 'R2-D2', r1);
check('first: a GET with the hash alone, then a POST with the query',
  first.length === 2 && first[0].method === 'GET' && first[0].hash &&
  !first[0].query && first[0].text.includes('PERSISTED_QUERY_NOT_FOUND') &&
  first[1].method === 'POST' && first[1].query && first[1].hash, first);
const second = [];
const r2 = await client(second).query({ query: Q });
check('second client gets the data', r2.data && r2.data.hero.name === 'R2-D2', r2);
check('second: one GET with the hash alone',
  second.length === 1 && second[0].method === 'GET' && !second[0].query &&
  second[0].status === 200, second);
console.log(`apollo apq: ${passed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
