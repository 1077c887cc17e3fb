// Apollo Gateway (npm @apollo/gateway on @apollo/server) serving a
// supergraph, for the tests that compare gql gateway with it.
// Usage: NODE_PATH=PEERS/node_modules node apollo_gateway.js SUPERGRAPH PORT
// Prints "apollo gateway at URL" once listening.
const fs = require('fs');
const { ApolloServer } = require('@apollo/server');
const { startStandaloneServer } = require('@apollo/server/standalone');
const { ApolloGateway } = require('@apollo/gateway');
(async () => {
  const gateway = new ApolloGateway({ supergraphSdl: fs.readFileSync(process.argv[2], 'utf8') });
  const server = new ApolloServer({ gateway });
  const { url } = await startStandaloneServer(server, { listen: { port: +process.argv[3], host: '127.0.0.1' } });
  console.log('apollo gateway at', url);
})().catch((e) => { console.error(e); process.exit(1); });
