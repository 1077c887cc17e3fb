/* A resolver for the server tests: `later(ms:)` pends and is completed with
 * "later" by a uv_timer on the worker's loop after `ms` milliseconds. */
#ifndef GQL_TESTS_HTTP_LATER_H
#define GQL_TESTS_HTTP_LATER_H

#include "gql_http.h"

#include <stdlib.h>

typedef struct later_timer {
  uv_timer_t timer;
  gql_pending *pending;
} later_timer;

static void later_closed(uv_handle_t *h) {
  free(h->data);
}

static void later_fire(uv_timer_t *t) {
  later_timer *lt = t->data;
  gql_out_string(gql_pending_out(lt->pending), "later", 5);
  uv_close((uv_handle_t *)&lt->timer, later_closed);
}

static void later(const gql_resolve_info *info, const void *parent,
                  gql_out *out) {
  (void)parent;
  int64_t ms = 0;
  gql_value_int(gql_arg(info, "ms"), &ms);
  later_timer *lt = malloc(sizeof *lt);
  lt->pending = gql_out_pending(out);
  uv_timer_init(gql_http_loop(info), &lt->timer);
  lt->timer.data = lt;
  uv_timer_start(&lt->timer, later_fire, (uint64_t)ms, 0);
}

#endif
