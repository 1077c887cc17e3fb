/* Building under an allocator that fails: every failure point must give
 * GQL_ENOMEM (never a crash) and return every byte. */
#include "helpers.h"

typedef struct counting {
  size_t live_bytes;
  long calls;
  long fail_at; /* the call number that fails (and all later ones) */
} counting;

static void *c_malloc(void *ctx, size_t size) {
  counting *c = ctx;
  if (++c->calls >= c->fail_at)
    return NULL;
  c->live_bytes += size;
  return malloc(size);
}
static void *c_realloc(void *ctx, void *p, size_t old_size, size_t new_size) {
  counting *c = ctx;
  if (++c->calls >= c->fail_at)
    return NULL;
  c->live_bytes += new_size - old_size;
  return realloc(p, new_size);
}
static void c_free(void *ctx, void *p, size_t size) {
  counting *c = ctx;
  if (p)
    c->live_bytes -= size;
  free(p);
}

static const char sdl[] =
    "\"desc\" type Query implements Node { id: ID! n(a: [In!] = [{x: 1}]): "
    "Node @deprecated }\n"
    "interface Node { id: ID! }\nunion U = Query\nenum E { A B }\n"
    "input In { x: Int = 2 y: E = A }\n"
    "directive @d(a: Int) repeatable on FIELD | OBJECT | SCHEMA\n"
    "extend type Query { more: [String!]! }\n"
    "extend schema @d(a: 1)\n";

Test(alloc, every_allocation_failure_is_reported_cleanly) {
  long n;
  bool built = false;
  for (n = 1; n < 100000 && !built; n++) {
    counting c = {0, 0, n};
    gql_allocator alc = {c_malloc, c_realloc, c_free, &c};
    gql_schema *s = NULL;
    int rc = gql_schema_from_sdl(sdl, sizeof sdl - 1, &alc, &s, NULL);
    if (rc == 0) {
      cr_assert_not_null(s);
      built = true;
      gql_arena *a = gql_arena_new(NULL);
      const char *out;
      cr_assert_eq(gql_schema_print(s, a, &out, NULL), 0);
      cr_assert(strstr(out, "more: [String!]!") != NULL);
      gql_arena_free(a);
      gql_schema_free(s);
    } else {
      cr_assert_eq(rc, GQL_ENOMEM, "call %ld: %s", n, gql_strerror(rc));
      cr_assert_null(s);
    }
    cr_assert_eq(c.live_bytes, 0, "leak after failing call %ld", n);
  }
  cr_assert(built);
}

Test(alloc, error_list_cutoff_stops_collecting) {
  gql_arena *a = gql_arena_new(NULL);
  gql_error_list l;
  gql_error_list_init(&l, a, 2);
  uint32_t off = 0;
  gql_str src = GQL_STR("abc");
  cr_assert_eq(gql_error_list_addf(&l, src, &off, 1, "e%d", 1), 0);
  cr_assert_eq(gql_error_list_addf(&l, src, &off, 1, "e%d", 2), 0);
  cr_assert(gql_error_list_full(&l));
  cr_assert_eq(gql_error_list_addf(&l, src, &off, 1, "e%d", 3), GQL_ELIMIT);
  cr_assert(l.truncated);
  cr_assert_eq(l.count, 2);
  cr_assert_str_eq(l.items[1].message, "e2");
  gql_arena_free(a);
}
