/*
 * Demand control: the static cost of an operation, per the GraphQL cost
 * directive specification (IBM: @cost(weight:), @listSize(assumedSize:,
 * slicingArguments:, sizedFields:, requireOneSlicingArgument:)) as Apollo
 * Router's static_estimated strategy computes it (Hive Router follows the
 * same model):
 *
 *   operation = 10 for a mutation, else 0, + its selection set
 *   field     = count * (type cost + selection set) + arguments
 *   type cost = the field's @cost, else its named type's @cost, else 1 for
 *               an object, interface or union and 0 for a scalar or enum
 *   count     = 1 unless the field is a list; for a list, the size a parent
 *               @listSize gives it through sizedFields, else the largest
 *               slicing argument (a literal, a variable, a default, a list's
 *               length), else assumedSize, else the configured list size
 *   argument  = input object: its @cost or 1, plus its fields; list: its
 *               @cost or 0, plus its items; null 0; a leaf its @cost or 0;
 *               a variable is scored from its value
 *   fragments and inline fragments add their selections (all branches of
 *   an abstract type are summed: an upper bound); __typename costs 0, and a
 *   field excluded by @skip / @include (literal or variable) costs 0.
 *
 * The directives are read from the schema's SDL (the schema keeps each
 * element's AST), under their names or the names a @link imports them as
 * (cost spec or federation spec: alias, or the spec__name prefix).
 */
#ifndef GQL_VALIDATION_COST_H
#define GQL_VALIDATION_COST_H

#include "../json/json.h"
#include "../schema/schema.h"

typedef struct gql_cost_options {
  /* The assumed size of a list without @listSize (Apollo's list_size;
   * 0: 10). */
  uint32_t list_size;
  /* Directive names, without '@' (NULL: found from the schema's @link,
   * else "cost" and "listSize"). */
  const char *cost_name;
  const char *list_size_name;
  /* Selections visited per estimate before giving up (0: 1,000,000):
   * fragments spread many times over multiply the work. */
  uint32_t max_work;
} gql_cost_options;

/* The schema's weights and list sizes, read once. Immutable; may be shared
 * by threads. */
typedef struct gql_cost_schema gql_cost_schema;

/* 0, GQL_ENOMEM, or GQL_EINVAL with a message in err for a directive whose
 * arguments make no sense (a weight that is not a number, a slicing
 * argument the field does not have, ...). */
int gql_cost_schema_new(const gql_schema *s, const gql_cost_options *o,
                        gql_cost_schema **out, char *err, size_t err_len);
void gql_cost_schema_free(gql_cost_schema *cs);

/* The estimated cost of operation `op` of `doc` with `variables` (an
 * object, or NULL). 0, or GQL_EINVAL with *error set (in `scratch`), e.g.
 * "Exactly one slicing argument is required, but found 2" (Apollo's
 * COST_QUERY_PARSE_FAILURE), or GQL_ELIMIT past max_work, or GQL_ENOMEM.
 * `scratch` holds the work and is not reset. */
int gql_cost_estimate(const gql_cost_schema *cs, const gql_document *doc,
                      const gql_ast_operation *op,
                      const gql_json_value *variables, gql_arena *scratch,
                      double *cost, const char **error);

/* Apollo Router's refusal, before execution:
 * {"errors":[{"message":"query estimated cost E exceeded configured
 * maximum M","extensions":{"cost.estimated":E,"cost.max":M,
 * "code":"COST_ESTIMATED_TOO_EXPENSIVE"}}]} */
void gql_cost_too_expensive_json(double estimated, double max, gql_buf *out);
/* {"errors":[{"message":...,"extensions":{"code":
 * "COST_QUERY_PARSE_FAILURE"}}]} for an estimate that failed. */
void gql_cost_failure_json(const char *message, gql_buf *out);

#endif
