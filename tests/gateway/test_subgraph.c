/* gql as a federation subgraph: _service, _entities (C resolvers and the
 * JSON document convention), keys, @requires, errors per item, order. */
#include "federation/subgraph.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const char inventory_sdl[] =
    "extend schema @link(url: \"https://specs.apollo.dev/federation/v2.3\", "
    "import: [\"@key\", \"@external\", \"@requires\"])\n"
    "extend type Product @key(fields: \"upc\") {\n"
    "  upc: String! @external\n"
    "  weight: Int @external\n"
    "  price: Int @external\n"
    "  inStock: Boolean\n"
    "  shippingEstimate: Int @requires(fields: \"price weight\")\n"
    "}\n";

static gql_subgraph *build(const char *sdl) {
  gql_arena *a = gql_arena_new(NULL);
  gql_error_list errs;
  gql_error_list_init(&errs, a, 10);
  gql_subgraph *sg = NULL;
  int rc = gql_subgraph_build(sdl, strlen(sdl), NULL, &sg, &errs);
  cr_assert_eq(rc, 0, "build failed (%d): %s", rc,
               errs.count ? errs.items[0].message : "?");
  gql_arena_free(a);
  return sg;
}

/* Runs `query` with `vars` and compares the response JSON with `expected`. */
static void expect(gql_subgraph *sg, const char *query, const char *vars,
                   const char *expected) {
  gql_arena *a = gql_arena_new(NULL);
  gql_str json = {0};
  int rc = gql_graphql(gql_subgraph_schema(sg), query, strlen(query), NULL,
                       vars, vars ? strlen(vars) : 0, NULL, NULL, a, &json);
  cr_assert(rc >= 0, "execution failed: %d", rc);
  cr_assert_str_eq(json.ptr, expected);
  gql_arena_free(a);
}

/* ---- C entity resolvers: the inventory subgraph */

static const bool in_stock[] = {true, false, false, false, true};

static void product_entity(const gql_entity_call *call, gql_out *out) {
  const gql_value *upc = gql_value_get(call->representation, "upc", 3);
  gql_str s = gql_value_string(upc);
  if (s.len != 1 || s.ptr[0] < '1' || s.ptr[0] > '5') {
    gql_out_null(out);
    return;
  }
  /* The representation is the entity: its @requires fields included. */
  gql_out_object(out, call->representation, call->type);
}

static void resolve_in_stock(const gql_resolve_info *info, const void *parent,
                             gql_out *out) {
  gql_str s = gql_value_string(gql_value_get(parent, "upc", 3));
  gql_out_bool(out, in_stock[s.ptr[0] - '1']);
}

static void resolve_shipping(const gql_resolve_info *info, const void *parent,
                             gql_out *out) {
  int64_t price, weight;
  if (!gql_value_int(gql_value_get(parent, "price", 5), &price) ||
      !gql_value_int(gql_value_get(parent, "weight", 6), &weight)) {
    gql_out_null(out);
    return;
  }
  gql_out_int(out, price > 1000 ? 0 : weight / 2);
}

static gql_subgraph *inventory(void) {
  gql_subgraph *sg = build(inventory_sdl);
  cr_assert_eq(gql_subgraph_set_entity(sg, "Product", product_entity, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  gql_schema *s = gql_subgraph_schema(sg);
  cr_assert_eq(gql_schema_set_resolver(s, "Product", "inStock",
                                       resolve_in_stock, NULL, 0),
               0);
  cr_assert_eq(gql_schema_set_resolver(s, "Product", "shippingEstimate",
                                       resolve_shipping, NULL, 0),
               0);
  return sg;
}

Test(subgraph, service_sdl_is_the_sdl_as_given) {
  gql_subgraph *sg = build(inventory_sdl);
  gql_arena *a = gql_arena_new(NULL);
  gql_str json = {0};
  const char *q = "{ _service { sdl } }";
  cr_assert_eq(gql_graphql(gql_subgraph_schema(sg), q, strlen(q), NULL, NULL, 0,
                           NULL, NULL, a, &json),
               0);
  const gql_value *v = NULL;
  cr_assert_eq(gql_value_parse(a, json.ptr, json.len, &v), 0);
  const gql_value *sdl = gql_value_get(
      gql_value_get(gql_value_get(v, "data", 4), "_service", 8), "sdl", 3);
  gql_str s = gql_value_string(sdl);
  cr_assert_eq(s.len, strlen(inventory_sdl));
  cr_assert(memcmp(s.ptr, inventory_sdl, s.len) == 0);
  gql_arena_free(a);
  gql_subgraph_free(sg);
}

Test(subgraph, entity_union_has_the_resolvable_key_types_only) {
  gql_subgraph *sg =
      build("type User @key(fields: \"id\") { id: ID! name: String }\n"
            "type Hidden @key(fields: \"id\", resolvable: false) { id: ID! }\n"
            "type Plain { x: Int }\n"
            "type Query { me: User h: Hidden p: Plain }\n");
  cr_assert_eq(gql_subgraph_entity_count(sg), 1);
  gql_str n = gql_subgraph_entity_name(sg, 0);
  cr_assert(n.len == 4 && memcmp(n.ptr, "User", 4) == 0);
  expect(sg, "{ __type(name: \"_Entity\") { possibleTypes { name } } }", NULL,
         "{\"data\":{\"__type\":{\"possibleTypes\":[{\"name\":\"User\"}]}}}");
  expect(sg,
         "{ __type(name: \"Query\") { fields { name type { kind ofType { "
         "kind } } args { name type { kind } } } } }",
         NULL,
         "{\"data\":{\"__type\":{\"fields\":["
         "{\"name\":\"me\",\"type\":{\"kind\":\"OBJECT\",\"ofType\":null},"
         "\"args\":[]},"
         "{\"name\":\"h\",\"type\":{\"kind\":\"OBJECT\",\"ofType\":null},"
         "\"args\":[]},"
         "{\"name\":\"p\",\"type\":{\"kind\":\"OBJECT\",\"ofType\":null},"
         "\"args\":[]},"
         "{\"name\":\"_entities\",\"type\":{\"kind\":\"NON_NULL\",\"ofType\":"
         "{\"kind\":\"LIST\"}},\"args\":[{\"name\":\"representations\","
         "\"type\":{\"kind\":\"NON_NULL\"}}]},"
         "{\"name\":\"_service\",\"type\":{\"kind\":\"NON_NULL\",\"ofType\":"
         "{\"kind\":\"OBJECT\"}},\"args\":[]}]}}}");
  gql_subgraph_free(sg);
}

Test(subgraph, requires_fields_arrive_in_representations) {
  gql_subgraph *sg = inventory();
  expect(sg,
         "query($r: [_Any!]!) { _entities(representations: $r) { ... on "
         "Product { upc inStock shippingEstimate } } }",
         "{\"r\":[{\"__typename\":\"Product\",\"upc\":\"1\",\"price\":899,"
         "\"weight\":100},{\"__typename\":\"Product\",\"upc\":\"2\","
         "\"price\":1299,\"weight\":1000},{\"__typename\":\"Product\","
         "\"upc\":\"3\"}]}",
         "{\"data\":{\"_entities\":["
         "{\"upc\":\"1\",\"inStock\":true,\"shippingEstimate\":50},"
         "{\"upc\":\"2\",\"inStock\":false,\"shippingEstimate\":0},"
         "{\"upc\":\"3\",\"inStock\":false,\"shippingEstimate\":null}]}}");
  gql_subgraph_free(sg);
}

Test(subgraph, unknown_typename_errors_that_item_only_and_order_is_kept) {
  gql_subgraph *sg = inventory();
  expect(sg,
         "query($r: [_Any!]!) { _entities(representations: $r) { __typename "
         "... on Product { upc } } }",
         "{\"r\":[{\"__typename\":\"Product\",\"upc\":\"5\"},"
         "{\"__typename\":\"Nope\",\"upc\":\"1\"},"
         "{\"__typename\":\"Product\",\"upc\":\"9\"},"
         "{\"__typename\":\"Product\",\"upc\":\"2\"}]}",
         "{\"errors\":[{\"message\":\"The _entities resolver tried to load an "
         "entity for type \\\"Nope\\\", but no object type of that name was "
         "found in the schema\",\"locations\":[{\"line\":1,\"column\":23}],"
         "\"path\":[\"_entities\",1]}],"
         "\"data\":{\"_entities\":[{\"__typename\":\"Product\",\"upc\":\"5\"},"
         "null,null,{\"__typename\":\"Product\",\"upc\":\"2\"}]}}");
  gql_subgraph_free(sg);
}

Test(subgraph, representation_without_typename_is_an_item_error) {
  gql_subgraph *sg = inventory();
  expect(sg,
         "{ _entities(representations: [{upc: \"1\"}, {__typename: "
         "\"Product\", upc: \"1\"}]) { ... on Product { upc } } }",
         NULL,
         "{\"errors\":[{\"message\":\"The representation must be an object "
         "with a \\\"__typename\\\" string.\",\"locations\":[{\"line\":1,"
         "\"column\":3}],\"path\":[\"_entities\",0]}],"
         "\"data\":{\"_entities\":[null,{\"upc\":\"1\"}]}}");
  gql_subgraph_free(sg);
}

Test(subgraph, extension_without_definition_becomes_the_definition) {
  /* Federation 1 style: only `extend type`, and no Query at all. */
  gql_subgraph *sg = inventory();
  expect(sg, "{ __type(name: \"Product\") { name fields { name } } }", NULL,
         "{\"data\":{\"__type\":{\"name\":\"Product\",\"fields\":["
         "{\"name\":\"upc\"},{\"name\":\"weight\"},{\"name\":\"price\"},"
         "{\"name\":\"inStock\"},{\"name\":\"shippingEstimate\"}]}}}");
  gql_subgraph_free(sg);
}

Test(subgraph, bad_sdl_gives_errors_not_a_crash) {
  gql_arena *a = gql_arena_new(NULL);
  gql_error_list errs;
  gql_error_list_init(&errs, a, 10);
  gql_subgraph *sg = NULL;
  const char *bad = "type User @key(fields: \"id\") { id: ID! ";
  cr_assert_eq(gql_subgraph_build(bad, strlen(bad), NULL, &sg, &errs),
               GQL_ESYNTAX);
  cr_assert_null(sg);
  cr_assert_gt(errs.count, 0);
  const char *undef = "type User @key(fields: \"id\") { id: Missing }";
  cr_assert_eq(gql_subgraph_build(undef, strlen(undef), NULL, &sg, &errs),
               GQL_ESCHEMA);
  cr_assert_null(sg);
  gql_arena_free(a);
}

/* ---- the JSON document convention */

static const char catalog_sdl[] =
    "type Query { items: [Item] }\n"
    "type Item @key(fields: \"sku\") @key(fields: \"org { id } code\") {\n"
    "  sku: String! org: Org code: String! name: String note: String "
    "@external\n"
    "}\n"
    "type Org { id: ID! }\n"
    "type Tag @key(fields: \"id\") { id: ID! label: String }\n";

static const char catalog_json[] =
    "{\"items\":[],\n"
    " \"Item\":["
    "{\"sku\":\"a\",\"org\":{\"id\":\"1\"},\"code\":\"x\",\"name\":\"Apple\"},"
    "{\"sku\":\"b\",\"org\":{\"id\":\"2\"},\"code\":\"x\",\"name\":\"Bean\"},"
    "{\"sku\":\"c\",\"org\":{\"id\":1},\"code\":\"y\",\"name\":\"Corn\"}]}";

Test(subgraph, json_entities_by_compound_and_multiple_keys) {
  gql_subgraph *sg = build(catalog_sdl);
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *data = NULL;
  cr_assert_eq(gql_value_parse(a, catalog_json, strlen(catalog_json), &data),
               0);
  gql_subgraph_set_json(sg, data);
  expect(sg,
         "query($r: [_Any!]!) { _entities(representations: $r) { ... on Item "
         "{ sku name note } ... on Tag { id label } } }",
         "{\"r\":["
         /* by the compound, nested key */
         "{\"__typename\":\"Item\",\"org\":{\"id\":\"2\"},\"code\":\"x\"},"
         /* by the simple key, with an extra (@external) field */
         "{\"__typename\":\"Item\",\"sku\":\"c\",\"note\":\"from rep\"},"
         /* no such item: null, no error */
         "{\"__typename\":\"Item\",\"org\":{\"id\":\"2\"},\"code\":\"y\"},"
         "{\"__typename\":\"Item\",\"sku\":\"a\"},"
         /* an ID key as a string matches the document's integer */
         "{\"__typename\":\"Item\",\"org\":{\"id\":\"1\"},\"code\":\"y\"},"
         /* no array for the type: the representation is the entity */
         "{\"__typename\":\"Tag\",\"id\":\"t1\",\"label\":\"L\"}]}",
         "{\"data\":{\"_entities\":["
         "{\"sku\":\"b\",\"name\":\"Bean\",\"note\":null},"
         "{\"sku\":\"c\",\"name\":\"Corn\",\"note\":\"from rep\"},"
         "null,"
         "{\"sku\":\"a\",\"name\":\"Apple\",\"note\":null},"
         "{\"sku\":\"c\",\"name\":\"Corn\",\"note\":null},"
         "{\"id\":\"t1\",\"label\":\"L\"}]}}");
  gql_arena_free(a);
  gql_subgraph_free(sg);
}

Test(subgraph, json_entities_unknown_typename_errors_that_item) {
  gql_subgraph *sg = build(catalog_sdl);
  gql_arena *a = gql_arena_new(NULL);
  const gql_value *data = NULL;
  cr_assert_eq(gql_value_parse(a, catalog_json, strlen(catalog_json), &data),
               0);
  gql_subgraph_set_json(sg, data);
  /* Org exists but is not an entity of this subgraph. */
  expect(sg,
         "query($r: [_Any!]!) { _entities(representations: $r) { ... on Item "
         "{ name } } }",
         "{\"r\":[{\"__typename\":\"Org\",\"id\":\"1\"},"
         "{\"__typename\":\"Item\",\"sku\":\"b\"}]}",
         "{\"errors\":[{\"message\":\"The _entities resolver tried to load an "
         "entity for type \\\"Org\\\", but no object type of that name was "
         "found in the schema\",\"locations\":[{\"line\":1,\"column\":23}],"
         "\"path\":[\"_entities\",0]}],"
         "\"data\":{\"_entities\":[null,{\"name\":\"Bean\"}]}}");
  gql_arena_free(a);
  gql_subgraph_free(sg);
}

/* ---- more shapes */

static void failing_entity(const gql_entity_call *call, gql_out *out) {
  if (call->index == 1)
    gql_out_error(out, "no such user here");
  else
    gql_out_json(out, call->representation); /* typed by its __typename */
}

Test(subgraph, entity_resolver_error_nulls_its_item_only) {
  gql_subgraph *sg = build("type Query { x: Int }\n"
                           "type User @key(fields: \"id\") { id: ID! }\n");
  cr_assert_eq(gql_subgraph_set_entity(sg, "User", failing_entity, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  cr_assert_eq(gql_subgraph_set_entity(sg, "Nope", failing_entity, NULL,
                                       GQL_RESOLVER_SYNC),
               GQL_ENOTFOUND);
  expect(sg,
         "query($r: [_Any!]!) { _entities(representations: $r) { __typename "
         "... on User { id } } }",
         "{\"r\":[{\"__typename\":\"User\",\"id\":\"a\"},"
         "{\"__typename\":\"User\",\"id\":\"b\"},"
         "{\"__typename\":\"User\",\"id\":\"c\"}]}",
         "{\"errors\":[{\"message\":\"no such user here\",\"locations\":[{"
         "\"line\":1,\"column\":23}],\"path\":[\"_entities\",1]}],"
         "\"data\":{\"_entities\":[{\"__typename\":\"User\",\"id\":\"a\"},"
         "null,{\"__typename\":\"User\",\"id\":\"c\"}]}}");
  gql_subgraph_free(sg);
}

Test(subgraph, schema_definition_names_the_query_root) {
  gql_subgraph *sg = build("schema { query: Root }\n"
                           "type Root { a: Int }\n"
                           "type User @key(fields: \"id\") { id: ID! }\n");
  expect(sg,
         "{ _service { __typename } _entities(representations: []) { "
         "__typename } }",
         NULL,
         "{\"data\":{\"_service\":{\"__typename\":\"_Service\"},"
         "\"_entities\":[]}}");
  gql_subgraph_free(sg);
}

Test(subgraph, no_entities_means_no_entities_field) {
  gql_subgraph *sg = build("type Query { a: Int }\n");
  cr_assert_eq(gql_subgraph_entity_count(sg), 0);
  expect(sg, "{ __type(name: \"_Entity\") { name } }", NULL,
         "{\"data\":{\"__type\":null}}");
  gql_subgraph_free(sg);
}

/* The benchmark's Federation 1 texts (extend type, no @link, @include and
 * @skip redefined) build, and _service gives each back unchanged. */
Test(subgraph, benchmark_federation1_sdl_builds) {
  static const char *const names[] = {"accounts", "inventory", "products",
                                      "reviews"};
  static const uint32_t entities[] = {1, 1, 1, 3};
  for (int i = 0; i < 4; i++) {
    char path[512];
    snprintf(path, sizeof path,
             GQL_SOURCE_DIR "/../shared/gateway-bench/subgraphs/%s.graphql",
             names[i]);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    gql_subgraph *sg = build(text);
    cr_assert_eq(gql_subgraph_entity_count(sg), entities[i], "%s", names[i]);
    gql_arena *a = gql_arena_new(NULL);
    gql_str json = {0};
    const char *q = "{ _service { sdl } }";
    cr_assert_eq(gql_graphql(gql_subgraph_schema(sg), q, strlen(q), NULL, NULL,
                             0, NULL, NULL, a, &json),
                 0);
    const gql_value *v = NULL;
    cr_assert_eq(gql_value_parse(a, json.ptr, json.len, &v), 0);
    gql_str s = gql_value_string(gql_value_get(
        gql_value_get(gql_value_get(v, "data", 4), "_service", 8), "sdl", 3));
    cr_assert(s.len == n && memcmp(s.ptr, text, n) == 0, "%s", names[i]);
    gql_arena_free(a);
    gql_subgraph_free(sg);
  }
}

/* An entity resolver may pend; the item completes later, order kept. */
typedef struct later {
  gql_pending *p;
  const gql_value *rep;
  uint32_t type;
  gql_buf response;
} later;

static void pending_entity(const gql_entity_call *call, gql_out *out) {
  later *l = call->data;
  if (call->index != 0) {
    gql_out_json(out, call->representation);
    return;
  }
  l->p = gql_out_pending(out);
  l->rep = call->representation;
  l->type = call->type;
}

static void collect(void *ud, const char *json, size_t len, bool has_errors) {
  gql_buf_append(&((later *)ud)->response, json, len);
}

Test(subgraph, pending_entity_completes_in_its_place) {
  gql_subgraph *sg = build("type Query { x: Int }\n"
                           "type User @key(fields: \"id\") { id: ID! }\n");
  later l = {0};
  gql_buf_init(&l.response, NULL);
  cr_assert_eq(gql_subgraph_set_entity(sg, "User", pending_entity, &l, 0), 0);
  const char *q = "{ _entities(representations: [{__typename: \"User\", id: "
                  "\"a\"}, {__typename: \"User\", id: \"b\"}]) { ... on User "
                  "{ id } } }";
  gql_prepared *p = NULL;
  cr_assert_eq(
      gql_prepare(gql_subgraph_schema(sg), q, strlen(q), NULL, NULL, &p, NULL),
      0);
  gql_arena *a = gql_arena_new(NULL);
  gql_execute_params params = {.arena = a, .on_done = collect, .ud = &l};
  cr_assert_eq(gql_execute(p, &params), 0);
  cr_assert_not_null(l.p);
  cr_assert_eq(l.response.len, 0);
  gql_out_object(gql_pending_out(l.p), l.rep, l.type);
  cr_assert_str_eq(
      gql_buf_cstr(&l.response),
      "{\"data\":{\"_entities\":[{\"id\":\"a\"},{\"id\":\"b\"}]}}");
  gql_buf_free(&l.response);
  gql_arena_free(a);
  gql_prepared_free(p);
  gql_subgraph_free(sg);
}

/* Many entity types, extensions and @key directives build in linear time
 * and memory (names and keys are indexed, not rescanned). */
Test(subgraph, many_entities_and_keys_build) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (int i = 0; i < 5000; i++)
    gql_buf_printf(&b, "extend type T%d @key(fields: \"id\") { id: ID! }\n", i);
  gql_buf_puts(&b, "type Many");
  for (int i = 0; i < 3000; i++)
    gql_buf_puts(&b, " @key(fields: \"id\")");
  gql_buf_puts(&b, " { id: ID! }\n");
  gql_subgraph *sg = build(gql_buf_cstr(&b));
  cr_assert_eq(gql_subgraph_entity_count(sg), 5001);
  expect(sg,
         "{ _entities(representations: [{__typename: \"T4999\", id: \"x\"}, "
         "{__typename: \"Many\", id: \"y\"}]) { __typename } }",
         NULL,
         "{\"data\":{\"_entities\":[{\"__typename\":\"T4999\"},"
         "{\"__typename\":\"Many\"}]}}");
  gql_subgraph_free(sg);
  gql_buf_free(&b);
}

/* Federation 2 SDL: the directives the brief lists, namespaced names
 * (@federation__key), and a directive the SDL defines itself (kept). */
Test(subgraph, federation2_directives_build) {
  gql_subgraph *sg = build(
      "extend schema @link(url: \"https://specs.apollo.dev/federation/v2.5\","
      " import: [\"@key\", \"@shareable\", \"@tag\", \"@inaccessible\", "
      "\"@override\", {name: \"@composeDirective\"}])\n"
      "directive @tag(name: String!) repeatable on FIELD_DEFINITION | OBJECT\n"
      "type Query { a: A @shareable @tag(name: \"t\") hidden: Int "
      "@inaccessible }\n"
      "type A @federation__key(fields: \"id\") @shareable { id: ID! b: Int "
      "@override(from: \"other\", label: \"percent(5)\") c: Int "
      "@federation__external d: Int @federation__requires(fields: \"c\") }\n"
      "type B @key(fields: \"x\", resolvable: true) @tag(name: \"b\") { x: "
      "Int }\n");
  cr_assert_eq(gql_subgraph_entity_count(sg), 2);
  expect(sg,
         "{ _entities(representations: [{__typename: \"A\", id: \"1\", c: "
         "3}, {__typename: \"B\", x: 2}]) { ... on A { id c } ... on B { x } "
         "} }",
         NULL, "{\"data\":{\"_entities\":[{\"id\":\"1\",\"c\":3},{\"x\":2}]}}");
  gql_subgraph_free(sg);
}
