/* Member fields (gql_schema_set_member): a field read from its parent C
 * struct answers exactly as a synchronous resolver calling the matching
 * gql_out_* would, on the executor's own fast path and on the general one
 * (hooks, tree mode, arguments), values that need the general path (null,
 * Int out of range, NaN, enum index out of range) included. */
#include "hooked_run.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
  int32_t i32;
  int64_t i64;
  double f, d;
  bool b;
  gql_str s, sn;
  const char *id;
  uint8_t e, en;
} rec;

typedef struct root {
  int32_t top;
  rec recs[4];
  uint32_t rec_type;
} root;

static const char sdl[] =
    "enum Color { RED GREEN BLUE }\n"
    "type Rec { i32: Int! i64: Int f: Float d: Float! b: Boolean! s: String "
    "sn: String! id: ID e: Color en: Color! asFloat: Float asString: String "
    "withArg(x: Int): Int big: Int! }\n"
    "type Query { top: Int recs: [Rec!]! good: [Rec!]! slow: Int }\n";

/* Field, kind and member of every member field. */
typedef struct member_def {
  const char *type, *field;
  gql_member_kind kind;
  size_t offset;
} member_def;

static const member_def defs[] = {
    {"Rec", "i32", GQL_MEMBER_INT32, offsetof(rec, i32)},
    {"Rec", "i64", GQL_MEMBER_INT64, offsetof(rec, i64)},
    {"Rec", "f", GQL_MEMBER_DOUBLE, offsetof(rec, f)},
    {"Rec", "d", GQL_MEMBER_DOUBLE, offsetof(rec, d)},
    {"Rec", "b", GQL_MEMBER_BOOL, offsetof(rec, b)},
    {"Rec", "s", GQL_MEMBER_STR, offsetof(rec, s)},
    {"Rec", "sn", GQL_MEMBER_STR, offsetof(rec, sn)},
    {"Rec", "id", GQL_MEMBER_CSTR, offsetof(rec, id)},
    {"Rec", "e", GQL_MEMBER_ENUM_U8, offsetof(rec, e)},
    {"Rec", "en", GQL_MEMBER_ENUM_U8, offsetof(rec, en)},
    {"Rec", "asFloat", GQL_MEMBER_INT32, offsetof(rec, i32)},
    {"Rec", "asString", GQL_MEMBER_BOOL, offsetof(rec, b)},
    {"Rec", "withArg", GQL_MEMBER_INT32, offsetof(rec, i32)},
    {"Rec", "big", GQL_MEMBER_INT64, offsetof(rec, i64)},
    {"Query", "top", GQL_MEMBER_INT32, offsetof(root, top)},
};

/* The reference: what a resolver reading the member would write. */
static void by_hand(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  const member_def *d = gql_info_data(info);
  if (!parent) {
    gql_out_null(out);
    return;
  }
  const char *p = (const char *)parent + d->offset;
  switch (d->kind) {
  case GQL_MEMBER_INT32:
    gql_out_int(out, *(const int32_t *)(const void *)p);
    break;
  case GQL_MEMBER_INT64:
    gql_out_int(out, *(const int64_t *)(const void *)p);
    break;
  case GQL_MEMBER_DOUBLE:
    gql_out_float(out, *(const double *)(const void *)p);
    break;
  case GQL_MEMBER_BOOL:
    gql_out_bool(out, *(const bool *)(const void *)p);
    break;
  case GQL_MEMBER_STR: {
    const gql_str *s = (const gql_str *)(const void *)p;
    if (s->ptr)
      gql_out_string(out, s->ptr, s->len);
    else
      gql_out_null(out);
    break;
  }
  case GQL_MEMBER_CSTR: {
    const char *s = *(const char *const *)(const void *)p;
    if (s)
      gql_out_string(out, s, strlen(s));
    else
      gql_out_null(out);
    break;
  }
  case GQL_MEMBER_ENUM_U8:
    gql_out_enum_index(out, *(const uint8_t *)p);
    break;
  }
}

static void q_recs(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  const root *r = parent;
  gql_out_object_array(out, r->recs, 4, sizeof r->recs[0], r->rec_type);
}
static void q_good(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  const root *r = parent;
  gql_out_object_array(out, r->recs, 2, sizeof r->recs[0], r->rec_type);
}
/* Not synchronous: makes the operation run in tree mode. */
static void q_slow(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_out_int(out, 7);
}

/* The Query fields and, with `members`, every member field as a member;
 * else by hand. `slow` makes Query not synchronous (tree mode). */
static gql_schema *schema(bool members, bool slow) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
    const member_def *d = &defs[i];
    int rc = members ? gql_schema_set_member(s, d->type, d->field, d->kind,
                                             d->offset)
                     : gql_schema_set_resolver(s, d->type, d->field, by_hand,
                                               (void *)d, GQL_RESOLVER_SYNC);
    cr_assert_eq(rc, 0, "%s.%s", d->type, d->field);
  }
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "recs", q_recs, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "good", q_good, NULL,
                                       GQL_RESOLVER_SYNC),
               0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "slow", q_slow, NULL,
                                       slow ? 0 : GQL_RESOLVER_SYNC),
               0);
  return s;
}

static root *data(gql_schema *s) {
  static const char long_text[] =
      "a string over sixteen bytes, with \"quotes\"";
  root *r = calloc(1, sizeof *r);
  cr_assert(r);
  r->top = -5;
  r->rec_type = (uint32_t)gql_schema_type_by_name(s, "Rec", 3);
  /* 0 and 1: values for the fast path */
  r->recs[0] = (rec){.i32 = 2147483647,
                     .i64 = -2147483648LL,
                     .f = 0.1,
                     .d = 1e21,
                     .b = true,
                     .s = {"short", 5},
                     .sn = {long_text, sizeof long_text - 1},
                     .id = "id-0",
                     .e = 2,
                     .en = 0};
  r->recs[1] = (rec){.i32 = -1,
                     .i64 = 12345678,
                     .f = 5e-7,
                     .d = -0.0,
                     .b = false,
                     .s = {"", 0},
                     .sn = {"\xc3\xa9t\xc3\xa9", 5},
                     .id = "",
                     .e = 1,
                     .en = 1};
  /* 2 and 3: values for the general path */
  r->recs[2] = (rec){.i64 = 3000000000LL,
                     .f = NAN,
                     .d = 1.5,
                     .s = {NULL, 0},
                     .sn = {"x", 1},
                     .id = NULL,
                     .e = 7,
                     .en = 2};
  r->recs[3] = (rec){.i64 = 1,
                     .f = INFINITY,
                     .d = 2,
                     .s = {"s", 1},
                     .sn = {NULL, 0},
                     .id = "3",
                     .e = 0,
                     .en = 9};
  return r;
}

static const char *const queries[] = {
    "{ top good { i32 i64 f d b s sn id e en asFloat asString big } }",
    "{ recs { i32 i64 f d b s id e asFloat asString } }",
    "{ recs { sn } }",
    "{ recs { en } }",
    "{ recs { big } }",
    "{ good { a: i32 ...F ... on Rec { b: e } __typename } }"
    " fragment F on Rec { s x: s withArg(x: 3) }",
    "query($no: Boolean = false) { good { i32 @skip(if: $no) d @include(if: "
    "$no) } }",
    "{ top slow good { i32 sn } }",
};

/* Every query gives the same bytes with members as with resolvers, on
 * the fast path, with hooks, and in tree mode. */
Test(members, answer_as_resolvers_do) {
  for (int slow = 0; slow < 2; slow++) {
    gql_schema *m = schema(true, slow);
    gql_schema *h = schema(false, slow);
    root *r = data(m);
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
      for (int hooked = 0; hooked < 2; hooked++) {
        got gm, gh;
        hooked_run(m, queries[i], r, NULL, false, hooked, &gm);
        hooked_run(h, queries[i], r, NULL, false, hooked, &gh);
        cr_assert_str_eq(gm.json, gh.json, "%s (hooks %d, tree mode %d)",
                         queries[i], hooked, slow);
        cr_assert_eq(gm.errors, gh.errors);
        /* hooks see every member field's call, as a resolver's */
        cr_assert_eq(gm.starts, gh.starts, "%s", queries[i]);
      }
    free(r);
    gql_schema_free(m);
    gql_schema_free(h);
  }
}

/* The bytes themselves, so that members and the reference cannot both be
 * wrong the same way. */
Test(members, values) {
  gql_schema *s = schema(true, false);
  root *r = data(s);
  got g;
  hooked_run(s, "{ top good { i32 i64 f d b s sn id e en asFloat asString } }",
             r, NULL, false, false, &g);
  cr_assert_str_eq(
      g.json,
      "{\"data\":{\"top\":-5,\"good\":[{\"i32\":2147483647,\"i64\":-2147483648,"
      "\"f\":0.1,\"d\":1e+21,\"b\":true,\"s\":\"short\",\"sn\":\"a string "
      "over sixteen bytes, with \\\"quotes\\\"\",\"id\":\"id-0\",\"e\":"
      "\"BLUE\",\"en\":\"RED\",\"asFloat\":2147483647,\"asString\":\"true\"},"
      "{\"i32\":-1,\"i64\":12345678,\"f\":5e-7,\"d\":0,\"b\":false,\"s\":\"\","
      "\"sn\":\"\xc3\xa9t\xc3\xa9\",\"id\":\"\",\"e\":\"GREEN\",\"en\":"
      "\"GREEN\",\"asFloat\":-1,\"asString\":\"false\"}]}}");
  cr_assert(!g.errors);
  /* the general path: errors and nulls as gql_out_* give them */
  hooked_run(s, "{ recs { i64 f s id e } }", r, NULL, false, false, &g);
  cr_assert(g.errors);
  cr_assert(strstr(g.json, "\"message\":\"Int cannot represent non 32-bit "
                           "signed integer value: 3000000000\""),
            "%s", g.json);
  cr_assert(strstr(g.json, "\"message\":\"Float cannot represent non numeric "
                           "value: NaN\""),
            "%s", g.json);
  cr_assert(strstr(g.json, "{\"i64\":null,\"f\":null,\"s\":null,\"id\":null,"
                           "\"e\":null}"),
            "%s", g.json);
  hooked_run(s, "{ recs { sn } }", r, NULL, false, false, &g);
  cr_assert(strstr(g.json, "Cannot return null for non-nullable field "
                           "Rec.sn."),
            "%s", g.json);
  cr_assert(strstr(g.json, "\"data\":null"), "%s", g.json);
  free(r);
  gql_schema_free(s);
}

/* A member field of a NULL parent (no root value) is null. */
Test(members, null_parent) {
  gql_schema *s = schema(true, false);
  got g;
  hooked_run(s, "{ top }", NULL, NULL, false, false, &g);
  cr_assert_str_eq(g.json, "{\"data\":{\"top\":null}}");
  gql_schema_free(s);
}

Test(members, registration_errors) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  cr_assert_eq(gql_schema_set_member(s, "Rec", "i32", (gql_member_kind)0, 0),
               GQL_EINVAL);
  cr_assert_eq(gql_schema_set_member(s, "Rec", "i32", (gql_member_kind)99, 0),
               GQL_EINVAL);
  cr_assert_eq(gql_schema_set_member(s, "Rec", "nope", GQL_MEMBER_INT32, 0),
               GQL_ENOTFOUND);
  cr_assert_eq(gql_schema_set_member(s, "Nope", "i32", GQL_MEMBER_INT32, 0),
               GQL_ENOTFOUND);
  cr_assert_eq(gql_schema_set_member(NULL, "Rec", "i32", GQL_MEMBER_INT32, 0),
               GQL_EINVAL);
  if (sizeof(size_t) > 4)
    cr_assert_eq(gql_schema_set_member(s, "Rec", "i32", GQL_MEMBER_INT32,
                                       (size_t)UINT32_MAX + 1),
                 GQL_EINVAL);
  cr_assert_eq(gql_schema_set_member(s, "Rec", "i32", GQL_MEMBER_INT32, 0), 0);
  cr_assert_eq(gql_schema_finalize(s), 0);
  cr_assert_eq(gql_schema_set_member(s, "Rec", "i64", GQL_MEMBER_INT64, 8),
               GQL_EINVAL);
  gql_schema_free(s);
}
