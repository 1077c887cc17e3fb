/* libFuzzer target: incremental delivery (gql_execute_incremental). The
 * bytes are a query (with @defer and @stream: the schema has graphql-js
 * 17's directives), optionally followed by a NUL and variables as JSON. It
 * runs against a small schema and JSON data with the default resolvers,
 * plus a pending field and a list with a pending item, completed after the
 * walk (one with a value, one with an error). Every payload must be valid
 * JSON; every one but the last must say "hasNext":true, the last must not;
 * the execution must end once nothing is pending. Each input runs twice:
 * against that schema, and against one with no resolver of its own (every
 * type synchronous: the initial result in direct mode, incremental.c). */
#include "execution/exec.h"
#include "schema/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sdl[] =
    "interface Node { id: ID! }\n"
    "type User implements Node { id: ID! name: String nonNull: String! "
    "friends: [User!] best: User tags: [[String]] }\n"
    "type Post implements Node { id: ID! title: String! author: User }\n"
    "union Item = User | Post\n"
    "type Query { me: User users: [User] items: [Item!]! later: User "
    "laterList: [User] node: Node list: [String!] }\n"
    "type Mutation { set(v: Int!): Int }\n";

static const char json[] =
    "{\"me\":{\"id\":\"1\",\"name\":\"Ann\",\"nonNull\":\"x\",\"tags\":[[\"a\","
    "null],[]],\"friends\":[{\"id\":\"2\",\"name\":\"Bo\",\"nonNull\":null},"
    "{\"id\":null}],\"best\":{\"id\":\"2\",\"nonNull\":\"y\"}},\"users\":[{"
    "\"id\":\"3\"},null,{\"id\":\"4\",\"nonNull\":\"z\"}],\"items\":[{"
    "\"__typename\":\"User\",\"id\":\"1\"},{\"__typename\":\"Post\",\"id\":"
    "\"2\",\"title\":\"t\"},{\"__typename\":\"Post\",\"id\":\"3\"}],\"node\":"
    "{\"__typename\":\"User\",\"id\":\"5\"},\"list\":[\"a\",null,\"c\"],"
    "\"later\":{\"id\":\"7\",\"nonNull\":\"w\"},\"set\":5}";

typedef struct fuzz_ctx {
  gql_pending *p[16];
  int n;
} fuzz_ctx;

static fuzz_ctx *current;

static void later(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  (void)parent;
  if (current->n < 16)
    current->p[current->n++] = gql_out_pending(out);
  else
    gql_out_error(out, "too many");
}

static gql_schema *schema, *schema_sync;
static gql_arena *data_arena;
static const gql_value *root;

static void item(const void *list, size_t i, gql_out *out) {
  const gql_value *users = list;
  if (i == 1 && current->n < 16) {
    current->p[current->n++] = gql_out_pending(out);
    return;
  }
  gql_out_json(out, gql_value_item(users, i));
}

static void later_list(const gql_resolve_info *info, const void *parent,
                       gql_out *out) {
  (void)info;
  (void)parent;
  const gql_value *users = gql_value_get(root, "users", 5);
  gql_out_list(out, users, gql_value_count(users), item);
}

static void setup(void) {
  if (schema)
    return;
  gql_schema_build_options bo = {.defer_stream = true};
  if (gql_schema_build(sdl, sizeof sdl - 1, NULL, &bo, &schema, NULL) < 0)
    __builtin_trap();
  gql_schema_set_resolver(schema, "Query", "later", later, NULL, 0);
  gql_schema_set_resolver(schema, "Query", "laterList", later_list, NULL, 0);
  if (gql_schema_build(sdl, sizeof sdl - 1, NULL, &bo, &schema_sync, NULL) < 0)
    __builtin_trap();
  data_arena = gql_arena_new(NULL);
  if (gql_value_parse(data_arena, json, sizeof json - 1, &root) < 0)
    __builtin_trap();
}

typedef struct result {
  int payloads;
  bool last; /* a payload without "hasNext":true came */
} result;

static void on_done(void *ud, const char *out, size_t len, bool errors) {
  (void)errors;
  result *r = ud;
  if (r->last) /* nothing after the last payload */
    __builtin_trap();
  r->payloads++;
  gql_arena *a = gql_arena_new(NULL);
  gql_json_value *v;
  if (gql_json_parse(a, out, len, NULL, &v, NULL) < 0)
    __builtin_trap();
  const gql_json_value *next = gql_json_get(v, GQL_STR("hasNext"));
  if (r->payloads > 1 && !next) /* a later payload always says */
    __builtin_trap();
  r->last = !next || next->kind != GQL_JSON_BOOL || !next->boolean;
  gql_arena_free(a);
}

static void run(gql_schema *s, const uint8_t *data, size_t size) {
  const char *src = (const char *)data;
  size_t qlen = strnlen(src, size);
  const char *vars = qlen < size ? src + qlen + 1 : NULL;
  size_t vlen = vars ? size - qlen - 1 : 0;
  gql_prepare_options po = {.parse = {.max_tokens = 2000, .max_depth = 64},
                            .max_plan_size = 5000};
  gql_arena *arena = gql_arena_new(NULL);
  if (!arena)
    return;
  gql_arena_set_limit(arena, 64u << 20);
  gql_prepared *p;
  gql_errors errors = {.arena = arena};
  if (gql_prepare(s, src, qlen, NULL, &po, &p, &errors) < 0) {
    gql_arena_free(arena);
    return;
  }
  fuzz_ctx c = {0};
  current = &c;
  result r = {0};
  gql_execute_params params = {.root_value = root,
                               .variables_json = vars,
                               .variables_len = vlen,
                               .arena = arena,
                               .on_done = on_done,
                               .ud = &r};
  int rc = gql_execute_incremental(p, &params);
  /* complete what pends, in turns (a completion may make more pend) */
  for (int i = 0; rc == 1 && i < c.n; i++) {
    if (i % 2)
      gql_out_error(gql_pending_out(c.p[i]), "later failed");
    else
      gql_out_json(gql_pending_out(c.p[i]), gql_value_get(root, "later", 5));
  }
  if (rc >= 0 && !r.last)
    __builtin_trap();
  current = NULL;
  gql_prepared_free(p);
  gql_arena_free(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  run(schema, data, size);
  run(schema_sync, data, size);
  return 0;
}
