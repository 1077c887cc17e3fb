#include "helpers.h"

static uint32_t idx(const gql_schema *s, const char *name) {
  return gql_schema_type_index(s, gql_cstr(name));
}

static char *type_names(const gql_schema *s) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (uint32_t i = 0; i < s->ntypes; i++)
    gql_buf_printf(&b, "%s%s", i ? " " : "", s->types[i].name.ptr);
  char *r = strdup(gql_buf_cstr(&b));
  gql_buf_free(&b);
  return r;
}

Test(build, type_order_follows_graphql_js_type_map) {
  gql_schema *s = build_ok("type Query { a: Foo b: Int }\n"
                           "type Foo { x: ID }\n");
  char *names = type_names(s);
  cr_assert_str_eq(names, "Query Int Foo ID Boolean String __Schema __Type "
                          "__TypeKind __Field __InputValue __EnumValue "
                          "__Directive __DirectiveLocation");
  free(names);
  gql_schema_free(s);
}

Test(build, unused_builtin_scalars_are_not_in_the_schema) {
  gql_schema *s = build_ok("type Query { a: String }");
  cr_assert_eq(idx(s, "Int"), GQL_NO_TYPE);
  cr_assert_eq(idx(s, "Float"), GQL_NO_TYPE);
  cr_assert_eq(idx(s, "ID"), GQL_NO_TYPE);
  cr_assert_neq(idx(s, "String"), GQL_NO_TYPE);
  cr_assert_neq(idx(s, "Boolean"), GQL_NO_TYPE);
  cr_assert_eq(s->t_int, GQL_NO_TYPE);
  cr_assert_eq(s->t_string, idx(s, "String"));
  gql_schema_free(s);
}

Test(build, type_order_matches_recorded_introspection) {
  /* graphql-js 16.15's __schema.types for this schema, in order */
  FILE *f = fopen(GQL_SOURCE_DIR "/../shared/conformance/introspection/"
                                 "sept2025-features.graphql",
                  "rb");
  cr_assert_not_null(f);
  char *buf = malloc(1 << 16);
  size_t n = fread(buf, 1, (1 << 16) - 1, f);
  buf[n] = 0;
  fclose(f);
  gql_schema *s = build_ok(buf);
  char *names = type_names(s);
  cr_assert_str_eq(names,
                   "DateTime Node ID Resource Item String Boolean Kind ItemBy "
                   "ItemInput SearchResult Query Mutation __Schema __Type "
                   "__TypeKind __Field __InputValue __EnumValue __Directive "
                   "__DirectiveLocation");
  free(names);
  free(buf);
  gql_schema_free(s);
}

Test(build, names_are_interned) {
  gql_schema *s = build_ok("type Query { id: ID other: Other }\n"
                           "type Other { id: ID }\n");
  const gql_field *a =
      gql_type_field(gql_schema_type(s, GQL_STR("Query")), GQL_STR("id"));
  const gql_field *b =
      gql_type_field(gql_schema_type(s, GQL_STR("Other")), GQL_STR("id"));
  cr_assert_eq(a->name.ptr, b->name.ptr);
  cr_assert_eq(a->name.ptr[2], '\0');
  cr_assert_eq(gql_schema_intern_lookup(s, GQL_STR("id")).ptr, a->name.ptr);
  cr_assert_null(gql_schema_intern_lookup(s, GQL_STR("nope")).ptr);
  gql_schema_free(s);
}

Test(build, type_modifiers_read_outside_in) {
  gql_schema *s = build_ok("type Query { a: [Int!]! b: [[String]!] c: ID }");
  gql_type_ref a = field_type(s, "Query", "a");
  cr_assert_eq(a.nmods, 3);
  cr_assert_eq(memcmp(a.mods, "!L!", 3), 0);
  cr_assert_eq(a.type, idx(s, "Int"));
  cr_assert(gql_type_ref_is_non_null(a));
  gql_type_ref inner = gql_type_ref_unwrap(a);
  cr_assert(gql_type_ref_is_list(inner));
  gql_type_ref b = field_type(s, "Query", "b");
  cr_assert_eq(memcmp(b.mods, "L!L", 3), 0);
  cr_assert(gql_type_ref_is_named(field_type(s, "Query", "c")));
  gql_arena *ar = gql_arena_new(NULL);
  cr_assert_str_eq(gql_type_ref_str(s, a, ar), "[Int!]!");
  cr_assert_str_eq(gql_type_ref_str(s, b, ar), "[[String]!]");
  gql_arena_free(ar);
  /* equal modifier strings are one interned copy */
  gql_schema *t = s;
  gql_type_ref a2 = field_type(t, "Query", "a");
  cr_assert_eq(a2.mods, a.mods);
  gql_schema_free(s);
}

Test(build, roots_come_from_conventional_names) {
  gql_schema *s = build_ok("type Query { a: Int } type Mutation { b: Int }\n"
                           "type Subscription { c: Int }");
  cr_assert_eq(s->query, idx(s, "Query"));
  cr_assert_eq(s->mutation, idx(s, "Mutation"));
  cr_assert_eq(s->subscription, idx(s, "Subscription"));
  gql_schema_free(s);
}

Test(build, roots_come_from_the_schema_definition) {
  gql_schema *s = build_ok("schema { query: Q mutation: M }\n"
                           "type Q { a: Int } type M { b: Int }\n"
                           "type Query { c: Int }");
  cr_assert_eq(s->query, idx(s, "Q"));
  cr_assert_eq(s->mutation, idx(s, "M"));
  cr_assert_eq(s->subscription, GQL_NO_TYPE);
  cr_assert_eq(gql_schema_root_type(s, GQL_OP_QUERY), idx(s, "Q"));
  gql_schema_free(s);
}

Test(build, extensions_add_fields_values_members_and_roots) {
  gql_schema *s =
      build_ok("type Query { a: Int }\n"
               "extend type Query { b: String }\n"
               "enum E { A } extend enum E { B }\n"
               "type X { x: Int } type Y { y: Int }\n"
               "union U = X\nextend union U = Y\n"
               "input In { a: Int } extend input In { b: Int }\n"
               "interface I { i: Int } extend type X implements I { i: Int }\n"
               "type M { m: Int }\nextend schema { mutation: M }\n");
  const gql_type *q = gql_schema_type(s, GQL_STR("Query"));
  cr_assert_eq(q->nfields, 2);
  cr_assert_str_eq(q->fields[1].name.ptr, "b");
  cr_assert_eq(q->nextensions, 1);
  cr_assert_eq(gql_schema_type(s, GQL_STR("E"))->nvalues, 2);
  const gql_type *u = gql_schema_type(s, GQL_STR("U"));
  cr_assert_eq(u->nmembers, 2);
  cr_assert_eq(u->members[1], idx(s, "Y"));
  cr_assert_eq(gql_schema_type(s, GQL_STR("In"))->ninput_fields, 2);
  const gql_type *x = gql_schema_type(s, GQL_STR("X"));
  cr_assert_eq(x->ninterfaces, 1);
  cr_assert_eq(x->nfields, 2);
  cr_assert_eq(s->mutation, idx(s, "M"));
  gql_schema_free(s);
}

Test(build, builtin_directives_in_graphql_js_order) {
  gql_schema *s = build_ok("directive @mine on FIELD\ntype Query { a: Int }");
  const char *want[] = {"mine",       "include",     "skip",
                        "deprecated", "specifiedBy", "oneOf"};
  cr_assert_eq(s->ndirectives, 6);
  for (int i = 0; i < 6; i++)
    cr_assert_str_eq(s->directives[i].name.ptr, want[i]);
  const gql_directive *d = gql_schema_directive(s, GQL_STR("deprecated"));
  cr_assert(d->builtin);
  cr_assert(gql_directive_allows(d, GQL_DIRLOC_ENUM_VALUE));
  cr_assert(gql_directive_allows(d, GQL_DIRLOC_ARGUMENT_DEFINITION));
  cr_assert_not(gql_directive_allows(d, GQL_DIRLOC_FIELD));
  const gql_input_value *reason = gql_directive_arg(d, GQL_STR("reason"));
  cr_assert_not_null(reason->default_value);
  cr_assert_not(gql_type_ref_is_non_null(reason->type));
  const gql_directive *skip = gql_schema_directive(s, GQL_STR("skip"));
  cr_assert(gql_type_ref_is_non_null(skip->args[0].type));
  cr_assert_eq(skip->args[0].type.type, s->t_boolean);
  gql_schema_free(s);
}

Test(build, redefined_builtin_directive_replaces_it) {
  gql_schema *s = build_ok("directive @deprecated(why: String) on OBJECT\n"
                           "type Query { a: Int }");
  cr_assert_eq(s->ndirectives, 5);
  const gql_directive *d = gql_schema_directive(s, GQL_STR("deprecated"));
  cr_assert_not(d->builtin);
  cr_assert_not_null(gql_directive_arg(d, GQL_STR("why")));
  cr_assert(gql_directive_allows(d, GQL_DIRLOC_OBJECT));
  gql_schema_free(s);
}

Test(build, deprecation_specified_by_and_one_of_are_recorded) {
  gql_schema *s = build_ok(
      "type Query { a: Int @deprecated b: Int @deprecated(reason: \"old\")\n"
      "  c(x: Int @deprecated): Int }\n"
      "enum E { A @deprecated(reason: \"no\") B }\n"
      "scalar Url @specifiedBy(url: \"https://example.com\")\n"
      "input One @oneOf { a: Int b: String }");
  const gql_type *q = gql_schema_type(s, GQL_STR("Query"));
  cr_assert_str_eq(q->fields[0].deprecation_reason.ptr, "No longer supported");
  cr_assert(gql_str_eq_cstr(q->fields[1].deprecation_reason, "old"));
  cr_assert_null(q->fields[2].deprecation_reason.ptr);
  cr_assert_not_null(q->fields[2].args[0].deprecation_reason.ptr);
  const gql_type *e = gql_schema_type(s, GQL_STR("E"));
  cr_assert(gql_str_eq_cstr(e->values[0].deprecation_reason, "no"));
  cr_assert_null(e->values[1].deprecation_reason.ptr);
  cr_assert(
      gql_str_eq_cstr(gql_schema_type(s, GQL_STR("Url"))->specified_by_url,
                      "https://example.com"));
  cr_assert(gql_schema_type(s, GQL_STR("One"))->one_of);
  gql_schema_free(s);
}

Test(build, possible_types_of_interfaces_in_type_order) {
  gql_schema *s = build_ok("type Query { n: Node }\n"
                           "type B implements Node { id: ID }\n"
                           "interface Node { id: ID }\n"
                           "interface Named implements Node { id: ID }\n"
                           "type A implements Named & Node { id: ID }\n"
                           "union U = A | B\n");
  const gql_type *node = gql_schema_type(s, GQL_STR("Node"));
  cr_assert_eq(node->npossible, 2);
  cr_assert_eq(node->possible[0], idx(s, "B"));
  cr_assert_eq(node->possible[1], idx(s, "A"));
  cr_assert_eq(node->nimplementing_interfaces, 1);
  cr_assert_eq(node->implementing_interfaces[0], idx(s, "Named"));
  cr_assert(gql_schema_is_possible_type(s, idx(s, "Node"), idx(s, "A")));
  cr_assert(gql_schema_is_sub_type(s, idx(s, "Node"), idx(s, "Named")));
  cr_assert_not(gql_schema_is_possible_type(s, idx(s, "Named"), idx(s, "B")));
  const gql_type *u = gql_schema_type(s, GQL_STR("U"));
  cr_assert_eq(u->npossible, 2);
  cr_assert(gql_schema_do_types_overlap(s, idx(s, "U"), idx(s, "Named")));
  cr_assert_not(gql_schema_do_types_overlap(s, idx(s, "A"), idx(s, "B")));
  cr_assert(gql_schema_do_types_overlap(s, idx(s, "Node"), idx(s, "B")));
  gql_schema_free(s);
}

Test(build, sub_type_of_follows_nullability_lists_and_abstract_types) {
  gql_schema *s = build_ok("type Query { n: Node a: A l: [A!]! ln: [Node] "
                           "nn: Node! }\n"
                           "interface Node { id: ID }\n"
                           "type A implements Node { id: ID }\n");
  gql_type_ref a = field_type(s, "Query", "a");
  gql_type_ref n = field_type(s, "Query", "n");
  gql_type_ref l = field_type(s, "Query", "l");
  gql_type_ref ln = field_type(s, "Query", "ln");
  gql_type_ref nn = field_type(s, "Query", "nn");
  cr_assert(gql_schema_is_type_sub_type_of(s, a, n));
  cr_assert_not(gql_schema_is_type_sub_type_of(s, n, a));
  cr_assert(gql_schema_is_type_sub_type_of(s, l, ln));
  cr_assert_not(gql_schema_is_type_sub_type_of(s, ln, l));
  cr_assert_not(gql_schema_is_type_sub_type_of(s, n, nn));
  cr_assert(gql_schema_is_type_sub_type_of(s, nn, n));
  cr_assert_not(gql_schema_is_type_sub_type_of(s, l, n));
  gql_schema_free(s);
}

Test(build, meta_fields_are_found_where_graphql_js_finds_them) {
  gql_schema *s = build_ok("type Query { a: A } type A { x: Int }\n"
                           "union U = A");
  uint32_t q = s->query, a = idx(s, "A"), u = idx(s, "U");
  const gql_field *f = gql_schema_field_def(s, q, GQL_STR("__schema"));
  cr_assert_not_null(f);
  cr_assert_eq(f->type.type, idx(s, "__Schema"));
  cr_assert(gql_type_ref_is_non_null(f->type));
  cr_assert_not_null(gql_schema_field_def(s, q, GQL_STR("__type")));
  cr_assert_eq(gql_schema_field_def(s, q, GQL_STR("__type"))->nargs, 1);
  cr_assert_null(gql_schema_field_def(s, a, GQL_STR("__schema")));
  cr_assert_not_null(gql_schema_field_def(s, u, GQL_STR("__typename")));
  cr_assert_null(gql_schema_field_def(s, u, GQL_STR("x")));
  cr_assert_not_null(gql_schema_field_def(s, a, GQL_STR("x")));
  cr_assert_null(gql_schema_field_def(s, s->t_int, GQL_STR("__typename")));
  gql_schema_free(s);
}

Test(build, introspection_types_have_the_sept2025_members) {
  gql_schema *s = build_ok("type Query { a: Int }");
  const gql_type *t = gql_schema_type(s, GQL_STR("__Type"));
  cr_assert_not_null(gql_type_field(t, GQL_STR("isOneOf")));
  cr_assert_not_null(gql_type_field(t, GQL_STR("specifiedByURL")));
  const gql_field *inf = gql_type_field(t, GQL_STR("inputFields"));
  cr_assert_not_null(gql_field_arg(inf, GQL_STR("includeDeprecated")));
  const gql_type *d = gql_schema_type(s, GQL_STR("__Directive"));
  cr_assert_not_null(gql_type_field(d, GQL_STR("isRepeatable")));
  const gql_field *args = gql_type_field(d, GQL_STR("args"));
  cr_assert_not_null(gql_field_arg(args, GQL_STR("includeDeprecated")));
  cr_assert_not_null(gql_type_field(d, GQL_STR("isDeprecated")));
  cr_assert_not_null(gql_type_field(d, GQL_STR("deprecationReason")));
  const gql_field *dirs = gql_type_field(
      gql_schema_type(s, GQL_STR("__Schema")), GQL_STR("directives"));
  const gql_input_value *inc =
      gql_field_arg(dirs, GQL_STR("includeDeprecated"));
  cr_assert(gql_type_ref_is_non_null(inc->type));
  cr_assert_not_null(inc->default_value);
  const gql_type *loc = gql_schema_type(s, GQL_STR("__DirectiveLocation"));
  cr_assert_eq(loc->nvalues, GQL_DIRLOC_COUNT);
  cr_assert(loc->builtin);
  gql_schema_free(s);
}

Test(build, schema_owns_a_copy_of_the_source) {
  const char *text = "type Query { hello: String }";
  char *buf = strdup(text);
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(buf, strlen(buf), NULL, &s, NULL), 0);
  memset(buf, 'x', strlen(buf));
  free(buf);
  cr_assert_geq(gql_schema_type_by_name(s, "Query", 5), 0);
  uint32_t q = (uint32_t)gql_schema_type_by_name(s, "Query", 5);
  cr_assert_eq(gql_schema_field_index(s, q, "hello", 5), 0);
  cr_assert_eq(gql_schema_field_index(s, q, "nope", 4), -1);
  gql_arena *a = gql_arena_new(NULL);
  const char *out;
  size_t len;
  cr_assert_eq(gql_schema_print(s, a, &out, &len), 0);
  cr_assert_str_eq(out, "type Query {\n  hello: String\n}");
  cr_assert_eq(len, strlen(out));
  gql_arena_free(a);
  gql_schema_free(s);
}

Test(build, public_api_reports_syntax_errors_with_location) {
  gql_arena *a = gql_arena_new(NULL);
  gql_errors errors = {.arena = a};
  gql_schema *s = (gql_schema *)1;
  int rc = gql_schema_from_sdl("type Query {\n  a: }", 19, NULL, &s, &errors);
  cr_assert_eq(rc, GQL_ESYNTAX);
  cr_assert_null(s);
  cr_assert_eq(errors.count, 1);
  cr_assert_str_eq(errors.items[0].message,
                   "Syntax Error: Expected Name, found \"}\".");
  cr_assert_eq(errors.items[0].locations[0].line, 2);
  cr_assert_eq(errors.items[0].locations[0].column, 6);
  gql_arena_free(a);
}

Test(build, public_api_reports_sdl_errors) {
  gql_arena *a = gql_arena_new(NULL);
  gql_errors errors = {.arena = a};
  gql_schema *s;
  const char *sdl = "type Query { a: Int }\ntype Query { b: Int }";
  int rc = gql_schema_from_sdl(sdl, strlen(sdl), NULL, &s, &errors);
  cr_assert_eq(rc, GQL_ESCHEMA);
  cr_assert_eq(errors.count, 1);
  cr_assert_str_eq(errors.items[0].message,
                   "There can be only one type named \"Query\".");
  cr_assert_eq(errors.items[0].nlocations, 2);
  cr_assert_eq(errors.items[0].locations[1].line, 2);
  cr_assert_eq(errors.items[0].locations[1].column, 6);
  gql_arena_free(a);
}

Test(build, empty_sdl_is_a_syntax_error) {
  gql_schema *s;
  cr_assert_eq(gql_schema_from_sdl("", 0, NULL, &s, NULL), GQL_ESYNTAX);
  cr_assert_eq(gql_schema_from_sdl(NULL, 0, NULL, &s, NULL), GQL_ESYNTAX);
}

Test(build, extend_makes_a_new_schema_and_keeps_the_base) {
  gql_schema *base = build_ok("type Query { a: Int }");
  const char *ext = "extend type Query { b: Foo }\ntype Foo { x: Float }";
  gql_schema *s;
  cr_assert_eq(gql_schema_extend(base, ext, strlen(ext), NULL, &s, NULL), 0);
  cr_assert_eq(gql_schema_type(base, GQL_STR("Query"))->nfields, 1);
  cr_assert_eq(gql_schema_type(s, GQL_STR("Query"))->nfields, 2);
  /* extendSchema keeps the base's type map, then adds new types */
  char *names = type_names(s);
  cr_assert_str_eq(names, "Query Int Boolean String __Schema __Type "
                          "__TypeKind __Field __InputValue __EnumValue "
                          "__Directive __DirectiveLocation Foo Float");
  free(names);
  gql_arena *a = gql_arena_new(NULL);
  const char *out;
  cr_assert_eq(gql_schema_print(s, a, &out, NULL), 0);
  cr_assert_str_eq(out, "type Query {\n  a: Int\n  b: Foo\n}\n\n"
                        "type Foo {\n  x: Float\n}");
  gql_arena_free(a);
  gql_schema_free(s);
  gql_schema_free(base);
}

Test(build, extending_with_an_existing_type_is_an_error) {
  gql_schema *base = build_ok("type Query { a: Int }");
  gql_arena *a = gql_arena_new(NULL);
  gql_errors errors = {.arena = a};
  gql_schema *s;
  const char *ext = "type Query { b: Int }";
  cr_assert_eq(gql_schema_extend(base, ext, strlen(ext), NULL, &s, &errors),
               GQL_ESCHEMA);
  cr_assert_eq(errors.count, 1);
  cr_assert_str_eq(errors.items[0].message,
                   "Type \"Query\" already exists in the schema. It cannot "
                   "also be defined in this type definition.");
  gql_arena_free(a);
  gql_schema_free(base);
}

Test(build, unknown_type_without_sdl_validation_fails_cleanly) {
  gql_schema_build_options o = {.skip_sdl_validation = true};
  char *e = build_errors("type Query { a: Nope }", &o);
  cr_assert_str_eq(e, " Unknown type: \"Nope\".\n");
  free(e);
}

Test(build, specified_by_on_a_later_extension_applies_as_in_extend_schema) {
  gql_schema *base = build_ok("type Query { a: S } scalar S\n"
                              "extend scalar S @specifiedBy(url: \"same\")");
  cr_assert_null(gql_schema_type(base, GQL_STR("S"))->specified_by_url.ptr);
  const char *ext = "extend scalar S @specifiedBy(url: \"later\")";
  gql_schema *s;
  cr_assert_eq(gql_schema_extend(base, ext, strlen(ext), NULL, &s, NULL), 0);
  cr_assert(gql_str_eq_cstr(gql_schema_type(s, GQL_STR("S"))->specified_by_url,
                            "later"));
  gql_schema_free(s);
  gql_schema_free(base);
}

Test(build, members_of_large_types_are_found_through_the_index) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "type Query {");
  for (int i = 0; i < 100; i++)
    gql_buf_printf(&b, " f%d: Int", i);
  gql_buf_puts(&b, " }\nenum E {");
  for (int i = 0; i < 50; i++)
    gql_buf_printf(&b, " V%d", i);
  gql_buf_puts(&b, " }\ninput In {");
  for (int i = 0; i < 30; i++)
    gql_buf_printf(&b, " i%d: E", i);
  gql_buf_puts(&b, " }\n");
  gql_schema *s = build_ok(gql_buf_cstr(&b));
  gql_buf_free(&b);
  const gql_type *q = gql_schema_type(s, GQL_STR("Query"));
  const gql_type *e = gql_schema_type(s, GQL_STR("E"));
  const gql_type *in = gql_schema_type(s, GQL_STR("In"));
  cr_assert_not_null(q->member_index);
  char name[16];
  for (int i = 0; i < 100; i++) {
    snprintf(name, sizeof name, "f%d", i);
    const gql_field *f = gql_type_field(q, gql_cstr(name));
    cr_assert_not_null(f);
    cr_assert_eq(f - q->fields, i);
  }
  cr_assert_null(gql_type_field(q, GQL_STR("f100")));
  cr_assert_null(gql_type_field(q, GQL_STR("")));
  cr_assert_eq(gql_type_enum_value(e, GQL_STR("V49")) - e->values, 49);
  cr_assert_null(gql_type_enum_value(e, GQL_STR("V50")));
  cr_assert_eq(gql_type_input_field(in, GQL_STR("i7")) - in->input_fields, 7);
  cr_assert_null(gql_type_input_field(in, GQL_STR("i30")));
  cr_assert_eq(gql_schema_field_def(s, s->query, GQL_STR("f42")),
               &q->fields[42]);
  gql_schema_free(s);
}
