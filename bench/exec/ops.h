/* The seven execution operations of ../shared/bench/README.md for gql: the
 * schemas, the data (prepared before timing), the C resolvers, the JSON
 * documents for the default resolver and the hand-written C floor. Shared
 * by bench_exec and tests/execution/test_bench_ops.c. */
#ifndef GQL_BENCH_EXEC_OPS_H
#define GQL_BENCH_EXEC_OPS_H

#include "core/core.h"
#include "gql.h"

#include <stdbool.h>
#include <stddef.h>

enum {
  OP_MINIMAL,
  OP_FLAT_LIST,
  OP_NESTED_LISTS,
  OP_STAR_WARS,
  OP_FRAGMENTS,
  OP_INTROSPECTION,
  OP_INTROSPECTION_WITHOUT_ONE_OF,
  OP_COUNT
};

/* The C floor writes into a gql_buf (reused across requests; set it up
 * with gql_buf_init) with the JSON writer's own primitives, so that it costs
 * what writing the response bytes costs and the engine's overhead is the
 * difference. */
typedef gql_buf floor_buf;

typedef struct bench_op {
  const char *name;
  gql_schema *schema;      /* C resolvers (borrowed) */
  gql_schema *json_schema; /* default resolver (borrowed); NULL: no column */
  /* The scalar fields as struct members, the lists by the same resolvers
   * (borrowed); NULL: no column */
  gql_schema *member_schema;
  const gql_value *json_root;
  char *query;
  size_t query_len;
  /* Writes the response into b (len reset first); NULL: no floor. */
  void (*floor)(floor_buf *b, const void *data);
} bench_op;

typedef struct bench_ops bench_ops;

/* Builds every schema and all data. `shared` is the shared folder
 * (../shared relative to the repository). Exits with a message on failure. */
bench_ops *bench_ops_new(const char *shared);
/* The same, every schema with graphql-js 17's @defer and @stream when
 * defer_stream (the incremental-delivery benchmark, bench/defer). */
bench_ops *bench_ops_new_with(const char *shared, bool defer_stream);
void bench_ops_free(bench_ops *ops);
const bench_op *bench_ops_get(const bench_ops *ops, int op);
/* The data the floor functions read. */
const void *bench_ops_floor_data(const bench_ops *ops);
/* The op index named `name`, or -1. */
int bench_op_by_name(const char *name);

#endif
