/* Subscriptions from C resolvers, served over GraphQL over WebSocket
 * (graphql-transport-ws) by gql_http: the embedder's event source is a
 * libuv timer on the worker's loop (gql_http_loop), as in main.c.
 *
 *   subscribe_server [PORT]     (default 4002; -1: any free port)
 *
 * Prints "subscribe_server on http://127.0.0.1:PORT/graphql" once it
 * listens, then serves until SIGINT or SIGTERM.
 *
 * An execute hook authenticates each request, and each WebSocket at its
 * connection_init: the `authorization` header, or the member of that name
 * in connection_init's payload, "Bearer NAME" makes NAME the request's
 * context (Query.whoami and Tick.by read it); "bad" is refused (401 over
 * HTTP, 4403 on a socket); none passes anonymously.
 *
 *   Subscription.ticks(ms, count): a tick every `ms` milliseconds, the
 *     stream ending after `count` of them (0: never).
 *   Subscription.broken: a source that fails at its first event.
 *   Mutation.bump: a counter per worker. */
#include "gql.h"
#include "gql_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sdl[] = "type Query { hello: String, whoami: String }\n"
                          "type Mutation { bump: Int }\n"
                          "type Tick { n: Int!, label: String, by: String }\n"
                          "type Subscription {\n"
                          "  ticks(ms: Int = 20, count: Int = 0): Tick\n"
                          "  broken: Tick\n"
                          "}\n";

typedef struct ticker {
  uv_timer_t timer;
  gql_stream *stream;
  int n, count;
  bool broken;
} ticker;

static void ticker_closed(uv_handle_t *h) {
  free(h->data);
}

static void ticker_cancel(void *ud);

static void on_tick(uv_timer_t *t) {
  ticker *k = t->data;
  if (k->broken) {
    gql_stream_fail(k->stream, "The source broke.");
    ticker_cancel(k); /* an ended stream gets no cancel: clean up here */
    return;
  }
  char ev[64];
  int len = snprintf(ev, sizeof ev, "{\"n\":%d}", ++k->n);
  gql_stream_push_json(k->stream, ev, (size_t)len);
  if (k->count && k->n == k->count) {
    gql_stream_end(k->stream);
    ticker_cancel(k); /* an ended stream gets no cancel: clean up here */
  }
}

static void ticker_cancel(void *ud) {
  ticker *k = ud;
  uv_timer_stop(&k->timer);
  uv_close((uv_handle_t *)&k->timer, ticker_closed);
}

static void start(const gql_resolve_info *info, gql_out *out, int64_t ms,
                  int64_t count, bool broken) {
  ticker *k = calloc(1, sizeof *k);
  if (!k) {
    gql_out_error(out, "Out of memory.");
    return;
  }
  k->count = (int)count;
  k->broken = broken;
  k->stream = gql_out_stream(out, &(gql_stream_source){ticker_cancel, k});
  if (!k->stream) {
    free(k);
    return;
  }
  uv_timer_init(gql_http_loop(info), &k->timer);
  k->timer.data = k;
  uv_timer_start(&k->timer, on_tick, (uint64_t)ms, (uint64_t)ms);
}

static void ticks(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)parent;
  int64_t ms = 20, count = 0;
  gql_value_int(gql_arg(info, "ms"), &ms);
  gql_value_int(gql_arg(info, "count"), &count);
  if (ms < 1 || ms > 60000 || count < 0) {
    gql_out_error(out, "ms must be 1 to 60000, count not negative.");
    return;
  }
  start(info, out, ms, count, false);
}

static void broken(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  (void)parent;
  start(info, out, 10, 0, true);
}

static void label(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  int64_t n = 0;
  gql_value_int(gql_value_get(parent, "n", 1), &n);
  gql_out_string(out, n % 2 ? "odd" : "even", n % 2 ? 3 : 4);
}

/* The name the execute hook put into the request's context (or null). */
static void whoami(const gql_resolve_info *info, const void *parent,
                   gql_out *out) {
  (void)parent;
  const char *who = gql_http_request_context(gql_http_request_of(info));
  if (who)
    gql_out_string(out, who, strlen(who));
  else
    gql_out_null(out);
}

static void hello(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_string(out, "world", 5);
}

static _Thread_local int64_t bumps;

static void bump(const gql_resolve_info *info, const void *parent,
                 gql_out *out) {
  (void)info;
  (void)parent;
  gql_out_int(out, ++bumps);
}

static void on_execute(void *worker, gql_http_request *r) {
  (void)worker;
  gql_str v = gql_http_request_header(r, "authorization");
  if (!v.ptr)
    return;
  if (v.len > 7 && memcmp(v.ptr, "Bearer ", 7) == 0) {
    char *name = gql_arena_alloc(gql_http_request_arena(r), v.len - 6);
    if (name) {
      memcpy(name, v.ptr + 7, v.len - 7);
      name[v.len - 7] = 0;
      gql_http_request_set_context(r, name);
    }
    return;
  }
  gql_http_request_reject(r, 401, "Bad credentials.", "UNAUTHENTICATED");
}

int main(int argc, char **argv) {
  int port = argc > 1 ? atoi(argv[1]) : 4002;
  gql_schema *schema = NULL;
  if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &schema, NULL) ||
      gql_schema_set_resolver(schema, "Subscription", "ticks", ticks, NULL,
                              0) ||
      gql_schema_set_resolver(schema, "Subscription", "broken", broken, NULL,
                              0) ||
      gql_schema_set_resolver(schema, "Tick", "label", label, NULL, 0) ||
      gql_schema_set_resolver(schema, "Tick", "by", whoami, NULL, 0) ||
      gql_schema_set_resolver(schema, "Query", "whoami", whoami, NULL, 0) ||
      gql_schema_set_resolver(schema, "Query", "hello", hello, NULL, 0) ||
      gql_schema_set_resolver(schema, "Mutation", "bump", bump, NULL, 0)) {
    fprintf(stderr, "subscribe_server: bad schema\n");
    return 1;
  }
  static const gql_http_hooks hooks = {.execute = on_execute};
  gql_http_options o = {.port = port,
                        .threads = 1,
                        .hooks = &hooks,
                        .banner = "subscribe_server"};
  gql_http_server *srv = NULL;
  int rc = gql_http_server_new(schema, &o, &srv);
  if (rc == 0)
    rc = gql_http_server_run(srv); /* until SIGINT or SIGTERM */
  if (rc < 0)
    fprintf(stderr, "subscribe_server: %s\n", gql_strerror(rc));
  gql_http_server_free(srv);
  gql_schema_free(schema);
  return rc < 0;
}
