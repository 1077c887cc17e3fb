/* @defer and @stream: the schema switch that adds graphql-js 17's
 * definitions, the four rules about them and OverlappingFieldsCanBeMerged's
 * @stream conflicts, on what tests/incremental's recorded corpus does not
 * reach (hostile documents, the rule's shortcuts, rule order). */
#include "helpers.h"
#include "validation/values.h"

static const char *SDL =
    "type Query { hero: Hero heroes: [Hero] names: [String!]! name: String }\n"
    "type Mutation { rename(name: String): Hero }\n"
    "type Subscription { hero: Hero heroes: [Hero] }\n"
    "type Hero { id: ID name: String friends: [Hero] next: Hero }\n";

static gql_arena *arena;
static gql_schema *schema;

static gql_schema *build(const char *sdl, bool defer_stream,
                         const gql_schema *base) {
  gql_error_list errs;
  gql_error_list_init(&errs, arena, 0);
  gql_schema *s = NULL;
  gql_schema_build_options o = {.defer_stream = defer_stream, .base = base};
  int rc = gql_schema_build(sdl, strlen(sdl), NULL, &o, &s, &errs);
  cr_assert_eq(rc, 0, "schema: %s", errs.count ? errs.items[0].message : "");
  return s;
}

static void setup(void) {
  arena = gql_arena_new(NULL);
  schema = build(SDL, true, NULL);
}

static void teardown(void) {
  gql_schema_free(schema);
  gql_arena_free(arena);
}

TestSuite(defer_stream, .init = setup, .fini = teardown);

/* The errors of `rules` (NULL: all) as "message @line:col,line:col" lines. */
static const char *errors_of(const gql_schema *s, const char *query,
                             const gql_vrule *rule) {
  const gql_vrule *rules[1] = {rule};
  gql_error_list l =
      validate_with(arena, s, query, rule ? rules : NULL, rule ? 1 : 0);
  gql_buf b;
  gql_buf_init(&b, NULL);
  for (uint32_t i = 0; i < l.count; i++) {
    gql_buf_printf(&b, "%s @", l.items[i].message);
    for (uint32_t k = 0; k < l.items[i].nlocations; k++)
      gql_buf_printf(&b, "%s%u:%u", k ? "," : "", l.items[i].locations[k].line,
                     l.items[i].locations[k].column);
    gql_buf_putc(&b, '\n');
  }
  char *out = gql_arena_strndup(arena, b.data ? b.data : "", b.len);
  gql_buf_free(&b);
  return out;
}

#define EXPECT(rule, query, want)                                              \
  cr_assert_str_eq(errors_of(schema, query, rule), want)

/* ---- the schema switch */

static const gql_directive *directive(const gql_schema *s, const char *name) {
  return gql_schema_directive(s, gql_cstr(name));
}

Test(defer_stream, switch_adds_graphql_js_17_definitions_after_the_others) {
  cr_assert_eq(schema->ndirectives, 7);
  const gql_directive *d = &schema->directives[5], *st = &schema->directives[6];
  cr_assert(gql_str_eq_cstr(d->name, "defer"));
  cr_assert(gql_str_eq_cstr(st->name, "stream"));
  cr_assert_not(d->builtin, "not one of specifiedDirectives: printed");
  cr_assert_eq(d->location_mask, (1u << GQL_DIRLOC_FRAGMENT_SPREAD) |
                                     (1u << GQL_DIRLOC_INLINE_FRAGMENT));
  cr_assert_eq(st->location_mask, 1u << GQL_DIRLOC_FIELD);
  cr_assert_eq(d->nargs, 2);
  cr_assert(gql_str_eq_cstr(d->args[0].name, "if"));
  cr_assert_str_eq(gql_vtype_str(schema, d->args[0].type, arena), "Boolean!");
  cr_assert(d->args[0].default_value);
  cr_assert_eq(st->nargs, 3);
  cr_assert(gql_str_eq_cstr(st->args[0].name, "initialCount"));
  cr_assert_str_eq(gql_vtype_str(schema, st->args[0].type, arena), "Int!");
  cr_assert_str_eq(gql_vtype_str(schema, st->args[2].type, arena), "String");
}

Test(defer_stream, without_the_switch_the_directives_are_unknown) {
  gql_schema *plain = build(SDL, false, NULL);
  cr_assert_null(directive(plain, "defer"));
  cr_assert_str_eq(errors_of(plain, "{ hero { ... @defer { id } } }", NULL),
                   "Unknown directive \"@defer\". @1:14\n");
  gql_schema_free(plain);
}

Test(defer_stream, the_sdl_declaration_wins_over_the_switch) {
  gql_schema *s = build("directive @defer(label: String) on INLINE_FRAGMENT\n"
                        "type Query { a: String }",
                        true, NULL);
  const gql_directive *d = directive(s, "defer");
  cr_assert_eq(d->nargs, 1, "the SDL's, not graphql-js's");
  cr_assert_eq(d->location_mask, 1u << GQL_DIRLOC_INLINE_FRAGMENT);
  cr_assert_not_null(directive(s, "stream"), "the other is still added");
  cr_assert_eq(s->ndirectives, 7);
  gql_schema_free(s);
}

Test(defer_stream, an_extension_keeps_the_directives) {
  gql_schema *ext =
      build("extend type Query { more: [String] }", false, schema);
  cr_assert_not_null(directive(ext, "stream"));
  EXPECT(NULL, "{ heroes @stream(initialCount: 1) { id } }", "");
  cr_assert_str_eq(errors_of(ext, "{ more @stream }", NULL), "");
  gql_schema_free(ext);
}

/* ---- the rules, and where they run among the others */

Test(defer_stream, specified_rules_place_them_after_unique_directives) {
  uint32_t n;
  const gql_vrule *const *rules = gql_specified_rules(&n);
  cr_assert_eq(n, 31);
  cr_assert_str_eq(rules[18]->name, "UniqueDirectivesPerLocationRule");
  cr_assert_str_eq(rules[19]->name, "DeferStreamDirectiveOnRootFieldRule");
  cr_assert_str_eq(rules[20]->name,
                   "DeferStreamDirectiveOnValidOperationsRule");
  cr_assert_str_eq(rules[21]->name, "DeferStreamDirectiveLabelRule");
  cr_assert_str_eq(rules[22]->name, "StreamDirectiveOnListFieldRule");
  cr_assert_str_eq(rules[23]->name, "KnownArgumentNamesRule");
  cr_assert_eq(gql_find_rule("DeferStreamDirectiveLabel", 25),
               &gql_rule_DeferStreamDirectiveLabelRule);
}

Test(defer_stream, errors_at_one_directive_come_in_rule_order) {
  /* Label (rule 21) before StreamOnList (22) before KnownArgumentNames
   * (23), all at the same directive */
  EXPECT(
      NULL,
      "{ a: names @stream(label: \"x\") b: name @stream(label: \"x\", z: 1) }",
      "Value for arguments \"defer(label:)\" and \"stream(label:)\" must "
      "be unique across all Defer/Stream directive usages. @1:12,1:40\n"
      "Directive \"@stream\" cannot be used on non-list field "
      "\"Query.name\". @1:40\n"
      "Unknown argument \"z\" on directive \"@stream\". @1:60\n");
}

Test(defer_stream, label_repeated_is_reported_with_the_first_one) {
  EXPECT(&gql_rule_DeferStreamDirectiveLabelRule,
         "{ hero { ... @defer(label: \"a\") { id } ... @defer(label: \"a\") { "
         "name } } heroes @stream(label: \"a\") { id } }",
         "Value for arguments \"defer(label:)\" and \"stream(label:)\" must "
         "be unique across all Defer/Stream directive usages. @1:14,1:44\n"
         "Value for arguments \"defer(label:)\" and \"stream(label:)\" must "
         "be unique across all Defer/Stream directive usages. @1:14,1:81\n");
  EXPECT(&gql_rule_DeferStreamDirectiveLabelRule,
         "query ($l: String) { hero { ... @defer(label: $l) { id } } }",
         "Argument \"@defer(label:)\" must be a static string. @1:33\n");
  /* an escape gives the same value */
  EXPECT(&gql_rule_DeferStreamDirectiveLabelRule,
         "{ hero { ... @defer(label: \"\\u0061\") { id } ... @defer(label: "
         "\"a\") { name } } }",
         "Value for arguments \"defer(label:)\" and \"stream(label:)\" must "
         "be unique across all Defer/Stream directive usages. @1:14,1:49\n");
}

Test(defer_stream, stream_on_a_field_that_is_no_list) {
  EXPECT(&gql_rule_StreamDirectiveOnListFieldRule,
         "{ names @stream hero @stream { next @stream { id } } }",
         "Directive \"@stream\" cannot be used on non-list field "
         "\"Query.hero\". @1:22\n"
         "Directive \"@stream\" cannot be used on non-list field "
         "\"Hero.next\". @1:37\n");
}

Test(defer_stream, root_of_mutation_and_subscription) {
  EXPECT(
      &gql_rule_DeferStreamDirectiveOnRootFieldRule,
      "mutation { ... @defer { rename { id } } rename { ... @defer { id } } }",
      "Defer directive cannot be used on root mutation type "
      "\"Mutation\". @1:16\n");
  EXPECT(&gql_rule_DeferStreamDirectiveOnRootFieldRule,
         "subscription { ...S } fragment S on Subscription { heroes @stream { "
         "id } }",
         "Stream directive cannot be used on root subscription type "
         "\"Subscription\". @1:59\n");
  EXPECT(&gql_rule_DeferStreamDirectiveOnRootFieldRule,
         "{ ... @defer { heroes @stream { id } } }", "");
}

Test(defer_stream, subscription_error_names_the_spreads_innermost_first) {
  EXPECT(&gql_rule_DeferStreamDirectiveOnValidOperationsRule,
         "subscription { hero { ...A } }\n"
         "fragment A on Hero { next { ...B } }\n"
         "fragment B on Hero { ... @defer { id } friends @stream(if: false) { "
         "id } }",
         "Defer directive not supported on subscription operations. Disable "
         "`@defer` by setting the `if` argument to `false`. @3:26,2:29,1:23\n");
}

/* A fragment chain as long as the document: the two walks keep their own
 * stack (a recursive walk would overflow the C stack of a server thread). */
Test(defer_stream, long_fragment_chains_do_not_recurse) {
  enum { N = 20000 };
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "subscription { hero { ...F0 } }\n"
                   "mutation { ...M0 }\n");
  for (int i = 0; i < N; i++) {
    gql_buf_printf(&b, "fragment F%d on Hero { id ...F%d }\n", i, i + 1);
    gql_buf_printf(&b, "fragment M%d on Mutation { ...M%d }\n", i, i + 1);
  }
  gql_buf_printf(&b, "fragment F%d on Hero { ... @defer { id } }\n", N);
  gql_buf_printf(&b,
                 "fragment M%d on Mutation { ...on Mutation @defer { "
                 "rename { id } } }\n",
                 N);
  const char *q = gql_buf_cstr(&b);
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  gql_parse_options po = {.max_tokens = UINT32_MAX, .max_size = 1 << 26};
  cr_assert_eq(gql_parse_syntax(arena, q, strlen(q), &po, &doc, &err), 0);
  const gql_vrule *rules[] = {
      &gql_rule_DeferStreamDirectiveOnRootFieldRule,
      &gql_rule_DeferStreamDirectiveOnValidOperationsRule};
  gql_error_list l;
  gql_error_list_init(&l, arena, 0);
  cr_assert_eq(gql_validate_document(schema, doc, rules, 2, NULL, &l), 0);
  cr_assert_eq(l.count, 2);
  cr_assert(strstr(l.items[0].message, "not supported on subscription"));
  cr_assert_eq(l.items[0].nlocations, N + 2, "the directive and every spread");
  cr_assert(strstr(l.items[1].message, "cannot be used on root mutation"));
  gql_buf_free(&b);
}

/* ---- OverlappingFieldsCanBeMerged and @stream */

#define OVERLAP(query, want)                                                   \
  EXPECT(&gql_rule_OverlappingFieldsCanBeMergedRule, query, want)

Test(defer_stream, a_stream_conflicts_with_its_own_copy) {
  OVERLAP("{ heroes @stream { id } heroes @stream { id } }",
          "Fields \"heroes\" conflict because they have overlapping stream "
          "directives. See "
          "https://github.com/graphql/defer-stream-wg/discussions/100. Use "
          "different aliases on the fields to fetch both if this was "
          "intentional. @1:3,1:25\n");
  OVERLAP("{ names @stream names }",
          "Fields \"names\" conflict because they have overlapping stream "
          "directives. Use different aliases on the fields to fetch both if "
          "this was intentional. @1:3,1:17\n");
  OVERLAP("{ a: names @stream b: names @stream }", "");
}

/* Past 16 pairs the rule compares fields by class (leaf fields by name and
 * arguments, others by subtree): a streamed field must not share the class
 * of its copy, which would make the pair conflict-free. */
Test(defer_stream, streamed_copies_are_compared_one_by_one) {
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "{");
  for (int i = 0; i < 6; i++)
    gql_buf_puts(&b, " names @stream(initialCount: 1)");
  gql_buf_puts(&b, " hero {");
  for (int i = 0; i < 6; i++)
    gql_buf_puts(&b, " friends { id name @stream }");
  gql_buf_puts(&b, " } }");
  const char *got = errors_of(schema, gql_buf_cstr(&b),
                              &gql_rule_OverlappingFieldsCanBeMergedRule);
  /* 15 pairs of names, then 15 pairs of friends whose subfields conflict */
  uint32_t lines = 0, names = 0;
  for (const char *p = got; (p = strchr(p, '\n')); p++)
    lines++;
  for (const char *p = got; (p = strstr(p, "Fields \"names\"")); p++)
    names++;
  cr_assert_eq(lines, 30, "%s", got);
  cr_assert_eq(names, 15);
  cr_assert(strstr(got, "Fields \"friends\" conflict because subfields "
                        "\"name\" conflict because they have overlapping "
                        "stream directives."));
  gql_buf_free(&b);
}

/* Random documents with @stream here and there: the rule's shortcuts
 * answer as the every-pair comparison does. */
static void gen_set(rng *r, gql_buf *b, int depth, bool streams) {
  static const char *leaves[] = {
      "id",      "name", "name @stream",
      "a: name", "id",   "name @stream(initialCount: 1)",
      "name",    "id",   "a: name",
      "name"};
  gql_buf_puts(b, " {");
  uint32_t n = 1 + next(r, depth ? 5 : 9);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k = next(r, 10);
    if (k < 6 || depth > 2)
      gql_buf_printf(b, " %s", leaves[streams ? next(r, 10) : 6 + next(r, 4)]);
    else if (k < 9) {
      static const char *composite[] = {
          "friends", "friends @stream",
          "next",    "friends @stream(initialCount: 2)",
          "friends", "next"};
      gql_buf_printf(b, " %s",
                     composite[streams ? next(r, 6) : 4 + next(r, 2)]);
      gen_set(r, b, depth + 1, streams);
    } else {
      gql_buf_puts(b, " ... on Hero");
      gen_set(r, b, depth + 1, streams);
    }
  }
  gql_buf_puts(b, " }");
}

Test(defer_stream, overlap_shortcuts_match_every_pair_comparison) {
  rng r = {0x2545F4914F6CDD1DULL};
  uint32_t with_errors = 0;
  for (int iter = 0; iter < 300; iter++) {
    gql_buf b;
    gql_buf_init(&b, NULL);
    /* a quarter without @stream, so that both outcomes come often */
    bool streams = iter % 4 != 0;
    gql_buf_puts(&b, "{ hero");
    gen_set(&r, &b, 0, streams);
    gql_buf_puts(&b, " hero");
    gen_set(&r, &b, 0, streams);
    gql_buf_puts(&b, " }");
    const char *q = gql_buf_cstr(&b);
    const char *fast =
        errors_of(schema, q, &gql_rule_OverlappingFieldsCanBeMergedRule);
    const char *slow =
        errors_of(schema, q, &gql_rule_OverlappingFieldsCanBeMergedNaive);
    cr_assert_str_eq(fast, slow, "document:\n%s", q);
    with_errors += fast[0] != 0;
    gql_buf_free(&b);
  }
  cr_expect_gt(with_errors, 100, "%u", with_errors);
  cr_expect_lt(with_errors, 260, "%u", with_errors);
}

/* Each error of a subscription names every spread above the directive: at
 * the error limit the walk stops, so many directives below a long chain
 * cost the limit's errors, not one list of spreads each. */
Test(defer_stream, errors_below_a_long_chain_stop_at_the_limit) {
  enum { CHAIN = 5000, DEFERS = 10000 };
  gql_buf b;
  gql_buf_init(&b, NULL);
  gql_buf_puts(&b, "subscription { hero { ...F0 } }\n");
  for (int i = 0; i < CHAIN; i++)
    gql_buf_printf(&b, "fragment F%d on Hero { ...F%d }\n", i, i + 1);
  gql_buf_printf(&b, "fragment F%d on Hero {", CHAIN);
  for (int i = 0; i < DEFERS; i++)
    gql_buf_puts(&b, " ... @defer { id }");
  gql_buf_puts(&b, " }\n");
  const char *q = gql_buf_cstr(&b);
  gql_arena *a = gql_arena_new(NULL);
  gql_document *doc = NULL;
  gql_syntax_error err = {0};
  gql_parse_options po = {.max_tokens = UINT32_MAX, .max_size = 1 << 26};
  cr_assert_eq(gql_parse_syntax(a, q, strlen(q), &po, &doc, &err), 0);
  size_t parsed = gql_arena_used(a);
  const gql_vrule *rules[] = {
      &gql_rule_DeferStreamDirectiveOnValidOperationsRule};
  gql_error_list l;
  gql_error_list_init(&l, a, 0);
  cr_assert_eq(gql_validate_document(schema, doc, rules, 1, NULL, &l), 0);
  cr_assert_eq(l.count, 101, "100 errors and the abort");
  cr_assert_lt(gql_arena_used(a) - parsed, (size_t)16 << 20, "%zu bytes",
               gql_arena_used(a) - parsed);
  gql_arena_free(a);
  gql_buf_free(&b);
}
