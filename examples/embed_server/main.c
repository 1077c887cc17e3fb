/* Embedding the gql HTTP server: your own schema, your own C resolvers, and
 * one resolver that answers later, from a timer on the worker's event loop.
 *
 *   embed_server [PORT]       (default 4001; 0: any free port)
 *   curl -s localhost:4001/graphql -H 'content-type: application/json' \
 *        -d '{"query":"{ hello(name: \"you\") later(ms: 50) }"}'
 */
#include "gql.h"
#include "gql_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sdl[] = "type Query {\n"
                          "  hello(name: String = \"world\"): String!\n"
                          "  \"Answers after `ms` milliseconds.\"\n"
                          "  later(ms: Int = 10): String!\n"
                          "  greeting: String\n"
                          "}\n";

typedef struct app {
  const char *greeting; /* shared by every thread, read-only */
} app;

/* A synchronous resolver: reads its argument, writes its result. */
static void hello(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)parent;
  gql_str name = gql_value_string(gql_arg(info, "name"));
  char buf[128];
  int n = snprintf(buf, sizeof buf, "hello, %.*s", (int)name.len, name.ptr);
  gql_out_string(out, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* The embedder's context (gql_http_options.context). */
static void greeting(const gql_resolve_info *info, const void *parent,
                     gql_out *out) {
  (void)parent;
  const app *a = gql_http_context(info);
  gql_out_string(out, a->greeting, strlen(a->greeting));
}

/* An asynchronous resolver: the field pends, a uv_timer on the worker's loop
 * completes it. */
typedef struct later_timer {
  uv_timer_t timer;
  gql_pending *pending;
  int64_t ms;
} later_timer;

static void later_closed(uv_handle_t *h) {
  free(h->data);
}

static void later_fire(uv_timer_t *t) {
  later_timer *lt = t->data;
  char buf[64];
  int n = snprintf(buf, sizeof buf, "done after %lld ms", (long long)lt->ms);
  gql_out_string(gql_pending_out(lt->pending), buf, (size_t)n);
  uv_close((uv_handle_t *)&lt->timer, later_closed);
}

static void later(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)parent;
  int64_t ms = 0;
  if (!gql_value_int(gql_arg(info, "ms"), &ms) || ms < 0 || ms > 60000) {
    gql_out_error(out, "ms must be between 0 and 60000.");
    return;
  }
  uv_loop_t *loop = gql_http_loop(info);
  later_timer *lt = malloc(sizeof *lt);
  if (!loop || !lt) {
    free(lt);
    gql_out_error(out, "Cannot wait here.");
    return;
  }
  lt->pending = gql_out_pending(out);
  if (!lt->pending) {
    free(lt);
    return;
  }
  lt->ms = ms;
  uv_timer_init(loop, &lt->timer);
  lt->timer.data = lt;
  uv_timer_start(&lt->timer, later_fire, (uint64_t)ms, 0);
}

int main(int argc, char **argv) {
  int port = argc > 1 ? atoi(argv[1]) : 4001;
  gql_schema *schema = NULL;
  if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &schema, NULL) < 0) {
    fprintf(stderr, "embed_server: bad schema\n");
    return 1;
  }
  int rc = 0;
  rc |= gql_schema_set_resolver(schema, "Query", "hello", hello, NULL,
                                GQL_RESOLVER_SYNC);
  rc |= gql_schema_set_resolver(schema, "Query", "greeting", greeting, NULL,
                                GQL_RESOLVER_SYNC);
  rc |= gql_schema_set_resolver(schema, "Query", "later", later, NULL, 0);
  if (rc < 0) {
    fprintf(stderr, "embed_server: cannot set resolvers\n");
    gql_schema_free(schema);
    return 1;
  }
  app a = {.greeting = "hi from the embedder"};
  gql_http_options opt = {.port = port == 0 ? -1 : port,
                          .context = &a,
                          .banner = "embed_server: serving"};
  gql_http_server *srv = NULL;
  if ((rc = gql_http_server_new(schema, &opt, &srv)) == 0)
    rc = gql_http_server_run(srv); /* until SIGINT / SIGTERM */
  if (rc < 0)
    fprintf(stderr, "embed_server: %s\n", gql_strerror(rc));
  gql_http_server_free(srv);
  gql_schema_free(schema);
  return rc < 0 ? 1 : 0;
}
