/* Executor behaviour: results, errors, null propagation, pending fields,
 * aborts, coercion, and the allocation count of a prepared execution. */
#include "execution/exec.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static const char sdl[] =
    "type Query { hello: String list: [Item] items: [Item!] n(x: Int!): Int "
    "slow: String slowObj: Item slowNN: String! e: E }\n"
    "type Item { id: Int! name: String }\n"
    "enum E { A B }\n";

static gql_schema *schema(void) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  return s;
}

typedef struct got {
  char json[8192];
  int calls;
  bool errors;
} got;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  got *g = ud;
  cr_assert_lt(len, sizeof g->json);
  memcpy(g->json, json, len);
  g->json[len] = 0;
  g->calls++;
  g->errors = errors;
}

/* Executes q; `validate` false runs it without the validation rules, as
 * graphql-js's execute() does, to reach the executor's own errors. */
static int run_opt(gql_schema *s, const char *q, const char *data,
                   const char *vars, got *g, bool validate) {
  gql_arena *a = gql_arena_new(NULL);
  gql_prepared *p;
  gql_errors errs = {.arena = a};
  gql_prepare_options po = {.no_validate = !validate};
  int rc = gql_prepare(s, q, strlen(q), NULL, &po, &p, &errs);
  gql_str err = {0};
  if (errs.count)
    cr_assert_eq(gql_errors_response(&errs, NULL, a, &err), 0);
  if (rc < 0) {
    snprintf(g->json, sizeof g->json, "%.*s", (int)err.len, err.ptr);
    gql_arena_free(a);
    return rc;
  }
  const gql_value *root = NULL;
  if (data)
    cr_assert_eq(gql_value_parse(a, data, strlen(data), &root), 0);
  gql_execute_params params = {.root_value = root,
                               .variables_json = vars,
                               .variables_len = vars ? strlen(vars) : 0,
                               .on_done = on_done,
                               .ud = g};
  rc = gql_execute(p, &params);
  gql_prepared_free(p);
  gql_arena_free(a);
  return rc;
}

static int run(gql_schema *s, const char *q, const char *data, const char *vars,
               got *g) {
  return run_opt(s, q, data, vars, g, true);
}

Test(execute, json_data_resolves_by_default) {
  gql_schema *s = schema();
  got g = {0};
  cr_assert_eq(run(s, "{ hello list { id name } }",
                   "{\"hello\":\"hi\",\"list\":[{\"id\":1,\"name\":\"a\"},"
                   "{\"id\":2}]}",
                   NULL, &g),
               0);
  cr_assert_str_eq(g.json, "{\"data\":{\"hello\":\"hi\",\"list\":[{\"id\":1,"
                           "\"name\":\"a\"},{\"id\":2,\"name\":null}]}}");
  gql_schema_free(s);
}

Test(execute, null_in_non_null_item_nulls_the_list_and_errors_come_first) {
  gql_schema *s = schema();
  got g = {0};
  run(s, "{ items { id } }", "{\"items\":[{\"id\":1},{\"id\":null}]}", NULL,
      &g);
  cr_assert_str_eq(
      g.json,
      "{\"errors\":[{\"message\":\"Cannot return null for non-nullable field "
      "Item.id.\",\"locations\":[{\"line\":1,\"column\":11}],\"path\":["
      "\"items\",1,\"id\"]}],\"data\":{\"items\":null}}");
  cr_assert(g.errors);
  gql_schema_free(s);
}

Test(execute, int_result_out_of_range_is_an_error) {
  gql_schema *s = schema();
  got g = {0};
  run(s, "{ list { id } }", "{\"list\":[{\"id\":3000000000}]}", NULL, &g);
  cr_assert(strstr(g.json, "Int cannot represent non 32-bit signed integer "
                           "value: 3000000000"),
            "%s", g.json);
  gql_schema_free(s);
}

Test(execute, missing_required_variable_is_reported) {
  gql_schema *s = schema();
  got g = {0};
  run(s, "query Q($x: Int!) { n(x: $x) }", "{}", "{}", &g);
  cr_assert_str_eq(g.json, "{\"errors\":[{\"message\":\"Variable \\\"$x\\\" of "
                           "required type \\\"Int!\\\" was not provided.\","
                           "\"locations\":[{\"line\":1,\"column\":9}]}]}");
  run(s, "query Q($x: Int!) { n(x: $x) }", "{}", "{\"x\":1.5}", &g);
  cr_assert(strstr(g.json, "Variable \\\"$x\\\" got invalid value 1.5; Int "
                           "cannot represent non-integer value: 1.5"),
            "%s", g.json);
  gql_schema_free(s);
}

Test(execute, skip_and_include_follow_variables) {
  gql_schema *s = schema();
  got g = {0};
  const char *q = "query Q($s: Boolean!) { hello @skip(if: $s) e }";
  run(s, q, "{\"hello\":\"h\",\"e\":\"A\"}", "{\"s\":true}", &g);
  cr_assert_str_eq(g.json, "{\"data\":{\"e\":\"A\"}}");
  run(s, q, "{\"hello\":\"h\",\"e\":\"A\"}", "{\"s\":false}", &g);
  cr_assert_str_eq(g.json, "{\"data\":{\"hello\":\"h\",\"e\":\"A\"}}");
  gql_schema_free(s);
}

Test(execute, operation_selection_errors) {
  gql_schema *s = schema();
  got g = {0};
  cr_assert_lt(run(s, "query A { hello } query B { hello }", "{}", NULL, &g),
               0);
  cr_assert_str_eq(g.json, "{\"errors\":[{\"message\":\"Must provide "
                           "operation name if query contains multiple "
                           "operations.\"}]}");
  gql_schema_free(s);
}

/* ---- pending fields */

typedef struct slow_ctx {
  gql_pending *p[4];
  int n;
} slow_ctx;

static void slow(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  slow_ctx *c = gql_info_context(info);
  c->p[c->n++] = gql_out_pending(out);
}

static void item_id(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  gql_out_int(out, 7);
}

static int item_name_calls;
static void item_name(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  item_name_calls++;
  gql_out_string(out, "x", 1);
}

static gql_prepared *prepare_async(gql_schema *s, const char *q) {
  gql_schema_set_resolver(s, "Query", "slow", slow, NULL, 0);
  gql_schema_set_resolver(s, "Query", "slowObj", slow, NULL, 0);
  gql_schema_set_resolver(s, "Query", "slowNN", slow, NULL, 0);
  gql_schema_set_resolver(s, "Item", "id", item_id, NULL, GQL_RESOLVER_SYNC);
  gql_schema_set_resolver(s, "Item", "name", item_name, NULL,
                          GQL_RESOLVER_SYNC);
  gql_prepared *p;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, NULL), 0);
  return p;
}

Test(execute, pending_fields_complete_in_any_order_and_keep_selection_order) {
  gql_schema *s = schema();
  gql_prepared *p =
      prepare_async(s, "{ a: slow hello b: slow slowObj { id name } }");
  slow_ctx c = {0};
  got g = {0};
  gql_value const *root;
  gql_arena *a = gql_arena_new(NULL);
  cr_assert_eq(gql_value_parse(a, "{\"hello\":\"h\"}", 13, &root), 0);
  gql_execute_params params = {.root_value = root,
                               .context = &c,
                               .arena = a,
                               .on_done = on_done,
                               .ud = &g};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_eq(g.calls, 0, "fields pend: no response yet");
  cr_assert_eq(c.n, 3);
  cr_assert_eq(g.calls, 0);
  gql_out_string(gql_pending_out(c.p[1]), "B", 1);
  gql_out_object(gql_pending_out(c.p[2]), "anything", GQL_TYPE_AUTO);
  cr_assert_eq(g.calls, 0);
  gql_out_string(gql_pending_out(c.p[0]), "A", 1);
  cr_assert_eq(g.calls, 1);
  cr_assert_str_eq(g.json, "{\"data\":{\"a\":\"A\",\"hello\":\"h\",\"b\":"
                           "\"B\",\"slowObj\":{\"id\":7,\"name\":\"x\"}}}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(execute, error_in_pending_non_null_field_nulls_data) {
  gql_schema *s = schema();
  gql_prepared *p = prepare_async(s, "{ hello slowNN slow }");
  slow_ctx c = {0};
  got g = {0};
  gql_arena *a = gql_arena_new(NULL);
  gql_execute_params params = {
      .context = &c, .arena = a, .on_done = on_done, .ud = &g};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_eq(g.calls, 0, "fields pend: no response yet");
  gql_out_error(gql_pending_out(c.p[0]), "boom");
  gql_out_string(gql_pending_out(c.p[1]), "s", 1);
  cr_assert_str_eq(g.json, "{\"errors\":[{\"message\":\"boom\",\"locations\":"
                           "[{\"line\":1,\"column\":9}],\"path\":[\"slowNN\"]"
                           "}],\"data\":null}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

static int abort_start(void *ctx, const gql_resolve_info *info) {
  int *n = ctx;
  return ++*n >= 2;
}

Test(execute, a_hook_aborts_later_resolver_calls) {
  gql_schema *s = schema();
  gql_prepared *p = prepare_async(s, "{ hello e }");
  int n = 0;
  gql_hooks hooks = {.resolve_start = abort_start, .ctx = &n};
  got g = {0};
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *root;
  const char *d = "{\"hello\":\"h\",\"e\":\"A\"}";
  cr_assert_eq(gql_value_parse(a, d, strlen(d), &root), 0);
  gql_execute_params params = {.root_value = root,
                               .hooks = &hooks,
                               .arena = a,
                               .on_done = on_done,
                               .ud = &g};
  gql_execute(p, &params);
  cr_assert_str_eq(g.json, "{\"errors\":[{\"message\":\"Execution aborted.\","
                           "\"locations\":[{\"line\":1,\"column\":9}],"
                           "\"path\":[\"e\"]}],\"data\":{\"hello\":\"h\","
                           "\"e\":null}}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

/* ---- allocation count */

typedef struct counting {
  size_t calls;
} counting;

static void *c_malloc(void *ctx, size_t n) {
  ((counting *)ctx)->calls++;
  return malloc(n);
}
static void *c_realloc(void *ctx, void *p, size_t o, size_t n) {
  ((counting *)ctx)->calls++;
  return realloc(p, n);
}
static void c_free(void *ctx, void *p, size_t n) {
  free(p);
}

static void ignore(void *ud, const char *json, size_t len, bool errors) {}

static size_t count_calls(gql_schema *s, const char *q, const char *data) {
  counting c = {0};
  gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
  gql_arena *values = gql_arena_new(NULL);
  const gql_value *root;
  cr_assert_eq(gql_value_parse(values, data, strlen(data), &root), 0);
  gql_prepared *p;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, NULL), 0);
  gql_arena *arena = gql_arena_new(&alc);
  gql_output out = {.alc = &alc};
  gql_execute_params params = {
      .root_value = root, .arena = arena, .output = &out, .on_done = ignore};
  gql_execute(p, &params); /* warm up: the buffers reach their size */
  gql_arena_reset(arena);
  size_t before = c.calls;
  for (int i = 0; i < 3; i++) {
    gql_execute(p, &params);
    gql_arena_reset(arena);
  }
  size_t calls = c.calls - before;
  gql_output_free(&out);
  gql_arena_free(arena);
  gql_prepared_free(p);
  gql_arena_free(values);
  return calls;
}

Test(execute, a_1000_item_list_allocates_as_much_as_hello) {
  gql_schema *s = schema();
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{\"hello\":\"hi\",\"list\":[");
  for (int i = 0; i < 1000; i++)
    gql_buf_printf(&b, "%s{\"id\":%d,\"name\":\"item %d\"}", i ? "," : "", i,
                   i);
  gql_buf_puts(&b, "]}");
  size_t big = count_calls(s, "{ list { id name } }", gql_buf_cstr(&b));
  size_t small = count_calls(s, "{ hello }", "{\"hello\":\"hi\"}");
  cr_assert_eq(big, small, "1000 items: %zu calls, hello: %zu", big, small);
  cr_assert_eq(small, 0);
  gql_buf_free(&b);
  gql_schema_free(s);
}

/* ---- mutations, propagation through pending fields, arguments */

static const char msdl[] =
    "type Query { a: Int }\n"
    "type Mutation { first: Int second: Int third: Obj }\n"
    "type Obj { nn: Int! v: Int list: [Int!] }\n";

typedef struct order_ctx {
  char log[64];
  gql_pending *p[8];
  int n;
} order_ctx;

static void log_pending(const gql_resolve_info *info, const void *parent,
                        gql_out *out) {
  order_ctx *c = gql_info_context(info);
  gql_str name = gql_info_field_name(info);
  strncat(c->log, name.ptr, name.len);
  strcat(c->log, " ");
  c->p[c->n++] = gql_out_pending(out);
}

Test(execute, mutation_root_fields_run_one_after_the_other) {
  gql_schema *s;
  cr_assert_eq(gql_schema_from_sdl(msdl, sizeof msdl - 1, NULL, &s, NULL), 0);
  gql_schema_set_resolver(s, "Mutation", "first", log_pending, NULL, 0);
  gql_schema_set_resolver(s, "Mutation", "second", log_pending, NULL, 0);
  const char *q = "mutation { first second }";
  gql_prepared *p;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, NULL), 0);
  order_ctx c = {0};
  got g = {0};
  gql_arena *a = gql_arena_new(NULL);
  gql_execute_params params = {
      .context = &c, .arena = a, .on_done = on_done, .ud = &g};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_eq(g.calls, 0, "fields pend: no response yet");
  cr_assert_str_eq(c.log, "first ", "second must wait for first");
  gql_out_int(gql_pending_out(c.p[0]), 1);
  cr_assert_str_eq(c.log, "first second ");
  cr_assert_eq(g.calls, 0);
  gql_out_int(gql_pending_out(c.p[1]), 2);
  cr_assert_str_eq(g.json, "{\"data\":{\"first\":1,\"second\":2}}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(execute, pending_null_in_non_null_field_nulls_the_nullable_parent) {
  gql_schema *s;
  cr_assert_eq(gql_schema_from_sdl(msdl, sizeof msdl - 1, NULL, &s, NULL), 0);
  gql_schema_set_resolver(s, "Obj", "nn", log_pending, NULL, 0);
  gql_schema_set_resolver(s, "Obj", "v", log_pending, NULL, 0);
  const char *q = "mutation { third { v nn } first }";
  gql_prepared *p;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, NULL), 0);
  order_ctx c = {0};
  got g = {0};
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *root;
  const char *d = "{\"third\":{},\"first\":5}";
  cr_assert_eq(gql_value_parse(a, d, strlen(d), &root), 0);
  gql_execute_params params = {.root_value = root,
                               .context = &c,
                               .arena = a,
                               .on_done = on_done,
                               .ud = &g};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_eq(g.calls, 0, "fields pend: no response yet");
  gql_out_null(gql_pending_out(c.p[1])); /* nn: null in Int! */
  gql_out_int(gql_pending_out(c.p[0]), 3);
  cr_assert_str_eq(
      g.json,
      "{\"errors\":[{\"message\":\"Cannot return null for non-nullable field "
      "Obj.nn.\",\"locations\":[{\"line\":1,\"column\":22}],\"path\":["
      "\"third\",\"nn\"]}],\"data\":{\"third\":null,\"first\":5}}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(execute, argument_and_result_coercion_errors) {
  gql_schema *s = schema();
  got g = {0};
  run_opt(s, "{ n }", "{\"n\":1}", NULL, &g, false);
  cr_assert_str_eq(g.json,
                   "{\"errors\":[{\"message\":\"Argument \\\"x\\\" of required "
                   "type \\\"Int!\\\" was not provided.\",\"locations\":[{"
                   "\"line\":1,\"column\":3}],\"path\":[\"n\"]}],\"data\":{"
                   "\"n\":null}}");
  run_opt(s, "{ e list { id } }", "{\"e\":\"C\",\"list\":3}", NULL, &g, false);
  cr_assert_str_eq(
      g.json,
      "{\"errors\":[{\"message\":\"Enum \\\"E\\\" cannot represent value: "
      "\\\"C\\\"\",\"locations\":[{\"line\":1,\"column\":3}],\"path\":[\"e\"]"
      "},{\"message\":\"Expected Iterable, but did not find one for field "
      "\\\"Query.list\\\".\",\"locations\":[{\"line\":1,\"column\":5}],"
      "\"path\":[\"list\"]}],\"data\":{\"e\":null,\"list\":null}}");
  gql_schema_free(s);
}

Test(execute, introspection_runs_over_the_schema) {
  gql_schema *s = schema();
  got g = {0};
  run(s,
      "{ __type(name: \"Item\") { kind name fields { name type { kind ofType "
      "{ name } } } } __schema { queryType { name } mutationType { name } } }",
      "{}", NULL, &g);
  cr_assert_str_eq(
      g.json,
      "{\"data\":{\"__type\":{\"kind\":\"OBJECT\",\"name\":\"Item\",\"fields\""
      ":[{\"name\":\"id\",\"type\":{\"kind\":\"NON_NULL\",\"ofType\":{\"name\""
      ":\"Int\"}}},{\"name\":\"name\",\"type\":{\"kind\":\"SCALAR\",\"ofType\""
      ":null}}]},\"__schema\":{\"queryType\":{\"name\":\"Query\"},"
      "\"mutationType\":null}}}");
  gql_schema_free(s);
}

Test(execute, conditional_fields_take_the_place_of_their_first_included_use) {
  gql_schema *s = schema();
  got g = {0};
  const char *q = "query Q($i: Boolean!) { hello @include(if: $i) e "
                  "...F } fragment F on Query { hello }";
  run(s, q, "{\"hello\":\"h\",\"e\":\"A\"}", "{\"i\":true}", &g);
  cr_assert_str_eq(g.json, "{\"data\":{\"hello\":\"h\",\"e\":\"A\"}}");
  run(s, q, "{\"hello\":\"h\",\"e\":\"A\"}", "{\"i\":false}", &g);
  cr_assert_str_eq(g.json, "{\"data\":{\"e\":\"A\",\"hello\":\"h\"}}");
  gql_schema_free(s);
}

static void pending_item(const void *list, size_t i, gql_out *out) {
  slow_ctx *c = (slow_ctx *)list;
  c->p[c->n++] = gql_out_pending(out);
}

static void slow_list(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  gql_out_list(out, gql_info_context(info), 3, pending_item);
}

Test(execute, pending_list_items_keep_their_order) {
  gql_schema *s = schema();
  gql_schema_set_resolver(s, "Query", "items", slow_list, NULL, 0);
  const char *q = "{ items { id } }";
  gql_prepared *p;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, NULL), 0);
  slow_ctx c = {0};
  got g = {0};
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *items;
  const char *d = "[{\"id\":0},{\"id\":1},{\"id\":2}]";
  cr_assert_eq(gql_value_parse(a, d, strlen(d), &items), 0);
  gql_execute_params params = {
      .context = &c, .arena = a, .on_done = on_done, .ud = &g};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_eq(g.calls, 0, "fields pend: no response yet");
  cr_assert_eq(c.n, 3);
  gql_out_json(gql_pending_out(c.p[2]), gql_value_item(items, 2));
  gql_out_json(gql_pending_out(c.p[0]), gql_value_item(items, 0));
  cr_assert_eq(g.calls, 0);
  gql_out_json(gql_pending_out(c.p[1]), gql_value_item(items, 1));
  cr_assert_str_eq(g.json,
                   "{\"data\":{\"items\":[{\"id\":0},{\"id\":1},{\"id\":2}]}}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(execute, abstract_type_errors_use_graphql_js_messages) {
  const char *u = "type Query { pet: Pet }\nunion Pet = Cat | Dog\n"
                  "type Cat { n: String }\ntype Dog { n: String }\n";
  gql_schema *s;
  cr_assert_eq(gql_schema_from_sdl(u, strlen(u), NULL, &s, NULL), 0);
  got g = {0};
  run(s, "{ pet { ... on Cat { n } } }", "{\"pet\":{\"n\":\"x\"}}", NULL, &g);
  cr_assert(strstr(g.json,
                   "Abstract type \\\"Pet\\\" must resolve to an "
                   "Object type at runtime for field \\\"Query.pet\\\""),
            "%s", g.json);
  run(s, "{ pet { ... on Cat { n } } }", "{\"pet\":{\"__typename\":\"Query\"}}",
      NULL, &g);
  cr_assert(strstr(g.json, "Runtime Object type \\\"Query\\\" is not a "
                           "possible type for \\\"Pet\\\"."),
            "%s", g.json);
  run(s, "{ pet { ... on Cat { n } } }",
      "{\"pet\":{\"__typename\":\"Cat\","
      "\"n\":\"x\"}}",
      NULL, &g);
  cr_assert_str_eq(g.json, "{\"data\":{\"pet\":{\"n\":\"x\"}}}");
  gql_schema_free(s);
}

typedef struct trace {
  char log[256];
} trace;

static int t_start(void *ctx, const gql_resolve_info *info) {
  trace *t = ctx;
  gql_str n = gql_info_field_name(info);
  strcat(t->log, "+");
  strncat(t->log, n.ptr, n.len);
  return 0;
}

static void t_finish(void *ctx, const gql_resolve_info *info) {
  trace *t = ctx;
  gql_str n = gql_info_field_name(info);
  strcat(t->log, "-");
  strncat(t->log, n.ptr, n.len);
}

Test(execute, resolve_finish_of_a_pending_field_follows_its_completion) {
  gql_schema *s = schema();
  gql_prepared *p = prepare_async(s, "{ hello slow }");
  slow_ctx c = {0};
  trace t = {{0}};
  gql_hooks hooks = {
      .resolve_start = t_start, .resolve_finish = t_finish, .ctx = &t};
  got g = {0};
  gql_arena *a = gql_arena_new(NULL);
  gql_execute_params params = {
      .context = &c, .arena = a, .hooks = &hooks, .on_done = on_done, .ud = &g};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_eq(g.calls, 0, "fields pend: no response yet");
  cr_assert_str_eq(t.log, "+hello-hello+slow");
  gql_out_string(gql_pending_out(c.p[0]), "s", 1);
  cr_assert_str_eq(t.log, "+hello-hello+slow-slow");
  cr_assert_str_eq(g.json, "{\"data\":{\"hello\":null,\"slow\":\"s\"}}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}

static void noop(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  gql_out_null(out);
}

Test(execute, synchronous_types_are_proven_by_fixpoint) {
  const char *u = "type Query { a: A b: B n: Node u: U }\n"
                  "type A { self: A b: B }\n"           /* cycle through B */
                  "type B { a: A slow: Int }\n"         /* slow: asynchronous */
                  "type C implements Node { id: ID }\n" /* synchronous */
                  "type D implements Node { id: ID d: D }\n"
                  "interface Node { id: ID }\n"
                  "union U = C | D\n"
                  "type Sync { s: Sync x: Int }\n";
  gql_schema *s;
  cr_assert_eq(gql_schema_from_sdl(u, strlen(u), NULL, &s, NULL), 0);
  gql_schema_set_resolver(s, "B", "slow", noop, NULL, 0);
  gql_schema_set_resolver(s, "D", "d", noop, NULL, GQL_RESOLVER_SYNC);
  cr_assert_eq(gql_schema_finalize(s), 0);
#define SYNC(name) gql_schema_type(s, GQL_STR(name))->sync
  cr_assert(!SYNC("B"));
  cr_assert(!SYNC("A"), "A reaches B");
  cr_assert(!SYNC("Query"));
  cr_assert(SYNC("C"));
  cr_assert(SYNC("D"), "a declared-synchronous resolver keeps D synchronous");
  cr_assert(SYNC("Node"));
  cr_assert(SYNC("U"));
  cr_assert(SYNC("Sync"), "a cycle of synchronous types stays synchronous");
  cr_assert(SYNC("__Schema") && SYNC("__Type"));
#undef SYNC
  cr_assert_eq(gql_schema_set_resolver(s, "A", "b", noop, NULL, 0), GQL_EINVAL,
               "resolvers are frozen once finalized");
  gql_schema_free(s);
}

Test(execute, validation_errors_come_back_as_the_response) {
  gql_schema *s = schema();
  got g = {0};
  cr_assert_lt(run(s, "{ e list }", "{}", NULL, &g), 0);
  cr_assert_str_eq(g.json,
                   "{\"errors\":[{\"message\":\"Field \\\"list\\\" of type "
                   "\\\"[Item]\\\" must have a selection of subfields. Did "
                   "you mean \\\"list { ... }\\\"?\",\"locations\":[{\"line\":"
                   "1,\"column\":5}]}]}");
  gql_schema_free(s);
}

/* ---- gql_out_object_array and gql_out_enum_index */

static const char arr_sdl[] =
    "type Query { arr: [Rec!] arrN: [Rec] lst: [Rec!] lstN: [Rec] "
    "arrNN: [Rec!]! none: [Rec] tags: [Tag!]! tag: Tag notEnum: String "
    "side: String lens: [Len!]! }\n"
    "type Rec { id: Int! v: Int! }\n"
    "enum Tag { X Y Z }\n"
    "enum Len { A ABCD ABCDEFG ABCDEFGH ABCDEFGHIJKLMNOP ABCDEFGHIJKLMNOPQ "
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789 }\n";

typedef struct rec {
  int id;
  bool bad; /* v resolves to null: a non-null error */
  double pad;
} rec;

static const rec recs[3] = {{1, false, 0}, {2, true, 0}, {3, false, 0}};

static void rec_at(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, (const rec *)list + i, GQL_TYPE_AUTO);
}
static void r_list(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_out_list(out, recs, 3, rec_at);
}
static void r_arr(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  gql_out_object_array(out, recs, 3, sizeof recs[0], GQL_TYPE_AUTO);
}
static void r_none(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_out_object_array(out, NULL, 3, sizeof recs[0], GQL_TYPE_AUTO);
}
static void r_rec_id(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  gql_out_int(out, ((const rec *)parent)->id);
}
static void r_rec_v(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  const rec *r = parent;
  if (r->bad)
    gql_out_null(out);
  else
    gql_out_int(out, r->id * 10);
}
static const uint32_t tag_order[] = {2, 0, 1};
static void tag_at(const void *list, size_t i, gql_out *out) {
  gql_out_enum_index(out, ((const uint32_t *)list)[i]);
}
static void r_tags(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_out_list(out, tag_order, 3, tag_at);
}
/* Len's values by index, last first: every length class of the writer
 * (under 4 bytes, 4 to 7, 8 to 16, over 16), twice, and a repeat. */
static const uint32_t len_order[] = {6, 5, 4, 3, 2, 1, 0, 0, 3, 6};
static void len_at(const void *list, size_t i, gql_out *out) {
  gql_out_enum_index(out, ((const uint32_t *)list)[i]);
}
static void r_lens(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_out_list(out, len_order, GQL_ARRAY_LEN(len_order), len_at);
}
static void r_tag(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  gql_out_enum_index(out, 3); /* Tag has 3 values */
}
static void r_not_enum(const gql_resolve_info *info, const void *parent,
                       gql_out *out) {
  gql_out_enum_index(out, 0);
}
static void r_side(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_out_string(out, "s", 1);
}

/* `side_sync` false makes Query not synchronous: the operation then runs in
 * tree mode. */
static gql_schema *arr_schema(bool side_sync) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(arr_sdl, sizeof arr_sdl - 1, NULL, &s, NULL),
               0);
  static const struct {
    const char *type, *field;
    gql_resolver_fn fn;
  } defs[] = {{"Query", "arr", r_arr},   {"Query", "arrN", r_arr},
              {"Query", "arrNN", r_arr}, {"Query", "lst", r_list},
              {"Query", "lstN", r_list}, {"Query", "none", r_none},
              {"Query", "tags", r_tags}, {"Query", "tag", r_tag},
              {"Query", "lens", r_lens}, {"Query", "notEnum", r_not_enum},
              {"Rec", "id", r_rec_id},   {"Rec", "v", r_rec_v}};
  for (size_t i = 0; i < GQL_ARRAY_LEN(defs); i++)
    cr_assert_eq(gql_schema_set_resolver(s, defs[i].type, defs[i].field,
                                         defs[i].fn, NULL, GQL_RESOLVER_SYNC),
                 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "side", r_side, NULL,
                                       side_sync ? GQL_RESOLVER_SYNC : 0),
               0);
  return s;
}

/* The array API writes what gql_out_list with gql_out_object items writes,
 * null propagation and error paths included, in both execution modes. */
Test(execute, object_arrays_write_what_item_callbacks_write) {
  static const char *const pairs[][2] = {
      {"{ x: arr { id } side }", "{ x: lst { id } side }"},
      {"{ x: arr { id v } side }", "{ x: lst { id v } side }"},
      {"{ x: arrN { id v } side }", "{ x: lstN { id v } side }"},
      {"{ x: arrN { v id } side }", "{ x: lstN { v id } side }"},
      /* conditional fields: each item of an array checks them again */
      {"{ x: arrN { id @include(if: true) v @skip(if: false) } side }",
       "{ x: lstN { id @include(if: true) v @skip(if: false) } side }"},
      {"{ x: arrN { id @include(if: false) v } y: arrN { id } side }",
       "{ x: lstN { id @include(if: false) v } y: lstN { id } side }"},
      {"{ x: arrNN { id } y: arr { v } z: arrN { v } }",
       "{ x: arrNN { id } y: lst { v } z: lstN { v } }"},
  };
  for (int mode = 0; mode < 2; mode++) {
    gql_schema *s = arr_schema(mode == 0);
    for (size_t i = 0; i < GQL_ARRAY_LEN(pairs); i++) {
      got a = {0}, b = {0};
      run(s, pairs[i][0], NULL, NULL, &a);
      run(s, pairs[i][1], NULL, NULL, &b);
      cr_assert_eq(a.calls, 1);
      cr_assert_str_eq(a.json, b.json, "%s (mode %d)", pairs[i][0], mode);
      cr_assert_eq(a.errors, b.errors);
    }
    got g = {0};
    run(s, "{ arrN { id v } }", NULL, NULL, &g);
    cr_assert_str_eq(
        g.json,
        "{\"errors\":[{\"message\":\"Cannot return null for non-nullable "
        "field Rec.v.\",\"locations\":[{\"line\":1,\"column\":13}],"
        "\"path\":[\"arrN\",1,\"v\"]}],\"data\":{\"arrN\":[{\"id\":1,\"v\":"
        "10},null,{\"id\":3,\"v\":30}]}}");
    run(s, "{ arrNN { v } side }", NULL, NULL, &g);
    cr_assert_str_eq(g.json,
                     "{\"errors\":[{\"message\":\"Cannot return null for "
                     "non-nullable field Rec.v.\",\"locations\":[{\"line\":1,"
                     "\"column\":11}],\"path\":[\"arrNN\",1,\"v\"]}],"
                     "\"data\":null}");
    run(s, "{ none { id } arr { id } }", NULL, NULL, &g);
    cr_assert_str_eq(g.json, "{\"data\":{\"none\":null,\"arr\":[{\"id\":1},"
                             "{\"id\":2},{\"id\":3}]}}");
    gql_schema_free(s);
  }
}

Test(execute, enum_values_by_index_follow_the_definition_order) {
  for (int mode = 0; mode < 2; mode++) {
    gql_schema *s = arr_schema(mode == 0);
    got g = {0};
    run(s, "{ tags side }", NULL, NULL, &g);
    cr_assert_str_eq(
        g.json, "{\"data\":{\"tags\":[\"Z\",\"X\",\"Y\"],\"side\":\"s\"}}");
    run(s, "{ lens side }", NULL, NULL, &g);
    cr_assert_str_eq(g.json, "{\"data\":{\"lens\":["
                             "\"ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789\","
                             "\"ABCDEFGHIJKLMNOPQ\",\"ABCDEFGHIJKLMNOP\","
                             "\"ABCDEFGH\",\"ABCDEFG\",\"ABCD\",\"A\",\"A\","
                             "\"ABCDEFGH\",\"ABCDEFGHIJKLMNOPQRSTUVWXYZ_"
                             "0123456789\"],\"side\":\"s\"}}");
    run(s, "{ tag notEnum side }", NULL, NULL, &g);
    cr_assert_str_eq(
        g.json,
        "{\"errors\":[{\"message\":\"Enum \\\"Tag\\\" has no value at index "
        "3.\",\"locations\":[{\"line\":1,\"column\":3}],\"path\":[\"tag\"]},"
        "{\"message\":\"Type \\\"String\\\" is not an enum but was given an "
        "enum index.\",\"locations\":[{\"line\":1,\"column\":7}],\"path\":["
        "\"notEnum\"]}],\"data\":{\"tag\":null,\"notEnum\":null,\"side\":"
        "\"s\"}}");
    gql_schema_free(s);
  }
}

/* Keys are written from the plan field in one or two blocks up to 31 bytes
 * with their separator, and by the general path past that: every length
 * across both bounds, first and later in the object. */
Test(execute, response_keys_of_every_length_are_written_whole) {
  gql_schema *s = schema();
  char alias[48], q[256], want[512];
  for (size_t n = 1; n <= 40; n++) {
    for (size_t i = 0; i < n; i++)
      alias[i] = (char)('a' + i % 26);
    alias[n] = 0;
    snprintf(q, sizeof q, "{ %s: hello x: hello %s2: hello }", alias, alias);
    snprintf(want, sizeof want,
             "{\"data\":{\"%s\":\"h\",\"x\":\"h\",\"%s2\":\"h\"}}", alias,
             alias);
    got g = {0};
    run(s, q, "{\"hello\":\"h\"}", NULL, &g);
    cr_assert_str_eq(g.json, want, "alias length %zu", n);
  }
  gql_schema_free(s);
}

/* A subscription validates and plans, then answers a clear error unless the
 * caller asks for graphql-js execute()'s run-once behaviour. */
Test(execute, subscription_answers_an_error_unless_run_once_is_asked) {
  static const char sub_sdl[] = "type Query { a: String }\n"
                                "type Subscription { tick: Int }\n";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sub_sdl, sizeof sub_sdl - 1, NULL, &s, NULL),
               0);
  const char *q = "query Q { a }\n  subscription S { tick }";
  gql_arena *a = gql_arena_new(NULL);
  gql_prepared *p;
  cr_assert_eq(gql_prepare(s, q, strlen(q), "S", NULL, &p, NULL), 0);
  const gql_value *root;
  cr_assert_eq(gql_value_parse(a, "{\"tick\":7}", 10, &root), 0);
  got g = {0};
  gql_execute_params params = {
      .root_value = root, .on_done = on_done, .ud = &g};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert(g.errors);
  cr_assert_str_eq(g.json,
                   "{\"errors\":[{\"message\":\"Subscriptions are not "
                   "supported: gql executes queries and mutations "
                   "only.\",\"locations\":[{\"line\":2,\"column\":3}]}]}");
  params.subscription_once = true;
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_not(g.errors);
  cr_assert_str_eq(g.json, "{\"data\":{\"tick\":7}}");
  gql_prepared_free(p);
  gql_arena_free(a);
  gql_schema_free(s);
}
