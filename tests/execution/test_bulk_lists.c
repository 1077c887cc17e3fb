/* The bulk list writers (gql_out_object_ptrs, gql_out_enum_indices) answer
 * exactly as gql_out_list with an item function calling gql_out_object or
 * gql_out_enum_index would: null items, null propagation, resolve_type
 * failures, enum indices out of range, lists in lists, hooks and tree
 * mode. */
#include "hooked_run.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
  int tag; /* 0: A, 1: B, 2: resolve_type fails, 3: not a possible type */
  int id;
} node;

static const node n0 = {0, 1}, n1 = {1, 2}, n2 = {2, 3}, n3 = {3, 4};
static const void *const good[] = {&n0, &n1, &n0};
static const void *const with_null[] = {&n0, NULL, &n1};
static const void *const bad_type[] = {&n1, &n2, &n0};
static const void *const not_possible[] = {&n0, &n3};
static const void *const as_only[] = {&n0, &n0};
static const uint8_t e_good[] = {0, 2, 1}, e_bad[] = {1, 7, 0};

static const char sdl[] =
    "interface Node { id: Int! }\n"
    "type A implements Node { id: Int! }\n"
    "type B implements Node { id: Int! }\n"
    "type C { id: Int! }\n"
    "enum E { X Y Z }\n"
    "type Query { objs: [A] objsNN: [A!] objsNull: [A!] nodes: [Node] "
    "nodesNN: [Node!]! nodesBad: [Node] nodesBadNN: [Node!] nodesTyped: [Node] "
    "notPossible: [Node] empty: [Node!]! nullList: [Node] es: [E] esNN: "
    "[E!]! esBad: [E] esBadNN: [E!] nested: [[E]] notList: E slow: Int }\n";

typedef struct field_def {
  const char *name;
  const void *const *items; /* object lists */
  const uint8_t *indices;   /* enum lists */
  size_t count;
  int typed; /* 1: pass type A's index, 0: GQL_TYPE_AUTO */
} field_def;

static const field_def fields[] = {
    {"objs", as_only, NULL, 2, 1},
    {"objsNN", as_only, NULL, 2, 0},
    {"objsNull", with_null, NULL, 3, 0},
    {"nodes", with_null, NULL, 3, 0},
    {"nodesNN", good, NULL, 3, 0},
    {"nodesBad", bad_type, NULL, 3, 0},
    {"nodesBadNN", bad_type, NULL, 3, 0},
    {"nodesTyped", as_only, NULL, 2, 1},
    {"notPossible", not_possible, NULL, 2, 0},
    {"empty", good, NULL, 0, 0},
    {"nullList", NULL, NULL, 3, 0},
    {"es", NULL, e_good, 3, 0},
    {"esNN", NULL, e_good, 3, 0},
    {"esBad", NULL, e_bad, 3, 0},
    {"esBadNN", NULL, e_bad, 3, 0},
    {"notList", NULL, e_good, 3, 0},
};

typedef struct env {
  uint32_t a, b, c;
} env;

static const field_def *def_of(const gql_resolve_info *info) {
  return gql_info_data(info);
}

static const env *env_of(const gql_resolve_info *info) {
  return gql_info_context(info);
}

static bool is_enum_field(const field_def *d) {
  return d->items == NULL && d->indices != NULL;
}

static void bulk(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  const field_def *d = def_of(info);
  if (is_enum_field(d))
    gql_out_enum_indices(out, d->indices, d->count);
  else
    gql_out_object_ptrs(out, d->items, d->count,
                        d->typed ? env_of(info)->a : GQL_TYPE_AUTO);
}

typedef struct ref_list {
  const field_def *d;
  uint32_t type;
} ref_list;

static void ref_item(const void *list, size_t i, gql_out *out) {
  const ref_list *l = list;
  if (is_enum_field(l->d))
    gql_out_enum_index(out, l->d->indices[i]);
  else
    gql_out_object(out, l->d->items[i], l->type);
}

/* The reference: gql_out_list with an item function (the list handle
 * lives in the request arena). */
static void by_hand(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  const field_def *d = def_of(info);
  if (!d->items && !d->indices) {
    gql_out_null(out);
    return;
  }
  ref_list *l = gql_arena_alloc(gql_info_arena(info), sizeof *l);
  cr_assert(l);
  *l = (ref_list){d, d->typed ? env_of(info)->a : GQL_TYPE_AUTO};
  gql_out_list(out, l, d->count, ref_item);
}

static void enum_ref_item(const void *list, size_t i, gql_out *out) {
  gql_out_enum_index(out, ((const uint8_t *)list)[i]);
}

/* [[E]]: an outer list of two inner lists, written by the bulk writer or
 * by hand (the bulk writer takes the general path for an inner list). */
static void nested_item(const void *list, size_t i, gql_out *out) {
  const uint8_t *inner = i ? e_bad : e_good;
  if (*(const bool *)list)
    gql_out_enum_indices(out, inner, 3);
  else
    gql_out_list(out, inner, 3, enum_ref_item);
}

static void q_nested(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  gql_out_list(out, gql_info_data(info), 2, nested_item);
}

static void node_id(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  gql_out_int(out, ((const node *)parent)->id);
}

static int64_t node_type(const gql_resolve_info *info, const void *value) {
  const node *n = value;
  const env *e = env_of(info);
  return n->tag == 0   ? (int64_t)e->a
         : n->tag == 1 ? (int64_t)e->b
         : n->tag == 3 ? (int64_t)e->c
                       : -1;
}

static void q_slow(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_out_int(out, 5);
}

static const bool yes = true, no = false;

/* The schema with the list fields written in bulk or by hand; `slow`
 * makes Query not synchronous (tree mode). */
static gql_schema *schema(bool use_bulk, bool slow, env *e) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  const unsigned sync = GQL_RESOLVER_SYNC;
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    cr_assert_eq(gql_schema_set_resolver(s, "Query", fields[i].name,
                                         use_bulk ? bulk : by_hand,
                                         (void *)&fields[i], sync),
                 0, "%s", fields[i].name);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "nested", q_nested,
                                       (void *)(use_bulk ? &yes : &no), sync),
               0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "slow", q_slow, NULL,
                                       slow ? 0 : sync),
               0);
  const char *const objs[] = {"A", "B", "C"};
  for (int k = 0; k < 3; k++)
    cr_assert_eq(gql_schema_set_resolver(s, objs[k], "id", node_id, NULL, sync),
                 0);
  cr_assert_eq(gql_schema_set_resolve_type(s, "Node", node_type), 0);
  e->a = (uint32_t)gql_schema_type_by_name(s, "A", 1);
  e->b = (uint32_t)gql_schema_type_by_name(s, "B", 1);
  e->c = (uint32_t)gql_schema_type_by_name(s, "C", 1);
  return s;
}

static const char *const queries[] = {
    "{ objs { id } objsNN { id } nodes { id } nodesNN { __typename id } }",
    "{ objsNull { id } }",
    "{ nodesBad { id } }",
    "{ nodesBadNN { id } }",
    "{ nodesTyped { __typename ... on A { id } } notPossible { id } }",
    "{ empty { id } nullList { id } }",
    "{ es esNN esBad }",
    "{ esBadNN }",
    "{ nested }",
    "{ notList }",
    "{ slow nodes { id } es nested }",
};

Test(bulk_lists, answer_as_gql_out_list_does) {
  for (int slow = 0; slow < 2; slow++) {
    env eb, eh;
    gql_schema *b = schema(true, slow, &eb);
    gql_schema *h = schema(false, slow, &eh);
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
      for (int hooked = 0; hooked < 2; hooked++) {
        got gb, gh;
        hooked_run(b, queries[i], NULL, (void *)&eb, true, hooked, &gb);
        hooked_run(h, queries[i], NULL, (void *)&eh, true, hooked, &gh);
        cr_assert_str_eq(gb.json, gh.json, "%s (hooks %d, tree mode %d)",
                         queries[i], hooked, slow);
        cr_assert_eq(gb.errors, gh.errors);
        cr_assert_eq(gb.starts, gh.starts, "%s", queries[i]);
      }
    gql_schema_free(b);
    gql_schema_free(h);
  }
}

/* The bytes themselves for a few, so that both cannot be wrong alike. */
Test(bulk_lists, values) {
  env e;
  gql_schema *s = schema(true, false, &e);
  got g;
  hooked_run(s, "{ nodes { __typename id } es }", NULL, (void *)&e, true, false,
             &g);
  cr_assert_str_eq(g.json,
                   "{\"data\":{\"nodes\":[{\"__typename\":\"A\",\"id\":"
                   "1},null,{\"__typename\":\"B\",\"id\":2}],\"es\":[\"X"
                   "\",\"Z\",\"Y\"]}}");
  hooked_run(s, "{ esBadNN }", NULL, (void *)&e, true, false, &g);
  cr_assert_str_eq(g.json,
                   "{\"errors\":[{\"message\":\"Enum \\\"E\\\" has no value at "
                   "index 7.\",\"locations\":[{\"line\":1,\"column\":3}],"
                   "\"path\":[\"esBadNN\",1]}],\"data\":{\"esBadNN\":null}}");
  hooked_run(s, "{ objsNull { id } }", NULL, (void *)&e, true, false, &g);
  cr_assert(strstr(g.json, "Cannot return null for non-nullable field "
                           "Query.objsNull."),
            "%s", g.json);
  cr_assert(strstr(g.json, "\"data\":{\"objsNull\":null}"), "%s", g.json);
  gql_schema_free(s);
}
