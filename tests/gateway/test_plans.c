/*
 * Plans over the supergraphs of tests/gateway/data (composed by
 * @apollo/composition from the shapes of tests/gateway/shapes): which
 * subgraph requests a plan makes, in which waves, and what each asks.
 * test_planner.c covers the benchmark's supergraph.
 */
#include "helpers.h"

#include "json/json.h"

#define DATA_DIR GQL_SOURCE_DIR "/tests/gateway/data/"

static gql_arena *arena;

static void setup(void) {
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
}

TestSuite(plans, .init = setup, .fini = teardown);

static gql_supergraph *load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s%s.graphql", DATA_DIR, name);
  char *sdl = gw_read_file(path, NULL);
  gql_supergraph *sg = gw_load_text(sdl);
  free(sdl);
  return sg;
}

static const gql_value *json(const char *text) {
  const gql_value *v;
  cr_assert_eq(gql_value_parse(arena, text, strlen(text), &v), 0);
  return v;
}

/* The plan of `query` for these variables, labels and requester
 * (through the plan's variants, as a server gets it). */
static const gql_gw_plan *plan_for_who(const gql_gw_plan *base,
                                       const char *variables, uint64_t labels,
                                       const gql_gw_who *who) {
  const gql_gw_plan *p;
  const char *err = NULL;
  cr_assert_eq(gql_gw_plan_for(base, variables ? json(variables) : NULL, labels,
                               who, arena, &p, &err),
               0, "%s", err ? err : "");
  return p;
}

static const gql_gw_plan *plan_for(const gql_gw_plan *base,
                                   const char *variables, uint64_t labels) {
  return plan_for_who(base, variables, labels, NULL);
}

/* The response to plan p when its one subgraph request is answered
 * `answer` (malloc'ed; an anonymous request). */
static char *run_plan(const gql_gw_plan *p, const char *answer) {
  const char *answers[] = {answer};
  gql_buf out;
  gql_buf_init(&out, NULL);
  cr_assert_eq(
      gql_gw_execute(p, NULL, arena, gw_canned, (void *)answers, &out, NULL),
      0);
  char *got = gw_cstr((gql_str){out.data, out.len});
  gql_buf_free(&out);
  return got;
}

Test(plans, skip_and_include_on_variables_plan_per_value) {
  gql_supergraph *sg = load("conditions");
  const char *q = "query($s: Boolean!) { product { name reviews @skip(if: $s) "
                  "{ id } } }";
  gql_gw_plan *base = gw_plan(sg, arena, q, NULL);
  cr_assert_not_null(base->set, "the plan depends on $s");
  const gql_gw_plan *skip = plan_for(base, "{\"s\":true}", 0);
  const gql_gw_plan *keep = plan_for(base, "{\"s\":false}", 0);
  cr_expect_neq(skip, keep);
  cr_expect_eq(skip->nbatches, 1, "reviews skipped: a alone");
  gw_expect_op(skip, "a", 1, "query{product{name}}");
  cr_expect_eq(keep->nbatches, 2);
  gw_expect_op(keep, "b", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{reviews{id}}}}");
  /* the variants are made once and kept with the plan */
  cr_expect_eq(plan_for(base, "{\"s\":true}", 0), skip);
  cr_expect_eq(plan_for(base, "{\"s\":false}", 0), keep);
  gql_supergraph_free(sg);
}

Test(plans, a_field_the_client_skips_is_still_fetched_for_a_requires) {
  gql_supergraph *sg = load("conditions");
  /* expensive requires price: fetched whatever the client's @include */
  const char *q = "query($i: Boolean = false) { product { price @include(if: "
                  "$i) expensive } }";
  gql_gw_plan *base = gw_plan(sg, arena, q, NULL);
  const gql_gw_plan *p = plan_for(base, NULL, 0); /* the default: false */
  gw_expect_op(p, "a", 1, "query{product{price __typename id}}");
  const gql_gw_fetch *b = gw_batch(p, "b", 2)->fetches[0];
  char *rep = NULL;
  gql_buf out;
  gql_buf_init(&out, NULL);
  gw_print_sels(&out, b->requires, false);
  rep = gw_cstr((gql_str){out.data, out.len});
  cr_expect_str_eq(rep, "{__typename id price}");
  free(rep);
  gql_buf_free(&out);
  gql_supergraph_free(sg);
}

Test(plans, aliases_on_key_and_required_field_names_get_private_keys) {
  gql_supergraph *sg = load("conditions");
  gql_gw_plan *p = gw_plan(
      sg, arena, "{ product { id: name price: name expensive } }", NULL);
  gw_expect_op(p, "a", 1,
               "query{product{id:name price:name price__gw1:price __typename "
               "id__gw2:id}}");
  const gql_gw_fetch *b = gw_batch(p, "b", 2)->fetches[0];
  /* the representation reads the private keys, writes the field names */
  const gql_gw_sel *id = b->requires->first->next;
  cr_expect(gql_str_eq_cstr(id->name, "id"));
  cr_expect(gql_str_eq_cstr(id->tree_key, "id__gw2"));
  cr_expect(id->key_field);
  const gql_gw_sel *price = id->next;
  cr_expect(gql_str_eq_cstr(price->tree_key, "price__gw1"));
  cr_expect_not(price->key_field);
  gql_supergraph_free(sg);
}

Test(plans, progressive_override_labels_choose_the_subgraph) {
  gql_supergraph *sg = load("override");
  cr_assert_eq(sg->nlabels, 2);
  int64_t l100 = -1, l0 = -1;
  for (uint32_t i = 0; i < sg->nlabels; i++) {
    if (gql_str_eq_cstr(sg->labels[i].name, "percent(100)"))
      l100 = i;
    if (gql_str_eq_cstr(sg->labels[i].name, "percent(0)"))
      l0 = i;
  }
  cr_assert(l100 >= 0 && l0 >= 0);
  cr_expect_eq(sg->labels[l100].percent, 100);
  const char *q = "{ nodes { ... on Doc { size } } }";
  gql_gw_plan *base = gw_plan(sg, arena, q, NULL);
  cr_assert_not_null(base->set, "the plan depends on a label");
  /* label off: the subgraph overridden (a) still resolves size */
  const gql_gw_plan *off = plan_for(base, NULL, 0);
  cr_expect_eq(off->nbatches, 1);
  /* label on: the overriding subgraph (c) does */
  const gql_gw_plan *on = plan_for(base, NULL, (uint64_t)1 << l100);
  cr_expect_eq(on->nbatches, 2);
  cr_expect_not_null(gw_batch(on, "c", 2));
  /* percent(100) is drawn on for every request, percent(0) for none */
  uint64_t rng = 12345;
  for (int i = 0; i < 200; i++) {
    uint64_t labels = gql_gw_draw_labels(sg, &rng);
    cr_expect(labels & ((uint64_t)1 << l100));
    cr_expect_not(labels & ((uint64_t)1 << l0));
  }
  gql_supergraph_free(sg);
}

static const char *HALF_SG =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
    "B @join__graph(name: \"b\", url: \"http://b\") }\n"
    "type Query @join__type(graph: A) @join__type(graph: B) {\n"
    "  x: Int @join__field(graph: A, overrideLabel: \"percent(50)\") "
    "@join__field(graph: B, override: \"a\", overrideLabel: "
    "\"percent(50)\")\n}\n";

Test(plans, percent_labels_are_on_for_about_that_share_of_requests) {
  gql_supergraph *sg = gw_load_text(HALF_SG);
  uint64_t rng = 99;
  int on = 0;
  for (int i = 0; i < 10000; i++)
    on += (int)(gql_gw_draw_labels(sg, &rng) & 1);
  cr_expect(on > 4700 && on < 5300, "%d of 10000", on);
  gql_gw_plan *base = gw_plan(sg, arena, "{ x }", NULL);
  gw_expect_op(plan_for(base, NULL, 0), "a", 1, "query{x}");
  gw_expect_op(plan_for(base, NULL, 1), "b", 1, "query{x}");
  gql_supergraph_free(sg);
}

Test(plans, multi_hop_keys_chain_the_fetches) {
  gql_supergraph *sg = load("keys");
  /* c has upc; b needs sku and region, which a gives by id, which d maps
   * from upc: c, d, a, b in four waves */
  gql_gw_plan *p = gw_plan(sg, arena, "{ topProduct { rating stock } }", NULL);
  cr_expect_eq(p->nbatches, 4);
  cr_expect_eq(p->nlevels, 4);
  gw_expect_op(p, "c", 1, "query{topProduct{rating __typename upc}}");
  gw_expect_op(p, "d", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{id}}}");
  gw_expect_op(p, "a", 3,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{sku{code} region}}}");
  gw_expect_op(p, "b", 4,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{stock}}}");
  gql_supergraph_free(sg);
}

Test(plans, interface_objects_get_concrete_types_from_the_owner) {
  gql_supergraph *sg = load("interface_object");
  /* c knows accounts only as an object: a, which has the interface, gives
   * their __typename before b completes them per type */
  gql_gw_plan *p =
      gw_plan(sg, arena, "{ recent { score ... on Admin { badge } } }", NULL);
  cr_expect_eq(p->nlevels, 3);
  gw_expect_op(p, "c", 1, "query{recent{id score}}");
  const gql_gw_batch *a = gw_batch(p, "a", 2);
  cr_assert_not_null(a);
  cr_expect(gql_str_eq_cstr(a->fetches[0]->rep_typename, "Account"));
  gw_expect_op(p, "a", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Account{__typename ...on "
               "Admin{__typename}}}}");
  const gql_gw_batch *b = gw_batch(p, "b", 3);
  cr_assert_not_null(b);
  cr_expect(gql_str_eq_cstr(b->fetches[0]->filter->name, "Admin"));
  /* from an implementation to the interface object */
  p = gw_plan(sg, arena, "{ people { score } }", NULL);
  const gql_gw_fetch *f = gw_batch(p, "c", 2)->fetches[0];
  cr_expect(gql_str_eq_cstr(f->type_name, "Account"));
  cr_expect(gql_str_eq_cstr(f->rep_typename, "Account"));
  gql_supergraph_free(sg);
}

/* User.id is ID in the API and a, ID! in b; Admin.id is ID in b: one
 * subgraph query cannot ask both under one response key. */
static const char *MISMATCH_SG =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
    "B @join__graph(name: \"b\", url: \"http://b\") }\n"
    "union Account @join__type(graph: B) @join__unionMember(graph: B, member: "
    "\"User\") @join__unionMember(graph: B, member: \"Admin\") = User | "
    "Admin\n"
    "type Admin @join__type(graph: B) { id: ID name: String }\n"
    "type User @join__type(graph: A) @join__type(graph: B, key: \"id\") {\n"
    "  id: ID @join__field(graph: A, type: \"ID\") @join__field(graph: B, "
    "type: \"ID!\")\n  name: String @join__field(graph: B)\n}\n"
    "type Query @join__type(graph: A) @join__type(graph: B) { accounts: "
    "[Account!]! @join__field(graph: B) }\n";

Test(plans, a_field_typed_otherwise_in_a_subgraph_is_aliased_and_renamed) {
  gql_supergraph *sg = gw_load_text(MISMATCH_SG);
  gql_gw_plan *p =
      gw_plan(sg, arena,
              "{ accounts { ... on User { id } ... on Admin { id } } }", NULL);
  gw_expect_op(p, "b", 1,
               "query{accounts{__typename ...on User{id__alias1:id} ...on "
               "Admin{id}}}");
  const gql_gw_fetch *f = gw_batch(p, "b", 1)->fetches[0];
  cr_expect(f->renames);
  /* the answer's alias is renamed back: the client sees id */
  char *got = run_plan(
      p, "{\"data\":{\"accounts\":[{\"__typename\":\"User\",\"id__alias1\":"
         "\"u1\"},{\"__typename\":\"Admin\",\"id\":\"a1\"}]}}");
  cr_expect_str_eq(got, "{\"data\":{\"accounts\":[{\"id\":\"u1\"},{\"id\":"
                        "\"a1\"}]}}");
  free(got);
  gql_supergraph_free(sg);
}

Test(plans, a_field_of_a_value_type_comes_through_its_parent_entity) {
  gql_supergraph *sg = load("parents");
  /* Sub.depth only in b, where Category has no key: the rest from a's
   * root fetch, depth through Product (key id) in b */
  gql_gw_plan *p =
      gw_plan(sg, arena,
              "{ products { id category { name sub { code depth } } } }", NULL);
  cr_expect_eq(p->nbatches, 2);
  gw_expect_op(p, "a", 1,
               "query{products{id category{name sub{code}} __typename}}");
  gw_expect_op(p, "b", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on Product{category{sub{depth}}}}}");
  gql_supergraph_free(sg);
}

/* A supergraph the planner must refuse a plan for: Node.id is external in
 * one implementation per subgraph, so no subgraph gives it for all. */
static const char *CORRUPT_SG =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
    "B @join__graph(name: \"b\", url: \"http://b\") }\n"
    "interface Node @join__type(graph: A) @join__type(graph: B) { id: ID! }\n"
    "type Account implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__implements(graph: B, interface: \"Node\") "
    "@join__type(graph: A, key: \"id\") @join__type(graph: B, key: \"id\") {"
    " id: ID! @join__field(graph: A) @join__field(graph: B, external: true) "
    "}\n"
    "type Chat implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__implements(graph: B, interface: \"Node\") "
    "@join__type(graph: A, key: \"id\") @join__type(graph: B, key: \"id\") {"
    " id: ID! @join__field(graph: A, external: true) @join__field(graph: B) "
    "}\n"
    "type Query @join__type(graph: A) @join__type(graph: B) { node(id: ID!): "
    "Node }\n";

Test(plans, no_plan_is_an_error_not_a_wrong_answer) {
  gql_supergraph *sg = gw_load_text(CORRUPT_SG);
  const char *q = "{ node(id: \"a1\") { id } }";
  gql_document *doc;
  gql_syntax_error se;
  cr_assert_eq(gql_parse_syntax(arena, q, strlen(q), NULL, &doc, &se), 0);
  gql_gw_plan *plan;
  const char *err = NULL;
  cr_expect_eq(gql_gw_plan_build(sg, doc, NULL, arena, &plan, &err),
               GQL_EUNSUPPORTED);
  cr_expect_not_null(err && strstr(err, "no subgraph can give"), "%s",
                     err ? err : "");
  /* per concrete type, the subgraph that has it is chosen */
  plan =
      gw_plan(sg, arena, "{ node(id: \"c1\") { ... on Chat { id } } }", NULL);
  gw_expect_op(plan, "b", 1,
               "query{node(id:\"c1\"){__typename ...on Chat{id}}}");
  gql_supergraph_free(sg);
}

/* Eleven subgraphs extend T by the key `code` alone, which the root's
 * subgraph lacks: each of their fields needs `code` first, from the owner
 * (through `id`) or from one another. Trying every order of those hops
 * is 11! estimates, past the planner's budget; the search stops each one
 * at the cost of the cheapest way found so far, and plans at once. */
Test(plans, many_subgraphs_keyed_alike_plan_without_trying_every_order) {
  enum { N = 11 };
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "enum join__Graph { A @join__graph(name: \"a\", url: "
                   "\"http://a\") OWNER @join__graph(name: \"owner\", url: "
                   "\"http://o\")");
  for (int i = 1; i <= N; i++)
    gql_buf_printf(&b, " S%d @join__graph(name: \"s%d\", url: \"http://s\")", i,
                   i);
  gql_buf_puts(&b, " }\ntype T @join__type(graph: A, key: \"id\")");
  for (int i = 1; i <= N; i++)
    gql_buf_printf(&b, " @join__type(graph: S%d, key: \"code\")", i);
  gql_buf_puts(&b, " @join__type(graph: OWNER, key: \"id\") @join__type("
                   "graph: OWNER, key: \"code\") { id: ID! @join__field(graph: "
                   "A) @join__field(graph: OWNER) code: ID!");
  for (int i = 1; i <= N; i++)
    gql_buf_printf(&b, " @join__field(graph: S%d)", i);
  gql_buf_puts(&b, " @join__field(graph: OWNER)");
  for (int i = 1; i <= N; i++)
    gql_buf_printf(&b, " f%d: String @join__field(graph: S%d)", i, i);
  gql_buf_puts(&b, " }\ntype Query @join__type(graph: A) { t: T }\n");
  cr_assert(!b.failed);
  gql_supergraph *sg = gw_load_text(gql_buf_cstr(&b));
  gql_gw_plan *p =
      gw_plan(sg, arena, "{ t { f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 } }", NULL);
  /* the root, `code` from the owner, one entity fetch per subgraph */
  cr_expect_eq(p->nbatches, 2 + N, "requests: %u", p->nbatches);
  gw_expect_op(p, "a", 1, "query{t{__typename id}}");
  gw_expect_op(p, "owner", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on T{code}}}");
  for (uint32_t i = 0; i < p->nbatches; i++)
    cr_expect(p->batches[i].graph == 0 || p->batches[i].level > 1);
  gql_supergraph_free(sg);
  gql_buf_free(&b);
}

/* @authenticated / @requiresScopes: Apollo Router filters the fields a
 * request may not see out of the operation before planning, so that no
 * subgraph is asked them (nor runs a mutation the client may not). */
static const char *AUTH_SG =
    "directive @authenticated on FIELD_DEFINITION | OBJECT | INTERFACE | "
    "SCALAR | ENUM\n"
    "directive @requiresScopes(scopes: [[requiresScopes__Scope!]!]!) on "
    "FIELD_DEFINITION | OBJECT | INTERFACE | SCALAR | ENUM\n"
    "scalar requiresScopes__Scope\n"
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
    "B @join__graph(name: \"b\", url: \"http://b\") }\n"
    "type Query @join__type(graph: A) {\n"
    "  me: User\n  secret: String @authenticated\n"
    "  admin: String @requiresScopes(scopes: [[\"admin\"]])\n"
    "  node: Node\n}\n"
    "type Mutation @join__type(graph: A) {\n"
    "  rename(name: String): String\n  wipe: Boolean @authenticated\n}\n"
    "interface Node @join__type(graph: A) { id: ID! owner: String }\n"
    "type Doc implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__type(graph: A) {\n  id: ID!\n"
    "  owner: String @authenticated\n}\n"
    "type Pic implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__type(graph: A) {\n  id: ID!\n  owner: String\n}\n"
    "type Vault implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__type(graph: A) @authenticated {\n  id: ID!\n"
    "  owner: String\n}\n"
    "type User @join__type(graph: A, key: \"id\") @join__type(graph: B, "
    "key: \"id\") {\n  id: ID!\n  name: String @join__field(graph: A)\n"
    "  email: String @join__field(graph: B) @authenticated\n"
    "  card: Card @join__field(graph: B)\n}\n"
    "type Card @join__type(graph: B) @authenticated { number: String }\n";

Test(plans, fields_the_request_may_not_see_are_not_fetched) {
  gql_supergraph *sg = gw_load_text(AUTH_SG);
  const char *q = "{ me { name email card { number } } secret admin }";
  gql_gw_plan *base = gw_plan(sg, arena, q, NULL);
  cr_assert_not_null(base->set, "the plan depends on who asks");
  /* anonymous (the base plan): no email, no card, no secret, no admin; b
   * is not asked at all */
  const gql_gw_plan *anon = plan_for(base, NULL, 0);
  cr_expect_eq(anon, base);
  cr_expect_eq(anon->nbatches, 1, "b has nothing to give");
  gw_expect_op(anon, "a", 1, "query{me{name}}");
  /* authenticated: everything but admin */
  gql_gw_who user = {true, GQL_STR("read")};
  const gql_gw_plan *u = plan_for_who(base, NULL, 0, &user);
  cr_expect_neq(u, base);
  gw_expect_op(u, "a", 1, "query{me{name __typename id} secret}");
  gw_expect_op(u, "b", 2,
               "query($representations:[_Any!]!){_entities(representations:"
               "$representations){...on User{email card{number}}}}");
  /* the admin scope: admin too; a variant of its own */
  gql_gw_who admin = {true, GQL_STR("read admin")};
  const gql_gw_plan *ad = plan_for_who(base, NULL, 0, &admin);
  cr_expect_neq(ad, u);
  gw_expect_op(ad, "a", 1, "query{me{name __typename id} secret admin}");
  /* kept: the same requester gets the same variant */
  cr_expect_eq(plan_for_who(base, NULL, 0, &user), u);
  gql_gw_who user2 = {true, GQL_STR("write")};
  cr_expect_eq(plan_for_who(base, NULL, 0, &user2), u);
  gql_supergraph_free(sg);
}

Test(plans, a_mutation_field_the_request_may_not_see_is_not_run) {
  gql_supergraph *sg = gw_load_text(AUTH_SG);
  gql_gw_plan *base =
      gw_plan(sg, arena, "mutation { wipe rename(name: \"x\") }", NULL);
  const gql_gw_plan *anon = plan_for(base, NULL, 0);
  cr_expect_eq(anon->nbatches, 1);
  gw_expect_op(anon, "a", 1, "mutation{rename(name:\"x\")}");
  gql_gw_plan *only = gw_plan(sg, arena, "mutation { wipe }", NULL);
  cr_expect_eq(plan_for(only, NULL, 0)->nbatches, 0, "nothing is sent");
  gql_gw_who user = {true, GQL_STR("")};
  gw_expect_op(plan_for_who(base, NULL, 0, &user), "a", 1,
               "mutation{wipe rename(name:\"x\")}");
  gql_supergraph_free(sg);
}

Test(plans, an_interface_field_is_fetched_while_some_type_shows_it) {
  gql_supergraph *sg = gw_load_text(AUTH_SG);
  /* Doc's owner is guarded, Pic's is not: asked on the interface (the
   * projection nulls Doc's); asked on Doc alone, not asked */
  gql_gw_plan *base =
      gw_plan(sg, arena, "{ node { id owner ... on Doc { owner } } }", NULL);
  const gql_gw_plan *anon = plan_for(base, NULL, 0);
  gw_expect_op(anon, "a", 1, "query{node{__typename id owner}}");
  gql_gw_plan *doc =
      gw_plan(sg, arena, "{ node { id ... on Doc { owner } } }", NULL);
  gw_expect_op(plan_for(doc, NULL, 0), "a", 1, "query{node{__typename id}}");
  /* nothing else asked: still each object's type, which tells the
   * projection where the denied field's null and error go */
  gql_gw_plan *alone =
      gw_plan(sg, arena, "{ node { ... on Doc { owner } } }", NULL);
  gw_expect_op(plan_for(alone, NULL, 0), "a", 1, "query{node{__typename}}");
  /* (gql_gw_execute's request is anonymous: a Doc's owner is null with
   * the error, a Pic has no field) */
  const char *answers[] = {"{\"data\":{\"node\":{\"__typename\":\"Doc\"}}}",
                           "{\"data\":{\"node\":{\"__typename\":\"Pic\"}}}"};
  const char *want[] = {
      "{\"errors\":[{\"message\":\"Unauthorized field or type\",\"path\":"
      "[\"node\",\"owner\"],\"extensions\":{\"code\":"
      "\"UNAUTHORIZED_FIELD_OR_TYPE\"}}],\"data\":{\"node\":{\"owner\":null}}}",
      "{\"data\":{\"node\":{}}}"};
  for (int k = 0; k < 2; k++) {
    char *got = run_plan(plan_for(alone, NULL, 0), answers[k]);
    cr_expect_str_eq(got, want[k]);
    free(got);
  }
  gql_supergraph_free(sg);
}

/* A guarded object type (Vault) guards its own fields: a fragment on it
 * is not fetched, and an interface field is judged on each object by its
 * type, whose __typename is therefore always asked. */
Test(plans, the_fields_of_a_guarded_type_are_guarded) {
  gql_supergraph *sg = gw_load_text(AUTH_SG);
  gql_gw_plan *frag =
      gw_plan(sg, arena, "{ node { ... on Vault { owner } } }", NULL);
  gw_expect_op(plan_for(frag, NULL, 0), "a", 1, "query{node{__typename}}");
  char *got = run_plan(plan_for(frag, NULL, 0),
                       "{\"data\":{\"node\":{\"__typename\":\"Vault\"}}}");
  cr_expect_str_eq(
      got, "{\"errors\":[{\"message\":\"Unauthorized field or type\","
           "\"path\":[\"node\",\"owner\"],\"extensions\":{\"code\":"
           "\"UNAUTHORIZED_FIELD_OR_TYPE\"}}],\"data\":{\"node\":{\"owner\":"
           "null}}}");
  free(got);
  gql_gw_who user = {true, GQL_STR("")};
  gw_expect_op(plan_for_who(frag, NULL, 0, &user), "a", 1,
               "query{node{__typename ...on Vault{owner}}}");
  /* an interface field: a Vault's id is not shown (id is non-null: the
   * node is null), a Pic's is */
  gql_gw_plan *ids = gw_plan(sg, arena, "{ node { id } }", NULL);
  gw_expect_op(ids, "a", 1, "query{node{__typename id}}");
  got = run_plan(ids, "{\"data\":{\"node\":{\"__typename\":\"Vault\",\"id\":"
                      "\"v1\"}}}");
  cr_expect_str_eq(
      got, "{\"errors\":[{\"message\":\"Unauthorized field or type\","
           "\"path\":[\"node\",\"id\"],\"extensions\":{\"code\":"
           "\"UNAUTHORIZED_FIELD_OR_TYPE\"}}],\"data\":{\"node\":null}}");
  free(got);
  got = run_plan(
      ids, "{\"data\":{\"node\":{\"__typename\":\"Pic\",\"id\":\"p1\"}}}");
  cr_expect_str_eq(got, "{\"data\":{\"node\":{\"id\":\"p1\"}}}");
  free(got);
  gql_supergraph_free(sg);
}

Test(plans, a_guarded_root_type_runs_nothing_for_an_anonymous_request) {
  static const char *GUARDED_MUTATION =
      "directive @authenticated on FIELD_DEFINITION | OBJECT | INTERFACE | "
      "SCALAR | ENUM\n"
      "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") }\n"
      "type Query @join__type(graph: A) { x: Int }\n"
      "type Mutation @join__type(graph: A) @authenticated { ping: String }\n";
  gql_supergraph *sg = gw_load_text(GUARDED_MUTATION);
  gql_gw_plan *base = gw_plan(sg, arena, "mutation { ping }", NULL);
  cr_expect_eq(plan_for(base, NULL, 0)->nbatches, 0);
  gql_gw_who user = {true, GQL_STR("")};
  gw_expect_op(plan_for_who(base, NULL, 0, &user), "a", 1, "mutation{ping}");
  gql_supergraph_free(sg);
}
