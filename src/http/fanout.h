/* Shared execution of subscription events (subscriptions.c, when
 * gql_http_options.subscription.shared_execution is on): the subscribers
 * of one worker that run the same prepared operation (same document,
 * operation name and generation: the same document cache entry) with the
 * same variables form a group with one gql_subscription. Each event is
 * executed once for the group, and its response bytes go to every member
 * as a `next` message framed for that member: the member's own
 * `{"id":"ID","type":"` prefix, then the same tail for all.
 *
 * When that is safe is the embedder's promise (the option: no resolver
 * reads the request, and the subscription fields are broadcasts, so that
 * joining a running group is subscribing alone at that moment) plus one
 * check here: a member's connection carries no per-request state (no context or
 * claims set by a hook), since the group's execution runs with a context of
 * its own (the worker's, for gql_http_service_worker and
 * gql_http_loop). A connection with such state subscribes alone, as
 * without the option. */
#ifndef GQL_HTTP_FANOUT_H
#define GQL_HTTP_FANOUT_H

#include "http.h"

/* Adds n to one of the observer's WebSocket counts. */
static inline void gql_http_ws_counted(const gql_http_ctx *x,
                                       gql_http_ws_count what, int64_t n) {
  const gql_http_observer *ob = x->opt->observer;
  if (n && ob && ob->websocket)
    ob->websocket(x->obs_worker, what, n);
}

#define GQL_HTTP_TOO_MANY_SUBSCRIPTIONS                                        \
  "Too many subscriptions are open on this server "                            \
  "(subscription.max_opened_subscriptions)."

/* Counts a new subscription against subscription.max_opened_subscriptions
 * (*counted set when counted: its end uncounts it). false when it is one
 * too many: the caller refuses it with GQL_HTTP_TOO_MANY_SUBSCRIPTIONS. */
static inline bool gql_http_subscription_count(const gql_http_ctx *x,
                                               bool *counted) {
  if (!x->open_subscriptions)
    return true;
  unsigned n = atomic_fetch_add(x->open_subscriptions, 1);
  *counted = true;
  uint32_t max = x->opt->subscription.max_opened;
  return !max || n < max;
}

typedef struct gql_http_fans gql_http_fans;
typedef struct gql_http_fan gql_http_fan;
typedef struct gql_http_fan_member gql_http_fan_member;

/* What the group does to one member: send a `next` made of `tail`
 * pieces after the member's prefix (an event: 1 written, 0 not, -1
 * dropped), or end it (errors: a JSON array, or NULL for complete). end
 * is called with the member already out of the group. */
typedef struct gql_http_fan_calls {
  int (*next)(gql_http_fan_member *m, const gql_str *tail, unsigned n);
  void (*end)(gql_http_fan_member *m, const char *errors, size_t len);
} gql_http_fan_calls;

struct gql_http_fan_member {
  gql_http_fan *fan; /* NULL: in no group */
  gql_http_fan_member *prev, *next;
};

/* A worker's groups (NULL: out of memory). */
gql_http_fans *gql_http_fans_new(gql_http_ctx *x,
                                 const gql_http_fan_calls *calls);
/* Every group must be empty (their members left). */
void gql_http_fans_free(gql_http_fans *f);

/* Whether a subscriber on this socket request may share executions. */
bool gql_http_fan_allowed(const gql_http_ctx *x, const gql_http_request *sock);

/* Puts `m` in the group of (entry, variables), starting the group's
 * subscription when it is the first. 0: a member (events come through the
 * calls, possibly already during this call, which may also end it); a
 * negative gql_err: not a member (the subscription could not start). */
int gql_http_fan_join(gql_http_fans *f, gql_http_cache_entry *entry,
                      gql_http_pin *pin, const gql_value *variables,
                      gql_http_fan_member *m);
/* Takes `m` out of its group (the last one out ends the group's
 * subscription). Nothing when it is in none. */
void gql_http_fan_leave(gql_http_fan_member *m);

/* Groups and their members now, and executions run (for tests). */
typedef struct gql_http_fans_stats {
  uint32_t groups, members;
  uint64_t executions;
} gql_http_fans_stats;
void gql_http_fans_stats_get(const gql_http_fans *f, gql_http_fans_stats *st);

#endif
