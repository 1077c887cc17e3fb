/* The validation framework: the walk and its TypeInfo, per-rule skipping,
 * the error limit and the document helpers. */
#include "helpers.h"

static const char *sdl =
    "schema { query: Query }\n"
    "interface Pet { name: String }\n"
    "type Dog implements Pet { name: String barks(loud: Boolean = true): "
    "Boolean friends: [Dog!]! }\n"
    "type Cat implements Pet { name: String meows: Boolean }\n"
    "union CatOrDog = Cat | Dog\n"
    "enum Color { RED GREEN }\n"
    "input Filter { color: Color = RED colors: [Color!] nested: Filter }\n"
    "input One @oneOf { a: Int b: String }\n"
    "type Query { dog: Dog pet: Pet catOrDog: CatOrDog\n"
    "  find(filter: Filter, list: [[Int]], one: One): [Pet] }\n";

static gql_schema *schema;
static gql_arena *arena;

static void setup(void) {
  schema = build_schema(sdl);
  arena = gql_arena_new(NULL);
}
static void teardown(void) {
  gql_arena_free(arena);
  gql_schema_free(schema);
}

TestSuite(framework, .init = setup, .fini = teardown);

/* A rule that writes what TypeInfo says at each node into a buffer. */
typedef struct recorder {
  gql_buf out;
  const char *skip_kind; /* kind name whose subtree it skips */
  uint32_t enters, leaves;
} recorder;

static recorder *rec;

static void put_ref(gql_vctx *ctx, bool has, gql_type_ref r) {
  if (!has) {
    gql_buf_puts(&rec->out, "-");
    return;
  }
  gql_type_ref_print(ctx->schema, r, &rec->out);
}

static bool rec_enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  rec->enters++;
  const char *kind = gql_ast_kind_name(node->kind);
  gql_type_ref r;
  switch (node->kind) {
  case GQL_AST_FIELD: {
    const gql_ast_selection *f = (const gql_ast_selection *)node;
    uint32_t p = gql_vctx_parent_type(ctx);
    const gql_field *def = gql_vctx_field_def(ctx);
    gql_buf_printf(&rec->out, "%.*s:", (int)f->name.len, f->name.ptr);
    gql_buf_printf(&rec->out, "%s/",
                   p == GQL_NO_TYPE ? "-" : schema->types[p].name.ptr);
    gql_buf_printf(&rec->out, "%s/", def ? def->name.ptr : "-");
    bool has = gql_vctx_type(ctx, &r);
    put_ref(ctx, has, r);
    gql_buf_puts(&rec->out, " ");
    break;
  }
  case GQL_AST_INLINE_FRAGMENT:
  case GQL_AST_FRAGMENT_DEFINITION: {
    bool has = gql_vctx_type(ctx, &r);
    gql_buf_printf(&rec->out, "%s:", kind);
    put_ref(ctx, has, r);
    gql_buf_puts(&rec->out, " ");
    break;
  }
  case GQL_AST_ARGUMENT:
  case GQL_AST_OBJECT_FIELD:
  case GQL_AST_LIST_VALUE:
  case GQL_AST_ENUM_VALUE:
  case GQL_AST_INT_VALUE:
  case GQL_AST_VARIABLE: {
    gql_buf_printf(&rec->out, "%s:", kind);
    bool has = gql_vctx_input_type(ctx, &r);
    put_ref(ctx, has, r);
    gql_buf_puts(&rec->out, "<");
    has = gql_vctx_parent_input_type(ctx, &r);
    put_ref(ctx, has, r);
    bool has_default;
    const gql_ast_value *d = gql_vctx_default_value(ctx, &has_default);
    if (has_default)
      gql_buf_printf(&rec->out, "=%s", gql_ast_kind_name(d->h.kind));
    const gql_input_value *arg = gql_vctx_argument(ctx);
    if (arg && node->kind == GQL_AST_ARGUMENT)
      gql_buf_printf(&rec->out, "@%s", arg->name.ptr);
    const gql_enum_value *ev = gql_vctx_enum_value(ctx);
    if (node->kind == GQL_AST_ENUM_VALUE)
      gql_buf_printf(&rec->out, "#%s", ev ? ev->name.ptr : "-");
    gql_buf_puts(&rec->out, " ");
    break;
  }
  case GQL_AST_DIRECTIVE: {
    const gql_directive *d = gql_vctx_directive(ctx);
    gql_buf_printf(&rec->out, "@%s ", d ? d->name.ptr : "-");
    break;
  }
  default:
    break;
  }
  return !(rec->skip_kind && strcmp(rec->skip_kind, kind) == 0);
}

static void rec_leave(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)ctx;
  (void)st;
  (void)node;
  rec->leaves++;
}

static const gql_vrule recorder_rule = {"Recorder", 0, NULL, rec_enter,
                                        rec_leave};

static const char *record(const char *src, const char *skip) {
  recorder r = {.skip_kind = skip};
  gql_buf_init(&r.out, NULL);
  rec = &r;
  validate_rule(arena, schema, src, &recorder_rule);
  char *s = gql_arena_strndup(arena, r.out.data ? r.out.data : "", r.out.len);
  gql_buf_free(&r.out);
  if (!skip)
    cr_assert_eq(r.enters, r.leaves, "every entered node is left");
  return s;
}

Test(framework, type_info_follows_nested_fields_and_fragments) {
  const char *got = record("{ dog { name friends { barks } } pet { ... on Dog "
                           "{ barks } ... { name } nope } catOrDog { "
                           "__typename } }",
                           NULL);
  cr_assert_str_eq(got, "dog:Query/dog/Dog name:Dog/name/String "
                        "friends:Dog/friends/[Dog!]! barks:Dog/barks/Boolean "
                        "pet:Query/pet/Pet InlineFragment:Dog "
                        "barks:Dog/barks/Boolean InlineFragment:Pet "
                        "name:Pet/name/String nope:Pet/-/- "
                        "catOrDog:Query/catOrDog/CatOrDog "
                        "__typename:CatOrDog/__typename/String! ");
}

Test(framework, type_info_knows_meta_fields_on_the_query_type) {
  const char *got = record("{ __schema { queryType { name } } __type(name: "
                           "\"Dog\") { name } }",
                           NULL);
  cr_assert(strstr(got, "__schema:Query/__schema/__Schema! ") != NULL, "%s",
            got);
  cr_assert(strstr(got, "queryType:__Schema/queryType/__Type! ") != NULL, "%s",
            got);
  cr_assert(strstr(got, "__type:Query/__type/__Type ") != NULL, "%s", got);
}

Test(framework, type_info_unknown_types_give_no_type) {
  const char *got = record(
      "fragment F on Nope { a { b } } { dog { ... on Nope2 { x } } }", NULL);
  cr_assert_str_eq(got, "FragmentDefinition:- a:-/-/- b:-/-/- "
                        "dog:Query/dog/Dog InlineFragment:- x:-/-/- ");
}

Test(framework, type_info_tracks_input_types_defaults_and_enum_values) {
  const char *got = record(
      "query($v: Int) { find(filter: {color: GREEN, colors: [RED, BLUE], "
      "nested: {color: RED}}, list: [[1], $v], one: {a: 1}) { name } "
      "dog { barks(loud: false) @include(if: true) } }",
      NULL);
  cr_assert_str_eq(
      got,
      "Variable:Int<- find:Query/find/[Pet] Argument:Filter<-@filter "
      "ObjectField:Color<Filter=EnumValue "
      "EnumValue:Color<Filter=EnumValue#GREEN "
      "ObjectField:[Color!]<Filter ListValue:Color!<[Color!] "
      "EnumValue:Color!<[Color!]#RED EnumValue:Color!<[Color!]#- "
      "ObjectField:Filter<Filter ObjectField:Color<Filter=EnumValue "
      "EnumValue:Color<Filter=EnumValue#RED Argument:[[Int]]<-@list "
      "ListValue:[Int]<[[Int]] ListValue:Int<[Int] IntValue:Int<[Int] "
      "Variable:[Int]<[[Int]] Argument:One<-@one ObjectField:Int<One "
      "IntValue:Int<One name:Pet/name/String dog:Query/dog/Dog "
      "barks:Dog/barks/Boolean Argument:Boolean<-=BooleanValue@loud @include "
      "Argument:Boolean!<-@if ");
}

Test(framework, enter_returning_false_skips_only_that_rule) {
  /* the recorder skips operation subtrees; a second recorder-like rule
   * (ScalarLeafs) still reports inside them */
  const char *got =
      record("{ dog } fragment F on Dog { name }", "OperationDefinition");
  cr_assert_str_eq(got, "FragmentDefinition:Dog name:Dog/name/String ");
  const gql_vrule *rules[] = {&recorder_rule, &gql_rule_ScalarLeafsRule};
  recorder r = {.skip_kind = "OperationDefinition"};
  gql_buf_init(&r.out, NULL);
  rec = &r;
  gql_error_list l = validate_with(arena, schema, "{ dog }", rules, 2);
  gql_buf_free(&r.out);
  cr_assert_eq(l.count, 1);
  assert_error(&l, 0,
               "Field \"dog\" of type \"Dog\" must have a selection of "
               "subfields. Did you mean \"dog { ... }\"?",
               1, 3);
  /* the skipped node is not left either: Document only */
  cr_assert_eq(r.enters, 2);
  cr_assert_eq(r.leaves, 1);
}

/* A rule that reports every field. */
static bool report_enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind == GQL_AST_FIELD) {
    uint32_t at = node->start;
    gql_vctx_report(ctx, &at, 1, "field at %u", at);
  }
  return true;
}
static const gql_vrule reporter = {"Reporter", 0, NULL, report_enter, NULL};

static char *many_fields(uint32_t n) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (uint32_t i = 0; i < n; i++)
    gql_buf_printf(&b, " a%u: __typename", i);
  gql_buf_puts(&b, " }");
  char *s = gql_arena_strndup(arena, b.data, b.len);
  gql_buf_free(&b);
  return s;
}

Test(framework, error_limit_stops_validation_with_graphql_js_message) {
  gql_error_list l = validate_rule(arena, schema, many_fields(150), &reporter);
  cr_assert_eq(l.count, 101);
  const char *src = many_fields(150);
  char want[32];
  snprintf(want, sizeof want, "field at %u",
           (unsigned)(strstr(src, " a99:") + 1 - src));
  cr_assert_str_eq(l.items[99].message, want);
  cr_assert_str_eq(l.items[100].message,
                   "Too many validation errors, error limit reached. "
                   "Validation aborted.");
  cr_assert_eq(l.items[100].nlocations, 0);
}

Test(framework, error_limit_is_configurable_and_exact_count_is_not_cut) {
  const gql_vrule *rules[] = {&reporter};
  gql_validate_options o = {.max_errors = 3};
  gql_error_list l;
  gql_error_list_init(&l, arena, 0);
  cr_assert_eq(gql_validate_document(schema, parse_doc(arena, many_fields(10)),
                                     rules, 1, &o, &l),
               0);
  cr_assert_eq(l.count, 4);
  cr_assert_str_eq(l.items[3].message,
                   "Too many validation errors, error limit reached. "
                   "Validation aborted.");
  gql_error_list_init(&l, arena, 0);
  cr_assert_eq(gql_validate_document(schema, parse_doc(arena, many_fields(3)),
                                     rules, 1, &o, &l),
               0);
  cr_assert_eq(l.count, 3, "exactly max_errors errors: no abort message");
}

Test(framework, specified_rules_in_graphql_js_order_and_found_by_name) {
  uint32_t n;
  const gql_vrule *const *rules = gql_specified_rules(&n);
  cr_assert_eq(n, 31);
  cr_assert_str_eq(rules[0]->name, "ExecutableDefinitionsRule");
  cr_assert_str_eq(rules[7]->name, "ScalarLeafsRule");
  cr_assert_str_eq(rules[30]->name, "MaxIntrospectionDepthRule");
  cr_assert_eq(gql_find_rule("ScalarLeafsRule", 15), &gql_rule_ScalarLeafsRule);
  cr_assert_eq(gql_find_rule("ScalarLeafs", 11), &gql_rule_ScalarLeafsRule);
  cr_assert_null(gql_find_rule("ScalarLeaf", 10));
  cr_assert_null(gql_find_rule("Nope", 4));
}

/* ---- document helpers, probed from a rule at the document node */

typedef void (*probe_fn)(gql_vctx *ctx);
static probe_fn probe;

static bool probe_enter(gql_vctx *ctx, void *st, const gql_ast_node *node) {
  (void)st;
  if (node->kind == GQL_AST_DOCUMENT)
    probe(ctx);
  return false;
}
static const gql_vrule prober = {"Prober", 0, NULL, probe_enter, NULL};

static void run_probe(const char *src, probe_fn fn) {
  probe = fn;
  gql_error_list l = validate_rule(arena, schema, src, &prober);
  cr_assert_eq(l.count, 0);
}

static const gql_ast_node *def(gql_vctx *ctx, uint32_t i) {
  return ctx->doc->definitions.items[i];
}

static void probe_spreads(gql_vctx *ctx) {
  const gql_ast_operation *op = (const gql_ast_operation *)def(ctx, 0);
  gql_spread_list l = gql_vctx_fragment_spreads(ctx, op->selection_set);
  /* graphql-js's stack order: direct spreads first, then nested sets from
   * the last one back */
  cr_assert_eq(l.count, 4);
  const char *want[] = {"A", "B", "D", "C"};
  for (uint32_t i = 0; i < 4; i++)
    cr_assert(gql_str_eq_cstr(gql_ast_name_str(l.items[i]->name), want[i]));
  gql_spread_list again = gql_vctx_fragment_spreads(ctx, op->selection_set);
  cr_assert_eq(again.items, l.items, "cached");
}

Test(framework, fragment_spreads_include_nested_inline_fragments) {
  run_probe("{ ...A dog { ...C } ... on Query { ...D } ...B }", probe_spreads);
}

static void probe_recursive(gql_vctx *ctx) {
  gql_fragment_list l = gql_vctx_recursive_fragments(ctx, def(ctx, 0));
  const char *want[] = {"A", "B", "C", "D"};
  cr_assert_eq(l.count, 4);
  for (uint32_t i = 0; i < 4; i++)
    cr_assert(gql_str_eq_cstr(gql_ast_name_str(l.items[i]->name), want[i]),
              "fragment %u", i);
  cr_assert_null(gql_vctx_fragment(ctx, GQL_STR("Missing")));
  /* the last definition of a duplicated name wins, as in graphql-js */
  const gql_ast_fragment *d = gql_vctx_fragment(ctx, GQL_STR("D"));
  cr_assert_eq(&d->h, def(ctx, 5));
}

Test(framework, recursive_fragments_each_once_in_graphql_js_order) {
  run_probe("{ ...A ...B ...Missing }\n"
            "fragment A on Query { ...C ...A }\n"
            "fragment B on Query { ...A }\n"
            "fragment C on Query { ...D }\n"
            "fragment D on Query { __typename }\n"
            "fragment D on Query { ...B }",
            probe_recursive);
}

static void probe_usages(gql_vctx *ctx) {
  const gql_ast_operation *op = (const gql_ast_operation *)def(ctx, 0);
  gql_variable_usages own = gql_vctx_variable_usages(ctx, &op->h);
  cr_assert_eq(own.count, 3, "variable definitions are not usages");
  cr_assert(gql_str_eq_cstr(gql_ast_name_str(own.items[0].node->u.name), "f"));
  cr_assert(own.items[0].has_type);
  cr_assert_str_eq(gql_type_ref_str(ctx->schema, own.items[0].type, ctx->arena),
                   "Filter");
  cr_assert_not(own.items[0].has_default);
  cr_assert(gql_str_eq_cstr(gql_ast_name_str(own.items[1].node->u.name), "c"));
  cr_assert(own.items[1].has_default, "Filter.color defaults to RED");
  cr_assert_not(own.items[1].parent_is_one_of);
  cr_assert(gql_str_eq_cstr(gql_ast_name_str(own.items[2].node->u.name), "a"));
  cr_assert(own.items[2].parent_is_one_of);
  gql_variable_usages all = gql_vctx_recursive_variable_usages(ctx, op);
  cr_assert_eq(all.count, 5);
  cr_assert(gql_str_eq_cstr(gql_ast_name_str(all.items[3].node->u.name), "l"));
  cr_assert_str_eq(gql_type_ref_str(ctx->schema, all.items[3].type, ctx->arena),
                   "Boolean");
  cr_assert(all.items[3].has_default, "barks(loud) defaults to true");
  cr_assert(gql_str_eq_cstr(gql_ast_name_str(all.items[4].node->u.name), "u"));
  cr_assert_not(all.items[4].has_type, "unknown argument: no type");
}

Test(framework, variable_usages_carry_expected_types_and_defaults) {
  run_probe("query Q($f: Filter = {color: RED}) {\n"
            "  find(filter: $f) { name } x: find(filter: {color: $c}, one: "
            "{a: $a}) { ...F } }\n"
            "fragment F on Dog { barks(loud: $l) name(nope: $u) }",
            probe_usages);
}

/* ---- hostile documents: every rule, linear time */

/* The best CPU time of three validations with every rule. */
static double validate_ms(const char *src, gql_error_list *out) {
  gql_document *doc = parse_doc(arena, src);
  double best = 1e9;
  for (int i = 0; i < 3; i++) {
    gql_error_list_init(out, arena, 0);
    double t0 = now_ms();
    cr_assert_eq(gql_validate_document(schema, doc, NULL, 0, NULL, out), 0);
    double t = now_ms() - t0;
    if (t < best)
      best = t;
  }
  return best;
}

/* 150 ms (these documents take about 50 ms on the project's 2-core VMs, a
 * quadratic validator seconds); sanitizer builds run several times slower */
#if defined(__SANITIZE_ADDRESS__)
#define BUDGET_MS 500.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUDGET_MS 500.0
#endif
#endif
#ifndef BUDGET_MS
#define BUDGET_MS 150.0
#endif

static char *build(const char *head, const char *fmt, uint32_t n,
                   const char *mid, const char *fmt2, uint32_t n2,
                   const char *tail) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, head);
  for (uint32_t i = 0; i < n; i++)
    gql_buf_printf(&b, fmt, i, i + 1);
  gql_buf_puts(&b, mid);
  for (uint32_t i = 0; i < n2; i++)
    gql_buf_printf(&b, fmt2, i, i + 1);
  gql_buf_puts(&b, tail);
  char *s = gql_arena_strndup(arena, b.data, b.len);
  gql_buf_free(&b);
  return s;
}

Test(framework, five_thousand_fragment_spreads_validate_fast) {
  char *src = build("{ dog { ", "...F%u ", 5000, "} }\n",
                    "fragment F%u on Dog { name }\n", 5000, "");
  gql_error_list l;
  double ms = validate_ms(src, &l);
  cr_assert_eq(l.count, 0, "%s", l.count ? l.items[0].message : "");
  cr_assert_lt(ms, BUDGET_MS, "took %.1f ms", ms);
  /* the same fragment spread 5,000 times */
  src = build("{ dog { ", "...F ", 5000, "} }\n", "", 0,
              "fragment F on Dog { name }");
  ms = validate_ms(src, &l);
  cr_assert_eq(l.count, 0);
  cr_assert_lt(ms, BUDGET_MS, "took %.1f ms", ms);
}

Test(framework, thousand_deep_fragment_chain_validates_fast) {
  char *src = build("{ dog { ...F0 } }\n", "fragment F%u on Dog { ...F%u }\n",
                    1000, "fragment F1000 on Dog { name }", "", 0, "");
  gql_error_list l;
  double ms = validate_ms(src, &l);
  cr_assert_eq(l.count, 0, "%s", l.count ? l.items[0].message : "");
  cr_assert_lt(ms, BUDGET_MS, "took %.1f ms", ms);
}

static const char *cycle_message(uint32_t last) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "Cannot spread fragment \"F0\" within itself via ");
  for (uint32_t i = 1; i <= last; i++)
    gql_buf_printf(&b, "%s\"F%u\"", i > 1 ? ", " : "", i);
  gql_buf_puts(&b, ".");
  char *s = gql_arena_strndup(arena, b.data, b.len);
  gql_buf_free(&b);
  return s;
}

Test(framework, fragment_cycles_report_each_closing_spread_fast) {
  /* a cycle through 1,001 fragments, each of which also spreads the first */
  char *src =
      build("{ dog { ...F0 } }\n", "fragment F%u on Dog { ...F%u ...F0 }\n",
            1000, "fragment F1000 on Dog { ...F0 }", "", 0, "");
  gql_error_list l;
  double ms = validate_ms(src, &l);
  cr_assert_lt(ms, BUDGET_MS, "took %.1f ms", ms);
  /* graphql-js: one error per spread closing a cycle (1,001 of them), the
   * first through the whole chain; cut at the error limit */
  cr_assert_eq(l.count, 101);
  cr_assert_str_eq(l.items[0].message, cycle_message(1000));
  cr_assert_eq(l.items[0].nlocations, 1001);
  cr_assert_str_eq(l.items[1].message, cycle_message(999));
  cr_assert_str_eq(l.items[99].message, cycle_message(901));
}

Test(framework, thousand_variables_validate_fast) {
  char *src = build("query Q(", "$v%u: Boolean ", 1000, ") { dog { ",
                    "a%u: barks(loud: $v%u) ", 999, "name } }");
  gql_error_list l;
  double ms = validate_ms(src, &l);
  cr_assert_lt(ms, BUDGET_MS, "took %.1f ms", ms);
  /* alias aN uses $v(N+1): only $v0 is left unused */
  cr_assert_eq(l.count, 1);
  cr_assert_str_eq(l.items[0].message,
                   "Variable \"$v0\" is never used in operation \"Q\".");
}

Test(framework, many_operations_sharing_fragments_validate_fast) {
  /* every operation reaches the same 4,000 fragments: graphql-js walks the
   * fragment graph once per operation; we do too, without allocating */
  char *src = build("", "query Q%u { dog { ...F0 } }\n", 1000,
                    "fragment F0 on Dog { ", "...G%u ", 4000, "}\n");
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, src);
  for (uint32_t i = 0; i < 4000; i++)
    gql_buf_printf(&b, "fragment G%u on Dog { name }\n", i);
  src = gql_arena_strndup(arena, b.data, b.len);
  gql_buf_free(&b);
  gql_error_list l;
  double ms = validate_ms(src, &l);
  cr_assert_eq(l.count, 0, "%s", l.count ? l.items[0].message : "");
  cr_assert_lt(ms, BUDGET_MS, "took %.1f ms", ms);
}

Test(framework, out_of_memory_anywhere_is_reported_not_crashed) {
  const char *src =
      "query Q($a: Int, $a: Int, $f: Filter) { dog { name nope ...F "
      "... on Dog { barks(loud: $a) } } find(filter: $f, list: [[1]]) "
      "{ name ...G } }\n"
      "subscription { a b }\n"
      "fragment F on Dog { friends { ...F name } }\n"
      "fragment G on Pet { ... on Dog { barks(loud: $z) } }\n"
      "fragment Unused on Cat { meows @skip(if: true) @skip(if: true) }\n"
      "type Extra { x: Strin @nope }\n";
  gql_document *doc = parse_doc(arena, src);
  /* Fill a capped arena with padding first, so that the cap is hit at a
   * different allocation of the validation each time. */
  uint32_t failed = 0, completed = 0;
  for (size_t pad = 0; pad < 400000; pad += 331) {
    gql_arena *small = gql_arena_new(NULL);
    gql_arena_set_limit(small, 400000);
    for (size_t p = 0; p + 256 <= pad; p += 256)
      if (!gql_arena_alloc(small, 256))
        break;
    gql_error_list l;
    gql_error_list_init(&l, small, 0);
    int rc = gql_validate_document(schema, doc, NULL, 0, NULL, &l);
    cr_assert(rc == 0 || rc == GQL_ENOMEM, "rc %d", rc);
    if (rc == 0) {
      completed++;
      cr_assert_gt(l.count, 5);
    } else {
      failed++;
    }
    gql_arena_free(small);
  }
  cr_assert_gt(completed, 0);
  cr_assert_gt(failed, 0);
}

/* The walk collects an operation's and a fragment's usages as it goes; a
 * fragment defined after the operations using it is walked on its own
 * first. Either way the usages are graphql-js getVariableUsages', in
 * document order (none in variable definitions). */
static void assert_variable_errors(const char *src) {
  const gql_vrule *rules[] = {
      gql_find_rule("NoUndefinedVariablesRule", 24),
      gql_find_rule("NoUnusedVariablesRule", 21),
      gql_find_rule("VariablesInAllowedPositionRule", 30)};
  cr_assert(rules[0] && rules[1] && rules[2]);
  gql_error_list l = validate_with(arena, schema, src, rules, 3);
  cr_assert_eq(l.count, 4, "got %u errors", l.count);
  cr_assert_str_eq(l.items[0].message,
                   "Variable \"$l\" is not defined by operation \"Q\".");
  cr_assert_str_eq(l.items[1].message,
                   "Variable \"$n\" is not defined by operation \"Q\".");
  cr_assert_str_eq(l.items[2].message,
                   "Variable \"$u\" is never used in operation \"Q\".");
  cr_assert_str_eq(l.items[3].message,
                   "Variable \"$s\" of type \"String\" used in position "
                   "expecting type \"Boolean\".");
}

Test(framework, variable_usages_same_with_fragments_before_or_after) {
  assert_variable_errors("fragment F on Dog { barks(loud: $l) }\n"
                         "query Q($s: String, $u: Int = 1) {\n"
                         "  dog { ...F barks(loud: $s) ...G } }\n"
                         "fragment G on Dog { name(x: $n) }\n");
  assert_variable_errors("query Q($s: String, $u: Int = 1) {\n"
                         "  dog { ...F barks(loud: $s) ...G } }\n"
                         "fragment F on Dog { barks(loud: $l) }\n"
                         "fragment G on Dog { name(x: $n) }\n");
}

/* ---- the fast path for simple documents */

/* Validates `src` with a copy of the specified rules (which takes the full
 * walk: the fast path is only tried for rules NULL). */
static uint32_t full_errors(const char *src) {
  uint32_t n;
  const gql_vrule *const *spec = gql_specified_rules(&n);
  const gql_vrule *copy[64];
  cr_assert_leq(n, 64);
  memcpy(copy, spec, n * sizeof *copy);
  return validate_with(arena, schema, src, copy, n).count;
}

static bool fast(const char *src) {
  return gql_validate_fast(schema, parse_doc(arena, src));
}

Test(framework, fast_path_accepts_only_what_the_rules_accept) {
  static const char *accepted[] = {
      "{ dog { name } }",
      "query Q { dog { name barks friends { name } } pet { name __typename } }",
      "{ a: dog { name } b: dog { n: name } catOrDog { __typename } }",
      "{ find { name } __typename }", /* arguments that may be left out */
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(accepted); i++) {
    cr_assert(fast(accepted[i]), "%s", accepted[i]);
    cr_assert_eq(full_errors(accepted[i]), 0, "%s", accepted[i]);
  }
  /* Each is declined: the full walk decides (and reports, when invalid). */
  static const struct {
    const char *src;
    bool valid;
  } declined[] = {
      {"{ dog { nope } }", false},               /* unknown field */
      {"{ dog }", false},                        /* composite, no selection */
      {"{ dog { name { x } } }", false},         /* leaf with a selection */
      {"{ dog { name: barks name } }", false},   /* conflicting keys */
      {"{ dog { name name } }", true},           /* repeated key */
      {"{ catOrDog { name } }", false},          /* field of a union */
      {"{ __schema { types { name } } }", true}, /* introspection depth */
      {"{ __type(name: \"Dog\") { name } }", true}, /* arguments */
      {"{ dog { barks(loud: false) } }", true},     /* arguments */
      {"{ dog @skip(if: true) { name } }", true},   /* directives */
      {"query @nope { dog { name } }", false},      /* unknown directive */
      {"query Q($v: Int) { dog { name } }", false}, /* unused variable */
      {"{ dog { ...F } } fragment F on Dog { name }", true},
      {"{ dog { ... on Dog { name } } }", true},
      {"{ dog { name } } { pet { name } }", false}, /* two anonymous ops */
      {"subscription { dog { name } }", true},      /* no subscription type: */
      {"mutation { dog { name } }", true},          /* execution reports it */
      {"type T { a: Int } { dog { name } }", false},
  };
  for (size_t i = 0; i < GQL_ARRAY_LEN(declined); i++) {
    cr_assert_not(fast(declined[i].src), "%s", declined[i].src);
    cr_assert_eq(full_errors(declined[i].src) == 0, declined[i].valid, "%s",
                 declined[i].src);
  }
  /* the specified rules (rules NULL) give the full walk's errors on what
   * the fast path declines */
  gql_error_list l = validate_with(arena, schema, "{ dog { zzz } }", NULL, 0);
  cr_assert_eq(l.count, 1);
  assert_error(&l, 0, "Cannot query field \"zzz\" on type \"Dog\".", 1, 9);
}

/* Sets of more fields than the fast path compares pairwise take the full
 * walk, valid or not. */
Test(framework, fast_path_declines_large_sets) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{ dog {");
  for (int i = 0; i < 40; i++)
    gql_buf_printf(&b, " a%d: name", i);
  gql_buf_puts(&b, " } }");
  const char *src = gql_buf_cstr(&b);
  cr_assert_not(fast(src));
  cr_assert_eq(full_errors(src), 0);
  gql_buf_free(&b);
}

/* OverlappingFieldsCanBeMerged skips sets whose collected names, through
 * spreads and inline fragments, are distinct; a name met twice through a
 * spread still takes the comparison. */
Test(framework, overlapping_fields_through_spreads) {
  gql_error_list l = validate_with(arena, schema,
                                   "{ dog { ...A name: barks } }\n"
                                   "fragment A on Dog { name }",
                                   NULL, 0);
  cr_assert_eq(l.count, 1);
  assert_error(&l, 0,
               "Fields \"name\" conflict because \"barks\" and \"name\" are "
               "different fields. Use different aliases on the fields to "
               "fetch both if this was intentional.",
               1, 14);
  cr_assert_eq(l.items[0].nlocations, 2);
  l = validate_with(arena, schema,
                    "{ dog { ...A ...B } }\n"
                    "fragment A on Dog { ... on Dog { x: name } }\n"
                    "fragment B on Dog { x: barks }",
                    NULL, 0);
  cr_assert_eq(l.count, 1);
  assert_error(&l, 0,
               "Fields \"x\" conflict because \"name\" and \"barks\" are "
               "different fields. Use different aliases on the fields to "
               "fetch both if this was intentional.",
               2, 34);
  l = validate_with(arena, schema,
                    "{ dog { ...A ...B ...A } pet { ...C } }\n"
                    "fragment A on Dog { ... on Dog { x: name } }\n"
                    "fragment B on Dog { y: barks }\n"
                    "fragment C on Pet { name ... on Dog { barks } }",
                    NULL, 0);
  cr_assert_eq(l.count, 0);
}

/* Fragments are found by a list up to 16 and by a map above: the same
 * answers either way. */
static void many_fragments_case(uint32_t n) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{ dog {");
  for (uint32_t i = 0; i < n; i++)
    gql_buf_printf(&b, " ...F%u", i);
  gql_buf_puts(&b, " ...Nope } }\n");
  for (uint32_t i = 0; i <= n; i++) /* F<n> is never used */
    gql_buf_printf(&b, "fragment F%u on Dog { a%u: name }\n", i, i);
  gql_error_list l = validate_with(arena, schema, gql_buf_cstr(&b), NULL, 0);
  cr_assert_eq(l.count, 2, "%u fragments: %u errors", n, l.count);
  cr_assert_str_eq(l.items[0].message, "Unknown fragment \"Nope\".");
  char want[64];
  snprintf(want, sizeof want, "Fragment \"F%u\" is never used.", n);
  cr_assert_str_eq(l.items[1].message, want);
  gql_buf_free(&b);
}

Test(framework, few_and_many_fragments) {
  many_fragments_case(3);
  many_fragments_case(15);
  many_fragments_case(40);
}
