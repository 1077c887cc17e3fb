/* gql_hooks.last_stamps: a STAMP call of a field of a list item that is not
 * its list's last reads no clock when the items are non-null and of one
 * object type and the execution is synchronous; its stamp is owed until
 * the next item's call of the field stamps it, and an error settles every
 * owed stamp at once. Checked here with a counting clock: which reads
 * happen, what each stamp holds, and that the hooks never see an owed
 * stamp at the finish. */
#include "execution/exec.h"
#include "execution/hooks.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

typedef struct sub {
  int v;
} sub;

typedef struct item {
  int id;
  bool fail_id; /* Item.id (ID!) errors: the item, then the list, fail */
  bool fail_n;  /* Item.n (Int) errors: null, the rest goes on */
  bool abort_n; /* resolve_start of Item.n aborts the request */
  sub s;
} item;

static item items[3];
static const void *ptrs[3];

static const char sdl[] =
    "type Sub { v: Int }\n"
    "type Item { id: ID! sub: Sub! n: Int }\n"
    "union U = Item\n"
    "type Query { items: [Item!]! nullable: [Item] ptrs: [Item!]! "
    "arr: [Item!]! us: [U!]! one: Item }\n";

static void item_fn(const void *list, size_t i, gql_out *out) {
  gql_out_object(out, &((const item *)list)[i], GQL_TYPE_AUTO);
}
static void r_items(const gql_resolve_info *info, const void *parent,
                    gql_out *out) {
  gql_out_list(out, items, 3, item_fn);
}
static void r_ptrs(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  gql_out_object_ptrs(out, ptrs, 3, GQL_TYPE_AUTO);
}
static void r_arr(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  gql_out_object_array(out, items, 3, sizeof(item), GQL_TYPE_AUTO);
}
static void r_one(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  gql_out_object(out, &items[0], GQL_TYPE_AUTO);
}
static void r_id(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  const item *it = parent;
  if (it->fail_id)
    gql_out_error(out, "bad id");
  else
    gql_out_int(out, it->id);
}
static void r_sub(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  gql_out_object(out, &((const item *)parent)->s, GQL_TYPE_AUTO);
}
static void r_n(const gql_resolve_info *info, const void *parent,
                gql_out *out) {
  const item *it = parent;
  if (it->fail_n)
    gql_out_error(out, "bad n");
  else
    gql_out_int(out, it->id * 10);
}
static void r_v(const gql_resolve_info *info, const void *parent,
                gql_out *out) {
  gql_out_int(out, ((const sub *)parent)->v);
}
static uint32_t item_type;
static int64_t r_type(const gql_resolve_info *info, const void *value) {
  return item_type;
}

/* sync: every resolver synchronous (direct mode); else Query.items is
 * not declared so and the execution runs in tree mode. */
static gql_schema *schema(bool sync) {
  gql_schema *s = NULL;
  cr_assert_eq(gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &s, NULL), 0);
  unsigned f = GQL_RESOLVER_SYNC;
  cr_assert_eq(
      gql_schema_set_resolver(s, "Query", "items", r_items, NULL, sync ? f : 0),
      0);
  cr_assert_eq(
      gql_schema_set_resolver(s, "Query", "nullable", r_items, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "ptrs", r_ptrs, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "arr", r_arr, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "us", r_items, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Query", "one", r_one, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Item", "id", r_id, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Item", "sub", r_sub, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Item", "n", r_n, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolver(s, "Sub", "v", r_v, NULL, f), 0);
  cr_assert_eq(gql_schema_set_resolve_type(s, "U", r_type), 0);
  int64_t t = gql_schema_type_by_name(s, "Item", 4);
  cr_assert_geq(t, 0);
  item_type = (uint32_t)t;
  return s;
}

static void reset_data(void) {
  for (int i = 0; i < 3; i++) {
    items[i] = (item){.id = i + 1, .s = {.v = 100 + i}};
    ptrs[i] = &items[i];
  }
}

/* The hooks' owner: a counting clock, and what execute_finish saw. */
typedef struct owner {
  uint64_t clock;
  int finishes;
  bool aborted;
  const uint64_t *stamps;
  uint32_t n;
  bool owed_at_finish;   /* an owed stamp reached execute_finish */
  uint64_t at_finish[8]; /* the stamps then */
  char errors[8][32];    /* resolve_finish's errors ("": none), copied */
} owner;

static uint64_t o_now(void *ctx) {
  return ++((owner *)ctx)->clock;
}
static int o_start(void *ctx, const gql_resolve_info *info) {
  return ((owner *)ctx)->aborted; /* aborting: every call from the first on */
}
static void o_finish(void *ctx, const gql_resolve_info *info) {
  owner *o = ctx;
  const char *e = gql_exec_info_error(info);
  if (o->finishes < 8)
    snprintf(o->errors[o->finishes], sizeof o->errors[0], "%s", e ? e : "");
  o->finishes++;
}
static void o_exec_finish(void *ctx, bool has_errors) {
  owner *o = ctx;
  for (uint32_t k = 0; k < o->n && k < 8; k++) {
    o->at_finish[k] = o->stamps[k];
    if (o->stamps[k] == GQL_STAMP_OWED)
      o->owed_at_finish = true;
  }
}

typedef struct run {
  char json[1024];
  uint64_t stamps[8];
  uint8_t calls[8];
  owner o;
} run;

static void on_done(void *ud, const char *json, size_t len, bool errors) {
  run *r = ud;
  snprintf(r->json, sizeof r->json, "%.*s", (int)len, json);
}

/* Runs `q` with one answer per planned field in `kinds` (1: the field gets
 * GQL_HOOK_STAMP, 0: no hook, 2: both hooks) and last_stamps as given;
 * with `abort` every resolve_start aborts. No stamp may be owed after. */
static void exec_with(gql_schema *s, const char *q, const char *kinds,
                      bool last, bool abort, run *r) {
  memset(r, 0, sizeof *r);
  r->o.aborted = abort; /* every resolve_start aborts */
  gql_arena *a = gql_arena_new(NULL);
  gql_prepared *p = NULL;
  cr_assert_eq(gql_prepare(s, q, strlen(q), NULL, NULL, &p, NULL), 0);
  uint32_t n = (uint32_t)strlen(kinds);
  cr_assert_eq(p->nplanned, n, "%s: %u planned fields", q, p->nplanned);
  for (uint32_t k = 0; k < n; k++)
    r->calls[k] = kinds[k] == '1'   ? GQL_HOOK_STAMP
                  : kinds[k] == '2' ? GQL_HOOK_START | GQL_HOOK_FINISH
                                    : 0;
  r->o.stamps = r->stamps;
  r->o.n = n;
  gql_exec_hooks h = {.pub = {.resolve_start = o_start,
                              .resolve_finish = o_finish,
                              .execute_finish = o_exec_finish,
                              .ctx = &r->o},
                      .calls = r->calls,
                      .ncalls = n,
                      .stamps = r->stamps,
                      .now = o_now,
                      .last_stamps = last};
  gql_execute_params params = {.arena = a, .on_done = on_done, .ud = r};
  int rc = gql_exec_run(p, &params, &h);
  cr_assert(rc == 0 || rc == 1);
  cr_assert(r->json[0], "no response");
  cr_assert(!r->o.owed_at_finish, "%s: an owed stamp at execute_finish", q);
  for (uint32_t k = 0; k < n; k++)
    cr_assert_neq(r->stamps[k], GQL_STAMP_OWED, "%s: stamp %u owed", q, k);
  gql_prepared_free(p);
  gql_arena_free(a);
}

static void exec(gql_schema *s, const char *q, const char *kinds, bool last,
                 run *r) {
  exec_with(s, q, kinds, last, false, r);
}

/* planned: items 0, id 1, sub 2, v 3, n 4 */
static const char q_items[] = "{ items { id sub { v } n } }";
static const char k_items[] = "10100";
static const char want_items[] =
    "{\"data\":{\"items\":[{\"id\":\"1\",\"sub\":{\"v\":100},\"n\":10},"
    "{\"id\":\"2\",\"sub\":{\"v\":101},\"n\":20},"
    "{\"id\":\"3\",\"sub\":{\"v\":102},\"n\":30}]}}";

Test(last_stamps, only_the_last_items_completion_reads_the_clock) {
  reset_data();
  gql_schema *s = schema(true);
  run r;
  exec(s, q_items, k_items, true, &r);
  cr_assert_str_eq(r.json, want_items);
  /* sub's completion under the last item (1), then items' (2) */
  cr_assert_eq(r.o.clock, 2);
  cr_assert_eq(r.stamps[2], 1);
  cr_assert_eq(r.stamps[0], 2);
  cr_assert_eq(r.o.finishes, 0);
  /* the same without last_stamps: one read per completion */
  exec(s, q_items, k_items, false, &r);
  cr_assert_str_eq(r.json, want_items);
  cr_assert_eq(r.o.clock, 4);
  cr_assert_eq(r.stamps[2], 3);
  cr_assert_eq(r.stamps[0], 4);
  gql_schema_free(s);
}

Test(last_stamps, the_bulk_writers_skip_the_same_reads) {
  reset_data();
  gql_schema *s = schema(true);
  const char *qs[] = {"{ ptrs { id sub { v } n } }",
                      "{ arr { id sub { v } n } }"};
  for (int i = 0; i < 2; i++) {
    run r;
    exec(s, qs[i], k_items, true, &r);
    cr_assert(strstr(r.json, "{\"id\":\"3\",\"sub\":{\"v\":102},\"n\":30}]"),
              "%s", r.json);
    cr_assert_eq(r.o.clock, 2, "%s", qs[i]);
    cr_assert_eq(r.stamps[2], 1);
    cr_assert_eq(r.stamps[0], 2);
  }
  gql_schema_free(s);
}

Test(last_stamps, lists_that_may_not_call_the_field_again_read_every_time) {
  reset_data();
  gql_schema *s = schema(true);
  run r;
  /* nullable items: a later item may be null */
  exec(s, "{ nullable { id sub { v } n } }", k_items, true, &r);
  cr_assert_eq(r.o.clock, 4);
  cr_assert_eq(r.stamps[2], 3);
  /* a union's items: a later one may be of another type (planned: us 0,
   * id 1, sub 2, v 3) */
  exec(s, "{ us { ... on Item { id sub { v } } } }", "1010", true, &r);
  cr_assert(strstr(r.json, "{\"id\":\"3\",\"sub\":{\"v\":102}}]"), "%s",
            r.json);
  cr_assert_eq(r.o.clock, 4);
  cr_assert_eq(r.stamps[2], 3);
  /* a field of an object under the item, not of the item itself, is read
   * each time (planned: items 0, sub 1, v 2): v under items 0, 1 and 2
   * (1, 2, 3), sub under item 2 only (4), items (5) */
  exec(s, "{ items { sub { v } } }", "111", true, &r);
  cr_assert_eq(r.o.clock, 5);
  cr_assert_eq(r.stamps[2], 3);
  cr_assert_eq(r.stamps[1], 4);
  cr_assert_eq(r.stamps[0], 5);
  gql_schema_free(s);
}

Test(last_stamps, tree_mode_reads_every_completion) {
  reset_data();
  gql_schema *s = schema(false);
  run r;
  exec(s, q_items, k_items, true, &r);
  cr_assert_str_eq(r.json, want_items);
  cr_assert_eq(r.o.clock, 4);
  cr_assert_eq(r.stamps[2], 3);
  gql_schema_free(s);
}

Test(last_stamps, an_error_that_ends_the_list_settles_the_owed_stamp) {
  reset_data();
  items[2].fail_id = true; /* the last item fails before its sub */
  gql_schema *s = schema(true);
  run r;
  exec(s, q_items, k_items, true, &r);
  cr_assert(strstr(r.json, "\"data\":null"), "%s", r.json);
  cr_assert(strstr(r.json, "bad id"), "%s", r.json);
  /* sub completed under items 0 and 1 with no read; the error read the
   * clock once for it (1): after both completions, before anything
   * else */
  cr_assert_eq(r.stamps[2], 1);
  cr_assert_eq(r.o.finishes, 1);
  cr_assert_str_eq(r.o.errors[0], "bad id");
  cr_assert_eq(r.o.at_finish[2], 1);
  gql_schema_free(s);
}

Test(last_stamps, an_error_that_does_not_end_the_list_is_overtaken) {
  reset_data();
  items[1].fail_n = true; /* nullable: item 2 still runs */
  gql_schema *s = schema(true);
  run r;
  exec(s, q_items, k_items, true, &r);
  cr_assert(strstr(r.json, "\"n\":null"), "%s", r.json);
  /* the error settled sub's owed stamp (1); item 2's sub completion then
   * stamped it (2), then items' completion (3) */
  cr_assert_eq(r.o.clock, 3);
  cr_assert_eq(r.stamps[2], 2);
  cr_assert_eq(r.stamps[0], 3);
  gql_schema_free(s);
}

Test(last_stamps, an_error_with_nothing_owed_reads_no_clock) {
  reset_data();
  items[0].fail_n = true;
  gql_schema *s = schema(true);
  run r;
  /* planned: items 0, n 1, sub 2, v 3: n comes first in each item, so at
   * item 0's error nothing is owed yet */
  exec(s, "{ items { n sub { v } } }", "1010", true, &r);
  cr_assert(strstr(r.json, "\"n\":null"), "%s", r.json);
  cr_assert_eq(r.o.clock, 2); /* sub under the last item, items */
  cr_assert_eq(r.stamps[2], 1);
  cr_assert_eq(r.stamps[0], 2);
  gql_schema_free(s);
}

Test(last_stamps, an_abort_in_the_middle_settles_and_ends_sanely) {
  reset_data();
  gql_schema *s = schema(true);
  run r;
  /* n asks for both hooks, and the owner aborts at its first call (item
   * 0's, after item 0's sub completed with no read): every later call
   * fails with the abort error, item 1's id first, which ends the list */
  exec_with(s, q_items, "10102", true, true, &r);
  cr_assert(strstr(r.json, "Execution aborted."), "%s", r.json);
  cr_assert(strstr(r.json, "\"data\":null"), "%s", r.json);
  /* sub's stamp was settled (exec_with checked that none is owed), at
   * the first abort error: the first clock read */
  cr_assert_eq(r.stamps[2], 1);
  gql_schema_free(s);
}
