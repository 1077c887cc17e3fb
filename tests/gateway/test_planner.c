#include "helpers.h"

static gql_supergraph *sg;
static gql_arena *arena;

static void setup(void) {
  sg = gw_load_bench();
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

TestSuite(planner, .init = setup, .fini = teardown);

Test(planner, benchmark_query_needs_six_requests_in_four_waves) {
  char *query = gw_read_file(BENCH_DIR "query.graphql", NULL);
  gql_gw_plan *plan = gw_plan(sg, arena, query, NULL);
  cr_expect_eq(plan->nbatches, 6, "requests: %u", plan->nbatches);
  cr_expect_eq(plan->nlevels, 4);
  /* wave 1: the two roots; 2: reviews, alias-batched; 3: products and
   * accounts; 4: inventory, with the top-level lookup deferred into it */
  cr_expect_not_null(gw_batch(plan, "accounts", 1));
  cr_expect_not_null(gw_batch(plan, "products", 1));
  const gql_gw_batch *rv = gw_batch(plan, "reviews", 2);
  cr_assert_not_null(rv);
  cr_expect_eq(rv->nfetches, 2);
  cr_expect_not_null(gw_batch(plan, "products", 3));
  cr_expect_not_null(gw_batch(plan, "accounts", 3));
  const gql_gw_batch *inv = gw_batch(plan, "inventory", 4);
  cr_assert_not_null(inv);
  cr_expect_eq(inv->nfetches, 4);
  /* the four inventory lookups have one shape: one `_entities` field */
  cr_expect_eq(inv->nfields, 1);
  cr_expect_eq(rv->nfields, 2);
  cr_expect_eq(gw_batch(plan, "products", 3)->nfields, 1);
  cr_expect_eq(gw_batch(plan, "accounts", 3)->nfields, 1);
  gw_expect_op(plan, "inventory", 4,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{inStock shippingEstimate}}}");
  cr_expect_null(gw_batch(plan, "inventory", 2));
  free(query);
}

Test(planner, root_fields_are_grouped_by_subgraph) {
  const char *q = "{ users { id name } me { username } "
                  "topProducts { name } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->nbatches, 2);
  cr_expect_eq(plan->nlevels, 1);
  gw_expect_op(plan, "accounts", 1, "query{users{id name} me{username}}");
  gw_expect_op(plan, "products", 1, "query{topProducts{name}}");
}

Test(planner, aliases_and_arguments_are_forwarded) {
  const char *q = "query Q($n: Int = 2) { a: topProducts(first: $n) "
                  "{ n: name } b: topProducts(first: 3) { upc } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  gw_expect_op(plan, "products", 1,
               "query($n:Int=2){a:topProducts(first:$n){n:name} "
               "b:topProducts(first:3){upc}}");
}

Test(planner, entity_fields_go_to_an_entities_fetch_with_the_key) {
  const char *q = "{ topProducts { name reviews { body } } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->nbatches, 2);
  gw_expect_op(plan, "products", 1, "query{topProducts{name __typename upc}}");
  gw_expect_op(plan, "reviews", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{reviews{body}}}}");
  const gql_gw_fetch *f = gw_batch(plan, "reviews", 2)->fetches[0];
  cr_expect_eq(f->path_len, 2);
  cr_expect(gql_str_eq_cstr(f->path[0], "topProducts"));
  cr_expect(gql_str_eq_cstr(f->path[1], "@"));
}

Test(planner, provides_lets_the_reviews_subgraph_answer_username) {
  const char *q = "{ topProducts { reviews { author { username } } } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->nbatches, 2, "no accounts fetch for username");
  cr_expect_null(gw_batch(plan, "accounts", 3));
  /* name is not provided: accounts is asked for it */
  const char *q2 = "{ topProducts { reviews { author { username name } } } }";
  plan = gw_plan(sg, arena, q2, NULL);
  cr_expect_eq(plan->nbatches, 3);
  gw_expect_op(plan, "accounts", 3,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on User{name}}}");
}

Test(planner, provides_applies_below_nested_entity_fetches_too) {
  /* the nested author is reached inside the reviews entity fetch and
   * still provided there */
  const char *q = "{ me { reviews { author { reviews { author { username } } "
                  "} } } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->nbatches, 2);
  /* outside @provides, username comes from the accounts root fetch */
  const char *q2 = "{ users { reviews { body } username } }";
  plan = gw_plan(sg, arena, q2, NULL);
  gw_expect_op(plan, "accounts", 1, "query{users{__typename id username}}");
}

Test(planner, requires_fields_are_fetched_first_and_sent_in_representations) {
  const char *q = "{ topProducts { shippingEstimate } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->nbatches, 2);
  gw_expect_op(plan, "products", 1,
               "query{topProducts{price weight __typename upc}}");
  const gql_gw_fetch *inv = gw_batch(plan, "inventory", 2)->fetches[0];
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_gw_plan_print(plan, &b);
  char *text = gw_cstr((gql_str){b.data, b.len});
  cr_expect_not_null(
      strstr(text, "{ ... on Product { __typename upc price weight } } =>\n"),
      "%s", text);
  /* its inputs all come from the products fetch it completes */
  cr_expect_eq(inv->ndeps, 1);
  cr_expect_eq(inv->deps[0], inv->parent);
  free(text);
  gql_buf_free(&b);
}

Test(planner, nested_requires_depend_on_a_third_subgraph) {
  /* reviews cannot give price and weight: products is asked first, and
   * inventory waits for it */
  const char *q = "{ users { reviews { product { shippingEstimate } } } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->nlevels, 4);
  cr_expect_not_null(gw_batch(plan, "accounts", 1));
  cr_expect_not_null(gw_batch(plan, "reviews", 2));
  gw_expect_op(plan, "products", 3,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{price weight}}}");
  const gql_gw_batch *inv = gw_batch(plan, "inventory", 4);
  cr_assert_not_null(inv);
  /* the reviews fetch holds the products, products gives price and weight */
  cr_expect_eq(inv->fetches[0]->ndeps, 2);
}

Test(planner, same_subgraph_fetches_in_a_wave_are_alias_batched) {
  const char *q = "{ users { reviews { body } } topProducts { reviews { id } "
                  "} }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->nbatches, 3);
  gw_expect_op(plan, "reviews", 2,
               "query($r0:[_Any!]!,$r1:[_Any!]!){_0:_entities(representations:"
               "$r0){...on User{reviews{body}}} _1:_entities(representations:"
               "$r1){...on Product{reviews{id}}}}");
}

Test(planner, fragments_are_expanded_and_fields_merged_in_query_order) {
  const char *q = "query { topProducts { ...A name ... on Product { upc "
                  "price } } } fragment A on Product { price name weight }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  gw_expect_op(plan, "products", 1,
               "query{topProducts{price name weight upc}}");
  const gql_gw_sel *tp = plan->client.first;
  cr_expect(gql_str_eq_cstr(tp->key, "topProducts"));
  cr_expect(gql_str_eq_cstr(tp->first->key, "price"));
  cr_expect(gql_str_eq_cstr(tp->last->key, "upc"));
}

Test(planner, literal_skip_and_include_prune_selections) {
  const char *q = "{ topProducts { name @skip(if: true) upc "
                  "inStock @include(if: false) } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  cr_expect_eq(plan->nbatches, 1);
  gw_expect_op(plan, "products", 1, "query{topProducts{upc}}");
}

Test(planner, operation_is_chosen_by_name) {
  const char *q = "query A { me { id } } query B { topProducts { upc } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, "B");
  cr_expect_eq(plan->nbatches, 1);
  gw_expect_op(plan, "products", 1, "query{topProducts{upc}}");
  gql_document *doc;
  gql_syntax_error se;
  cr_assert_eq(gql_parse_syntax(arena, q, strlen(q), NULL, &doc, &se), 0);
  const char *err;
  cr_expect_eq(gql_gw_plan_build(sg, doc, NULL, arena, &plan, &err),
               GQL_EINVAL);
  cr_expect_eq(gql_gw_plan_build(sg, doc, "C", arena, &plan, &err), GQL_EINVAL);
}

Test(planner, plan_text_reads_like_apollo_query_plans) {
  const char *q = "{ topProducts { name inStock } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_gw_plan_print(plan, &b);
  char *text = gw_cstr((gql_str){b.data, b.len});
  cr_expect_str_eq(text, "QueryPlan {\n"
                         "  Sequence {\n"
                         "    Fetch(service: \"products\") {\n"
                         "      { topProducts { name __typename upc } }\n"
                         "    },\n"
                         "    Fetch(service: \"inventory\") {\n"
                         "      Flatten(path: \"topProducts.@\") {\n"
                         "        { ... on Product { __typename upc } } =>\n"
                         "        { ... on Product { inStock } }\n"
                         "      },\n"
                         "    },\n"
                         "  },\n"
                         "}\n");
  free(text);
  gql_buf_free(&b);
}

Test(planner, subscriptions_without_a_subscription_type_are_refused) {
  const char *q = "subscription { me { id } }";
  gql_document *doc;
  gql_syntax_error se;
  cr_assert_eq(gql_parse_syntax(arena, q, strlen(q), NULL, &doc, &se), 0);
  gql_gw_plan *plan;
  const char *err = NULL;
  cr_expect_eq(gql_gw_plan_build(sg, doc, NULL, arena, &plan, &err),
               GQL_ESCHEMA);
  cr_expect_not_null(err && strstr(err, "no root type"), "%s",
                     err ? err : "(null)");
}

/* A subscription is planned as a query of the Subscription type: its root
 * fetch (the subscription opened to the owning subgraph) asks for the keys
 * the entity fetches of each event need. */
Test(planner, a_subscription_is_its_subgraphs_subscription_then_entities) {
  static const char sdl[] =
      "enum join__Graph {\n"
      "  A @join__graph(name: \"a\", url: \"http://a/graphql\")\n"
      "  B @join__graph(name: \"b\", url: \"http://b/graphql\")\n"
      "}\n"
      "type Query @join__type(graph: A) @join__type(graph: B) {\n"
      "  top: [Product] @join__field(graph: A)\n"
      "}\n"
      "type Subscription @join__type(graph: A) {\n"
      "  added(n: Int): Product @join__field(graph: A)\n"
      "}\n"
      "type Product @join__type(graph: A, key: \"upc\") "
      "@join__type(graph: B, key: \"upc\") {\n"
      "  upc: String!\n"
      "  name: String @join__field(graph: A)\n"
      "  price: Int @join__field(graph: B)\n"
      "}\n";
  gql_supergraph *s2 = gw_load_text(sdl);
  gql_gw_plan *plan =
      gw_plan(s2, arena,
              "subscription S($n: Int) { added(n: $n) { name price } }", NULL);
  cr_assert_eq(plan->nbatches, 2);
  cr_expect_eq(plan->batches[0].level, 1);
  gw_expect_op(plan, "a", 1,
               "subscription($n:Int){added(n:$n){name __typename upc}}");
  gw_expect_op(plan, "b", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{price}}}");
  gql_supergraph_free(s2);
}

Test(planner, introspection_root_fields_are_the_gateways_own) {
  gql_gw_plan *plan =
      gw_plan(sg, arena,
              "query Q($n: String = \"Product\") { a: __type(name: $n) { "
              "...F } me { id } } fragment F on __Type { name }",
              NULL);
  /* only me is fetched; __type becomes an operation of its own */
  cr_expect_eq(plan->nbatches, 1);
  gw_expect_op(plan, "accounts", 1, "query{me{id}}");
  char *text = gw_cstr(plan->introspection);
  cr_expect_not_null(strstr(text, "a: __type(name: $n)"), "%s", text);
  cr_expect_not_null(strstr(text, "($n: String = \"Product\")"), "%s", text);
  cr_expect_not_null(strstr(text, "fragment F on __Type"), "%s", text);
  cr_expect_null(strstr(text, "me {"), "%s", text);
  free(text);
}

Test(planner, an_alias_taking_the_name_of_an_entity_key_gets_a_private_one) {
  /* `upc: name` takes the response key the representations read the key
   * from: the gateway asks for the key under a private alias instead */
  gql_gw_plan *plan =
      gw_plan(sg, arena, "{ topProducts { upc: name reviews { id } } }", NULL);
  gw_expect_op(plan, "products", 1,
               "query{topProducts{upc:name __typename upc__gw1:upc}}");
  const gql_gw_fetch *f = gw_batch(plan, "reviews", 2)->fetches[0];
  const gql_gw_sel *key = f->requires->first->next;
  cr_expect(gql_str_eq_cstr(key->name, "upc"));
  cr_expect(gql_str_eq_cstr(key->tree_key, "upc__gw1"));
  /* the same alias without an entity fetch below needs nothing */
  plan = gw_plan(sg, arena, "{ topProducts { upc: name } }", NULL);
  cr_expect_eq(plan->nbatches, 1);
  gw_expect_op(plan, "products", 1, "query{topProducts{upc:name}}");
}

static const char *MUTATION_SG =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
    "B @join__graph(name: \"b\", url: \"http://b\") }\n"
    "type Query @join__type(graph: A) { x: Int }\n"
    "type Mutation @join__type(graph: A) @join__type(graph: B) {\n"
    "  a1: Thing @join__field(graph: A)\n  a2: Int @join__field(graph: A)\n"
    "  b1: Int @join__field(graph: B)\n  a3: Int @join__field(graph: A)\n}\n"
    "type Thing @join__type(graph: A, key: \"id\") @join__type(graph: B, "
    "key: \"id\") { id: ID! extra: Int @join__field(graph: B) }\n";

Test(planner, mutation_fields_run_in_order_across_subgraphs) {
  gql_supergraph *msg = gw_load_text(MUTATION_SG);
  gql_gw_plan *plan =
      gw_plan(msg, arena, "mutation { a1 { extra } a2 b1 a3 }", NULL);
  cr_expect_eq(plan->nbatches, 4);
  cr_expect_eq(plan->nlevels, 4);
  /* a1 and a2 share one request; a1's entity fetch comes before b1 */
  gw_expect_op(plan, "a", 1, "mutation{a1{__typename id} a2}");
  gw_expect_op(plan, "b", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Thing{extra}}}");
  gw_expect_op(plan, "b", 3, "mutation{b1}");
  gw_expect_op(plan, "a", 4, "mutation{a3}");
  gql_supergraph_free(msg);
}

Test(planner, fragments_that_multiply_the_selection_hit_a_limit) {
  /* each fragment spreads the next twice: 2^30 fields once expanded */
  gql_buf q;
  gql_buf_init(&q, NULL);
  gql_buf_puts(&q, "{ topProducts { ...F0 } }\n");
  for (int i = 0; i < 30; i++)
    gql_buf_printf(&q,
                   "fragment F%d on Product { reviews { product { ...F%d } "
                   "author { reviews { product { ...F%d } } } } }\n",
                   i, i + 1, i + 1);
  gql_buf_puts(&q, "fragment F30 on Product { upc }\n");
  gql_document *doc;
  gql_syntax_error se;
  const char *text = gql_buf_cstr(&q);
  cr_assert_eq(gql_parse_syntax(arena, text, q.len, NULL, &doc, &se), 0);
  gql_gw_plan *plan;
  const char *err = NULL;
  int rc = gql_gw_plan_build(sg, doc, NULL, arena, &plan, &err);
  cr_expect_eq(rc, GQL_ELIMIT, "rc %d: %s", rc, err ? err : "");
  cr_expect_not_null(err && strstr(err, "more than 100000 fields"), "%s",
                     err ? err : "");
  gql_buf_free(&q);
}

static char *plan_text(const gql_gw_plan *plan) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_gw_plan_print(plan, &b);
  char *text = gw_cstr((gql_str){b.data, b.len});
  gql_buf_free(&b);
  return text;
}

/* Appends one printed Flatten node to `b`. */
static void flat(gql_buf *b, const char *indent, const char *path,
                 const char *req, const char *out) {
  gql_buf_printf(b, "%sFlatten(path: \"%s\") {\n%s  %s =>\n%s  %s\n%s},\n",
                 indent, path, indent, req, indent, out, indent);
}

Test(planner, benchmark_plan_is_printed_wave_by_wave) {
  /* reference §6.3: roots in parallel; one alias-batched reviews request;
   * products and accounts in parallel, each batching its paths; one
   * inventory request, the top-level lookup deferred into it */
  char *query = gw_read_file(BENCH_DIR "query.graphql", NULL);
  char *text = plan_text(gw_plan(sg, arena, query, NULL));
  const char *product = "{ ... on Product { __typename upc } }";
  const char *user = "{ ... on User { __typename id } }";
  const char *priced = "{ ... on Product { __typename upc price weight } }";
  const char *details = "{ ... on Product { name price weight } }";
  const char *stock = "{ ... on Product { inStock shippingEstimate } }";
  const char *up = "users.@.reviews.@.product";
  const char *uap =
      "users.@.reviews.@.product.reviews.@.author.reviews.@.product";
  const char *tap = "topProducts.@.reviews.@.author.reviews.@.product";
  const char *in4 = "      ", *in8 = "        ";
  gql_buf want;
  gql_buf_init(&want, NULL);
  gql_buf_puts(&want,
               "QueryPlan {\n  Sequence {\n    Parallel {\n"
               "      Fetch(service: \"accounts\") {\n"
               "        { users { id username name __typename } }\n      },\n"
               "      Fetch(service: \"products\") {\n"
               "        { topProducts { __typename upc name price weight } }\n"
               "      },\n    },\n"
               "    Fetch(service: \"reviews\", batch: 2) {\n");
  flat(&want, in4, "users.@", user,
       "{ ... on User { reviews { id body product { __typename upc reviews { "
       "id body author { id username __typename reviews { id body product { "
       "__typename upc } } } } } } } }");
  flat(&want, in4, "topProducts.@", product,
       "{ ... on Product { reviews { id body author { id username __typename "
       "reviews { id body product { __typename upc } } } } } }");
  gql_buf_puts(&want, "    },\n    Parallel {\n"
                      "      Fetch(service: \"products\", batch: 3) {\n");
  flat(&want, in8, up, product, details);
  flat(&want, in8, uap, product, details);
  flat(&want, in8, tap, product, details);
  gql_buf_puts(&want,
               "      },\n      Fetch(service: \"accounts\", batch: 2) {\n");
  flat(&want, in8, "users.@.reviews.@.product.reviews.@.author", user,
       "{ ... on User { name } }");
  flat(&want, in8, "topProducts.@.reviews.@.author", user,
       "{ ... on User { name } }");
  gql_buf_puts(&want, "      },\n    },\n"
                      "    Fetch(service: \"inventory\", batch: 4) {\n");
  flat(&want, in4, up, priced, stock);
  flat(&want, in4, uap, priced, stock);
  flat(&want, in4, "topProducts.@", priced, stock);
  flat(&want, in4, tap, priced, stock);
  gql_buf_puts(&want, "    },\n  },\n}\n");
  cr_expect_str_eq(text, gql_buf_cstr(&want));
  gql_buf_free(&want);
  free(text);
  free(query);
}

Test(planner, independent_roots_are_one_parallel_node) {
  char *text = plan_text(
      gw_plan(sg, arena, "{ me { name } topProducts { upc } }", NULL));
  cr_expect_str_eq(text, "QueryPlan {\n"
                         "  Parallel {\n"
                         "    Fetch(service: \"accounts\") {\n"
                         "      { me { name } }\n"
                         "    },\n"
                         "    Fetch(service: \"products\") {\n"
                         "      { topProducts { upc } }\n"
                         "    },\n"
                         "  },\n"
                         "}\n");
  free(text);
}

Test(planner, one_subgraph_needs_no_plan_nodes_around_its_fetch) {
  char *text = plan_text(gw_plan(sg, arena, "{ me { id } }", NULL));
  cr_expect_str_eq(text, "QueryPlan {\n"
                         "  Fetch(service: \"accounts\") {\n"
                         "    { me { id } }\n"
                         "  },\n"
                         "}\n");
  free(text);
}

Test(planner, entity_fetches_at_one_path_with_one_shape_share_a_field) {
  /* users' and topProducts' nested products ask products for the same
   * selection: one _entities field in the products request, so their
   * representations are de-duplicated together */
  const char *q = "{ users { reviews { product { name } } } topProducts { "
                  "reviews { author { reviews { product { name } } } } } }";
  gql_gw_plan *plan = gw_plan(sg, arena, q, NULL);
  const gql_gw_batch *p = gw_batch(plan, "products", 3);
  cr_assert_not_null(p);
  cr_expect_eq(p->nfetches, 2);
  cr_expect_eq(p->nfields, 1);
  gw_expect_op(plan, "products", 3,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{name}}}");
  /* different selections on one subgraph in one wave: two aliased fields */
  const char *q2 = "{ users { reviews { product { name } } } topProducts { "
                   "reviews { author { reviews { product { price } } } } } }";
  plan = gw_plan(sg, arena, q2, NULL);
  p = gw_batch(plan, "products", 3);
  cr_assert_not_null(p);
  cr_expect_eq(p->nfields, 2);
  gw_expect_op(
      plan, "products", 3,
      "query($r0:[_Any!]!,$r1:[_Any!]!){_0:_entities(representations:"
      "$r0){...on Product{name}} _1:_entities(representations:$r1){...on "
      "Product{price}}}");
}

/* Abstract types across subgraphs: Media (an interface of graph a) is
 * implemented by Book, extended by b, and Movie, extended by c; Result (a
 * union of graph c) has Movie and Song, whose name comes from b. */
static const char *ABSTRACT_SG =
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
    "Int @join__field(graph: C) related: Result @join__field(graph: C) }\n"
    "type Song @join__type(graph: B, key: \"isrc\") @join__type(graph: C, "
    "key: \"isrc\") { isrc: ID! name: String @join__field(graph: B) plays: "
    "Int @join__field(graph: C) }\n"
    "union Result @join__type(graph: C) @join__unionMember(graph: C, member: "
    "\"Movie\") @join__unionMember(graph: C, member: \"Song\") = Movie | "
    "Song\n"
    "type Query @join__type(graph: A) @join__type(graph: C) { media: [Media] "
    "@join__field(graph: A) search: [Result] @join__field(graph: C) }\n";

Test(planner, interface_implementations_are_completed_by_their_subgraphs) {
  gql_supergraph *asg = gw_load_text(ABSTRACT_SG);
  gql_gw_plan *plan = gw_plan(asg, arena,
                              "{ media { id ... on Book { title pages } ... on "
                              "Movie { title rating } } }",
                              NULL);
  cr_expect_eq(plan->nbatches, 3);
  cr_expect_eq(plan->nlevels, 2);
  char *text = plan_text(plan);
  cr_expect_str_eq(text,
                   "QueryPlan {\n  Sequence {\n"
                   "    Fetch(service: \"a\") {\n"
                   "      { media { __typename id ... on Book { title "
                   "__typename id } ... on Movie { title __typename id } } }\n"
                   "    },\n    Parallel {\n"
                   "      Fetch(service: \"b\") {\n"
                   "        Flatten(path: \"media.@\") {\n"
                   "          { ... on Book { __typename id } } =>\n"
                   "          { ... on Book { pages } }\n"
                   "        },\n      },\n"
                   "      Fetch(service: \"c\") {\n"
                   "        Flatten(path: \"media.@\") {\n"
                   "          { ... on Movie { __typename id } } =>\n"
                   "          { ... on Movie { rating } }\n"
                   "        },\n      },\n    },\n  },\n}\n");
  free(text);
  gql_supergraph_free(asg);
}

Test(planner, union_members_are_completed_by_their_subgraphs) {
  gql_supergraph *asg = gw_load_text(ABSTRACT_SG);
  gql_gw_plan *plan = gw_plan(asg, arena,
                              "{ search { __typename ... on Song { name plays "
                              "} ... on Movie { title rating } } }",
                              NULL);
  cr_expect_eq(plan->nbatches, 3);
  gw_expect_op(
      plan, "c", 1,
      "query{search{__typename ...on Song{__typename isrc plays} ...on "
      "Movie{__typename id rating}}}");
  gw_expect_op(plan, "b", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Song{name}}}");
  gw_expect_op(plan, "a", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Movie{title}}}");
  gql_supergraph_free(asg);
}

Test(planner, abstract_types_below_an_entity_fetch_start_a_third_wave) {
  gql_supergraph *asg = gw_load_text(ABSTRACT_SG);
  gql_gw_plan *plan = gw_plan(asg, arena,
                              "{ media { ... on Movie { related { ... on Song "
                              "{ name } ... on Movie { t: title } } } } }",
                              NULL);
  cr_expect_eq(plan->nlevels, 3);
  gw_expect_op(plan, "a", 1,
               "query{media{__typename ...on Movie{__typename id}}}");
  gw_expect_op(plan, "c", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Movie{related{__typename ...on "
               "Song{__typename isrc} ...on Movie{__typename id}}}}}");
  gw_expect_op(plan, "b", 3,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Song{name}}}");
  gw_expect_op(plan, "a", 3,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Movie{t:title}}}");
  const gql_gw_fetch *f = gw_batch(plan, "b", 3)->fetches[0];
  cr_assert_eq(f->path_len, 3);
  cr_expect(gql_str_eq_cstr(f->path[0], "media"));
  cr_expect(gql_str_eq_cstr(f->path[1], "@"));
  cr_expect(gql_str_eq_cstr(f->path[2], "related"));
  gql_supergraph_free(asg);
}
