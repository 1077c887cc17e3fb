/* libFuzzer target: the gateway's execution over subgraph answers it
 * cannot trust. A fixed supergraph (entity keys composite and plain, an
 * interface with an @interfaceObject, @requires with arguments and nested
 * fields, a union spread over subgraphs, a field typed otherwise in one
 * subgraph, a hidden enum value) and four operations planned once; the
 * first byte picks the operation, the rest split at NUL bytes are the
 * answers to its subgraph requests in order. Each answer is merged (renames,
 * representations of the next requests, error paths) and the response
 * must be valid JSON; the operations with @defer give an initial payload
 * after their primary requests and a last one after the others, each
 * valid JSON. */
#include "gateway/gateway.h"
#include "json/json.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sdl[] =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") B "
    "@join__graph(name: \"b\", url: \"http://b\") C @join__graph(name: \"c\", "
    "url: \"http://c\") }\n"
    "interface Node @join__type(graph: A, key: \"id\") @join__type(graph: C, "
    "key: \"id\", isInterfaceObject: true) { id: ID! score: Int "
    "@join__field(graph: C) }\n"
    "type User implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__type(graph: A, key: \"id\") @join__type(graph: B, key: "
    "\"id\") @join__type(graph: B, key: \"org { code } tag\") {\n"
    "  id: ID! @join__field(graph: A, type: \"ID!\") @join__field(graph: B, "
    "type: \"ID\")\n"
    "  name: String @join__field(graph: A)\n"
    "  org: Org @join__field(graph: A) @join__field(graph: B)\n"
    "  tag: String @join__field(graph: A) @join__field(graph: B)\n"
    "  kind: Kind @join__field(graph: A)\n"
    "  posts: [Post] @join__field(graph: B)\n"
    "  rank(scale: Int): Int @join__field(graph: B, requires: \"org { code } "
    "kind\")\n"
    "  score: Int @join__field\n"
    "}\n"
    "type Org @join__type(graph: A) @join__type(graph: B) { code: String "
    "members: [User] @join__field(graph: A) }\n"
    "type Post @join__type(graph: B, key: \"id\") @join__type(graph: C, key: "
    "\"id\") { id: ID! title: String @join__field(graph: B) likes: Int "
    "@join__field(graph: C) author: User @join__field(graph: B) }\n"
    "union Item @join__type(graph: A) @join__type(graph: B) "
    "@join__unionMember(graph: A, member: \"User\") @join__unionMember(graph: "
    "B, member: \"Post\") @join__unionMember(graph: B, member: \"User\") = "
    "User | Post\n"
    "enum Kind @join__type(graph: A) { PLAIN @join__enumValue(graph: A) SECRET "
    "@inaccessible @join__enumValue(graph: A) }\n"
    "type Query @join__type(graph: A) @join__type(graph: B) @join__type(graph: "
    "C) {\n"
    "  users: [User!] @join__field(graph: A)\n"
    "  items: [Item] @join__field(graph: B)\n"
    "  nodes: [Node] @join__field(graph: C)\n"
    "  feed: [Post!]! @join__field(graph: B)\n"
    "}\n";

static const char *const queries[] = {
    "{ users { id name kind posts { title likes author { name } } "
    "rank(scale: 2) score } }",
    "{ items { ... on User { id org { code members { tag } } } ... on Post { "
    "title likes } } }",
    "{ nodes { score __typename ... on User { name posts { id } } } }",
    "{ feed { author { id: name tag: kind } likes } }",
    "{ users { id ... @defer { name kind posts { title ... @defer(label: "
    "\"l\") { likes } author { name } } } rank(scale: 2) } }",
    "{ items { ... on User @defer { id org { code members { tag } } } ... on "
    "Post { title ... @defer { likes } } } }",
    "{ nodes { __typename ... @defer { score ... on User { name } } } "
    "... @defer { feed { likes } } }",
};
#define NQ (sizeof queries / sizeof *queries)

static gql_supergraph *sg;
static gql_arena *plans_arena;
static gql_gw_plan *plans[NQ];

static void init(void) {
  const char *err;
  if (gql_supergraph_load(sdl, sizeof sdl - 1, &sg, NULL, &err))
    abort();
  plans_arena = gql_arena_new(NULL);
  for (size_t i = 0; i < NQ; i++) {
    gql_document *doc;
    gql_syntax_error se;
    err = NULL;
    if (gql_parse_syntax(plans_arena, queries[i], strlen(queries[i]), NULL,
                         &doc, &se) ||
        gql_gw_plan_build(sg, doc, NULL, plans_arena, &plans[i], &err)) {
      fprintf(stderr, "%s: %s\n", queries[i], err ? err : se.message);
      abort();
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!sg)
    init();
  if (size == 0)
    return 0;
  const gql_gw_plan *plan = plans[data[0] % NQ];
  const char *p = (const char *)data + 1, *end = (const char *)data + size;
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_request *r;
  if (gql_gw_request_new(plan, NULL, arena, &r))
    abort();
  gql_buf body, out;
  gql_buf_init(&body, NULL);
  gql_buf_init(&out, NULL);
  bool initial = false, plain = false, more = false;
  gql_json_value *v;
  gql_json_error je;
  for (uint32_t i = 0; i < plan->nbatches && !plain; i++) {
    if (plan->ndefers && !initial &&
        plan->batches[i].level > plan->primary_levels) {
      initial = true;
      if (gql_gw_defer_initial(r, &out, &plain) ||
          gql_json_parse(arena, out.data, out.len, NULL, &v, &je))
        abort(); /* the initial payload is not JSON */
      out.len = 0;
    }
    body.len = 0;
    int rc = gql_gw_request_body(r, i, &body);
    if (rc == 1)
      continue;
    if (rc)
      abort();
    const char *nul = memchr(p, 0, (size_t)(end - p));
    size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);
    /* the answer lives in the arena: the merged tree points into it */
    char *answer = gql_arena_strndup(arena, p, n);
    if (!answer || gql_gw_request_merge(r, i, answer, n) < 0)
      abort();
    p = nul ? nul + 1 : end;
  }
  if (plan->ndefers && !initial) {
    initial = true;
    if (gql_gw_defer_initial(r, &out, &plain) ||
        gql_json_parse(arena, out.data, out.len, NULL, &v, &je))
      abort();
    out.len = 0;
  }
  if (plain)
    ; /* the initial payload was the response */
  else if (plan->ndefers ? gql_gw_defer_next(r, UINT32_MAX, &out, &more)
                         : gql_gw_request_response(r, &out))
    abort();
  if (!plain && gql_json_parse(arena, out.data, out.len, NULL, &v, &je))
    abort(); /* the response is not JSON */
  gql_buf_free(&out);
  gql_buf_free(&body);
  gql_arena_free(arena);
  return 0;
}
