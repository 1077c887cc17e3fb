/* The hand-written C floor of the deferred operations (bench_defer's
 * floor-plain and floor-defer modes): straight C over bench/exec's data,
 * writing exactly the bytes of gql's payloads with the JSON writer's
 * primitives, no GraphQL. What the incremental-delivery format itself
 * costs, beside bench/exec's floor for the plain responses. */
#ifndef GQL_BENCH_DEFER_FLOOR_H
#define GQL_BENCH_DEFER_FLOOR_H

#include "../exec/ops.h"

#include <stdbool.h>
#include <stddef.h>

/* Receives a payload as gql_execute_params.on_done does. */
typedef void (*floor_payload_fn)(void *ud, const char *json, size_t len,
                                 bool has_errors);

typedef struct defer_floor {
  /* The plain response into b (len reset first); NULL: no floor. */
  void (*plain)(floor_buf *b, const void *data);
  /* Every payload of the deferred operation, each written into b (reused:
   * len reset first) and handed to `on`; NULL: no floor. */
  void (*defer)(floor_buf *b, const void *data, floor_payload_fn on, void *ud);
} defer_floor;

/* Runs f->plain and hands its response to `on`. */
void bench_defer_floor_plain(const defer_floor *f, floor_buf *b,
                             const void *data, floor_payload_fn on, void *ud);

/* The floors of `op` (OP_*) over bench_ops_floor_data(ops): minimal,
 * flat_list, nested_lists and star_wars have both, the others none. */
defer_floor bench_defer_floor(const bench_ops *ops, int op);

#endif
