/* libFuzzer target: graphql-sse requests. The input is request after
 * request, separated by NUL bytes; a request's fields (method, target,
 * Accept, token header, operation id, result JSON) are separated by
 * newlines. Each is routed, then taken to a registry shared by the run
 * (small limits, a clock that moves), as a server would: reserve, open,
 * add, stop, done, close, expire. Whatever the input: every refusal has
 * an HTTP status graphql-sse uses, tokens and ids stay within bounds, the
 * registry never holds more than its limit, and the events written for
 * the result are well-formed chunks. */
#include "http/sse.h"
#include "json/json.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond))                                                               \
      __builtin_trap();                                                        \
  } while (0)

static bool status_known(int s) {
  return s == 400 || s == 404 || s == 405 || s == 406 || s == 409 || s == 500 ||
         s == 503;
}

/* Every chunk's size matches its bytes, and the body ends with 0. */
static void check_chunks(const http_buf *b) {
  size_t i = 0;
  for (;;) {
    CHECK(i < b->o.len);
    size_t n = 0, digits = 0;
    while (i < b->o.len && b->o.data[i] != '\r') {
      char c = b->o.data[i++];
      int v = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 87
                                     : -1;
      CHECK(v >= 0 && ++digits <= 8);
      n = n * 16 + (size_t)v;
    }
    CHECK(i + 2 <= b->o.len && b->o.data[i + 1] == '\n');
    i += 2;
    if (n == 0) {
      CHECK(i + 2 == b->o.len);
      return;
    }
    CHECK(i + n + 2 <= b->o.len);
    CHECK(b->o.data[i + n] == '\r' && b->o.data[i + n + 1] == '\n');
    CHECK(n >= 3 && memcmp(b->o.data + i + n - 2, "\n\n", 2) == 0);
    i += n + 2;
  }
}

/* The reservations' owners, as the server's hubs: counted references
 * (the registry's, and one per owner handed out, released at once); a
 * reference too many or too few shows as a leak or a use after free. */
typedef struct fz_owner {
  int refs;
} fz_owner;

static void fz_retain(void *p) {
  ((fz_owner *)p)->refs++;
}

static void fz_release(void *p) {
  if (p && --((fz_owner *)p)->refs == 0)
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gql_sse_registry *reg;
  static uint64_t now;
  if (!reg) {
    gql_sse_limits lim = {.max_streams = 8,
                          .max_operations = 4,
                          .ttl_ms = 50,
                          .retain = fz_retain,
                          .drop = fz_release};
    reg = gql_sse_registry_new(&lim);
    CHECK(reg);
  }
  size_t start = 0;
  for (size_t i = 0; i <= size; i++) {
    if (i < size && data[i] != 0)
      continue;
    gql_str f[6] = {{0}};
    size_t k = 0, s = start;
    for (size_t j = start; j <= i && k < 6; j++)
      if (j == i || data[j] == '\n') {
        f[k++] = (gql_str){(const char *)data + s, j - s};
        s = j + 1;
      }
    start = i + 1;
    now += 7;
    gql_sse_request rq = {
        .method = f[0], .target = f[1], .accept = f[2], .token = f[3]};
    gql_sse_route rt;
    gql_sse_route_request(&rq, &rt);
    CHECK(rt.token_len <= GQL_SSE_MAX_TOKEN);
    CHECK(rt.operation_id_len <= GQL_SSE_MAX_ID);
    gql_sse_result r = {0, NULL};
    void *owner = NULL, *runner = NULL;
    static int conn;
    switch (rt.kind) {
    case GQL_SSE_REFUSE:
      CHECK(status_known(rt.status));
      break;
    case GQL_SSE_RESERVE: {
      fz_owner *o = malloc(sizeof *o);
      CHECK(o);
      o->refs = 1;
      r = gql_sse_registry_reserve_for(reg, &rt, now, o);
      if (!r.status)
        CHECK(rt.token_len > 0);
      else
        free(o);
      break;
    }
    case GQL_SSE_CONNECT:
      r = gql_sse_registry_open_owned(reg, &rt, &owner);
      CHECK(!owner == (r.status || rt.kind == GQL_SSE_DISTINCT));
      fz_release(owner);
      if (f[5].len && f[5].ptr[0] == 'c') /* the client goes away */
        gql_sse_registry_close(reg, (gql_str){rt.token, rt.token_len});
      break;
    case GQL_SSE_EXECUTE:
      r = gql_sse_registry_add_run(reg, &rt, f[4], &conn, &owner);
      CHECK(!owner == !!r.status);
      fz_release(owner);
      if (!r.status && f[5].len && f[5].ptr[0] == 'd')
        gql_sse_registry_done(reg, (gql_str){rt.token, rt.token_len}, f[4]);
      break;
    case GQL_SSE_STOP:
      r = gql_sse_registry_stop_run(reg, &rt, &owner, &runner);
      CHECK(!runner || runner == &conn);
      fz_release(owner);
      break;
    default:
      break;
    }
    CHECK(r.status == 0 || status_known(r.status));
    CHECK(gql_sse_registry_count(reg) <= 8);
    if (f[0].len == 1)
      gql_sse_registry_expire(reg, now);
    http_buf b;
    b = (http_buf){0};
    gql_sse_write_ping(&b);
    gql_sse_write_next(&b, f[4], f[4].len & 1, f[5].ptr ? f[5].ptr : "",
                       f[5].len);
    gql_sse_write_complete(&b, f[4], f[4].len & 1);
    gql_sse_write_end(&b);
    check_chunks(&b);
    http_buf_free(&b);
  }
  return 0;
}
