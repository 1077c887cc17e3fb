#include "language/ast.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static gql_arena *arena;

static void setup(void) {
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
}

TestSuite(parser, .init = setup, .fini = teardown);

static gql_document *parse_ok(const char *src) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse_syntax(arena, src, strlen(src), NULL, &doc, &err);
  cr_assert_eq(rc, 0, "parse failed: %s", err.message);
  cr_assert_not_null(doc);
  return doc;
}

static gql_syntax_error parse_err_opts(const char *src, size_t len,
                                       const gql_parse_options *o, int want) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse_syntax(arena, src, len, o, &doc, &err);
  cr_assert_eq(rc, want, "rc %d for %.60s", rc, src);
  cr_assert_not_null(err.message);
  return err;
}

static void assert_error(const char *src, const char *message, uint32_t line,
                         uint32_t column) {
  gql_syntax_error err = parse_err_opts(src, strlen(src), NULL, GQL_ESYNTAX);
  cr_assert_str_eq(err.message, message, "for %s", src);
  cr_assert_eq(err.location.line, line, "line %u for %s", err.location.line,
               src);
  cr_assert_eq(err.location.column, column, "column %u for %s",
               err.location.column, src);
}

static void assert_name(gql_ast_name n, const char *want) {
  cr_assert_eq(n.len, strlen(want), "name '%.*s' want '%s'", (int)n.len,
               n.ptr ? n.ptr : "", want);
  cr_assert(memcmp(n.ptr, want, n.len) == 0, "name '%.*s' want '%s'",
            (int)n.len, n.ptr, want);
}

static void assert_str(gql_str s, const char *want) {
  cr_assert_eq(s.len, strlen(want), "'%.*s' want '%s'", (int)s.len, s.ptr,
               want);
  cr_assert(memcmp(s.ptr, want, s.len) == 0, "'%.*s' want '%s'", (int)s.len,
            s.ptr, want);
}

static void assert_span(const void *node, uint32_t start, uint32_t end) {
  const gql_ast_node *h = node;
  cr_assert_eq(h->start, start, "%s start %u want %u",
               gql_ast_kind_name(h->kind), h->start, start);
  cr_assert_eq(h->end, end, "%s end %u want %u", gql_ast_kind_name(h->kind),
               h->end, end);
}

/* The span of `needle`'s first occurrence in `src`. */
static void assert_span_text(const char *src, const void *node,
                             const char *needle) {
  const char *at = strstr(src, needle);
  cr_assert_not_null(at, "%s not in source", needle);
  assert_span(node, (uint32_t)(at - src),
              (uint32_t)(at - src + strlen(needle)));
}

/* ---- executable documents */

Test(parser, shorthand_query_with_fields_and_spans) {
  const char *src = "{ a b }";
  gql_document *doc = parse_ok(src);
  assert_span(doc, 0, 7);
  cr_assert_eq(doc->definitions.count, 1);
  gql_ast_operation *op = (gql_ast_operation *)doc->definitions.items[0];
  cr_assert_eq(op->h.kind, GQL_AST_OPERATION_DEFINITION);
  cr_assert(op->shorthand);
  cr_assert_eq(op->operation, GQL_OP_QUERY);
  cr_assert_null(op->name.ptr);
  cr_assert_null(op->description);
  assert_span(op, 0, 7);
  assert_span(op->selection_set, 0, 7);
  cr_assert_eq(op->selection_set->selections.count, 2);
  gql_ast_selection *b = op->selection_set->selections.items[1];
  cr_assert_eq(b->h.kind, GQL_AST_FIELD);
  assert_name(b->name, "b");
  cr_assert_eq(b->name.start, 4);
  cr_assert_null(b->selection_set);
  assert_span(b, 4, 5);
  cr_assert_eq(doc->token_count, 4);
  cr_assert_eq(doc->source.ptr, src);
}

Test(parser, document_span_covers_ignored_tokens_at_both_ends) {
  gql_document *doc = parse_ok("  # c\n{ a }  ");
  assert_span(doc, 0, 13);
  assert_span(doc->definitions.items[0], 6, 11);
}

Test(parser, named_operation_with_variables_directives_and_selections) {
  const char *src =
      "mutation M($a: [Int!]! = [1, 2] @v, $b: In = {x: 1}) @op {\n"
      "  al: f(x: $a, y: \"s\", e: ENUM, n: null, t: true, fl: 1.5)"
      " @skip(if: false) {\n"
      "    ...Frag @d\n"
      "    ... on T { x }\n"
      "    ... @include(if: $b) { y }\n"
      "    ... { z }\n"
      "  }\n"
      "}";
  gql_document *doc = parse_ok(src);
  gql_ast_operation *op = (gql_ast_operation *)doc->definitions.items[0];
  cr_assert_eq(op->operation, GQL_OP_MUTATION);
  cr_assert(!op->shorthand);
  assert_name(op->name, "M");
  assert_span(op, 0, (uint32_t)strlen(src));

  cr_assert_eq(op->variables.count, 2);
  gql_ast_variable_definition *a = op->variables.items[0];
  cr_assert_eq(a->h.kind, GQL_AST_VARIABLE_DEFINITION);
  assert_span_text(src, a, "$a: [Int!]! = [1, 2] @v");
  assert_name(a->variable->u.name, "a");
  assert_span_text(src, a->variable, "$a");
  cr_assert_eq(a->type->h.kind, GQL_AST_NON_NULL_TYPE);
  assert_span_text(src, a->type, "[Int!]!");
  gql_ast_type *list = a->type->of;
  cr_assert_eq(list->h.kind, GQL_AST_LIST_TYPE);
  assert_span_text(src, list, "[Int!]");
  cr_assert_eq(list->of->h.kind, GQL_AST_NON_NULL_TYPE);
  cr_assert_eq(list->of->of->h.kind, GQL_AST_NAMED_TYPE);
  assert_name(list->of->of->name, "Int");
  cr_assert_eq(a->default_value->h.kind, GQL_AST_LIST_VALUE);
  cr_assert_eq(a->default_value->u.list.count, 2);
  assert_str(a->default_value->u.list.items[1]->u.raw, "2");
  assert_span_text(src, a->default_value, "[1, 2]");
  cr_assert_eq(a->directives.count, 1);
  assert_name(a->directives.items[0]->name, "v");

  gql_ast_variable_definition *b = op->variables.items[1];
  gql_ast_value *obj = b->default_value;
  cr_assert_eq(obj->h.kind, GQL_AST_OBJECT_VALUE);
  cr_assert_eq(obj->u.fields.count, 1);
  cr_assert_eq(obj->u.fields.items[0]->h.kind, GQL_AST_OBJECT_FIELD);
  assert_name(obj->u.fields.items[0]->name, "x");
  assert_span_text(src, obj, "{x: 1}");
  assert_span_text(src, obj->u.fields.items[0], "x: 1");

  cr_assert_eq(op->directives.count, 1);
  assert_name(op->directives.items[0]->name, "op");
  assert_span_text(src, op->directives.items[0], "@op");

  gql_ast_selection *f = op->selection_set->selections.items[0];
  cr_assert_eq(f->h.kind, GQL_AST_FIELD);
  assert_name(f->alias, "al");
  assert_name(f->name, "f");
  cr_assert_eq(f->args.count, 6);
  static const int kinds[] = {GQL_AST_VARIABLE,      GQL_AST_STRING_VALUE,
                              GQL_AST_ENUM_VALUE,    GQL_AST_NULL_VALUE,
                              GQL_AST_BOOLEAN_VALUE, GQL_AST_FLOAT_VALUE};
  for (int i = 0; i < 6; i++) {
    cr_assert_eq(f->args.items[i]->h.kind, GQL_AST_ARGUMENT);
    cr_assert_eq(f->args.items[i]->value->h.kind, kinds[i], "arg %d", i);
  }
  assert_span_text(src, f->args.items[0], "x: $a");
  assert_str(f->args.items[1]->value->u.string.value, "s");
  cr_assert(!f->args.items[1]->value->u.string.block);
  assert_str(f->args.items[2]->value->u.raw, "ENUM");
  cr_assert(f->args.items[4]->value->u.boolean);
  assert_str(f->args.items[5]->value->u.raw, "1.5");
  cr_assert_eq(f->directives.count, 1);
  cr_assert(!f->directives.items[0]->args.items[0]->value->u.boolean);
  assert_span_text(src, f->directives.items[0], "@skip(if: false)");

  gql_ast_selection_set *ss = f->selection_set;
  cr_assert_eq(ss->selections.count, 4);
  gql_ast_selection *spread = ss->selections.items[0];
  cr_assert_eq(spread->h.kind, GQL_AST_FRAGMENT_SPREAD);
  assert_name(spread->name, "Frag");
  assert_span_text(src, spread, "...Frag @d");
  gql_ast_selection *on_t = ss->selections.items[1];
  cr_assert_eq(on_t->h.kind, GQL_AST_INLINE_FRAGMENT);
  assert_name(on_t->type_condition->name, "T");
  assert_span_text(src, on_t, "... on T { x }");
  gql_ast_selection *dir = ss->selections.items[2];
  cr_assert_eq(dir->h.kind, GQL_AST_INLINE_FRAGMENT);
  cr_assert_null(dir->type_condition);
  cr_assert_eq(dir->directives.count, 1);
  gql_ast_selection *bare = ss->selections.items[3];
  cr_assert_null(bare->type_condition);
  cr_assert_eq(bare->directives.count, 0);
  assert_span_text(src, bare, "... { z }");
}

Test(parser, fragment_definition_with_type_condition) {
  const char *src = "fragment F on User @d { id }";
  gql_document *doc = parse_ok(src);
  gql_ast_fragment *f = (gql_ast_fragment *)doc->definitions.items[0];
  cr_assert_eq(f->h.kind, GQL_AST_FRAGMENT_DEFINITION);
  assert_name(f->name, "F");
  assert_name(f->type_condition->name, "User");
  assert_span_text(src, f->type_condition, "User");
  cr_assert_eq(f->directives.count, 1);
  cr_assert_eq(f->selection_set->selections.count, 1);
  assert_span(f, 0, (uint32_t)strlen(src));
}

Test(parser, descriptions_on_operations_fragments_and_variables) {
  const char *src =
      "\"\"\"\n  Op doc\n\"\"\"\nquery Q(\"var doc\" $v: Int) { a }\n"
      "\"frag doc\" fragment F on T { b }\n"
      "\"anon\" query { c }";
  gql_document *doc = parse_ok(src);
  cr_assert_eq(doc->definitions.count, 3);
  gql_ast_operation *op = (gql_ast_operation *)doc->definitions.items[0];
  cr_assert_not_null(op->description);
  assert_str(op->description->u.string.value, "Op doc");
  cr_assert(op->description->u.string.block);
  cr_assert_eq(op->h.start, 0, "the span starts at the description");
  gql_ast_variable_definition *v = op->variables.items[0];
  assert_str(v->description->u.string.value, "var doc");
  assert_span_text(src, v, "\"var doc\" $v: Int");
  gql_ast_fragment *f = (gql_ast_fragment *)doc->definitions.items[1];
  assert_str(f->description->u.string.value, "frag doc");
  assert_span_text(src, f, "\"frag doc\" fragment F on T { b }");
  gql_ast_operation *anon = (gql_ast_operation *)doc->definitions.items[2];
  assert_str(anon->description->u.string.value, "anon");
  cr_assert_null(anon->name.ptr);
  cr_assert(!anon->shorthand);
}

Test(parser, descriptions_rejected_where_graphql_js_17_rejects_them) {
  assert_error("\"\"\"Invalid\"\"\"\n  { __typename }",
               "Syntax Error: Unexpected description, descriptions are not "
               "supported on shorthand queries.",
               1, 1);
  assert_error("\"d\" extend type A @x",
               "Syntax Error: Unexpected description, only GraphQL "
               "definitions support descriptions.",
               1, 1);
  assert_error("\"d\" foo",
               "Syntax Error: Unexpected description, only "
               "GraphQL definitions support descriptions.",
               1, 1);
  assert_error("\"d\" \"e\"", "Syntax Error: Unexpected String \"e\".", 1, 5);
}

Test(parser, kitchen_sink_fixtures_parse) {
  static const char *const files[] = {
      "kitchen-sink.graphql", "schema-kitchen-sink.graphql",
      "kitchen-sink.printed.graphql", "schema-kitchen-sink.printed.graphql"};
  for (size_t i = 0; i < GQL_ARRAY_LEN(files); i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/../shared/conformance/fixtures/%s",
             GQL_SOURCE_DIR, files[i]);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    gql_document *doc = NULL;
    gql_syntax_error err = {0};
    int rc = gql_parse_syntax(arena, buf, n, NULL, &doc, &err);
    cr_assert_eq(rc, 0, "%s: %u:%u %s", files[i], err.location.line,
                 err.location.column, err.message);
    cr_assert_gt(doc->definitions.count, 5);
    gql_arena_reset(arena);
  }
}

/* ---- type system */

Test(parser, schema_definition_with_operation_types) {
  const char *src = "\"d\" schema @a { query: Q mutation: M subscription: S }";
  gql_document *doc = parse_ok(src);
  gql_ast_schema_def *s = (gql_ast_schema_def *)doc->definitions.items[0];
  cr_assert_eq(s->h.kind, GQL_AST_SCHEMA_DEFINITION);
  assert_str(s->description->u.string.value, "d");
  cr_assert_eq(s->directives.count, 1);
  cr_assert_eq(s->operation_types.count, 3);
  gql_ast_operation_type_def *m = s->operation_types.items[1];
  cr_assert_eq(m->h.kind, GQL_AST_OPERATION_TYPE_DEFINITION);
  cr_assert_eq(m->operation, GQL_OP_MUTATION);
  assert_name(m->type->name, "M");
  assert_span_text(src, m, "mutation: M");
  assert_span(s, 0, (uint32_t)strlen(src));
}

Test(parser, object_type_with_interfaces_fields_and_arguments) {
  const char *src = "\"\"\"Doc\"\"\"\ntype Hello implements & A & B @k {\n"
                    "  \"f doc\" world(\"a doc\" flag: Boolean = true @x, n: "
                    "[Int]): String! @deprecated\n"
                    "  other: [Hello]\n}";
  gql_document *doc = parse_ok(src);
  gql_ast_type_def *t = (gql_ast_type_def *)doc->definitions.items[0];
  cr_assert_eq(t->h.kind, GQL_AST_OBJECT_TYPE_DEFINITION);
  assert_str(t->description->u.string.value, "Doc");
  assert_name(t->name, "Hello");
  cr_assert_eq(t->interfaces.count, 2);
  assert_name(t->interfaces.items[1]->name, "B");
  cr_assert_eq(t->directives.count, 1);
  cr_assert_eq(t->fields.count, 2);
  gql_ast_field_def *w = t->fields.items[0];
  cr_assert_eq(w->h.kind, GQL_AST_FIELD_DEFINITION);
  assert_str(w->description->u.string.value, "f doc");
  assert_name(w->name, "world");
  cr_assert_eq(w->args.count, 2);
  gql_ast_input_value_def *flag = w->args.items[0];
  cr_assert_eq(flag->h.kind, GQL_AST_INPUT_VALUE_DEFINITION);
  assert_str(flag->description->u.string.value, "a doc");
  assert_name(flag->type->name, "Boolean");
  cr_assert_eq(flag->default_value->h.kind, GQL_AST_BOOLEAN_VALUE);
  cr_assert_eq(flag->directives.count, 1);
  assert_span_text(src, flag, "\"a doc\" flag: Boolean = true @x");
  cr_assert_eq(w->type->h.kind, GQL_AST_NON_NULL_TYPE);
  cr_assert_eq(w->directives.count, 1);
  assert_span_text(src, w,
                   "\"f doc\" world(\"a doc\" flag: Boolean = true @x, n: "
                   "[Int]): String! @deprecated");
  assert_span(t, 0, (uint32_t)strlen(src));
}

Test(parser, interface_may_implement_interfaces) {
  gql_document *doc = parse_ok("interface A implements B & C { f: Int }");
  gql_ast_type_def *t = (gql_ast_type_def *)doc->definitions.items[0];
  cr_assert_eq(t->h.kind, GQL_AST_INTERFACE_TYPE_DEFINITION);
  cr_assert_eq(t->interfaces.count, 2);
  cr_assert_eq(t->fields.count, 1);
}

Test(parser, type_without_fields_is_allowed) {
  gql_document *doc = parse_ok("type A interface B union C enum D input E "
                               "scalar F");
  cr_assert_eq(doc->definitions.count, 6);
  static const int kinds[] = {
      GQL_AST_OBJECT_TYPE_DEFINITION,       GQL_AST_INTERFACE_TYPE_DEFINITION,
      GQL_AST_UNION_TYPE_DEFINITION,        GQL_AST_ENUM_TYPE_DEFINITION,
      GQL_AST_INPUT_OBJECT_TYPE_DEFINITION, GQL_AST_SCALAR_TYPE_DEFINITION};
  for (int i = 0; i < 6; i++)
    cr_assert_eq(doc->definitions.items[i]->kind, kinds[i]);
}

Test(parser, union_members_with_and_without_leading_pipe) {
  gql_document *doc = parse_ok("union U @d = | A | B\nunion V = C");
  gql_ast_type_def *u = (gql_ast_type_def *)doc->definitions.items[0];
  cr_assert_eq(u->h.kind, GQL_AST_UNION_TYPE_DEFINITION);
  cr_assert_eq(u->directives.count, 1);
  cr_assert_eq(u->members.count, 2);
  assert_name(u->members.items[0]->name, "A");
  assert_name(u->members.items[1]->name, "B");
  assert_span(u, 0, 20);
  gql_ast_type_def *v = (gql_ast_type_def *)doc->definitions.items[1];
  cr_assert_eq(v->members.count, 1);
}

Test(parser, enum_values_with_descriptions_and_directives) {
  const char *src = "enum E { \"a\" A @x B }";
  gql_document *doc = parse_ok(src);
  gql_ast_type_def *e = (gql_ast_type_def *)doc->definitions.items[0];
  cr_assert_eq(e->h.kind, GQL_AST_ENUM_TYPE_DEFINITION);
  cr_assert_eq(e->values.count, 2);
  gql_ast_enum_value_def *a = e->values.items[0];
  cr_assert_eq(a->h.kind, GQL_AST_ENUM_VALUE_DEFINITION);
  assert_str(a->description->u.string.value, "a");
  assert_name(a->name, "A");
  cr_assert_eq(a->directives.count, 1);
  assert_span_text(src, a, "\"a\" A @x");
}

Test(parser, input_object_fields) {
  gql_document *doc = parse_ok("input I { a: Int = 1, b: [I!] @d }");
  gql_ast_type_def *t = (gql_ast_type_def *)doc->definitions.items[0];
  cr_assert_eq(t->h.kind, GQL_AST_INPUT_OBJECT_TYPE_DEFINITION);
  cr_assert_eq(t->input_fields.count, 2);
  assert_str(t->input_fields.items[0]->default_value->u.raw, "1");
  cr_assert_eq(t->input_fields.items[1]->directives.count, 1);
}

Test(parser, directive_definition_with_repeatable_and_locations) {
  const char *src = "\"d\" directive @dir(a: Int = 2) repeatable on | FIELD | "
                    "QUERY\ndirective @other on ENUM_VALUE";
  gql_document *doc = parse_ok(src);
  gql_ast_directive_def *d = (gql_ast_directive_def *)doc->definitions.items[0];
  cr_assert_eq(d->h.kind, GQL_AST_DIRECTIVE_DEFINITION);
  assert_str(d->description->u.string.value, "d");
  assert_name(d->name, "dir");
  cr_assert_eq(d->args.count, 1);
  cr_assert(d->repeatable);
  cr_assert_eq(d->locations.count, 2);
  assert_name(*d->locations.items[0], "FIELD");
  assert_name(*d->locations.items[1], "QUERY");
  cr_assert_eq(d->locations.items[1]->start,
               (uint32_t)(strstr(src, "QUERY") - src));
  assert_span_text(src, d,
                   "\"d\" directive @dir(a: Int = 2) repeatable on | FIELD | "
                   "QUERY");
  gql_ast_directive_def *o = (gql_ast_directive_def *)doc->definitions.items[1];
  cr_assert(!o->repeatable);
}

Test(parser, directive_definition_rejects_unknown_location) {
  assert_error("directive @d on FIELD | INCORRECT_LOCATION",
               "Syntax Error: Unexpected Name \"INCORRECT_LOCATION\".", 1, 25);
}

Test(parser, every_extension_kind) {
  const char *src = "extend schema @d { query: Q }\n"
                    "extend scalar S @d\n"
                    "extend type T implements I\n"
                    "extend interface J @d\n"
                    "extend union U = A\n"
                    "extend enum E { V }\n"
                    "extend input In { f: Int }";
  gql_document *doc = parse_ok(src);
  cr_assert_eq(doc->definitions.count, 7);
  static const int kinds[] = {
      GQL_AST_SCHEMA_EXTENSION,           GQL_AST_SCALAR_TYPE_EXTENSION,
      GQL_AST_OBJECT_TYPE_EXTENSION,      GQL_AST_INTERFACE_TYPE_EXTENSION,
      GQL_AST_UNION_TYPE_EXTENSION,       GQL_AST_ENUM_TYPE_EXTENSION,
      GQL_AST_INPUT_OBJECT_TYPE_EXTENSION};
  for (int i = 0; i < 7; i++)
    cr_assert_eq(doc->definitions.items[i]->kind, kinds[i], "ext %d", i);
  gql_ast_schema_def *s = (gql_ast_schema_def *)doc->definitions.items[0];
  cr_assert_eq(s->operation_types.count, 1);
  assert_span_text(src, s, "extend schema @d { query: Q }");
  gql_ast_type_def *t = (gql_ast_type_def *)doc->definitions.items[2];
  assert_name(t->name, "T");
  cr_assert_eq(t->interfaces.count, 1);
  cr_assert_null(t->description);
  assert_span_text(src, t, "extend type T implements I");
  gql_ast_type_def *in = (gql_ast_type_def *)doc->definitions.items[6];
  cr_assert_eq(in->input_fields.count, 1);
}

/* ---- errors not in the shared corpus */

Test(parser, error_messages_and_locations) {
  assert_error("", "Syntax Error: Unexpected <EOF>.", 1, 1);
  assert_error("   \n  # only a comment\n", "Syntax Error: Unexpected <EOF>.",
               3, 1);
  assert_error("{", "Syntax Error: Expected Name, found <EOF>.", 1, 2);
  assert_error("{ a", "Syntax Error: Expected Name, found <EOF>.", 1, 4);
  assert_error("query", "Syntax Error: Expected \"{\", found <EOF>.", 1, 6);
  assert_error("query Q() { a }", "Syntax Error: Expected \"$\", found \")\".",
               1, 9);
  assert_error("{ f() }", "Syntax Error: Expected Name, found \")\".", 1, 5);
  assert_error("{ a(b: ) }", "Syntax Error: Unexpected \")\".", 1, 8);
  assert_error("{ a(b: [1 }", "Syntax Error: Unexpected \"}\".", 1, 11);
  assert_error("{ ...on }", "Syntax Error: Expected Name, found \"}\".", 1, 9);
  assert_error("query Q($v: Int = $x) { a }",
               "Syntax Error: Unexpected variable \"$x\" in constant value.", 1,
               19);
  assert_error("query Q($v: Int = $1) { a }", "Syntax Error: Unexpected \"$\".",
               1, 19);
  assert_error("type T { f: Int @d(a: $v) }",
               "Syntax Error: Unexpected variable \"$v\" in constant value.", 1,
               23);
  assert_error("type A {}", "Syntax Error: Expected Name, found \"}\".", 1, 9);
  assert_error("extend foo", "Syntax Error: Unexpected Name \"foo\".", 1, 8);
  assert_error("extend", "Syntax Error: Unexpected <EOF>.", 1, 7);
  assert_error("enum E { \"d\" \"false\" }",
               "Syntax Error: String \"false\" is reserved and cannot be "
               "used for an enum value.",
               1, 14);
  assert_error("enum E { false }",
               "Syntax Error: Name \"false\" is reserved and cannot be used "
               "for an enum value.",
               1, 10);
  assert_error("{ a }\n  \"\"\"x\n  y\"\"\"", "Syntax Error: Unexpected <EOF>.",
               3, 7);
  assert_error("{ a }\n{ \"\"\"x\n  y\"\"\" }",
               "Syntax Error: Expected Name, found BlockString \"x\ny\".", 2,
               3);
  assert_error("{ a: 1 }", "Syntax Error: Expected Name, found Int \"1\".", 1,
               6);
  assert_error("{ a }\r\n{ b: 1.5e3 }",
               "Syntax Error: Expected Name, found Float \"1.5e3\".", 2, 6);
  assert_error("fragment F Type { a }",
               "Syntax Error: Expected \"on\", found Name \"Type\".", 1, 12);
  assert_error("directive @d on", "Syntax Error: Expected Name, found <EOF>.",
               1, 16);
  assert_error("directive @d(a: Int) FIELD",
               "Syntax Error: Expected \"on\", found Name \"FIELD\".", 1, 22);
  assert_error("schema { query Q }",
               "Syntax Error: Expected \":\", found Name \"Q\".", 1, 16);
  assert_error("schema { foo: Q }", "Syntax Error: Unexpected Name \"foo\".", 1,
               10);
  assert_error("type T implements { a: B }",
               "Syntax Error: Expected Name, found \"{\".", 1, 19);
  assert_error("{ a(b: \"\xF0\x9F\x98\x80\" c) }",
               "Syntax Error: Expected \":\", found \")\".", 1, 14);
}

Test(parser, lexer_error_after_a_name_wins_as_in_graphql_js) {
  /* graphql-js reads the next token before it rejects the operation type */
  assert_error("schema { foo ~ }", "Syntax Error: Unexpected character: \"~\".",
               1, 14);
  assert_error("schema { foo }", "Syntax Error: Unexpected Name \"foo\".", 1,
               10);
}

Test(parser, lexer_errors_carry_their_location) {
  assert_error("{ a }\n{ b ~ }", "Syntax Error: Unexpected character: \"~\".",
               2, 5);
  assert_error("{ a(s: \"\xF0\x9F\x98\x80\\q\") }",
               "Syntax Error: Invalid character escape sequence: \"\\q\".", 1,
               11);
}

/* ---- limits */

Test(parser, token_limit_counts_tokens_like_graphql_js) {
  gql_document *doc;
  gql_syntax_error err;
  gql_parse_options o = {.max_tokens = 3};
  cr_assert_eq(gql_parse_syntax(arena, "{ foo }", 7, &o, &doc, &err), 0);
  o.max_tokens = 2;
  err = parse_err_opts("{ foo }", 7, &o, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document contains more than 2 "
                                "tokens. Parsing aborted.");
  cr_assert_eq(err.offset, 6);
  const char *src = "{ foo(bar: \"baz\") }";
  o.max_tokens = 8;
  cr_assert_eq(gql_parse_syntax(arena, src, strlen(src), &o, &doc, &err), 0);
  cr_assert_eq(doc->token_count, 8);
  o.max_tokens = 7;
  err = parse_err_opts(src, strlen(src), &o, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document contains more than 7 "
                                "tokens. Parsing aborted.");
  /* comments are not tokens */
  o.max_tokens = 3;
  cr_assert_eq(gql_parse_syntax(arena, "# x\n{ foo # y\n}", 15, &o, &doc, &err),
               0);
}

static char *repeat(const char *prefix, const char *unit, size_t n,
                    const char *suffix) {
  size_t pl = strlen(prefix), ul = strlen(unit), sl = strlen(suffix);
  char *s = malloc(pl + ul * n + sl + 1);
  memcpy(s, prefix, pl);
  for (size_t i = 0; i < n; i++)
    memcpy(s + pl + i * ul, unit, ul);
  memcpy(s + pl + ul * n, suffix, sl + 1);
  return s;
}

Test(parser, ten_thousand_nested_selection_sets_hit_the_depth_limit) {
  char *src = repeat("", "{a", 10000, "");
  gql_syntax_error err = parse_err_opts(src, strlen(src), NULL, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document nesting exceeds the "
                                "maximum depth of 256.");
  cr_assert_eq(err.offset, 256 * 2, "the 257th '{'");
  cr_assert_eq(err.location.line, 1);
  cr_assert_eq(err.location.column, 513);
  free(src);
}

Test(parser, ten_thousand_nested_lists_hit_the_depth_limit) {
  char *src = repeat("{ a(x: ", "[", 10000, "");
  gql_syntax_error err = parse_err_opts(src, strlen(src), NULL, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document nesting exceeds the "
                                "maximum depth of 256.");
  free(src);
  src = repeat("{ a(x: ", "{a:", 10000, "");
  err = parse_err_opts(src, strlen(src), NULL, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document nesting exceeds the "
                                "maximum depth of 256.");
  free(src);
  src = repeat("query Q($v: ", "[", 10000, "");
  err = parse_err_opts(src, strlen(src), NULL, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document nesting exceeds the "
                                "maximum depth of 256.");
  free(src);
}

Test(parser, depth_limit_is_configurable_and_exact) {
  gql_parse_options o = {.max_depth = 3};
  gql_document *doc;
  gql_syntax_error err;
  cr_assert_eq(gql_parse_syntax(arena, "{a{b{c}}}", 9, &o, &doc, &err), 0);
  err = parse_err_opts("{a{b{c{d}}}}", 12, &o, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document nesting exceeds the "
                                "maximum depth of 3.");
  cr_assert_eq(err.offset, 6);
  /* selection sets and values nest together */
  err = parse_err_opts("{a{b(x: [[1]])}}", 16, &o, GQL_ELIMIT);
  cr_assert_eq(err.offset, 9);
  cr_assert_eq(gql_parse_syntax(arena, "{a(x: [[1]])}", 13, &o, &doc, &err), 0);
}

Test(parser, size_limit_rejects_large_documents) {
  gql_parse_options o = {.max_size = 4};
  gql_document *doc;
  gql_syntax_error err;
  cr_assert_eq(gql_parse_syntax(arena, "{ a}", 4, &o, &doc, &err), 0);
  err = parse_err_opts("{ a }", 5, &o, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document exceeds the maximum "
                                "size of 4 bytes.");
}

Test(parser, deep_nesting_within_the_limit_parses) {
  char *open = repeat("", "{a", 200, "");
  char *src = repeat(open, "}", 200, "");
  gql_document *doc = parse_ok(src);
  gql_ast_selection_set *ss =
      ((gql_ast_operation *)doc->definitions.items[0])->selection_set;
  int depth = 1;
  while (ss->selections.items[0]->selection_set) {
    ss = ss->selections.items[0]->selection_set;
    depth++;
  }
  cr_assert_eq(depth, 200);
  free(open);
  free(src);
}

Test(parser, out_of_memory_is_reported_not_crashed) {
  const char *src = "query Q($a: Int) { a b c d e f g h { i j k } }";
  for (size_t limit = 1; limit < 8192; limit *= 2) {
    gql_arena *a = gql_arena_new(NULL);
    gql_arena_set_limit(a, limit);
    gql_document *doc = NULL;
    gql_syntax_error err = {0};
    int rc = gql_parse_syntax(a, src, strlen(src), NULL, &doc, &err);
    cr_assert(rc == 0 || rc == GQL_ENOMEM, "rc %d at limit %zu", rc, limit);
    gql_arena_free(a);
  }
}

/* ---- pieces */

Test(parser, parse_value_accepts_variables_unless_const) {
  gql_ast_value *v;
  gql_syntax_error err;
  const char *src = "[1, \"two\", {three: $four}]";
  cr_assert_eq(gql_parse_value(arena, src, strlen(src), NULL, false, &v, &err),
               0);
  cr_assert_eq(v->h.kind, GQL_AST_LIST_VALUE);
  cr_assert_eq(v->u.list.count, 3);
  gql_ast_value *obj = v->u.list.items[2];
  cr_assert_eq(obj->u.fields.items[0]->value->h.kind, GQL_AST_VARIABLE);
  assert_name(obj->u.fields.items[0]->value->u.name, "four");
  assert_span(obj->u.fields.items[0]->value, 19, 24);
  assert_span(v, 0, (uint32_t)strlen(src));
  cr_assert_eq(gql_parse_value(arena, src, strlen(src), NULL, true, &v, &err),
               GQL_ESYNTAX);
  cr_assert_str_eq(err.message, "Syntax Error: Unexpected variable \"$four\" "
                                "in constant value.");
  cr_assert_eq(err.offset, 19);
  cr_assert_eq(gql_parse_value(arena, "1 2", 3, NULL, true, &v, &err),
               GQL_ESYNTAX);
  cr_assert_str_eq(err.message,
                   "Syntax Error: Expected <EOF>, found Int \"2\".");
  cr_assert_eq(
      gql_parse_value(arena, "\"\"\"  b\"\"\"", 9, NULL, true, &v, &err), 0);
  cr_assert(v->u.string.block);
  assert_str(v->u.string.value, "  b");
}

Test(parser, parse_type_reads_wrappers) {
  gql_ast_type *t;
  gql_syntax_error err;
  cr_assert_eq(gql_parse_type(arena, "[[String!]]!", 12, NULL, &t, &err), 0);
  cr_assert_eq(t->h.kind, GQL_AST_NON_NULL_TYPE);
  cr_assert_eq(t->of->h.kind, GQL_AST_LIST_TYPE);
  cr_assert_eq(t->of->of->h.kind, GQL_AST_LIST_TYPE);
  cr_assert_eq(t->of->of->of->h.kind, GQL_AST_NON_NULL_TYPE);
  assert_name(t->of->of->of->of->name, "String");
  assert_span(t->of->of, 1, 10);
  cr_assert_eq(gql_parse_type(arena, "String!!", 8, NULL, &t, &err),
               GQL_ESYNTAX);
  cr_assert_str_eq(err.message, "Syntax Error: Expected <EOF>, found \"!\".");
  cr_assert_eq(gql_parse_type(arena, "[Int", 4, NULL, &t, &err), GQL_ESYNTAX);
  cr_assert_str_eq(err.message, "Syntax Error: Expected \"]\", found <EOF>.");
}

static gql_ast_schema_coordinate *coord_ok(const char *src) {
  gql_ast_schema_coordinate *c = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse_schema_coordinate(arena, src, strlen(src), &c, &err);
  cr_assert_eq(rc, 0, "%s: %s", src, err.message);
  cr_assert_eq(c->h.kind, GQL_AST_SCHEMA_COORDINATE);
  assert_span(c, 0, (uint32_t)strlen(src));
  return c;
}

static void coord_err(const char *src, const char *message, size_t offset) {
  gql_ast_schema_coordinate *c = NULL;
  gql_syntax_error err = {0};
  int rc = gql_parse_schema_coordinate(arena, src, strlen(src), &c, &err);
  cr_assert_eq(rc, GQL_ESYNTAX, "%s", src);
  cr_assert_str_eq(err.message, message, "for %s", src);
  cr_assert_eq(err.offset, offset, "offset %zu for %s", err.offset, src);
}

Test(parser, schema_coordinates_of_every_form) {
  gql_ast_schema_coordinate *c = coord_ok("MyType");
  assert_name(c->name, "MyType");
  cr_assert(!c->directive);
  cr_assert_null(c->member.ptr);
  c = coord_ok("MyType.field");
  assert_name(c->member, "field");
  cr_assert_eq(c->member.start, 7);
  c = coord_ok("MyType.field(arg:)");
  assert_name(c->argument, "arg");
  c = coord_ok("@myDirective");
  cr_assert(c->directive);
  assert_name(c->name, "myDirective");
  c = coord_ok("@myDirective(arg:)");
  assert_name(c->argument, "arg");
  cr_assert_null(c->member.ptr);
}

Test(parser, schema_coordinate_errors) {
  coord_err("MyType.field.deep", "Syntax Error: Expected <EOF>, found \".\".",
            12);
  coord_err("MyType.field(arg: value)",
            "Syntax Error: Invalid character: \" \".", 17);
  coord_err("@myDirective.field", "Syntax Error: Expected <EOF>, found \".\".",
            12);
  coord_err("MyType(arg:)", "Syntax Error: Expected <EOF>, found \"(\".", 6);
  coord_err(" MyType", "Syntax Error: Invalid character: \" \".", 0);
  coord_err("MyType.", "Syntax Error: Expected Name, found <EOF>.", 7);
  coord_err("MyType.field(arg)", "Syntax Error: Expected \":\", found \")\".",
            16);
  coord_err("", "Syntax Error: Expected Name, found <EOF>.", 0);
}

Test(parser, invalid_arguments_are_rejected) {
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  cr_assert_eq(gql_parse_syntax(arena, "{ a }", 5, NULL, NULL, &err),
               GQL_EINVAL);
  cr_assert_eq(gql_parse_syntax(NULL, "{ a }", 5, NULL, &doc, &err),
               GQL_EINVAL);
  cr_assert_eq(gql_parse_syntax(arena, NULL, 3, NULL, &doc, &err), GQL_EINVAL);
  cr_assert_eq(gql_parse_syntax(arena, NULL, 0, NULL, &doc, &err), GQL_ESYNTAX);
  cr_assert_str_eq(err.message, "Syntax Error: Unexpected <EOF>.");
  /* no error structure wanted: the code alone */
  cr_assert_eq(gql_parse_syntax(arena, "{", 1, NULL, &doc, NULL), GQL_ESYNTAX);
}

Test(parser, empty_extensions_and_reserved_names) {
  assert_error("extend schema", "Syntax Error: Unexpected <EOF>.", 1, 14);
  assert_error("extend schema {}", "Syntax Error: Expected Name, found \"}\".",
               1, 16);
  assert_error("extend type A", "Syntax Error: Unexpected <EOF>.", 1, 14);
  assert_error("extend scalar S { a }", "Syntax Error: Unexpected \"{\".", 1,
               17);
  assert_error("extend input I\ntype B",
               "Syntax Error: Unexpected Name \"type\".", 2, 1);
  assert_error("fragment on on on { on }",
               "Syntax Error: Unexpected Name \"on\".", 1, 10);
  assert_error("{ ...on }", "Syntax Error: Expected Name, found \"}\".", 1, 9);
  gql_document *doc = parse_ok("{ ...on on { a } ...On }");
  gql_ast_selection_set *ss =
      ((gql_ast_operation *)doc->definitions.items[0])->selection_set;
  cr_assert_eq(ss->selections.items[0]->h.kind, GQL_AST_INLINE_FRAGMENT);
  assert_name(ss->selections.items[0]->type_condition->name, "on");
  cr_assert_eq(ss->selections.items[1]->h.kind, GQL_AST_FRAGMENT_SPREAD);
}

Test(parser, depth_limit_has_a_hard_ceiling_against_stack_overflow) {
  gql_parse_options o = {.max_depth = 4000000000u, .max_tokens = 4000000000u};
  char *src = repeat("", "{a", 200000, "");
  gql_syntax_error err = parse_err_opts(src, strlen(src), &o, GQL_ELIMIT);
  cr_assert_str_eq(err.message, "Syntax Error: Document nesting exceeds the "
                                "maximum depth of 10000.");
  free(src);
}

/* gql_parse_padded (gql_prepare's entry) against gql_parse: the same
 * result, printed form, token count and spans, or the same error at the
 * same offset, for texts ending in every kind of token. The padded copy is
 * exactly len + GQL_PARSE_PAD bytes, so a sanitizer build sees any read
 * past the pad. */
static void assert_padded_parse_matches(const char *src, size_t len,
                                        bool chunked) {
  char *copy = malloc(len + GQL_PARSE_PAD);
  cr_assert_not_null(copy);
  memcpy(copy, src, len);
  memset(copy + len, 0, GQL_PARSE_PAD);
  gql_document *a = NULL, *b = NULL;
  gql_syntax_error ea = {0}, eb = {0};
  int ra = gql_parse_syntax(arena, src, len, NULL, &a, &ea);
  /* the first node chunk from the caller, or from the arena */
  void *chunk = chunked ? malloc(gql_parse_first_chunk(len)) : NULL;
  int rb = gql_parse_padded(arena, copy, len, NULL, chunk, &b, &eb);
  cr_assert_eq(rb, ra, "rc %d, gql_parse %d for \"%.*s\"", rb, ra, (int)len,
               src);
  if (ra) {
    cr_assert_str_eq(eb.message, ea.message, "for \"%.*s\"", (int)len, src);
    cr_assert_eq(eb.offset, ea.offset, "for \"%.*s\"", (int)len, src);
  } else {
    const char *pa, *pb;
    cr_assert_eq(gql_print(arena, a, &pa, NULL), 0);
    cr_assert_eq(gql_print(arena, b, &pb, NULL), 0);
    cr_assert_str_eq(pb, pa);
    cr_assert_eq(b->token_count, a->token_count);
    cr_assert_eq(b->h.start, a->h.start);
    cr_assert_eq(b->h.end, a->h.end);
    cr_assert_eq(b->definitions.count, a->definitions.count);
    for (uint32_t i = 0; i < a->definitions.count; i++) {
      cr_assert_eq(b->definitions.items[i]->start,
                   a->definitions.items[i]->start);
      cr_assert_eq(b->definitions.items[i]->end, a->definitions.items[i]->end);
    }
  }
  free(chunk);
  free(copy);
}

Test(parser, padded_source_parses_as_the_plain_one) {
  static const char *const docs[] = {
      "{ hello }",
      "{hello}",
      "{ a b c }  \n\t,",
      "query Q { a(x: 1, y: \"s\") @include(if: true) ...F }\n"
      "fragment F on T { b }",
      "{ a } # a comment at the end",
      "{ a }\n\"a description at the end\"",
      "{ a } b",
      "{ a ... }",
      "{ a ..",
      "{ a .",
      "{ a",
      "{",
      "",
      "   ",
      "{ a(x: 12",
      "{ a(x: 1.5e",
      "{ a(x: \"unterminated",
      "{ a(x: \"\"\"block",
      "{ a } \xff",
      "{ a } ?",
      "{ abcdefghijklmnopqrstuvwxyz_0123456789ABCDEFGHIJ }",
      "type T { f(a: [Int!]! = [1, 2]): String @d }",
  };
  for (int chunked = 0; chunked < 2; chunked++) {
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++)
      assert_padded_parse_matches(docs[i], strlen(docs[i]), chunked);
    /* a NUL inside the text is a character like any other */
    assert_padded_parse_matches("{ a }\0b", 7, chunked);
    assert_padded_parse_matches("{ a\0 }", 6, chunked);
  }
}
