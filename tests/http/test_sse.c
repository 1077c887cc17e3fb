/* graphql-sse as pure logic: the routing of every request form of both
 * modes, the reservation registry's answers (graphql-sse's statuses and
 * messages), its bounds and time-to-live, and the event stream's bytes. */
#include "http/sse.h"
#include "json/json.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

static gql_sse_route route(const char *method, const char *target,
                           const char *accept, const char *token) {
  gql_sse_request rq = {.method = gql_cstr(method),
                        .target = gql_cstr(target),
                        .accept = gql_cstr(accept ? accept : ""),
                        .token = gql_cstr(token ? token : "")};
  gql_sse_route rt;
  gql_sse_route_request(&rq, &rt);
  return rt;
}

Test(sse_route, distinct_mode_is_get_or_post_accepting_event_streams) {
  gql_sse_route rt =
      route("GET", "/graphql?query={a}", "text/event-stream", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_DISTINCT);
  rt = route("POST", "/graphql", "application/json, text/event-stream;q=0.5",
             NULL);
  cr_assert_eq(rt.kind, GQL_SSE_DISTINCT);
  rt = route("POST", "/graphql", "Text/Event-Stream", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_DISTINCT);
}

Test(sse_route, requests_without_sse_or_token_are_plain_graphql) {
  static const char *methods[] = {"GET", "POST", "DELETE", "PATCH"};
  for (size_t i = 0; i < GQL_ARRAY_LEN(methods); i++) {
    gql_sse_route rt = route(methods[i], "/graphql", "application/json", NULL);
    cr_assert_eq(rt.kind, GQL_SSE_NONE, "%s", methods[i]);
  }
  gql_sse_route rt = route("POST", "/graphql",
                           "application/json, text/event-stream;q=0", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_NONE, "q=0 refuses the type");
  rt = route("POST", "/graphql", "text/event-stream;q=0.000", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_NONE);
  rt = route("POST", "/graphql", "text/event-streams", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_NONE);
}

Test(sse_route, put_reserves_with_or_without_a_token) {
  gql_sse_route rt = route("PUT", "/graphql", NULL, NULL);
  cr_assert_eq(rt.kind, GQL_SSE_RESERVE);
  cr_assert_eq(rt.token_len, 0);
  rt = route("PUT", "/graphql", "*/*", "mine");
  cr_assert_eq(rt.kind, GQL_SSE_RESERVE);
  cr_assert_str_eq(rt.token, "mine");
  rt = route("PUT", "/graphql", "text/plain", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_RESERVE);
  rt = route("PUT", "/graphql", "application/json", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_REFUSE);
  cr_assert_eq(rt.status, 406);
}

Test(sse_route, the_token_comes_from_the_header_or_the_query) {
  gql_sse_route rt = route("GET", "/graphql", "text/event-stream", "t-1");
  cr_assert_eq(rt.kind, GQL_SSE_CONNECT);
  cr_assert_str_eq(rt.token, "t-1");
  rt = route("GET", "/graphql?x=1&token=a%2Fb+c", "text/event-stream", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_REFUSE, "a space is not a token character");
  rt = route("GET", "/graphql?x=1&token=a%2Fb", "text/event-stream", NULL);
  cr_assert_eq(rt.kind, GQL_SSE_CONNECT);
  cr_assert_str_eq(rt.token, "a/b");
  rt = route("GET", "/graphql?token=q", "text/event-stream", "h");
  cr_assert_str_eq(rt.token, "h", "the header wins");
}

Test(sse_route, operations_stops_and_other_methods_with_a_token) {
  gql_sse_route rt = route("POST", "/graphql", "application/json", "t");
  cr_assert_eq(rt.kind, GQL_SSE_EXECUTE);
  rt = route("GET", "/graphql?query={a}", NULL, "t");
  cr_assert_eq(rt.kind, GQL_SSE_EXECUTE);
  rt = route("POST", "/graphql", "text/html", "t");
  cr_assert_eq(rt.kind, GQL_SSE_REFUSE);
  cr_assert_eq(rt.status, 406);
  rt = route("DELETE", "/graphql?operationId=a%20b", NULL, "t");
  cr_assert_eq(rt.kind, GQL_SSE_STOP);
  cr_assert_str_eq(rt.operation_id, "a b");
  rt = route("DELETE", "/graphql", NULL, "t");
  cr_assert_eq(rt.kind, GQL_SSE_STOP);
  cr_assert_eq(rt.operation_id_len, 0);
  rt = route("PATCH", "/graphql", NULL, "t");
  cr_assert_eq(rt.kind, GQL_SSE_REFUSE);
  cr_assert_eq(rt.status, 405);
  cr_assert_str_eq(rt.allow, "GET, POST, PUT, DELETE");
}

Test(sse_route, bad_tokens_and_ids_are_refused) {
  char longtok[200];
  memset(longtok, 'a', 129);
  longtok[129] = 0;
  gql_sse_route rt = route("POST", "/graphql", NULL, longtok);
  cr_assert_eq(rt.kind, GQL_SSE_REFUSE);
  cr_assert_eq(rt.status, 400);
  rt = route("POST", "/graphql", NULL, "a\x01");
  cr_assert_eq(rt.status, 400);
  rt = route("POST", "/graphql?token=%zz", NULL, NULL);
  cr_assert_eq(rt.status, 400);
  rt = route("POST", "/graphql?token=%4", NULL, NULL);
  cr_assert_eq(rt.status, 400);
  char target[400];
  snprintf(target, sizeof target, "/graphql?operationId=%s", longtok);
  rt = route("DELETE", target, NULL, "t");
  cr_assert_eq(rt.kind, GQL_SSE_REFUSE);
  cr_assert_eq(rt.status, 400);
}

/* ------------------------------------------------------------ registry */

static gql_sse_route with_token(const char *t) {
  gql_sse_route rt = {0};
  rt.token_len = strlen(t);
  memcpy(rt.token, t, rt.token_len);
  return rt;
}

Test(sse_registry, a_fresh_token_is_a_uuid_and_tokens_are_unique) {
  gql_sse_registry *reg = gql_sse_registry_new(NULL);
  gql_sse_route a = {0}, b = {0};
  cr_assert_eq(gql_sse_registry_reserve(reg, &a, 0).status, 0);
  cr_assert_eq(gql_sse_registry_reserve(reg, &b, 0).status, 0);
  cr_assert_eq(a.token_len, 36);
  cr_assert_eq(a.token[8], '-');
  cr_assert_eq(a.token[14], '4', "version 4");
  cr_assert_str_neq(a.token, b.token);
  cr_assert_eq(gql_sse_registry_count(reg), 2);
  gql_sse_result r = gql_sse_registry_reserve(reg, &a, 0);
  cr_assert_eq(r.status, 409);
  cr_assert_str_eq(r.message, "Stream already registered");
  gql_sse_registry_free(reg);
}

Test(sse_registry, a_stream_opens_once_and_unknown_tokens_go_distinct) {
  gql_sse_registry *reg = gql_sse_registry_new(NULL);
  gql_sse_route rt = with_token("t");
  rt.kind = GQL_SSE_CONNECT;
  cr_assert_eq(gql_sse_registry_open(reg, &rt, (void *)1).status, 0);
  cr_assert_eq(rt.kind, GQL_SSE_DISTINCT);
  rt.kind = GQL_SSE_CONNECT;
  cr_assert_eq(gql_sse_registry_reserve(reg, &rt, 0).status, 0);
  int owner;
  cr_assert_eq(gql_sse_registry_open(reg, &rt, &owner).status, 0);
  cr_assert_eq(rt.kind, GQL_SSE_CONNECT);
  gql_sse_result r = gql_sse_registry_open(reg, &rt, &owner);
  cr_assert_eq(r.status, 409);
  cr_assert_str_eq(r.message, "Stream already open");
  gql_sse_registry_free(reg);
}

Test(sse_registry, operations_have_unique_ids_within_a_reservation) {
  gql_sse_limits lim = {.max_operations = 2};
  gql_sse_registry *reg = gql_sse_registry_new(&lim);
  gql_sse_route rt = with_token("t");
  void *owner = (void *)7;
  gql_sse_result r = gql_sse_registry_add(reg, &rt, GQL_STR("1"), &owner);
  cr_assert_eq(r.status, 404);
  cr_assert_str_eq(r.message, "Stream not found");
  cr_assert_null(owner);
  gql_sse_registry_reserve(reg, &rt, 0);
  /* before the stream is open: accepted, no owner yet */
  cr_assert_eq(gql_sse_registry_add(reg, &rt, GQL_STR("1"), &owner).status, 0);
  cr_assert_null(owner);
  int conn;
  gql_sse_registry_open(reg, &rt, &conn);
  r = gql_sse_registry_add(reg, &rt, GQL_STR(""), &owner);
  cr_assert_eq(r.status, 400);
  cr_assert_str_eq(r.message, "Operation ID is missing");
  r = gql_sse_registry_add(reg, &rt, GQL_STR("1"), &owner);
  cr_assert_eq(r.status, 409);
  cr_assert_str_eq(r.message, "Operation with ID already exists");
  cr_assert_eq(gql_sse_registry_add(reg, &rt, GQL_STR("2"), &owner).status, 0);
  cr_assert_eq(owner, &conn);
  r = gql_sse_registry_add(reg, &rt, GQL_STR("3"), &owner);
  cr_assert_eq(r.status, 409, "bounded per reservation");
  gql_sse_registry_done(reg, gql_cstr("t"), GQL_STR("1"));
  cr_assert_eq(gql_sse_registry_add(reg, &rt, GQL_STR("1"), &owner).status, 0,
               "a completed id is free");
  gql_sse_registry_free(reg);
}

Test(sse_registry, delete_stops_an_operation_with_graphql_sse_answers) {
  gql_sse_registry *reg = gql_sse_registry_new(NULL);
  gql_sse_route rt = with_token("t");
  void *owner;
  gql_sse_result r = gql_sse_registry_stop(reg, &rt, &owner);
  cr_assert_eq(r.status, 404);
  cr_assert_str_eq(r.message, "Stream not found");
  gql_sse_registry_reserve(reg, &rt, 0);
  int conn;
  gql_sse_registry_open(reg, &rt, &conn);
  r = gql_sse_registry_stop(reg, &rt, &owner);
  cr_assert_eq(r.status, 400);
  cr_assert_str_eq(r.message, "Operation ID is missing");
  gql_sse_registry_add(reg, &rt, GQL_STR("op"), &owner);
  memcpy(rt.operation_id, "op", 3);
  rt.operation_id_len = 2;
  cr_assert_eq(gql_sse_registry_stop(reg, &rt, &owner).status, 0);
  cr_assert_eq(owner, &conn);
  cr_assert_eq(gql_sse_registry_add(reg, &rt, GQL_STR("op"), &owner).status, 0);
  memcpy(rt.operation_id, "unknown", 8);
  rt.operation_id_len = 7;
  cr_assert_eq(gql_sse_registry_stop(reg, &rt, &owner).status, 0,
               "an unknown id is fine (graphql-sse answers 200)");
  gql_sse_registry_free(reg);
}

Test(sse_registry, closing_a_stream_drops_its_reservation) {
  gql_sse_registry *reg = gql_sse_registry_new(NULL);
  gql_sse_route rt = with_token("t");
  void *owner;
  gql_sse_registry_reserve(reg, &rt, 0);
  gql_sse_registry_add(reg, &rt, GQL_STR("a"), &owner);
  gql_sse_registry_close(reg, gql_cstr("t"));
  cr_assert_eq(gql_sse_registry_count(reg), 0);
  cr_assert_eq(gql_sse_registry_add(reg, &rt, GQL_STR("b"), &owner).status,
               404);
  cr_assert_eq(gql_sse_registry_reserve(reg, &rt, 0).status, 0,
               "the token may be reserved again");
  gql_sse_registry_free(reg);
}

Test(sse_registry, reservations_are_bounded_and_expire_unless_open) {
  gql_sse_limits lim = {.max_streams = 3, .ttl_ms = 1000};
  gql_sse_registry *reg = gql_sse_registry_new(&lim);
  gql_sse_route a = with_token("a"), b = with_token("b"), c = with_token("c"),
                d = with_token("d");
  cr_assert_eq(gql_sse_registry_reserve(reg, &a, 0).status, 0);
  cr_assert_eq(gql_sse_registry_reserve(reg, &b, 0).status, 0);
  cr_assert_eq(gql_sse_registry_reserve(reg, &c, 500).status, 0);
  gql_sse_result r = gql_sse_registry_reserve(reg, &d, 600);
  cr_assert_eq(r.status, 503);
  int conn;
  gql_sse_registry_open(reg, &b, &conn);
  cr_assert_eq(gql_sse_registry_expire(reg, 999), 0);
  cr_assert_eq(gql_sse_registry_expire(reg, 1000), 1, "a, not open b");
  cr_assert_eq(gql_sse_registry_count(reg), 2);
  cr_assert_eq(gql_sse_registry_reserve(reg, &d, 1000).status, 0);
  cr_assert_eq(gql_sse_registry_expire(reg, 1500), 1, "c");
  gql_sse_registry_free(reg);
}

/* The owners the registry hands out: references counted. */
typedef struct counted {
  atomic_int refs;
  atomic_int drops;
} counted;

static void count_retain(void *p) {
  atomic_fetch_add(&((counted *)p)->refs, 1);
}

static void count_drop(void *p) {
  atomic_fetch_add(&((counted *)p)->drops, 1);
  atomic_fetch_sub(&((counted *)p)->refs, 1);
}

static void count_release(void *p) {
  if (p)
    atomic_fetch_sub(&((counted *)p)->refs, 1);
}

Test(sse_registry, owners_are_retained_when_handed_out_and_dropped_once) {
  gql_sse_limits lim = {
      .ttl_ms = 100, .retain = count_retain, .drop = count_drop};
  gql_sse_registry *reg = gql_sse_registry_new(&lim);
  counted a = {1, 0}, b = {1, 0}; /* the registry's reference each */
  gql_sse_route ra = with_token("a"), rb = with_token("b");
  cr_assert_eq(gql_sse_registry_reserve_for(reg, &ra, 0, &a).status, 0);
  cr_assert_eq(gql_sse_registry_reserve_for(reg, &rb, 0, &b).status, 0);
  cr_assert(gql_sse_registry_has(reg, gql_cstr("a")));
  cr_assert(!gql_sse_registry_has(reg, gql_cstr("c")));
  void *owner = NULL, *runner = NULL;
  /* an operation before the stream opens: the owner (its hub) already */
  cr_assert_eq(
      gql_sse_registry_add_run(reg, &ra, GQL_STR("1"), (void *)7, &owner)
          .status,
      0);
  cr_assert_eq(owner, &a);
  cr_assert_eq(atomic_load(&a.refs), 2, "retained for the caller");
  count_release(owner);
  cr_assert_eq(gql_sse_registry_open_owned(reg, &ra, &owner).status, 0);
  cr_assert_eq(owner, &a);
  cr_assert_eq(gql_sse_registry_open_owned(reg, &ra, &owner).status, 409);
  cr_assert_null(owner, "a refusal hands out nothing");
  cr_assert_eq(atomic_load(&a.refs), 2, "the stream's");
  cr_assert_eq(gql_sse_registry_stop_run(reg, &ra, &owner, &runner).status, 400,
               "no operationId");
  ra.operation_id[0] = '1';
  ra.operation_id_len = 1;
  cr_assert_eq(gql_sse_registry_stop_run(reg, &ra, &owner, &runner).status, 0);
  cr_assert_eq(runner, (void *)7, "who runs it");
  count_release(owner);
  cr_assert_eq(gql_sse_registry_stop_run(reg, &ra, &owner, &runner).status, 0);
  cr_assert_null(runner, "stopped already: no runner");
  count_release(owner);
  gql_sse_route unknown = with_token("zz");
  cr_assert_eq(gql_sse_registry_open_owned(reg, &unknown, &owner).status, 0);
  cr_assert_eq(unknown.kind, GQL_SSE_DISTINCT);
  cr_assert_null(owner);
  /* b, never opened, expires: dropped once; a, open, stays */
  cr_assert_eq(gql_sse_registry_expire(reg, 100), 1);
  cr_assert_eq(atomic_load(&b.drops), 1);
  cr_assert_eq(atomic_load(&b.refs), 0);
  gql_sse_registry_close(reg, gql_cstr("a"));
  cr_assert_eq(atomic_load(&a.drops), 1);
  count_release(&a); /* the stream's */
  cr_assert_eq(atomic_load(&a.refs), 0);
  counted c = {1, 0};
  gql_sse_route rc = with_token("c");
  gql_sse_registry_reserve_for(reg, &rc, 0, &c);
  gql_sse_registry_free(reg);
  cr_assert_eq(atomic_load(&c.drops), 1, "freed with the registry");
  cr_assert_eq(atomic_load(&c.refs), 0);
}

/* Workers racing on a few tokens: every owner handed out is released,
 * every reservation dropped once; nothing is left. */
typedef struct race {
  gql_sse_registry *reg;
  counted *owners;
  unsigned seed;
} race;

#define RACE_TOKENS 8
#define RACE_ROUNDS 20000

static void race_worker(void *p) {
  race *ra = p;
  unsigned x = ra->seed;
  for (int i = 0; i < RACE_ROUNDS; i++) {
    x = x * 1103515245u + 12345u;
    unsigned t = (x >> 8) % RACE_TOKENS;
    char name[8];
    snprintf(name, sizeof name, "t%u", t);
    gql_sse_route rt = with_token(name);
    void *owner = NULL, *runner = NULL;
    char id[8];
    snprintf(id, sizeof id, "%u", (x >> 16) % 4);
    switch ((x >> 4) % 6) {
    case 0: {
      counted *o = &ra->owners[(size_t)t * RACE_ROUNDS * 4 +
                               (size_t)(ra->seed % 4) * RACE_ROUNDS + i];
      atomic_store(&o->refs, 1);
      if (gql_sse_registry_reserve_for(ra->reg, &rt, i, o).status)
        atomic_store(&o->refs, 0); /* not taken */
      break;
    }
    case 1:
      if (gql_sse_registry_open_owned(ra->reg, &rt, &owner).status == 0)
        count_release(owner);
      break;
    case 2:
      gql_sse_registry_add_run(ra->reg, &rt, gql_cstr(id), ra, &owner);
      count_release(owner);
      break;
    case 3:
      rt.operation_id_len = strlen(id);
      memcpy(rt.operation_id, id, rt.operation_id_len);
      gql_sse_registry_stop_run(ra->reg, &rt, &owner, &runner);
      count_release(owner);
      break;
    case 4:
      gql_sse_registry_done(ra->reg, gql_cstr(name), gql_cstr(id));
      break;
    default:
      gql_sse_registry_close(ra->reg, gql_cstr(name));
      break;
    }
  }
}

Test(sse_registry, concurrent_workers_leave_every_owner_released) {
  gql_sse_limits lim = {
      .max_operations = 3, .retain = count_retain, .drop = count_drop};
  gql_sse_registry *reg = gql_sse_registry_new(&lim);
  size_t n = (size_t)RACE_TOKENS * RACE_ROUNDS * 4;
  counted *owners = calloc(n, sizeof *owners);
  race ra[4];
  uv_thread_t th[4];
  for (unsigned i = 0; i < 4; i++) {
    ra[i] = (race){reg, owners, i + 1};
    cr_assert_eq(uv_thread_create(&th[i], race_worker, &ra[i]), 0);
  }
  for (unsigned i = 0; i < 4; i++)
    uv_thread_join(&th[i]);
  gql_sse_registry_free(reg);
  for (size_t i = 0; i < n; i++) {
    cr_assert_eq(atomic_load(&owners[i].refs), 0, "owner %zu", i);
    cr_assert_leq(atomic_load(&owners[i].drops), 1, "owner %zu", i);
  }
  free(owners);
}

typedef struct worker_arg {
  gql_sse_registry *reg;
  int id;
  int failures;
} worker_arg;

static void hammer(void *p) {
  worker_arg *w = p;
  for (int i = 0; i < 2000; i++) {
    char t[32];
    snprintf(t, sizeof t, "w%d-%d", w->id, i);
    gql_sse_route rt = with_token(t);
    void *owner;
    if (gql_sse_registry_reserve(w->reg, &rt, 0).status ||
        gql_sse_registry_open(w->reg, &rt, w).status ||
        gql_sse_registry_add(w->reg, &rt, GQL_STR("x"), &owner).status ||
        owner != w)
      w->failures++;
    gql_sse_registry_close(w->reg, gql_cstr(t));
  }
}

Test(sse_registry, workers_share_it_safely) {
  gql_sse_registry *reg = gql_sse_registry_new(NULL);
  uv_thread_t th[4];
  worker_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (worker_arg){reg, i, 0};
    uv_thread_create(&th[i], hammer, &args[i]);
  }
  for (int i = 0; i < 4; i++) {
    uv_thread_join(&th[i]);
    cr_assert_eq(args[i].failures, 0);
  }
  cr_assert_eq(gql_sse_registry_count(reg), 0);
  gql_sse_registry_free(reg);
}

/* ------------------------------------------------------------ the stream */

/* The body of a chunked stream, chunks joined, checking each size. */
static char *dechunk(const http_buf *b, size_t from, bool *ended) {
  http_buf out;
  out = (http_buf){0};
  size_t i = from;
  *ended = false;
  while (i < b->o.len) {
    char *end;
    unsigned long n = strtoul(b->o.data + i, &end, 16);
    cr_assert_eq(end[0], '\r');
    cr_assert_eq(end[1], '\n');
    i = (size_t)(end - b->o.data) + 2;
    if (n == 0) {
      cr_assert_eq(i + 2, b->o.len);
      *ended = true;
      break;
    }
    cr_assert_leq(i + n + 2, b->o.len);
    http_buf_append(&out, b->o.data + i, n);
    cr_assert(memcmp(b->o.data + i + n, "\r\n", 2) == 0, "chunk size wrong");
    i += n + 2;
  }
  char *s = strdup(out.o.len ? http_buf_cstr(&out) : "");
  http_buf_free(&out);
  return s;
}

Test(sse_stream, events_are_written_as_graphql_sse_prints_them) {
  http_buf b;
  b = (http_buf){0};
  gql_sse_write_head(&b);
  const char *s = http_buf_cstr(&b);
  cr_assert(strstr(s, "HTTP/1.1 200 OK\r\n") == s);
  cr_assert(
      strstr(s, "\r\nContent-Type: text/event-stream; charset=utf-8\r\n"));
  cr_assert(strstr(s, "\r\nTransfer-Encoding: chunked\r\n"));
  cr_assert(strstr(s, "\r\nCache-Control: no-cache\r\n"));
  size_t body = (size_t)(strstr(s, "\r\n\r\n") - s) + 4;
  static const char res[] = "{\"data\":{\"a\":1}}";
  gql_sse_write_next(&b, (gql_str){0}, false, res, sizeof res - 1);
  gql_sse_write_complete(&b, (gql_str){0}, false);
  gql_sse_write_next(&b, GQL_STR("i\"d"), true, res, sizeof res - 1);
  gql_sse_write_complete(&b, GQL_STR("i\"d"), true);
  gql_sse_write_end(&b);
  bool ended;
  char *events = dechunk(&b, body, &ended);
  cr_assert(ended);
  cr_assert_str_eq(events, ":\n\n"
                           "event: next\ndata: {\"data\":{\"a\":1}}\n\n"
                           "event: complete\ndata:\n\n"
                           "event: next\ndata: {\"id\":\"i\\\"d\",\"payload\":"
                           "{\"data\":{\"a\":1}}}\n\n"
                           "event: complete\ndata: {\"id\":\"i\\\"d\"}\n\n");
  free(events);
  http_buf_free(&b);
}

Test(sse_stream, large_events_get_the_right_chunk_size) {
  http_buf b;
  b = (http_buf){0};
  size_t n = 300000;
  char *big = malloc(n + 16);
  memcpy(big, "{\"data\":\"", 9);
  memset(big + 9, 'x', n);
  memcpy(big + 9 + n, "\"}", 2);
  gql_sse_write_next(&b, (gql_str){0}, false, big, n + 11);
  gql_sse_write_end(&b);
  bool ended;
  char *events = dechunk(&b, 0, &ended);
  cr_assert(ended);
  cr_assert_eq(strlen(events), strlen("event: next\ndata: ") + n + 11 + 2);
  free(events);
  free(big);
  http_buf_free(&b);
}

Test(sse_route, an_empty_request_is_plain_graphql) {
  gql_sse_request rq = {0}; /* every field empty, NULL pointers */
  gql_sse_route rt;
  gql_sse_route_request(&rq, &rt);
  cr_assert_eq(rt.kind, GQL_SSE_NONE);
}
