/* The deferred texts of the benchmark operations: each operation with a
 * @defer wrapped around its deepest selection (bench_defer, and
 * tests/execution/test_bench_defer_floor.c, which pins the C floor's
 * payloads against gql's). */
#ifndef GQL_BENCH_DEFER_DEFERRED_H
#define GQL_BENCH_DEFER_DEFERRED_H

#include "../exec/ops.h"

#include <stddef.h>

/* `op` (index `op_index`, OP_*) with "... @defer { " + its deepest
 * selection's contents + " }" in place of those contents: malloc'ed, or
 * NULL when its text has no such selection or memory ran out. */
char *bench_defer_text(const bench_op *op, int op_index, size_t *out_len);

#endif
