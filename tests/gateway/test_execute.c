/*
 * End to end without a network: the four benchmark subgraphs are played by
 * gql's own executor (same data and quirks as the benchmark's Rust
 * subgraphs, see gateway-bench/README.md), each request the gateway makes
 * is executed against them, and the merged answer must be byte-identical
 * to expected_response.json.
 */
#include "gateway/execute_internal.h"
#include "helpers.h"
#include "json/json.h"

#define ENTITIES                                                               \
  "scalar _Any\n"                                                              \
  "type Query { _entities(representations: [_Any!]!): [_Entity]! "

static const char *SDL_ACCOUNTS =
    ENTITIES "me: User user(id: ID!): User users: [User] }\n"
             "union _Entity = User\n"
             "type User { id: ID! name: String username: String birthday: Int "
             "}";
static const char *SDL_PRODUCTS =
    ENTITIES "topProducts(first: Int = 5): [Product] }\n"
             "union _Entity = Product\n"
             "type Product { upc: String! name: String price: Int weight: Int "
             "}";
static const char *SDL_INVENTORY =
    ENTITIES "}\nunion _Entity = Product\n"
             "type Product { upc: String! weight: Int price: Int inStock: "
             "Boolean shippingEstimate: Int }";
static const char *SDL_REVIEWS =
    ENTITIES "}\nunion _Entity = Product | Review | User\n"
             "type Product { upc: String! reviews: [Review] }\n"
             "type Review { id: ID! body: String product: Product author: "
             "User }\n"
             "type User { id: ID! username: String reviews: [Review] }";

static const char *USERS =
    "[{\"__typename\":\"User\",\"id\":\"1\",\"name\":\"Uri "
    "Goldshtein\",\"username\":\"urigo\",\"birthday\":1234567890},"
    "{\"__typename\":\"User\",\"id\":\"2\",\"name\":\"Dotan "
    "Simha\",\"username\":\"dotansimha\",\"birthday\":1234567890},"
    "{\"__typename\":\"User\",\"id\":\"3\",\"name\":\"Kamil "
    "Kisiela\",\"username\":\"kamilkisiela\",\"birthday\":1234567890},"
    "{\"__typename\":\"User\",\"id\":\"4\",\"name\":\"Arda "
    "Tanrikulu\",\"username\":\"ardatan\",\"birthday\":1234567890},"
    "{\"__typename\":\"User\",\"id\":\"5\",\"name\":\"Gil "
    "Gardosh\",\"username\":\"gilgardosh\",\"birthday\":1234567890},"
    "{\"__typename\":\"User\",\"id\":\"6\",\"name\":\"Laurin "
    "Quast\",\"username\":\"laurin\",\"birthday\":1234567890}]";

static const char *PRODUCTS =
    "[{\"upc\":\"1\",\"name\":\"Table\",\"price\":899,\"weight\":100},"
    "{\"upc\":\"2\",\"name\":\"Couch\",\"price\":1299,\"weight\":1000},"
    "{\"upc\":\"3\",\"name\":\"Glass\",\"price\":15,\"weight\":20},"
    "{\"upc\":\"4\",\"name\":\"Chair\",\"price\":499,\"weight\":100},"
    "{\"upc\":\"5\",\"name\":\"TV\",\"price\":1299,\"weight\":1000},"
    "{\"upc\":\"6\",\"name\":\"Lamp\",\"price\":6999,\"weight\":300},"
    "{\"upc\":\"7\",\"name\":\"Grill\",\"price\":3999,\"weight\":2000},"
    "{\"upc\":\"8\",\"name\":\"Fridge\",\"price\":100000,\"weight\":6000},"
    "{\"upc\":\"9\",\"name\":\"Sofa\",\"price\":9999,\"weight\":800}]";

static const bool IN_STOCK[10] = {false, true, false, false, false,
                                  true,  true, true,  false, true};

typedef struct fixture {
  gql_arena *arena;
  const gql_value *users, *products, *reviews;
  gql_schema *schemas[4]; /* accounts, inventory, products, reviews */
  uint32_t requests[4];
  char *last_body[4];
  bool fail_inventory;
} fixture;

typedef struct vlist {
  const gql_value **items;
  size_t n;
} vlist;

static void vlist_item(const void *list, size_t i, gql_out *out) {
  const vlist *l = list;
  if (l->items[i])
    gql_out_json(out, l->items[i]);
  else
    gql_out_null(out);
}

static vlist *vlist_new(gql_arena *a, size_t n) {
  vlist *l = gql_arena_alloc(a, sizeof *l);
  l->items = gql_arena_alloc(a, (n + 1) * sizeof *l->items);
  l->n = n;
  return l;
}

static const gql_value *json_in(gql_arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = gql_arena_vsprintf(a, fmt, ap);
  va_end(ap);
  const gql_value *v;
  cr_assert_eq(gql_value_parse(a, text, strlen(text), &v), 0, "%s", text);
  return v;
}

static gql_str str_of(const gql_value *obj, const char *key) {
  return gql_value_string(gql_value_get(obj, key, strlen(key)));
}

static const gql_value *find_by(const gql_value *list, const char *key,
                                gql_str want) {
  for (size_t i = 0; i < gql_value_count(list); i++)
    if (gql_str_eq(str_of(gql_value_item(list, i), key), want))
      return gql_value_item(list, i);
  return NULL;
}

/* ---- accounts */
static void accounts_users(const gql_resolve_info *info, const void *parent,
                           gql_out *out) {
  gql_out_json(out, ((fixture *)gql_info_data(info))->users);
}
static void accounts_me(const gql_resolve_info *info, const void *parent,
                        gql_out *out) {
  gql_out_json(out, gql_value_item(((fixture *)gql_info_data(info))->users, 0));
}
static void accounts_entities(const gql_resolve_info *info, const void *parent,
                              gql_out *out) {
  fixture *fx = gql_info_data(info);
  const gql_value *reps = gql_arg(info, "representations");
  vlist *l = vlist_new(gql_info_arena(info), gql_value_count(reps));
  for (size_t i = 0; i < l->n; i++)
    l->items[i] =
        find_by(fx->users, "id", str_of(gql_value_item(reps, i), "id"));
  gql_out_list(out, l, l->n, vlist_item);
}

/* ---- products */
static void products_top(const gql_resolve_info *info, const void *parent,
                         gql_out *out) {
  fixture *fx = gql_info_data(info);
  int64_t first = 5;
  gql_value_int(gql_arg(info, "first"), &first);
  size_t n = gql_value_count(fx->products);
  if (first >= 0 && (size_t)first < n)
    n = (size_t)first;
  vlist *l = vlist_new(gql_info_arena(info), n);
  for (size_t i = 0; i < n; i++)
    l->items[i] = gql_value_item(fx->products, i);
  gql_out_list(out, l, n, vlist_item);
}
static void products_entities(const gql_resolve_info *info, const void *parent,
                              gql_out *out) {
  fixture *fx = gql_info_data(info);
  const gql_value *reps = gql_arg(info, "representations");
  gql_arena *a = gql_info_arena(info);
  vlist *l = vlist_new(a, gql_value_count(reps));
  for (size_t i = 0; i < l->n; i++) {
    const gql_value *p =
        find_by(fx->products, "upc", str_of(gql_value_item(reps, i), "upc"));
    int64_t price = 0, weight = 0;
    gql_value_int(gql_value_get(p, "price", 5), &price);
    gql_value_int(gql_value_get(p, "weight", 6), &weight);
    gql_str name = str_of(p, "name"), upc = str_of(p, "upc");
    l->items[i] = json_in(a,
                          "{\"__typename\":\"Product\",\"upc\":\"%.*s\","
                          "\"name\":\"%.*s\",\"price\":%lld,\"weight\":%lld}",
                          (int)upc.len, upc.ptr, (int)name.len, name.ptr,
                          (long long)price, (long long)weight);
  }
  gql_out_list(out, l, l->n, vlist_item);
}

/* ---- inventory: ignores the representation's price and weight */
static void inventory_entities(const gql_resolve_info *info, const void *parent,
                               gql_out *out) {
  const gql_value *reps = gql_arg(info, "representations");
  gql_arena *a = gql_info_arena(info);
  vlist *l = vlist_new(a, gql_value_count(reps));
  for (size_t i = 0; i < l->n; i++) {
    gql_str upc = str_of(gql_value_item(reps, i), "upc");
    int k = upc.len == 1 ? upc.ptr[0] - '0' : 0;
    l->items[i] = json_in(a,
                          "{\"__typename\":\"Product\",\"upc\":\"%.*s\","
                          "\"inStock\":%s,\"price\":null,\"weight\":null,"
                          "\"shippingEstimate\":null}",
                          (int)upc.len, upc.ptr,
                          k > 0 && k < 10 && IN_STOCK[k] ? "true" : "false");
  }
  gql_out_list(out, l, l->n, vlist_item);
}

/* ---- reviews */
static const gql_value *review_obj(gql_arena *a, const gql_value *r) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{\"__typename\":\"Review\",\"id\":");
  gql_json_write_string(&b, str_of(r, "id"));
  gql_buf_puts(&b, ",\"body\":");
  gql_json_write_string(&b, str_of(r, "body"));
  gql_buf_puts(&b, ",\"upc\":");
  gql_json_write_string(&b, str_of(r, "upc"));
  gql_buf_putc(&b, '}');
  const gql_value *v = json_in(a, "%.*s", (int)b.len, b.data);
  gql_buf_free(&b);
  return v;
}

static void first_two_reviews(const gql_resolve_info *info, const void *parent,
                              gql_out *out) {
  fixture *fx = gql_info_data(info);
  gql_arena *a = gql_info_arena(info);
  vlist *l = vlist_new(a, 2);
  for (size_t i = 0; i < 2; i++)
    l->items[i] = review_obj(a, gql_value_item(fx->reviews, i));
  gql_out_list(out, l, 2, vlist_item);
}
static void product_reviews(const gql_resolve_info *info, const void *parent,
                            gql_out *out) {
  fixture *fx = gql_info_data(info);
  gql_arena *a = gql_info_arena(info);
  gql_str upc = str_of(parent, "upc");
  vlist *l = vlist_new(a, gql_value_count(fx->reviews));
  l->n = 0;
  for (size_t i = 0; i < gql_value_count(fx->reviews); i++) {
    const gql_value *r = gql_value_item(fx->reviews, i);
    if (gql_str_eq(str_of(r, "upc"), upc))
      l->items[l->n++] = review_obj(a, r);
  }
  gql_out_list(out, l, l->n, vlist_item);
}
static void review_product(const gql_resolve_info *info, const void *parent,
                           gql_out *out) {
  gql_str upc = str_of(parent, "upc");
  gql_out_json(out, json_in(gql_info_arena(info), "{\"upc\":\"%.*s\"}",
                            (int)upc.len, upc.ptr));
}
static void review_author(const gql_resolve_info *info, const void *parent,
                          gql_out *out) {
  gql_out_json(out, json_in(gql_info_arena(info),
                            "{\"id\":\"1\",\"username\":\"urigo\"}"));
}
static void reviews_entities(const gql_resolve_info *info, const void *parent,
                             gql_out *out) {
  fixture *fx = gql_info_data(info);
  const gql_value *reps = gql_arg(info, "representations");
  gql_arena *a = gql_info_arena(info);
  vlist *l = vlist_new(a, gql_value_count(reps));
  for (size_t i = 0; i < l->n; i++) {
    const gql_value *rep = gql_value_item(reps, i);
    gql_str tn = str_of(rep, "__typename");
    if (gql_str_eq_cstr(tn, "Product")) {
      gql_str upc = str_of(rep, "upc");
      l->items[i] = json_in(a, "{\"__typename\":\"Product\",\"upc\":\"%.*s\"}",
                            (int)upc.len, upc.ptr);
    } else if (gql_str_eq_cstr(tn, "User")) {
      gql_str id = str_of(rep, "id");
      l->items[i] = json_in(a,
                            "{\"__typename\":\"User\",\"id\":\"%.*s\","
                            "\"username\":\"user\"}",
                            (int)id.len, id.ptr);
    } else {
      const gql_value *r = find_by(fx->reviews, "id", str_of(rep, "id"));
      l->items[i] = r ? review_obj(a, r) : NULL;
    }
  }
  gql_out_list(out, l, l->n, vlist_item);
}

static gql_schema *subgraph(const char *sdl) {
  gql_schema *s = NULL;
  gql_arena *a = gql_arena_new(NULL);
  gql_errors errs = {.arena = a};
  int rc = gql_schema_from_sdl(sdl, strlen(sdl), NULL, &s, &errs);
  cr_assert_eq(rc, 0, "%s", errs.count ? errs.items[0].message : "?");
  gql_arena_free(a);
  return s;
}

static void set(gql_schema *s, const char *t, const char *f, gql_resolver_fn fn,
                fixture *fx) {
  cr_assert_eq(gql_schema_set_resolver(s, t, f, fn, fx, GQL_RESOLVER_SYNC), 0,
               "%s.%s", t, f);
}

static void fixture_init(fixture *fx) {
  memset(fx, 0, sizeof *fx);
  fx->arena = gql_arena_new(NULL);
  size_t len;
  char *reviews = gw_read_file(BENCH_DIR "peers/reviews-data.json", &len);
  char *copy = gql_arena_strndup(fx->arena, reviews, len);
  free(reviews);
  cr_assert_eq(gql_value_parse(fx->arena, copy, len, &fx->reviews), 0);
  cr_assert_eq(gql_value_parse(fx->arena, USERS, strlen(USERS), &fx->users), 0);
  cr_assert_eq(
      gql_value_parse(fx->arena, PRODUCTS, strlen(PRODUCTS), &fx->products), 0);
  gql_schema *acc = fx->schemas[0] = subgraph(SDL_ACCOUNTS);
  set(acc, "Query", "users", accounts_users, fx);
  set(acc, "Query", "me", accounts_me, fx);
  set(acc, "Query", "_entities", accounts_entities, fx);
  gql_schema *inv = fx->schemas[1] = subgraph(SDL_INVENTORY);
  set(inv, "Query", "_entities", inventory_entities, fx);
  gql_schema *prod = fx->schemas[2] = subgraph(SDL_PRODUCTS);
  set(prod, "Query", "topProducts", products_top, fx);
  set(prod, "Query", "_entities", products_entities, fx);
  gql_schema *rev = fx->schemas[3] = subgraph(SDL_REVIEWS);
  set(rev, "Query", "_entities", reviews_entities, fx);
  set(rev, "Product", "reviews", product_reviews, fx);
  set(rev, "Review", "product", review_product, fx);
  set(rev, "Review", "author", review_author, fx);
  set(rev, "User", "reviews", first_two_reviews, fx);
}

static void fixture_fini(fixture *fx) {
  for (int i = 0; i < 4; i++) {
    gql_schema_free(fx->schemas[i]);
    free(fx->last_body[i]);
  }
  gql_arena_free(fx->arena);
}

/* The transport: runs the body's query on the subgraph's schema. */
static int send_to_subgraph(void *ud, const gql_gw_batch *b, const char *body,
                            size_t len, gql_str *response) {
  fixture *fx = ud;
  cr_assert_lt(b->graph, 4);
  fx->requests[b->graph]++;
  free(fx->last_body[b->graph]);
  fx->last_body[b->graph] = gw_cstr((gql_str){body, len});
  if (fx->fail_inventory && b->graph == 1)
    return -1;
  gql_arena *a = fx->arena;
  const gql_value *req;
  char *copy = gql_arena_strndup(a, body, len);
  cr_assert_eq(gql_value_parse(a, copy, len, &req), 0);
  gql_str query = str_of(req, "query");
  gql_buf vars;
  gql_buf_init(&vars, NULL);
  gql_json_write_value(&vars, gql_value_get(req, "variables", 9));
  gql_str json;
  int rc = gql_graphql(fx->schemas[b->graph], query.ptr, query.len, NULL,
                       vars.data, vars.len, NULL, NULL, a, &json);
  gql_buf_free(&vars);
  cr_assert(rc == 0, "subgraph %u: %d", b->graph, rc);
  *response = json;
  return 0;
}

static char *run(fixture *fx, const gql_supergraph *sg, gql_arena *arena,
                 const char *query, gql_gw_request **req) {
  gql_gw_plan *plan = gw_plan(sg, arena, query, NULL);
  gql_buf out;
  gql_buf_init(&out, NULL);
  int rc = gql_gw_execute(plan, NULL, arena, send_to_subgraph, fx, &out, req);
  cr_assert_eq(rc, 0);
  char *s = gw_cstr((gql_str){out.data, out.len});
  gql_buf_free(&out);
  return s;
}

Test(gateway_execute, benchmark_answer_is_byte_identical_with_six_requests) {
  fixture fx;
  fixture_init(&fx);
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  char *query = gw_read_file(BENCH_DIR "query.graphql", NULL);
  size_t len;
  char *expected = gw_read_file(BENCH_DIR "expected_response.json", &len);
  gql_gw_request *req;
  char *got = run(&fx, sg, arena, query, &req);
  cr_expect_eq(strlen(got), len, "length %zu", strlen(got));
  if (strcmp(got, expected) != 0) {
    size_t i = 0;
    while (got[i] && got[i] == expected[i])
      i++;
    cr_assert_fail("differs at byte %zu: got ...%.80s... want ...%.80s...", i,
                   got + (i > 40 ? i - 40 : 0),
                   expected + (i > 40 ? i - 40 : 0));
  }
  uint32_t requests, sent, seen;
  gql_gw_request_stats(req, &requests, &sent, &seen);
  cr_expect_eq(requests, 6);
  cr_expect_eq(
      fx.requests[0] + fx.requests[1] + fx.requests[2] + fx.requests[3], 6);
  cr_expect_eq(fx.requests[1], 1, "one inventory request");
  /* de-duplication: 335 objects need an entity; fetches of one request
   * with the same shape share their representations, so 18 are sent
   * (reviews 6 users + 5 products, products 1, accounts 1, inventory 5) */
  cr_expect_eq(seen, 335, "seen %u", seen);
  cr_expect_eq(sent, 18, "sent %u", sent);
  cr_expect_str_eq(
      fx.last_body[1],
      "{\"query\":\"query($representations:[_Any!]!){_entities("
      "representations:$representations){...on Product{inStock "
      "shippingEstimate}}}\",\"variables\":{\"representations\":["
      "{\"__typename\":\"Product\",\"upc\":\"1\",\"price\":899,\"weight\":100},"
      "{\"__typename\":\"Product\",\"upc\":\"2\",\"price\":1299,\"weight\":"
      "1000},"
      "{\"__typename\":\"Product\",\"upc\":\"3\",\"price\":15,\"weight\":20},"
      "{\"__typename\":\"Product\",\"upc\":\"4\",\"price\":499,\"weight\":100},"
      "{\"__typename\":\"Product\",\"upc\":\"5\",\"price\":1299,\"weight\":"
      "1000}]}}");
  /* the inventory representations carry price and weight from products */
  cr_expect_not_null(strstr(fx.last_body[1],
                            "{\"__typename\":\"Product\",\"upc\":\"1\","
                            "\"price\":899,\"weight\":100}"),
                     "%s", fx.last_body[1]);
  free(got);
  free(expected);
  free(query);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
  fixture_fini(&fx);
}

Test(gateway_execute, aliases_typename_and_fragments_shape_the_response) {
  fixture fx;
  fixture_init(&fx);
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  char *got = run(&fx, sg, arena,
                  "{ t: topProducts(first: 2) { __typename ... on Product { "
                  "n: name } stock: inStock } me { ...U } } "
                  "fragment U on User { who: username __typename }",
                  NULL);
  cr_expect_str_eq(got, "{\"data\":{\"t\":[{\"__typename\":\"Product\",\"n\":"
                        "\"Table\",\"stock\":true},{\"__typename\":"
                        "\"Product\",\"n\":\"Couch\",\"stock\":false}],"
                        "\"me\":{\"who\":\"urigo\",\"__typename\":\"User\"}}}");
  free(got);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
  fixture_fini(&fx);
}

Test(gateway_execute, a_failed_subgraph_gives_an_error_and_nulls) {
  fixture fx;
  fixture_init(&fx);
  fx.fail_inventory = true;
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  char *got =
      run(&fx, sg, arena, "{ topProducts(first: 1) { name inStock } }", NULL);
  /* worded as Apollo Router words a subrequest that failed */
  cr_expect_str_eq(
      got, "{\"errors\":[{\"message\":\"HTTP fetch failed from 'inventory': "
           "the request failed\",\"extensions\":{\"service\":\"inventory\","
           "\"reason\":\"the request failed\",\"code\":"
           "\"SUBREQUEST_HTTP_ERROR\"}}],\"data\":{\"topProducts\":[{"
           "\"name\":\"Table\",\"inStock\":null}]}}");
  free(got);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
  fixture_fini(&fx);
}

/* Canned answers: a subgraph error on an entity is re-pathed to the
 * client's path, and a null in a non-null field propagates. */
static int canned(void *ud, const gql_gw_batch *b, const char *body, size_t len,
                  gql_str *response) {
  const char **answers = ud;
  *response = gql_cstr(answers[b->level - 1]);
  return 0;
}

Test(gateway_execute, entity_errors_are_repathed_and_nulls_propagate) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  const char *answers[] = {
      "{\"data\":{\"topProducts\":[{\"__typename\":\"Product\",\"upc\":\"1\"},"
      "{\"__typename\":\"Product\",\"upc\":\"2\"},"
      "{\"__typename\":\"Product\",\"upc\":\"1\"}]}}",
      "{\"data\":{\"_entities\":[{\"reviews\":[{\"id\":null}]},null]},"
      "\"errors\":[{\"message\":\"boom\",\"path\":[\"_entities\",1,"
      "\"reviews\"]}]}"};
  gql_gw_plan *plan =
      gw_plan(sg, arena, "{ topProducts { upc reviews { id } } }", NULL);
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_gw_request *req;
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, canned, answers, &out, &req),
               0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(
      got,
      "{\"errors\":[{\"message\":\"boom\",\"path\":[\"topProducts\",1,"
      "\"reviews\"]},{\"message\":\"Cannot return null for non-nullable "
      "field Review.id.\",\"path\":[\"topProducts\",0,\"reviews\",0,\"id\"]},"
      "{\"message\":\"Cannot return null for non-nullable field Review.id.\","
      "\"path\":[\"topProducts\",2,\"reviews\",0,\"id\"]}],"
      "\"data\":{\"topProducts\":[{\"upc\":\"1\",\"reviews\":[null]},"
      "{\"upc\":\"2\",\"reviews\":null},{\"upc\":\"1\",\"reviews\":[null]}]}}");
  uint32_t requests, sent, seen;
  gql_gw_request_stats(req, &requests, &sent, &seen);
  cr_expect_eq(requests, 2);
  cr_expect_eq(sent, 2, "upc 1 twice is sent once");
  cr_expect_eq(seen, 3);
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

/* Targets of one representation share their merged members only while
 * they are equal: the two products "A" share, "B" (same key, other name)
 * keeps its own; the next wave merges into the shared parts once and
 * every copy shows it. */
Test(gateway_execute, equal_targets_share_merges_and_unequal_ones_do_not) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  const char *answers[] = {
      "{\"data\":{\"topProducts\":["
      "{\"__typename\":\"Product\",\"upc\":\"1\",\"name\":\"A\"},"
      "{\"__typename\":\"Product\",\"upc\":\"1\",\"name\":\"B\"},"
      "{\"__typename\":\"Product\",\"upc\":\"1\",\"name\":\"A\"},"
      "{\"__typename\":\"Product\",\"upc\":\"2\",\"name\":\"C\"}]}}",
      "{\"data\":{\"_entities\":["
      "{\"reviews\":[{\"id\":\"r1\",\"author\":{\"__typename\":\"User\","
      "\"id\":\"u1\"}}]},"
      "{\"reviews\":[{\"id\":\"r2\",\"author\":{\"__typename\":\"User\","
      "\"id\":\"u2\"}}]}]}}",
      "{\"data\":{\"_entities\":[{\"name\":\"Ann\"},{\"name\":\"Bob\"}]}}"};
  gql_gw_plan *plan = gw_plan(
      sg, arena, "{ topProducts { upc name reviews { id author { name } } } }",
      NULL);
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_gw_request *req;
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, canned, answers, &out, &req),
               0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  const char *r1 =
      "\"reviews\":[{\"id\":\"r1\",\"author\":{\"name\":\"Ann\"}}]";
  char *want = gql_arena_sprintf(
      arena,
      "{\"data\":{\"topProducts\":[{\"upc\":\"1\",\"name\":\"A\",%s},"
      "{\"upc\":\"1\",\"name\":\"B\",%s},{\"upc\":\"1\",\"name\":\"A\",%s},"
      "{\"upc\":\"2\",\"name\":\"C\",\"reviews\":[{\"id\":\"r2\","
      "\"author\":{\"name\":\"Bob\"}}]}]}}",
      r1, r1, r1);
  cr_expect_str_eq(got, want);
  uint32_t requests, sent, seen;
  gql_gw_request_stats(req, &requests, &sent, &seen);
  cr_expect_eq(requests, 3);
  cr_expect_eq(sent, 4, "products 1 and 2, users u1 and u2");
  cr_expect_eq(seen, 8);
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(gateway_execute, no_request_when_no_object_needs_the_entity_fetch) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  const char *answers[] = {"{\"data\":{\"topProducts\":[]}}",
                           "{\"data\":{\"_entities\":[]}}"};
  gql_gw_plan *plan = gw_plan(sg, arena, "{ topProducts { inStock } }", NULL);
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_gw_request *req;
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, canned, answers, &out, &req),
               0);
  uint32_t requests, sent, seen;
  gql_gw_request_stats(req, &requests, &sent, &seen);
  cr_expect_eq(requests, 1);
  cr_expect_eq(out.len, strlen("{\"data\":{\"topProducts\":[]}}"));
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(gateway_execute, a_malformed_subgraph_answer_is_an_error_not_a_crash) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  const char *answers[] = {"{\"data\":{\"me\":", "x"};
  gql_gw_plan *plan = gw_plan(sg, arena, "{ me { id } }", NULL);
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, canned, answers, &out, NULL),
               0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(
      got, "{\"errors\":[{\"message\":\"service 'accounts' response was "
           "malformed: invalid JSON: Unexpected end of input at line 1, column "
           "15\",\"extensions\":{\"service\":\"accounts\",\"reason\":\"invalid "
           "JSON: Unexpected end of input at line 1, column 15\",\"code\":"
           "\"SUBREQUEST_MALFORMED_RESPONSE\"}}],\"data\":{\"me\":null}}");
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(gateway_execute, client_variables_are_forwarded_to_subgraphs) {
  fixture fx;
  fixture_init(&fx);
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan = gw_plan(
      sg, arena, "query Q($n: Int) { topProducts(first: $n) { upc } }", NULL);
  const gql_value *vars;
  const char *vj = "{\"n\":2,\"unused\":\"secret\"}";
  cr_assert_eq(gql_value_parse(arena, vj, strlen(vj), &vars), 0);
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(
      gql_gw_execute(plan, vars, arena, send_to_subgraph, &fx, &out, NULL), 0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(got, "{\"data\":{\"topProducts\":[{\"upc\":\"1\"},{\"upc\":"
                        "\"2\"}]}}");
  cr_expect_str_eq(fx.last_body[2],
                   "{\"query\":\"query($n:Int){topProducts(first:$n){upc}}\","
                   "\"variables\":{\"n\":2}}");
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
  fixture_fini(&fx);
}

Test(gateway_execute, root_typename_needs_no_subgraph) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan = gw_plan(sg, arena, "{ __typename t: __typename }", NULL);
  cr_expect_eq(plan->nbatches, 0);
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, canned, NULL, &out, NULL), 0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(got,
                   "{\"data\":{\"__typename\":\"Query\",\"t\":\"Query\"}}");
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

static const char *ABSTRACT_SG =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
    "B @join__graph(name: \"b\", url: \"http://b\") }\n"
    "interface Node @join__type(graph: A) { id: ID! }\n"
    "type Thing implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__type(graph: A, key: \"id\") @join__type(graph: B, key: "
    "\"id\") {\n  id: ID!\n  name: String @join__field(graph: A)\n"
    "  price: Int @join__field(graph: B)\n}\n"
    "type Other implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__type(graph: A) { id: ID! label: String }\n"
    "union Any @join__type(graph: A) @join__unionMember(graph: A, member: "
    "\"Thing\") @join__unionMember(graph: A, member: \"Other\") = Thing | "
    "Other\n"
    "type Query @join__type(graph: A) { nodes: [Node] any: [Any] }\n";

Test(gateway_execute, fragments_below_interfaces_select_by_concrete_type) {
  gql_supergraph *sg = gw_load_text(ABSTRACT_SG);
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan = gw_plan(sg, arena,
                              "{ nodes { __typename id ... on Thing { name "
                              "price } ... on Other { label } } }",
                              NULL);
  cr_assert_eq(plan->nbatches, 2);
  char *op = gw_cstr(plan->batches[0].operation);
  cr_expect_str_eq(op, "query{nodes{__typename id ...on Thing{name "
                       "__typename id} ...on Other{label}}}");
  free(op);
  op = gw_cstr(plan->batches[1].operation);
  cr_expect_str_eq(op, "query($representations:[_Any!]!){_entities("
                       "representations:$representations){...on "
                       "Thing{price}}}");
  free(op);
  const char *answers[] = {
      "{\"data\":{\"nodes\":[{\"__typename\":\"Thing\",\"id\":\"1\","
      "\"name\":\"T1\"},{\"__typename\":\"Other\",\"id\":\"2\",\"label\":"
      "\"O2\"},null]}}",
      "{\"data\":{\"_entities\":[{\"price\":5}]}}"};
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_gw_request *req;
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, canned, answers, &out, &req),
               0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(got, "{\"data\":{\"nodes\":[{\"__typename\":\"Thing\","
                        "\"id\":\"1\",\"name\":\"T1\",\"price\":5},{"
                        "\"__typename\":\"Other\",\"id\":\"2\",\"label\":"
                        "\"O2\"},null]}}");
  uint32_t requests, sent, seen;
  gql_gw_request_stats(req, &requests, &sent, &seen);
  cr_expect_eq(seen, 1, "only the Thing needs an entity fetch");
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(gateway_execute, union_fragments_merge_fields_by_response_key) {
  gql_supergraph *sg = gw_load_text(ABSTRACT_SG);
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan =
      gw_plan(sg, arena,
              "{ any { ... on Node { id } ... on Thing { id name } } }", NULL);
  cr_assert_eq(plan->nbatches, 1);
  char *op = gw_cstr(plan->batches[0].operation);
  /* per concrete type, in the order the selection names them */
  cr_expect_str_eq(
      op, "query{any{__typename ...on Thing{id name} ...on Other{id}}}");
  free(op);
  const char *answers[] = {
      "{\"data\":{\"any\":[{\"__typename\":\"Thing\",\"id\":\"1\",\"name\":"
      "\"T\"},{\"__typename\":\"Other\",\"id\":\"2\"}]}}"};
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, canned, answers, &out, NULL),
               0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(got, "{\"data\":{\"any\":[{\"id\":\"1\",\"name\":\"T\"},{"
                        "\"id\":\"2\"}]}}");
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

typedef struct recorder {
  fixture *fx;
  char *answers[16];
  size_t lens[16];
  int n;
} recorder;

static int record_send(void *ud, const gql_gw_batch *b, const char *body,
                       size_t len, gql_str *response) {
  recorder *rec = ud;
  int rc = send_to_subgraph(rec->fx, b, body, len, response);
  cr_assert_lt(rec->n, 16);
  rec->answers[rec->n] = gw_cstr(*response);
  rec->lens[rec->n++] = response->len;
  return rc;
}

typedef struct replayer {
  char **answers;
  size_t *lens;
  int next, n;
} replayer;

static int replay_send(void *ud, const gql_gw_batch *b, const char *body,
                       size_t len, gql_str *response) {
  replayer *rp = ud;
  if (rp->next >= rp->n)
    return -1;
  *response = (gql_str){rp->answers[rp->next], rp->lens[rp->next]};
  rp->next++;
  return 0;
}

static uint64_t xorshift(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

Test(gateway_execute, corrupted_subgraph_answers_give_errors_never_crashes) {
  fixture fx;
  fixture_init(&fx);
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  char *query = gw_read_file(BENCH_DIR "query.graphql", NULL);
  gql_gw_plan *plan = gw_plan(sg, arena, query, NULL);
  recorder rec = {.fx = &fx};
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, record_send, &rec, &out, NULL),
               0);
  cr_assert_eq(rec.n, 6);
  static const char junk[] = "{}[]\",:0n-tx\\";
  uint64_t seed = 0x2545f4914f6cdd1dull;
  char *mutated[16];
  for (int iter = 0; iter < 1000; iter++) {
    for (int i = 0; i < rec.n; i++) {
      mutated[i] = malloc(rec.lens[i] + 1);
      memcpy(mutated[i], rec.answers[i], rec.lens[i] + 1);
    }
    size_t lens[16];
    memcpy(lens, rec.lens, sizeof lens);
    int victim = (int)(xorshift(&seed) % (uint64_t)rec.n);
    size_t at = xorshift(&seed) % lens[victim];
    switch (xorshift(&seed) % 3) {
    case 0: /* truncated */
      lens[victim] = at;
      break;
    case 1: /* a byte replaced */
      mutated[victim][at] = junk[xorshift(&seed) % (sizeof junk - 1)];
      break;
    default: /* a value of another kind */
      if (at + 4 < lens[victim])
        memcpy(mutated[victim] + at, "null", 4);
      break;
    }
    gql_arena *a = gql_arena_new(NULL);
    replayer rp = {mutated, lens, 0, rec.n};
    out.len = 0;
    int rc = gql_gw_execute(plan, NULL, a, replay_send, &rp, &out, NULL);
    cr_assert_eq(rc, 0, "iteration %d", iter);
    gql_json_value *v;
    gql_json_error jerr;
    cr_assert_eq(gql_json_parse(a, out.data, out.len, NULL, &v, &jerr), 0,
                 "iteration %d: the response is not JSON", iter);
    cr_assert_not_null(gql_json_get(v, GQL_STR("data")));
    gql_arena_free(a);
    for (int i = 0; i < rec.n; i++)
      free(mutated[i]);
  }
  for (int i = 0; i < rec.n; i++)
    free(rec.answers[i]);
  gql_buf_free(&out);
  free(query);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
  fixture_fini(&fx);
}

/* Abstract types across three subgraphs: Media (graph a) is implemented by
 * Book, extended by b, and Movie, extended by c. */
static const char *MEDIA_SG =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
    "B @join__graph(name: \"b\", url: \"http://b\") "
    "C @join__graph(name: \"c\", url: \"http://c\") }\n"
    "interface Media @join__type(graph: A) { id: ID! title: String }\n"
    "type Book implements Media @join__implements(graph: A, interface: "
    "\"Media\") @join__type(graph: A, key: \"id\") @join__type(graph: B, "
    "key: \"id\") { id: ID! title: String @join__field(graph: A) pages: Int "
    "@join__field(graph: B) }\n"
    "type Movie implements Media @join__implements(graph: A, interface: "
    "\"Media\") @join__type(graph: A, key: \"id\") @join__type(graph: C, "
    "key: \"id\") { id: ID! title: String @join__field(graph: A) rating: "
    "Int @join__field(graph: C) }\n"
    "type Query @join__type(graph: A) { media: [Media] }\n";

typedef struct by_graph {
  const gql_gw_plan *plan;
  const char *answers[3]; /* a, b, c */
  char *bodies[3];
} by_graph;

static int answer_by_graph(void *ud, const gql_gw_batch *b, const char *body,
                           size_t len, gql_str *response) {
  by_graph *g = ud;
  gql_str name = g->plan->sg->graphs[b->graph].name;
  int i = name.ptr[0] - 'a';
  cr_assert(i >= 0 && i < 3 && !g->bodies[i], "one request to each graph");
  g->bodies[i] = gw_cstr((gql_str){body, len});
  *response = gql_cstr(g->answers[i]);
  return 0;
}

Test(gateway_execute, interface_members_merge_from_their_own_subgraphs) {
  gql_supergraph *sg = gw_load_text(MEDIA_SG);
  gql_arena *arena = gql_arena_new(NULL);
  by_graph g = {
      .plan = gw_plan(sg, arena,
                      "{ media { __typename id ... on Book { pages } ... on "
                      "Movie { title rating } } }",
                      NULL),
      .answers = {
          "{\"data\":{\"media\":[{\"__typename\":\"Book\",\"id\":\"b1\"},"
          "{\"__typename\":\"Movie\",\"id\":\"m1\",\"title\":\"M\"},"
          "{\"__typename\":\"Book\",\"id\":\"b1\"},"
          "{\"__typename\":\"Book\",\"id\":\"b2\"}]}}",
          "{\"data\":{\"_entities\":[{\"pages\":10},{\"pages\":20}]}}",
          "{\"data\":{\"_entities\":[{\"rating\":5}]}}"}};
  gql_buf out;
  gql_buf_init(&out, NULL);
  gql_gw_request *req;
  cr_assert_eq(
      gql_gw_execute(g.plan, NULL, arena, answer_by_graph, &g, &out, &req), 0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  /* each Book gets its pages (b1 twice from one representation), the
   * Movie its rating; the planner's keys stay out of the answer */
  cr_expect_str_eq(got,
                   "{\"data\":{\"media\":["
                   "{\"__typename\":\"Book\",\"id\":\"b1\",\"pages\":10},"
                   "{\"__typename\":\"Movie\",\"id\":\"m1\",\"title\":"
                   "\"M\",\"rating\":5},"
                   "{\"__typename\":\"Book\",\"id\":\"b1\",\"pages\":10},"
                   "{\"__typename\":\"Book\",\"id\":\"b2\",\"pages\":20}]}}");
  /* b is sent the Books only, de-duplicated; c the Movie only */
  cr_expect_not_null(
      strstr(g.bodies[1], "\"variables\":{\"representations\":[{\"__"
                          "typename\":\"Book\",\"id\":\"b1\"},{\"__typename\":"
                          "\"Book\",\"id\":\"b2\"}]}"),
      "%s", g.bodies[1]);
  cr_expect_not_null(strstr(g.bodies[2],
                            "\"variables\":{\"representations\":[{\"__"
                            "typename\":\"Movie\",\"id\":\"m1\"}]}"),
                     "%s", g.bodies[2]);
  uint32_t requests, sent, seen;
  gql_gw_request_stats(req, &requests, &sent, &seen);
  cr_expect_eq(requests, 3);
  cr_expect_eq(seen, 4);
  cr_expect_eq(sent, 3);
  for (int i = 0; i < 3; i++)
    free(g.bodies[i]);
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

typedef struct body_log {
  const char **answers;
  char *bodies[8];
  uint32_t n;
} body_log;

/* Canned answers by wave, and the bodies sent. */
static int log_bodies(void *ud, const gql_gw_batch *b, const char *body,
                      size_t len, gql_str *response) {
  body_log *rec = ud;
  if (rec->n < 8)
    rec->bodies[rec->n++] = gw_cstr((gql_str){body, len});
  *response = gql_cstr(rec->answers[b->level - 1]);
  return 0;
}

Test(gateway_execute, an_entity_with_a_null_key_is_not_asked_for) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan =
      gw_plan(sg, arena, "{ topProducts { name reviews { id } } }", NULL);
  const char *answers[] = {
      "{\"data\":{\"topProducts\":[{\"name\":\"A\",\"__typename\":\"Product\","
      "\"upc\":\"1\"},{\"name\":\"B\",\"__typename\":\"Product\",\"upc\":"
      "null}]}}",
      "{\"data\":{\"_entities\":[{\"reviews\":[{\"id\":\"r1\"}]}]}}"};
  body_log rec = {answers, {0}, 0};
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(gql_gw_execute(plan, NULL, arena, log_bodies, &rec, &out, NULL),
               0);
  cr_assert_eq(rec.n, 2);
  cr_expect_not_null(strstr(rec.bodies[1], "\"representations\":[{"
                                           "\"__typename\":\"Product\","
                                           "\"upc\":\"1\"}]}"),
                     "%s", rec.bodies[1]);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(got, "{\"data\":{\"topProducts\":[{\"name\":\"A\","
                        "\"reviews\":[{\"id\":\"r1\"}]},{\"name\":\"B\","
                        "\"reviews\":null}]}}");
  free(got);
  for (uint32_t i = 0; i < rec.n; i++)
    free(rec.bodies[i]);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(gateway_execute, an_enum_value_the_api_hides_is_null_with_an_error) {
  char *sdl = gw_read_file(
      GQL_SOURCE_DIR "/tests/gateway/data/types_enums.graphql", NULL);
  gql_supergraph *sg = gw_load_text(sdl);
  free(sdl);
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan = gw_plan(sg, arena, "{ users { kind } }", NULL);
  const char *answers[] = {"{\"data\":{\"users\":[{\"kind\":\"PLAIN\"},{"
                           "\"kind\":\"SECRET\"},{\"kind\":\"NOPE\"}]}}"};
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(
      gql_gw_execute(plan, NULL, arena, gw_canned, answers, &out, NULL), 0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  /* as graphql-js serialises an enum value its type lacks */
  cr_expect_str_eq(
      got,
      "{\"errors\":[{\"message\":\"Enum \\\"Kind\\\" cannot represent "
      "value: \\\"SECRET\\\"\",\"path\":[\"users\",1,\"kind\"]},{"
      "\"message\":\"Enum \\\"Kind\\\" cannot represent value: "
      "\\\"NOPE\\\"\",\"path\":[\"users\",2,\"kind\"]}],\"data\":{"
      "\"users\":[{\"kind\":\"PLAIN\"},{\"kind\":null},{\"kind\":null}]}}");
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(gateway_execute, introspection_is_answered_beside_subgraph_fields) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan = gw_plan(
      sg, arena,
      "query($t: String!) { t: __type(name: $t) { name fields { name } } me "
      "{ id } __typename }",
      NULL);
  const char *answers[] = {"{\"data\":{\"me\":{\"id\":\"1\"}}}"};
  const gql_value *vars;
  cr_assert_eq(gql_value_parse(arena, "{\"t\":\"User\"}", 12, &vars), 0);
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(
      gql_gw_execute(plan, vars, arena, gw_canned, answers, &out, NULL), 0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(got, "{\"data\":{\"t\":{\"name\":\"User\",\"fields\":[{"
                        "\"name\":\"id\"},{\"name\":\"name\"},{\"name\":"
                        "\"username\"},{\"name\":\"birthday\"},{\"name\":"
                        "\"reviews\"}]},\"me\":{\"id\":\"1\"},\"__typename\":"
                        "\"Query\"}}");
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

/* ---------------------------------------------------------------- @defer */

/* The transport of the @defer tests: as send_to_subgraph, and the number
 * of payload lines written when each request went out. */
typedef struct defer_fx {
  fixture fx;
  const gql_buf *out;
  char sent[64][16]; /* "graph@payloads" per request */
  uint32_t nsent;
} defer_fx;

static int send_counting(void *ud, const gql_gw_batch *b, const char *body,
                         size_t len, gql_str *response) {
  defer_fx *d = ud;
  uint32_t lines = 0;
  for (size_t i = 0; i < d->out->len; i++)
    lines += d->out->data[i] == '\n';
  if (d->nsent < 64)
    snprintf(d->sent[d->nsent++], sizeof d->sent[0], "%u@%u", b->graph, lines);
  return send_to_subgraph(&d->fx, b, body, len, response);
}

/* Equal JSON, members in any order (a merged result has the deferred
 * fields after the others). */
static bool json_same(const gql_json_value *a, const gql_json_value *b) {
  if (a->kind != b->kind)
    return false;
  if (a->kind == GQL_JSON_ARRAY) {
    if (a->array.count != b->array.count)
      return false;
    for (size_t i = 0; i < a->array.count; i++)
      if (!json_same(&a->array.items[i], &b->array.items[i]))
        return false;
    return true;
  }
  if (a->kind != GQL_JSON_OBJECT)
    return gql_json_equal(a, b);
  if (a->object.count != b->object.count)
    return false;
  for (size_t i = 0; i < a->object.count; i++) {
    const gql_json_value *o = obj_get(b, a->object.members[i].key);
    if (!o || !json_same(&a->object.members[i].value, o))
      return false;
  }
  return true;
}

static gql_json_value *json_at(gql_json_value *v, const gql_json_value *path) {
  for (size_t i = 0; v && path && i < path->array.count; i++) {
    const gql_json_value *k = &path->array.items[i];
    if (k->kind == GQL_JSON_STRING)
      v = obj_get(v, k->string);
    else if (v->kind == GQL_JSON_ARRAY && (size_t)k->number.i < v->array.count)
      v = &v->array.items[k->number.i];
    else
      v = NULL;
  }
  return v;
}

/* The final data of a payload sequence (one per line), as a client merges
 * it (tests/incremental/merge.py): every pending id completed, each
 * entry's data merged at its fragment's path + subPath; *nerrors counts
 * the errors of all payloads. */
static gql_json_value *merge_payloads(gql_arena *a, const char *lines,
                                      size_t *nerrors) {
  gql_json_value *data = NULL;
  const gql_json_value *paths[64] = {0};
  bool done[64] = {0};
  *nerrors = 0;
  for (const char *l = lines; *l;) {
    const char *end = strchr(l, '\n');
    cr_assert_not_null(end);
    gql_json_value *p;
    gql_json_error je;
    cr_assert_eq(gql_json_parse(a, l, (size_t)(end - l), NULL, &p, &je), 0);
    const gql_json_value *errs = obj_get(p, GQL_STR("errors"));
    *nerrors += errs ? errs->array.count : 0;
    if (!data)
      data = obj_get(p, GQL_STR("data"));
    const gql_json_value *pend = obj_get(p, GQL_STR("pending"));
    for (size_t i = 0; pend && i < pend->array.count; i++) {
      const gql_json_value *e = &pend->array.items[i];
      int id = atoi(obj_get(e, GQL_STR("id"))->string.ptr);
      cr_assert(id < 64 && !paths[id], "pending id %d twice", id);
      paths[id] = obj_get(e, GQL_STR("path"));
    }
    const gql_json_value *inc = obj_get(p, GQL_STR("incremental"));
    for (size_t i = 0; inc && i < inc->array.count; i++) {
      const gql_json_value *e = &inc->array.items[i];
      int id = atoi(obj_get(e, GQL_STR("id"))->string.ptr);
      cr_assert(id < 64 && paths[id] && !done[id], "entry of id %d", id);
      gql_json_value *at = json_at(data, paths[id]);
      at = json_at(at, obj_get(e, GQL_STR("subPath")));
      cr_assert_not_null(at, "no place for the entry of id %d", id);
      const gql_json_value *ed = obj_get(e, GQL_STR("data"));
      bool oom = false;
      gw_deep_merge(a, at, ed, &oom);
      const gql_json_value *ee = obj_get(e, GQL_STR("errors"));
      *nerrors += ee ? ee->array.count : 0;
    }
    const gql_json_value *comp = obj_get(p, GQL_STR("completed"));
    for (size_t i = 0; comp && i < comp->array.count; i++) {
      const gql_json_value *e = &comp->array.items[i];
      int id = atoi(obj_get(e, GQL_STR("id"))->string.ptr);
      cr_assert(id < 64 && paths[id] && !done[id], "completed id %d", id);
      done[id] = true;
      const gql_json_value *ee = obj_get(e, GQL_STR("errors"));
      *nerrors += ee ? ee->array.count : 0;
    }
    const gql_json_value *hn = obj_get(p, GQL_STR("hasNext"));
    l = end + 1;
    cr_assert(!*l == !(hn && hn->boolean),
              "hasNext true exactly until the last");
  }
  for (int i = 0; i < 64; i++)
    cr_assert(!paths[i] || done[i], "id %d never completed", i);
  return data;
}

/* Runs `query` with @defer: the payloads must merge into the data (and
 * as many errors) the same plan gives without incremental delivery.
 * Returns the payloads, one per line. */
static char *run_deferred(defer_fx *d, const gql_supergraph *sg,
                          gql_arena *arena, const char *query) {
  gql_gw_plan *plan = gw_plan(sg, arena, query, NULL);
  gql_buf out;
  gql_buf_init(&out, NULL);
  d->out = &out;
  d->nsent = 0;
  int rc =
      gql_gw_execute_incremental(plan, NULL, arena, send_counting, d, &out);
  cr_assert_eq(rc, 0);
  char *s = gw_cstr((gql_str){out.data, out.len});
  gql_buf_free(&out);
  gql_buf plain;
  gql_buf_init(&plain, NULL);
  cr_assert_eq(
      gql_gw_execute(plan, NULL, arena, send_to_subgraph, &d->fx, &plain, NULL),
      0);
  gql_json_value *pv;
  gql_json_error je;
  cr_assert_eq(gql_json_parse(arena, plain.data, plain.len, NULL, &pv, &je), 0);
  size_t nerr;
  gql_json_value *merged = merge_payloads(arena, s, &nerr);
  const gql_json_value *pe = obj_get(pv, GQL_STR("errors"));
  cr_expect(json_same(merged, obj_get(pv, GQL_STR("data"))),
            "merged payloads differ from %.*s:\n%s", (int)plain.len, plain.data,
            s);
  cr_expect_eq(nerr, pe ? pe->array.count : 0, "errors: %s", s);
  gql_buf_free(&plain);
  return s;
}

/* What was sent when: "graph@payloads written before", space-separated
 * (graphs: 0 accounts, 1 inventory, 2 products, 3 reviews). */
static void expect_sent(const defer_fx *d, const char *want) {
  char got[512] = "";
  for (uint32_t k = 0; k < d->nsent; k++) {
    if (k)
      strcat(got, " ");
    strcat(got, d->sent[k]);
  }
  cr_expect_str_eq(got, want);
}

static void defer_setup(defer_fx *d, gql_supergraph **sg, gql_arena **arena) {
  memset(d, 0, sizeof *d);
  fixture_init(&d->fx);
  *sg = gw_load_bench();
  *arena = gql_arena_new(NULL);
}

static void defer_teardown(defer_fx *d, gql_supergraph *sg, gql_arena *arena) {
  gql_arena_free(arena);
  gql_supergraph_free(sg);
  fixture_fini(&d->fx);
}

Test(gateway_defer,
     another_subgraphs_fields_are_fetched_after_the_initial_payload) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  char *got =
      run_deferred(&d, sg, arena,
                   "{ topProducts(first: 2) { name ... @defer { inStock } } }");
  cr_expect_str_eq(
      got,
      "{\"data\":{\"topProducts\":[{\"name\":\"Table\"},{\"name\":\"Couch\"}]},"
      "\"pending\":[{\"id\":\"0\",\"path\":[\"topProducts\",0]},{\"id\":\"1\","
      "\"path\":[\"topProducts\",1]}],\"hasNext\":true}\n"
      "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":{\"inStock\":"
      "true}},{\"id\":\"1\",\"data\":{\"inStock\":false}}],\"completed\":[{"
      "\"id\":\"0\"},{\"id\":\"1\"}]}\n");
  expect_sent(&d, "2@0 1@1"); /* inventory once the initial payload is out */
  free(got);
  defer_teardown(&d, sg, arena);
}

Test(gateway_defer, the_parents_subgraph_is_asked_again_for_deferred_fields) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  const char *q =
      "{ topProducts(first: 2) { name ... @defer(label: \"p\") { price } } }";
  char *got = run_deferred(&d, sg, arena, q);
  cr_expect_str_eq(
      got,
      "{\"data\":{\"topProducts\":[{\"name\":\"Table\"},{\"name\":\"Couch\"}]},"
      "\"pending\":[{\"id\":\"0\",\"path\":[\"topProducts\",0],\"label\":"
      "\"p\"},{\"id\":\"1\",\"path\":[\"topProducts\",1],\"label\":\"p\"}],"
      "\"hasNext\":true}\n"
      "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":{\"price\":"
      "899}},{\"id\":\"1\",\"data\":{\"price\":1299}}],\"completed\":[{\"id\":"
      "\"0\"},{\"id\":\"1\"}]}\n");
  expect_sent(&d, "2@0 2@1");
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->primary_levels, 1);
  /* the primary query without price, then an entity fetch for it */
  gw_expect_op(plan, "products", 1,
               "query{topProducts(first:2){name __typename upc}}");
  cr_expect_not_null(strstr(gw_batch(plan, "products", 3)->operation.ptr,
                            "...on Product{price}"),
                     "%s", gw_batch(plan, "products", 3)->operation.ptr);
  free(got);
  defer_teardown(&d, sg, arena);
}

Test(gateway_defer, nested_defers_under_lists_get_an_id_per_object) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  char *got =
      run_deferred(&d, sg, arena,
                   "{ me { username ... @defer { reviews { product { name "
                   "... @defer(label: \"in\") { inStock } } } } } }");
  cr_expect_str_eq(
      got,
      "{\"data\":{\"me\":{\"username\":\"urigo\"}},\"pending\":[{\"id\":\"0\","
      "\"path\":[\"me\"]}],\"hasNext\":true}\n"
      "{\"hasNext\":false,\"pending\":[{\"id\":\"1\",\"path\":[\"me\","
      "\"reviews\",0,\"product\"],\"label\":\"in\"},{\"id\":\"2\",\"path\":["
      "\"me\",\"reviews\",1,\"product\"],\"label\":\"in\"}],\"incremental\":[{"
      "\"id\":\"0\",\"data\":{\"reviews\":[{\"product\":{\"name\":\"Table\"}},"
      "{\"product\":{\"name\":\"Table\"}}]}},{\"id\":\"1\",\"data\":{"
      "\"inStock\":true}},{\"id\":\"2\",\"data\":{\"inStock\":true}}],"
      "\"completed\":[{\"id\":\"0\"},{\"id\":\"1\"},{\"id\":\"2\"}]}\n");
  /* accounts first; reviews, products and inventory after the initial
   * payload */
  expect_sent(&d, "0@0 3@1 2@1 1@1");
  free(got);
  defer_teardown(&d, sg, arena);
}

Test(gateway_defer, a_deferred_root_field_has_a_fetch_of_its_own) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  char *got = run_deferred(
      &d, sg, arena,
      "{ ... @defer { me { name } } topProducts(first: 1) { name } }");
  cr_expect_str_eq(
      got,
      "{\"data\":{\"topProducts\":[{\"name\":\"Table\"}]},\"pending\":[{"
      "\"id\":\"0\",\"path\":[]}],\"hasNext\":true}\n"
      "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":{\"me\":{"
      "\"name\":\"Uri Goldshtein\"}}}],\"completed\":[{\"id\":\"0\"}]}\n");
  expect_sent(&d, "2@0 0@1");
  free(got);
  defer_teardown(&d, sg, arena);
}

Test(gateway_defer,
     fields_delivered_before_are_not_repeated_and_subpath_says_where) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  char *got = run_deferred(
      &d, sg, arena, "{ me { username } ... @defer { me { username name } } }");
  cr_expect_str_eq(
      got,
      "{\"data\":{\"me\":{\"username\":\"urigo\"}},\"pending\":[{\"id\":\"0\","
      "\"path\":[]}],\"hasNext\":true}\n"
      "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":{\"name\":"
      "\"Uri Goldshtein\"},\"subPath\":[\"me\"]}],\"completed\":[{\"id\":"
      "\"0\"}]}\n");
  expect_sent(&d, "0@0 0@1");
  free(got);
  defer_teardown(&d, sg, arena);
}

Test(gateway_defer, if_false_and_nothing_deferred_give_the_plain_response) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  const char *q =
      "{ topProducts(first: 1) { name ... @defer(if: false) { inStock } } }";
  char *got = run_deferred(&d, sg, arena, q);
  cr_expect_str_eq(got, "{\"data\":{\"topProducts\":[{\"name\":\"Table\","
                        "\"inStock\":true}]}}\n");
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->ndefers, 0);
  free(got);
  /* a fragment on objects that are not there: nothing pending */
  got =
      run_deferred(&d, sg, arena,
                   "{ topProducts(first: 0) { name ... @defer { inStock } } }");
  cr_expect_str_eq(got, "{\"data\":{\"topProducts\":[]}}\n");
  expect_sent(&d, "2@0");
  free(got);
  defer_teardown(&d, sg, arena);
}

Test(gateway_defer, a_failed_deferred_fetch_errors_in_its_fragments_payload) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  d.fx.fail_inventory = true;
  char *got =
      run_deferred(&d, sg, arena,
                   "{ topProducts(first: 1) { name ... @defer { inStock } } }");
  cr_expect_str_eq(
      got,
      "{\"data\":{\"topProducts\":[{\"name\":\"Table\"}]},\"pending\":[{"
      "\"id\":\"0\",\"path\":[\"topProducts\",0]}],\"hasNext\":true}\n"
      "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":{\"inStock\":"
      "null},\"errors\":[{\"message\":\"HTTP fetch failed from 'inventory': "
      "the request failed\",\"extensions\":{\"service\":\"inventory\","
      "\"reason\":\"the request failed\",\"code\":\"SUBREQUEST_HTTP_ERROR\"}}]"
      "}],\"completed\":[{\"id\":\"0\"}]}\n");
  free(got);
  defer_teardown(&d, sg, arena);
}

/* A non-null field's null inside a deferred fragment nulls the fragment:
 * completed with its error, no data (graphql-js 17). The deferred id is
 * asked again by an entity fetch, whose answer here is null. */
static int null_id(void *ud, const gql_gw_batch *b, const char *body,
                   size_t len, gql_str *response) {
  (void)ud;
  (void)body;
  (void)len;
  *response =
      gql_cstr(b->level == 1 ? "{\"data\":{\"me\":{\"username\":\"urigo\","
                               "\"__typename\":\"User\",\"id\":\"1\"}}}"
                             : "{\"data\":{\"_entities\":[{\"id\":null}]}}");
  return 0;
}

Test(gateway_defer,
     a_null_in_a_non_null_field_completes_the_fragment_with_errors) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan =
      gw_plan(sg, arena, "{ me { username ... @defer { id } } }", NULL);
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(
      gql_gw_execute_incremental(plan, NULL, arena, null_id, NULL, &out), 0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(
      got,
      "{\"data\":{\"me\":{\"username\":\"urigo\"}},\"pending\":[{\"id\":\"0\","
      "\"path\":[\"me\"]}],\"hasNext\":true}\n"
      "{\"hasNext\":false,\"completed\":[{\"id\":\"0\",\"errors\":[{"
      "\"message\":\"Cannot return null for non-nullable field User.id.\","
      "\"path\":[\"me\",\"id\"]}]}]}\n");
  free(got);
  gql_buf_free(&out);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(gateway_defer, if_with_a_variable_plans_a_variant_per_value) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan = gw_plan(sg, arena,
                              "query($d: Boolean! = true) { topProducts(first: "
                              "1) { name ... @defer(if: $d) { inStock } } }",
                              NULL);
  cr_expect_eq(plan->ndefers, 1, "the default: deferred");
  const gql_value *off = json_in(arena, "{\"d\":false}");
  const gql_gw_plan *v;
  const char *err;
  cr_assert_eq(gql_gw_plan_for(plan, off, 0, NULL, arena, &v, &err), 0);
  cr_expect_eq(v->ndefers, 0);
  cr_expect_eq(v->primary_levels, 0);
  const gql_value *on = json_in(arena, "{\"d\":true}");
  cr_assert_eq(gql_gw_plan_for(plan, on, 0, NULL, arena, &v, &err), 0);
  cr_expect_eq(v, plan);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

/* The later waves add members to the root and to `me`: the fragment on
 * `me` finds its object again after the root's members moved. Each
 * fragment's payload goes as soon as its wave is merged: topProducts
 * (a root fetch) before the entity fetch of the user's name is sent. */
Test(gateway_defer, fragments_on_an_object_and_on_its_parent_both_arrive) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  char *got = run_deferred(&d, sg, arena,
                           "{ ... @defer { topProducts(first: 1) { name } } "
                           "me { username ... @defer { name } } }");
  cr_expect_str_eq(
      got,
      "{\"data\":{\"me\":{\"username\":\"urigo\"}},\"pending\":[{\"id\":\"0\","
      "\"path\":[]},{\"id\":\"1\",\"path\":[\"me\"]}],\"hasNext\":true}\n"
      "{\"hasNext\":true,\"incremental\":[{\"id\":\"0\",\"data\":{"
      "\"topProducts\":[{\"name\":\"Table\"}]}}],\"completed\":[{\"id\":"
      "\"0\"}]}\n"
      "{\"hasNext\":false,\"incremental\":[{\"id\":\"1\",\"data\":{"
      "\"name\":\"Uri Goldshtein\"}}],\"completed\":[{\"id\":\"1\"}]}\n");
  expect_sent(&d, "0@0 2@1 0@2");
  free(got);
  defer_teardown(&d, sg, arena);
}

/* A field in two sibling fragments goes with the payload enclosing both
 * (here the initial result): each fragment's fields below it arrive. */
Test(gateway_defer, a_field_in_sibling_fragments_is_delivered_before_both) {
  defer_fx d;
  gql_supergraph *sg;
  gql_arena *arena;
  defer_setup(&d, &sg, &arena);
  char *got = run_deferred(&d, sg, arena,
                           "{ me { ... @defer(label: \"a\") { reviews { id } } "
                           "... @defer(label: \"b\") { reviews { product { "
                           "upc } } } } }");
  cr_expect_str_eq(
      got,
      "{\"data\":{\"me\":{\"reviews\":[{},{}]}},\"pending\":[{\"id\":\"0\","
      "\"path\":[\"me\"],\"label\":\"a\"},{\"id\":\"1\",\"path\":[\"me\"],"
      "\"label\":\"b\"}],\"hasNext\":true}\n"
      "{\"hasNext\":false,\"incremental\":[{\"id\":\"0\",\"data\":{\"id\":"
      "\"1\"},\"subPath\":[\"reviews\",0]},{\"id\":\"0\",\"data\":{\"id\":"
      "\"2\"},\"subPath\":[\"reviews\",1]},{\"id\":\"1\",\"data\":{"
      "\"product\":{\"upc\":\"1\"}},\"subPath\":[\"reviews\",0]},{\"id\":"
      "\"1\",\"data\":{\"product\":{\"upc\":\"1\"}},\"subPath\":[\"reviews\","
      "1]}],\"completed\":[{\"id\":\"0\"},{\"id\":\"1\"}]}\n");
  free(got);
  defer_teardown(&d, sg, arena);
}
