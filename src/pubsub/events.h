/* Subscription events from Redis: a subscription field `f` listens to the
 * Redis channel PREFIX + f ("gql:f" by default); each message published
 * there is one JSON value, the field's value for that event. A listener
 * with arguments receives only the events whose properties of the same
 * names equal its argument values (see gql_events_match), so any service
 * that can PUBLISH to Redis pushes to GraphQL clients, and every replica
 * sharing the Redis delivers to its own subscribers.
 *
 * Delivery is at most once (see redis.h): what is published while the
 * subscriber connection is down is lost. One bus per loop (per worker
 * thread), on that loop's Redis client; the message is parsed once and
 * handed to every matching listener. */
#ifndef GQL_PUBSUB_EVENTS_H
#define GQL_PUBSUB_EVENTS_H

#include "redis.h"
#include "json/json.h"

typedef struct gql_events gql_events;
typedef struct gql_events_listener gql_events_listener;

/* What became of a message on one of a bus's channels. */
typedef enum gql_events_fate {
  GQL_EVENTS_PARSED,   /* handed to the listeners whose arguments match */
  GQL_EVENTS_UNHEARD,  /* nobody listens to its channel any more */
  GQL_EVENTS_TOO_BIG,  /* over max_event: dropped */
  GQL_EVENTS_MALFORMED /* not JSON (or nested past max_depth): dropped */
} gql_events_fate;

/* Told of every message on one of the bus's channels once its fate is
 * known (after its delivery): its channel, its size in bytes and, when
 * malformed, the parser's reason ("Unexpected character 'x' at line 1,
 * column 1"; NULL otherwise). Called on the bus's loop; it must not free
 * the bus. The metrics and the log of dropped messages hang here. */
typedef void (*gql_events_note_fn)(void *ud, gql_str channel,
                                   gql_events_fate fate, size_t bytes,
                                   const char *why);

typedef struct gql_events_options {
  const char *prefix; /* of every channel (NULL: "gql:") */
  size_t max_event;   /* bytes of one message (0: 1 MiB); larger: dropped */
  uint32_t max_depth; /* JSON nesting of one message (0: 64) */
  gql_events_note_fn note; /* NULL: none */
  void *note_ud;
} gql_events_options;

typedef struct gql_events_stats {
  uint64_t received;  /* messages on our channels */
  uint64_t delivered; /* listener calls */
  uint64_t malformed; /* not JSON: dropped */
  uint64_t too_big;   /* over max_event: dropped */
  uint64_t unheard;   /* on a channel nobody listens to any more */
} gql_events_stats;

/* An event, valid during the call (copy what is kept). */
typedef void (*gql_events_cb)(void *ud, const gql_json_value *event);

/* A bus on `redis` (which it sets the message receiver of, and which must
 * outlive it). 0, GQL_EINVAL (prefix over 256 bytes) or GQL_ENOMEM. */
int gql_events_new(gql_redis *redis, const gql_events_options *o,
                   gql_events **out);
/* Frees the bus and any listener left. */
void gql_events_free(gql_events *ev);

/* Listens to `field`'s events that match `args` (an object of argument
 * name -> value, copied; NULL or {} for every event). The first listener
 * of a field subscribes to its channel, and its last one's unlisten
 * unsubscribes it (a bus keeps the name, not the subscription, of a
 * channel it heard once: a field's, so as many as the schema has). NULL
 * when out of memory, when the args nest deeper than 64 or when Redis
 * refuses another channel. */
gql_events_listener *gql_events_listen(gql_events *ev, gql_str field,
                                       const gql_json_value *args,
                                       gql_events_cb cb, void *ud);
/* Stops a listener (also from inside an event's callback). */
void gql_events_unlisten(gql_events_listener *l);

/* The argument filter: true when every argument equals the event's
 * property of the same name. Values compare as JSON (numbers by value,
 * objects whatever their key order); a null argument matches a null or
 * absent property; an event that is not an object has no properties. */
bool gql_events_match(const gql_json_value *args, const gql_json_value *event);

/* Simulates a message from Redis (tests, fuzzing): as if published on
 * `channel`. */
void gql_events_inject(gql_events *ev, gql_str channel, gql_str message);

void gql_events_stats_get(const gql_events *ev, gql_events_stats *out);

#endif
