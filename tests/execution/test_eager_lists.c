/* An operation whose @defer all wrap whole objects (gql_prepared.eager_only,
 * src/execution/eager.c) writes its lists' items by three paths: the list
 * of structs (gql_out_object_array: fast_array's own loop), the list of
 * pointers (gql_out_object_ptrs: its loop, the items' paths from a
 * prefix) and the general list (gql_out_list: an item at a time). The
 * three must give the same payloads, byte for byte, with errors inside
 * fragments, fragments that fail, labels, lists in lists and an error in
 * the initial result that drops fragments; and the payloads say what
 * graphql-js 17 says of them (counted below). tests/incremental checks
 * the pointer path against graphql-js's recordings. */
#include "gql.h"
#include "schema/schema.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct leaf {
  int id;
} leaf;

typedef struct group {
  int id;
  const leaf *leaves;
  size_t nleaves;
} group;

/* ids: name fails when id % 3 == 1; nonNull fails when id % 4 == 2 */
static const leaf leaves[] = {{0}, {1}, {2}, {3},  {4},  {5},  {6},
                              {7}, {8}, {9}, {10}, {11}, {12}, {13}};
static const group groups[] = {
    {0, leaves, 5}, {1, leaves + 5, 4}, {2, leaves + 9, 0}, {3, leaves + 9, 5}};

enum { ARRAY, PTRS, LIST };

static int64_t leaf_type, group_type; /* the types' indices */

static const char sdl[] =
    "type Leaf { id: Int! name: String nonNull: String! }\n"
    "type Group { id: Int! leaves: [Leaf!]! tag: String! }\n"
    "union Thing = Leaf | Group\n"
    "type Query { leaves: [Leaf!]! groups: [Group] one: Leaf things: [Thing] "
    "}\n";

/* things: leaf 0, group 3 (its 5 leaves), leaf 1, group 0, leaf 13 */
typedef struct thing {
  int is_group;
  const void *obj;
} thing;
static const thing things[] = {{0, &leaves[0]},
                               {1, &groups[3]},
                               {0, &leaves[1]},
                               {1, &groups[0]},
                               {0, &leaves[13]}};

static int mode_of(const gql_resolve_info *info) {
  return *(const int *)gql_info_context(info);
}

static void leaf_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, (const leaf *)list + i, GQL_TYPE_AUTO);
}

static void group_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, (const group *)list + i, GQL_TYPE_AUTO);
}

/* `count` structs at `base` by the context's mode. */
static void out_list(const gql_resolve_info *info, gql_out *out,
                     const void *base, size_t count, size_t size,
                     gql_list_item_fn fn) {
  int mode = mode_of(info);
  if (mode == ARRAY) {
    gql_out_object_array(out, base, count, size, GQL_TYPE_AUTO);
  } else if (mode == PTRS) {
    const void **ptrs =
        gql_arena_alloc(gql_info_arena(info), sizeof *ptrs * (count + 1));
    for (size_t i = 0; i < count; i++)
      ptrs[i] = (const char *)base + i * size;
    gql_out_object_ptrs(out, ptrs, count, GQL_TYPE_AUTO);
  } else {
    gql_out_list(out, base, count, fn);
  }
}

static void r_leaves(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  const group *g = parent;
  if (g)
    out_list(info, out, g->leaves, g->nleaves, sizeof *leaves, leaf_item);
  else
    out_list(info, out, leaves, 14, sizeof *leaves, leaf_item);
}

static void r_groups(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  (void)parent;
  out_list(info, out, groups, 4, sizeof *groups, group_item);
}

/* things as the mode writes a list of an abstract type: the objects'
 * pointers, or an item at a time (the array mode's general path) */
static void thing_item(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, ((const thing *)list)[i].obj, GQL_TYPE_AUTO);
}

static void r_things(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  (void)parent;
  if (mode_of(info) == PTRS) {
    const void **ptrs = gql_arena_alloc(gql_info_arena(info), sizeof *ptrs * 5);
    for (size_t i = 0; i < 5; i++)
      ptrs[i] = things[i].obj;
    gql_out_object_ptrs(out, ptrs, 5, GQL_TYPE_AUTO);
  } else {
    gql_out_list(out, things, 5, thing_item);
  }
}

static int64_t thing_type(const gql_resolve_info *info, const void *obj) {
  (void)info;
  for (size_t i = 0; i < 5; i++)
    if (things[i].obj == obj)
      return things[i].is_group ? group_type : leaf_type;
  return -1;
}

static void r_one(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info, (void)parent;
  gql_out_object(out, &leaves[3], GQL_TYPE_AUTO);
}

static void r_id(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)info;
  gql_out_int(out, *(const int *)parent); /* (leaf and group begin so) */
}

static void r_name(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  (void)info;
  const leaf *l = parent;
  char buf[32];
  snprintf(buf, sizeof buf, "leaf %d", l->id);
  if (l->id % 3 == 1)
    gql_out_error(out, "no name");
  else
    gql_out_string(out, buf, strlen(buf));
}

static void r_non_null(const gql_resolve_info *info, const void *parent,
                       gql_out *out) {
  (void)info;
  const leaf *l = parent;
  if (l->id % 4 == 2)
    gql_out_error(out, "no nonNull");
  else
    gql_out_string(out, "x", 1);
}

static void r_tag(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  if (((const group *)parent)->id == 1)
    gql_out_error(out, "no tag"); /* Group! nulls the group */
  else
    gql_out_string(out, "t", 1);
}

static gql_schema *schema(void) {
  gql_schema *s;
  gql_schema_build_options o = {.defer_stream = true};
  cr_assert_eq(gql_schema_build(sdl, sizeof sdl - 1, NULL, &o, &s, NULL), 0);
  const unsigned sync = GQL_RESOLVER_SYNC;
  gql_schema_set_resolver(s, "Query", "leaves", r_leaves, NULL, sync);
  gql_schema_set_resolver(s, "Query", "groups", r_groups, NULL, sync);
  gql_schema_set_resolver(s, "Query", "one", r_one, NULL, sync);
  gql_schema_set_resolver(s, "Group", "id", r_id, NULL, sync);
  gql_schema_set_resolver(s, "Group", "leaves", r_leaves, NULL, sync);
  gql_schema_set_resolver(s, "Group", "tag", r_tag, NULL, sync);
  gql_schema_set_resolver(s, "Leaf", "id", r_id, NULL, sync);
  gql_schema_set_resolver(s, "Leaf", "name", r_name, NULL, sync);
  gql_schema_set_resolver(s, "Leaf", "nonNull", r_non_null, NULL, sync);
  gql_schema_set_resolver(s, "Query", "things", r_things, NULL, sync);
  cr_assert_eq(gql_schema_set_resolve_type(s, "Thing", thing_type), 0);
  leaf_type = gql_schema_type_by_name(s, "Leaf", 4);
  group_type = gql_schema_type_by_name(s, "Group", 5);
  cr_assert(leaf_type >= 0 && group_type >= 0);
  cr_assert_eq(gql_schema_finalize(s), 0);
  return s;
}

typedef struct payloads {
  char text[32768]; /* the payloads, one a line */
  size_t len;
  int n;
} payloads;

static void on_payload(void *ud, const char *json, size_t len, bool errors) {
  (void)errors;
  payloads *p = ud;
  cr_assert_lt(p->len + len + 1, sizeof p->text);
  memcpy(p->text + p->len, json, len);
  p->len += len;
  p->text[p->len++] = '\n';
  p->text[p->len] = 0;
  p->n++;
}

/* The payloads of q in `mode`, twice over one output (the second run
 * starts from the first one's buffer sizes); both must be the same. */
static void run(gql_schema *s, const char *q, int mode, payloads *p) {
  gql_prepared *prep;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &prep, NULL), 0, "%s",
               q);
  gql_output out = {0};
  payloads again;
  for (int k = 0; k < 2; k++) {
    payloads *to = k ? &again : p;
    memset(to, 0, sizeof *to);
    gql_execute_params params = {
        .context = &mode, .output = &out, .on_done = on_payload, .ud = to};
    cr_assert_eq(gql_execute_incremental(prep, &params), 0);
  }
  cr_assert_str_eq(again.text, p->text);
  gql_output_free(&out);
  gql_prepared_free(prep);
}

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *at = s; (at = strstr(at, what)); at += strlen(what))
    n++;
  return n;
}

/* q by the three paths: the same bytes; returns the array path's. */
static void same_three(const char *q, payloads *p) {
  gql_schema *s = schema();
  payloads other;
  run(s, q, ARRAY, p);
  for (int mode = PTRS; mode <= LIST; mode++) {
    run(s, q, mode, &other);
    cr_assert_str_eq(other.text, p->text, "mode %d of %s", mode, q);
  }
  gql_schema_free(s);
}

Test(eager_lists, errors_and_failures_inside_fragments) {
  payloads p;
  same_three("{ leaves { ... @defer { id name nonNull } } }", &p);
  cr_assert_eq(p.n, 2, "%s", p.text);
  /* 14 leaves: every one announced; nonNull fails on 2, 6, 10 (those
   * fragments complete with errors, no data); name on 1, 4, 7, 10, 13 (an
   * entry with errors; 10's are its failed fragment's, with nonNull's) */
  cr_assert_eq(count(p.text, "\",\"path\":[\"leaves\","), 14, "%s", p.text);
  cr_assert_eq(count(p.text, "\"data\":{\"id\":"), 11, "%s", p.text);
  cr_assert_eq(count(p.text, "\"message\":\"no nonNull\""), 3, "%s", p.text);
  cr_assert_eq(count(p.text, "\"message\":\"no name\""), 5, "%s", p.text);
  cr_assert(strstr(p.text, "{\"id\":\"2\",\"errors\":[{\"message\":\"no "
                           "nonNull\",\"locations\":[{\"line\":1,\"column\":33}"
                           "],\"path\":[\"leaves\",2,\"nonNull\"]}]}"),
            "%s", p.text);
  /* the failed ones complete first, then the others in id order */
  cr_assert(strstr(p.text, "\"completed\":[{\"id\":\"2\",\"errors\""), "%s",
            p.text);
  cr_assert(strstr(p.text, "{\"id\":\"12\"},{\"id\":\"13\"}]}\n"), "%s",
            p.text);
}

Test(eager_lists, lists_in_lists_and_an_initial_error) {
  payloads p;
  same_three("{ groups { id leaves { ... @defer(label: \"L\") { id name } } "
             "tag } one { ... @defer { id } } }",
             &p);
  cr_assert_eq(p.n, 2, "%s", p.text);
  /* group 1's tag fails: the group is null, its 4 leaves' fragments are
   * dropped and the rest numbered again: 5 + 0 + 5 leaves and `one` */
  cr_assert(strstr(p.text, "\"groups\":[{\"id\":0,\"leaves\":[{},{},{},{},{}],"
                           "\"tag\":\"t\"},null,{\"id\":2,\"leaves\":[],"),
            "%s", p.text);
  cr_assert_eq(count(p.text, "\"label\":\"L\""), 10, "%s", p.text);
  cr_assert(strstr(p.text, "{\"id\":\"5\",\"path\":[\"groups\",3,\"leaves\",0],"
                           "\"label\":\"L\"}"),
            "%s", p.text);
  cr_assert(strstr(p.text, "{\"id\":\"10\",\"path\":[\"one\"]}"), "%s", p.text);
  cr_assert(strstr(p.text, "{\"id\":\"5\",\"data\":{\"id\":9,\"name\":\"leaf "
                           "9\"}}"),
            "%s", p.text);
  cr_assert_eq(count(p.text, "\"id\":\"11\""), 0, "%s", p.text);
  cr_assert(p.text[0] == '{' && strncmp(p.text,
                                        "{\"errors\":[{\"message\":"
                                        "\"no tag\"",
                                        30) == 0,
            "%s", p.text);
}

Test(eager_lists, every_fragment_fails) {
  payloads p;
  same_three("{ groups { leaves { ... @defer { nonNull } } } }", &p);
  /* nonNull fails on 2, 6, 10: a completed entry with errors each, and
   * the incremental entries of the 11 others */
  cr_assert_eq(count(p.text, "\"errors\":[{\"message\":\"no nonNull\""), 3,
               "%s", p.text);
  cr_assert_eq(count(p.text, "\"data\":{\"nonNull\":\"x\"}"), 11, "%s", p.text);
  payloads q;
  same_three("{ groups { leaves { ... @defer { id } } } leaves { ... @defer "
             "{ nonNull } } }",
             &q);
  cr_assert_eq(count(q.text, "\",\"path\":[\"leaves\","), 14, "%s", q.text);
}

Test(eager_lists, long_paths) {
  /* the items' paths up to their index: 72 bytes (copied in pieces), and
   * over 128 (written from the frames each time) */
  payloads p;
  same_three(
      "{ aVeryLongAliasForTheGroupsListOfThisTest: groups { "
      "anotherRatherLongAliasForLeaves: leaves { ... @defer { id } } } }",
      &p);
  cr_assert(strstr(p.text,
                   "{\"id\":\"13\",\"path\":[\"aVeryLongAliasForTheGroups"
                   "ListOfThisTest\",3,\"anotherRatherLongAliasFor"
                   "Leaves\",4]}"),
            "%s", p.text);
  char q[1024], want[1024];
  char alias[161];
  memset(alias, 'a', sizeof alias - 1);
  alias[sizeof alias - 1] = 0;
  snprintf(q, sizeof q, "{ %s: groups { leaves { ... @defer { id } } } }",
           alias);
  same_three(q, &p);
  snprintf(want, sizeof want,
           "{\"id\":\"13\",\"path\":[\"%s\",3,\"leaves\",4]}", alias);
  cr_assert(strstr(p.text, want), "%s", p.text);
}

Test(eager_lists, a_list_of_things_some_deferred_some_with_lists) {
  /* a pointer list of a union: leaves deferred whole, groups not, their
   * own leaves deferred; a leaf after a group takes its path from its own
   * list, not from the group's list that wrote a prefix meanwhile */
  payloads p;
  same_three("{ things { ... on Leaf { ... @defer { id } } ... on Group { "
             "id leaves { ... @defer(label: \"g\") { name } } } } }",
             &p);
  cr_assert(strstr(p.text, "\"data\":{\"things\":[{},{\"id\":3,\"leaves\":[{},"
                           "{},{},{},{}]},{},{\"id\":0,\"leaves\":[{},{},{},"
                           "{},{}]},{}]}"),
            "%s", p.text);
  cr_assert(strstr(p.text, "{\"id\":\"6\",\"path\":[\"things\",2]}"), "%s",
            p.text);
  cr_assert(strstr(p.text, "{\"id\":\"12\",\"path\":[\"things\",4]}"), "%s",
            p.text);
  cr_assert(strstr(p.text, "{\"id\":\"11\",\"path\":[\"things\",3,"
                           "\"leaves\",4],\"label\":\"g\"}"),
            "%s", p.text);
}
