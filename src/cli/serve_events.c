/* Subscription events for gql serve --schema: every root field `f` of the
 * Subscription type streams the JSON messages published on the Redis
 * channel PREFIX + f (--redis URL; "gql:" by default), each the field's
 * value for one event, completed by the default resolver as --data is.
 * A subscription with arguments receives only the events whose properties
 * of the same names equal its argument values (src/pubsub/events.c).
 *
 * Each worker thread has its event bus on its loop (a gql_http_service),
 * made at the worker's first subscription on the worker's Redis client,
 * which the APQ store shares (redis_share.c): the subscriber connection
 * is made then, so a schema without subscriptions makes none. An event is
 * parsed once per worker and handed to that worker's subscribers without
 * locks; every gql sharing the Redis delivers to its own subscribers.
 * A worker's last subscriber of a field leaving unsubscribes its channel
 * (events.c). Redis restarting: the client resubscribes with backoff to
 * the channels still listened to; what is
 * published meanwhile is lost (at most once). Without --redis a
 * subscription answers a clear error.
 *
 * Each worker counts the messages its bus receives on its channels, and
 * those it drops (not JSON, over the size limit), into its own shard of
 * the server's metrics; a dropped message is also a warning line, at most
 * one per channel and reason every 10 s (DROP_LOG_INTERVAL_NS) across the
 * workers, with the count of those held back since. */
#include "cli.h"

#include "pubsub/events.h"
#include "schema/schema.h"

#include <stdlib.h>

#define DROP_LOG_INTERVAL_NS (10 * (uint64_t)1000000000)

typedef struct events_worker {
  gql_cli_serve_events *se;
  uv_loop_t *loop;
  gql_redis *redis; /* taken at the first subscription */
  gql_events *events;
  gql_metrics_shard *sh; /* NULL: metrics off */
  bool stopped;
} events_worker;

static void *worker_start(void *ud, uv_loop_t *loop) {
  gql_cli_serve_events *se = ud;
  events_worker *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  *w = (events_worker){.se = se, .loop = loop};
  gql_metrics *m = se->obs ? se->obs->metrics : NULL;
  if (m && se->obs->sm.redis_messages >= 0 &&
      !(w->sh = gql_metrics_shard_new(m))) {
    free(w);
    return NULL;
  }
  return w;
}

/* A message dropped: a warning, unless this channel's last one for the
 * same reason was less than DROP_LOG_INTERVAL_NS ago (counted, and told in
 * the next line). */
static void log_drop(gql_cli_serve_events *se, gql_str channel,
                     gql_events_fate fate, size_t bytes, const char *why) {
  if (!se->http || !se->limiting)
    return;
  uint64_t held, key = gql_hash(channel.ptr, channel.len, (uint64_t)fate);
  if (!gql_log_limit_take(&se->drops, key, gql_log_limit_now(), &held))
    return;
  char more[96] = "";
  if (held)
    snprintf(more, sizeof more,
             " (and %llu more like it since this channel's last such line)",
             (unsigned long long)held);
  int n = channel.len > 300 ? 300 : (int)channel.len;
  if (fate == GQL_EVENTS_TOO_BIG)
    gql_cli_log(se->http, GQL_HTTP_LOG_WARN,
                "subscription event dropped (too_big): Redis channel %.*s, %zu "
                "bytes, over the limit of %zu bytes%s",
                n, channel.ptr, bytes, se->max_event, more);
  else
    gql_cli_log(se->http, GQL_HTTP_LOG_WARN,
                "subscription event dropped (malformed): Redis channel %.*s, "
                "%zu bytes, not JSON: %s%s",
                n, channel.ptr, bytes, why ? why : "", more);
}

/* The bus's note of each message on its channels (on the worker's loop):
 * the worker's counts, and the log of the dropped ones. */
static void on_note(void *ud, gql_str channel, gql_events_fate fate,
                    size_t bytes, const char *why) {
  events_worker *w = ud;
  bool dropped = fate == GQL_EVENTS_MALFORMED || fate == GQL_EVENTS_TOO_BIG;
  if (w->sh) {
    const gql_server_metrics *sm = &w->se->obs->sm;
    gql_metrics_add(w->sh, &sm->redis_received, 1);
    if (dropped)
      gql_metrics_add(
          w->sh, &sm->redis_rejects[fate == GQL_EVENTS_TOO_BIG ? 1 : 0], 1);
  }
  if (dropped)
    log_drop(w->se, channel, fate, bytes, why);
}

/* The worker's bus on its Redis client, made at its first subscription
 * (NULL: out of memory, or stopping). */
static gql_events *events_of(events_worker *w) {
  if (w->events || w->stopped)
    return w->events;
  if (!(w->redis = gql_cli_redis_take(w->se->redis, w->loop, false)))
    return NULL;
  gql_events_options eo = {.prefix = w->se->prefix,
                           .max_event = w->se->max_event,
                           .note = on_note,
                           .note_ud = w};
  if (gql_events_new(w->redis, &eo, &w->events) < 0) {
    gql_cli_redis_give(w->se->redis, w->redis);
    w->redis = NULL;
  }
  return w->events;
}

static void worker_stop(void *wp) {
  events_worker *w = wp;
  w->stopped = true;
  gql_events_free(w->events); /* every subscription was cancelled before */
  w->events = NULL;
  gql_cli_redis_give(w->se->redis, w->redis); /* the last one closes it */
  w->redis = NULL;
}

static void worker_free(void *wp) {
  free(wp);
}

/* One subscriber's listener, and the stream it pushes into. */
typedef struct listener {
  gql_events_listener *l;
  gql_stream *stream;
} listener;

static void on_event(void *ud, const gql_json_value *event) {
  listener *s = ud;
  gql_stream_push(s->stream, event); /* GQL_ELIMIT: the queue's policy */
}

static void on_cancel(void *ud) {
  listener *s = ud;
  gql_events_unlisten(s->l);
  free(s);
}

/* The resolver of every Subscription root field. */
static void subscribe_field(const gql_resolve_info *info, const void *parent,
                            gql_out *out) {
  (void)parent;
  events_worker *w = gql_http_service_worker(info);
  gql_events *events = w ? events_of(w) : NULL;
  if (!events) {
    gql_out_error(out,
                  "No event source: subscriptions need gql serve "
                  "--redis URL (events from the Redis channel gql:FIELD).");
    return;
  }
  listener *s = calloc(1, sizeof *s);
  if (!s) {
    gql_out_error(out, "Out of memory.");
    return;
  }
  s->stream = gql_out_stream(out, &(gql_stream_source){on_cancel, s});
  if (!s->stream) { /* not a subscription being made */
    free(s);
    return;
  }
  s->l = gql_events_listen(events, gql_info_field_name(info),
                           gql_info_args(info), on_event, s);
  if (!s->l) { /* a failed stream gets no cancel */
    gql_stream_fail(s->stream, "Cannot listen to the event channel.");
    free(s);
  }
}

int gql_cli_serve_events_schema(gql_schema *schema) {
  if (schema->subscription == GQL_NO_TYPE)
    return 0;
  const gql_type *t = &schema->types[schema->subscription];
  char name[512];
  snprintf(name, sizeof name, "%.*s", (int)t->name.len, t->name.ptr);
  for (uint32_t i = 0; i < t->nfields; i++) {
    char field[512];
    snprintf(field, sizeof field, "%.*s", (int)t->fields[i].name.len,
             t->fields[i].name.ptr);
    int rc =
        gql_schema_set_resolver(schema, name, field, subscribe_field, NULL, 0);
    if (rc < 0)
      return rc;
  }
  return 0;
}

int gql_cli_serve_events_init(gql_cli_serve_events *se, const gql_settings *st,
                              gql_cli_redis *redis, gql_http_options *o) {
  *se = (gql_cli_serve_events){
      .url = st->redis_url,
      .redis = redis,
      .prefix = st->subscription.channel_prefix,
      .max_event = st->subscription.max_event_bytes
                       ? (size_t)st->subscription.max_event_bytes
                       : (size_t)1 << 20,
      .http = o};
  /* The resolvers under a subscription are the JSON default ones and
   * subscribe_field, which reads only the worker's service: subscribers
   * of one operation with the same variables share each event's
   * execution (a connection whose hook set a context or claims does
   * not). */
  o->subscription.shared_execution = true;
  if (!se->url || !redis)
    return 0;
  se->service = (gql_http_service){.ud = se,
                                   .worker_start = worker_start,
                                   .worker_stop = worker_stop,
                                   .worker_free = worker_free};
  o->service = &se->service;
  gql_log_limit_init(&se->drops, DROP_LOG_INTERVAL_NS);
  se->limiting = true;
  return 0;
}

int gql_cli_serve_events_observe(gql_cli_serve_events *se,
                                 gql_cli_observer *obs) {
  if (!se->url || !se->redis || !obs->metrics)
    return 0;
  se->obs = obs;
  return gql_server_metrics_events(&obs->sm);
}

void gql_cli_serve_events_free(gql_cli_serve_events *se) {
  if (se->limiting)
    gql_log_limit_free(&se->drops);
  se->limiting = false;
}
