#include "helpers.h"

/* The API schema as SDL, less the definition of @defer that every
 * served supergraph's has first (as Apollo Router's; checked here). */
static char *api_text(const gql_supergraph *sg, gql_arena *arena) {
  static const char defer[] = "directive @defer(label: String, if: Boolean! = "
                              "true) on FRAGMENT_SPREAD | INLINE_FRAGMENT\n\n";
  const char *text;
  size_t len;
  cr_assert_eq(gql_schema_print(sg->api, arena, &text, &len), 0);
  cr_assert_eq(strncmp(text, defer, sizeof defer - 1), 0, "%s", text);
  return (char *)text + sizeof defer - 1;
}

Test(supergraph, benchmark_api_schema_has_no_join_or_link_machinery) {
  gql_supergraph *sg = gw_load_bench();
  gql_arena *arena = gql_arena_new(NULL);
  char *text = api_text(sg, arena);
  cr_expect_null(strstr(text, "join__"), "%s", text);
  cr_expect_null(strstr(text, "link"), "%s", text);
  cr_expect_null(strstr(text, "@"), "%s", text);
  cr_expect_not_null(strstr(text, "topProducts(first: Int = 5): [Product]"));
  cr_expect_not_null(strstr(text, "type User {\n  id: ID!\n  name: String\n  "
                                  "username: String\n  birthday: Int\n  "
                                  "reviews: [Review]\n}"),
                     "%s", text);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(supergraph, benchmark_graphs_keys_requires_and_provides_are_read) {
  gql_supergraph *sg = gw_load_bench();
  cr_assert_eq(sg->ngraphs, 4);
  cr_expect(gql_str_eq_cstr(sg->graphs[0].name, "accounts"));
  cr_expect(
      gql_str_eq_cstr(sg->graphs[0].url, "http://127.0.0.1:4200/accounts"));
  cr_expect(gql_str_eq_cstr(sg->graphs[3].enum_value, "REVIEWS"));
  int64_t inventory = gql_supergraph_graph_by_name(sg, GQL_STR("inventory"));
  int64_t products = gql_supergraph_graph_by_name(sg, GQL_STR("products"));
  int64_t reviews = gql_supergraph_graph_by_name(sg, GQL_STR("reviews"));
  int64_t accounts = gql_supergraph_graph_by_name(sg, GQL_STR("accounts"));
  cr_assert(inventory >= 0 && products >= 0 && reviews >= 0 && accounts >= 0);

  const gql_gw_type *product = gql_supergraph_type(sg, GQL_STR("Product"));
  cr_assert_not_null(product);
  cr_expect_eq(product->ngraphs, 3);
  const gql_gw_type_graph *tg = gql_supergraph_type_graph(product, inventory);
  cr_assert_not_null(tg);
  cr_expect(gql_str_eq_cstr(tg->key_text, "upc"));
  cr_expect(gql_str_eq_cstr(tg->key->first->name, "upc"));
  cr_expect_null(gql_supergraph_type_graph(product, accounts));

  /* upc has no @join__field: every graph of Product resolves it */
  const gql_gw_field *upc = gql_supergraph_field(product, GQL_STR("upc"));
  cr_expect(gql_supergraph_resolves(product, upc, inventory));
  cr_expect(gql_supergraph_resolves(product, upc, reviews));
  cr_expect_not(gql_supergraph_resolves(product, upc, accounts));
  /* price: products resolves it, inventory has it external */
  const gql_gw_field *price = gql_supergraph_field(product, GQL_STR("price"));
  cr_expect(gql_supergraph_resolves(product, price, products));
  cr_expect_not(gql_supergraph_resolves(product, price, inventory));

  const gql_gw_field *ship =
      gql_supergraph_field(product, GQL_STR("shippingEstimate"));
  cr_assert_eq(ship->ngraphs, 1);
  cr_expect(gql_str_eq_cstr(ship->graphs[0].requires_text, "price weight"));
  cr_expect(gql_str_eq_cstr(ship->graphs[0].requires->first->name, "price"));
  cr_expect(
      gql_str_eq_cstr(ship->graphs[0].requires->first->next->name, "weight"));

  const gql_gw_type *review = gql_supergraph_type(sg, GQL_STR("Review"));
  const gql_gw_field *author = gql_supergraph_field(review, GQL_STR("author"));
  cr_expect(
      gql_str_eq_cstr(author->graphs[0].provides->first->name, "username"));
  cr_expect(gql_str_eq_cstr(author->type_name, "User"));
  const gql_gw_field *reviews_f =
      gql_supergraph_field(product, GQL_STR("reviews"));
  cr_expect_eq(reviews_f->list_depth, 1);
  gql_supergraph_free(sg);
}

static const char *INACCESSIBLE_SG =
    "schema @link(url: \"https://specs.apollo.dev/link/v1.0\")"
    " @link(url: \"https://specs.apollo.dev/join/v0.3\", for: EXECUTION)"
    " @link(url: \"https://specs.apollo.dev/inaccessible/v0.2\", for: SECURITY)"
    " { query: Query }\n"
    "directive @inaccessible on FIELD_DEFINITION | OBJECT | ENUM_VALUE | "
    "ARGUMENT_DEFINITION\n"
    "directive @join__graph(name: String!, url: String!) on ENUM_VALUE\n"
    "directive @join__type(graph: join__Graph!, key: join__FieldSet, "
    "extension: Boolean! = false, resolvable: Boolean! = true, "
    "isInterfaceObject: Boolean! = false) repeatable on OBJECT | INTERFACE\n"
    "directive @join__field(graph: join__Graph, requires: join__FieldSet, "
    "provides: join__FieldSet, type: String, external: Boolean, override: "
    "String, usedOverridden: Boolean) repeatable on FIELD_DEFINITION\n"
    "directive @link(url: String, as: String, for: link__Purpose, import: "
    "[link__Import]) repeatable on SCHEMA\n"
    "scalar join__FieldSet\nscalar link__Import\n"
    "enum link__Purpose { SECURITY EXECUTION }\n"
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") }\n"
    "type Query @join__type(graph: A) {\n"
    "  thing(id: ID, secret: String @inaccessible): Thing\n"
    "  hidden: Hidden\n"
    "  color: Color\n"
    "}\n"
    "type Thing @join__type(graph: A, key: \"id\") {\n"
    "  id: ID!\n  internal: String @inaccessible\n  visible: String\n}\n"
    "type Hidden @inaccessible @join__type(graph: A) { x: Int }\n"
    "enum Color { RED GREEN @inaccessible }\n";

Test(supergraph, inaccessible_types_fields_arguments_and_values_are_hidden) {
  gql_supergraph *sg = gw_load_text(INACCESSIBLE_SG);
  gql_arena *arena = gql_arena_new(NULL);
  char *text = api_text(sg, arena);
  cr_expect_str_eq(text, "type Query {\n"
                         "  thing(id: ID): Thing\n"
                         "  color: Color\n"
                         "}\n\n"
                         "type Thing {\n"
                         "  id: ID!\n"
                         "  visible: String\n"
                         "}\n\n"
                         "enum Color {\n"
                         "  RED\n"
                         "}");
  /* the metadata still knows the hidden parts (for planning) */
  const gql_gw_type *thing = gql_supergraph_type(sg, GQL_STR("Thing"));
  const gql_gw_field *internal =
      gql_supergraph_field(thing, GQL_STR("internal"));
  cr_assert_not_null(internal);
  cr_expect(internal->inaccessible);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

Test(supergraph, a_link_without_url_names_no_feature_and_hides_nothing) {
  /* fuzz_supergraph: the namespace of a @link with no url: argument was
   * cut from a NULL pointer (undefined behaviour under UBSan) */
  const char *at = strstr(INACCESSIBLE_SG, " { query: Query }");
  cr_assert_not_null(at);
  size_t head = (size_t)(at - INACCESSIBLE_SG);
  char *sdl = malloc(strlen(INACCESSIBLE_SG) + 64);
  cr_assert_not_null(sdl);
  sprintf(sdl, "%.*s @link(for: SECURITY)%s", (int)head, INACCESSIBLE_SG, at);
  gql_supergraph *sg = gw_load_text(sdl);
  gql_arena *arena = gql_arena_new(NULL);
  cr_expect_str_eq(api_text(sg, arena), "type Query {\n"
                                        "  thing(id: ID): Thing\n"
                                        "  color: Color\n"
                                        "}\n\n"
                                        "type Thing {\n"
                                        "  id: ID!\n"
                                        "  visible: String\n"
                                        "}\n\n"
                                        "enum Color {\n"
                                        "  RED\n"
                                        "}");
  gql_arena_free(arena);
  gql_supergraph_free(sg);
  free(sdl);
}

Test(supergraph, a_syntax_error_is_reported_with_its_position) {
  gql_supergraph *sg = NULL;
  const char *err = NULL;
  gql_arena *arena = gql_arena_new(NULL);
  const char *sdl = "type Query {";
  int rc = gql_supergraph_load(sdl, strlen(sdl), &sg, arena, &err);
  cr_expect_eq(rc, GQL_ESYNTAX);
  cr_expect_not_null(strstr(err, "1:13: Syntax Error"), "%s", err);
  gql_arena_free(arena);
}

/* A supergraph that does not load is refused with the place of the problem
 * ("LINE:COLUMN: ", 1-based), field sets included: inside a field-set
 * string the column is that of the offending character in the file (after
 * escapes such as \n, which count as their two characters). */
Test(supergraph, a_bad_supergraph_is_refused_with_line_and_column) {
  static const char *G =
      "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") }\n";
  static const struct {
    const char *sdl, *where, *what;
  } cases[] = {
      {"type Query { a: Int }", "1:1: ", "join__Graph"},
      {"type Query {", "2:13: ", "Syntax Error"},
      {"type Query @join__type(graph: A) {\n  x: Int @join__field(graph: B)\n}",
       "3:30: ", "names no graph"},
      {"type Query @join__type(graph: A) { t: T }\n"
       "type T @join__type(graph: A, key: \"id nme\") { id: ID name: String }",
       "3:39: ", "Cannot query field \"nme\" on type \"T\""},
      {"type Query @join__type(graph: A) { t: T }\n"
       "type T @join__type(graph: A) {\n  id: ID\n"
       "  x: Int @join__field(graph: A, requires: \"id {\")\n}",
       "5:48: ", "Syntax Error"},
      {"type Query @join__type(graph: A) { t: T }\n"
       "type T @join__type(graph: A) {\n  id: ID\n  n: Int\n"
       "  x: Int @join__field(graph: A, requires: \"id\\n  n { z }\")\n}",
       "6:52: ", "has no sub-selection"},
      {"type Query @join__type(graph: A) { t: T }\n"
       "type T @join__type(graph: A) { id: ID @join__field(graph: A, "
       "provides: \"x\") }",
       "3:39: ", "returns no object"},
      {"type Query @join__type(graph: A) { t: T }\n"
       "type T @join__type(graph: A, isInterfaceObject: true) { id: ID }",
       "3:8: ", "no interface"},
      {"type Query @join__type(graph: A) { t: Int }\ntype Query { u: Int }",
       "3:1: ", "defined twice"},
      {"type Query @join__type(graph: A) {\n"
       "  t: Int @join__field(graph: A, type: \"[Int\")\n}",
       "3:39: ", "is not a type"},
  };
  gql_arena *arena = gql_arena_new(NULL);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *sdl = gql_arena_sprintf(arena, "%s%s", i ? G : "", cases[i].sdl);
    gql_supergraph *sg = NULL;
    const char *err = NULL;
    int rc = gql_supergraph_load(sdl, strlen(sdl), &sg, arena, &err);
    cr_expect_neq(rc, 0, "case %zu loaded", i);
    cr_expect_null(sg);
    cr_expect(err && strncmp(err, cases[i].where, strlen(cases[i].where)) == 0,
              "case %zu: want %s..., got %s", i, cases[i].where, err);
    cr_expect(err && strstr(err, cases[i].what), "case %zu: want %s in %s", i,
              cases[i].what, err);
  }
  gql_arena_free(arena);
}

static const char *FIELD_SET_SG =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") }\n"
    "interface I @join__type(graph: A) { x: Int }\n"
    "type J implements I @join__type(graph: A) @join__implements(graph: A, "
    "interface: \"I\") { x: Int y: Int }\n"
    "type D @join__type(graph: A) { e: Int }\n"
    "type B @join__type(graph: A) { c: Int d: D }\n"
    "type T @join__type(graph: A) { a: Int b: B f(n: Int): Int i: I }\n"
    "type Query @join__type(graph: A) { t: T }\n";

Test(supergraph, field_sets_parse_the_whole_grammar_and_reject_garbage) {
  gql_supergraph *sg = gw_load_text(FIELD_SET_SG);
  const gql_gw_type *t = gql_supergraph_type(sg, GQL_STR("T"));
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_sel *fs;
  const char *err;
  size_t off;
  cr_assert_eq(gql_gw_parse_field_set(sg, arena, t,
                                      GQL_STR(" a b { c d { e } } f(n: 3) "
                                              "i { x ... on J { y } }"),
                                      &fs, &err, &off),
               0, "%s", err);
  cr_expect(gql_str_eq_cstr(fs->first->name, "a"));
  gql_gw_sel *b = fs->first->next;
  cr_expect(gql_str_eq_cstr(b->name, "b"));
  cr_expect(gql_str_eq_cstr(b->first->next->first->name, "e"));
  cr_expect(gql_str_eq_cstr(b->next->name, "f"));
  cr_expect_eq(b->next->field->args.count, 1);
  gql_gw_sel *i = b->next->next;
  cr_expect(gql_str_eq_cstr(i->first->next->name, "y"));
  cr_expect(gql_str_eq_cstr(i->first->next->cond->name, "J"));
  static const struct {
    const char *text;
    size_t offset;
  } bad[] = {{"a { b", 5}, {"a }", 3},     {"{ a }", 0}, {"a: b", 0},
             {"zz", 0},    {"a { c }", 2}, {"b", 0},     {"... on Q { a }", 7}};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    cr_expect_neq(gql_gw_parse_field_set(sg, arena, t, gql_cstr(bad[k].text),
                                         &fs, &err, &off),
                  0, "%s", bad[k].text);
    cr_expect_eq(off, bad[k].offset, "%s: offset %zu (%s)", bad[k].text, off,
                 err);
  }
  /* deep nesting is bounded, not a stack overflow */
  char deep[2000];
  size_t n = 0;
  for (int k = 0; k < 300; k++) {
    deep[n++] = 'a';
    deep[n++] = '{';
  }
  deep[n] = 0;
  cr_expect_neq(
      gql_gw_parse_field_set(sg, arena, t, (gql_str){deep, n}, &fs, &err, &off),
      0);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}

static const char *OVERRIDE_SG =
    "enum join__Graph { A @join__graph(name: \"a\", url: \"http://a\") "
    "B @join__graph(name: \"b\", url: \"http://b\") }\n"
    "interface Node @join__type(graph: A) @join__type(graph: B) { id: ID! }\n"
    "type Thing implements Node @join__implements(graph: A, interface: "
    "\"Node\") @join__type(graph: A, key: \"id\") @join__type(graph: B, key: "
    "\"id\") {\n"
    "  id: ID!\n"
    "  price: Int @join__field(graph: A, usedOverridden: true) "
    "@join__field(graph: B, override: \"a\")\n"
    "}\n"
    "union Any @join__type(graph: A) @join__unionMember(graph: A, member: "
    "\"Thing\") = Thing\n"
    "enum Color @join__type(graph: A) { RED @join__enumValue(graph: A) }\n"
    "type Query @join__type(graph: A) { thing: Thing any: Any color: Color "
    "node: Node }\n";

Test(supergraph, implements_members_enum_values_and_override_are_read) {
  gql_supergraph *sg = gw_load_text(OVERRIDE_SG);
  const gql_gw_type *thing = gql_supergraph_type(sg, GQL_STR("Thing"));
  cr_assert_eq(thing->nimplements, 1);
  cr_expect(gql_str_eq_cstr(thing->implements[0].name, "Node"));
  cr_expect_eq(thing->implements[0].graph, 0);
  const gql_gw_type *any = gql_supergraph_type(sg, GQL_STR("Any"));
  cr_assert_eq(any->nmembers, 1);
  cr_expect(gql_str_eq_cstr(any->members[0].name, "Thing"));
  const gql_gw_type *color = gql_supergraph_type(sg, GQL_STR("Color"));
  cr_assert_eq(color->nenum_values, 1);
  cr_expect(gql_str_eq_cstr(color->enum_values[0].name, "RED"));
  /* the overridden graph keeps the field for keys but does not resolve it */
  const gql_gw_field *price = gql_supergraph_field(thing, GQL_STR("price"));
  cr_expect_not(gql_supergraph_resolves(thing, price, 0));
  cr_expect(gql_supergraph_resolves(thing, price, 1));
  gql_arena *arena = gql_arena_new(NULL);
  gql_gw_plan *plan = gw_plan(sg, arena, "{ thing { price } }", NULL);
  cr_expect_eq(plan->nbatches, 2);
  const gql_gw_batch *b = gw_batch(plan, "b", 2);
  cr_assert_not_null(b);
  char *op = gw_cstr(b->operation);
  cr_expect_str_eq(op, "query($representations:[_Any!]!){_entities("
                       "representations:$representations){...on "
                       "Thing{price}}}");
  free(op);
  char *text = api_text(sg, arena);
  cr_expect_not_null(strstr(text, "union Any = Thing"), "%s", text);
  cr_expect_not_null(strstr(text, "type Thing implements Node {"), "%s", text);
  cr_expect_null(strstr(text, "@"), "%s", text);
  gql_arena_free(arena);
  gql_supergraph_free(sg);
}
