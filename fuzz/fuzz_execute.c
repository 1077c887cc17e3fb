/* libFuzzer target: the bytes are a query, optionally followed by a NUL and
 * variables as JSON. It is prepared (parse, validation when linked, plan)
 * and executed against a small fixed schema and JSON data with the default
 * resolvers, plus one asynchronous field completed after the walk. The
 * response must be valid JSON. */
#include "execution/exec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sdl[] =
    "interface Node { id: ID! }\n"
    "type User implements Node { id: ID! name: String age: Int friends: "
    "[User!] best: User score: Float role: Role tags: [[String]] }\n"
    "type Post implements Node { id: ID! title: String! author: User }\n"
    "union Item = User | Post\n"
    "enum Role { ADMIN USER }\n"
    "input Filter { role: Role, min: Int = 0, names: [String!] }\n"
    "input One @oneOf { a: Int, b: String }\n"
    "type Query { me: User users(filter: Filter, first: Int = 10): [User] "
    "node(id: ID!): Node items: [Item!]! one(o: One): String later: User "
    "bad: Int }\n"
    "type Mutation { set(v: Int!): Int }\n";

static const char json[] =
    "{\"me\":{\"__typename\":\"User\",\"id\":\"1\",\"name\":\"Ann\",\"age\":"
    "30,\"score\":1.5,\"role\":\"ADMIN\",\"tags\":[[\"a\",null],[]],"
    "\"friends\":[{\"id\":\"2\",\"name\":\"Bo\"},{\"id\":null}],\"best\":"
    "{\"id\":\"2\"}},\"users\":[{\"id\":\"3\",\"role\":\"NOPE\"},null],"
    "\"node\":{\"__typename\":\"Post\",\"id\":\"9\",\"title\":null},"
    "\"items\":[{\"__typename\":\"User\",\"id\":\"1\"},{\"__typename\":"
    "\"Post\",\"id\":\"2\",\"title\":\"t\"},{\"__typename\":\"Nope\"}],"
    "\"one\":\"x\",\"later\":{\"id\":\"7\",\"age\":3000000000},\"bad\":"
    "\"12x\",\"set\":5}";

typedef struct fuzz_ctx {
  gql_pending *p[8];
  int n;
  const gql_value *later;
} fuzz_ctx;

static void later(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  fuzz_ctx *c = gql_info_context(info);
  if (c->n < 8)
    c->p[c->n++] = gql_out_pending(out);
  else
    gql_out_error(out, "too many");
}

static gql_schema *schema;
static gql_arena *data_arena;
static const gql_value *root;

static void setup(void) {
  if (schema)
    return;
  if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &schema, NULL) < 0)
    __builtin_trap();
  gql_schema_set_resolver(schema, "Query", "later", later, NULL, 0);
  data_arena = gql_arena_new(NULL);
  if (gql_value_parse(data_arena, json, sizeof json - 1, &root) < 0)
    __builtin_trap();
}

typedef struct result {
  bool done;
} result;

static void on_done(void *ud, const char *out, size_t len, bool errors) {
  result *r = ud;
  r->done = true;
  gql_arena *a = gql_arena_new(NULL);
  gql_json_value *v;
  if (gql_json_parse(a, out, len, NULL, &v, NULL) < 0)
    __builtin_trap();
  gql_arena_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  const char *src = (const char *)data;
  size_t qlen = strnlen(src, size);
  const char *vars = qlen < size ? src + qlen + 1 : NULL;
  size_t vlen = vars ? size - qlen - 1 : 0;
  gql_prepare_options po = {.parse = {.max_tokens = 2000, .max_depth = 64},
                            .max_plan_size = 5000};
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return 0;
  gql_arena_set_limit(arena, 64u << 20);
  gql_prepared *p;
  gql_errors errors = {.arena = arena};
  if (gql_prepare(schema, src, qlen, NULL, &po, &p, &errors) < 0) {
    gql_arena_free(arena);
    return 0;
  }
  fuzz_ctx c = {0};
  result r = {0};
  gql_execute_params params = {.root_value = root,
                               .variables_json = vars,
                               .variables_len = vlen,
                               .context = &c,
                               .arena = arena,
                               .on_done = on_done,
                               .ud = &r};
  int rc = gql_execute(p, &params);
  bool pending = rc == 0 && !r.done;
  for (int i = 0; pending && i < c.n; i++) {
    if (i % 2)
      gql_out_error(gql_pending_out(c.p[i]), "later failed");
    else
      gql_out_json(gql_pending_out(c.p[i]), gql_value_get(root, "later", 5));
  }
  if (rc >= 0 && !r.done)
    __builtin_trap();
  gql_prepared_free(p);
  gql_arena_free(arena);
  return 0;
}
