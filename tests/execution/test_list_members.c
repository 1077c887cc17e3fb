/* List members (gql_schema_set_list_member): a list read from its parent C
 * struct answers exactly as a synchronous resolver reading the same items
 * and count and calling gql_out_object_ptrs, gql_out_object_array or
 * gql_out_enum_indices would, on the executor's own path (all-members
 * objects), beside other fields, with hooks and in tree mode: null lists,
 * null items, resolve_type failures, enum indices out of range, empty
 * lists, errors, paths and resolve_type calls included. */
#include "hooked_run.h"

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What resolve_type answers for a node's tag. */
enum { TAG_A, TAG_B, TAG_FAIL, TAG_C, TAG_ENUM };

typedef struct node {
  int32_t tag;
  int32_t id;
  gql_str name;
  const void *kids[2]; /* A.kids, inline */
  uint16_t nkids;
} node;

typedef struct holder {
  const void *nodes[4]; /* inline pointers */
  uint8_t nnodes;
  const void *const *nodes_nn; /* pointed to */
  uint16_t nnodes_nn;
  const void *const *nodes_n1;
  uint32_t nnodes_n1;
  const void *const *as;
  uint8_t nas;
  const node *structs; /* pointed to */
  uint64_t nstructs;
  node inline_structs[2]; /* inline */
  uint8_t ninline_structs;
  const uint8_t *es; /* pointed to */
  uint8_t nes;
  uint8_t es_inline[4]; /* inline */
  uint16_t nes_inline;
  const uint8_t *es_n1;
  uint64_t nes_n1;
  gql_str label;
} holder;

static const char sdl[] =
    "interface Node { id: Int! }\n"
    "type A implements Node { id: Int! kids: [Node] kidsNN: [Node!]! }\n"
    "type B implements Node { id: Int! name: String }\n"
    "type C { id: Int! }\n"
    "enum E { X Y Z }\n"
    "type Holder { nodes: [Node] nodesNN: [Node!]! nodesN1: [Node!] as: "
    "[A!]! asN1: [A!] repeat: [A!]! asTyped: [Node] structs: [A!]! "
    "structsAuto: [Node] "
    "inlineStructs: "
    "[A] es: [E] esNN: [E!]! esN1: [E!] label: String other: Int }\n"
    "type Query { holder: Holder holders: [Holder]! holderNN: Holder! "
    "c: C slow: Int }\n";

/* The type indices and what resolve_type saw (each call's field and path),
 * the execution's context. */
typedef struct env {
  uint32_t a, b, c, e;
  char seen[4096];
  size_t nseen;
} env;

static int64_t node_type(const gql_resolve_info *info, const void *value) {
  env *e = gql_info_context(info);
  const node *n = value;
  gql_str f = gql_info_field_name(info);
  const char *path = gql_info_path(info);
  int w = snprintf(e->seen + e->nseen, sizeof e->seen - e->nseen, "%.*s@%s;",
                   (int)f.len, f.ptr, path ? path : "?");
  cr_assert(w > 0 && (size_t)w < sizeof e->seen - e->nseen);
  e->nseen += (size_t)w;
  switch (n->tag) {
  case TAG_A:
    return e->a;
  case TAG_B:
    return e->b;
  case TAG_C:
    return e->c;
  case TAG_ENUM:
    return e->e;
  default:
    return -1;
  }
}

/* Every list member: its field and its gql_list_member (`type` TYPED_A:
 * A's index, set once the schema is built). */
#define TYPED_A (GQL_TYPE_AUTO - 1)
typedef struct list_def {
  const char *type, *field;
  gql_list_member m;
} list_def;

#define PTRS(f, cf, inl, t)                                                    \
  {                                                                            \
    .kind = GQL_LIST_OBJECT_PTRS, .items_inline = inl,                         \
    .items_offset = offsetof(holder, f), .count_offset = offsetof(holder, cf), \
    .count_size = sizeof(((holder *)0)->cf), .type = t                         \
  }
#define STRUCTS(f, cf, inl, t)                                                 \
  {                                                                            \
    .kind = GQL_LIST_STRUCTS, .items_inline = inl,                             \
    .items_offset = offsetof(holder, f), .count_offset = offsetof(holder, cf), \
    .count_size = sizeof(((holder *)0)->cf), .stride = sizeof(node), .type = t \
  }
#define ENUMS(f, cf, inl)                                                      \
  {                                                                            \
    .kind = GQL_LIST_ENUM_U8, .items_inline = inl,                             \
    .items_offset = offsetof(holder, f), .count_offset = offsetof(holder, cf), \
    .count_size = sizeof(((holder *)0)->cf)                                    \
  }

static const list_def lists[] = {
    {"Holder", "nodes", PTRS(nodes, nnodes, true, GQL_TYPE_AUTO)},
    {"Holder", "nodesNN", PTRS(nodes_nn, nnodes_nn, false, GQL_TYPE_AUTO)},
    {"Holder", "nodesN1", PTRS(nodes_n1, nnodes_n1, false, GQL_TYPE_AUTO)},
    {"Holder", "as", PTRS(as, nas, false, GQL_TYPE_AUTO)},
    {"Holder", "asTyped", PTRS(as, nas, false, TYPED_A)},
    {"Holder", "structs", STRUCTS(structs, nstructs, false, GQL_TYPE_AUTO)},
    {"Holder", "structsAuto", STRUCTS(structs, nstructs, false, GQL_TYPE_AUTO)},
    {"Holder", "inlineStructs",
     STRUCTS(inline_structs, ninline_structs, true, TYPED_A)},
    {"Holder", "es", ENUMS(es, nes, false)},
    {"Holder", "esNN", ENUMS(es_inline, nes_inline, true)},
    {"Holder", "esN1", ENUMS(es_n1, nes_n1, false)},
    {"Holder", "asN1", PTRS(as, nas, false, GQL_TYPE_AUTO)},
    /* stride 0: the first struct, count times */
    {"Holder",
     "repeat",
     {.kind = GQL_LIST_STRUCTS,
      .items_offset = offsetof(holder, structs),
      .count_offset = offsetof(holder, nstructs),
      .count_size = 8,
      .type = GQL_TYPE_AUTO}},
    {"A",
     "kidsNN",
     {.kind = GQL_LIST_OBJECT_PTRS,
      .items_inline = true,
      .items_offset = offsetof(node, kids),
      .count_offset = offsetof(node, nkids),
      .count_size = 2,
      .type = GQL_TYPE_AUTO}},
    {"A",
     "kids",
     {.kind = GQL_LIST_OBJECT_PTRS,
      .items_inline = true,
      .items_offset = offsetof(node, kids),
      .count_offset = offsetof(node, nkids),
      .count_size = 2,
      .type = GQL_TYPE_AUTO}},
};

/* The list member as a schema uses it (TYPED_A made A's index). */
static gql_list_member member_of(const list_def *d, const env *e) {
  gql_list_member m = d->m;
  if (m.type == TYPED_A)
    m.type = e->a;
  return m;
}

static size_t load_count(const char *p, uint8_t size) {
  uint64_t v = 0;
  switch (size) {
  case 1:
    return *(const uint8_t *)p;
  case 2:
    return *(const uint16_t *)(const void *)p;
  case 4:
    return *(const uint32_t *)(const void *)p;
  default:
    memcpy(&v, p, 8);
    return (size_t)v;
  }
}

/* The reference: a resolver reading the member and calling the bulk
 * writer that the list kind names. */
static void by_hand(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  const list_def *d = gql_info_data(info);
  const env *e = gql_info_context(info);
  gql_list_member m = member_of(d, e);
  const char *p = parent;
  const char *items =
      m.items_inline ? p + m.items_offset
                     : *(const char *const *)(const void *)(p + m.items_offset);
  size_t count = load_count(p + m.count_offset, m.count_size);
  switch (m.kind) {
  case GQL_LIST_OBJECT_PTRS:
    gql_out_object_ptrs(out, (const void *const *)(const void *)items, count,
                        m.type);
    break;
  case GQL_LIST_ENUM_U8:
    gql_out_enum_indices(out, (const uint8_t *)items, count);
    break;
  case GQL_LIST_STRUCTS:
    gql_out_object_array(out, items, count, m.stride, m.type);
    break;
  }
}

static void q_holder(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  gql_out_object(out, parent, GQL_TYPE_AUTO); /* the root: holders[0] */
}
static void q_holders(const gql_resolve_info *info, const void *parent,
                      gql_out *out) {
  gql_out_object_array(out, parent, 3, sizeof(holder), GQL_TYPE_AUTO);
}
static void q_c(const gql_resolve_info *info, const void *parent,
                gql_out *out) {
  gql_out_null(out);
}
static void r_int(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  gql_out_int(out, 7);
}

/* The schema with the list fields as list members (`members`) or by
 * hand; `slow` makes Query and Holder not synchronous (tree mode). */
static gql_schema *schema(bool members, bool slow, env *e) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  memset(e, 0, sizeof *e);
  e->a = (uint32_t)gql_schema_type_by_name(s, "A", 1);
  e->b = (uint32_t)gql_schema_type_by_name(s, "B", 1);
  e->c = (uint32_t)gql_schema_type_by_name(s, "C", 1);
  e->e = (uint32_t)gql_schema_type_by_name(s, "E", 1);
  const unsigned sync = GQL_RESOLVER_SYNC;
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
    const list_def *d = &lists[i];
    gql_list_member m = member_of(d, e);
    int rc = members ? gql_schema_set_list_member(s, d->type, d->field, &m)
                     : gql_schema_set_resolver(s, d->type, d->field, by_hand,
                                               (void *)d, sync);
    cr_assert_eq(rc, 0, "%s.%s", d->type, d->field);
  }
  cr_assert_eq(
      gql_schema_set_member(s, "A", "id", GQL_MEMBER_INT32, offsetof(node, id)),
      0);
  cr_assert_eq(
      gql_schema_set_member(s, "B", "id", GQL_MEMBER_INT32, offsetof(node, id)),
      0);
  cr_assert_eq(gql_schema_set_member(s, "B", "name", GQL_MEMBER_STR,
                                     offsetof(node, name)),
               0);
  cr_assert_eq(gql_schema_set_member(s, "Holder", "label", GQL_MEMBER_STR,
                                     offsetof(holder, label)),
               0);
  cr_assert_eq(gql_schema_set_resolver(s, "Holder", "other", r_int, NULL,
                                       slow ? 0 : sync),
               0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Query", "holder", q_holder, NULL, sync), 0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Query", "holderNN", q_holder, NULL, sync), 0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Query", "holders", q_holders, NULL, sync), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "c", q_c, NULL, sync), 0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Query", "slow", r_int, NULL, slow ? 0 : sync),
      0);
  cr_assert_eq(gql_schema_set_resolve_type(s, "Node", node_type), 0);
  return s;
}

/* ---- data */

static const node b1 = {TAG_B, 2, {"bee", 3}, {NULL}, 0};
static const node b2 = {TAG_B, 3, {NULL, 0}, {NULL}, 0};
static const node a_leaf = {TAG_A, 4, {NULL, 0}, {&b1, NULL}, 1};
static const node a1 = {TAG_A, 1, {NULL, 0}, {&b1, &a_leaf}, 2};
static const node a_null_kid = {TAG_A, 5, {NULL, 0}, {&b1, NULL}, 2};
static const node fails = {TAG_FAIL, 6, {NULL, 0}, {NULL}, 0};
static const node as_c = {TAG_C, 7, {NULL, 0}, {NULL}, 0};
static const node as_enum = {TAG_ENUM, 8, {NULL, 0}, {NULL}, 0};
static const node a_bad_kid = {TAG_A, 9, {NULL, 0}, {&fails, &b2}, 2};

static const void *const good_nodes[] = {&a1, &b1, &b2, &a_leaf};
static const void *const good_as[] = {&a1, &a_leaf, &a_null_kid};
static const void *const null_item[] = {&b1, NULL, &a1};
static const void *const bad_items[] = {&fails, &b1, &as_c, &as_enum};
static const void *const bad_kid[] = {&a_bad_kid};
static const node good_structs[] = {
    {TAG_A, 10, {NULL, 0}, {&b1}, 1},
    {TAG_A, 11, {NULL, 0}, {NULL}, 0},
};
static const node mixed_structs[] = {
    {TAG_B, 12, {"bee2", 4}, {NULL}, 0},
    {TAG_FAIL, 13, {NULL, 0}, {NULL}, 0},
    {TAG_A, 14, {NULL, 0}, {NULL}, 0},
};
static const uint8_t good_es[] = {2, 0, 1}, bad_es[] = {0, 3, 1};

/* holders[0]: every list good; [1]: bad items everywhere; [2]: null and
 * empty lists. */
static holder *make_data(void) {
  holder *h = calloc(3, sizeof *h);
  cr_assert(h);
  h[0] = (holder){.nodes = {&a1, &b1, &b2},
                  .nnodes = 3,
                  .nodes_nn = good_nodes,
                  .nnodes_nn = 4,
                  .nodes_n1 = good_nodes,
                  .nnodes_n1 = 2,
                  .as = good_as,
                  .nas = 3,
                  .structs = good_structs,
                  .nstructs = 2,
                  .inline_structs = {good_structs[0], good_structs[1]},
                  .ninline_structs = 2,
                  .es = good_es,
                  .nes = 3,
                  .es_inline = {1, 2, 0, 2},
                  .nes_inline = 4,
                  .es_n1 = good_es,
                  .nes_n1 = 2,
                  .label = {"zero", 4}};
  h[1] = (holder){.nodes = {&b1, NULL, &fails, &a_bad_kid},
                  .nnodes = 4,
                  .nodes_nn = null_item,
                  .nnodes_nn = 3,
                  .nodes_n1 = bad_items,
                  .nnodes_n1 = 4,
                  .as = bad_kid,
                  .nas = 1,
                  .structs = mixed_structs,
                  .nstructs = 3,
                  .inline_structs = {good_structs[1], good_structs[0]},
                  .ninline_structs = 1,
                  .es = bad_es,
                  .nes = 3,
                  .es_inline = {0, 9},
                  .nes_inline = 2,
                  .es_n1 = bad_es,
                  .nes_n1 = 3,
                  .label = {"one", 3}};
  h[2] = (holder){.nnodes = 0,
                  .nodes_nn = NULL,
                  .nodes_n1 = NULL,
                  .nnodes_n1 = 5,
                  .as = good_as,
                  .nas = 0,
                  .structs = NULL,
                  .nstructs = 2,
                  .ninline_structs = 0,
                  .es = NULL,
                  .nes = 2,
                  .nes_inline = 0,
                  .es_n1 = NULL,
                  .label = {NULL, 0}};
  return h;
}

/* ---- the comparison */

#define NODE "{ __typename id ... on B { name } ... on A { kids { id } } }"
static const char *const queries[] = {
    /* all-members objects */
    "{ holders { nodes " NODE " } }",
    "{ holders { nodesNN " NODE " } }",
    "{ holders { nodesN1 " NODE " } }",
    "{ holders { as { id kids { id } } } }",
    "{ holders { asTyped { id } } }",
    "{ holders { as { id kidsNN { id } } } }",
    "{ holders { label asN1 { id kidsNN { id } } } }",
    "{ holders { structs { id kids { id } } } }",
    "{ holders { structsAuto { id } } }",
    "{ holders { inlineStructs { id } } }",
    "{ holders { repeat { id } } }",
    "{ holders { es } }",
    "{ holders { esNN } }",
    "{ holders { esN1 } }",
    "{ holders { label es esNN as { id } nodes { id } label } }",
    "{ holder { label nodes { id } es } }",
    "{ holderNN { nodesNN { id } } }",
    /* beside other fields (mixed objects), fragments, aliases */
    "{ holders { other nodes { id } es structs { id } } }",
    "{ holders { other as { id kidsNN { id } } esNN nodesNN { id } } }",
    "{ holders { other asN1 { kidsNN { id } } nodesN1 { id } es esN1 } }",
    "{ holders { __typename x: nodes { id } y: esNN } }",
    "query($no: Boolean = false) { holders { nodes @skip(if: $no) { id } "
    "es @include(if: $no) } }",
    /* every field at once, and in tree mode when slow */
    "{ slow holders { nodes " NODE " nodesN1 { id } as { id kids { id } } "
    "asTyped { id } structs { id } structsAuto { id } inlineStructs { id } "
    "es esN1 esNN label } }",
};

static void run_both(gql_schema *m, env *em, gql_schema *h, env *eh,
                     const char *q, const holder *data, bool hooked, int slow) {
  got gm, gh;
  em->nseen = eh->nseen = 0;
  em->seen[0] = eh->seen[0] = 0;
  hooked_run(m, q, data, em, false, hooked, &gm);
  hooked_run(h, q, data, eh, false, hooked, &gh);
  cr_assert_str_eq(gm.json, gh.json, "%s (hooks %d, tree mode %d)", q, hooked,
                   slow);
  cr_assert_eq(gm.errors, gh.errors);
  /* hooks see the same calls; resolve_type the same items, fields and
   * paths */
  cr_assert_eq(gm.starts, gh.starts, "%s", q);
  cr_assert_str_eq(em->seen, eh->seen, "%s", q);
}

Test(list_members, answer_as_bulk_writers_do) {
  holder *data = make_data();
  for (int slow = 0; slow < 2; slow++) {
    env em, eh;
    gql_schema *m = schema(true, slow, &em);
    gql_schema *h = schema(false, slow, &eh);
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
      for (int hooked = 0; hooked < 2; hooked++)
        run_both(m, &em, h, &eh, queries[i], data, hooked, slow);
    gql_schema_free(m);
    gql_schema_free(h);
  }
  free(data);
}

/* The bytes themselves, so that members and the reference cannot both be
 * wrong alike. */
static void expect(gql_schema *s, env *e, const holder *data, const char *q,
                   const char *want) {
  got g;
  e->nseen = 0;
  hooked_run(s, q, data, e, false, false, &g);
  cr_assert_str_eq(g.json, want, "%s\n got %s", q, g.json);
}

Test(list_members, values) {
  holder *data = make_data();
  env e;
  gql_schema *s = schema(true, false, &e);
  expect(s, &e, data, "{ holder { nodes { id ... on B { name } } es esNN } }",
         "{\"data\":{\"holder\":{\"nodes\":[{\"id\":1},{\"id\":2,\"name\":"
         "\"bee\"},{\"id\":3,\"name\":null}],\"es\":[\"Z\",\"X\",\"Y\"],"
         "\"esNN\":[\"Y\",\"Z\",\"X\",\"Z\"]}}}");
  expect(s, &e, data, "{ holder { repeat { id } } }",
         "{\"data\":{\"holder\":{\"repeat\":[{\"id\":10},{\"id\":10}]}}}");
  expect(s, &e, data,
         "{ holder { as { id kids { __typename id } } structs { id } "
         "inlineStructs { id } esN1 } }",
         "{\"data\":{\"holder\":{\"as\":[{\"id\":1,\"kids\":[{\"__typename\":"
         "\"B\",\"id\":2},{\"__typename\":\"A\",\"id\":4}]},{\"id\":4,"
         "\"kids\":[{\"__typename\":\"B\",\"id\":2}]},{\"id\":5,\"kids\":[{"
         "\"__typename\":\"B\",\"id\":2},null]}],\"structs\":[{\"id\":10},{"
         "\"id\":11}],\"inlineStructs\":[{\"id\":10},{\"id\":11}],\"esN1\":"
         "[\"Z\",\"X\"]}}}");
  /* resolve_type is told the list field and its path */
  cr_assert_str_eq(e.seen, "kids@[\"holder\",\"as\",0,\"kids\"];"
                           "kids@[\"holder\",\"as\",0,\"kids\"];"
                           "kids@[\"holder\",\"as\",1,\"kids\"];"
                           "kids@[\"holder\",\"as\",2,\"kids\"];");
  gql_schema_free(s);
  free(data);
}

/* Null items, null lists and empty lists. */
Test(list_members, nulls_and_empty_lists) {
  holder *data = make_data();
  env e;
  gql_schema *s = schema(true, false, &e);
  /* a null item in a nullable-item list */
  expect(s, &e, data + 1,
         "{ holder { label nodes { id ... on A { kids { id } } } } }",
         "{\"errors\":[{\"message\":\"Abstract type \\\"Node\\\" must resolve "
         "to an Object type at runtime for field \\\"Holder.nodes\\\". Either "
         "the \\\"Node\\\" type should provide a \\\"resolveType\\\" function "
         "or each possible type should provide an \\\"isTypeOf\\\" "
         "function.\",\"locations\":[{\"line\":1,\"column\":18}],\"path\":[\""
         "holder\",\"nodes\",2]},{\"message\":\"Abstract type \\\"Node\\\" "
         "must resolve to an Object type at runtime for field \\\"A.kids\\\". "
         "Either the \\\"Node\\\" type should provide a \\\"resolveType\\\" "
         "function or each possible type should provide an \\\"isTypeOf\\\" "
         "function.\",\"locations\":[{\"line\":1,\"column\":40}],\"path\":[\""
         "holder\",\"nodes\",3,\"kids\",0]}],\"data\":{\"holder\":{\"label\":"
         "\"one\",\"nodes\":[{\"id\":2},null,null,{\"id\":9,\"kids\":[null,{"
         "\"id\":3}]}]}}}");
  /* a null item in [Node!]!: the holder becomes null */
  expect(s, &e, data + 1, "{ holder { label nodesNN { id } } }",
         "{\"errors\":[{\"message\":\"Cannot return null for non-nullable "
         "field Holder.nodesNN.\",\"locations\":[{\"line\":1,\"column\":18}],"
         "\"path\":[\"holder\",\"nodesNN\",1]}],\"data\":{\"holder\":null}}");
  /* a failed item in [Node!]: the list becomes null */
  expect(s, &e, data + 1, "{ holder { nodesN1 { id } label } }",
         "{\"errors\":[{\"message\":\"Abstract type \\\"Node\\\" must resolve "
         "to an Object type at runtime for field \\\"Holder.nodesN1\\\". "
         "Either the \\\"Node\\\" type should provide a \\\"resolveType\\\" "
         "function or each possible type should provide an \\\"isTypeOf\\\" "
         "function.\",\"locations\":[{\"line\":1,\"column\":12}],\"path\":[\""
         "holder\",\"nodesN1\",0]}],\"data\":{\"holder\":{\"nodesN1\":null,"
         "\"label\":\"one\"}}}");
  /* a non-null item that fails (its kidsNN has a null item): in [A!]!
   * the holder, in [A!] the list becomes null */
  expect(s, &e, data, "{ holder { label as { kidsNN { id } } } }",
         "{\"errors\":[{\"message\":\"Cannot return null for non-nullable "
         "field A.kidsNN.\",\"locations\":[{\"line\":1,\"column\":23}],"
         "\"path\":[\"holder\",\"as\",2,\"kidsNN\",1]}],\"data\":{\"holder\":"
         "null}}");
  expect(s, &e, data, "{ holder { label asN1 { kidsNN { id } } } }",
         "{\"errors\":[{\"message\":\"Cannot return null for non-nullable "
         "field A.kidsNN.\",\"locations\":[{\"line\":1,\"column\":25}],"
         "\"path\":[\"holder\",\"asN1\",2,\"kidsNN\",1]}],\"data\":{"
         "\"holder\":{\"label\":\"zero\",\"asN1\":null}}}");
  /* null and empty lists */
  expect(s, &e, data + 2,
         "{ holder { nodes { id } nodesN1 { id } as { id } es esN1 esNN "
         "inlineStructs { id } structsAuto { id } } }",
         "{\"data\":{\"holder\":{\"nodes\":[],\"nodesN1\":null,\"as\":[],"
         "\"es\":null,\"esN1\":null,\"esNN\":[],\"inlineStructs\":[],"
         "\"structsAuto\":null}}}");
  expect(s, &e, data + 2, "{ holder { label structs { id } } }",
         "{\"errors\":[{\"message\":\"Cannot return null for non-nullable "
         "field Holder.structs.\",\"locations\":[{\"line\":1,\"column\":18}],"
         "\"path\":[\"holder\",\"structs\"]}],\"data\":{\"holder\":null}}");
  gql_schema_free(s);
  free(data);
}

/* resolve_type's other failures and enum indices out of range. */
Test(list_members, bad_types_and_enum_indices) {
  holder *data = make_data();
  env e;
  gql_schema *s = schema(true, false, &e);
  got g;
  e.nseen = 0;
  hooked_run(s, "{ holder { nodesN1 { id } } }", data + 1, &e, false, false,
             &g);
  cr_assert(g.errors);
  /* the first item fails: the list is null and the rest is not looked at
   * (resolve_type is called once for it, as graphql-js calls resolveType) */
  cr_assert_str_eq(e.seen, "nodesN1@[\"holder\",\"nodesN1\"];");
  expect(s, &e, data + 1, "{ holder { structsAuto { id } } }",
         "{\"errors\":[{\"message\":\"Abstract type \\\"Node\\\" must resolve "
         "to an Object type at runtime for field \\\"Holder.structsAuto\\\". "
         "Either the \\\"Node\\\" type should provide a \\\"resolveType\\\" "
         "function or each possible type should provide an \\\"isTypeOf\\\" "
         "function.\",\"locations\":[{\"line\":1,\"column\":12}],\"path\":[\""
         "holder\",\"structsAuto\",1]}],\"data\":{\"holder\":{\"structsAuto\":"
         "[{\"id\":12},null,{\"id\":14}]}}}");
  /* a type that is not possible, and one that is not an object */
  static holder h;
  h = (holder){.nodes = {&as_c, &as_enum, &b2}, .nnodes = 3};
  expect(s, &e, &h, "{ holder { nodes { id } } }",
         "{\"errors\":[{\"message\":\"Runtime Object type \\\"C\\\" is not a "
         "possible type for \\\"Node\\\".\",\"locations\":[{\"line\":1,"
         "\"column\":12}],\"path\":[\"holder\",\"nodes\",0]},{\"message\":"
         "\"Abstract type \\\"Node\\\" was resolved to a non-object type "
         "\\\"E\\\".\",\"locations\":[{\"line\":1,\"column\":12}],\"path\":[\""
         "holder\",\"nodes\",1]}],\"data\":{\"holder\":{\"nodes\":[null,null,"
         "{\"id\":3}]}}}");
  /* enum indices out of range: a null item, or the list, or the holder */
  expect(s, &e, data + 1, "{ holder { es } }",
         "{\"errors\":[{\"message\":\"Enum \\\"E\\\" has no value at index "
         "3.\",\"locations\":[{\"line\":1,\"column\":12}],\"path\":[\"holder\","
         "\"es\",1]}],\"data\":{\"holder\":{\"es\":[\"X\",null,\"Y\"]}}}");
  expect(s, &e, data + 1, "{ holder { esN1 label } }",
         "{\"errors\":[{\"message\":\"Enum \\\"E\\\" has no value at index "
         "3.\",\"locations\":[{\"line\":1,\"column\":12}],\"path\":[\"holder\","
         "\"esN1\",1]}],\"data\":{\"holder\":{\"esN1\":null,\"label\":\"one\""
         "}}}");
  expect(s, &e, data + 1, "{ holder { label esNN } }",
         "{\"errors\":[{\"message\":\"Enum \\\"E\\\" has no value at index "
         "9.\",\"locations\":[{\"line\":1,\"column\":18}],\"path\":[\"holder\","
         "\"esNN\",1]}],\"data\":{\"holder\":null}}");
  gql_schema_free(s);
  free(data);
}

/* Enum lists past the copied-slot fast path: more than 64 values, and
 * names too long for a slot; written by a list member and by
 * gql_out_enum_indices alike. */
typedef struct enum_lists {
  uint8_t many[100];
  uint8_t nmany;
  const uint8_t *longs;
  uint16_t nlongs;
} enum_lists;

static void r_many(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  const enum_lists *l = parent;
  gql_out_enum_indices(out, l->many, l->nmany);
}

Test(list_members, long_enum_lists_and_long_names) {
  static const char sdl2[] =
      "enum E { X Y Z }\n"
      "enum Long { SHORT A_VALUE_NAME_OF_MORE_THAN_THIRTY_TWO_BYTES }\n"
      "type Query { many: [E!]! manyByHand: [E!]! longs: [Long] }";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl2, sizeof sdl2 - 1, NULL, &s, NULL), 0);
  gql_list_member many = {.kind = GQL_LIST_ENUM_U8,
                          .items_inline = true,
                          .items_offset = offsetof(enum_lists, many),
                          .count_offset = offsetof(enum_lists, nmany),
                          .count_size = 1};
  gql_list_member longs = {.kind = GQL_LIST_ENUM_U8,
                           .items_offset = offsetof(enum_lists, longs),
                           .count_offset = offsetof(enum_lists, nlongs),
                           .count_size = 2};
  cr_assert_eq(gql_schema_set_list_member(s, "Query", "many", &many), 0);
  cr_assert_eq(gql_schema_set_list_member(s, "Query", "longs", &longs), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "manyByHand", r_many, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  static const uint8_t long_items[] = {1, 0, 1};
  static enum_lists l;
  l.nmany = 100;
  for (int i = 0; i < 100; i++)
    l.many[i] = (uint8_t)(i * 7 % 3);
  l.longs = long_items;
  l.nlongs = 3;
  /* the expected bytes, value by value */
  static const char *const names[] = {"X", "Y", "Z"};
  char want[2048] = "[";
  for (int i = 0; i < 100; i++) {
    strcat(want, i ? ",\"" : "\"");
    strcat(want, names[l.many[i]]);
    strcat(want, "\"");
  }
  strcat(want, "]");
  char full[8192];
  snprintf(full, sizeof full,
           "{\"data\":{\"many\":%s,\"manyByHand\":%s,\"longs\":[\"A_VALUE_"
           "NAME_OF_MORE_THAN_THIRTY_TWO_BYTES\",\"SHORT\",\"A_VALUE_NAME_OF_"
           "MORE_THAN_THIRTY_TWO_BYTES\"]}}",
           want, want);
  got g;
  hooked_run(s, "{ many manyByHand longs }", &l, NULL, false, false, &g);
  cr_assert_str_eq(g.json, full);
  /* an index out of range past the 64th value */
  l.many[70] = 3;
  hooked_run(s, "{ many }", &l, NULL, false, false, &g);
  cr_assert(strstr(g.json, "\"path\":[\"many\",70]}],\"data\":null}"), "%s",
            g.json);
  hooked_run(s, "{ manyByHand }", &l, NULL, false, false, &g);
  cr_assert(strstr(g.json, "\"path\":[\"manyByHand\",70]}],\"data\":null}"),
            "%s", g.json);
  gql_schema_free(s);
}

/* GQL_TYPE_AUTO on an abstract type without a resolve_type: each item is
 * an error (the C struct is never read as JSON for its __typename), with
 * hooks or without, beside other fields or not. */
Test(list_members, abstract_items_without_resolve_type) {
  static const char sdl3[] =
      "interface I { id: Int } type T implements I { id: Int }\n"
      "type H { is: [I] isS: [I] other: Int } type Query { h: H }";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl3, sizeof sdl3 - 1, NULL, &s, NULL), 0);
  gql_list_member is = {.kind = GQL_LIST_OBJECT_PTRS,
                        .items_offset = offsetof(holder, nodes_nn),
                        .count_offset = offsetof(holder, nnodes_nn),
                        .count_size = 2,
                        .type = GQL_TYPE_AUTO};
  gql_list_member structs = {.kind = GQL_LIST_STRUCTS,
                             .items_offset = offsetof(holder, structs),
                             .count_offset = offsetof(holder, nstructs),
                             .count_size = 8,
                             .stride = sizeof(node),
                             .type = GQL_TYPE_AUTO};
  cr_assert_eq(gql_schema_set_list_member(s, "H", "is", &is), 0);
  cr_assert_eq(gql_schema_set_list_member(s, "H", "isS", &structs), 0);
  cr_assert_eq(
      gql_schema_set_member(s, "T", "id", GQL_MEMBER_INT32, offsetof(node, id)),
      0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "h", q_holder, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "H", "other", r_int, NULL, GQL_RESOLVER_SYNC),
      0);
  /* a node whose first bytes read as a JSON object (kind 5, its name as
   * members): reading it as JSON would overrun "bee" */
  static const node jsonlike = {5, 1, {"bee", 3}, {NULL}, 0};
  static const void *const items[] = {&jsonlike, &b1};
  static holder h;
  h = (holder){.nodes_nn = items,
               .nnodes_nn = 2,
               .structs = mixed_structs,
               .nstructs = 3};
  holder *data = &h;
  static const char *const qs[] = {"{ h { is { id } isS { id } } }",
                                   "{ h { other is { id } isS { id } } }"};
  for (size_t q = 0; q < 2; q++)
    for (int hooked = 0; hooked < 2; hooked++) {
      got g;
      hooked_run(s, qs[q], data, NULL, false, hooked, &g);
      cr_assert(g.errors);
      cr_assert(strstr(g.json, "\"data\":{\"h\":{"), "%s", g.json);
      cr_assert(strstr(g.json, "\"is\":[null,null],\"isS\":[null,null,"
                               "null]"),
                "%s", g.json);
      cr_assert(strstr(g.json, "Abstract type \\\"I\\\" must resolve to an "
                               "Object type at runtime for field \\\"H.isS"
                               "\\\"."),
                "%s", g.json);
      cr_assert(strstr(g.json, "\"path\":[\"h\",\"is\",0]"), "%s", g.json);
    }
  gql_schema_free(s);
}

Test(list_members, set_time_errors) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  uint32_t a = (uint32_t)gql_schema_type_by_name(s, "A", 1);
  uint32_t b = (uint32_t)gql_schema_type_by_name(s, "B", 1);
  uint32_t c = (uint32_t)gql_schema_type_by_name(s, "C", 1);
  uint32_t e = (uint32_t)gql_schema_type_by_name(s, "E", 1);
  gql_list_member ptrs = {
      .kind = GQL_LIST_OBJECT_PTRS, .count_size = 1, .type = GQL_TYPE_AUTO};
  gql_list_member enums = {.kind = GQL_LIST_ENUM_U8, .count_size = 1};
  gql_list_member m;
  /* the field's type */
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "es", &ptrs),
               GQL_EINVAL);
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &enums),
               GQL_EINVAL);
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "label", &ptrs),
               GQL_EINVAL);
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "label", &enums),
               GQL_EINVAL);
  cr_assert_eq(gql_schema_set_list_member(s, "Query", "holder", &ptrs),
               GQL_EINVAL);
  /* the items' type */
  m = ptrs, m.type = b;
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "as", &m), GQL_EINVAL);
  m.type = c;
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
               GQL_EINVAL);
  m.type = e;
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
               GQL_EINVAL);
  m.type = 100000;
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
               GQL_EINVAL);
  /* the description */
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", NULL),
               GQL_EINVAL);
  m = ptrs, m.kind = (gql_list_kind)0;
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
               GQL_EINVAL);
  m.kind = (gql_list_kind)4;
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
               GQL_EINVAL);
  for (int size = 0; size <= 9; size++) {
    m = ptrs, m.count_size = (uint8_t)size;
    bool ok = size == 1 || size == 2 || size == 4 || size == 8;
    cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
                 ok ? 0 : GQL_EINVAL, "count size %d", size);
  }
  if (sizeof(size_t) > 4) {
    m = ptrs, m.items_offset = (size_t)UINT32_MAX + 1;
    cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
                 GQL_EINVAL);
    m = ptrs, m.count_offset = (size_t)UINT32_MAX + 1;
    cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
                 GQL_EINVAL);
    m = ptrs, m.kind = GQL_LIST_STRUCTS, m.stride = (size_t)UINT32_MAX + 1;
    cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nodes", &m),
                 GQL_EINVAL);
  }
  /* unknown fields */
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "nope", &ptrs),
               GQL_ENOTFOUND);
  cr_assert_eq(gql_schema_set_list_member(s, "Nope", "nodes", &ptrs),
               GQL_ENOTFOUND);
  cr_assert_eq(gql_schema_set_list_member(NULL, "Holder", "nodes", &ptrs),
               GQL_EINVAL);
  /* what fits */
  m = ptrs, m.type = a;
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "as", &m), 0);
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "asTyped", &m), 0);
  m.kind = GQL_LIST_STRUCTS;
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "structs", &m), 0);
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "esNN", &enums), 0);
  cr_assert_eq(gql_schema_finalize(s), 0);
  cr_assert_eq(gql_schema_set_list_member(s, "Holder", "es", &enums),
               GQL_EINVAL);
  gql_schema_free(s);
}

/* A list of lists is no list member. */
Test(list_members, lists_of_lists_are_refused) {
  static const char nested[] =
      "enum E { X } type T { id: Int } type Query { es: [[E]] ts: [[T!]]! }";
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(nested, sizeof nested - 1, NULL, &s, NULL),
               0);
  gql_list_member enums = {.kind = GQL_LIST_ENUM_U8, .count_size = 1};
  gql_list_member ptrs = {
      .kind = GQL_LIST_OBJECT_PTRS, .count_size = 1, .type = GQL_TYPE_AUTO};
  cr_assert_eq(gql_schema_set_list_member(s, "Query", "es", &enums),
               GQL_EINVAL);
  cr_assert_eq(gql_schema_set_list_member(s, "Query", "ts", &ptrs), GQL_EINVAL);
  gql_schema_free(s);
}
