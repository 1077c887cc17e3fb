/* One Redis client per worker thread for everything gql serve and gql
 * gateway ask of Redis (--redis URL): the APQ store (persisted_setup.c)
 * and the subscription events (serve_events.c) take the client of their
 * worker's loop from here and give it back; the last one out closes it.
 *
 * What connections that makes, per worker: the command connection (GET /
 * SET) once a user that issues commands takes the client (APQ), and the
 * subscriber connection (Redis answers nothing but pub/sub on a
 * connection in subscribe mode, so it cannot be the same one) once the
 * events listen to their first channel, which is when the first
 * subscription opens: a schema without a Subscription type never makes
 * it, and events without APQ make no command connection.
 *
 * The users take and give back on the worker threads (the events at their
 * first subscription, both at the server's stop) and at the start on the
 * main thread: a mutex guards the list. */
#include "cli.h"
#include "pubsub/redis.h"

#include <stdlib.h>

typedef struct shared {
  struct shared *next;
  gql_cli_redis *owner;
  uv_loop_t *loop;
  gql_redis *r;
  unsigned refs;
  bool was_ready; /* for the log: a line per connection made or lost */
} shared;

struct gql_cli_redis {
  const char *url;
  uint32_t timeout_ms;
  uv_mutex_t lock;
  shared *list;
};

gql_cli_redis *gql_cli_redis_new(const char *url, uint32_t timeout_ms) {
  gql_cli_redis *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  if (uv_mutex_init(&h->lock) != 0) {
    free(h);
    return NULL;
  }
  h->url = url;
  h->timeout_ms = timeout_ms;
  return h;
}

void gql_cli_redis_free(gql_cli_redis *h) {
  if (!h)
    return;
  /* every client was given back (and so closed) by the server's stop */
  while (h->list) {
    shared *s = h->list;
    h->list = s->next;
    free(s);
  }
  uv_mutex_destroy(&h->lock);
  free(h);
}

const char *gql_cli_redis_url(const gql_cli_redis *h) {
  return h ? h->url : NULL;
}

/* One line when the command connection is made and when it is lost (not
 * one per reconnect attempt while Redis stays down). */
static void on_state(void *ud, gql_redis_state state, const char *detail) {
  shared *s = ud;
  if (state == GQL_REDIS_STATE_READY && !s->was_ready)
    fprintf(stderr, "gql: redis: connected to %s\n", s->owner->url);
  else if (state == GQL_REDIS_STATE_DOWN && s->was_ready)
    fprintf(stderr,
            "gql: redis: connection lost (%s); APQ lookups answer not found "
            "until it is back\n",
            detail ? detail : "");
  if (state == GQL_REDIS_STATE_READY || state == GQL_REDIS_STATE_DOWN)
    s->was_ready = state == GQL_REDIS_STATE_READY;
}

gql_redis *gql_cli_redis_take(gql_cli_redis *h, uv_loop_t *loop,
                              bool commands) {
  if (!h)
    return NULL;
  uv_mutex_lock(&h->lock);
  shared *s = h->list;
  while (s && s->loop != loop)
    s = s->next;
  if (!s && (s = calloc(1, sizeof *s))) {
    s->owner = h;
    s->loop = loop;
    gql_redis_options ro = {.url = h->url,
                            .command_timeout_ms = h->timeout_ms,
                            .on_state = on_state,
                            .ud = s,
                            .lazy_commands = true};
    char err[256] = "";
    if (gql_redis_new(loop, &ro, &s->r, err, sizeof err) < 0) {
      fprintf(stderr, "gql: redis: %s\n", err[0] ? err : "no memory");
      free(s);
      s = NULL;
    } else {
      s->next = h->list;
      h->list = s;
    }
  }
  gql_redis *r = s ? s->r : NULL;
  if (s) {
    s->refs++;
    if (commands)
      gql_redis_start_commands(r);
  }
  uv_mutex_unlock(&h->lock);
  return r;
}

void gql_cli_redis_give(gql_cli_redis *h, gql_redis *r) {
  if (!h || !r)
    return;
  uv_mutex_lock(&h->lock);
  for (shared **p = &h->list; *p; p = &(*p)->next) {
    shared *s = *p;
    if (s->r != r)
      continue;
    if (--s->refs == 0) {
      *p = s->next;
      gql_redis_close(r, free, s); /* on_state may run until then */
    }
    break;
  }
  uv_mutex_unlock(&h->lock);
}
