/* Subscriptions from C: a subscription field whose resolver makes an event
 * stream, a libuv timer that pushes events into it, and a subscriber that
 * prints one response per event and leaves after a few.
 *
 *   subscribe_example [EVENTS]      (default 5)
 *
 * The resolver of Subscription.ticks runs once, at gql_subscribe: it gets
 * a gql_stream from gql_out_stream and starts a timer. Each tick pushes a
 * JSON event; gql completes it through the subscription's selection set
 * (here `n` and `label`, read from the event as the default resolver reads
 * JSON data; `label` has a resolver of its own). When the subscriber leaves
 * (gql_subscription_free), the source's cancel stops the timer. */
#include "gql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static const char sdl[] = "type Query { ok: Boolean }\n"
                          "type Tick { n: Int!, label: String }\n"
                          "type Subscription {\n"
                          "  \"A tick every `ms` milliseconds.\"\n"
                          "  ticks(ms: Int = 20): Tick\n"
                          "}\n";

/* The event source: a timer and the stream it pushes into. */
typedef struct ticker {
  uv_timer_t timer;
  gql_stream *stream;
  int n;
} ticker;

static void ticker_closed(uv_handle_t *h) {
  free(h->data);
}

static void on_tick(uv_timer_t *t) {
  ticker *k = t->data;
  char ev[64];
  int len = snprintf(ev, sizeof ev, "{\"n\":%d}", ++k->n);
  gql_stream_push_json(k->stream, ev, (size_t)len);
}

/* The subscriber went away: stop pushing. */
static void ticker_cancel(void *ud) {
  ticker *k = ud;
  uv_timer_stop(&k->timer);
  uv_close((uv_handle_t *)&k->timer, ticker_closed);
}

/* Subscription.ticks: runs once per subscriber, makes the stream. */
static void ticks(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)parent;
  int64_t ms = 20;
  gql_value_int(gql_arg(info, "ms"), &ms);
  ticker *k = calloc(1, sizeof *k);
  if (!k) {
    gql_out_error(out, "Out of memory.");
    return;
  }
  k->stream = gql_out_stream(out, &(gql_stream_source){ticker_cancel, k});
  if (!k->stream) { /* not subscribing (gql_graphql runs it once) */
    free(k);
    return;
  }
  uv_loop_t *loop = gql_info_context(info);
  uv_timer_init(loop, &k->timer);
  k->timer.data = k;
  uv_timer_start(&k->timer, on_tick, (uint64_t)ms, (uint64_t)ms);
}

/* Tick.label: a resolver under the root field, run per event. */
static void label(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)info;
  int64_t n = 0;
  gql_value_int(gql_value_get(parent, "n", 1), &n);
  gql_out_string(out, n % 2 ? "odd" : "even", n % 2 ? 3 : 4);
}

typedef struct subscriber {
  gql_subscription *sub;
  int left;
} subscriber;

static void on_event(void *ud, const char *json, size_t len, bool errors) {
  subscriber *s = ud;
  printf("%s%.*s\n", errors ? "(errors) " : "", (int)len, json);
  if (--s->left == 0) {
    gql_subscription_free(s->sub); /* cancels the ticker */
    s->sub = NULL;
  }
}

static void on_end(void *ud, const char *errors, size_t len) {
  (void)ud;
  printf("end%s%.*s\n", errors ? ": " : "", (int)len, errors ? errors : "");
}

int main(int argc, char **argv) {
  int events = argc > 1 ? atoi(argv[1]) : 5;
  if (events < 1)
    events = 1;
  uv_loop_t *loop = uv_default_loop();
  gql_schema *schema = NULL;
  if (gql_schema_from_sdl(sdl, sizeof sdl - 1, NULL, &schema, NULL) ||
      gql_schema_set_resolver(schema, "Subscription", "ticks", ticks, NULL,
                              0) ||
      gql_schema_set_resolver(schema, "Tick", "label", label, NULL, 0) ||
      gql_schema_finalize(schema)) {
    fprintf(stderr, "subscribe_example: bad schema\n");
    return 1;
  }
  static const char q[] = "subscription { ticks(ms: 10) { n label } }";
  gql_prepared *p = NULL;
  if (gql_prepare(schema, q, sizeof q - 1, NULL, NULL, &p, NULL)) {
    fprintf(stderr, "subscribe_example: bad operation\n");
    return 1;
  }
  subscriber s = {.left = events};
  gql_subscribe_params prm = {
      .context = loop, .on_event = on_event, .on_end = on_end, .ud = &s};
  int rc = gql_subscribe(p, &prm, &s.sub);
  if (rc < 0) {
    fprintf(stderr, "subscribe_example: %s\n", gql_strerror(rc));
    return 1;
  }
  uv_run(loop, UV_RUN_DEFAULT); /* ends once the ticker's timer is closed */
  gql_subscription_free(s.sub); /* NULL once the subscriber left */
  gql_prepared_free(p);
  gql_schema_free(schema);
  uv_loop_close(loop);
  return 0;
}
